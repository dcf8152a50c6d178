/*
 * Heap profiles (-hT, -hi): the census of the live heap after a major
 * collection, written to <stem>.hp in GHC's format and, when the event
 * log runs, as GHC's heap-profile events. Internal to rts/trace/: the rest
 * of the runtime reaches it through trace.h.
 */
#ifndef RTS_TRACE_HEAP_PROF_H
#define RTS_TRACE_HEAP_PROF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "Rts.h"

/* Open the .hp file and write its header (exit 1 if it cannot be opened). */
void trace_hp_init(void);
/* The closing empty sample; close the file. Safe to call twice. */
void trace_hp_exit(void);
/* With the event log: its HEAP_PROF_BEGIN (at start, or when logging starts later). */
void trace_hp_post_begin_event(void);

/* A collection starts: note the mutator time (the census's timestamp). */
void trace_hp_gc_start(void);
bool trace_hp_census_due(void);
/* Inside the collection, after it is done and before its statistics. */
void trace_hp_census_after_gc(bool major);

/*
 * One census, exposed for the unit tests: walk every generation's blocks
 * and large objects, adding each object's size to its band. A band is a
 * label (closure type or info-table name, see Note [Bands]); `bytes` is
 * filled for bands [0, *n_bands).
 */
typedef struct {
    const char *label;
    uint64_t bytes;
} HpBand;
void trace_hp_census(const HpBand **bands, uint32_t *n_bands);
/* The label of an info table's band under the current -h mode and -L. */
const char *trace_hp_label_of(const StgInfoTable *info);

#endif /* RTS_TRACE_HEAP_PROF_H */
