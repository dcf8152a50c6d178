/*
 * The event log's binary layer. See eventlog.h and Note [Event buffers].
 *
 * State: `running`, `writer`, `bufs` and `n_bufs` change only in
 * trace_ev_start / trace_ev_stop, which run on the thread starting or
 * stopping the runtime (no events are posted concurrently with them, and
 * the flusher thread is started after and stopped before they touch
 * anything). Each buffer's contents are guarded by its own mutex.
 */
#include "trace/eventlog.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "Rts.h"
#include "hooks.h"
#include "messages.h"
#include "os/os_time.h"

#define EVENT_BUF_SIZE  (2u * 1024 * 1024)  /* as GHC's */
#define BLOCK_MARKER_SZ (2 + 8 + 4 + 8 + 2) /* type, time, size, end time, cap */
#define VAR_SIZE        0xFFFF

/* The header's event-type table: every type hsrts may post, with GHC's descriptions. */
typedef struct {
    uint16_t id;
    uint16_t size; /* payload bytes, or VAR_SIZE */
    const char *desc;
} EventType;

static const EventType event_types[] = {
    {EVENT_CREATE_THREAD, 4, "Create thread"},
    {EVENT_RUN_THREAD, 4, "Run thread"},
    {EVENT_STOP_THREAD, 10, "Stop thread"},
    {EVENT_GC_START, 0, "Starting GC"},
    {EVENT_GC_END, 0, "Finished GC"},
    {EVENT_REQUEST_SEQ_GC, 0, "Request sequential GC"},
    {EVENT_REQUEST_PAR_GC, 0, "Request parallel GC"},
    {EVENT_LOG_MSG, VAR_SIZE, "Log message"},
    {EVENT_BLOCK_MARKER, 14, "Block marker"},
    {EVENT_USER_MSG, VAR_SIZE, "User message"},
    {EVENT_GC_IDLE, 0, "GC idle"},
    {EVENT_GC_WORK, 0, "GC working"},
    {EVENT_GC_DONE, 0, "GC done"},
    {EVENT_CAPSET_CREATE, 6, "Create capability set"},
    {EVENT_CAPSET_DELETE, 4, "Delete capability set"},
    {EVENT_CAPSET_ASSIGN_CAP, 6, "Add capability to capability set"},
    {EVENT_CAPSET_REMOVE_CAP, 6, "Remove capability from capability set"},
    {EVENT_RTS_IDENTIFIER, VAR_SIZE, "RTS name and version"},
    {EVENT_PROGRAM_ARGS, VAR_SIZE, "Program arguments"},
    {EVENT_OSPROCESS_PID, 8, "Process ID"},
    {EVENT_OSPROCESS_PPID, 8, "Parent process ID"},
    {EVENT_WALL_CLOCK_TIME, 16, "Wall clock time"},
    {EVENT_CAP_CREATE, 2, "Create capability"},
    {EVENT_CAP_DELETE, 2, "Delete capability"},
    {EVENT_HEAP_ALLOCATED, 12, "Total heap memory ever allocated"},
    {EVENT_HEAP_SIZE, 12, "Current heap size"},
    {EVENT_HEAP_LIVE, 12, "Current heap live data"},
    {EVENT_HEAP_INFO_GHC, 38, "Heap static parameters"},
    {EVENT_GC_STATS_GHC, 58, "GC statistics"},
    {EVENT_GC_GLOBAL_SYNC, 0, "Synchronise stop-the-world GC"},
    {EVENT_USER_MARKER, VAR_SIZE, "User marker"},
    /*
     * Never posted: its presence tells readers that STOP_THREAD uses the
     * status numbering of GHC 7.8.3 and later (ghc-events decides so).
     */
    {EVENT_HACK_BUG_T9003, 0, "Empty event for bug #9003"},
    {EVENT_MEM_RETURN, 16, "The RTS attempted to return heap memory to the OS"},
    {EVENT_BLOCKS_SIZE, 12, "Report the size of the heap in blocks"},
    {EVENT_HEAP_PROF_BEGIN, VAR_SIZE, "Start of heap profile"},
    {EVENT_HEAP_PROF_SAMPLE_BEGIN, 8, "Start of heap profile sample"},
    {EVENT_HEAP_PROF_SAMPLE_STRING, VAR_SIZE, "Heap profile string sample"},
    {EVENT_HEAP_PROF_SAMPLE_END, 8, "End of heap profile sample"},
    {EVENT_USER_BINARY_MSG, VAR_SIZE, "User binary message"},
    {EVENT_CONC_MARK_BEGIN, 0, "Begin concurrent mark phase"},
    {EVENT_CONC_MARK_END, 4, "End concurrent mark phase"},
    {EVENT_CONC_SYNC_BEGIN, 0, "Begin concurrent GC synchronisation"},
    {EVENT_CONC_SYNC_END, 0, "End concurrent GC synchronisation"},
    {EVENT_CONC_SWEEP_BEGIN, 0, "Begin concurrent sweep phase"},
    {EVENT_CONC_SWEEP_END, 0, "End concurrent sweep phase"},
    {EVENT_CONC_UPD_REM_SET_FLUSH, 2, "Update remembered set flushed"},
    {EVENT_NONMOVING_HEAP_CENSUS, 14, "Nonmoving heap census"},
    {EVENT_NONMOVING_PRUNED_SEGMENTS, 8,
     "Report the amount of segments pruned and remaining on the free list."},
};
#define N_EVENT_TYPES (sizeof event_types / sizeof event_types[0])

