/*
 * Statistics. See stats.h; the output formats are GHC's
 * (../shared/reference/ghc-rts-interfaces.md, section 4).
 */
#include "stats/stats.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flags/flags.h"
#include "hooks.h"
#include "messages.h"
#include "os/os_time.h"
#include "sm/block_alloc.h"
#include "sm/mblock.h"
#include "sm/storage.h"

typedef struct {
    uint32_t collections;
    uint32_t par_collections;
    int64_t cpu_ns;
    int64_t elapsed_ns;
    int64_t max_pause_ns;
} GenStats;

static RTSStats stats;
static GenStats *gen_stats;
static uint32_t n_gen_stats;

static int64_t init_start_cpu, init_start_elapsed, init_end_cpu, init_end_elapsed;
static int64_t exit_start_cpu, exit_start_elapsed, exit_end_cpu, exit_end_elapsed;
static int64_t exit_gc_cpu, exit_gc_elapsed; /* GC time inside the exit phase */
static int64_t gc_start_cpu, gc_start_elapsed;
static uint64_t gc_start_faults, last_gc_end_faults;
static bool in_exit, reported;
static FILE *out; /* NULL: no output */

static int64_t now_cpu(void)
{
    return os_time_process_cpu_ns();
}
static int64_t now_elapsed(void)
{
    return os_time_monotonic_ns();
}

void stats_init_start(void)
{
    memset(&stats, 0, sizeof stats);
    init_start_cpu = now_cpu();
    init_start_elapsed = now_elapsed();
    init_end_cpu = init_end_elapsed = exit_start_cpu = exit_start_elapsed = 0;
    exit_end_cpu = exit_end_elapsed = exit_gc_cpu = exit_gc_elapsed = 0;
    in_exit = reported = false;
    out = NULL;
}

void stats_init(void)
{
    const StatsFlags *f = &rts_flags.stats;
    if (f->level >= STATS_ONELINE) {
        if (f->file == NULL || strcmp(f->file, "stderr") == 0) {
            out = stderr;
        } else {
            out = fopen(f->file, "w+");
            if (!out)
                msg_fatal(1, "Can't open stats file %s", f->file);
        }
    }
    if (f->level == STATS_VERBOSE && out) {
        fprintf(out, "    Alloc    Copied     Live     GC     GC      TOT      TOT  Page Flts\n");
        fprintf(out, "    bytes     bytes     bytes   user   elap     user     elap\n");
        fflush(out);
    }
    n_gen_stats = rts_flags.gc.generations;
    gen_stats = hooks_calloc(n_gen_stats, sizeof(GenStats), "statistics");
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
    gc_start_cpu = now_cpu();
    gc_start_elapsed = now_elapsed();
    gc_start_faults = os_page_faults();
}

void stats_gc_end(Capability *cap, const GcStatsRecord *rec)
{
    (void)cap;
    int64_t cpu = now_cpu() - gc_start_cpu;
    int64_t elapsed = now_elapsed() - gc_start_elapsed;
    uint64_t faults = os_page_faults();

    GCDetails *d = &stats.gc;
    memset(d, 0, sizeof *d);
    d->gen = rec->gen;
    d->threads = 1;
    d->allocated_bytes = rec->allocated_bytes;
    d->live_bytes = rec->live_bytes;
    d->large_objects_bytes = rec->large_objects_bytes;
    d->slop_bytes = rec->slop_bytes;
    d->mem_in_use_bytes = mblock_n_committed() * MBLOCK_SIZE;
    d->copied_bytes = rec->copied_bytes;
    d->block_fragmentation_bytes =
        (mblock_n_in_use() * BLOCKS_PER_MBLOCK - bd_n_alloc_blocks()) * BLOCK_SIZE;
    d->cpu_ns = cpu;
    d->elapsed_ns = elapsed;

    stats.gcs++;
    stats.allocated_bytes += rec->allocated_bytes;
    stats.copied_bytes += rec->copied_bytes;
    stats.gc_cpu_ns += cpu;
    stats.gc_elapsed_ns += elapsed;
    uint64_t mem = mblock_peak_committed() * MBLOCK_SIZE;
    if (mem > stats.max_mem_in_use_bytes)
        stats.max_mem_in_use_bytes = mem;
    if (rec->major) {
        stats.major_gcs++;
        if (rec->live_bytes > stats.max_live_bytes)
            stats.max_live_bytes = rec->live_bytes;
        if (rec->large_objects_bytes > stats.max_large_objects_bytes)
            stats.max_large_objects_bytes = rec->large_objects_bytes;
        if (rec->slop_bytes > stats.max_slop_bytes)
            stats.max_slop_bytes = rec->slop_bytes;
        stats.cumulative_live_bytes += rec->live_bytes;
    }
    if (in_exit) {
        exit_gc_cpu += cpu;
        exit_gc_elapsed += elapsed;
    }
    if (rec->gen < n_gen_stats) {
        GenStats *g = &gen_stats[rec->gen];
        g->collections++;
        g->cpu_ns += cpu;
        g->elapsed_ns += elapsed;
        if (elapsed > g->max_pause_ns)
            g->max_pause_ns = elapsed;
    }

    if (rts_flags.stats.level == STATS_VERBOSE && out) {
        fprintf(out, "%9" PRIu64 " %9" PRIu64 " %9" PRIu64, rec->allocated_bytes, rec->copied_bytes,
                rec->live_bytes);
        fprintf(out, " %6.3f %6.3f %8.3f %8.3f %4" PRIu64 " %4" PRIu64 "  (Gen: %2u)\n",
                (double)cpu / 1e9, (double)elapsed / 1e9,
                (double)(now_cpu() - init_start_cpu) / 1e9,
                (double)(now_elapsed() - init_start_elapsed) / 1e9, faults - gc_start_faults,
                gc_start_faults - last_gc_end_faults, rec->gen);
        fflush(out);
    }
    last_gc_end_faults = faults;
    if (rts_config.gcDoneHook)
        rts_config.gcDoneHook(d);
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
}

