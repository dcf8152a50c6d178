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
    GC_REASON_IDLE        /* the idle timer (-I) */
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

/* setNumCapabilities, the world stopped: per-capability state for capabilities from..to-1. */
void gc_add_capabilities(uint32_t from, uint32_t to);

/* Number of collections so far (all generations). */
extern uint64_t gc_count;

void gc_init(void);
void gc_exit(void);

#endif /* RTS_SM_GC_H */
