/*
 * NUMA pools (--numa, --numa=<mask>, --debug-numa=<n>).
 *
 * The block allocator keeps free lists per node (block_alloc.h); a node
 * here is a logical index 0 .. numa_n_nodes-1 into numa_os_node[]. With
 * --numa, the nodes are those in the mask that the OS reports, capability
 * c belongs to node c mod numa_n_nodes, its nursery comes from its node's
 * free lists and the megablocks taken for a node are bound to it. With
 * --debug-numa=n the n nodes are fake (no binding) so that a machine with
 * one node tests the same paths. Without either, one node and no binding.
 */
#ifndef RTS_SM_NUMA_H
#define RTS_SM_NUMA_H

#include <stdbool.h>
#include <stdint.h>

#include "sm/block_alloc.h"

extern uint32_t numa_n_nodes;
extern uint32_t numa_os_node[MAX_NUMA_NODES];
extern bool numa_bind; /* real nodes: bind megablocks */

/* From the flags; a mask naming no node is one line and exit 1. */
void numa_init(void);

RTS_INLINE uint32_t numa_node_of_cap(uint32_t cap_no)
{
    return cap_no % numa_n_nodes;
}

#endif /* RTS_SM_NUMA_H */
