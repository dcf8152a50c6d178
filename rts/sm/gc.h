/*
 * The collector's driver: one stop-the-world collection of generations
 * 0..N, chosen by the trigger (sm/trigger.h) unless a major GC is forced.
 */
#ifndef RTS_SM_GC_H
#define RTS_SM_GC_H

#include <stdbool.h>

#include "capability.h"

typedef enum {
    GC_REASON_HEAP_CHECK, /* an allocation area ran out */
    GC_REASON_LARGE,      /* -AL worth of large objects since the last GC */
    GC_REASON_FORCED,     /* performGC / hs_perform_gc */
    GC_REASON_EXIT,       /* the final collection at hs_exit */
    GC_REASON_IDLE,       /* the idle timer (-I) */
    GC_REASON_WANTED      /* asked for from outside a capability (gc_want) */
} GcReason;

/*
 * Collect. `cap` is the capability the calling thread holds. It stops the
 * world first (Note [Stopping the world] in capability.c); if another
 * thread was collecting meanwhile, a collection that was not forced is
 * left to it. C finalizers of weak pointers that died run at the end.
 */
void gc_collect(Capability *cap, bool force_major, GcReason reason);

/* The collection itself, by a thread that has stopped the world. */
void gc_collect_stopped(Capability *cap, bool force_major, GcReason reason, int64_t sync_ns);

/*
 * A collection asked for by a thread that holds no capability: today the
 * nonmoving mark thread, once its mark has nothing left (Note [Asking for
 * the final pause] in nonmoving_mark.c). gc_want only sets a flag; the
 * allocation slow path runs the collection at its next nursery block
 * (gc_wanted, then gc_run_wanted), and the timer thread when every
 * capability is free. gc_run_wanted (holding `cap`) collects if the one
 * who asked still wants it (nm_final_due).
 */
extern bool gc_wanted_flag;
static inline bool gc_wanted(void)
{
    return __atomic_load_n(&gc_wanted_flag, __ATOMIC_RELAXED);
}
void gc_want(void);
void gc_run_wanted(Capability *cap);

/* setNumCapabilities, the world stopped: per-capability state for capabilities from..to-1. */
void gc_add_capabilities(uint32_t from, uint32_t to);

/* Number of collections so far (all generations). */
extern uint64_t gc_count;

void gc_init(void);
void gc_exit(void);

#endif /* RTS_SM_GC_H */
