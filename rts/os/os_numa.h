/*
 * NUMA through libnuma (the one place that calls it): which nodes exist,
 * and binding memory to one. Without libnuma (configure said no) there is
 * one node and binding does nothing.
 */
#ifndef RTS_OS_NUMA_H
#define RTS_OS_NUMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Is NUMA available here? */
bool os_numa_available(void);
/* Nodes the OS reports, as a mask of node numbers (bit i = node i). */
uint64_t os_numa_nodes(void);
/* Bind [p, p+bytes) to node `os_node` (pages not yet touched go there). */
void os_numa_bind(void *p, size_t bytes, uint32_t os_node);

#endif /* RTS_OS_NUMA_H */
