/*
 * Seeing inside the runtime: what the rest of the runtime calls. The event
 * log (-l), heap profiles (-hT, -hi), debug traces (-D, debug_trace.h) and
 * crash backtraces (backtrace.h) live in rts/trace/; see its README.
 *
 * Every hook here is cheap when its output is off: a test of one flag and
 * a return. None is on an allocation or evacuation path; the GC hooks run
 * once per collection, the thread hooks once per rts_lock / rts_unlock.
 */
#ifndef RTS_TRACE_TRACE_H
#define RTS_TRACE_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "Rts.h"
#include "stats/stats.h"

/*
 * hs_init, after the capabilities exist and before the heap: crash
 * handlers (unless --install-signal-handlers=no), the event log (-l) with
 * its start-up events, the .hp file (-h). An output that cannot be opened
 * is GHC's message and exit 1.
 */
void trace_init(void);
/* hs_exit, after the statistics report: the last .hp sample, the event log's end. */
void trace_exit(void);
/*
 * A fatal exit (heap or stack overflow, msg_fatal): close a collection cut
 * short, then finish both files as trace_exit does.
 */
void trace_fatal_exit(void);

/* From the statistics module, once per collection (monotonic-clock times). */
void trace_gc_start(int64_t start_ns);
/* A GC thread starts working, runs out of work (and looks for more), finishes: GHC's
 * GC_WORK, GC_IDLE, GC_DONE, on the buffer of the capability the GC thread stands for. */
void trace_gc_work(Capability *cap);
void trace_gc_idle(Capability *cap);
void trace_gc_done(Capability *cap);
void trace_gc_end(Capability *cap, const GcStatsRecord *rec, const GCDetails *d,
                  uint64_t total_allocated_bytes, int64_t end_ns);

/*
 * Threads (class s): a TSO created, taking a capability, giving it back
 * (GHC's STOP_THREAD statuses: rts_unlock and rts_yield yield, rts_suspend
 * is a foreign call).
 */
#define TRACE_STOP_YIELDING     3
#define TRACE_STOP_FINISHED     5
#define TRACE_STOP_FOREIGN_CALL 6
void trace_thread_create(Capability *cap, const StgTSO *tso);
void trace_thread_run(Capability *cap, const StgTSO *tso);
void trace_thread_stop(Capability *cap, const StgTSO *tso, int status);
/*
 * The thread `id` has ended (hs_thread_done, or the thread that shuts the
 * runtime down): a STOP_THREAD with GHC's ThreadFinished status, in the
 * global buffer, since the thread holds no capability then (or is about to
 * give it back for good).
 */
void trace_thread_finished(StgWord id);

/*
 * The nonmoving collector's events (GHC's 200-208): the phases of a
 * concurrent cycle (in the vanilla way the mark and the sweep of a major
 * collection), a capability's update remembered set handed to the mark;
 * with the `n` class, a census per size class after each sweep (slot size
 * in bytes, segments with a free slot, segments full, live slots) and the
 * empty segments given back. Any thread may post them.
 */
void trace_conc_mark_begin(void);
void trace_conc_mark_end(uint32_t marked_objects);
void trace_conc_sync_begin(void);
void trace_conc_sync_end(void);
void trace_conc_sweep_begin(void);
void trace_conc_sweep_end(void);
void trace_conc_upd_rem_set_flush(uint32_t cap_no);
bool trace_nonmoving_census_on(void);
void trace_nonmoving_census(uint32_t slot_bytes, uint32_t active, uint32_t filled,
                            uint32_t live_slots);
void trace_nonmoving_pruned(uint32_t pruned, uint32_t still_free);

/*
 * Heap profiling, from the collector: is a census due (then the collection
 * is made major), and the census itself, inside a major collection once it
 * is done and before its statistics (its time is GC time). See Note [When
 * the census runs] in heap_prof.c.
 */
bool trace_heap_census_due(void);
void trace_heap_census_after_gc(Capability *cap, bool major);

#endif /* RTS_TRACE_TRACE_H */
