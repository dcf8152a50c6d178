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
    GC_REASON_EXIT        /* the final collection at hs_exit */
} GcReason;

/* Collect. `cap` is the capability the calling thread holds. */
void gc_collect(Capability *cap, bool force_major, GcReason reason);

/* Number of collections so far (all generations). */
extern uint64_t gc_count;

void gc_init(void);
void gc_exit(void);

#endif /* RTS_SM_GC_H */
