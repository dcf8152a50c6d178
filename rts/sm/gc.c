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
 *   5. scavenge to a fixed point (sm/scav.c; on several GC threads when
 *      the plan says so, sm/gc_par.c), then weak pointers to theirs
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
#include "sm/gc_par.h"
#include "sm/mut_list.h"
#include "sm/nonmoving.h"
#include "sm/policy.h"
#include "sm/roots.h"
#include "sm/sanity.h"
#include "sm/scav.h"
#include "sm/statics.h"
#include "sm/trigger.h"
#include "sm/weak.h"
#include "stable.h"
#include "stats/stats.h"
#include "threads.h"
#include "trace/trace.h"
#include "os/os_time.h"

uint64_t gc_count;

static bdescr ***saved_mut_lists; /* [cap][gen] */
/* The exit's collection: a concurrent runtime starts no cycle in it. */
static bool exiting;

void gc_add_capabilities(uint32_t from, uint32_t to)
{
    saved_mut_lists = hooks_realloc(saved_mut_lists, to * sizeof(bdescr **), "gc saved mut lists");
    for (uint32_t c = from; c < to; c++)
        saved_mut_lists[c] = hooks_calloc(n_generations, sizeof(bdescr *), "gc saved mut lists");
    gc_par_add_capabilities(to);
}

void gc_init(void)
{
    exiting = false;
    if (n_generations > GC_MAX_GENERATIONS)
        msg_fatal(1, "-G%u: at most %d generations are supported", n_generations,
                  GC_MAX_GENERATIONS);
    gc_count = 0;
    __atomic_store_n(&gc_wanted_flag, false, __ATOMIC_RELAXED);
    gc_par_init();
    saved_mut_lists = hooks_calloc(n_capabilities, sizeof(bdescr **), "gc saved mut lists");
    for (uint32_t c = 0; c < n_capabilities; c++)
        saved_mut_lists[c] = hooks_calloc(n_generations, sizeof(bdescr *), "gc saved mut lists");
    gc_count = 0;
}

void gc_exit(void)
{
    gc_par_exit();
    if (saved_mut_lists) {
        for (uint32_t c = 0; c < n_capabilities; c++)
            free(saved_mut_lists[c]);
        free(saved_mut_lists);
        saved_mut_lists = NULL;
    }
}

StgPtr gc_todo_block_full(gc_thread *gct, gen_workspace *ws, StgWord size)
{
    if (ws->gen->policy->todo_full) {
        /* The policy may have room of its own (mark-region's holes). */
        StgPtr p = ws->gen->policy->todo_full(gct, ws, size);
        if (p)
            return p;
    }
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
            gc_push_todo(gct, ws, bd);
        }
    }
    generation *gen = ws->gen;
    if (gct->parallel)
        bd = gc_par_take_block(gct); /* the block allocator's lock once per batch */
    else
        bd = bd_alloc_block_on_node_lock(gct->cap->node); /* the collecting capability's node */
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

static uint32_t cur_leader_no;

/* A GC thread's state at the start of a collection. */
static void prepare_thread(gc_thread *gct)
{
    for (uint32_t g = 0; g < n_generations; g++) {
        gen_workspace *ws = &gct->ws[g];
        ws->todo_bd = NULL;
        ws->todo_free = ws->todo_lim = NULL;
        ws->runs = NULL; /* the policy installs them at its first promotion */
        ws->todo_q = ws->scavd_list = ws->todo_large = ws->large_done = NULL;
    }
    /* Thread 0 is the leader, on its own capability; the others take the next ones. */
    gct->cap = capabilities[(cur_leader_no + gct->index) % n_capabilities];
    gct->copied_words = 0;
    gct->copied_this_gc = 0;
    gct->busy_ns = 0;
    gct->eager_promotion = true;
    gct->nm_grey = nm_segments_marked();
    gct->nm_fwd = __atomic_load_n(&nm_forwarding, __ATOMIC_ACQUIRE);
    gct->failed_to_evac = false;
    gct->scan_bd = NULL;
    gct->n_todo = 0;
}

static void prepare(gc_thread *gct, uint32_t N, uint32_t n_threads)
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
        generations[g].policy->prepare(gct, &generations[g]);
    for (uint32_t i = 0; i < n_threads; i++)
        prepare_thread(gc_par_thread(i));
}

/* The copying policy's root visitor: evacuate each root. */
typedef struct {
    RootVisitor v;
    gc_thread *gct;
} EvacVisitor;

