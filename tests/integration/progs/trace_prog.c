/*
 * A program for the tests of rts/trace (tests/integration/t_trace*.sh).
 * Every RTS option is allowed. Usage: trace_prog MODE [N]
 *
 *   alloc N         allocate N two-field cells (constructor test:Cell),
 *                   keeping the last 10000, plus a kept byte array, mutable
 *                   variable and thunk; a user message, a marker and a
 *                   binary event every N/10 cells; prints "done"
 *   census N        --no-automatic-heap-samples run: N requested censuses,
 *                   each after 1000 more kept cells; prints "done"
 *   writer N        as alloc, with RtsConfig.eventlog_writer set to a
 *                   writer that copies to $TRACE_WRITER_FILE and counts its
 *                   calls (printed on stdout at the end)
 *   flush           with the counting writer: a user event, then a 300 ms
 *                   pause; says whether the writer was called during it
 *                   (--eventlog-flush-interval)
 *   suspend         rts_suspend / rts_resume (a safe foreign call), then
 *                   rts_yield
 *   threads N       N more OS threads, one after another, each locks a
 *                   capability, allocates, unlocks and calls hs_thread_done
 *                   (the event log's ThreadFinished)
 *   objects         (for -Dw -Dt -DG -Da) a weak pointer whose key dies,
 *                   with a C finalizer; a stable pointer made and freed; a
 *                   stable name; a CAF entered; a function of arity 2
 *                   applied to one argument, then the PAP to one more
 *   start N         no -l needed: startEventLogging(&FileEventLogWriter)
 *                   after init, N cells, endEventLogging; then more cells
 *   heap-overflow   keep everything until -M is exceeded (exit 251)
 *   stack-overflow  as alloc 300000, then push root frames until -K is
 *                   exceeded (exit 2)
 *   exit N          shutdownHaskellAndExit(N, 0) after some allocation
 *   segv            write through a null pointer in the program's own code
 *   fpe             raise(SIGFPE)
 *   barf            (debug way) an object with a bad info table, found by
 *                   the sanity checker (-DS): an internal error, abort
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "Rts.h"

static const StgInfoTable cell_info = HS_CONSTR_INFO(0, 2, 0, "test:Cell");
static const StgInfoTable nil_info = {.type = CONSTR_STATIC, .name = "test:Nil"};
static const StgClosure nil = {.info = &nil_info};

static StgClosure *never_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)cap;
    (void)fv;
    return self;
}
static const StgInfoTable thunk_info = HS_THUNK_INFO(never_entry, 1, 0, "test:lazyTail");

/* A cell whose tail is roots[slot]; becomes roots[slot]. */
static void cons(Capability *cap, StgClosure **roots, int slot)
{
    StgClosure *c = (StgClosure *)rts_alloc(cap, 3);
    c->info = &cell_info;
    c->payload[0] = (StgClosure *)&nil;
    c->payload[1] = roots[slot];
    roots[slot] = c;
}

/* roots[1..3]: a byte array, a mutable variable, a thunk over roots[0]. */
static void keep_others(Capability *cap, StgClosure **roots)
{
    roots[1] = (StgClosure *)rts_new_byte_array(cap, 1000);
    roots[2] = (StgClosure *)rts_new_mut_var(cap, (StgClosure *)&nil);
    StgThunk *t = (StgThunk *)rts_alloc(cap, 3);
    t->info = &thunk_info;
    t->payload[0] = roots[0];
    roots[3] = (StgClosure *)t;
}

static void alloc_mode(Capability *cap, StgClosure **roots, long n)
{
    long every = n / 10 > 0 ? n / 10 : 1;
    keep_others(cap, roots);
    for (long i = 0; i < n; i++) {
        if (i % 10000 == 0)
            roots[0] = (StgClosure *)&nil;
        cons(cap, roots, 0);
        if (i % every == 0) {
            char msg[64];
            snprintf(msg, sizeof msg, "cells so far: %ld", i);
            rts_traceEvent(cap, msg);
            rts_traceMarker(cap, "tick");
            uint8_t bytes[4] = {0, 1, 2, (uint8_t)i};
            rts_traceBinaryEvent(cap, bytes, sizeof bytes);
        }
    }
    printf("done\n");
}

