/*
 * Remembered sets (mutable lists).
 *
 * Note [Remembered sets]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * A minor collection does not scan older generations, so every object of
 * generation g > 0 that may point into a younger generation must be on a
 * remembered set of generation g. Each capability keeps one list per
 * generation (cap->mut_lists[g]): a chain of blocks of object pointers,
 * filled from start to free. Objects get there in three ways:
 *
 *  - write barriers (include/rts/Barriers.h): the first write to a clean
 *    MUT_VAR or MUT_ARR_PTRS in an old generation makes it dirty and records
 *    it; an update of an old thunk records the IND; a STACK chunk or TSO is
 *    recorded when a thread makes it active or switches chunks;
 *  - the collector itself: an object it promotes into generation g but
 *    whose referent it could not promote that far ("failed to evacuate")
 *    is recorded in g;
 *  - a remembered object still pointing young after being scavenged stays.
 *
 * A collection of generations 0..N scavenges the lists of generations above
 * N as roots and builds them anew; the lists of collected generations are
 * dropped (their survivors are re-recorded as they are scavenged). An object
 * may appear on a list more than once; scavenging it twice is harmless.
 */
#ifndef RTS_SM_MUT_LIST_H
#define RTS_SM_MUT_LIST_H

#include "capability.h"
#include "messages.h"
#include "sm/block_alloc.h"

bdescr *mut_list_new_block(void);
bdescr *mut_list_grow(Capability *cap, uint32_t gen_no);

RTS_INLINE void mut_list_record(Capability *cap, StgClosure *p, uint32_t gen_no)
{
    ASSERT(gen_no > 0);
    bdescr *bd = cap->mut_lists[gen_no];
    if (RTS_UNLIKELY(bd->free >= bd->start + BLOCK_SIZE_W))
        bd = mut_list_grow(cap, gen_no);
    *bd->free++ = (StgWord)p;
}

/* Entries on a list (a chain of blocks). */
StgWord mut_list_count(const bdescr *bd);

#endif /* RTS_SM_MUT_LIST_H */
