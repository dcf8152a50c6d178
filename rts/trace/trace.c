/*
 * The event vocabulary: which events hsrts posts, when, with which payload
 * (GHC's, reference §7), and the public event-log and user-event API.
 * See trace.h; the binary layer is eventlog.c.
 *
 * State: `classes` is the -l selection in force while the event log runs
 * (set when it starts, read by every hook); `in_gc` and `last_committed`
 * belong to the collection in progress (one at a time).
 */
#include "trace/trace.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "flags/flags.h"
#include "hooks.h"
#include "hsrts_config.h"
#include "messages.h"
#include "os/os_time.h"
#include "sm/block.h"
#include "sm/mblock.h"
#include "startup.h"
#include "trace/backtrace.h"
#include "trace/debug_trace.h"
#include "trace/eventlog.h"
#include "trace/heap_prof.h"

static struct {
    bool sched, gc, user, nonmoving;
} classes;
static bool in_gc;
static uint64_t last_committed; /* megablocks after the previous collection */

/* --- posting helpers ------------------------------------------------------------ */

static void post_empty(uint32_t buf, uint16_t type, uint64_t t)
{
    trace_ev_end(trace_ev_begin(buf, type, t, 0));
}

static void post_capset_u16(uint16_t type, uint32_t capset, uint16_t v)
{
    EventBuf *e = trace_ev_begin(EVENTLOG_GLOBAL, type, trace_ev_now(), 0);
    trace_ev_put32(e, capset);
    trace_ev_put16(e, v);
    trace_ev_end(e);
}

static void post_capset_u32(uint16_t type, uint32_t capset, uint32_t v)
{
    EventBuf *e = trace_ev_begin(EVENTLOG_GLOBAL, type, trace_ev_now(), 0);
    trace_ev_put32(e, capset);
    trace_ev_put32(e, v);
    trace_ev_end(e);
}

static void post_capset_u64(uint32_t buf, uint16_t type, uint64_t t, uint64_t v)
{
    EventBuf *e = trace_ev_begin(buf, type, t, 0);
    trace_ev_put32(e, EVENTLOG_CAPSET_HEAP);
    trace_ev_put64(e, v);
    trace_ev_end(e);
}

static void post_cap(uint16_t type, uint16_t cap)
{
    EventBuf *e = trace_ev_begin(EVENTLOG_GLOBAL, type, trace_ev_now(), 0);
    trace_ev_put16(e, cap);
    trace_ev_end(e);
}

/* A capset event with a text payload (RTS_IDENTIFIER, PROGRAM_ARGS). */
static void post_capset_text(uint16_t type, uint32_t capset, const char *text, size_t len)
{
    if (len > EVENTLOG_MAX_PAYLOAD - 4)
        len = EVENTLOG_MAX_PAYLOAD - 4;
    EventBuf *e = trace_ev_begin(EVENTLOG_GLOBAL, type, trace_ev_now(), 4 + len);
    trace_ev_put32(e, capset);
    trace_ev_put_bytes(e, text, len);
    trace_ev_end(e);
}

static uint32_t buf_of_cap(const Capability *cap)
{
    return cap ? cap->no : EVENTLOG_GLOBAL;
}

/*
 * -v (a debug-way flag): the same events as text lines on stderr, in
 * GHC's words, for the classes -v selected; with `t`, each line starts
 * with its time in nanoseconds since the start.
 */
#define TEXT_ON(cls) (RTS_UNLIKELY(rts_flags.trace.trace_stderr) && rts_flags.trace.cls)

static void text_event(const Capability *cap, const char *fmt, ...) RTS_PRINTF(2, 3);
static void text_event(const Capability *cap, const char *fmt, ...)
{
    char line[600];
    int n = 0;
    if (rts_flags.trace.timestamp)
        n = snprintf(line, sizeof line, "%9llu: ", (unsigned long long)trace_ev_now());
    n += snprintf(line + n, sizeof line - (size_t)n, "cap %u: ", cap ? cap->no : 0);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    trace_debug_line("%s", line);
}

/* --- start-up and shut-down events (GHC's order, reference §7.2) ------------------- */

static void post_program_args(void)
{
    int argc;
    char **argv;
    getFullProgArgv(&argc, &argv);
    size_t len = 0;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    char *text = hooks_malloc(len + 1, "event log arguments"), *p = text;
    for (int i = 0; i < argc; i++) {
        size_t n = strlen(argv[i]) + 1;
        memcpy(p, argv[i], n); /* each argument ends in NUL */
        p += n;
    }
    post_capset_text(EVENT_PROGRAM_ARGS, EVENTLOG_CAPSET_OSPROCESS, text, len);
    free(text);
}

