/*
 * Heap sizing: when to collect which generation, how big the allocation
 * area and the old generations may grow, and how much memory to give back.
 * (The "trigger" of MMTk's plan/policy/trigger split.)
 */
#ifndef RTS_SM_TRIGGER_H
#define RTS_SM_TRIGGER_H

#include <stdbool.h>

#include "rts/Config.h"

void trigger_init(void);

/* The oldest generation the next collection must include. */
uint32_t trigger_choose_gen(bool force_major);

/*
 * After a collection of 0..N: set the generations' limits (after a major
 * GC), resize the allocation area (-H, -G1), return memory to the OS (after
 * a major GC, -Fd) and detect heap overflow (-M). `forced`: the collection
 * was requested (performGC, idle, exit) rather than caused by heap growth.
 */
void trigger_after_gc(uint32_t N, bool forced, uint64_t copied_words);

/*
 * A concurrent nonmoving sweep ended (a collection, world stopped): the old
 * generations' limits again, from the heap as the sweep left it.
 */
void trigger_after_sweep(void);

/* The heap limit in blocks (-M, plus any -Mgrace granted); 0 = none. */
StgWord trigger_heap_limit_blocks(void);
/* The heap passed its limit: tell the program (sm hooks); returns if it goes on. */
void trigger_heap_overflow(StgWord request_bytes);
/* The next collection is the final one (hs_exit): it reports no overflow. */
void trigger_shutting_down(void);

#endif /* RTS_SM_TRIGGER_H */
