/*
 * The statistics formats: the -S header and lines, the -s summary, the -t
 * line and the --machine-readable list. These only format: every number
 * comes from a StatsGcLine or a StatsSummary (STYLE.md item 8).
 *
 * The layouts are GHC's (../shared/reference/ghc-rts-interfaces.md §4), the
 * widths included, because people and tools read them. Where GHC prints a
 * wrong number hsrts prints the right one in the same place: `%GC time` and
 * gc_cpu_percent / gc_wall_percent are real fractions (GHC 9.x divides two
 * integers and prints 0), and gc_wall_percent is the elapsed fraction (GHC
 * repeats the CPU figure).
 */
#include <inttypes.h>
#include <stdio.h>

#include "sm/gc_par.h"
#include "stats/stats_internal.h"

static double secs(Time ns)
{
    return (double)ns / 1e9;
}

const char *stats_with_commas(uint64_t n, char *buf)
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

/* ---- -S ------------------------------------------------------------------------ */

void stats_print_verbose_header(FILE *f)
{
    fprintf(f, "    Alloc    Copied     Live     GC     GC      TOT      TOT  Page Flts\n");
    fprintf(f, "    bytes     bytes     bytes   user   elap     user     elap\n");
}

void stats_print_gc_line(FILE *f, const StatsGcLine *g)
{
    fprintf(f, "%9" PRIu64 " %9" PRIu64 " %9" PRIu64, g->d.allocated_bytes, g->d.copied_bytes,
            g->d.live_bytes);
    fprintf(f, " %6.3f %6.3f %8.3f %8.3f %4" PRIu64 " %4" PRIu64 "  (Gen: %2u)\n",
            secs(g->d.cpu_ns), secs(g->d.elapsed_ns), secs(g->total_cpu_ns),
            secs(g->total_elapsed_ns), g->faults_during, g->faults_between, g->d.gen);
}

/* The allocation since the last collection, with the GC columns left empty. */
void stats_print_verbose_tail(FILE *f, const StatsSummary *sum)
{
    fprintf(f, "%9" PRIu64 " %9.9s %9.9s", sum->exit_allocated_bytes, "", "");
    fprintf(f, " %6.3f %6.3f\n\n", 0.0, 0.0);
}

/* ---- -s ------------------------------------------------------------------------ */

static void print_time_line(FILE *f, const char *label, Time cpu, Time elapsed)
{
    fprintf(f, "  %-8stime  %7.3fs  (%7.3fs elapsed)\n", label, secs(cpu), secs(elapsed));
}

static Time average(Time total, uint32_t n)
{
    return n ? total / n : 0;
}

static void print_generations(FILE *f, const StatsSummary *sum)
{
    fprintf(f, "%37sTot time (elapsed)  Avg pause  Max pause\n", "");
    for (uint32_t g = 0; g < sum->n_gens; g++) {
        const StatsGen *gs = &sum->gens[g];
        fprintf(f, "  Gen %2u     %5u colls, %5u par   %6.3fs  %6.3fs     %3.4fs    %3.4fs\n", g,
                gs->collections, gs->par_collections, secs(gs->cpu_ns), secs(gs->elapsed_ns),
                secs(average(gs->elapsed_ns, gs->collections)), secs(gs->max_pause_ns));
    }
    if (sum->nonmoving && sum->n_gens > 0) {
        uint32_t g = sum->n_gens - 1;
        uint32_t n = sum->gens[g].collections;
        const RTSStats *s = &sum->s;
        fprintf(f, "  Gen %2u     %5u syncs,                      %6.3fs     %3.4fs    %3.4fs\n", g,
                n, secs(s->nonmoving_gc_sync_elapsed_ns),
                secs(average(s->nonmoving_gc_sync_elapsed_ns, n)),
                secs(s->nonmoving_gc_sync_max_elapsed_ns));
        fprintf(f, "  Gen %2u      concurrent,             %6.3fs  %6.3fs     %3.4fs    %3.4fs\n",
                g, secs(s->nonmoving_gc_cpu_ns), secs(s->nonmoving_gc_elapsed_ns),
                secs(average(s->nonmoving_gc_elapsed_ns, n)), secs(s->nonmoving_gc_max_elapsed_ns));
        /* Not a GHC line: how full the segments are (Note [Nonmoving segments]). */
        if (sum->nonmoving_census) {
            fprintf(
                f, "  Gen %2u      segments, occupancy %5.3f (live slots / slots after each sweep)",
                g, sum->nonmoving_occupancy);
            if (sum->nonmoving_start_occupancy >= 0)
                fprintf(f, ", %5.3f (slots in use / slots as each mark began)",
                        sum->nonmoving_start_occupancy);
            fprintf(f, "\n");
        }
    }
    fprintf(f, "\n");
}

