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
