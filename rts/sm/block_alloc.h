/*
 * The block allocator: block groups of any size from megablocks.
 *
 * Free groups smaller than a megablock sit on free lists bucketed by
 * floor(log2(size)), one set of lists per NUMA node; a freed group absorbs
 * its free neighbours at once, and a group that becomes a whole free
 * megablock goes back to the megablock layer (sm/mblock.h), which decides
 * when its pages return to the OS. Groups of a megablock or more are whole
 * megablock groups.
 *
 * Invariants (checked by bd_check):
 *  - the groups of a megablock tile its usable blocks exactly;
 *  - a group's non-head descriptors have blocks == 0 and link == head;
 *  - a free group's head and tail have free == BD_FREE_MARK, it is on the
 *    free list of its size's bucket and node, and no two free groups touch;
 *  - n_alloc_blocks counts the blocks of allocated groups.
 * All functions but the _lock variants require the storage-manager lock.
 */
#ifndef RTS_SM_BLOCK_ALLOC_H
#define RTS_SM_BLOCK_ALLOC_H

#include "sm/block.h"

#define MAX_NUMA_NODES 16

void bd_init(void);
void bd_exit(void);

/*
 * A group of at least n blocks (exactly n below a megablock; a megablock
 * group's length is rounded up to whole megablocks). The head's free is
 * start, flags, gen and link are cleared. Never returns NULL: running out
 * of memory is reported (mallocFailHook) and the process exits.
 */
bdescr *bd_alloc_group(StgWord n);
bdescr *bd_alloc_group_on_node(uint32_t node, StgWord n);
bdescr *bd_alloc_group_lock(StgWord n);
bdescr *bd_alloc_block(void);
bdescr *bd_alloc_block_lock(void);
bdescr *bd_alloc_block_on_node_lock(uint32_t node);

void bd_free_group(bdescr *bd);
void bd_free_group_lock(bdescr *bd);
/* Free every group of a list linked through `link`. */
void bd_free_chain(bdescr *bd);
void bd_free_chain_lock(bdescr *bd);

/*
 * Counts the groups ever freed, bumped before a freed group's descriptors
 * change. A thread that reads block descriptors without sm_lock while
 * another thread may free and reuse those blocks (the nonmoving mark
 * thread beside a minor collection: Note [Tracing beside a collection] in
 * nonmoving_mark.c) reads the count before and after (bd_free_seq_begin,
 * bd_free_seq_unchanged): unchanged, no descriptor it read was freed in
 * between, so each described the block as it was when its pointer was read.
 */
extern uint64_t bd_free_seq;
static inline uint64_t bd_free_seq_begin(void)
{
    return __atomic_load_n(&bd_free_seq, __ATOMIC_ACQUIRE);
}
/*
 * The caller read the descriptors with acquire loads: no later load (this
 * one) moves before them. (Not a fence: GCC's ThreadSanitizer has none.)
 */
static inline bool bd_free_seq_unchanged(uint64_t seen)
{
    return __atomic_load_n(&bd_free_seq, __ATOMIC_ACQUIRE) == seen;
}

/* Would a group of n blocks ever fit in the heap's address space? */
bool bd_request_fits(StgWord n);

uint64_t bd_n_alloc_blocks(void);
uint64_t bd_hw_alloc_blocks(void);
void bd_reset_hw_alloc_blocks(void);
uint64_t bd_n_free_blocks(void);

/* Is bd the head of a free group? */
static inline bool bd_is_free(const bdescr *bd)
{
    return bd->free == BD_FREE_MARK;
}

/* Check the invariants above; barf on the first violation. */
void bd_check(void);

/* The storage-manager lock: guards the block allocator and shared sm state. */
void sm_lock(void);
void sm_unlock(void);

#endif /* RTS_SM_BLOCK_ALLOC_H */