struct EventBuf_ {
    pthread_mutex_t lock;
    uint8_t *begin, *pos, *end;
    uint16_t cap;                   /* capability number, or EVENTLOG_GLOBAL */
    uint64_t first_time, last_time; /* of the events in the current block */
    bool has_events;
#ifdef DEBUG
    uint8_t *event_start; /* of the event being posted: for the size check */
    size_t event_size;
#endif
};

static bool running;
static const EventLogWriter *writer;
static EventBuf *bufs; /* [0, n_bufs - 1) capabilities, then the global buffer */
static uint32_t n_bufs;
static int64_t epoch;
static bool write_failed;

/* The flusher thread (--eventlog-flush-interval). */
static pthread_t flusher;
static bool flusher_running, flusher_stop;
static pthread_mutex_t flusher_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t flusher_wake = PTHREAD_COND_INITIALIZER;
static double flusher_interval;

/* --- big-endian encoding ------------------------------------------------------ */

static uint8_t *enc16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
    return p + 2;
}
static uint8_t *enc32(uint8_t *p, uint32_t v)
{
    for (int i = 3; i >= 0; i--)
        *p++ = (uint8_t)(v >> (8 * i));
    return p;
}
static uint8_t *enc64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--)
        *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

/* --- time ---------------------------------------------------------------------- */

void trace_ev_set_epoch(int64_t monotonic_ns)
{
    epoch = monotonic_ns;
}

uint64_t trace_ev_time_of(int64_t monotonic_ns)
{
    return monotonic_ns > epoch ? (uint64_t)(monotonic_ns - epoch) : 0;
}

uint64_t trace_ev_now(void)
{
    return trace_ev_time_of(os_time_monotonic_ns());
}

/* --- the writer ---------------------------------------------------------------- */

static void write_out(const uint8_t *p, size_t n)
{
    if (n == 0)
        return;
    if (!writer->writeEventLog((void *)p, n) && !write_failed) {
        write_failed = true;
        msg_error("warning: the event log writer failed; events are being lost");
    }
}

