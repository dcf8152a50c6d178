/*
 * The collector's driver. One collection:
 *
 *   1. sync: every capability's allocation pointer into its block;
 *   2. pick N (sm/trigger.c); sanity check (-DS);
 *   3. prepare: generations 0..N become from-space, remembered sets are
 *      taken off the capabilities, pinned blocks join generation 0;
 *   4. roots: remembered sets of generations above N, each capability's
 *      current thread and scratch roots, the thread table, stable pointers,
 *      CAFs (minor GCs; a major GC traces static closures instead);
 *   5. scavenge to a fixed point (sm/scav.c), then weak pointers to theirs
 *      (sm/weak.c), tombstoning the dead; update stable names; revert the
 *      CAFs a major GC did not reach (sm/statics.c);
 *   6. finish: to-space becomes each generation's blocks, from-space and
 *      dead large objects are freed, nurseries are reset;
 *   7. resize (sm/trigger.c), sanity check, statistics, then C finalizers
 *      of the weak pointers that died.
 */
#include "sm/gc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flags/flags.h"
#include "hooks.h"
#include "messages.h"
#include "sm/evac.h"
#include "sm/mut_list.h"
#include "sm/sanity.h"
#include "sm/scav.h"
#include "sm/statics.h"
#include "sm/trigger.h"
#include "sm/weak.h"
#include "stable.h"
#include "stats/stats.h"
#include "threads.h"
#include "trace/trace.h"

gc_thread gc_thread_0;
uint64_t gc_count;

static bdescr ***saved_mut_lists; /* [cap][gen] */

void gc_init(void)
{
    if (n_generations > GC_MAX_GENERATIONS)
        msg_fatal(1, "-G%u: at most %d generations are supported", n_generations,
                  GC_MAX_GENERATIONS);
    memset(gct, 0, sizeof *gct);
    for (uint32_t g = 0; g < n_generations; g++)
        gct->ws[g].gen = &generations[g];
    saved_mut_lists = hooks_calloc(n_capabilities, sizeof(bdescr **), "gc saved mut lists");
    for (uint32_t c = 0; c < n_capabilities; c++)
        saved_mut_lists[c] = hooks_calloc(n_generations, sizeof(bdescr *), "gc saved mut lists");
    gc_count = 0;
}

void gc_exit(void)
{
    if (saved_mut_lists) {
        for (uint32_t c = 0; c < n_capabilities; c++)
            free(saved_mut_lists[c]);
        free(saved_mut_lists);
        saved_mut_lists = NULL;
    }
}

StgPtr gc_todo_block_full(gen_workspace *ws, StgWord size)
{
    bdescr *bd = ws->todo_bd;
    if (size > BLOCK_SIZE_W)
        msg_barf("gc: a %lu-word object is not a large object", (unsigned long)size);
    if (bd) {
        bd->free = ws->todo_free;
        if (bd == gct->scan_bd) {
            /* The scanner is inside this block; it will retire it. */
        } else if (bd->u.scan >= bd->free) {
            bd->link = ws->scavd_list;
            ws->scavd_list = bd;
        } else {
            bd->link = ws->todo_q;
            ws->todo_q = bd;
        }
    }
    generation *gen = ws->gen;
    bd = bd_alloc_block_lock();
    bd->gen = gen;
    bd->gen_no = (uint16_t)gen->no;
    bd->dest_no = (uint16_t)gen->to->no;
    bd->flags = BF_EVACUATED;
    bd->u.scan = bd->start;
    ws->todo_bd = bd;
    ws->todo_free = bd->start;
    ws->todo_lim = bd->start + BLOCK_SIZE_W;
    return ws->todo_free;
}

static void prepare_collected_gen(generation *gen)
{
    gen->old_blocks = gen->blocks;
    gen->n_old_blocks = gen->n_blocks;
    for (bdescr *bd = gen->old_blocks; bd; bd = bd->link)
        bd->flags &= (uint16_t)~BF_EVACUATED;
    gen->blocks = NULL;
    gen->n_blocks = 0;
    gen->n_words = 0;
    gen->old_large_objects = gen->large_objects;
    for (bdescr *bd = gen->old_large_objects; bd; bd = bd->link)
        bd->flags &= (uint16_t)~BF_EVACUATED;
    gen->large_objects = NULL;
    gen->n_large_blocks = 0;
    gen->n_large_words = 0;
}

static void prepare(uint32_t N)
{
    for (uint32_t c = 0; c < n_capabilities; c++) {
        Capability *cap = capabilities[c];
        /* Pinned blocks become generation-0 large objects. */
        if (cap->pinned_block) {
            cap->pinned_block->link = cap->pinned_blocks;
            cap->pinned_blocks = cap->pinned_block;
            cap->pinned_block = NULL;
        }
        for (bdescr *bd = cap->pinned_blocks, *next; bd; bd = next) {
            next = bd->link;
            sm_link_large(g0, bd);
        }
        cap->pinned_blocks = NULL;
        /* Remembered sets: scavenged as roots (g > N) or dropped (g <= N). */
        for (uint32_t g = 1; g < n_generations; g++) {
            saved_mut_lists[c][g] = cap->mut_lists[g];
            cap->mut_lists[g] = mut_list_new_block();
        }
    }
    for (uint32_t g = 0; g <= N; g++)
        prepare_collected_gen(&generations[g]);
    for (uint32_t g = 0; g < n_generations; g++) {
        gen_workspace *ws = &gct->ws[g];
        ws->todo_bd = NULL;
        ws->todo_free = ws->todo_lim = NULL;
        ws->todo_q = ws->scavd_list = ws->todo_large = ws->large_done = NULL;
    }
    gct->cap = capabilities[0];
    gct->copied_words = 0;
    gct->eager_promotion = true;
    gct->failed_to_evac = false;
    gct->scan_bd = NULL;
}

