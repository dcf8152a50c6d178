/*
 * Statistics: the accounting. See stats.h; the formats are in
 * stats_report.c, the destination in stats_output.c.
 *
 * State: `stats` is GHC's cumulative RTSStats, with `stats.gc` the last
 * collection; `last_line` is that collection as -S prints it; `gens` the
 * per-generation table. All of it changes in stats_gc_end only, from the
 * collector's one record per collection (GcStatsRecord) and this module's
 * clocks. Nothing here is guarded by a lock: collections are serialised by
 * the capability the collector holds, and readers (getRTSStats) run on a
 * capability too.
 *
 * Note [Time accounting]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * Six timestamps (CPU and elapsed at the start and end of init, the start
 * and end of exit) and the GC totals split a run into phases that add up
 * exactly to Total = end of exit - start of init:
 *   INIT = init end - init start
 *   GC   = every collection, the final one at hs_exit included
 *   EXIT = exit end - exit start - the collections inside the exit phase
 *   MUT  = exit start - init end - the collections outside the exit phase
 *          - the nonmoving collector's concurrent CPU (CPU only, as GHC)
 * CPU is the process's CPU clock, elapsed a monotonic clock. When the
 * process ends on a fatal path (heap or stack overflow, a fatal error) the
 * exit phase starts and ends at the report, and a collection cut short by
 * the error counts as GC time up to that moment and its nursery as
 * allocation since the last collection (it has no record, so the
 * per-generation table does not show it). getRTSStats measures from the end
 * of init instead, as GHC's does.
 */
#include "stats/stats.h"

#include <stdlib.h>
#include <string.h>

#include "flags/flags.h"
#include "hooks.h"
#include "os/os_time.h"
#include "sm/block.h"
#include "sm/block_alloc.h"
#include "sm/gc_par.h"
#include "sm/mblock.h"
#include "sm/nonmoving.h"
#include "sm/storage.h"
#include "threads.h"
#include "startup.h"
#include "stats/stats_internal.h"
#include "trace/trace.h"

static RTSStats stats;
static StatsGcLine last_line;
static StatsGen *gens;
static uint32_t n_gens;

static Time init_start_cpu, init_start_elapsed, init_end_cpu, init_end_elapsed;
static Time exit_start_cpu, exit_start_elapsed, exit_end_cpu, exit_end_elapsed;
static Time exit_gc_cpu, exit_gc_elapsed; /* collections inside the exit phase */
static Time gc_start_cpu, gc_start_elapsed;
static uint64_t gc_start_faults, last_gc_end_faults;
static uint64_t gc_start_allocated_words; /* what the collection in progress collects */
static bool in_gc, in_exit, exit_done, reported;

static Time now_cpu(void)
{
    return os_time_process_cpu_ns();
}
/*
 * A collection's CPU time. Under the concurrent mark it is the collecting
 * thread's own clock: every collection then runs on that one thread
 * (promotion into the nonmoving heap is not parallel), and the mark thread
 * beside it (Note [Tracing beside a collection]) is the nonmoving
 * collector's. The process clock less the mark thread's clock was biased
 * low: the process clock lags for a thread running on another CPU (by up
 * to a scheduler tick) where the thread's own clock does not, so each pause
 * lost up to a tick to the mutator (thr -N1 -xn largeheap: MUT 1.2 s of
 * CPU in 0.5 s elapsed, with one mutator thread).
 */
static Time now_gc_cpu(void)
{
    if (nm_concurrent())
        return os_time_thread_cpu_ns();
    return os_time_process_cpu_ns();
}
static Time now_elapsed(void)
{
    return os_time_monotonic_ns();
}

void stats_init_start(void)
{
    memset(&stats, 0, sizeof stats);
    memset(&last_line, 0, sizeof last_line);
    init_start_cpu = now_cpu();
    init_start_elapsed = now_elapsed();
    init_end_cpu = init_start_cpu;
    init_end_elapsed = init_start_elapsed;
    exit_start_cpu = exit_start_elapsed = exit_end_cpu = exit_end_elapsed = 0;
    exit_gc_cpu = exit_gc_elapsed = 0;
    in_gc = in_exit = exit_done = reported = false;
}

void stats_init(void)
{
    stats_output_open();
    if (rts_flags.stats.level == STATS_VERBOSE && stats_out) {
        stats_print_verbose_header(stats_out);
        fflush(stats_out);
    }
    n_gens = rts_flags.gc.generations;
    gens = hooks_calloc(n_gens, sizeof(StatsGen), "statistics");
    last_gc_end_faults = os_page_faults();
}

