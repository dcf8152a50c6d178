/*
 * The symmetric heap's allocator: which byte ranges of the heap are in use.
 *
 * It works on offsets in [0, size) and never touches the heap's memory: all
 * of its bookkeeping is private (malloc'd) and out of band, so a program
 * writing past a block, or another PE putting into it, cannot corrupt it,
 * and a pointer is recognised as a block only if the allocator handed it
 * out. The caller (shmem_alloc.c) turns offsets into addresses and copies
 * contents when a realloc moves a block.
 *
 * See Note [A deterministic symmetric allocator] for why every PE gets the
 * same offsets, and Note [Size classes and coalescing] for the policy.
 *
 * Invariants (checked by shmem_heap_check after every call in the debug way
 * and in the unit tests):
 *  - the blocks tile [0, size) in address order: each starts where the
 *    previous one ends, every size is a non-zero multiple of
 *    SHMEM_HEAP_GRANULE;
 *  - no two free blocks are neighbours (freeing coalesces at once);
 *  - every free block is on exactly the free list of its size class, and a
 *    class's bitmap bit is set iff its list is non-empty;
 *  - every block in use is in the live map under its offset, and nothing
 *    else is;
 *  - bytes_used is the sum of the sizes of the blocks in use.
 * Not thread-safe: OpenSHMEM's memory calls are collective, one at a time.
 */
#ifndef RTS_SHMEM_SHMEM_HEAP_H
#define RTS_SHMEM_SHMEM_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Every block starts and ends on this boundary ("aligned for any use"). */
#define SHMEM_HEAP_GRANULE 16

/* Size classes: TLSF's two-level scheme (see shmem_heap.c). */
#define SHMEM_HEAP_SL_LOG 4
#define SHMEM_HEAP_SL     (1 << SHMEM_HEAP_SL_LOG)
#define SHMEM_HEAP_FL     48

typedef struct {
    uint64_t off;       /* first byte, from the heap's start */
    uint64_t size;      /* bytes, a multiple of SHMEM_HEAP_GRANULE */
    uint32_t prev;      /* address-order neighbours (SHMEM_HEAP_NIL at the ends) */
    uint32_t next;      /*   ... */
    uint32_t free_prev; /* free list of its class (free blocks only) */
    uint32_t free_next; /*   ... */
    bool free;
} ShmemBlock;

#define SHMEM_HEAP_NIL UINT32_MAX

typedef struct {
    uint64_t origin;     /* the address of offset 0: alignment is of origin + offset */
    uint64_t size;       /* bytes managed */
    uint64_t bytes_used; /* in blocks in use */
    uint64_t n_used;     /* blocks in use */
    uint64_t n_free;     /* free blocks */

    ShmemBlock *blocks; /* descriptors, indexed; unused ones chained by .next */
    uint32_t n_records;
    uint32_t spare; /* first unused descriptor, or NIL */
    uint32_t first; /* the block at offset 0 */

    uint64_t fl_bitmap;
    uint32_t sl_bitmap[SHMEM_HEAP_FL];
    uint32_t heads[SHMEM_HEAP_FL][SHMEM_HEAP_SL];

    /* The live map: offset -> descriptor of a block in use (open addressing). */
    uint32_t *map;
    uint64_t map_cap; /* a power of two */
} ShmemHeap;

/* Why a call failed; each maps to one malloc_error code (shmem_alloc.c). */
typedef enum {
    SHMEM_HEAP_OK = 0,
    SHMEM_HEAP_TOO_BIG,      /* larger than the whole heap: it can never fit */
    SHMEM_HEAP_NO_SPACE,     /* no free range is large enough now */
    SHMEM_HEAP_BAD_ALIGN,    /* alignment 0 or not a power of two */
    SHMEM_HEAP_OUTSIDE,      /* the offset is not in the heap */
    SHMEM_HEAP_NOT_A_BLOCK,  /* inside a block in use, but not its start */
    SHMEM_HEAP_ALREADY_FREE, /* inside a free range: freed already, or never handed out */
} ShmemHeapStatus;

/*
 * Set up an empty heap of `size` bytes (a multiple of the granule, > 0)
 * whose offset 0 is at address `origin` (a multiple of the granule).
 */
void shmem_heap_init(ShmemHeap *h, uint64_t origin, uint64_t size);
void shmem_heap_exit(ShmemHeap *h);

/*
 * A block of at least `size` bytes (size > 0) starting at a multiple of
 * `align` (a power of two; anything up to the granule means the granule).
 * On success *off is its offset.
 */
ShmemHeapStatus shmem_heap_alloc(ShmemHeap *h, uint64_t size, uint64_t align, uint64_t *off);

/* Free the block in use starting at `off`. */
ShmemHeapStatus shmem_heap_free(ShmemHeap *h, uint64_t off);

/*
 * Resize the block at `off` to at least `size` bytes (size > 0). On success
 * *new_off is where it is now; if it moved, the caller must memmove *copy
 * bytes from `off` to *new_off before anything else touches the heap (the
 * ranges may overlap). On failure the block is unchanged.
 */
ShmemHeapStatus shmem_heap_realloc(ShmemHeap *h, uint64_t off, uint64_t size, uint64_t *new_off,
                                   uint64_t *copy);

/* The size of the block in use at `off`, or 0 if there is none. */
uint64_t shmem_heap_block_size(const ShmemHeap *h, uint64_t off);

/* The largest free block, in bytes (0 when the heap is full). */
uint64_t shmem_heap_largest_free(const ShmemHeap *h);

/* NULL if every invariant above holds, else a description of the first broken one. */
const char *shmem_heap_check(const ShmemHeap *h);

#endif /* RTS_SHMEM_SHMEM_HEAP_H */
