/*
 * Megablocks. See mblock.h.
 *
 * State is one byte per megablock of the reservation. Allocation is first
 * fit below the high-water mark, then bumps the mark; megablock traffic is
 * one call per MiB of heap growth, so a linear scan is cheap enough and
 * needs no auxiliary structure to keep consistent.
 */
#include "sm/mblock.h"

#include <stdlib.h>
#include <string.h>

#include "Rts.h"
#include "flags/flags.h"
#include "messages.h"
#include "os/os_mem.h"

enum {
    MB_NEVER = 0,        /* never committed */
    MB_IN_USE,           /* owned by the block allocator */
    MB_FREE,             /* free, committed */
    MB_FREE_DECOMMITTED, /* free, pages returned to the OS */
    MB_PREFAULTED        /* free, committed, above hw: Note [Prefaulted megablocks] */
};

uintptr_t mblock_heap_base;
uintptr_t mblock_heap_size;

static uint8_t *state;
static uint64_t n_mblocks; /* in the reservation */
static uint64_t hw;        /* megablocks [0, hw) have been used at some time */
static uint64_t n_in_use, n_free_committed, n_free_decommitted, peak_committed;
/* Note [Prefaulted megablocks]: [hw, pf_hi) may hold some; fresh_taken counts from above hw. */
static uint64_t n_prefaulted, pf_hi, fresh_taken, fresh_seen;
static uint64_t mapped_hi; /* the top of what claims mapped ahead (>= pf_hi) */
static MBlockPrefaultStats pf_stats;
static bool pf_busy, pf_unsupported; /* pf_unsupported: also set without the lock, atomically */
/*
 * Groups this thread took untouched under sm_lock, to populate once it
 * lets the lock go (Note [Populating what is taken untouched]).
 */
#define MBLOCK_PENDING_MAX 4
typedef struct {
    uint64_t start;
    uint32_t n;
} PendingPopulate;
static __thread PendingPopulate pending[MBLOCK_PENDING_MAX];
static __thread uint32_t n_pending;
static bool lazy_return;
/* Note [Huge pages]: megablocks committed at a time (1 without huge pages), and the advice. */
static uint32_t commit_unit;
static bool huge_pages;
static MBlockFailure last_failure;
/* The symmetric region (Note [The symmetric region]); 0 bytes when none. */
static uintptr_t fixed_base;
static uint64_t fixed_bytes;

uint32_t mblock_commit_unit(void)
{
    return commit_unit;
}

MBlockFailure mblock_last_failure(void)
{
    return last_failure;
}

#define MIN_RESERVATION ((uint64_t)256 << 20)
/*
 * -xb below this draws GHC's warning: the low 8 GiB is where the program,
 * its libraries and malloc live (GHC's osReserveHeapMemory). The hint is
 * still tried; the kernel places the heap elsewhere if it is taken.
 */
#define MIN_HEAP_BASE ((uintptr_t)8 << 30)

/*
 * Where to ask for a reservation of `size` bytes aligned to `align`: -xb,
 * else below the symmetric region if there is one (Note [The symmetric
 * region]), a guard of one alignment unit apart (a megablock, or a huge
 * page: Note [Huge pages]) since os_reserve maps one alignment unit more
 * than it keeps and all of it must be free.
 */
static uintptr_t reservation_hint(uint64_t size, uint64_t align)
{
    if (rts_flags.gc.heap_base || !fixed_bytes || fixed_base <= size + align)
        return rts_flags.gc.heap_base;
    return fixed_base - size - align;
}

