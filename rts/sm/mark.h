/*
 * The shared stop-the-world mark of the non-copying old generations:
 * mark-region (-w, markregion.c), compacting (-c, compact.c) and nonmoving
 * (-xn, nonmoving.c: its segments' marks are epoch bytes, not start bits;
 * mark_object hands BF_NONMOVING blocks to nm_mark, and the overflow walk
 * rescans the segments' marked slots).
 *
 * Note [Marking in place]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * A major collection of a marked generation does not make its blocks
 * from-space: mark_prepare gives each of them BF_MARKED (and no
 * BF_EVACUATED) and a side table, MarkInfo, reached through bd->u.bitmap:
 * one start bit per word (an object begins here and was reached). evacuate
 * tests BF_MARKED in the same flag test it makes for BF_EVACUATED and
 * calls mark_object, which sets the start bit and pushes the object on the
 * mark stack the first time. The generation's scan (its policy row) drains
 * the stack: each object is scanned by the scavenger's own code (scav_one,
 * the scan classes of scan.h), so what tracing does per closure type is
 * still written once; pointers from marked objects into younger
 * generations are evacuated (promoted, eagerly, to the marked generation
 * or left on its remembered set) exactly as from a to-space block.
 *
 * Younger generations are still copied in the same collection; objects
 * promoted into the marked generation go to fresh to-space blocks (or, under
 * -w between major collections, into holes: Note [Lines and holes]).
 * Large objects and pinned blocks are relinked as under copying, which is
 * marking them in place: they never move under any policy.
 *
 * A thunk under evaluation that is marked keeps its address but becomes a
 * BLACKHOLE in place (its free variables are dead, Note [Blackholed free
 * variables] in scan.h, and may be reclaimed: nothing may keep pointing at
 * them), with the words it gives up zeroed.
 *
 * Note [Live bits]
 * ~~~~~~~~~~~~~~~~~
 * Scanning a marked object sets a live bit for each of its words (MarkInfo's
 * `live`): the scan knows the object's size, and its header is in the cache
 * then. So the rows' finishes work from bitmaps alone: mark-region's sweep
 * (lines, live words, the dead words it zeroes) and compaction's
 * forwarding never read an object again. Reading each live object's header
 * once more in address order, as they did, was a cache miss per object:
 * on mapchurn -w 60% of the sweep's time (perf), whose loop went from about
 * 20 to 13 ms a major collection (7 of them now the zeroing). A thunk
 * blackholed in place counts as the BLACKHOLE it became. A nonmoving
 * segment's slots need no bits (its epoch bytes say it all). The debug way
 * checks the bits against the objects' sizes (mark_blocks).
 *
 * The mark stack is bounded (mark_stack_limit entries). When a push finds
 * it full, the object stays marked but unscanned and the stack records an
 * overflow; when the stack is empty again the marker walks every marked
 * block's start bits and scans every marked object once more (scanning is
 * idempotent: fields already evacuated or marked are left alone), which
 * scans the ones that were dropped. That repeats until a walk ends without
 * an overflow. The walk costs a pass over the marked generation, so the
 * limit is large (16M entries, 128 MiB); the unit tests set it tiny.
 */
#ifndef RTS_SM_MARK_H
#define RTS_SM_MARK_H

#include <stdbool.h>

#include "sm/gc_thread.h"

#define MARK_BITMAP_WORDS (BLOCK_SIZE_W / 64)

/* A marked block's side table (bd->u.bitmap) during a major collection. */
typedef struct {
    StgWord start[MARK_BITMAP_WORDS]; /* an object starts at this word and is marked */
    StgWord live[MARK_BITMAP_WORDS];  /* every word of a marked object (Note [Live bits]) */
    StgPtr base[MARK_BITMAP_WORDS];   /* compaction: forwarding base per 64-word chunk */
} MarkInfo;

RTS_INLINE MarkInfo *mark_info(const bdescr *bd)
{
    return (MarkInfo *)bd->u.bitmap;
}

/*
 * Population count. Without -mpopcnt GCC calls libgcc's __popcountdi2 for
 * __builtin_popcountl (6% of a compacting run's time); the SWAR sum is
 * inline and branch-free.
 */
RTS_INLINE StgWord mark_popcount(StgWord x)
{
#ifdef __POPCNT__
    return (StgWord)__builtin_popcountl(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (x * 0x0101010101010101ull) >> 56;
#endif
}

RTS_INLINE bool mark_is_marked(const bdescr *bd, const StgClosure *q)
{
    StgWord off = (StgWord)((const StgWord *)q - bd->start);
    return (mark_info(bd)->start[off / 64] >> (off % 64)) & 1;
}

/*
 * Start a major collection of `gen` by marking: its blocks get BF_MARKED and
 * a MarkInfo (in list order, kept by the marker: mark_blocks()); its large
 * objects become the from-space list, as under copying. `evac_block`: blocks
 * the predicate accepts become from-space instead (copied out).
 */
void mark_prepare(generation *gen, bool (*evac_block)(bdescr *bd, void *ctx), void *ctx);
/* The marked blocks of the collection in progress, in the generation's order (link). */
bdescr *mark_blocks(void);
/* Zero the words of bd below `end` (in words) that no marked object covers (Note [Live bits]). */
void mark_zero_dead(bdescr *bd, StgWord end);
/* The marked generation's pending work: the workspace (promotions) and the mark stack. */
bool mark_scan(gc_thread *gct, generation *gen);
/* is_alive for a marked generation (policy.h). */
StgClosure *mark_is_alive(const bdescr *bd, StgClosure *q);
/* Free the side tables (end of the collection). */
void mark_done(void);

/* Tests: the mark stack's bound (entries; 0 restores the default) and its overflow count. */
void mark_stack_set_limit(StgWord entries);
extern uint64_t mark_stack_overflows;

#endif /* RTS_SM_MARK_H */
