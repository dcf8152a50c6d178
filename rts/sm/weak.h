/*
 * Weak pointers as the collector sees them.
 *
 * Note [Weak pointers]
 * ~~~~~~~~~~~~~~~~~~~~~
 * Every live weak pointer is in a table, and every collection (minor or
 * major) goes through the whole table once scavenging has reached a fixed
 * point: a weak pointer whose key is alive is kept, with its value and
 * finalizer, and scavenging resumes (a value may make another weak's key
 * alive); this repeats until nothing changes. The weak pointers left have
 * dead keys: they become DEAD_WEAK (key, value and finalizer cleared), leave
 * the table, and their C finalizers are queued to run once the collection is
 * over. Because the table is visited in every collection, a weak pointer
 * needs no remembered set even when it is older than its key or value; the
 * scavenger itself never follows a WEAK's fields.
 */
#ifndef RTS_SM_WEAK_H
#define RTS_SM_WEAK_H

#include <stdbool.h>

#include "Rts.h"

struct gc_thread_;

void weak_init(void);
void weak_exit(void);

void weak_gc_start(void);
/* One pass over the table; true if it kept anything (scavenge again). */
bool weak_traverse(struct gc_thread_ *gct);
/* Tombstone the weak pointers whose keys died; queue their finalizers. */
void weak_gc_dead(void);
/* Run the queued finalizers (after the collection, outside it). */
void weak_run_pending(void);
/* hs_exit: run every live weak pointer's finalizer, then the queued ones. */
void weak_run_all_at_exit(void);

/* f(ctx, slot) for every weak pointer in the table (sm/roots.c, ROOT_WEAK). */
void weak_visit(void (*f)(void *ctx, StgClosure **slot), void *ctx);

/*
 * Locking: the table is added to by rts_mk_weak and rts_finalize_weak (the
 * calling thread holds a capability) and rewritten by the collector (the
 * world stopped); the pending-finalizer queue is filled by the collector
 * and drained right after it by the collecting thread. With one capability
 * that is all the exclusion needed; the threaded way adds a lock for the
 * mutator side.
 */
StgWord weak_count(void);
StgWeak *weak_get(StgWord i);

#endif /* RTS_SM_WEAK_H */
