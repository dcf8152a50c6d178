/*
 * The storage manager: generations, nurseries, allocation slow paths.
 *
 * Note [Generations and aging]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * There are G = -G generations; generation 0 also owns the nurseries. A
 * nursery object that survives a collection is copied into generation 0's
 * own blocks (it "ages" once), and is promoted to generation 1 by the next
 * collection of generation 0: a block's dest_no says where its survivors
 * go (0 for nursery blocks, gen->to for the rest; the oldest generation's
 * `to` is itself). With -G1 everything is copied back into generation 0: a
 * plain two-space collector. A large object ages the same way by being
 * relinked rather than copied.
 *
 * Locking: generations belong to the collector (the world stopped); the
 * mutator side touches only generation 0's large-object list
 * (rts_alloc_large, under the capability it holds; the threaded way takes
 * sm_lock there) and the counters it keeps.
 *
 * Invariants of a generation outside a collection:
 *  - (copying, policy.h) every block on `blocks` has gen == this, gen_no ==
 *    no, dest_no == to->no and BF_EVACUATED set (objects in it do not move
 *    unless this generation is collected); n_blocks and n_words count them;
 *  - large_objects is doubly linked (link, u.back); every group on it has
 *    BF_LARGE and BF_EVACUATED; n_large_blocks / n_large_words count them;
 *  - an object in generation g that points into a generation younger than
 *    g is on a remembered set of generation g (see sm/mut_list.h).
 */
#ifndef RTS_SM_STORAGE_H
#define RTS_SM_STORAGE_H

#include "capability.h"
#include "sm/block_alloc.h"

struct GenPolicy_;

typedef struct generation_ {
    uint32_t no;
    struct generation_ *to; /* survivors' destination; itself for the oldest */
    /* How it is collected: a row of the policy table (Note [Generation policies]). */
    const struct GenPolicy_ *policy;

    bdescr *blocks;
    StgWord n_blocks;
    StgWord n_words;
    bdescr *large_objects;
    StgWord n_large_blocks;
    StgWord n_large_words;

    /* Collect this generation when n_blocks + n_large_blocks exceed this. */
    StgWord max_blocks;

    uint32_t collections;
    uint32_t par_collections;

    /* During a collection of this generation: the from-space. */
    bdescr *old_blocks;
    StgWord n_old_blocks;
    bdescr *old_large_objects;
    StgWord live_words; /* words copied or kept in this generation by the last GC */
} generation;

/*
 * Whether a thunk overwritten in place by a smaller object (an IND) must
 * have the words it gives up zeroed, so that a linear walk of its block can
 * step over them (Note [Heap walkability] in layout.h). Only the walkers
 * need it: the sanity checker (debug way) and the heap census (-h). A
 * collector that walks blocks linearly sets it too. Set at start-up.
 */
extern bool sm_zero_slop;

extern generation *generations;
extern uint32_t n_generations;
extern generation *g0;
extern generation *oldest_gen;

/*
 * A nursery chunk: a list of single blocks. Without -n there is one per
 * capability; with -n the allocation area is cut into chunks of -n bytes
 * that capabilities take from a shared pool as they fill them.
 */
typedef struct nursery_ {
    bdescr *blocks;
    StgWord n_blocks;
} nursery;

extern nursery *nurseries;
extern uint32_t n_nurseries;

void sm_init(void);
void sm_exit(void);

/* Store the capability's allocation pointer into its current block. */
void sm_sync_cap(Capability *cap);

/* After a collection: every nursery block empty, capabilities on their first. */
void sm_reset_nurseries(void);

/* Make the total allocation area `blocks` blocks (at least one per nursery). */
void sm_resize_nurseries(StgWord blocks);
StgWord sm_nursery_blocks(void);

/* Words allocated since the last collection (nurseries + large objects). */
uint64_t sm_allocated_since_gc(void);
/* Move the capability to its next nursery block; false when it is time to collect. */
bool nursery_next_block(Capability *cap);

/* Blocks of large objects allocated since the last collection (for -AL). */
extern StgWord sm_large_alloc_blocks;

/* Put a group on a generation's large-object list (as the collector leaves it). */
void sm_link_large(generation *gen, bdescr *bd);
void sm_unlink_large(generation *gen, bdescr *bd);

/*
 * Allocate a STACK chunk of `words` words total (never moves; alloc.c). A
 * size no heap can hold ends the program (Note [Impossible sizes]). May collect.
 */
StgStack *sm_alloc_stack(Capability *cap, StgWord words);

/* Total blocks owned by generations, nurseries and remembered sets. */
StgWord sm_count_owned_blocks(void);

/* Check every generation's and nursery's invariants (sanity checker). */
void sm_check(void);

#endif /* RTS_SM_STORAGE_H */
