/*
 * Statistics: every collection reports here, once, in one record; the
 * -S lines, the -s summary, the -t line, --machine-readable, getRTSStats and
 * the gcDone hook only format or copy what this module keeps (STYLE.md
 * item 8). It also owns the INIT / MUT / GC / EXIT time accounting.
 *
 * See rts/stats/README.md for which fields exist, which read 0 until their
 * feature lands, and where hsrts differs from GHC.
 */
#ifndef RTS_STATS_H
#define RTS_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "capability.h"

/*
 * What the collector knows about one collection, filled in one place (the
 * end of gc_collect). Times and page faults are the stats module's own
 * measurements between stats_gc_start and stats_gc_end, so they are not
 * here. Megablock and block counts are the storage manager's, taken after
 * the collection; the peaks are since start-up.
 */
typedef struct {
    uint32_t gen; /* oldest generation collected */
    bool major;
    uint32_t threads;         /* GC threads that took part */
    uint64_t allocated_bytes; /* since the previous collection */
    uint64_t copied_bytes;
    /* Per-thread work: zero unless threads > 1. See Note [Work balance]. */
    uint64_t par_max_copied_bytes;
    uint64_t par_balanced_copied_bytes;
    uint64_t live_bytes; /* after the collection, every generation */
    uint64_t large_objects_bytes;
    uint64_t compact_bytes;
    uint64_t slop_bytes;
    uint64_t mblocks_committed;      /* megablocks held from the OS */
    uint64_t mblocks_peak_committed; /* their peak */
    uint64_t mblocks_in_use;         /* owned by the block allocator */
    uint64_t blocks_allocated;       /* blocks of allocated groups */
    int64_t sync_elapsed_ns;         /* stopping the other capabilities */
    /* The collector's work-finding counters (--internal-counters). */
    uint64_t any_work;
    uint64_t scav_find_work;
    uint64_t max_n_todo_overflow;
} GcStatsRecord;

void stats_init_start(void); /* first thing in hs_init */
void stats_init(void);       /* after the flags: open the output, -S header */
void stats_init_end(void);
void stats_gc_start(void);
void stats_gc_end(Capability *cap, const GcStatsRecord *rec);
/*
 * After a concurrent nonmoving cycle's final pause (its stats_gc_end): the
 * mark thread's CPU, the cycle's elapsed time from its start pause, and the
 * final pause's CPU and elapsed time (GHC's "sync").
 */
void stats_nonmoving_cycle(int64_t mark_cpu_ns, int64_t mark_elapsed_ns, int64_t sync_cpu_ns,
                           int64_t sync_elapsed_ns);
void stats_exit_start(void);
void stats_exit_end(void);
/*
 * Print the -S tail, -s summary or -t line the flags ask for (once). Also
 * called when the process ends on a fatal path, after the error message;
 * then the exit phase is the moment of the call.
 */
void stats_report(void);
/* Close the output and free the module's memory (end of hs_exit). */
void stats_exit(void);

#endif /* RTS_STATS_H */