static void census_mode(Capability *cap, StgClosure **roots, long n)
{
    for (long c = 0; c < n; c++) {
        for (int i = 0; i < 1000; i++)
            cons(cap, roots, 0);
        requestHeapCensus();
        performGC();
    }
    printf("done\n");
}

/* The writer for "writer" mode: a copy in a file, and call counts. */
static FILE *copy;
static int n_init, n_write, n_flush, n_stop;
static void w_init(void)
{
    n_init++;
    const char *f = getenv("TRACE_WRITER_FILE");
    copy = fopen(f ? f : "trace_prog.writer.eventlog", "wb");
}
static bool w_write(void *buf, size_t n)
{
    n_write++;
    return copy && fwrite(buf, 1, n, copy) == n;
}
static void w_flush(void)
{
    n_flush++;
    if (copy)
        fflush(copy);
}
static void w_stop(void)
{
    n_stop++;
    if (copy)
        fclose(copy);
    copy = NULL;
}
static const EventLogWriter counting_writer = {w_init, w_write, w_flush, w_stop};

/* "objects" mode. */
static int finalized;
static void count_finalizer(void *env)
{
    (void)env;
    finalized++;
}
static StgClosure *caf_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)cap;
    (void)self;
    (void)fv;
    return (StgClosure *)&nil;
}
static const StgInfoTable caf_info = HS_THUNK_STATIC_INFO(caf_entry, NULL, "test:aCaf");
static StgCAF a_caf = HS_CAF(&caf_info);
static StgClosure *const_entry(Capability *cap, StgClosure *self, StgClosure **fv,
                               StgClosure **args)
{
    (void)cap;
    (void)self;
    (void)fv;
    return args[0];
}
static const StgInfoTable const_info = HS_FUN_STATIC_INFO(2, const_entry, NULL, "test:const");
static const StgClosure const_closure = {.info = &const_info};

static void objects_mode(Capability *cap, StgClosure **roots)
{
    cons(cap, roots, 0);
    rts_mk_weak(cap, roots[0], roots[0], count_finalizer, NULL);
    roots[0] = (StgClosure *)&nil; /* the key dies */
    cons(cap, roots, 1);
    HsStablePtr sp = getStablePtr((StgPtr)roots[1]);
    rts_make_stable_name(cap, roots[1]);
    rts_make_stable_name(cap, roots[1]);
    freeStablePtr(sp);
    rts_eval(cap, (StgClosure *)&a_caf);
    StgClosure **args = rts_push_roots(cap, 1);
    args[0] = (StgClosure *)&nil;
    StgClosure *pap = rts_apply(cap, (StgClosure *)&const_closure, 1, args);
    rts_apply(cap, pap, 1, args);
    rts_pop_roots(cap, args);
    performMajorGC();
    printf("finalizers run: %d\n", finalized);
}

/* "threads" mode: one short-lived OS thread using the runtime. */
static void *short_thread(void *arg)
{
    (void)arg;
    Capability *cap = rts_lock();
    StgClosure **roots = rts_push_roots(cap, 4);
    for (int i = 0; i < 4; i++)
        roots[i] = (StgClosure *)&nil;
    alloc_mode(cap, roots, 1000);
    rts_pop_roots(cap, roots);
    rts_unlock(cap);
    hs_thread_done();
    return NULL;
}

/* Not static and not inlined: the crash report must name it. */
static int *volatile null_ptr; /* the compiler cannot see that it is NULL */
void trace_prog_crash_here(volatile int *p);
__attribute__((noinline)) void trace_prog_crash_here(volatile int *p)
{
    *p = 42;
}