static void post_startup_events(void)
{
    post_capset_u16(EVENT_CAPSET_CREATE, EVENTLOG_CAPSET_OSPROCESS, CAPSET_TYPE_OSPROCESS);
    post_capset_u16(EVENT_CAPSET_CREATE, EVENTLOG_CAPSET_CLOCKDOMAIN, CAPSET_TYPE_CLOCKDOMAIN);
    for (uint32_t c = 0; c < n_capabilities; c++) {
        post_cap(EVENT_CAP_CREATE, (uint16_t)c);
        post_capset_u16(EVENT_CAPSET_ASSIGN_CAP, EVENTLOG_CAPSET_OSPROCESS, (uint16_t)c);
        post_capset_u16(EVENT_CAPSET_ASSIGN_CAP, EVENTLOG_CAPSET_CLOCKDOMAIN, (uint16_t)c);
    }
    struct timeval tv;
    gettimeofday(&tv, NULL);
    EventBuf *e = trace_ev_begin(EVENTLOG_GLOBAL, EVENT_WALL_CLOCK_TIME, trace_ev_now(), 0);
    trace_ev_put32(e, EVENTLOG_CAPSET_CLOCKDOMAIN);
    trace_ev_put64(e, (uint64_t)tv.tv_sec);
    trace_ev_put32(e, (uint32_t)tv.tv_usec * 1000u);
    trace_ev_end(e);
    post_capset_u32(EVENT_OSPROCESS_PID, EVENTLOG_CAPSET_OSPROCESS, (uint32_t)getpid());
    post_capset_u32(EVENT_OSPROCESS_PPID, EVENTLOG_CAPSET_OSPROCESS, (uint32_t)getppid());
    const char *way = rts_isThreaded() ? (rts_isDebugged() ? "thr_debug" : "thr")
                                       : (rts_isDebugged() ? "debug" : "v");
    char ident[64];
    int n = snprintf(ident, sizeof ident, "hsrts-%s rts_%s", HSRTS_VERSION, way);
    post_capset_text(EVENT_RTS_IDENTIFIER, EVENTLOG_CAPSET_OSPROCESS, ident, (size_t)n);
    post_program_args();
    if (classes.gc) {
        e = trace_ev_begin(EVENTLOG_GLOBAL, EVENT_HEAP_INFO_GHC, trace_ev_now(), 0);
        trace_ev_put32(e, EVENTLOG_CAPSET_HEAP);
        trace_ev_put16(e, (uint16_t)rts_flags.gc.generations);
        trace_ev_put64(e, rts_flags.gc.max_heap_bytes);
        trace_ev_put64(e, rts_flags.gc.alloc_area_bytes);
        trace_ev_put64(e, MBLOCK_SIZE);
        trace_ev_put64(e, BLOCK_SIZE);
        trace_ev_end(e);
    }
}

static void post_shutdown_events(void)
{
    for (uint32_t c = 0; c < n_capabilities; c++) {
        post_capset_u16(EVENT_CAPSET_REMOVE_CAP, EVENTLOG_CAPSET_OSPROCESS, (uint16_t)c);
        post_capset_u16(EVENT_CAPSET_REMOVE_CAP, EVENTLOG_CAPSET_CLOCKDOMAIN, (uint16_t)c);
        post_cap(EVENT_CAP_DELETE, (uint16_t)c);
    }
    EventBuf *e = trace_ev_begin(EVENTLOG_GLOBAL, EVENT_CAPSET_DELETE, trace_ev_now(), 0);
    trace_ev_put32(e, EVENTLOG_CAPSET_OSPROCESS);
    trace_ev_end(e);
    e = trace_ev_begin(EVENTLOG_GLOBAL, EVENT_CAPSET_DELETE, trace_ev_now(), 0);
    trace_ev_put32(e, EVENTLOG_CAPSET_CLOCKDOMAIN);
    trace_ev_end(e);
}

static bool start_logging(const EventLogWriter *w)
{
    const TraceFlags *t = &rts_flags.trace;
    if (!rts_flags.trace.eventlog) {
        /* Started by the program without -l: GHC's default classes. */
        classes.sched = classes.gc = classes.user = true;
        classes.nonmoving = false;
    } else {
        classes.sched = t->scheduler;
        classes.gc = t->gc;
        classes.user = t->user;
        classes.nonmoving = t->nonmoving_gc;
    }
    if (!trace_ev_start(w, n_capabilities, t->flush_interval))
        return false;
    post_startup_events();
    trace_hp_post_begin_event();
    /* The start-up facts lead the file, as GHC's, for readers that stream it. */
    trace_ev_flush_all();
    return true;
}