void stats_print_summary(FILE *f, const StatsSummary *sum)
{
    const RTSStats *s = &sum->s;
    char b[32];
    fprintf(f, "%16s bytes allocated in the heap\n", stats_with_commas(s->allocated_bytes, b));
    fprintf(f, "%16s bytes copied during GC\n", stats_with_commas(s->copied_bytes, b));
    if (s->major_gcs > 0)
        fprintf(f, "%16s bytes maximum residency (%u sample(s))\n",
                stats_with_commas(s->max_live_bytes, b), s->major_gcs);
    fprintf(f, "%16s bytes maximum slop\n", stats_with_commas(s->max_slop_bytes, b));
    fprintf(f,
            "%16" PRIu64 " MiB total memory in use (%" PRIu64 " MiB lost due to fragmentation)\n\n",
            s->max_mem_in_use_bytes / (1024 * 1024), sum->fragmentation_bytes / (1024 * 1024));
    print_generations(f, sum);

#ifdef THREADED_RTS
    /*
     * No parallel collection yet, so no work-balance line (GHC prints it only
     * when the balance is above 0). Every OS thread that called in is a
     * bound task; hsrts has no worker tasks and no sparks.
     */
    if (sum->work_balance > 0)
        fprintf(f, "  Parallel GC work balance: %.2f%% (serial 0%%, perfect 100%%)\n\n",
                sum->work_balance * 100);
    /* GC worker threads are the runtime's worker tasks (Note [Who collects] in sm/gc_par.c). */
    fprintf(f, "  TASKS: %u (%u bound, %u peak workers (%u total), using -N%u)\n\n",
            sum->bound_tasks + sum->worker_tasks, sum->bound_tasks, sum->worker_tasks,
            sum->worker_tasks, sum->n_capabilities);
    fprintf(f, "  SPARKS: 0 (0 converted, 0 overflowed, 0 dud, 0 GC'd, 0 fizzled)\n\n");
#endif
    print_time_line(f, "INIT", s->init_cpu_ns, s->init_elapsed_ns);
    print_time_line(f, "MUT", s->mutator_cpu_ns, s->mutator_elapsed_ns);
    print_time_line(f, "GC", s->gc_cpu_ns, s->gc_elapsed_ns);
    if (sum->nonmoving)
        print_time_line(f, "CONC GC", s->nonmoving_gc_cpu_ns, s->nonmoving_gc_elapsed_ns);
    print_time_line(f, "EXIT", sum->exit_cpu_ns, sum->exit_elapsed_ns);
    print_time_line(f, "Total", s->cpu_ns, s->elapsed_ns);
    fprintf(f, "\n");
#ifndef THREADED_RTS
    fprintf(f, "  %%GC     time     %5.1f%%  (%.1f%% elapsed)\n\n", sum->gc_cpu_percent * 100,
            sum->gc_elapsed_percent * 100);
#endif
    fprintf(f, "  Alloc rate    %s bytes per MUT second\n\n",
            stats_with_commas(sum->alloc_rate, b));
    fprintf(f, "  Productivity %5.1f%% of total user, %.1f%% of total elapsed\n\n",
            sum->productivity_cpu_percent * 100, sum->productivity_elapsed_percent * 100);
    /* GHC's texts, without a newline as in GHC. */
#ifndef THREADED_RTS
    if (sum->internal_counters)
        fprintf(f, "Internal Counters require the threaded RTS");
#else
    if (sum->internal_counters)
        gc_par_print_counters(f);
#endif
}

