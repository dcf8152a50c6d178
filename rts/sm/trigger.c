/*
 * Heap sizing. See trigger.h.
 *
 * Note [Old generation limits]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * After a major collection every generation above 0 may grow to
 *     size = max(F * live, O)
 * blocks, where live is what survived in the oldest generation. With -M the
 * generations must also fit beside the allocation area: a copying
 * collection of a generation of `size` blocks needs another `size` blocks
 * to copy into, so with G-1 old generations we need 2 * size * (G-1) +
 * min_alloc <= M, where min_alloc = max(m% of M / 2, -A * capabilities),
 * and size is lowered until that holds. If even the live data does not
 * fit (size < live), or M < min_alloc, the heap has overflowed.
 *
 * Note [When the heap has overflowed]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * -M is enforced where GHC enforces it, so that a program runs under a
 * small -M exactly when it runs under GHC's (`+RTS -M1m` with the default
 * -A4m: -A becomes 1m with GHC's warning, and a program whose live data
 * stays at zero blocks runs to the end):
 *  - after a major collection: the old generations' limits above (size <
 *    live, or M < min_alloc), and, once memory has been returned, the
 *    megablocks still in use against M rounded up to megablocks;
 *  - with -G1, after every collection: the two-space rule in
 *    resize_nursery (less than m% of M left free);
 *  - at allocation: one object of M or more (Note [Impossible sizes] in
 *    alloc.c).
 * The total in use is not compared with M at other times: the allocation
 * area is part of it, so with -A as large as -M (GHC's normalisation) any
 * block beyond the nursery would overflow at once. Which generation to
 * collect does not depend on M either (GHC's calcNeeded does not look at
 * it). The final collection at hs_exit reports no overflow: the program
 * has finished (GHC throws HeapOverflow to a main thread that no longer
 * exists).
 *
 * Note [Returning memory]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * After a major collection we keep committed
 *     need = prealloc + (F' + 2) * live
 * blocks, where prealloc is the allocation area plus -AL, and live is what
 * every generation holds: if the live data stays put, the next major GC
 * needs F * live for the old generation plus live again to copy into (the
 * oldest generation's reserve: none when it is compacted, an eighth
 * under mark-region, so those keep (F' + 1) * live and a little), and
 * one more live of slack avoids giving memory back only to fault it in
 * again (GHC's choice too). F' = F / (1 + k / Fd), where k counts the
 * consecutive major collections that were not forced by heap growth
 * (requested or idle ones): a busy program keeps its memory, a quiet one
 * gives it back a little more each time. Fd = 0 never returns memory; -H
 * is a floor and -M a ceiling.
 */
#include "sm/trigger.h"

#include "flags/flags.h"
#include "hooks.h"
#include "sm/mblock.h"
#include "sm/nonmoving.h"
#include "sm/policy.h"
#include "sm/storage.h"

static uint32_t majors_not_from_growth;
static bool shutting_down; /* the final collection: no overflow reported */
/* -M in blocks (0: none), raised by -Mgrace each time a program survives an overflow. */
static StgWord heap_limit;
static uint32_t g0_pct_kept = 30; /* estimate of nursery survival, for -H */

static StgWord bytes_to_blocks(uint64_t bytes)
{
    return (StgWord)(bytes / BLOCK_SIZE);
}

static StgWord min_nursery_blocks(void)
{
    StgWord b = bytes_to_blocks(rts_flags.gc.alloc_area_bytes) * n_capabilities;
    return b < n_nurseries ? n_nurseries : b;
}

void trigger_init(void)
{
    majors_not_from_growth = 0;
    shutting_down = false;
    heap_limit = bytes_to_blocks(rts_flags.gc.max_heap_bytes);
    /*
     * As GHC's: no limit is known before the first major collection sets
     * them, so the first collection that finds an old generation non-empty
     * is a major one (and with -M checks the limits at once).
     */
    for (uint32_t g = 0; g < n_generations; g++)
        generations[g].max_blocks = 0;
}