static void stop_logging(void)
{
    if (!trace_ev_running())
        return;
    post_shutdown_events();
    trace_ev_stop();
}

/* --- life cycle ---------------------------------------------------------------------- */

/* msg_barf's report: the stack from msg_barf's caller outwards. */
static void barf_backtrace(void)
{
    trace_backtrace_print("msg_barf");
}

void trace_init(void)
{
    trace_ev_set_epoch(os_time_monotonic_ns());
    msg_set_barf_report(barf_backtrace);
    in_gc = false;
    last_committed = 0;
    if (rts_flags.misc.install_signal_handlers)
        trace_backtrace_install();
    if (rts_flags.trace.eventlog) {
        const EventLogWriter *w = rts_flags.trace.null_writer  ? &NullEventLogWriter
                                  : rts_config.eventlog_writer ? rts_config.eventlog_writer
                                                               : &FileEventLogWriter;
        start_logging(w);
    }
    trace_hp_init();
}

void trace_exit(void)
{
    trace_hp_exit();
    stop_logging();
    trace_backtrace_uninstall();
}

void trace_fatal_exit(void)
{
    if (in_gc && trace_ev_running() && classes.gc) {
        /* The collection was cut short; keep every GC_START matched. */
        Capability *cap = cap_mine();
        post_empty(buf_of_cap(cap ? cap : capabilities[0]), EVENT_GC_END, trace_ev_now());
    }
    in_gc = false;
    trace_exit();
}

/* --- collections (class g) --------------------------------------------------------- */

void trace_gc_start(int64_t start_ns)
{
    in_gc = true;
    trace_hp_gc_start();
    DEBUG_TRACE(gc, "gc: collection starts");
    if (TEXT_ON(gc)) {
        text_event(cap_mine(), "requesting sequential GC");
        text_event(cap_mine(), "starting GC");
    }
    if (!trace_ev_running() || !classes.gc)
        return;
    Capability *cap = cap_mine();
    uint32_t buf = buf_of_cap(cap ? cap : capabilities[0]);
    uint64_t t = trace_ev_time_of(start_ns);
    post_empty(buf, EVENT_REQUEST_SEQ_GC, t);
    post_empty(buf, EVENT_GC_START, t);
}

void trace_gc_end(Capability *cap, const GcStatsRecord *rec, const GCDetails *d,
                  uint64_t total_allocated_bytes, int64_t end_ns)
{
    in_gc = false;
    if (TEXT_ON(gc))
        text_event(cap, "finished GC (generation %u, %llu bytes copied)", rec->gen,
                   (unsigned long long)d->copied_bytes);
    uint64_t committed = rec->mblocks_committed;
    uint64_t returned = last_committed > committed ? last_committed - committed : 0;
    last_committed = committed;
    if (!trace_ev_running() || !classes.gc)
        return;
    uint32_t buf = buf_of_cap(cap ? cap : capabilities[0]);
    uint64_t t = trace_ev_time_of(end_ns);
    if (rec->major) {
        /* See rts/trace/README.md for what "needed" and "returned" mean here. */
        EventBuf *e = trace_ev_begin(buf, EVENT_MEM_RETURN, t, 0);
        trace_ev_put32(e, EVENTLOG_CAPSET_HEAP);
        trace_ev_put32(e, (uint32_t)committed);
        trace_ev_put32(e, (uint32_t)rec->mblocks_in_use);
        trace_ev_put32(e, (uint32_t)returned);
        trace_ev_end(e);
    }
    post_empty(buf, EVENT_GC_GLOBAL_SYNC, t);
    EventBuf *e = trace_ev_begin(buf, EVENT_GC_STATS_GHC, t, 0);
    bool par = rec->threads > 1;
    trace_ev_put32(e, EVENTLOG_CAPSET_HEAP);
    trace_ev_put16(e, (uint16_t)rec->gen);
    trace_ev_put64(e, d->copied_bytes);
    trace_ev_put64(e, d->slop_bytes);
    trace_ev_put64(e, d->block_fragmentation_bytes);
    trace_ev_put32(e, rec->threads);
    trace_ev_put64(e, par ? d->par_max_copied_bytes : 0);
    trace_ev_put64(e, par ? d->copied_bytes : 0);
    trace_ev_put64(e, par ? d->par_balanced_copied_bytes : 0);
    trace_ev_end(e);
    post_empty(buf, EVENT_GC_END, t);
    if (rec->major)
        post_capset_u64(buf, EVENT_HEAP_LIVE, t, d->live_bytes);
    post_capset_u64(buf, EVENT_HEAP_SIZE, t, d->mem_in_use_bytes);
    post_capset_u64(buf, EVENT_BLOCKS_SIZE, t, rec->blocks_allocated * BLOCK_SIZE);
    post_capset_u64(buf, EVENT_HEAP_ALLOCATED, t, total_allocated_bytes);
}

