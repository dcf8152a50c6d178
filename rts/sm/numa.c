/*
 * NUMA pools. See numa.h.
 */
#include "sm/numa.h"

#include "flags/flags.h"
#include "messages.h"
#include "os/os_numa.h"

uint32_t numa_n_nodes = 1;
uint32_t numa_os_node[MAX_NUMA_NODES];
bool numa_bind;

void numa_init(void)
{
    numa_n_nodes = 1;
    numa_os_node[0] = 0;
    numa_bind = false;
    if (!rts_flags.gc.numa)
        return;
    if (rts_flags.gc.debug_numa_nodes > 0) {
        numa_n_nodes = rts_flags.gc.debug_numa_nodes;
        for (uint32_t i = 0; i < numa_n_nodes; i++)
            numa_os_node[i] = i;
        return;
    }
    if (!os_numa_available())
        msg_fatal(1, "--numa: OS reports NUMA is not available");
    uint64_t usable = os_numa_nodes() & rts_flags.gc.numa_mask;
    if (usable == 0)
        msg_fatal(1, "--numa=%llu: the mask names no NUMA node of this machine (its nodes: %#llx)",
                  (unsigned long long)rts_flags.gc.numa_mask, (unsigned long long)os_numa_nodes());
    uint32_t n = 0;
    for (uint32_t node = 0; node < 64 && n < MAX_NUMA_NODES; node++)
        if (usable & ((uint64_t)1 << node))
            numa_os_node[n++] = node;
    numa_n_nodes = n;
    numa_bind = true;
}
