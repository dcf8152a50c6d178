/*
 * NUMA through libnuma. See os_numa.h.
 */
#include "os/os_numa.h"

#include "hsrts_config.h"

#ifdef HAVE_LIBNUMA
#include <numa.h>

bool os_numa_available(void)
{
    return numa_available() >= 0;
}

uint64_t os_numa_nodes(void)
{
    if (numa_available() < 0)
        return 1;
    uint64_t mask = 0;
    int max = numa_max_node();
    for (int n = 0; n <= max && n < 64; n++)
        if (numa_bitmask_isbitset(numa_all_nodes_ptr, (unsigned)n))
            mask |= (uint64_t)1 << n;
    return mask ? mask : 1;
}

void os_numa_bind(void *p, size_t bytes, uint32_t os_node)
{
    if (numa_available() >= 0)
        numa_tonode_memory(p, bytes, (int)os_node);
}

#else

bool os_numa_available(void)
{
    return false;
}

uint64_t os_numa_nodes(void)
{
    return 1;
}

void os_numa_bind(void *p, size_t bytes, uint32_t os_node)
{
    (void)p;
    (void)bytes;
    (void)os_node;
}

#endif