void mblock_init(void)
{
    if (rts_flags.gc.heap_base != 0 && rts_flags.gc.heap_base < MIN_HEAP_BASE)
        msg_error("Provided heap start address %p is lower than minimum address %p",
                  (void *)rts_flags.gc.heap_base, (void *)MIN_HEAP_BASE);
    /* Note [Huge pages] */
    size_t huge = rts_flags.gc.huge_pages ? os_huge_page_size() : 0;
    huge_pages = huge >= MBLOCK_SIZE && huge <= MBLOCK_HUGE_PAGE_MAX && (huge & (huge - 1)) == 0;
    commit_unit = huge_pages ? (uint32_t)(huge / MBLOCK_SIZE) : 1;
    size_t align = (size_t)commit_unit * MBLOCK_SIZE;
    if (rts_flags.gc.heap_base & (align - 1)) {
        /* -xb between two huge pages: the heap starts there, in runs that may not fill one. */
        commit_unit = 1;
        align = MBLOCK_SIZE;
    }
    uint64_t want = rts_flags.gc.address_space_bytes;
    uint64_t size = want & ~(uint64_t)MBLOCK_MASK;
    if (size < MBLOCK_SIZE)
        size = MBLOCK_SIZE;
    /*
     * -xr is a request: when the OS (ulimit -v, a small address space)
     * refuses, halve it down to a floor rather than fail at start-up.
     */
    void *p = os_reserve(size, align, reservation_hint(size, align));
    while (!p && size / 2 >= MIN_RESERVATION) {
        size /= 2;
        p = os_reserve(size, align, reservation_hint(size, align));
    }
    if (!p)
        msg_fatal(EXIT_INTERNAL_ERROR,
                  "could not reserve %llu bytes of address space for the heap (-xr)",
                  (unsigned long long)size);
    mblock_heap_base = (uintptr_t)p;
    mblock_heap_size = size;
    n_mblocks = size >> MBLOCK_SHIFT;
    state = calloc(n_mblocks, 1);
    if (!state)
        msg_fatal(EXIT_INTERNAL_ERROR, "out of memory for the megablock map");
    hw = n_in_use = n_free_committed = n_free_decommitted = peak_committed = 0;
    n_prefaulted = pf_hi = mapped_hi = fresh_taken = fresh_seen = 0;
    pf_stats = (MBlockPrefaultStats){0};
    pf_busy = false;
    __atomic_store_n(&pf_unsupported, false, __ATOMIC_RELAXED);
    lazy_return = !rts_flags.gc.disable_delayed_os_memory_return;
}

void mblock_exit(void)
{
    if (mblock_heap_base) {
        os_release((void *)mblock_heap_base, mblock_heap_size);
        mblock_heap_base = 0;
        mblock_heap_size = 0;
    }
    free(state);
    state = NULL;
}

bool mblock_claim_fixed(uintptr_t base, uint64_t bytes)
{
    if (fixed_bytes || bytes == 0 || ((base | bytes) & MBLOCK_MASK) || base + bytes < base)
        return false;
    uintptr_t end = mblock_heap_base + mblock_heap_size;
    if (mblock_heap_size && base < end && base + bytes > mblock_heap_base) {
        /* Inside the reservation: only its never-used top can be given up. */
        if (base < mblock_high_water() || base < mblock_heap_base + (mapped_hi << MBLOCK_SHIFT) ||
            base + bytes > end || base == mblock_heap_base)
            return false;
        if (base + bytes < end)
            os_release((void *)(base + bytes), end - (base + bytes));
        mblock_heap_size = base - mblock_heap_base;
        n_mblocks = mblock_heap_size >> MBLOCK_SHIFT;
    } else {
        void *p = os_reserve(bytes, MBLOCK_SIZE, base);
        if (p != (void *)base) {
            if (p)
                os_release(p, bytes);
            return false;
        }
    }
    fixed_base = base;
    fixed_bytes = bytes;
    return true;
}

void mblock_unclaim_fixed(void)
{
    if (fixed_bytes)
        os_release((void *)fixed_base, fixed_bytes);
    fixed_base = 0;
    fixed_bytes = 0;
}

static void *mb_addr(uint64_t i)
{
    return (void *)(mblock_heap_base + (i << MBLOCK_SHIFT));
}

static uint64_t mb_index(const void *p)
{
    return ((uintptr_t)p - mblock_heap_base) >> MBLOCK_SHIFT;
}

/*
 * Commit the never-committed megablocks of [i, i+n), in maximal runs.
 * Decommitted ones need nothing: the mapping stays readable and writable,
 * and the OS hands back zero pages (or, after MADV_FREE, possibly the old
 * ones) on first touch. A run is mapped up to the next multiple of
 * commit_unit, so that every huge page lies in one mapping (Note [Huge
 * pages]); the megablocks beyond the run become free ones with no pages,
 * as a prefault claim's are, and a run of never-committed ones therefore
 * always begins on a multiple of commit_unit.
 */
