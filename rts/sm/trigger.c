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
 * nursery <= M, and size is lowered until that holds. If even the live
 * data does not fit, the heap has overflowed.
 *
 * Note [Returning memory]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * After a major collection we keep committed
 *     need = prealloc + (F' + 2) * live
 * blocks, where prealloc is the allocation area plus -AL, and live is what
 * every generation holds: if the live data stays put, the next major GC
 * needs F * live for the old generation plus live again to copy into, and
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
#include "sm/policy.h"
#include "sm/storage.h"

static uint32_t majors_not_from_growth;
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
    heap_limit = bytes_to_blocks(rts_flags.gc.max_heap_bytes);
    StgWord o = bytes_to_blocks(rts_flags.gc.min_old_gen_bytes);
    for (uint32_t g = 0; g < n_generations; g++)
        generations[g].max_blocks = o;
}

uint32_t trigger_choose_gen(bool force_major)
{
    uint32_t oldest = n_generations - 1;
    if (force_major)
        return oldest;
    uint32_t N = 0;
    StgWord copy_reserve = 0;
    for (uint32_t g = 0; g < n_generations; g++) {
        generation *gen = &generations[g];
        StgWord blocks = gen->n_blocks + gen->n_large_blocks;
        if (g == 0 || blocks > gen->max_blocks) {
            N = g;
            copy_reserve += gen->policy->reserve(gen);
        }
    }
    /* With -M: if copying what we would collect could overflow, collect everything. */
    if (heap_limit > 0 && N < oldest && bd_n_alloc_blocks() + copy_reserve > heap_limit)
        N = oldest;
    return N;
}

StgWord trigger_heap_limit_blocks(void)
{
    return heap_limit;
}

void trigger_heap_overflow(StgWord request_bytes)
{
    hooks_heap_overflow(request_bytes, (W_)heap_limit * BLOCK_SIZE);
    /* The program's hook let it go on: grant the grace allowance. */
    heap_limit += bytes_to_blocks(rts_flags.gc.heap_overflow_grace_bytes);
}

static void resize_generations(void)
{
    const GcFlags *f = &rts_flags.gc;
    StgWord live =
        (oldest_gen->n_words + BLOCK_SIZE_W - 1) / BLOCK_SIZE_W + oldest_gen->n_large_blocks;
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
    StgWord size = (StgWord)((double)live * factor);
    StgWord min_old = bytes_to_blocks(f->min_old_gen_bytes);
    if (size < min_old)
        size = min_old;

    if (max > 0) {
        StgWord min_alloc = (StgWord)(f->pc_free_heap * (double)max / 200.0);
        if (min_alloc < min_nursery_blocks())
            min_alloc = min_nursery_blocks();
        StgWord gens = n_generations - 1;
        if (size * gens * 2 + min_alloc > max)
            size = max > min_alloc ? (max - min_alloc) / (gens * 2) : 0;
        if (size < live)
            trigger_heap_overflow(0);
    }
    for (uint32_t g = 1; g < n_generations; g++)
        generations[g].max_blocks = size;
}

static void resize_nursery(uint32_t N, uint64_t copied_words)
{
    const GcFlags *f = &rts_flags.gc;
    StgWord min = min_nursery_blocks();

    if (n_generations == 1) {
        /* Two-space: the allocation area grows with the live data. */
        StgWord live = g0->n_blocks + g0->n_large_blocks;
        StgWord blocks = (StgWord)((double)live * f->old_gen_factor);
        StgWord max = heap_limit;
        if (max > 0 && blocks + 2 * live > max)
            blocks = max > 2 * live ? max - 2 * live : 0;
        if (max > 0 && live * 2 > max)
            trigger_heap_overflow(0);
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
    double need = (double)(sm_nursery_blocks() + large_lim) + (factor + 2.0) * (double)live;
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

void trigger_after_gc(uint32_t N, bool forced, uint64_t copied_words)
{
    bool major = N == n_generations - 1;
    if (major && n_generations > 1)
        resize_generations();
    resize_nursery(N, copied_words);
    /* Whatever the generations' sizes, what is in use must fit under -M. */
    if (major && heap_limit > 0 && bd_n_alloc_blocks() > heap_limit)
        trigger_heap_overflow(0);
    if (major)
        return_memory(!forced);
}