void stats_init_end(void)
{
    init_end_cpu = now_cpu();
    init_end_elapsed = now_elapsed();
    stats.init_cpu_ns = init_end_cpu - init_start_cpu;
    stats.init_elapsed_ns = init_end_elapsed - init_start_elapsed;
}

void stats_gc_start(void)
{
    gc_start_cpu = now_gc_cpu();
    gc_start_elapsed = now_elapsed();
    gc_start_faults = os_page_faults();
    gc_start_allocated_words = sm_allocated_since_gc();
    in_gc = true;
    trace_gc_start(gc_start_elapsed);
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/*
 * Completed cycles are in `stats`; the nonmoving thread's work since the
 * last FINAL is added on reading, to CPU and elapsed alike (nm_cycle_times).
 */
static void add_unfinished_nonmoving(RTSStats *s)
{
    if (!rts_flags.gc.nonmoving)
        return;
    int64_t cpu, elapsed;
    nm_unfinished_times(&cpu, &elapsed);
    s->nonmoving_gc_cpu_ns += cpu;
    s->nonmoving_gc_elapsed_ns += elapsed;
}

void stats_nonmoving_cycle(int64_t mark_cpu_ns, int64_t mark_elapsed_ns, int64_t sync_cpu_ns,
                           int64_t sync_elapsed_ns)
{
    stats.nonmoving_gc_cpu_ns += mark_cpu_ns;
    stats.nonmoving_gc_elapsed_ns += mark_elapsed_ns;
    stats.nonmoving_gc_max_elapsed_ns =
        max_u64(stats.nonmoving_gc_max_elapsed_ns, (uint64_t)mark_elapsed_ns);
    stats.nonmoving_gc_sync_cpu_ns += sync_cpu_ns;
    stats.nonmoving_gc_sync_elapsed_ns += sync_elapsed_ns;
    stats.nonmoving_gc_sync_max_elapsed_ns =
        max_u64(stats.nonmoving_gc_sync_max_elapsed_ns, (uint64_t)sync_elapsed_ns);
    stats.gc.nonmoving_gc_cpu_ns = mark_cpu_ns;
    stats.gc.nonmoving_gc_elapsed_ns = mark_elapsed_ns;
    stats.gc.nonmoving_gc_sync_cpu_ns = sync_cpu_ns;
    stats.gc.nonmoving_gc_sync_elapsed_ns = sync_elapsed_ns;
}

void stats_gc_end(Capability *cap, const GcStatsRecord *rec)
{
    Time end_cpu = now_gc_cpu(), end_elapsed = now_elapsed();
    uint64_t faults = os_page_faults();
    Time cpu = end_cpu - gc_start_cpu;
    Time elapsed = end_elapsed - gc_start_elapsed;
    in_gc = false;

    stats.gc = (GCDetails){
        .gen = rec->gen,
        .threads = rec->threads,
        .allocated_bytes = rec->allocated_bytes,
        .live_bytes = rec->live_bytes,
        .large_objects_bytes = rec->large_objects_bytes,
        .compact_bytes = rec->compact_bytes,
        .slop_bytes = rec->slop_bytes,
        .mem_in_use_bytes = rec->mblocks_committed * MBLOCK_SIZE,
        .copied_bytes = rec->copied_bytes,
        .block_fragmentation_bytes =
            (rec->mblocks_in_use * BLOCKS_PER_MBLOCK - rec->blocks_allocated) * BLOCK_SIZE,
        .par_max_copied_bytes = rec->par_max_copied_bytes,
        .par_balanced_copied_bytes = rec->par_balanced_copied_bytes,
        .sync_elapsed_ns = rec->sync_elapsed_ns,
        .cpu_ns = cpu,
        .elapsed_ns = elapsed,
    };
    const GCDetails *d = &stats.gc;

    stats.gcs++;
    stats.allocated_bytes += d->allocated_bytes;
    stats.copied_bytes += d->copied_bytes;
    stats.gc_cpu_ns += cpu;
    stats.gc_elapsed_ns += elapsed;
    stats.max_mem_in_use_bytes =
        max_u64(stats.max_mem_in_use_bytes, rec->mblocks_peak_committed * MBLOCK_SIZE);
    if (rec->major) {
        stats.major_gcs++;
        stats.max_live_bytes = max_u64(stats.max_live_bytes, d->live_bytes);
        stats.max_large_objects_bytes =
            max_u64(stats.max_large_objects_bytes, d->large_objects_bytes);
        stats.max_compact_bytes = max_u64(stats.max_compact_bytes, d->compact_bytes);
        stats.max_slop_bytes = max_u64(stats.max_slop_bytes, d->slop_bytes);
        stats.cumulative_live_bytes += d->live_bytes;
    }
    if (d->threads > 1) {
        stats.par_copied_bytes += d->copied_bytes;
        stats.cumulative_par_max_copied_bytes += d->par_max_copied_bytes;
        stats.cumulative_par_balanced_copied_bytes += d->par_balanced_copied_bytes;
    }
    stats.any_work += rec->any_work;
    stats.scav_find_work += rec->scav_find_work;
    stats.max_n_todo_overflow = max_u64(stats.max_n_todo_overflow, rec->max_n_todo_overflow);
    if (in_exit) {
        exit_gc_cpu += cpu;
        exit_gc_elapsed += elapsed;
    }
    if (rec->gen < n_gens) {
        StatsGen *g = &gens[rec->gen];
        g->collections++;
        if (d->threads > 1)
            g->par_collections++;
        g->cpu_ns += cpu;
        g->elapsed_ns += elapsed;
        if (elapsed > g->max_pause_ns)
            g->max_pause_ns = elapsed;
    }

    last_line = (StatsGcLine){
        .d = *d,
        .total_cpu_ns = end_cpu - init_start_cpu,
        .total_elapsed_ns = end_elapsed - init_start_elapsed,
        .faults_during = faults - gc_start_faults,
        .faults_between = gc_start_faults - last_gc_end_faults,
    };
    last_gc_end_faults = faults;
    if (rts_flags.stats.level == STATS_VERBOSE && stats_out) {
        stats_print_gc_line(stats_out, &last_line);
        fflush(stats_out);
    }
    if (rts_config.gcDoneHook)
        rts_config.gcDoneHook(d);
    trace_gc_end(cap, rec, d, stats.allocated_bytes, end_elapsed);
}

void stats_exit_start(void)
{
    exit_start_cpu = now_cpu();
    exit_start_elapsed = now_elapsed();
    in_exit = true;
}

void stats_exit_end(void)
{
    exit_end_cpu = now_cpu();
    exit_end_elapsed = now_elapsed();
    exit_done = true;
}

static double fraction(Time part, Time whole)
{
    return (double)part / (double)whole;
}

/* See Note [Time accounting]. */
void stats_summarise(StatsSummary *sum)
{
    memset(sum, 0, sizeof *sum);
    RTSStats *s = &sum->s;
    *s = stats;
    Time now_c = now_cpu(), now_e = now_elapsed();
    Time end_cpu = exit_done ? exit_end_cpu : now_c;
    Time end_elapsed = exit_done ? exit_end_elapsed : now_e;
    Time ex_start_cpu = in_exit ? exit_start_cpu : end_cpu;
    Time ex_start_elapsed = in_exit ? exit_start_elapsed : end_elapsed;
    Time ex_gc_cpu = exit_gc_cpu, ex_gc_elapsed = exit_gc_elapsed;
    /* All the mark thread's work, the sweeps after the last cycle's end included. */
    add_unfinished_nonmoving(s);
    if (in_gc && !exit_done) {
        Time cut_cpu = now_gc_cpu() - gc_start_cpu, cut_elapsed = now_e - gc_start_elapsed;
        s->gc_cpu_ns += cut_cpu;
        s->gc_elapsed_ns += cut_elapsed;
        if (in_exit) {
            ex_gc_cpu += cut_cpu;
            ex_gc_elapsed += cut_elapsed;
        }
    }
    sum->exit_cpu_ns = end_cpu - ex_start_cpu - ex_gc_cpu;
    sum->exit_elapsed_ns = end_elapsed - ex_start_elapsed - ex_gc_elapsed;
    s->mutator_cpu_ns =
        ex_start_cpu - init_end_cpu - (s->gc_cpu_ns - ex_gc_cpu) - s->nonmoving_gc_cpu_ns;
    s->mutator_elapsed_ns =
        ex_start_elapsed - init_end_elapsed - (s->gc_elapsed_ns - ex_gc_elapsed);
    if (s->mutator_cpu_ns < 0)
        s->mutator_cpu_ns = 0;
    /* At least 1 ns, so that the fractions below never divide by zero. */
    s->cpu_ns = end_cpu - init_start_cpu;
    s->elapsed_ns = end_elapsed - init_start_elapsed;
    if (s->cpu_ns <= 0)
        s->cpu_ns = 1;
    if (s->elapsed_ns <= 0)
        s->elapsed_ns = 1;

    /* Allocation since the last collection (none after the final one at hs_exit). */
    sum->exit_allocated_bytes =
        (in_gc ? gc_start_allocated_words : sm_allocated_since_gc()) * sizeof(StgWord);
    s->allocated_bytes += sum->exit_allocated_bytes;

    /*
     * The peaks only grow, so the storage manager's current ones cover a run
     * that ended between or inside collections too. (Unlocked reads: the
     * exit paths may already hold the storage-manager lock.)
     */
    uint64_t peak_mblocks = mblock_peak_committed();
    uint64_t peak_blocks = bd_hw_alloc_blocks();
    s->max_mem_in_use_bytes = max_u64(s->max_mem_in_use_bytes, peak_mblocks * MBLOCK_SIZE);

    sum->average_bytes_used = s->major_gcs ? s->cumulative_live_bytes / s->major_gcs : 0;
    uint64_t blocks_of_peak = peak_mblocks * BLOCKS_PER_MBLOCK;
    sum->fragmentation_bytes =
        blocks_of_peak > peak_blocks ? (blocks_of_peak - peak_blocks) * BLOCK_SIZE : 0;
    sum->alloc_rate =
        s->mutator_cpu_ns == 0
            ? 0
            : (uint64_t)((double)s->allocated_bytes / ((double)s->mutator_cpu_ns / 1e9));
    sum->gc_cpu_percent = fraction(s->gc_cpu_ns, s->cpu_ns);
    sum->gc_elapsed_percent = fraction(s->gc_elapsed_ns, s->elapsed_ns);
    sum->productivity_cpu_percent =
        fraction(s->cpu_ns - s->gc_cpu_ns - s->init_cpu_ns - sum->exit_cpu_ns, s->cpu_ns);
    sum->productivity_elapsed_percent =
        fraction(s->elapsed_ns - s->gc_elapsed_ns - s->init_elapsed_ns - sum->exit_elapsed_ns,
                 s->elapsed_ns);
    /* See Note [Work balance]. */
    sum->work_balance = s->par_copied_bytes ? (double)s->cumulative_par_balanced_copied_bytes /
                                                  (double)s->par_copied_bytes
                                            : 0.0;
    sum->n_gens = n_gens;
    sum->gens = gens;
    sum->nonmoving = rts_flags.gc.nonmoving;
    sum->nonmoving_occupancy = rts_flags.gc.nonmoving ? nm_mean_sweep_occupancy() : -1;
    sum->nonmoving_start_occupancy = rts_flags.gc.nonmoving ? nm_mean_start_occupancy() : -1;
    sum->nonmoving_census = sum->nonmoving_occupancy >= 0;
    sum->internal_counters = rts_flags.stats.internal_counters;
    sum->bound_tasks = threads_made();
    sum->worker_tasks = (uint32_t)gc_par_workers_started();
    sum->n_capabilities = enabled_capabilities;
}

void stats_report(void)
{
    if (reported)
        return;
    reported = true;
    if (!stats_out)
        return;
    StatsLevel level = rts_flags.stats.level;
    if (level < STATS_ONELINE)
        return;
    /* The program's own output first, as GHC's hs_exit flushes its handles. */
    fflush(stdout);
    StatsSummary sum;
    stats_summarise(&sum);
    if (level == STATS_VERBOSE)
        stats_print_verbose_tail(stats_out, &sum);
    if (level >= STATS_SUMMARY)
        stats_print_summary(stats_out, &sum);
    else if (rts_flags.stats.machine_readable)
        stats_print_machine_readable(stats_out, &sum);
    else
        stats_print_one_line(stats_out, &sum);
    fflush(stats_out);
}

void stats_exit(void)
{
    stats_output_close();
    free(gens);
    gens = NULL;
    n_gens = 0;
}

/*
 * Note [Work balance]
 * ~~~~~~~~~~~~~~~~~~~
 * GHC's measure of how evenly a parallel collection shares its copying.
 * For one collection with n > 1 GC threads copying c_i words out of C:
 * balanced = (sum_i min(n * c_i, C) - C) / (n - 1), between 0 (one thread
 * did everything) and C (all equal). The collector computes it (only it
 * sees the c_i) into par_balanced_copied_bytes; the report's balance is
 * the cumulative balanced bytes over the bytes copied by parallel
 * collections. With one GC thread both are 0 and no balance is printed.
 */

void getRTSStats(RTSStats *s)
{
    startup_require_running("getRTSStats");
    *s = stats;
    s->cpu_ns = now_cpu() - init_end_cpu;
    s->elapsed_ns = now_elapsed() - init_end_elapsed;
    add_unfinished_nonmoving(s);
    s->mutator_cpu_ns = s->cpu_ns - s->gc_cpu_ns - s->nonmoving_gc_cpu_ns;
    s->mutator_elapsed_ns = s->elapsed_ns - s->gc_elapsed_ns;
}

int getRTSStatsEnabled(void)
{
    startup_require_running("getRTSStatsEnabled");
    return rts_flags.stats.level != STATS_NONE || rts_flags.trace.gc;
}

uint64_t getAllocations(void)
{
    startup_require_running("getAllocations");
    return stats.allocated_bytes;
}
