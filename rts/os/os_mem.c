/*
 * The OS memory interface on POSIX (Linux first). See os_mem.h.
 */
#include "os/os_mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

bool os_commit(void *p, size_t bytes, bool huge)
{
    commit_calls++;
    if (fail_at > 0 && commit_calls == fail_at) {
        errno = ENOMEM;
        return false;
    }
    void *r =
        mmap(p, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (r != p)
        return false;
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
    madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#else
    (void)huge;
#endif
    return true;
}

size_t os_huge_page_size(void)
{
#ifdef MADV_HUGEPAGE
    char mode[128] = "";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f)
        return 0;
    bool got = fgets(mode, sizeof mode, f) != NULL;
    fclose(f);
    if (!got || strstr(mode, "[never]"))
        return 0;
    unsigned long long size = 0;
    f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "r");
    if (!f)
        return 0;
    if (fscanf(f, "%llu", &size) != 1)
        size = 0;
    fclose(f);
    return (size_t)size;
#else
    return 0;
#endif
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

/*
 * Read a byte of every page. Another thread may be writing these pages
 * (os_populate's contract): the value read is thrown away, and the hardware
 * makes the read harmless, so ThreadSanitizer is told not to watch it.
 */
__attribute__((noinline, no_sanitize("thread"))) static void touch_pages(const char *p,
                                                                         size_t bytes)
{
    long ps = sysconf(_SC_PAGESIZE);
    size_t page = ps > 0 ? (size_t)ps : 4096;
    for (size_t off = 0; off < bytes; off += page)
        (void)*(const volatile char *)(p + off);
}

bool os_populate(void *p, size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
    if (madvise(p, bytes, MADV_POPULATE_WRITE) != 0)
        return false;
    /*
     * On the VMs we measure on (PVM guests, whose hypervisor keeps shadow
     * page tables), the populate fills the guest's page tables, but the first
     * access through this mapping still traps, about 4.5 us a page
     * (bench/tools/populate_cost.c: 128 MiB populated, then written: 152 ms;
     * populated, read a byte a page, then written: 6 ms). Unread, that was
     * the collector's to pay on its first write into the megablock (Note
     * [Prefaulted megablocks]). A read from here pays it instead; where the
     * populate maps everything (bare metal, nested paging) it costs a TLB miss
     * a page.
     */
    touch_pages(p, bytes);
    return true;
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
