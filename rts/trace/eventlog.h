/*
 * The event log's binary layer: GHC's format (big-endian; a header with the
 * event-type table, then blocks of events, each block starting with a
 * BLOCK_MARKER; 0xFFFF at the end), the per-capability and global buffers,
 * and the writer they are flushed to. trace.c speaks the vocabulary (which
 * events, with which payload) through this interface.
 *
 * Note [Event buffers]
 * ~~~~~~~~~~~~~~~~~~~~
 * There is one buffer per capability (events of the code holding it and of
 * the collections it runs) and one global buffer (start-up and shut-down
 * facts, heap-profile samples, events posted without a capability). Each
 * buffer has its own mutex: events are rare (a few per collection, one per
 * user event), so an uncontended lock per event costs nothing worth saving,
 * and it lets the flusher thread (--eventlog-flush-interval) and the exit
 * path flush a capability's buffer while that capability runs. A block is
 * handed to the writer whole, so blocks never interleave in the output.
 * Within a buffer timestamps never decrease: every event is stamped when
 * it is posted, except the events of one collection, which carry the
 * statistics module's timestamps (GC start, GC end), both taken before
 * the events that follow them are posted.
 */
#ifndef RTS_TRACE_EVENTLOG_H
#define RTS_TRACE_EVENTLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rts/EventLogWriter.h"

/* Event type numbers: GHC's (rts/include/rts/EventLogFormat.h). */
enum {
    EVENT_CREATE_THREAD = 0,
    EVENT_RUN_THREAD = 1,
    EVENT_STOP_THREAD = 2,
    EVENT_GC_START = 9,
    EVENT_GC_END = 10,
    EVENT_REQUEST_SEQ_GC = 11,
    EVENT_REQUEST_PAR_GC = 12,
    EVENT_LOG_MSG = 16,
    EVENT_BLOCK_MARKER = 18,
    EVENT_USER_MSG = 19,
    EVENT_GC_IDLE = 20,
    EVENT_GC_WORK = 21,
    EVENT_GC_DONE = 22,
    EVENT_CAPSET_CREATE = 25,
    EVENT_CAPSET_DELETE = 26,
    EVENT_CAPSET_ASSIGN_CAP = 27,
    EVENT_CAPSET_REMOVE_CAP = 28,
    EVENT_RTS_IDENTIFIER = 29,
    EVENT_PROGRAM_ARGS = 30,
    EVENT_OSPROCESS_PID = 32,
    EVENT_OSPROCESS_PPID = 33,
    EVENT_WALL_CLOCK_TIME = 43,
    EVENT_CAP_CREATE = 45,
    EVENT_CAP_DELETE = 46,
    EVENT_HEAP_ALLOCATED = 49,
    EVENT_HEAP_SIZE = 50,
    EVENT_HEAP_LIVE = 51,
    EVENT_HEAP_INFO_GHC = 52,
    EVENT_GC_STATS_GHC = 53,
    EVENT_GC_GLOBAL_SYNC = 54,
    EVENT_USER_MARKER = 58,
    EVENT_HACK_BUG_T9003 = 59,
    EVENT_MEM_RETURN = 90,
    EVENT_BLOCKS_SIZE = 91,
    EVENT_HEAP_PROF_BEGIN = 160,
    EVENT_HEAP_PROF_SAMPLE_BEGIN = 162,
    EVENT_HEAP_PROF_SAMPLE_STRING = 164,
    EVENT_HEAP_PROF_SAMPLE_END = 165,
    EVENT_USER_BINARY_MSG = 181,
    EVENT_CONC_MARK_BEGIN = 200,
    EVENT_CONC_MARK_END = 201,
    EVENT_CONC_SYNC_BEGIN = 202,
    EVENT_CONC_SYNC_END = 203,
    EVENT_CONC_SWEEP_BEGIN = 204,
    EVENT_CONC_SWEEP_END = 205,
    EVENT_CONC_UPD_REM_SET_FLUSH = 206,
    EVENT_NONMOVING_HEAP_CENSUS = 207,
    EVENT_NONMOVING_PRUNED_SEGMENTS = 208,
    EVENT_DATA_END = 0xFFFF
};

/* Capset numbers and types of the start-up events (GHC's). */
#define EVENTLOG_CAPSET_OSPROCESS   0
#define EVENTLOG_CAPSET_CLOCKDOMAIN 1
#define EVENTLOG_CAPSET_HEAP        0 /* GC events use the process's capset */
#define CAPSET_TYPE_OSPROCESS       2
#define CAPSET_TYPE_CLOCKDOMAIN     3
#define EVENTLOG_GLOBAL             0xFFFF /* the global buffer's "capability" */

/* The longest payload of a variable-size event (its length is a Word16). */
#define EVENTLOG_MAX_PAYLOAD 0xFFF0

/*
 * Start: pick the writer, write the header, create one buffer per
 * capability and the global one, start the flusher thread when an interval
 * is given. False if the event log already runs.
 */
bool trace_ev_start(const EventLogWriter *writer, uint32_t n_caps, double flush_interval);
/* Flush every buffer, write the end marker, stop the writer. */
void trace_ev_stop(void);
bool trace_ev_running(void);
/* Hand every non-empty buffer to the writer and call its flush. */
void trace_ev_flush_all(void);

/* Nanoseconds since the event log's epoch (the runtime's start). */
uint64_t trace_ev_now(void);
/* Convert a monotonic-clock reading (os_time_monotonic_ns) to an event time. */
uint64_t trace_ev_time_of(int64_t monotonic_ns);
void trace_ev_set_epoch(int64_t monotonic_ns);

/*
 * Posting an event: begin (locks the buffer, reserves room, writes type
 * and time), put the payload, end (unlocks). `buf` is a capability number
 * or EVENTLOG_GLOBAL. For a variable-size event pass its payload length;
 * fixed-size events check their size against the header table (debug way).
 */
typedef struct EventBuf_ EventBuf;
EventBuf *trace_ev_begin(uint32_t buf, uint16_t type, uint64_t time, size_t var_len);
void trace_ev_put8(EventBuf *b, uint8_t v);
void trace_ev_put16(EventBuf *b, uint16_t v);
void trace_ev_put32(EventBuf *b, uint32_t v);
void trace_ev_put64(EventBuf *b, uint64_t v);
void trace_ev_put_bytes(EventBuf *b, const void *p, size_t n);
void trace_ev_end(EventBuf *b);

#endif /* RTS_TRACE_EVENTLOG_H */
