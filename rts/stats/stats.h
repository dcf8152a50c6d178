/*
 * Statistics: every collection reports here, once, in one record; the
 * -S lines, the -s summary, the -t line, --machine-readable, getRTSStats and
 * the gcDone hook only format or copy what this module keeps (STYLE.md
 * item 8). It also owns the INIT / MUT / GC / EXIT time accounting.
 */
#ifndef RTS_STATS_H
#define RTS_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "capability.h"

/* What the collector knows about one collection. */
typedef struct {
    uint32_t gen; /* oldest generation collected */
    bool major;
    uint64_t allocated_bytes; /* since the previous collection */
    uint64_t copied_bytes;
    uint64_t live_bytes; /* after the collection, every generation */
    uint64_t large_objects_bytes;
    uint64_t slop_bytes;
} GcStatsRecord;

void stats_init_start(void); /* first thing in hs_init */
void stats_init(void);       /* after the flags: open the output, -S header */
void stats_init_end(void);
void stats_gc_start(void);
void stats_gc_end(Capability *cap, const GcStatsRecord *rec);
void stats_exit_start(void);
void stats_exit_end(void);
/* Print the -s / -S / -t report the flags ask for (once). */
void stats_report(void);
void stats_exit(void);

/* Bytes allocated since start-up, including the allocation area in use. */
uint64_t stats_allocated_bytes(void);

#endif /* RTS_STATS_H */