static void write_header(void)
{
    size_t size = 5 * 4; /* hdrb hetb ... hete hdre datb */
    for (size_t i = 0; i < N_EVENT_TYPES; i++)
        size += 4 + 2 + 2 + 4 + strlen(event_types[i].desc) + 4 + 4;
    uint8_t *h = hooks_malloc(size, "event log header"), *p = h;
    p = enc32(p, 0x68647262); /* hdrb */
    p = enc32(p, 0x68657462); /* hetb */
    for (size_t i = 0; i < N_EVENT_TYPES; i++) {
        const EventType *t = &event_types[i];
        uint32_t len = (uint32_t)strlen(t->desc);
        p = enc32(p, 0x65746200); /* etb\0 */
        p = enc16(p, t->id);
        p = enc16(p, t->size);
        p = enc32(p, len);
        memcpy(p, t->desc, len);
        p += len;
        p = enc32(p, 0);          /* no extension */
        p = enc32(p, 0x65746500); /* ete\0 */
    }
    p = enc32(p, 0x68657465); /* hete */
    p = enc32(p, 0x68647265); /* hdre */
    p = enc32(p, 0x64617462); /* datb */
    write_out(h, (size_t)(p - h));
    free(h);
}

/* --- buffers ------------------------------------------------------------------- */

static void buf_reset(EventBuf *b)
{
    b->pos = b->begin + BLOCK_MARKER_SZ; /* the marker is filled in at flush */
    b->has_events = false;
    b->first_time = b->last_time = 0;
}

/* Write the buffer's block out (caller holds b->lock). */
static void buf_flush_locked(EventBuf *b)
{
    if (!b->has_events)
        return;
    uint8_t *p = b->begin;
    p = enc16(p, EVENT_BLOCK_MARKER);
    p = enc64(p, b->first_time);
    p = enc32(p, (uint32_t)(b->pos - b->begin));
    p = enc64(p, b->last_time);
    enc16(p, b->cap);
    write_out(b->begin, (size_t)(b->pos - b->begin));
    buf_reset(b);
}

static EventBuf *buf_of(uint32_t n)
{
    if (n == EVENTLOG_GLOBAL || n >= n_bufs - 1)
        return &bufs[n_bufs - 1];
    return &bufs[n];
}

static const EventType *type_of(uint16_t id)
{
    for (size_t i = 0; i < N_EVENT_TYPES; i++)
        if (event_types[i].id == id)
            return &event_types[i];
    return NULL;
}

EventBuf *trace_ev_begin(uint32_t n, uint16_t type, uint64_t time, size_t var_len)
{
    const EventType *t = type_of(type);
    if (t == NULL)
        msg_barf("eventlog: event type %u is not in the header", type);
    size_t payload = t->size == VAR_SIZE ? 2 + var_len : t->size;
    EventBuf *b = buf_of(n);
    pthread_mutex_lock(&b->lock);
    if ((size_t)(b->end - b->pos) < 2 + 8 + payload)
        buf_flush_locked(b);
    if (!b->has_events) {
        b->first_time = time;
        b->has_events = true;
    }
    if (time < b->last_time)
        time = b->last_time; /* never backwards within a block (Note [Event buffers]) */
    b->last_time = time;
    b->pos = enc16(b->pos, type);
    b->pos = enc64(b->pos, time);
    if (t->size == VAR_SIZE)
        b->pos = enc16(b->pos, (uint16_t)var_len);
#ifdef DEBUG
    b->event_start = b->pos;
    b->event_size = t->size == VAR_SIZE ? var_len : t->size;
#endif
    return b;
}

void trace_ev_put8(EventBuf *b, uint8_t v)
{
    *b->pos++ = v;
}
void trace_ev_put16(EventBuf *b, uint16_t v)
{
    b->pos = enc16(b->pos, v);
}
void trace_ev_put32(EventBuf *b, uint32_t v)
{
    b->pos = enc32(b->pos, v);
}
void trace_ev_put64(EventBuf *b, uint64_t v)
{
    b->pos = enc64(b->pos, v);
}
void trace_ev_put_bytes(EventBuf *b, const void *p, size_t n)
{
    memcpy(b->pos, p, n);
    b->pos += n;
}