int main(int argc, char *argv[])
{
    const char *mode = argc > 1 ? argv[1] : "";
    RtsConfig conf = defaultRtsConfig;
    conf.rts_opts_enabled = RtsOptsAll;
    if (strcmp(mode, "writer") == 0 || strcmp(mode, "flush") == 0)
        conf.eventlog_writer = &counting_writer;
    hs_init_ghc(&argc, &argv, conf);
    long n = argc > 2 ? atol(argv[2]) : 0;
    Capability *cap = rts_lock();
    StgClosure **roots = rts_push_roots(cap, 4);
    for (int i = 0; i < 4; i++)
        roots[i] = (StgClosure *)&nil;

    if (strcmp(mode, "alloc") == 0) {
        alloc_mode(cap, roots, n);
    } else if (strcmp(mode, "census") == 0) {
        census_mode(cap, roots, n);
    } else if (strcmp(mode, "writer") == 0) {
        alloc_mode(cap, roots, n);
        fflush(stdout);
        rts_pop_roots(cap, roots);
        rts_unlock(cap);
        hs_exit();
        printf("writer calls: init %d, write %d, flush %d, stop %d\n", n_init, n_write, n_flush,
               n_stop);
        return 0;
    } else if (strcmp(mode, "flush") == 0) {
        /* The flusher thread must hand the event to the writer while we sleep. */
        int before = n_write;
        rts_traceEvent(cap, "before the pause");
        struct timespec pause = {.tv_sec = 0, .tv_nsec = 300 * 1000 * 1000};
        nanosleep(&pause, NULL);
        printf("written during the pause: %s\n", n_write > before ? "yes" : "no");
    } else if (strcmp(mode, "suspend") == 0) {
        /* A safe foreign call and a yield: STOP_THREAD with their statuses. */
        alloc_mode(cap, roots, 1000);
        void *token = rts_suspend(cap);
        cap = rts_resume(token);
        rts_yield(cap);
    } else if (strcmp(mode, "objects") == 0) {
        objects_mode(cap, roots);
    } else if (strcmp(mode, "threads") == 0) {
        rts_unlock(cap);
        for (long i = 0; i < n; i++) {
            pthread_t t;
            if (pthread_create(&t, NULL, short_thread, NULL) != 0 || pthread_join(t, NULL) != 0) {
                fprintf(stderr, "trace_prog: pthread_create failed\n");
                return 2;
            }
        }
        cap = rts_lock();
    } else if (strcmp(mode, "start") == 0) {
        printf("status before: %d\n", (int)eventLogStatus());
        printf("start: %d\n", (int)startEventLogging(&FileEventLogWriter));
        printf("start again: %d\n", (int)startEventLogging(&FileEventLogWriter));
        printf("status: %d\n", (int)eventLogStatus());
        alloc_mode(cap, roots, n);
        endEventLogging();
        printf("status after: %d\n", (int)eventLogStatus());
        alloc_mode(cap, roots, n);
    } else if (strcmp(mode, "heap-overflow") == 0) {
        for (;;)
            cons(cap, roots, 0);
    } else if (strcmp(mode, "stack-overflow") == 0) {
        alloc_mode(cap, roots, 300000);
        for (;;)
            rts_push_roots(cap, 64);
    } else if (strcmp(mode, "exit") == 0) {
        alloc_mode(cap, roots, 100000);
        fflush(stdout);
        shutdownHaskellAndExit((int)n, 0);
    } else if (strcmp(mode, "segv") == 0) {
        alloc_mode(cap, roots, 1000);
        fflush(stdout);
        trace_prog_crash_here(null_ptr);
    } else if (strcmp(mode, "fpe") == 0) {
        fflush(stdout);
        raise(SIGFPE);
    } else if (strcmp(mode, "barf") == 0) {
        cons(cap, roots, 0);
        StgClosure *c = roots[0];
        static const StgInfoTable bad = {.type = 999};
        c->info = &bad;
        performGC();
    } else {
        fprintf(stderr, "trace_prog: unknown mode '%s'\n", mode);
        return 2;
    }
    fflush(stdout);
    rts_pop_roots(cap, roots);
    rts_unlock(cap);
    hs_exit();
    return 0;
}