/*
 * Note [Starting a concurrent cycle early]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A concurrent nonmoving cycle does not free anything until its final
 * pause, and the program promotes meanwhile: started when the generation
 * reaches its limit, a cycle let the heap grow by whatever was promoted
 * while it marked (on bench/largeheap, a cycle's length of promotion was
 * as much again as the live data). So the oldest generation's cycle starts
 * that much earlier: when its data reaches the limit less what the last
 * cycle promoted between its start and final pauses (nm_cycle_promoted_words),
 * so that it ends about when the data reaches the limit. A program that
 * promotes faster than the mark thread marks gets cycles back to back.
 */
/*
 * Note [What the nonmoving limit counts]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * -F says: with L live after the last major collection, collect again when
 * the generation has grown to F * L. For the nonmoving generation that is
 * its data, `n_words` (what the sweep left live, plus every slot promoted
 * since), not the segments it holds: a swept segment keeps its free slots,
 * and promotion fills them before it takes a fresh segment. The limit used
 * to be F * L plus the free slots the sweep left, compared with the
 * segments held, so a cycle came only once promotion had filled every hole
 * and then grown the heap by (F - 1) * L: a heap left at occupancy 0.57
 * by a sweep grew to 2.75 * L (bench/mapchurn without evacuation), where
 * -F2 promises 2 * L. Free slots promotion cannot use (a class nothing is
 * promoted into, an evacuation source) are held beyond the limit; under -M
 * what is held is checked after every major collection (trigger_after_gc).
 */
/*
 * Note [Evacuation and heap sizing]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The nonmoving generation's limit counts its data (Note [What the
 * nonmoving limit counts]). An evacuation source whose live objects have
 * all been copied (Note [Evacuating sparse segments] in nonmoving_evac.c)
 * holds old copies the program no longer needs, and their copies are
 * counted where they were promoted: so the old copies' words come off the
 * generation's data until the next cycle frees them, and are not counted
 * twice. Sources still being copied stay in: their copying needs minor
 * collections, which a cycle started for their sake would not give.
 */
uint32_t trigger_choose_gen(bool force_major)
{
    if (force_major)
        return n_generations - 1;
    uint32_t N = 0;
    for (uint32_t g = 0; g < n_generations; g++) {
        generation *gen = &generations[g];
        StgWord blocks = gen->n_blocks + gen->n_large_blocks;
        StgWord limit = gen->max_blocks;
        if (gen->policy == &gen_policy_nonmoving) {
            /*
             * The data the generation holds, not its segments: see Note [What the
             * nonmoving limit counts] and Note [Evacuation and heap sizing].
             */
            StgWord drained = nm_evac_source_words();
            StgWord data = gen->n_words > drained ? gen->n_words - drained : 0;
            blocks = (data + BLOCK_SIZE_W - 1) / BLOCK_SIZE_W + gen->n_large_blocks;
        }
        if (gen == oldest_gen && g > 0 && nm_concurrent()) {
            StgWord early = nm_cycle_promoted_words() / BLOCK_SIZE_W;
            limit = limit > early ? limit - early : 0;
        }
        if (g == 0 || blocks > limit)
            N = g;
    }
    return N;
}

StgWord trigger_heap_limit_blocks(void)
{
    return heap_limit;
}

void trigger_shutting_down(void)
{
    shutting_down = true;
}

void trigger_heap_overflow(StgWord request_bytes)
{
    if (shutting_down) /* See Note [When the heap has overflowed] */
        return;
    hooks_heap_overflow(request_bytes, (W_)heap_limit * BLOCK_SIZE);
    /* The program's hook let it go on: grant the grace allowance. */
    heap_limit += bytes_to_blocks(rts_flags.gc.heap_overflow_grace_bytes);
}

/*
 * Blocks the old generations need when each holds `size` blocks: the blocks
 * themselves and what a collection of each needs besides (its policy's
 * reserve: as much again for copying). See Note [Old generation limits].
 */
static StgWord old_gens_need(StgWord size)
{
    StgWord need = 0;
    for (uint32_t g = 1; g < n_generations; g++)
        need += size + generations[g].policy->reserve(&generations[g], size);
    return need;
}