void trace_ev_end(EventBuf *b)
{
#ifdef DEBUG
    if ((size_t)(b->pos - b->event_start) != b->event_size)
        msg_barf("eventlog: an event's payload is %zu bytes, its type says %zu",
                 (size_t)(b->pos - b->event_start), b->event_size);
#endif
    pthread_mutex_unlock(&b->lock);
}

void trace_ev_flush_all(void)
{
    if (!running)
        return;
    for (uint32_t i = 0; i < n_bufs; i++) {
        pthread_mutex_lock(&bufs[i].lock);
        buf_flush_locked(&bufs[i]);
        pthread_mutex_unlock(&bufs[i].lock);
    }
    if (writer->flushEventLog)
        writer->flushEventLog();
}

/* --- the flusher thread ---------------------------------------------------------- */

static void *flusher_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&flusher_lock);
    while (!flusher_stop) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        double s = (double)t.tv_sec + (double)t.tv_nsec / 1e9 + flusher_interval;
        t.tv_sec = (time_t)s;
        t.tv_nsec = (long)((s - (double)t.tv_sec) * 1e9);
        if (t.tv_nsec >= 1000000000L)
            t.tv_nsec = 999999999L;
        pthread_cond_timedwait(&flusher_wake, &flusher_lock, &t);
        if (flusher_stop)
            break;
        pthread_mutex_unlock(&flusher_lock);
        trace_ev_flush_all();
        pthread_mutex_lock(&flusher_lock);
    }
    pthread_mutex_unlock(&flusher_lock);
    return NULL;
}

static void flusher_start(double interval)
{
    flusher_interval = interval;
    flusher_stop = false;
    if (pthread_create(&flusher, NULL, flusher_main, NULL) != 0)
        msg_fatal(EXIT_INTERNAL_ERROR, "eventlog: cannot start the flushing thread");
    flusher_running = true;
}

static void flusher_halt(void)
{
    if (!flusher_running)
        return;
    pthread_mutex_lock(&flusher_lock);
    flusher_stop = true;
    pthread_cond_signal(&flusher_wake);
    pthread_mutex_unlock(&flusher_lock);
    pthread_join(flusher, NULL);
    flusher_running = false;
}

/* --- start and stop --------------------------------------------------------------- */

bool trace_ev_running(void)
{
    return running;
}

bool trace_ev_start(const EventLogWriter *w, uint32_t n_caps, double flush_interval)
{
    if (running)
        return false;
    writer = w;
    write_failed = false;
    if (writer->initEventLogWriter)
        writer->initEventLogWriter();
    n_bufs = n_caps + 1;
    bufs = hooks_calloc(n_bufs, sizeof(EventBuf), "event log buffers");
    for (uint32_t i = 0; i < n_bufs; i++) {
        EventBuf *b = &bufs[i];
        pthread_mutex_init(&b->lock, NULL);
        b->begin = hooks_malloc(EVENT_BUF_SIZE, "event log buffer");
        b->end = b->begin + EVENT_BUF_SIZE;
        b->cap = i + 1 == n_bufs ? EVENTLOG_GLOBAL : (uint16_t)i;
        buf_reset(b);
    }
    write_header();
    running = true;
    if (flush_interval > 0)
        flusher_start(flush_interval);
    return true;
}

void trace_ev_stop(void)
{
    if (!running)
        return;
    flusher_halt();
    trace_ev_flush_all();
    uint8_t end[2];
    enc16(end, EVENT_DATA_END);
    write_out(end, sizeof end);
    if (writer->flushEventLog)
        writer->flushEventLog();
    if (writer->stopEventLogWriter)
        writer->stopEventLogWriter();
    running = false;
    for (uint32_t i = 0; i < n_bufs; i++) {
        pthread_mutex_destroy(&bufs[i].lock);
        free(bufs[i].begin);
    }
    free(bufs);
    bufs = NULL;
    n_bufs = 0;
    writer = NULL;
}