static bool commit_range(uint64_t i, uint64_t n)
{
    uint64_t j = i;
    while (j < i + n) {
        if (state[j] != MB_NEVER) {
            j++;
            continue;
        }
        uint64_t run = j;
        while (run < i + n && state[run] == MB_NEVER)
            run++;
        uint64_t end = (run + commit_unit - 1) / commit_unit * commit_unit;
        if (end > n_mblocks)
            end = n_mblocks;
        for (uint64_t k = run; k < end; k++)
            if (state[k] != MB_NEVER)
                end = k;
        if (!os_commit(mb_addr(j), (end - j) << MBLOCK_SHIFT, huge_pages))
            return false;
        for (uint64_t k = run; k < end; k++) {
            state[k] = MB_FREE_DECOMMITTED;
            n_free_decommitted++;
        }
        if (end > mapped_hi)
            mapped_hi = end;
        j = run;
    }
    return true;
}

/*
 * Note [Huge pages]
 * ~~~~~~~~~~~~~~~~~
 * With --huge-pages=yes (the default) and transparent huge pages available
 * (os_huge_page_size: "always" or "madvise"), the heap is backed by huge
 * pages: the reservation starts on a huge page (2 MiB on x86-64, two
 * megablocks), commit_range maps whole huge pages at a time (commit_unit
 * megablocks), and os_commit advises MADV_HUGEPAGE, so the kernel backs a
 * fresh huge page at its first touch instead of 512 small ones.
 *
 * Why: what the heap grows into costs most on first touch. On our VMs (PVM
 * guests, whose hypervisor keeps shadow page tables) every 4 KiB page's
 * first access traps: 3000 MiB written once took 11.4 s in small pages and
 * 1.6-5.5 s in huge pages, 0.28 s when the process wrote the same memory
 * again (the host backs new guest memory at its first use, whatever the page
 * size). The prefault and untouched-group populates (Notes [Prefaulted
 * megablocks], [Populating what is taken untouched]) only moved those traps
 * out of the pauses, at a core's worth of the nonmoving thread's time on
 * largeheap; in huge pages there are 512 times fewer of them. On bare metal
 * the zeroing is the same, the faults and TLB misses fewer.
 *
 * Costs, and what keeps them small:
 *  - Residency is counted in huge pages: the first write to a megablock
 *    makes its whole huge page resident, the neighbour the mapping holds
 *    for the next fresh take (a free megablock with no pages, in the
 *    accounting) included. At most one such megablock per mapped run.
 *  - Returning one megablock of a huge page (mblock_release) splits it;
 *    the pages come back small on reuse (khugepaged may merge them later).
 *  - Where the kernel's defrag is "madvise", a fault in advised memory with
 *    no free huge page compacts memory first; --huge-pages=no avoids it and
 *    advises MADV_NOHUGEPAGE, so that a system set to "always" keeps the
 *    heap in small pages too.
 *  - Huge pages larger than MBLOCK_HUGE_PAGE_MAX (512 MiB on arm64 with
 *    64 KiB pages) are not used: the heap would grow in such steps.
 * Measured in bench/README.md ("Huge pages for the heap").
 */

void *mblock_alloc_group(uint32_t n, uint32_t node)
{
    (void)node; /* one pool until NUMA pools land */
    uint64_t start = hw;
    if (n_free_committed + n_free_decommitted >= n) {
        uint64_t run = 0;
        for (uint64_t i = 0; i < hw; i++) {
            if (state[i] == MB_FREE || state[i] == MB_FREE_DECOMMITTED) {
                if (++run == n) {
                    start = i + 1 - n;
                    break;
                }
            } else {
                run = 0;
            }
        }
    }
    if (start + n > n_mblocks) {
        last_failure = MBLOCK_FULL;
        return NULL;
    }
    if (!commit_range(start, n)) {
        last_failure = MBLOCK_OS_REFUSED;
        return NULL;
    }
    uint32_t untouched = 0; /* megablocks whose pages were never written, or returned */
    for (uint64_t i = start; i < start + n; i++) {
        if (state[i] == MB_NEVER)
            untouched++;
        if (state[i] == MB_FREE)
            n_free_committed--;
        else if (state[i] == MB_FREE_DECOMMITTED) {
            n_free_decommitted--;
            untouched++;
        } else if (state[i] == MB_PREFAULTED) {
            n_prefaulted--;
            __atomic_fetch_add(&pf_stats.taken, 1, __ATOMIC_RELAXED);
        }
        state[i] = MB_IN_USE;
    }
    if (start + n > hw) {
        fresh_taken += start + n - (start > hw ? start : hw);
        hw = start + n;
    }
    n_in_use += n;
    if (n_in_use + n_free_committed + n_prefaulted > peak_committed)
        peak_committed = n_in_use + n_free_committed + n_prefaulted;
    /* Note [Populating what is taken untouched] */
    if (untouched == n && n <= MBLOCK_POPULATE_SYNC_MAX &&
        !__atomic_load_n(&pf_unsupported, __ATOMIC_RELAXED)) {
        if (n_pending < MBLOCK_PENDING_MAX)
            pending[n_pending++] = (PendingPopulate){start, n};
        else if (!os_populate(mb_addr(start), (size_t)n << MBLOCK_SHIFT))
            __atomic_store_n(&pf_unsupported, true, __ATOMIC_RELAXED);
    }
    return mb_addr(start);
}

