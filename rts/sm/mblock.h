/*
 * Megablocks: the heap's address space, handed out 1 MiB at a time.
 *
 * At start-up the heap reserves one aligned range of -xr bytes (default
 * 1 TiB) and commits megablocks from it on demand, so "is this address in
 * the heap" is a single range check (HEAP_ALLOCED) and static closures,
 * which live in the program's data, are never inside it.
 *
 * Invariants:
 *  - every megablock of the reservation is in exactly one state: never used,
 *    in use (owned by the block allocator), free and committed, free and
 *    decommitted (its pages given back to the OS), or prefaulted (free,
 *    committed, above the high-water mark: Note [Prefaulted megablocks]);
 *  - mblock_n_in_use() + free committed + prefaulted = mblock_n_committed();
 *  - above the high-water mark no megablock is in use or free and committed
 *    (only never used, prefaulted, or decommitted ones: released
 *    prefaulted ones, or mapped ahead by a claim), so a
 *    prefault claim there never takes a megablock someone owns.
 * Callers hold the storage-manager lock (sm_lock); see sm/storage.h.
 */
#ifndef RTS_SM_MBLOCK_H
#define RTS_SM_MBLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "rts/Config.h"

extern uintptr_t mblock_heap_base;
extern uintptr_t mblock_heap_size;

/* Inside the heap's reservation (one compare: unsigned wrap-around). */
#define HEAP_ALLOCED(p) ((uintptr_t)(p)-mblock_heap_base < mblock_heap_size)

#define MBLOCK_ROUND_DOWN(p) ((void *)((uintptr_t)(p) & ~MBLOCK_MASK))

/* Reserve the heap's address space from the flags (-xr, -xb). Exits on failure. */
void mblock_init(void);
void mblock_exit(void);

/*
 * n contiguous committed megablocks, for NUMA node `node` (ignored unless
 * NUMA pools are on). NULL when the reservation is exhausted or the OS
 * refuses to commit; the caller reports it.
 */
void *mblock_alloc_group(uint32_t n, uint32_t node);

/* Why the last mblock_alloc_group returned NULL. */
typedef enum { MBLOCK_FULL, MBLOCK_OS_REFUSED } MBlockFailure;
MBlockFailure mblock_last_failure(void);
void mblock_free_group(void *mb, uint32_t n);

/*
 * Decommit free megablocks (highest first) until at most `keep` megablocks
 * are committed. Lazy (MADV_FREE) unless --disable-delayed-os-memory-return.
 * Returns how many were decommitted.
 */
uint32_t mblock_release(uint64_t keep);

/* Is the megablock holding p in use by the block allocator? (sanity checks) */
bool mblock_in_use(const void *p);

/* Iterate the megablocks in use: start with NULL; NULL at the end. */
void *mblock_next_in_use(void *prev);

/* End of the part of the reservation ever used (for heap-wide bitmaps). */
uintptr_t mblock_high_water(void);

/*
 * Note [The symmetric region]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The symmetric heap (rts/shmem) must sit at the same address in every PE
 * and outside the collected heap (never moved, never scanned: not
 * HEAP_ALLOCED). It takes a fixed range [base, base+bytes) of hsrts's
 * address space: if the heap's reservation already covers the range and
 * none of those megablocks was ever used, the reservation gives up its top
 * from base on (so the two are one contiguous span); otherwise the range is
 * reserved on its own at exactly base, and a heap reservation made later
 * (hs_init after shmem_init) is placed directly below it, one unmapped
 * guard megablock apart, when -xb does not say where. One region at a
 * time; no lock (the symmetric heap is set up before and torn down after
 * any other thread can allocate megablocks).
 */
/*
 * Claim [base, base+bytes) (megablock multiples) as the symmetric region,
 * reserved and inaccessible. false if the address range is not free.
 */
bool mblock_claim_fixed(uintptr_t base, uint64_t bytes);
/* Give the region back to the OS. */
void mblock_unclaim_fixed(void);

uint64_t mblock_n_in_use(void);
uint64_t mblock_n_committed(void);

/*
 * Populating fresh megablocks ahead of need, off the pauses (the threaded
 * way's nonmoving thread): Note [Prefaulted megablocks] in mblock.c. Under
 * sm_lock: _want, at a collection's end, says how many more to populate
 * (`expect`: how many the caller expects the heap to take soon, or 0;
 * `marking`: a concurrent mark is running, so only what was just taken;
 * `one_gc`: the megablocks one collection may take, a floor under the
 * share of the heap it may ask for);
 * _claim commits up to n above the high-water mark (0 if none, or one is
 * in progress) and gives their start; the caller populates them without
 * the lock (os_populate), then calls _done.
 */
#define MBLOCK_PREFAULT_MAX        64
#define MBLOCK_PREFAULT_EXPECT_MAX 256 /* megablocks the caller may expect the heap to take */
#define MBLOCK_COMMIT_AHEAD        32  /* megablocks a claim maps at once */
#define MBLOCK_POPULATE_SYNC_MAX   2   /* Note [Populating what is taken untouched] */
#define MBLOCK_HUGE_PAGE_MAX       (4 * MBLOCK_SIZE) /* larger: no huge pages (Note [Huge pages]) */
/* Megablocks mapped at a time, the reservation's alignment in megablocks: 1, or a huge page's. */
uint32_t mblock_commit_unit(void);
/*
 * Small groups taken untouched are populated by the thread that took them
 * once it lets sm_lock go: sm_unlock calls _populate_pending after the
 * unlock, sm_lock calls _forget_pending (what a lock-less caller left).
 */
void mblock_populate_pending(void);
void mblock_forget_pending(void);
typedef struct {
    uint64_t claimed; /* megablocks claimed to populate, ever */
    uint64_t taken;   /* of those, taken by the allocator */
    uint64_t ahead;   /* claimed and not taken yet */
} MBlockPrefaultStats;
uint32_t mblock_prefault_want(uint64_t expect, bool marking, uint64_t one_gc);
uint32_t mblock_prefault_claim(uint32_t n, void **base);
void mblock_prefault_done(bool populated);
MBlockPrefaultStats mblock_prefault_stats(void);
uint64_t mblock_peak_committed(void);

#endif /* RTS_SM_MBLOCK_H */
