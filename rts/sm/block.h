/*
 * Blocks and block descriptors.
 *
 * A megablock (1 MiB, aligned) holds 256 blocks of 4 KiB. Its first
 * FIRST_BLOCK_OFF bytes hold the 64-byte descriptors of all its blocks, so
 * the descriptor of any address is arithmetic (Bdescr). The first four
 * blocks are therefore not usable: BLOCKS_PER_MBLOCK = 252.
 *
 * A block group is a run of contiguous blocks described by its first
 * descriptor (the head; `blocks` is the group's length). The other
 * descriptors of an allocated group have blocks = 0 and link = head. A
 * group of more than BLOCKS_PER_MBLOCK blocks (a megablock group) spans
 * several megablocks: its data runs over the descriptor areas of all but the
 * first, whose descriptors are never consulted.
 *
 * Free groups are marked by free == BD_FREE_MARK in their head and tail
 * descriptor, and the tail's link points back to the head, so a group being
 * freed can find and absorb its free neighbours in O(1).
 */
#ifndef RTS_SM_BLOCK_H
#define RTS_SM_BLOCK_H

#include <stdbool.h>

#include "rts/Config.h"

#define BDESCR_SIZE           64
#define BDESCR_SHIFT          6
#define BLOCKS_PER_MBLOCK_ALL (MBLOCK_SIZE / BLOCK_SIZE)
/* Descriptor area rounded up to whole blocks. */
#define FIRST_BLOCK_OFF \
    (((BLOCKS_PER_MBLOCK_ALL * BDESCR_SIZE) + BLOCK_SIZE - 1) & ~(StgWord)BLOCK_MASK)
#define BLOCKS_PER_MBLOCK ((MBLOCK_SIZE - FIRST_BLOCK_OFF) / BLOCK_SIZE)

struct generation_;

typedef struct bdescr_ {
    StgPtr start;         /* first word of the block; fixed */
    StgPtr free;          /* first free word; BD_FREE_MARK in a free group's head and tail */
    struct bdescr_ *link; /* next group in the owner's list; head, in non-head blocks */
    union {
        struct bdescr_ *back; /* previous group in doubly-linked lists */
        StgPtr scan;          /* GC: next object to scavenge in a to-space block */
        StgWord *bitmap;      /* mark bitmap (compacting, mark-region) */
    } u;
    struct generation_ *gen; /* owning generation, or NULL */
    uint16_t gen_no;         /* gen->no, cached */
    uint16_t dest_no;        /* generation this block's survivors are copied to */
    uint16_t node;           /* NUMA node */
    uint16_t flags;          /* BF_* */
    uint32_t blocks;         /* group length (head only) */
    /*
     * 1 in a free group's head and tail (as free == BD_FREE_MARK). Written
     * only by the block allocator, under sm_lock: coalescing looks at the
     * neighbours of a freed group, whose owners may be bumping `free`
     * meanwhile (a GC thread filling its remembered set), so it tests this.
     */
    uint32_t free_group;
    uint32_t lines; /* mark-region: lines in use (bit i: words [16i, 16i+16)) */
    /*
     * Non-zero in every block of a nonmoving segment, else 0: NM_SEG_BLOCK,
     * with NM_SEG_SOURCE while the segment is an evacuation source
     * (sm/nonmoving.h). Written only by the nonmoving heap, with atomic
     * stores, so that its mark thread can read it beside the block
     * allocator (Note [Tracing beside a collection] in nonmoving_mark.c).
     */
    uint32_t nm_segment;
} bdescr;

_Static_assert(sizeof(bdescr) == BDESCR_SIZE, "bdescr must be 64 bytes");
_Static_assert(FIRST_BLOCK_OFF == 4 * BLOCK_SIZE, "descriptor area is four blocks");

#define BD_FREE_MARK ((StgPtr)(StgWord)-1)

/* Block flags. */
#define BF_EVACUATED 0x0001 /* objects here must not move in this GC (older gen, or to-space) */
#define BF_LARGE     0x0002 /* one large object (or a pinned block): relinked, never copied */
#define BF_PINNED    0x0004 /* pinned byte arrays; no pointers */
#define BF_MARKED    0x0008 /* compacting / mark-region */
#define BF_NURSERY   0x0010 /* part of an allocation area */
#define BF_MUT_LIST  0x0020 /* a remembered-set block */
#define BF_STACK     0x0040 /* a STACK chunk (also BF_LARGE) */
#define BF_NONMOVING 0x0080 /* reserved: nonmoving segment */
#define BF_COMPACT   0x0100 /* reserved: compact region */

RTS_INLINE bdescr *Bdescr(const void *p)
{
    StgWord w = (StgWord)p;
    return (bdescr *)(((w & ~MBLOCK_MASK)) | (((w & MBLOCK_MASK) >> BLOCK_SHIFT) << BDESCR_SHIFT));
}

/* The descriptor of the first usable block of p's megablock. */
RTS_INLINE bdescr *first_bdescr(const void *mb)
{
    return Bdescr((void *)(((StgWord)mb & ~MBLOCK_MASK) + FIRST_BLOCK_OFF));
}
RTS_INLINE bdescr *last_bdescr(const void *mb)
{
    return Bdescr((void *)(((StgWord)mb & ~MBLOCK_MASK) + MBLOCK_SIZE - BLOCK_SIZE));
}

/* Megablocks needed for a group of n blocks. */
RTS_INLINE uint32_t blocks_to_mblocks(StgWord n)
{
    if (n <= BLOCKS_PER_MBLOCK)
        return 1;
    return 1 +
           (uint32_t)((n - BLOCKS_PER_MBLOCK + BLOCKS_PER_MBLOCK_ALL - 1) / BLOCKS_PER_MBLOCK_ALL);
}
/* Blocks in a group spanning m megablocks. */
RTS_INLINE StgWord mblock_group_blocks(uint32_t m)
{
    return BLOCKS_PER_MBLOCK + (StgWord)(m - 1) * BLOCKS_PER_MBLOCK_ALL;
}

RTS_INLINE StgWord bd_words(const bdescr *bd)
{
    return (StgWord)(bd->free - bd->start);
}

#endif /* RTS_SM_BLOCK_H */