void mblock_forget_pending(void)
{
    n_pending = 0;
}

void mblock_populate_pending(void)
{
    for (uint32_t i = 0; i < n_pending; i++)
        if (!os_populate(mb_addr(pending[i].start), (size_t)pending[i].n << MBLOCK_SHIFT))
            __atomic_store_n(&pf_unsupported, true, __ATOMIC_RELAXED);
    n_pending = 0;
}

/*
 * Note [Populating what is taken untouched]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A megablock taken with no pages (never used, or given back to the OS) is
 * about to be written, by the block allocator's descriptors at once and by
 * whoever asked for blocks soon after: a collection copying into it, a
 * nursery, promotion into segments. Page by page, each first write is a
 * fault; on our VMs a fault costs 11-14 us a page, while populating the
 * range and reading a byte a page (os_populate) costs 5-6.5 us
 * (bench/tools/populate_cost.c; under shadow paging the exception entry is
 * what costs). So a group of at most MBLOCK_POPULATE_SYNC_MAX megablocks is
 * populated by the thread that took it, about 1.3 ms a megablock on those
 * VMs; larger groups (large objects) are left to fault, since their owner
 * may not write them all. The populate waits until that thread lets
 * sm_lock go (sm_unlock calls mblock_populate_pending): populated under
 * the lock, it made the other GC threads of a parallel collection wait for
 * every fresh megablock one of them took, and -N2 copying on largeheap
 * gained nothing. Meanwhile the block allocator has written the group's
 * descriptors (faulting their pages) and may hand its other blocks to
 * another thread; os_populate allows both. numa binding, done under the
 * lock, now comes before the populate, so the pages land on the node.
 * sm_lock forgets what a thread left pending without the lock (a caller
 * of the block allocator that holds none, as a unit test may be): those
 * groups fault as they would have. The nonmoving thread populates ahead
 * of this (Note [Prefaulted megablocks]); what it reached is MB_PREFAULTED
 * and not populated again.
 */

void mblock_free_group(void *mb, uint32_t n)
{
    uint64_t i = mb_index(mb);
    for (uint64_t j = i; j < i + n; j++) {
        if (state[j] != MB_IN_USE)
            msg_barf("mblock_free_group: megablock %p is not in use", mb_addr(j));
        state[j] = MB_FREE;
    }
    n_in_use -= n;
    n_free_committed += n;
}

uint32_t mblock_release(uint64_t keep)
{
    uint32_t released = 0;
    /* Megablocks populated ahead go first; not while the populate runs (it would undo it). */
    if (n_prefaulted > 0 && !pf_busy && n_in_use + n_free_committed + n_prefaulted > keep) {
        for (uint64_t j = hw; j < pf_hi; j++)
            if (state[j] == MB_PREFAULTED) {
                os_decommit(mb_addr(j), MBLOCK_SIZE, lazy_return);
                state[j] = MB_FREE_DECOMMITTED;
                n_free_decommitted++;
                released++;
            }
        n_prefaulted = 0;
    }
    uint64_t i = hw;
    while (i > 0 && n_in_use + n_free_committed > keep) {
        i--;
        if (state[i] != MB_FREE)
            continue;
        /* Extend downwards over a run of free megablocks, up to the excess. */
        uint64_t excess = n_in_use + n_free_committed - keep;
        uint64_t lo = i;
        while (lo > 0 && state[lo - 1] == MB_FREE && i + 1 - lo < excess)
            lo--;
        uint64_t len = i + 1 - lo;
        os_decommit(mb_addr(lo), len << MBLOCK_SHIFT, lazy_return);
        for (uint64_t j = lo; j <= i; j++)
            state[j] = MB_FREE_DECOMMITTED;
        n_free_committed -= len;
        n_free_decommitted += len;
        released += (uint32_t)len;
        i = lo;
    }
    return released;
}