static void evac_root(RootVisitor *v, StgClosure **slot, RootKind kind)
{
    gc_thread *gct = ((EvacVisitor *)v)->gct;
    /* A CAF's value belongs to the oldest generation (Note [CAFs and SRTs]). */
    gct->evac_gen_no = kind == ROOT_CAF ? oldest_gen->no : 0;
    evacuate(gct, slot);
}

/*
 * What each GC thread does before it scavenges (gc_par_run): its share of
 * the remembered sets; the leader also takes every other root. The roots
 * other than remembered sets are few words (threads, stable pointers,
 * CAFs): the work is what they reach, which stealing shares.
 */
static uint32_t cur_N, cur_threads;
/* Remembered sets of the generations above this one are roots (N, or N - 1 in a concurrent
 * mark's final pause: Note [The concurrent mark] in nonmoving_mark.c). */
static uint32_t cur_remembered_N;

static void thread_roots(gc_thread *gct)
{
    if (gct->index != 0)
        statics_gc_thread_start(gct);
    scav_mut_lists(gct, saved_mut_lists, cur_remembered_N, cur_threads);
    if (gct->index == 0) {
        if (nm_pause == NM_PAUSE_START)
            nm_start_threads(gct);
        EvacVisitor ev = {{evac_root}, gct};
        roots_visit(&ev.v, ROOTS_REACHABILITY);
    }
}

/* Per-thread copied words of a parallel collection: the balance (Note [Work balance] in stats.c).
 */
static void work_balance(uint32_t n, GcStatsRecord *rec)
{
    uint64_t total = 0, max = 0, sum_min = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t c = gc_par_thread(i)->copied_this_gc;
        total += c;
        if (c > max)
            max = c;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint64_t c = gc_par_thread(i)->copied_this_gc * n;
        sum_min += c < total ? c : total;
    }
    rec->par_max_copied_bytes = max * sizeof(StgWord);
    rec->par_balanced_copied_bytes = n > 1 ? (sum_min - total) / (n - 1) * sizeof(StgWord) : 0;
}

void gc_collect(Capability *cap, bool force_major, GcReason reason)
{
    int64_t sync_ns;
    /* Someone else may be collecting: then we were stopped, and it is done (unless forced). */
    while (!cap_stop_the_world(cap, &sync_ns))
        if (!force_major)
            return;
    gc_collect_stopped(cap, force_major, reason, sync_ns);
    cap_restart_the_world(cap);
    weak_run_pending();
}

bool gc_wanted_flag;

void gc_want(void)
{
    __atomic_store_n(&gc_wanted_flag, true, __ATOMIC_RELEASE);
}

void gc_run_wanted(Capability *cap)
{
    if (!__atomic_exchange_n(&gc_wanted_flag, false, __ATOMIC_ACQ_REL))
        return; /* someone else took it */
    if (nm_final_due())
        gc_collect(cap, false, GC_REASON_WANTED);
}

/*
 * Which pause of a concurrent cycle this collection is (`want`: a forced
 * sequence's, or NM_PAUSE_NONE to decide from N), and the N it collects.
 */
static NmPause plan_pause(NmPause want, uint32_t *N)
{
    uint32_t oldest = n_generations - 1;
    if (!nm_concurrent())
        return NM_PAUSE_NONE;
    if (want == NM_PAUSE_NONE) {
        if (nm_cycle_running()) {
            want = nm_nothing_left() ? NM_PAUSE_FINAL : NM_PAUSE_DURING;
        } else if (nm_sweeping() || exiting) {
            /* The next cycle waits for the last one's sweep (Note [The concurrent sweep]). */
            if (*N == oldest)
                *N = oldest - 1;
        } else if (*N == oldest || nm_take_cycle_request()) {
            want = NM_PAUSE_START;
        }
    }
    switch (want) {
    case NM_PAUSE_START:
        /*
         * Every young generation, whatever the trigger chose (a requested
         * cycle comes with N = 0): the snapshot's pointers from young
         * objects into the nonmoving heap are greyed only by scanning the
         * young objects, and a gen-1 object left unscanned under -G3 and
         * promoted black later kept its referents from ever being marked.
         */
        *N = oldest - 1;
        break;
    case NM_PAUSE_DURING:
        if (*N > oldest - 1)
            *N = oldest - 1;
        break;
    case NM_PAUSE_FINAL:
    case NM_PAUSE_FULL:
        *N = oldest;
        break;
    default:
        break;
    }
    return want;
}