/* The largest size whose old_gens_need fits in `room` blocks. */
static StgWord largest_fitting(StgWord room)
{
    StgWord lo = 0, hi = room;
    while (lo < hi) {
        StgWord mid = lo + (hi - lo + 1) / 2;
        if (old_gens_need(mid) <= room)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static void resize_generations(void)
{
    const GcFlags *f = &rts_flags.gc;
    StgWord live =
        (oldest_gen->n_words + BLOCK_SIZE_W - 1) / BLOCK_SIZE_W + oldest_gen->n_large_blocks;
    /*
     * Mark-region keeps the blocks its sweep left, holes and all (Note
     * [Lines and holes] in markregion.c): the generation may grow by
     * (F - 1) * live beyond what it holds (promotion fills the holes first),
     * and what it holds is what must fit under -M. The nonmoving
     * generation's limit counts its data instead (Note [What the nonmoving
     * limit counts]).
     */
    StgWord held_extra = 0;
    if (oldest_gen->policy == &gen_policy_mark_region) {
        StgWord held = oldest_gen->n_blocks + oldest_gen->n_large_blocks;
        held_extra = held > live ? held - live : 0;
    }
    StgWord max = heap_limit;
    /*
     * As live data nears -M, lower F towards 1: a full F times live would
     * no longer fit, and collecting more often is better than overflowing.
     */
    double factor = f->old_gen_factor;
    if (max > 0 && factor > 1.0) {
        double room = 1.0 - (double)live / (double)max;
        factor = 1.0 + (factor - 1.0) * (room > 0 ? room : 0);
    }
    StgWord size = (StgWord)((double)live * factor) + held_extra;
    StgWord min_old = bytes_to_blocks(f->min_old_gen_bytes);
    if (size < min_old)
        size = min_old;

    if (max > 0) {
        /* See Note [Old generation limits]. */
        StgWord min_alloc = (StgWord)(f->pc_free_heap * (double)max / 200.0);
        if (min_alloc < min_nursery_blocks())
            min_alloc = min_nursery_blocks();
        if (max < min_alloc)
            trigger_heap_overflow(0);
        if (old_gens_need(size) + min_alloc > max)
            size = largest_fitting(max > min_alloc ? max - min_alloc : 0);
        if (size < live + held_extra)
            trigger_heap_overflow(0);
    }
    for (uint32_t g = 1; g < n_generations; g++)
        generations[g].max_blocks = size;
}

void trigger_after_sweep(void)
{
    if (n_generations > 1)
        resize_generations();
}

static void resize_nursery(uint32_t N, uint64_t copied_words)
{
    const GcFlags *f = &rts_flags.gc;
    StgWord min = min_nursery_blocks();

    if (n_generations == 1) {
        /*
         * Two-space, as GHC sizes it: the allocation area is F * live,
         * unless that comes near -M; then it is what 2 * live leaves, and
         * less than m% of -M left is an overflow.
         */
        StgWord live = g0->n_blocks + g0->n_large_blocks;
        StgWord max = heap_limit;
        StgWord blocks;
        /* live and its reserve (live again, for copying) must fit beside the area. */
        double held = (double)(live + g0->policy->reserve(g0, live));
        if (max > 0 && (double)live * f->old_gen_factor * 2 > (double)max) {
            double adjusted = (double)max - held;
            if (adjusted * 100.0 / (double)max < f->pc_free_heap)
                trigger_heap_overflow(0);
            blocks = adjusted > 0 ? (StgWord)adjusted : 0;
        } else {
            blocks = (StgWord)((double)live * f->old_gen_factor);
        }
        sm_resize_nurseries(blocks < min ? min : blocks);
        return;
    }

    if (f->heap_size_suggestion_bytes > 0) {
        /*
         * -H: use the spare room of the suggested heap as allocation area,
         * allowing for the part of the nursery that will survive.
         */
        StgWord suggestion = bytes_to_blocks(f->heap_size_suggestion_bytes);
        StgWord nursery_blocks = sm_nursery_blocks();
        if (N == 0 && nursery_blocks > 0) {
            uint64_t kept_blocks = copied_words / (BLOCK_SIZE_W - 10);
            g0_pct_kept = (uint32_t)(kept_blocks * 100 / nursery_blocks);
        }
        StgWord needed = 0;
        for (uint32_t g = 1; g < n_generations; g++)
            needed += generations[g].n_blocks + generations[g].n_large_blocks;
        long blocks = ((long)suggestion - (long)needed) * 100 / (100 + (long)g0_pct_kept);
        if (blocks < (long)min)
            blocks = (long)min;
        sm_resize_nurseries((StgWord)blocks);
    }
}

/* Megablocks that `blocks` blocks need at least (GHC's BLOCKS_TO_MBLOCKS). */
static uint64_t limit_mblocks(StgWord blocks)
{
    if (blocks <= BLOCKS_PER_MBLOCK)
        return 1;
    return 1 + ((uint64_t)blocks - BLOCKS_PER_MBLOCK + BLOCKS_PER_MBLOCK_ALL - 1) /
                   BLOCKS_PER_MBLOCK_ALL;
}

static void return_memory(bool growth)
{
    const GcFlags *f = &rts_flags.gc;
    majors_not_from_growth = growth ? 0 : majors_not_from_growth + 1;
    if (f->return_decay_factor <= 0)
        return;
    double factor =
        f->old_gen_factor / (1.0 + (double)majors_not_from_growth / f->return_decay_factor);
    StgWord live = 0;
    for (uint32_t g = 0; g < n_generations; g++)
        live += (generations[g].n_words + BLOCK_SIZE_W - 1) / BLOCK_SIZE_W +
                generations[g].n_large_blocks;
    StgWord min_old = bytes_to_blocks(f->min_old_gen_bytes);
    if (live < min_old)
        live = min_old;
    StgWord large_lim =
        bytes_to_blocks(f->large_alloc_lim_bytes ? f->large_alloc_lim_bytes : f->alloc_area_bytes);
    /* The reserve is the oldest generation's row's: live again for copying, none to compact. */
    double need = (double)(sm_nursery_blocks() + large_lim) + (factor + 1.0) * (double)live +
                  (double)oldest_gen->policy->reserve(oldest_gen, live);
    StgWord suggestion = bytes_to_blocks(f->heap_size_suggestion_bytes);
    if (need < (double)suggestion)
        need = (double)suggestion;
    if (heap_limit > 0 && need > (double)heap_limit)
        need = (double)heap_limit;
    uint64_t keep = ((uint64_t)need + BLOCKS_PER_MBLOCK - 1) / BLOCKS_PER_MBLOCK;
    sm_lock();
    mblock_release(keep);
    sm_unlock();
}

/*
 * -c<n> with -M: once the live data of the oldest generation exceed n% of
 * -M, its next collections compact it (no copy reserve, so its limit may
 * grow to nearly -M); below, it is copied again. The two rows leave the
 * generation in the same shape (Note [Sliding compaction] in compact.c).
 */
static void choose_old_policy(void)
{
    const GcFlags *f = &rts_flags.gc;
    if (n_generations == 1 || f->compact || f->sweep || f->nonmoving || heap_limit == 0)
        return;
    double live = (double)(oldest_gen->n_words + oldest_gen->n_large_words) * sizeof(StgWord);
    bool compact = live > f->compact_threshold / 100.0 * (double)heap_limit * BLOCK_SIZE;
    oldest_gen->policy = compact ? &gen_policy_compacting : &gen_policy_copying;
}

void trigger_after_gc(uint32_t N, bool forced, uint64_t copied_words)
{
    bool major = N == n_generations - 1;
    if (major)
        choose_old_policy();
    if (major && n_generations > 1)
        resize_generations();
    resize_nursery(N, copied_words);
    if (major) {
        return_memory(!forced);
        /*
         * What is still in use, in megablocks, must fit under -M in megablocks
         * (read under sm_lock: a sweeping nonmoving thread may free segments).
         */
        if (heap_limit > 0) {
            sm_lock();
            uint64_t in_use = mblock_n_in_use();
            sm_unlock();
            if (in_use > limit_mblocks(heap_limit))
                trigger_heap_overflow(0);
        }
    }
}