/* ---- -t ------------------------------------------------------------------------ */

void stats_print_one_line(FILE *f, const StatsSummary *sum)
{
    const RTSStats *s = &sum->s;
    fprintf(f,
            "<<ghc: %" PRIu64 " bytes, %u GCs, %" PRIu64 "/%" PRIu64
            " avg/max bytes residency (%u samples), %" PRIu64
            "M in use, %.3f INIT (%.3f elapsed), %.3f MUT (%.3f elapsed), %.3f GC (%.3f elapsed) "
            ":ghc>>\n",
            s->allocated_bytes, s->gcs, sum->average_bytes_used, s->max_live_bytes, s->major_gcs,
            s->max_mem_in_use_bytes / (1024 * 1024), secs(s->init_cpu_ns), secs(s->init_elapsed_ns),
            secs(s->mutator_cpu_ns), secs(s->mutator_elapsed_ns), secs(s->gc_cpu_ns),
            secs(s->gc_elapsed_ns));
}

/* ---- -t --machine-readable ----------------------------------------------------- */

/*
 * GHC's keys in GHC's order; a Haskell [(String,String)], one pair a line.
 * Integers are plain decimals, everything else %f; percentages are
 * fractions. hsrts-only keys, if any are ever added, go after GHC's.
 */
static void mr_u(FILE *f, const char *key, uint64_t v)
{
    fprintf(f, " ,(\"%s\", \"%" PRIu64 "\")\n", key, v);
}
static void mr_f(FILE *f, const char *key, double v)
{
    fprintf(f, " ,(\"%s\", \"%f\")\n", key, v);
}
static void mr_secs(FILE *f, const char *key, Time ns)
{
    mr_f(f, key, secs(ns));
}
static void mr_gen_u(FILE *f, uint32_t g, const char *key, uint64_t v)
{
    fprintf(f, " ,(\"gen_%u_%s\", \"%" PRIu64 "\")\n", g, key, v);
}
static void mr_gen_secs(FILE *f, uint32_t g, const char *key, Time ns)
{
    fprintf(f, " ,(\"gen_%u_%s\", \"%f\")\n", g, key, secs(ns));
}

