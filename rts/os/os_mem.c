/*
 * The OS memory interface on POSIX (Linux first). See os_mem.h.
 */
#include "os/os_mem.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_NORESERVE
#define MAP_NORESERVE 0
#endif

static long fail_at;      /* 0: no fault injection */
static long commit_calls; /* os_commit calls so far */

void os_mem_init_fault_injection(void)
{
    const char *s = getenv("HSRTS_FAIL_OS_ALLOC");
    fail_at = s ? strtol(s, NULL, 10) : 0;
    commit_calls = 0;
}

void *os_reserve(size_t bytes, size_t align, uintptr_t hint)
{
    /* Over-reserve by `align` so an aligned range of `bytes` fits, then trim. */
    size_t len = bytes + align;
    void *p =
        mmap((void *)hint, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    uintptr_t start = (uintptr_t)p;
    uintptr_t aligned = (start + align - 1) & ~(uintptr_t)(align - 1);
    if (aligned > start)
        munmap(p, aligned - start);
    uintptr_t end = start + len;
    if (end > aligned + bytes)
        munmap((void *)(aligned + bytes), end - (aligned + bytes));
    return (void *)aligned;
}

bool os_commit(void *p, size_t bytes)
{
    commit_calls++;
    if (fail_at > 0 && commit_calls == fail_at) {
        errno = ENOMEM;
        return false;
    }
    void *r =
        mmap(p, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    return r == p;
}

void os_decommit(void *p, size_t bytes, bool lazy)
{
#ifdef MADV_FREE
    if (lazy && madvise(p, bytes, MADV_FREE) == 0)
        return;
#endif
    (void)lazy;
    madvise(p, bytes, MADV_DONTNEED);
}

void os_release(void *p, size_t bytes)
{
    munmap(p, bytes);
}

bool os_populate(void *p, size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
    return madvise(p, bytes, MADV_POPULATE_WRITE) == 0;
#else
    (void)p;
    (void)bytes;
    return false;
#endif
}

uint64_t os_physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES);
    long page_size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page_size <= 0)
        return 0;
    return (uint64_t)pages * (uint64_t)page_size;
}
