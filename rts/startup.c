/*
 * Start-up and shut-down: hs_init_ghc, hs_exit and the calls that collect
 * on demand.
 *
 * Initialisation is counted: nested hs_init calls only count (their config
 * is ignored, as GHC's), and only the hs_exit that brings the count back to
 * zero shuts down. A runtime that has shut down cannot start again.
 */
#include "startup.h"

#include <stdio.h>
#include <stdlib.h>

#include "Rts.h"
#include "capability.h"
#include "cstack.h"
#include "eval.h"
#include "flags/flags.h"
#include "hooks.h"
#include "messages.h"
#include "os/os_mem.h"
#include "sm/gc.h"
#include "sm/nonmoving.h"
#include "sm/statics.h"
#include "sm/storage.h"
#include "sm/trigger.h"
#include "sm/weak.h"
#include "stable.h"
#include "stats/stats.h"
#include "threads.h"
#include "timer.h"
#include "trace/trace.h"

/* The ABI check's symbol (rts/Config.h): what objects compiled against these headers refer to. */
const int HSRTS_ABI_SYMBOL(HSRTS_ABI_VERSION) = HSRTS_ABI_VERSION;

static int init_count;
static bool shut_down;
static bool running;

bool startup_running(void)
{
    return running;
}

bool startup_shut_down(void)
{
    return shut_down;
}

void startup_not_running(const char *call)
{
    msg_fatal(1, "%s: the runtime is not running (call hs_init first)", call);
}

/* Whatever way the process ends (heap overflow, a fatal error), report. */
static void on_fatal_exit(int code)
{
    (void)code;
    if (running) {
        stats_report();
        trace_fatal_exit();
    }
}

void hs_init_ghc(int *argc, char **argv[], RtsConfig config)
{
    if (shut_down)
        msg_fatal(1,
                  "hs_init_ghc: reinitializing the RTS after shutdown is not currently supported");
    if (init_count++ > 0)
        return;
    stats_init_start();
    rts_config = config;
    os_mem_init_fault_injection();

    /* Also names the program for messages; NULL argc/argv mean "<unknown>". */
    flags_setup(argc, argv, &rts_config);

    stats_init();
    cap_init();
    /* Before cstack_init: its stack-overflow handler must see a fault first (Note [Crash
     * handlers]). */
    trace_init();
    cstack_init();
    sm_init();
    eval_init();
    threads_init();
    stable_init();
    weak_init();
    statics_init(rts_config.keep_cafs);
    running = true;
    msg_set_exit_hook(on_fatal_exit);
    timer_start();
    stats_init_end();
}

void hs_init(int *argc, char **argv[])
{
    hs_init_ghc(argc, argv, defaultRtsConfig);
}

void hs_init_with_rtsopts(int *argc, char **argv[])
{
    RtsConfig config = defaultRtsConfig;
    config.rts_opts_enabled = RtsOptsAll;
    hs_init_ghc(argc, argv, config);
}

/* Run f with a capability: the caller's own, or one taken for the call. */
static void with_cap(void (*f)(Capability *cap))
{
    Capability *cap = cap_mine();
    if (cap) {
        f(cap);
        return;
    }
    cap = rts_lock();
    f(cap);
    rts_unlock(cap);
}

static void major_gc(Capability *cap)
{
    gc_collect(cap, true, GC_REASON_FORCED);
}
static void some_gc(Capability *cap)
{
    gc_collect(cap, false, GC_REASON_FORCED);
}
static void final_gc(Capability *cap)
{
    gc_collect(cap, true, GC_REASON_EXIT);
}

/* The last hs_exit, or shutdownHaskellAndExit: shut everything down. */
static void shut_down_runtime(void)
{
    /* The timer may be collecting: it needs every capability, ours too. */
    Capability *held = cap_mine();
    void *token = held ? rts_suspend(held) : NULL;
    timer_stop();
    nm_wait_mark_dry(); /* the exit's collection is then short (gc.c) */
    if (token)
        rts_resume(token);
    stats_exit_start();
    if (rts_config.onExitHook)
        rts_config.onExitHook();
    trigger_shutting_down();
    with_cap(final_gc);
    nm_wait_sweep_at_exit(); /* its CONC_SWEEP_END and census reach the log */
    weak_run_all_at_exit();
    stats_exit_end();
    stats_report();
    threads_finished_mine(); /* the thread that shuts down ends here */
    trace_exit();

    msg_set_exit_hook(NULL);
    running = false;
    shut_down = true;
    Capability *cap = cap_mine();
    if (cap)
        rts_unlock(cap);
    statics_exit();
    weak_exit();
    stable_exit();
    sm_exit();
    threads_exit();
    cstack_exit();
    cap_exit();
    stats_exit();
    flags_free();
}

void hs_exit(void)
{
    if (!running && !shut_down)
        msg_fatal(1, "hs_exit: the runtime is not initialised (hs_exit without hs_init)");
    if (init_count <= 0) {
        msg_error("warning: too many hs_exit()s");
        return;
    }
    if (init_count == 1 && cstack_mine() && cstack_mine()->running)
        msg_fatal(1, "hs_exit: called from inside an evaluation; entry code that ends the "
                     "program calls shutdownHaskellAndExit");
    if (--init_count > 0)
        return;
    shut_down_runtime();
}

void hs_exit_nowait(void)
{
    hs_exit();
}

void shutdownHaskellAndExit(int code, int fastExit)
{
    if (!fastExit && running) {
        /* The whole program is ending: the init count no longer matters. */
        init_count = 0;
        shut_down_runtime();
    }
    msg_set_exit_hook(NULL); /* a fast exit reports nothing */
    cstack_exit_process(code);
}

void hs_thread_done(void)
{
    if (!running)
        return;
    if (cap_mine())
        msg_fatal(1,
                  "hs_thread_done: this thread still holds a capability (call rts_unlock first)");
    threads_forget_mine();
    cstack_forget_mine();
}

void hs_perform_gc(void)
{
    startup_require_running("hs_perform_gc");
    with_cap(major_gc);
}

void performGC(void)
{
    startup_require_running("performGC");
    with_cap(some_gc);
}

void performMajorGC(void)
{
    startup_require_running("performMajorGC");
    with_cap(major_gc);
}

int rts_isThreaded(void)
{
#ifdef THREADED_RTS
    return 1;
#else
    return 0;
#endif
}

int rts_isDebugged(void)
{
#ifdef DEBUG
    return 1;
#else
    return 0;
#endif
}
