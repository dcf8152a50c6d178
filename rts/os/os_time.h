/*
 * Clocks and process counters for the statistics.
 */
#ifndef RTS_OS_TIME_H
#define RTS_OS_TIME_H

#include <stdint.h>

/* Nanoseconds. */
int64_t os_time_monotonic_ns(void);
int64_t os_time_process_cpu_ns(void);
int64_t os_time_thread_cpu_ns(void);
/* The CPU time of another running thread of this process (0 if it cannot be read). */
#include <pthread.h>
int64_t os_time_cpu_of_thread_ns(pthread_t thread);
/* Page faults (major) of the process so far. */
uint64_t os_page_faults(void);

#endif /* RTS_OS_TIME_H */