static void collect(Capability *cap, bool force_major, GcReason reason, int64_t sync_ns,
                    NmPause want);

void gc_collect_stopped(Capability *cap, bool force_major, GcReason reason, int64_t sync_ns)
{
    if (!nm_concurrent()) {
        collect(cap, force_major, reason, sync_ns, NM_PAUSE_NONE);
        return;
    }
    /* Note [The concurrent mark] in nonmoving_mark.c. */
    nm_pause_mark_thread();
    if (reason == GC_REASON_EXIT) {
        /*
         * The program ends: finish the cycle running (shut-down waited for
         * its mark: nm_wait_mark_dry), start no other. A whole cycle in the
         * pause would find garbage only for a heap about to be unmapped (C
         * finalizers all run at exit anyway), and was the run's longest
         * pause. Under copying the exit's collection is major, as GHC's.
         */
        exiting = true;
        if (nm_cycle_running()) {
            nm_stop_mark_thread();
            nm_drain_in_pause();
            collect(cap, true, reason, sync_ns, NM_PAUSE_FINAL);
        } else {
            collect(cap, false, reason, sync_ns, NM_PAUSE_NONE);
        }
    } else if (force_major) {
        /* A full collection now: finish the cycle running, then a whole one in one pause. */
        nm_stop_mark_thread();
        if (nm_cycle_running()) {
            nm_drain_in_pause();
            collect(cap, true, reason, sync_ns, NM_PAUSE_FINAL);
            sync_ns = 0;
        }
        collect(cap, true, reason, sync_ns, NM_PAUSE_FULL);
    } else {
        collect(cap, false, reason, sync_ns, NM_PAUSE_NONE);
    }
    nm_resume_mark_thread();
    if (reason != GC_REASON_EXIT)
        nm_ask_prefault();
}

