/*
 * The OS memory interface: reserve address space, commit and decommit it.
 * The only place that calls mmap/madvise for the heap (STYLE.md item 9).
 */
#ifndef RTS_OS_MEM_H
#define RTS_OS_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Reserve `bytes` of address space, aligned to `align` (a power of two),
 * inaccessible until committed. `hint` (0 = anywhere) is where to try
 * first. Returns NULL if the OS refuses.
 */
void *os_reserve(size_t bytes, size_t align, uintptr_t hint);

/*
 * Make [p, p+bytes) readable and writable (zero-filled). With `huge`, ask
 * the OS to back it with huge pages where whole ones fit (Linux's
 * MADV_HUGEPAGE); without, ask it not to (MADV_NOHUGEPAGE), so that a
 * system whose transparent huge pages are "always" does not either. false
 * on failure (of the mapping; the advice is only advice).
 */
bool os_commit(void *p, size_t bytes, bool huge);

/*
 * The size of the huge pages os_commit can ask for (Linux: the PMD size of
 * transparent huge pages, 2 MiB on x86-64), or 0 where there are none: not
 * Linux, or transparent huge pages set to "never".
 */
size_t os_huge_page_size(void);

/*
 * Tell the OS the contents of [p, p+bytes) are no longer needed. With
 * `lazy`, MADV_FREE (the OS takes the pages when it wants them); otherwise
 * MADV_DONTNEED (they go at once). The range stays reserved.
 */
void os_decommit(void *p, size_t bytes, bool lazy);

/* Give a reservation back entirely. */
void os_release(void *p, size_t bytes);

/*
 * Fill the page tables of committed [p, p+bytes) writable without writing the
 * pages (Linux's MADV_POPULATE_WRITE), then read a byte of each page (a
 * hypervisor's shadow page tables are filled by an access, not by the
 * populate): the first write faults and traps no more. Safe while another
 * thread uses the range. False where the OS cannot.
 */
bool os_populate(void *p, size_t bytes);

/* Physical memory of the machine in bytes, or 0 if unknown. */
uint64_t os_physical_memory(void);

/*
 * Fault injection for tests: when HSRTS_FAIL_OS_ALLOC=N is set in the
 * environment, the N-th call to os_commit (counting from 1) fails.
 */
void os_mem_init_fault_injection(void);

#endif /* RTS_OS_MEM_H */
