/*
 * Inside the statistics module: the data the accounting (stats.c) keeps and
 * the formatters (stats_report.c) print, and where the output goes
 * (stats_output.c). Formatters take their numbers from a StatsGcLine or a
 * StatsSummary only, never from the runtime, so the unit tests drive them
 * with made-up numbers and compare whole outputs.
 */
#ifndef RTS_STATS_INTERNAL_H
#define RTS_STATS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "RtsAPI.h"

/* One collection as -S prints it: GHC's GCDetails and the columns it adds. */
typedef struct {
    GCDetails d;
    Time total_cpu_ns;       /* process CPU since the start of init, at the end */
    Time total_elapsed_ns;   /* elapsed since the start of init, at the end */
    uint64_t faults_during;  /* page faults during the collection */
    uint64_t faults_between; /* from the previous collection's end to this start */
} StatsGcLine;

/* One generation's collections (the -s table, the gen_<g>_* keys). */
typedef struct {
    uint32_t collections;
    uint32_t par_collections; /* those with more than one GC thread */
    Time cpu_ns;
    Time elapsed_ns;
    Time max_pause_ns;
} StatsGen;

/*
 * Everything a report prints, computed once at the end from the cumulative
 * RTSStats (GHC's RTSSummaryStats). In `s`, cpu_ns and elapsed_ns are the
 * whole run (start of init to end of exit), and the mutator times are the
 * MUT phase, unlike getRTSStats's "since the end of init".
 */
typedef struct {
    RTSStats s;
    Time exit_cpu_ns;
    Time exit_elapsed_ns;
    uint64_t exit_allocated_bytes; /* since the last collection (the -S tail) */
    uint64_t average_bytes_used;   /* cumulative live / major collections */
    uint64_t fragmentation_bytes;  /* peak megablocks' blocks never allocated */
    uint64_t alloc_rate;           /* bytes per MUT CPU second */
    double gc_cpu_percent;         /* fractions 0..1, as GHC's keys */
    double gc_elapsed_percent;
    double productivity_cpu_percent;
    double productivity_elapsed_percent;
    double work_balance;
    uint32_t n_gens;
    const StatsGen *gens;
    bool nonmoving; /* the nonmoving collector's lines and keys */
    /* Its segments' occupancy after the sweeps (nm_mean_sweep_occupancy), if it swept. */
    bool nonmoving_census;
    double nonmoving_occupancy;
    double nonmoving_start_occupancy;
    bool internal_counters;
    /* The threaded way's TASKS line: OS threads that used the runtime, capabilities. */
    uint32_t bound_tasks;
    uint32_t worker_tasks; /* GC worker threads started (threaded) */
    uint32_t n_capabilities;
} StatsSummary;

/* stats.c: the summary of the run so far (the exit phase ends now if not over). */
void stats_summarise(StatsSummary *sum);

/* stats_report.c: the formats of ../shared/reference/ghc-rts-interfaces.md §4. */
void stats_print_verbose_header(FILE *f);
void stats_print_gc_line(FILE *f, const StatsGcLine *g);
void stats_print_verbose_tail(FILE *f, const StatsSummary *sum);
void stats_print_summary(FILE *f, const StatsSummary *sum);
void stats_print_one_line(FILE *f, const StatsSummary *sum);
void stats_print_machine_readable(FILE *f, const StatsSummary *sum);
/* "490,610,280"; buf holds at least 27 bytes. */
const char *stats_with_commas(uint64_t n, char *buf);

/* stats_output.c: the destination of §4.1. NULL when nothing is printed. */
extern FILE *stats_out;
/* Open the -t/-s/-S destination; a file starts with the command line. */
void stats_output_open(void);
void stats_output_close(void);
/* The quoted command-line header line of a stats file. */
void stats_print_command_line(FILE *f, int prog_argc, char *const *prog_argv, int rts_argc,
                              char *const *rts_argv);

#endif /* RTS_STATS_INTERNAL_H */