static void collect(Capability *cap, bool force_major, GcReason reason, int64_t sync_ns,
                    NmPause want)
{
    int64_t pause_t0 = os_time_monotonic_ns();
    int64_t pause_cpu0 = os_time_thread_cpu_ns(); /* the final pause's CPU (as stats.c) */
    stats_gc_start();
    if (rts_flags.gc.ring_bell) {
        fputc('\a', stderr);
        fflush(stderr);
    }

    for (uint32_t c = 0; c < n_capabilities; c++)
        sm_sync_cap(capabilities[c]);
    uint64_t allocated_words = sm_allocated_since_gc();

    uint32_t N = trigger_choose_gen(force_major || trace_heap_census_due());
    NmPause pause = plan_pause(want, &N);
    bool major = N == n_generations - 1;

#ifdef DEBUG
    if (rts_flags.debug.sanity)
        sanity_check_heap("before GC", false);
#endif

    GcParPlan plan = gc_par_plan(N);
    gc_thread *gct = gc_par_thread(0);
    cur_leader_no = cap ? cap->no : 0;
    if (pause != NM_PAUSE_NONE)
        nm_pause_begin(pause);
    prepare(gct, N, plan.n_threads);
    if (!major && (pause == NM_PAUSE_NONE || pause == NM_PAUSE_DURING) &&
        oldest_gen->policy == &gen_policy_nonmoving) {
        /* Before the roots: they are redirected (Note [Evacuating sparse segments]). */
        ASSERT(plan.n_threads == 1);
        nm_evac_copy(gct);
        gct->nm_fwd = nm_forwarding;
    }
    /* A concurrent cycle's pauses mark statics alike (Note [CAFs under the concurrent mark]). */
    statics_gc_start(gct, major);
    weak_gc_start();

    /*
     * Roots (Note [The root visitor] in roots.h) and scavenging, on the
     * plan's threads; then the weak phase on this one.
     */
    cur_N = N;
    cur_remembered_N = pause == NM_PAUSE_FINAL || pause == NM_PAUSE_FULL ? N - 1 : N;
    cur_threads = plan.n_threads;
    gc_par_run(&plan, thread_roots);
    if (plan.n_threads > 1)
        gc_par_fold(plan.n_threads);

    while (weak_traverse(gct))
        scav_loop(gct);
    weak_gc_dead();
    stable_name_gc();
    statics_gc_end(gct);
    if (pause == NM_PAUSE_FINAL)
        nm_cafs_cycle_end();

    GcStatsRecord par = {0};
    if (plan.n_threads > 1)
        work_balance(plan.n_threads, &par);
    uint64_t cards = 0;
    for (uint32_t i = 0; i < plan.n_threads; i++)
        cards += gc_par_thread(i)->cards_scanned;
    for (uint32_t i = 0; i < gc_par_n_slots(); i++)
        gc_par_thread(i)->cards_scanned = 0;
    scav_cards_scanned += cards;

    /* Finish (Note [Generation policies] in policy.h). */
    for (uint32_t g = 0; g < n_generations; g++)
        generations[g].policy->finish(gct, &generations[g], g <= N);
    if (pause != NM_PAUSE_NONE)
        nm_pause_end();
    for (uint32_t g = 0; g <= N; g++) {
        generation *gen = &generations[g];
        gen->collections++;
        for (uint32_t c = 0; c < n_capabilities; c++) {
            bd_free_chain_lock(saved_mut_lists[c][g]);
            saved_mut_lists[c][g] = NULL;
        }
    }
    sm_nurseries_fit_capabilities();
    sm_reset_nurseries();
    __atomic_store_n(&sm_large_alloc_blocks, 0, __ATOMIC_RELAXED);
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

    gc_par_record(N, gct->copied_words);
    trigger_after_gc(
        N, reason == GC_REASON_FORCED || reason == GC_REASON_EXIT || reason == GC_REASON_IDLE,
        gct->copied_words);

#ifdef DEBUG
    if (rts_flags.debug.sanity)
        sanity_check_heap("after GC", true);
    if (rts_flags.debug.gc) {
        msg_debug("gc: collection %llu of generations 0..%u: copied %llu words, live %llu "
                  "words, %llu blocks in use, %u GC thread%s%s\n",
                  (unsigned long long)gc_count, N, (unsigned long long)gct->copied_words,
                  (unsigned long long)live_words, (unsigned long long)bd_n_alloc_blocks(),
                  plan.n_threads, plan.n_threads == 1 ? "" : "s",
                  plan.balance ? " (balanced)" : "");
        for (uint32_t i = 0; plan.n_threads > 1 && i < plan.n_threads; i++) {
            gc_thread *t = gc_par_thread(i);
            msg_debug("gc:   thread %u: copied %llu words, busy %.3f ms, %llu steals, "
                      "%llu copy races\n",
                      i, (unsigned long long)t->copied_this_gc, t->busy_ns / 1e6,
                      (unsigned long long)t->steals, (unsigned long long)t->copy_races);
        }
    }
#endif

    /*
     * The heap's counts under sm_lock: the nonmoving thread may be claiming
     * megablocks to populate or freeing swept segments meanwhile (Note
     * [Prefaulted megablocks] in mblock.c).
     */
    sm_lock();
    uint64_t mb_committed = mblock_n_committed(), mb_peak = mblock_peak_committed();
    uint64_t mb_in_use = mblock_n_in_use(), blocks_allocated = bd_n_alloc_blocks();
    sm_unlock();

    /*
     * The one record of this collection (stats.h). With one GC thread the
     * per-thread balance fields stay 0; no compact regions.
     */
    GcStatsRecord rec = {
        .gen = N,
        .major = major,
        .threads = plan.n_threads,
        .par_max_copied_bytes = par.par_max_copied_bytes,
        .par_balanced_copied_bytes = par.par_balanced_copied_bytes,
        .allocated_bytes = allocated_words * sizeof(StgWord),
        .copied_bytes = gct->copied_words * sizeof(StgWord),
        .live_bytes = live_words * sizeof(StgWord),
        .large_objects_bytes = large_words * sizeof(StgWord),
        .slop_bytes = slop_words * sizeof(StgWord),
        .mblocks_committed = mb_committed,
        .mblocks_peak_committed = mb_peak,
        .mblocks_in_use = mb_in_use,
        .blocks_allocated = blocks_allocated,
        .sync_elapsed_ns = sync_ns,
    };
    for (uint32_t i = 0; i < plan.n_threads; i++) {
        gc_thread *t = gc_par_thread(i);
        rec.any_work += t->any_work;
        rec.scav_find_work += t->scav_find_work;
        t->any_work = t->scav_find_work = 0; /* per collection, as the record's */
    }
    trace_heap_census_after_gc(cap, major);
    stats_gc_end(cap, &rec);
    if (pause == NM_PAUSE_FINAL) {
        int64_t mark_cpu, mark_elapsed;
        nm_cycle_times(&mark_cpu, &mark_elapsed);
        stats_nonmoving_cycle(mark_cpu, mark_elapsed, os_time_thread_cpu_ns() - pause_cpu0,
                              os_time_monotonic_ns() - pause_t0);
    }
}
