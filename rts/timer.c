/*
 * The timer thread. See timer.h.
 *
 * Note [Idle collections]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * A program that stops running (its threads blocked outside the runtime:
 * every capability free, or its thread in rts_suspend) keeps whatever its
 * last collection left: garbage in the old generation, memory that a
 * major collection would give back. GHC's answer is the idle GC, and so
 * is ours: when every capability has been free for -I seconds, the timer
 * thread takes a capability and runs one major collection (with
 * GC_REASON_IDLE, which counts as a collection not caused by growth, so
 * heap sizing returns memory: Note [Returning memory] in sm/trigger.c). It
 * does it once per idle spell: the next needs some activity first (a
 * capability taken by someone else), and -Iw seconds since the last one.
 * -I0 turns it off; -V0 turns the timer off, and with it idle collections.
 *
 * The timer also runs the collections asked for from outside a
 * capability (gc_want in sm/gc.h: the nonmoving mark thread's final
 * pause) when no capability is in use, at the first tick after the
 * request: with the program quiet, no allocation would. It runs under
 * -I0 too whenever the concurrent nonmoving collector does (-xn, threaded).
 */
#include "timer.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "capability.h"
#include "flags/flags.h"
#include "messages.h"
#include "os/os_time.h"
#include "sm/gc.h"
#include "sm/nonmoving.h"

static pthread_t timer_thread;
static bool running;
static pthread_mutex_t timer_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t timer_wake = PTHREAD_COND_INITIALIZER;
static bool stopping; /* guarded by timer_lock */
static uint64_t idle_gcs;

static void run_idle_gc(Capability *cap)
{
    gc_collect(cap, true, GC_REASON_IDLE);
    __atomic_fetch_add(&idle_gcs, 1, __ATOMIC_RELAXED);
}

/*
 * Run f holding a capability if the world is still as idle as `activity`
 * saw it; false if someone took a capability meanwhile (for a gc_want
 * request, that capability's next nursery block runs it).
 */
static bool with_idle_capability(uint64_t activity, void (*f)(Capability *))
{
    Capability *cap = cap_lock_if_idle(activity);
    if (cap == NULL)
        return false;
    f(cap);
    rts_unlock(cap);
    return true;
}

static bool idle_gc_on(void)
{
    return rts_flags.gc.do_idle_gc && rts_flags.gc.idle_gc_delay > 0;
}

static void *timer_main(void *arg)
{
    (void)arg;
    bool idle_gc = idle_gc_on();
    int64_t tick_ns = (int64_t)(rts_flags.misc.tick_interval * 1e9);
    int64_t idle_ns = (int64_t)(rts_flags.gc.idle_gc_delay * 1e9);
    int64_t every_ns = (int64_t)(rts_flags.gc.idle_gc_interval * 1e9);
    uint64_t last_activity = 0;
    int64_t idle_since = os_time_monotonic_ns();
    int64_t last_idle_gc = 0;
    bool done_this_spell = false;

    pthread_mutex_lock(&timer_lock);
    while (!stopping) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += tick_ns / 1000000000;
        ts.tv_nsec += tick_ns % 1000000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        int rc = pthread_cond_timedwait(&timer_wake, &timer_lock, &ts);
        if (stopping)
            break;
        if (rc != ETIMEDOUT && rc != 0)
            continue;
        pthread_mutex_unlock(&timer_lock);

        uint64_t activity;
        bool idle = cap_world_is_idle(&activity);
        int64_t now = os_time_monotonic_ns();
        if (idle && gc_wanted() && with_idle_capability(activity, gc_run_wanted) &&
            activity == last_activity) {
            /* Our own turn with a capability is not activity. */
            cap_world_is_idle(&last_activity);
            activity = last_activity;
        }
        if (activity != last_activity || !idle) {
            last_activity = activity;
            idle_since = now;
            done_this_spell = false;
        } else if (idle_gc && !done_this_spell && now - idle_since >= idle_ns &&
                   (last_idle_gc == 0 || now - last_idle_gc >= every_ns) &&
                   with_idle_capability(activity, run_idle_gc)) {
            last_idle_gc = os_time_monotonic_ns();
            done_this_spell = true;
            /* Our own turn with a capability is not activity. */
            cap_world_is_idle(&last_activity);
        }
        pthread_mutex_lock(&timer_lock);
    }
    pthread_mutex_unlock(&timer_lock);
    return NULL;
}

void timer_start(void)
{
    running = false;
    stopping = false;
    idle_gcs = 0;
    if (rts_flags.misc.tick_interval <= 0 || !(idle_gc_on() || nm_concurrent()))
        return;
    int rc = pthread_create(&timer_thread, NULL, timer_main, NULL);
    if (rc != 0) {
        errno = rc;
        msg_sys_error("warning: cannot start the timer thread; idle collections are off");
        return;
    }
    running = true;
}

void timer_stop(void)
{
    if (!running)
        return;
    pthread_mutex_lock(&timer_lock);
    stopping = true;
    pthread_cond_broadcast(&timer_wake);
    pthread_mutex_unlock(&timer_lock);
    pthread_join(timer_thread, NULL);
    running = false;
}

uint64_t timer_idle_gcs(void)
{
    return __atomic_load_n(&idle_gcs, __ATOMIC_RELAXED);
}