bool mblock_in_use(const void *p)
{
    return HEAP_ALLOCED(p) && state[mb_index(p)] == MB_IN_USE;
}

void *mblock_next_in_use(void *prev)
{
    uint64_t i = prev ? mb_index(prev) + 1 : 0;
    for (; i < hw; i++)
        if (state[i] == MB_IN_USE)
            return mb_addr(i);
    return NULL;
}

uintptr_t mblock_high_water(void)
{
    return mblock_heap_base + (hw << MBLOCK_SHIFT);
}

uint64_t mblock_n_in_use(void)
{
    return n_in_use;
}
uint64_t mblock_n_committed(void)
{
    return n_in_use + n_free_committed + n_prefaulted;
}

/*
 * Note [Prefaulted megablocks]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The first write to a page the process has never touched takes a fault
 * and the kernel's zeroing of the page (on the VMs we measure on, up to
 * 5x the cost of a later write). A collection that promotes into fresh
 * megablocks pays that inside its pause: under thr -xn, where the old
 * generation's segments are never copied back into warm blocks, the
 * kernel's clear_page was 9-22% of bench/largeheap's samples, nearly all
 * under scav_slots. So in the threaded way the nonmoving collector's
 * thread populates a few megablocks above the high-water mark ahead of
 * need (nonmoving_mark.c asks at the end of every collection; it populates
 * two megablocks at a time). When it has nothing to mark or sweep it
 * populates all it was asked for, stopping as soon as a pause posts
 * marking work. While it marks, it populates one such step between mark
 * batches, and is asked only for what the collections took fresh since the
 * last ask (`marking`): the mark slows by what the pauses no longer pay.
 * Unbounded, populating during a mark made a cycle 3x longer on largeheap
 * and the heap grew by what it promoted meanwhile; bounded so, largeheap's
 * minor collections took 15% less time in all (median of 4 pairs), the
 * mark thread no more CPU, and the peak 4% more memory (bench/README.md,
 * "Populating beside the mark"). A request made between cycles and not
 * done when a cycle starts goes on the same way, a step between batches,
 * until an ask for more replaces it (it is at most what the between-cycles
 * rule below allows; making every ask replace it, even with nothing, was
 * no better in 2 pairs and populated less). In both cases:
 *  - under sm_lock, mblock_prefault_claim commits them and marks them
 *    MB_PREFAULTED (free, committed, not in use);
 *  - without the lock, os_populate fills their page tables writable
 *    without writing them, and reads a byte of each page (a populated
 *    page's first access still trapped to the hypervisor on our VMs, 4.5 us
 *    a page: binarytrees' minor collections that promoted 4 MiB into fresh
 *    segments took 10 ms without the read, 4-6 ms with it, copying's 3-4),
 *    so a megablock the allocator takes meanwhile (they are the next fresh
 *    ones, taken as any other) is safe to use: at worst its first writes
 *    fault as before;
 *  - mblock_prefault_done clears pf_busy; mblock_release gives prefaulted
 *    megablocks back first when the heap shrinks, never during a populate.
 * How many: twice what was taken fresh since the last collection ended
 * (once while a mark runs), at most an eighth of the megablocks in use, or
 * what one minor collection can take if that is more (`one_gc`: twice the
 * nurseries; without it a young heap, promoting a nursery's worth into fresh
 * memory at each collection, had less populated than it took: in a perf profile of
 * largeheap, page faults were 17% of the first cycle's start pause, and 2%
 * with the floor), and at most
 * MBLOCK_PREFAULT_MAX: memory the heap is about to use anyway, counted as
 * committed (and in the peak) from the moment it is claimed. Or more, if
 * the caller expects more (at most a quarter of those in use and
 * MBLOCK_PREFAULT_EXPECT_MAX): between nonmoving cycles, what the next
 * cycle will take fresh if it grows the heap as the last one did, since
 * while it marks the thread populates only what was just taken (on
 * largeheap each minor collection during a cycle had taken about a
 * thousand first-touch faults).
 * A claim maps MBLOCK_COMMIT_AHEAD megablocks at once (those beyond the
 * claim become free ones with no pages: mapped, not counted committed), so
 * neither the next claims nor the allocator reaching them call mmap, which
 * takes the process's address-space lock while sm_lock is held: a
 * promoting collection waited on sm_lock about once per collection.
 */