/* Move a workspace's to-space blocks and large objects into its generation. */
static void finish_workspace(gen_workspace *ws)
{
    generation *gen = ws->gen;
    bdescr *bd = ws->todo_bd;
    if (bd) {
        bd->free = ws->todo_free;
        if (bd->free == bd->start) {
            bd_free_group_lock(bd);
        } else {
            bd->link = ws->scavd_list;
            ws->scavd_list = bd;
        }
        ws->todo_bd = NULL;
    }
    /* These are the blocks this collection copied into: they count the copying. */
    for (bdescr *next; (bd = ws->scavd_list) != NULL; ws->scavd_list = next) {
        next = bd->link;
        bd->link = gen->blocks;
        gen->blocks = bd;
        gen->n_blocks += bd->blocks;
        gen->n_words += bd_words(bd);
        gct->copied_words += bd_words(bd);
    }
    for (bdescr *next; (bd = ws->large_done) != NULL; ws->large_done = next) {
        next = bd->link;
        sm_link_large(gen, bd);
    }
}

static void free_dead_large_objects(generation *gen)
{
    bdescr *bd = gen->old_large_objects;
    gen->old_large_objects = NULL;
    sm_lock();
    while (bd) {
        bdescr *next = bd->link;
        bd_free_group(bd);
        bd = next;
    }
    sm_unlock();
}

void gc_collect(Capability *cap, bool force_major, GcReason reason)
{
    stats_gc_start();
    if (rts_flags.gc.ring_bell) {
        fputc('\a', stderr);
        fflush(stderr);
    }

    for (uint32_t c = 0; c < n_capabilities; c++)
        sm_sync_cap(capabilities[c]);
    uint64_t allocated_words = sm_allocated_since_gc();

    uint32_t N = trigger_choose_gen(force_major || trace_heap_census_due());
    bool major = N == n_generations - 1;

#ifdef DEBUG
    if (rts_flags.debug.sanity)
        sanity_check_heap("before GC", false);
#endif

    prepare(N);
    statics_gc_start(major);
    weak_gc_start();

    /* Roots. */
    scav_mut_lists(saved_mut_lists, N);
    gct->evac_gen_no = 0;
    for (uint32_t c = 0; c < n_capabilities; c++) {
        Capability *cap_c = capabilities[c];
        if (cap_c->r.tso)
            evacuate((StgClosure **)&cap_c->r.tso);
        for (uint32_t i = 0; i < sizeof cap_c->scratch / sizeof cap_c->scratch[0]; i++)
            evacuate(&cap_c->scratch[i]);
    }
    threads_evacuate_roots();
    stable_ptr_evacuate_roots();
    statics_evacuate_cafs();

    scav_loop();
    while (weak_traverse())
        scav_loop();
    weak_gc_dead();
    stable_name_gc();
    statics_gc_end();

    /* Finish. */
    for (uint32_t g = 0; g < n_generations; g++)
        finish_workspace(&gct->ws[g]);
    for (uint32_t g = 0; g <= N; g++) {
        generation *gen = &generations[g];
        bd_free_chain_lock(gen->old_blocks);
        gen->old_blocks = NULL;
        gen->n_old_blocks = 0;
        free_dead_large_objects(gen);
        gen->collections++;
        for (uint32_t c = 0; c < n_capabilities; c++) {
            bd_free_chain_lock(saved_mut_lists[c][g]);
            saved_mut_lists[c][g] = NULL;
        }
    }
    sm_reset_nurseries();
    sm_large_alloc_blocks = 0;
    gc_count++;

    /* Live data and slop, over every generation. */
    uint64_t live_words = 0, large_words = 0, slop_words = 0;
    for (uint32_t g = 0; g < n_generations; g++) {
        generation *gen = &generations[g];
        gen->live_words = gen->n_words + gen->n_large_words;
        live_words += gen->live_words;
        large_words += gen->n_large_words;
        slop_words += (gen->n_blocks + gen->n_large_blocks) * BLOCK_SIZE_W - gen->live_words;
    }

    trigger_after_gc(N, reason == GC_REASON_FORCED || reason == GC_REASON_EXIT, gct->copied_words);

#ifdef DEBUG
    if (rts_flags.debug.sanity)
        sanity_check_heap("after GC", true);
    if (rts_flags.debug.gc)
        msg_debug("gc: collection %llu of generations 0..%u: copied %llu words, live %llu "
                  "words, %llu blocks in use\n",
                  (unsigned long long)gc_count, N, (unsigned long long)gct->copied_words,
                  (unsigned long long)live_words, (unsigned long long)bd_n_alloc_blocks());
#endif

    /*
     * The one record of this collection (stats.h). One GC thread: no sync
     * and no per-thread balance (those fields stay 0); no compact regions.
     */
    GcStatsRecord rec = {
        .gen = N,
        .major = major,
        .threads = 1,
        .allocated_bytes = allocated_words * sizeof(StgWord),
        .copied_bytes = gct->copied_words * sizeof(StgWord),
        .live_bytes = live_words * sizeof(StgWord),
        .large_objects_bytes = large_words * sizeof(StgWord),
        .slop_bytes = slop_words * sizeof(StgWord),
        .mblocks_committed = mblock_n_committed(),
        .mblocks_peak_committed = mblock_peak_committed(),
        .mblocks_in_use = mblock_n_in_use(),
        .blocks_allocated = bd_n_alloc_blocks(),
        .any_work = gct->any_work,
        .scav_find_work = gct->scav_find_work,
    };
    gct->any_work = gct->scav_find_work = 0; /* per collection, as the record's */
    trace_heap_census_after_gc(cap, major);
    stats_gc_end(cap, &rec);
    weak_run_pending();
}
