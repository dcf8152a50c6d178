/*
 * Clocks and process counters on POSIX. See os_time.h.
 */
#include "os/os_time.h"

#include <sys/resource.h>
#include <time.h>

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0)
        return 0;
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t os_time_monotonic_ns(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}
int64_t os_time_process_cpu_ns(void)
{
    return clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}
int64_t os_time_thread_cpu_ns(void)
{
    return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

int64_t os_time_cpu_of_thread_ns(pthread_t thread)
{
    clockid_t id;
    if (pthread_getcpuclockid(thread, &id) != 0)
        return 0;
    return clock_ns(id);
}

uint64_t os_page_faults(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (uint64_t)ru.ru_majflt;
}
