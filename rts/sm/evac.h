/*
 * Evacuation: make sure the object a field points to survives this GC, and
 * update the field to its new address (keeping the pointer's tag).
 *
 * Note [Forwarding pointers]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * When an object is copied, its from-space header is overwritten with the
 * address of the copy plus 1. Info tables are word-aligned, so a header
 * with the low bit set is always a forwarding pointer. Tags live in the
 * pointers, not the objects, so a forwarded field keeps its own tag.
 */
#ifndef RTS_SM_EVAC_H
#define RTS_SM_EVAC_H

#include "sm/gc_thread.h"
#include "sm/mblock.h"

void evac_heap(StgClosure **p, StgClosure *q);

/* Evacuate *p. Static closures and NULL are left alone. */
RTS_INLINE void evacuate(StgClosure **p)
{
    StgClosure *q = *p;
    if (HEAP_ALLOCED(q))
        evac_heap(p, q);
}

RTS_INLINE bool is_forwarded(const StgClosure *q) { return ((StgWord)q->info & 1) != 0; }
RTS_INLINE StgClosure *forwardee(const StgClosure *q)
{
    return (StgClosure *)((StgWord)q->info - 1);
}

/* Report an object whose info table the collector cannot make sense of. */
RTS_NORETURN void evac_bad_object(const StgClosure *q, const char *where);

#endif /* RTS_SM_EVAC_H */