uint64_t stats_allocated_bytes(void)
{
    return stats.allocated_bytes + sm_allocated_since_gc() * sizeof(StgWord);
}

/* "490,610,280": an unsigned number with a comma every three digits. */
static const char *with_commas(uint64_t n, char buf[32])
{
    char digits[24];
    int len = snprintf(digits, sizeof digits, "%" PRIu64, n);
    int o = 0;
    for (int i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

static double secs(int64_t ns)
{
    return (double)ns / 1e9;
}

typedef struct {
    int64_t init_cpu, init_elapsed, mut_cpu, mut_elapsed, gc_cpu, gc_elapsed;
    int64_t exit_cpu, exit_elapsed, total_cpu, total_elapsed;
} Times;

static Times compute_times(void)
{
    Times t;
    int64_t end_cpu = exit_end_cpu ? exit_end_cpu : now_cpu();
    int64_t end_elapsed = exit_end_elapsed ? exit_end_elapsed : now_elapsed();
    int64_t ex_start_cpu = exit_start_cpu ? exit_start_cpu : end_cpu;
    int64_t ex_start_elapsed = exit_start_elapsed ? exit_start_elapsed : end_elapsed;
    t.init_cpu = stats.init_cpu_ns;
    t.init_elapsed = stats.init_elapsed_ns;
    t.gc_cpu = stats.gc_cpu_ns;
    t.gc_elapsed = stats.gc_elapsed_ns;
    t.exit_cpu = end_cpu - ex_start_cpu - exit_gc_cpu;
    t.exit_elapsed = end_elapsed - ex_start_elapsed - exit_gc_elapsed;
    t.mut_cpu = ex_start_cpu - init_end_cpu - (stats.gc_cpu_ns - exit_gc_cpu);
    t.mut_elapsed = ex_start_elapsed - init_end_elapsed - (stats.gc_elapsed_ns - exit_gc_elapsed);
    t.total_cpu = end_cpu - init_start_cpu;
    t.total_elapsed = end_elapsed - init_start_elapsed;
    if (t.total_cpu <= 0)
        t.total_cpu = 1;
    if (t.total_elapsed <= 0)
        t.total_elapsed = 1;
    if (t.mut_cpu < 0)
        t.mut_cpu = 0;
    if (t.mut_elapsed < 0)
        t.mut_elapsed = 0;
    if (t.exit_cpu < 0)
        t.exit_cpu = 0;
    if (t.exit_elapsed < 0)
        t.exit_elapsed = 0;
    return t;
}

static void report_summary(FILE *f)
{
    char b[32];
    Times t = compute_times();
    uint64_t allocated = stats_allocated_bytes();
    fprintf(f, "%16s bytes allocated in the heap\n", with_commas(allocated, b));
    fprintf(f, "%16s bytes copied during GC\n", with_commas(stats.copied_bytes, b));
    if (stats.major_gcs > 0)
        fprintf(f, "%16s bytes maximum residency (%u sample(s))\n",
                with_commas(stats.max_live_bytes, b), stats.major_gcs);
    fprintf(f, "%16s bytes maximum slop\n", with_commas(stats.max_slop_bytes, b));
    uint64_t peak_mb = mblock_peak_committed();
    uint64_t frag_blocks = peak_mb * BLOCKS_PER_MBLOCK > bd_hw_alloc_blocks()
                               ? peak_mb * BLOCKS_PER_MBLOCK - bd_hw_alloc_blocks()
                               : 0;
    fprintf(f,
            "%16" PRIu64 " MiB total memory in use (%" PRIu64 " MiB lost due to fragmentation)\n\n",
            peak_mb * MBLOCK_SIZE / (1024 * 1024), frag_blocks * BLOCK_SIZE / (1024 * 1024));
    fprintf(f, "%37sTot time (elapsed)  Avg pause  Max pause\n", "");
    for (uint32_t g = 0; g < n_gen_stats; g++) {
        GenStats *gs = &gen_stats[g];
        double avg = gs->collections ? secs(gs->elapsed_ns) / gs->collections : 0.0;
        fprintf(f, "  Gen %2u     %5u colls, %5u par   %6.3fs  %6.3fs     %3.4fs    %3.4fs\n", g,
                gs->collections, gs->par_collections, secs(gs->cpu_ns), secs(gs->elapsed_ns), avg,
                secs(gs->max_pause_ns));
    }
    fprintf(f, "\n");
    fprintf(f, "  INIT    time  %7.3fs  (%7.3fs elapsed)\n", secs(t.init_cpu),
            secs(t.init_elapsed));
    fprintf(f, "  MUT     time  %7.3fs  (%7.3fs elapsed)\n", secs(t.mut_cpu), secs(t.mut_elapsed));
    fprintf(f, "  GC      time  %7.3fs  (%7.3fs elapsed)\n", secs(t.gc_cpu), secs(t.gc_elapsed));
    fprintf(f, "  EXIT    time  %7.3fs  (%7.3fs elapsed)\n", secs(t.exit_cpu),
            secs(t.exit_elapsed));
    fprintf(f, "  Total   time  %7.3fs  (%7.3fs elapsed)\n\n", secs(t.total_cpu),
            secs(t.total_elapsed));
#ifndef THREADED_RTS
    fprintf(f, "  %%GC     time     %5.1f%%  (%.1f%% elapsed)\n\n",
            100.0 * (double)t.gc_cpu / (double)t.total_cpu,
            100.0 * (double)t.gc_elapsed / (double)t.total_elapsed);
#endif
    uint64_t rate = t.mut_cpu > 0 ? (uint64_t)((double)allocated / secs(t.mut_cpu)) : 0;
    fprintf(f, "  Alloc rate    %s bytes per MUT second\n\n", with_commas(rate, b));
    fprintf(f, "  Productivity %5.1f%% of total user, %.1f%% of total elapsed\n\n",
            100.0 * (double)(t.total_cpu - t.gc_cpu - t.init_cpu - t.exit_cpu) /
                (double)t.total_cpu,
            100.0 * (double)(t.total_elapsed - t.gc_elapsed - t.init_elapsed - t.exit_elapsed) /
                (double)t.total_elapsed);
}

static void report_one_line(FILE *f)
{
    Times t = compute_times();
    uint64_t avg = stats.major_gcs ? stats.cumulative_live_bytes / stats.major_gcs : 0;
    fprintf(f,
            "<<ghc: %" PRIu64 " bytes, %u GCs, %" PRIu64 "/%" PRIu64
            " avg/max bytes residency (%u samples), %" PRIu64
            "M in use, %.3f INIT (%.3f elapsed), %.3f MUT (%.3f elapsed), %.3f GC (%.3f elapsed) "
            ":ghc>>\n",
            stats_allocated_bytes(), stats.gcs, avg, stats.max_live_bytes, stats.major_gcs,
            stats.max_mem_in_use_bytes / (1024 * 1024), secs(t.init_cpu), secs(t.init_elapsed),
            secs(t.mut_cpu), secs(t.mut_elapsed), secs(t.gc_cpu), secs(t.gc_elapsed));
}

void stats_report(void)
{
    if (reported)
        return;
    reported = true;
    StatsLevel level = rts_flags.stats.level;
    if (!out)
        return;
    /* The program's own output first, as GHC's hs_exit flushes its handles. */
    fflush(stdout);
    if (level == STATS_VERBOSE) {
        char b[32];
        (void)b;
        fprintf(out, "%9" PRIu64 " %9.9s %9.9s", sm_allocated_since_gc() * sizeof(StgWord), "", "");
        fprintf(out, " %6.3f %6.3f\n\n", 0.0, 0.0);
    }
    if (level >= STATS_SUMMARY)
        report_summary(out);
    else if (level == STATS_ONELINE)
        report_one_line(out);
    fflush(out);
}

void stats_exit(void)
{
    if (out && out != stderr)
        fclose(out);
    out = NULL;
    free(gen_stats);
    gen_stats = NULL;
    n_gen_stats = 0;
}

void getRTSStats(RTSStats *s)
{
    *s = stats;
    int64_t cpu = now_cpu() - init_end_cpu;
    int64_t elapsed = now_elapsed() - init_end_elapsed;
    s->cpu_ns = cpu;
    s->elapsed_ns = elapsed;
    s->mutator_cpu_ns = cpu - stats.gc_cpu_ns;
    s->mutator_elapsed_ns = elapsed - stats.gc_elapsed_ns;
    s->allocated_bytes = stats_allocated_bytes();
}

int getRTSStatsEnabled(void)
{
    return rts_flags.stats.level != STATS_NONE;
}

uint64_t getAllocations(void)
{
    return stats_allocated_bytes();
}