/* GC threads of a parallel collection, each on its capability's buffer (class g). */
static void post_gc_thread(Capability *cap, uint16_t type)
{
    if (trace_ev_running() && classes.gc)
        post_empty(buf_of_cap(cap), type, trace_ev_now());
}
void trace_gc_work(Capability *cap)
{
    post_gc_thread(cap, EVENT_GC_WORK);
}
void trace_gc_idle(Capability *cap)
{
    post_gc_thread(cap, EVENT_GC_IDLE);
}
void trace_gc_done(Capability *cap)
{
    post_gc_thread(cap, EVENT_GC_DONE);
}

/* --- the nonmoving collector (-xn) ------------------------------------------------------ */

/*
 * The concurrent-collection events go to the global buffer whatever the
 * classes (GHC's rule): the mark thread, which posts some, holds no
 * capability. The census and pruning events need the `n` class.
 */
static void post_conc(uint16_t type)
{
    if (trace_ev_running())
        post_empty(EVENTLOG_GLOBAL, type, trace_ev_now());
}
void trace_conc_mark_begin(void)
{
    post_conc(EVENT_CONC_MARK_BEGIN);
}
void trace_conc_mark_end(uint32_t marked_objects)
{
    if (!trace_ev_running())
        return;
    EventBuf *e = trace_ev_begin(EVENTLOG_GLOBAL, EVENT_CONC_MARK_END, trace_ev_now(), 0);
    trace_ev_put32(e, marked_objects);
    trace_ev_end(e);
}
void trace_conc_sync_begin(void)
{
    post_conc(EVENT_CONC_SYNC_BEGIN);
}
void trace_conc_sync_end(void)
{
    post_conc(EVENT_CONC_SYNC_END);
}
void trace_conc_sweep_begin(void)
{
    post_conc(EVENT_CONC_SWEEP_BEGIN);
}
void trace_conc_sweep_end(void)
{
    post_conc(EVENT_CONC_SWEEP_END);
}
void trace_conc_upd_rem_set_flush(uint32_t cap_no)
{
    if (!trace_ev_running())
        return;
    EventBuf *e = trace_ev_begin(EVENTLOG_GLOBAL, EVENT_CONC_UPD_REM_SET_FLUSH, trace_ev_now(), 0);
    trace_ev_put16(e, (uint16_t)cap_no);
    trace_ev_end(e);
}
bool trace_nonmoving_census_on(void)
{
    return trace_ev_running() && classes.nonmoving;
}
void trace_nonmoving_census(uint32_t slot_bytes, uint32_t active, uint32_t filled,
                            uint32_t live_slots)
{
    if (!trace_nonmoving_census_on())
        return;
    EventBuf *e = trace_ev_begin(EVENTLOG_GLOBAL, EVENT_NONMOVING_HEAP_CENSUS, trace_ev_now(), 0);
    trace_ev_put16(e, (uint16_t)(slot_bytes > 0xFFFF ? 0xFFFF : slot_bytes));
    trace_ev_put32(e, active);
    trace_ev_put32(e, filled);
    trace_ev_put32(e, live_slots);
    trace_ev_end(e);
}
void trace_nonmoving_pruned(uint32_t pruned, uint32_t still_free)
{
    if (!trace_nonmoving_census_on())
        return;
    EventBuf *e =
        trace_ev_begin(EVENTLOG_GLOBAL, EVENT_NONMOVING_PRUNED_SEGMENTS, trace_ev_now(), 0);
    trace_ev_put32(e, pruned);
    trace_ev_put32(e, still_free);
    trace_ev_end(e);
}

/* --- threads (class s) ----------------------------------------------------------------- */

/* A thread event; cap NULL: the global buffer (a thread that holds no capability). */
static void post_thread(Capability *cap, uint16_t type, StgWord id, int status)
{
    EventBuf *e = trace_ev_begin(buf_of_cap(cap), type, trace_ev_now(), 0);
    trace_ev_put32(e, (uint32_t)id);
    if (type == EVENT_STOP_THREAD) {
        trace_ev_put16(e, (uint16_t)status);
        trace_ev_put32(e, 0); /* no thread blocked it */
    }
    trace_ev_end(e);
}