uint32_t mblock_prefault_want(uint64_t expect, bool marking, uint64_t one_gc)
{
    uint64_t d = fresh_taken - fresh_seen;
    fresh_seen = fresh_taken;
    if (__atomic_load_n(&pf_unsupported, __ATOMIC_RELAXED) || pf_busy)
        return 0;
    uint64_t target = marking ? d : 2 * d;
    uint64_t cap = n_in_use / 8 > one_gc ? n_in_use / 8 : one_gc;
    if (target > cap)
        target = cap;
    if (target > MBLOCK_PREFAULT_MAX)
        target = MBLOCK_PREFAULT_MAX;
    if (expect > n_in_use / 4)
        expect = n_in_use / 4;
    if (expect > MBLOCK_PREFAULT_EXPECT_MAX)
        expect = MBLOCK_PREFAULT_EXPECT_MAX;
    if (expect > target)
        target = expect;
    return target > n_prefaulted ? (uint32_t)(target - n_prefaulted) : 0;
}

uint32_t mblock_prefault_claim(uint32_t n, void **base)
{
    if (__atomic_load_n(&pf_unsupported, __ATOMIC_RELAXED) || pf_busy || n == 0)
        return 0;
    uint64_t lo = pf_hi > hw ? pf_hi : hw;
    if (lo >= n_mblocks)
        return 0;
    if (n > n_mblocks - lo)
        n = (uint32_t)(n_mblocks - lo);
    /*
     * Map MBLOCK_COMMIT_AHEAD megablocks at once, the rest as free ones
     * with no pages (mapped, not counted committed): the next claims, and
     * the allocator when it reaches them, need no mmap, which took the
     * process's address-space lock while sm_lock was held (a promoting
     * collection then waited for both).
     */
    uint64_t ahead = lo + MBLOCK_COMMIT_AHEAD;
    if (ahead > n_mblocks)
        ahead = n_mblocks;
    if (ahead < lo + n)
        ahead = lo + n;
    if (state[lo + n - 1] == MB_NEVER) {
        if (!commit_range(lo, ahead - lo)) {
            /* The OS refused the larger mapping: the claim alone, or nothing. */
            if (ahead == lo + n || !commit_range(lo, n))
                return 0;
            ahead = lo + n;
        }
        for (uint64_t i = lo + n; i < ahead; i++)
            if (state[i] == MB_NEVER) {
                state[i] = MB_FREE_DECOMMITTED;
                n_free_decommitted++;
            }
        if (ahead > mapped_hi)
            mapped_hi = ahead;
    } else if (!commit_range(lo, n)) {
        return 0;
    }
    for (uint64_t i = lo; i < lo + n; i++) {
        if (state[i] == MB_FREE_DECOMMITTED)
            n_free_decommitted--;
        state[i] = MB_PREFAULTED;
    }
    n_prefaulted += n;
    pf_hi = lo + n;
    if (pf_hi > mapped_hi)
        mapped_hi = pf_hi;
    if (n_in_use + n_free_committed + n_prefaulted > peak_committed)
        peak_committed = n_in_use + n_free_committed + n_prefaulted;
    __atomic_fetch_add(&pf_stats.claimed, n, __ATOMIC_RELAXED);
    pf_busy = true;
    *base = mb_addr(lo);
    return n;
}

void mblock_prefault_done(bool populated)
{
    pf_busy = false;
    /* The OS cannot: the claimed ones stay committed, as free ones. */
    if (!populated)
        __atomic_store_n(&pf_unsupported, true, __ATOMIC_RELAXED);
}

MBlockPrefaultStats mblock_prefault_stats(void)
{
    /* Written under sm_lock; read without it too (--internal-counters at exit, where the mark
     * thread may still be populating and a fatal exit may hold the lock). */
    MBlockPrefaultStats st;
    st.claimed = __atomic_load_n(&pf_stats.claimed, __ATOMIC_RELAXED);
    st.taken = __atomic_load_n(&pf_stats.taken, __ATOMIC_RELAXED);
    st.ahead = n_prefaulted;
    return st;
}
uint64_t mblock_peak_committed(void)
{
    return peak_committed;
}