void stats_print_machine_readable(FILE *f, const StatsSummary *sum)
{
    const RTSStats *s = &sum->s;
    /* GHC's historical keys first. */
    fprintf(f, " [(\"bytes allocated\", \"%" PRIu64 "\")\n", s->allocated_bytes);
    mr_u(f, "num_GCs", s->gcs);
    mr_u(f, "average_bytes_used", sum->average_bytes_used);
    mr_u(f, "max_bytes_used", s->max_live_bytes);
    mr_u(f, "num_byte_usage_samples", s->major_gcs);
    mr_u(f, "peak_megabytes_allocated", s->max_mem_in_use_bytes / (1024 * 1024));
    mr_secs(f, "init_cpu_seconds", s->init_cpu_ns);
    mr_secs(f, "init_wall_seconds", s->init_elapsed_ns);
    mr_secs(f, "mut_cpu_seconds", s->mutator_cpu_ns);
    mr_secs(f, "mut_wall_seconds", s->mutator_elapsed_ns);
    mr_secs(f, "GC_cpu_seconds", s->gc_cpu_ns);
    mr_secs(f, "GC_wall_seconds", s->gc_elapsed_ns);
    /* The other times (a profiling runtime adds rp_* and hc_* after exit_*). */
    mr_secs(f, "exit_cpu_seconds", sum->exit_cpu_ns);
    mr_secs(f, "exit_wall_seconds", sum->exit_elapsed_ns);
    mr_secs(f, "total_cpu_seconds", s->cpu_ns);
    mr_secs(f, "total_wall_seconds", s->elapsed_ns);
    /* The RTSStats fields, by their own names. */
    mr_u(f, "major_gcs", s->major_gcs);
    mr_u(f, "allocated_bytes", s->allocated_bytes);
    mr_u(f, "max_live_bytes", s->max_live_bytes);
    mr_u(f, "max_large_objects_bytes", s->max_large_objects_bytes);
    mr_u(f, "max_compact_bytes", s->max_compact_bytes);
    mr_u(f, "max_slop_bytes", s->max_slop_bytes);
    mr_u(f, "max_mem_in_use_bytes", s->max_mem_in_use_bytes);
    mr_u(f, "cumulative_live_bytes", s->cumulative_live_bytes);
    mr_u(f, "copied_bytes", s->copied_bytes);
    mr_u(f, "par_copied_bytes", s->par_copied_bytes);
    mr_u(f, "cumulative_par_max_copied_bytes", s->cumulative_par_max_copied_bytes);
    mr_u(f, "cumulative_par_balanced_copied_bytes", s->cumulative_par_balanced_copied_bytes);
    /* The computed ones. */
#ifndef THREADED_RTS
    mr_f(f, "gc_cpu_percent", sum->gc_cpu_percent);
    mr_f(f, "gc_wall_percent", sum->gc_elapsed_percent);
#endif
    mr_u(f, "fragmentation_bytes", sum->fragmentation_bytes);
    mr_u(f, "alloc_rate", sum->alloc_rate);
    mr_f(f, "productivity_cpu_percent", sum->productivity_cpu_percent);
    mr_f(f, "productivity_wall_percent", sum->productivity_elapsed_percent);
#ifdef THREADED_RTS
    mr_u(f, "bound_task_count", sum->bound_tasks);
    mr_u(f, "sparks_count", 0);
    mr_u(f, "sparks_converted", 0);
    mr_u(f, "sparks_overflowed", 0);
    mr_u(f, "sparks_dud ", 0); /* GHC's key has the trailing space */
    mr_u(f, "sparks_gcd", 0);
    mr_u(f, "sparks_fizzled", 0);
    mr_f(f, "work_balance", sum->work_balance);
    mr_u(f, "n_capabilities", sum->n_capabilities);
    mr_u(f, "task_count", sum->bound_tasks + sum->worker_tasks);
    mr_u(f, "peak_worker_count", sum->worker_tasks);
    mr_u(f, "worker_count", sum->worker_tasks);
#endif
    for (uint32_t g = 0; g < sum->n_gens; g++) {
        const StatsGen *gs = &sum->gens[g];
        mr_gen_u(f, g, "collections", gs->collections);
        mr_gen_u(f, g, "par_collections", gs->par_collections);
        mr_gen_secs(f, g, "cpu_seconds", gs->cpu_ns);
        mr_gen_secs(f, g, "wall_seconds", gs->elapsed_ns);
        mr_gen_secs(f, g, "max_pause_seconds", gs->max_pause_ns);
        mr_gen_secs(f, g, "avg_pause_seconds", average(gs->elapsed_ns, gs->collections));
    }
    if (sum->nonmoving && sum->n_gens > 0) {
        uint32_t n = sum->gens[sum->n_gens - 1].collections;
        mr_secs(f, "nonmoving_sync_wall_seconds", s->nonmoving_gc_sync_elapsed_ns);
        mr_secs(f, "nonmoving_sync_max_pause_seconds", s->nonmoving_gc_sync_max_elapsed_ns);
        mr_secs(f, "nonmoving_sync_avg_pause_seconds", average(s->nonmoving_gc_sync_elapsed_ns, n));
        mr_secs(f, "nonmoving_concurrent_cpu_seconds", s->nonmoving_gc_cpu_ns);
        mr_secs(f, "nonmoving_concurrent_wall_seconds", s->nonmoving_gc_elapsed_ns);
        mr_secs(f, "nonmoving_concurrent_max_pause_seconds", s->nonmoving_gc_max_elapsed_ns);
        mr_secs(f, "nonmoving_concurrent_avg_pause_seconds",
                average(s->nonmoving_gc_elapsed_ns, n));
    }
    fprintf(f, " ]\n");
}