void trace_thread_create(Capability *cap, const StgTSO *tso)
{
    DEBUG_TRACE(scheduler, "sched: cap %u: created thread %lu", cap->no, (unsigned long)tso->id);
    if (TEXT_ON(scheduler))
        text_event(cap, "created thread %lu", (unsigned long)tso->id);
    if (trace_ev_running() && classes.sched)
        post_thread(cap, EVENT_CREATE_THREAD, tso->id, 0);
}

void trace_thread_run(Capability *cap, const StgTSO *tso)
{
    DEBUG_TRACE(scheduler, "sched: cap %u: running thread %lu", cap->no, (unsigned long)tso->id);
    if (TEXT_ON(scheduler))
        text_event(cap, "running thread %lu", (unsigned long)tso->id);
    if (trace_ev_running() && classes.sched)
        post_thread(cap, EVENT_RUN_THREAD, tso->id, 0);
}

void trace_thread_stop(Capability *cap, const StgTSO *tso, int status)
{
    DEBUG_TRACE(scheduler, "sched: cap %u: thread %lu gives the capability back%s", cap->no,
                (unsigned long)tso->id, status == TRACE_STOP_FOREIGN_CALL ? " (foreign call)" : "");
    if (TEXT_ON(scheduler))
        text_event(cap, "stopping thread %lu (%s)", (unsigned long)tso->id,
                   status == TRACE_STOP_FOREIGN_CALL ? "making a foreign call" : "yielding");
    if (trace_ev_running() && classes.sched)
        post_thread(cap, EVENT_STOP_THREAD, tso->id, status);
}

void trace_thread_finished(StgWord id)
{
    DEBUG_TRACE(scheduler, "sched: thread %lu finished", (unsigned long)id);
    if (TEXT_ON(scheduler))
        text_event(NULL, "stopping thread %lu (finished)", (unsigned long)id);
    if (trace_ev_running() && classes.sched)
        post_thread(NULL, EVENT_STOP_THREAD, id, TRACE_STOP_FINISHED);
}

/* --- heap profiling hooks ------------------------------------------------------------- */

bool trace_heap_census_due(void)
{
    return trace_hp_census_due();
}

void trace_heap_census_after_gc(Capability *cap, bool major)
{
    (void)cap;
    trace_hp_census_after_gc(major);
}

/* --- debug lines -------------------------------------------------------------------------- */

void trace_debug_line(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof line - 1 ? (size_t)n : sizeof line - 2;
    line[len++] = '\n';
    fwrite(line, 1, len, stderr);
    fflush(stderr);
}

/* --- public API: EventLogWriter.h ----------------------------------------------------- */

enum EventLogStatus eventLogStatus(void)
{
    return trace_ev_running() ? EVENTLOG_RUNNING : EVENTLOG_NOT_CONFIGURED;
}

bool startEventLogging(const EventLogWriter *writer)
{
    if (writer == NULL || writer->writeEventLog == NULL)
        msg_fatal(EXIT_BADFLAGS, "startEventLogging: the writer has no writeEventLog function");
    if (!startup_running())
        return false;
    return start_logging(writer);
}

void endEventLogging(void)
{
    stop_logging();
}

void flushEventLog(struct Capability_ **cap)
{
    (void)cap;
    trace_ev_flush_all();
}

int rts_isTracing(void)
{
    return trace_ev_running();
}

/* --- public API: user events (rts/Trace.h) ------------------------------------------- */

static void post_user(Capability *cap, uint16_t type, const void *bytes, size_t n)
{
    if (!trace_ev_running() || !classes.user)
        return;
    if (n > EVENTLOG_MAX_PAYLOAD)
        n = EVENTLOG_MAX_PAYLOAD;
    EventBuf *e = trace_ev_begin(buf_of_cap(cap), type, trace_ev_now(), n);
    trace_ev_put_bytes(e, bytes, n);
    trace_ev_end(e);
}

void rts_traceEvent(Capability *cap, const char *msg)
{
    if (msg == NULL)
        return;
    if (TEXT_ON(user))
        text_event(cap, "%s", msg);
    post_user(cap, EVENT_USER_MSG, msg, strlen(msg));
}

void rts_traceMarker(Capability *cap, const char *name)
{
    if (name == NULL)
        return;
    if (TEXT_ON(user))
        text_event(cap, "marker: %s", name);
    post_user(cap, EVENT_USER_MARKER, name, strlen(name));
}

void rts_traceBinaryEvent(Capability *cap, const uint8_t *bytes, size_t n)
{
    if (bytes || n == 0)
        post_user(cap, EVENT_USER_BINARY_MSG, bytes, n);
}
