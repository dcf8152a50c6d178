/*
 * Capabilities. See capability.h and Note [Stopping the world].
 */
#include "capability.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "flags/flags.h"
#include "hooks.h"
#include "messages.h"
#include "os/os_time.h"
#include "sm/gc.h"
#include "sm/numa.h"
#include "sm/storage.h"
#include "startup.h"
#include "threads.h"
#include "trace/trace.h"

Capability **capabilities;
uint32_t n_capabilities;
uint32_t enabled_capabilities;

/*
 * caps_lock guards every capability's ownership fields (in_use, owner,
 * n_waiting, acquisitions, stopped) and the sync state below;
 * caps_changed is broadcast whenever one of them changes in a way a
 * waiter may be waiting for (a capability released or stopped, a sync
 * over).
 */
static pthread_mutex_t caps_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t caps_changed = PTHREAD_COND_INITIALIZER;
static uint32_t caps_room;     /* capacity of `capabilities` */
static uint32_t n_waiting_any; /* threads waiting in rts_lock for any capability */
/* rts_lock's queue: Note [rts_lock is first come, first served]. */
static uint64_t next_ticket, now_serving;

/* The sync state: see Note [Stopping the world]. */
static volatile int sync_pending; /* read without the lock by safepoints */
static Capability *sync_leader;
static uint64_t activity; /* acquisitions of any capability, for the idle timer */

static __thread Capability *my_cap;
static __thread Capability *my_last_cap;   /* the capability this thread held last */
static __thread int my_preferred_cap = -1; /* rts_setInCallCapability */
#ifdef THREADED_RTS
static __thread bool my_affinity_set;
#endif

/* A suspended thread (rts_suspend): the capability it gave up; the token is this variable's
 * address. */
static __thread Capability *my_suspended_cap;

/*
 * A thread that ends while it holds a capability would keep it for ever
 * (and every later collection would wait for it): its value under this key
 * is the capability it holds, and the key's destructor reports it.
 */
static pthread_key_t holder_key;
static pthread_once_t holder_key_once = PTHREAD_ONCE_INIT;

static void thread_ended_holding(void *value)
{
    Capability *cap = value;
    msg_fatal(1, "a thread ended while it held capability %u (call rts_unlock before it ends)",
              cap->no);
}

static void make_holder_key(void)
{
    pthread_key_create(&holder_key, thread_ended_holding);
}

/* A capability on its own cache lines: HsRegs (hp, hplim, barrier) on the first. */
static Capability *new_cap(uint32_t no)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, sizeof(Capability)) != 0)
        hooks_os_alloc_failed(sizeof(Capability), "capability");
    memset(p, 0, sizeof(Capability));
    Capability *cap = p;
    cap->no = no;
    cap->node = numa_node_of_cap(no);
    cap->eval_mark = (char *)UINTPTR_MAX;
    return cap;
}

static uint32_t initial_capabilities(void)
{
#ifdef THREADED_RTS
    uint32_t n = rts_flags.par.n_capabilities;
    return n < 1 ? 1 : n;
#else
    return 1;
#endif
}

void cap_init(void)
{
    pthread_once(&holder_key_once, make_holder_key);
    numa_init();
    n_capabilities = enabled_capabilities = initial_capabilities();
    caps_room = n_capabilities;
    capabilities = hooks_calloc(caps_room, sizeof(Capability *), "capabilities");
    for (uint32_t i = 0; i < n_capabilities; i++)
        capabilities[i] = new_cap(i);
    sync_pending = 0;
    sync_leader = NULL;
    n_waiting_any = 0;
    next_ticket = now_serving = 0;
}

/*
 * The capabilities outlive the runtime: a program may still hold a
 * Capability * after the last hs_exit, and every entry point must be able
 * to look at it to say "the runtime is not running" rather than read freed
 * memory. They stay reachable from here (the runtime cannot start again).
 */
static Capability **volatile retired; /* volatile: written only, yet it must stay (a root) */
static uint32_t n_retired;

void cap_exit(void)
{
    for (uint32_t i = 0; i < n_capabilities; i++) {
        Capability *cap = capabilities[i];
        cap->in_use = false;
        cap->cstack = NULL;
        cap->eval_mark = (char *)UINTPTR_MAX;
    }
    retired = capabilities;
    n_retired = n_capabilities;
    capabilities = NULL;
    n_capabilities = enabled_capabilities = 0;
    my_cap = my_last_cap = NULL;
    my_suspended_cap = NULL;
}

Capability *cap_mine(void)
{
    return my_cap;
}

/* --- taking and giving back ------------------------------------------------------- */

/* -qa: the thread holding capability c runs on CPU c (mod the CPUs it may use). */
static void pin_to(Capability *cap)
{
#ifdef THREADED_RTS
    if (!rts_flags.par.set_affinity || my_affinity_set)
        return;
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return;
    int n = CPU_COUNT(&allowed);
    if (n <= 0)
        return;
    int want = (int)(cap->no % (uint32_t)n), seen = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &allowed))
            continue;
        if (seen++ == want) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            if (sched_setaffinity(0, sizeof one, &one) != 0)
                msg_sys_error("warning: -qa: cannot pin capability %u's thread to CPU %d", cap->no,
                              cpu);
            my_affinity_set = true;
            return;
        }
    }
#else
    (void)cap;
#endif
}

/* Under caps_lock: make cap the calling thread's. */
static void take_locked(Capability *cap)
{
    cap->in_use = true;
    cap->owner = pthread_self();
    cap->acquisitions++;
    activity++;
    my_cap = my_last_cap = cap;
    pthread_setspecific(holder_key, cap);
}

/* Under caps_lock: a free enabled capability, the thread's preferred one first. */
static Capability *find_free_locked(void)
{
    if (my_preferred_cap >= 0) {
        Capability *c = capabilities[(uint32_t)my_preferred_cap % enabled_capabilities];
        return c->in_use ? NULL : c; /* a thread with a preference waits for it */
    }
    if (my_last_cap && my_last_cap->no < enabled_capabilities && !my_last_cap->in_use)
        return my_last_cap;
    for (uint32_t i = 0; i < enabled_capabilities; i++)
        if (!capabilities[i]->in_use)
            return capabilities[i];
    return NULL;
}

/*
 * Note [rts_lock is first come, first served]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Threads waiting in rts_lock for any capability take a ticket and are
 * served in ticket order: a free capability goes to the oldest waiter. A
 * thread that unlocks and locks again at once (a loop of calls into the
 * runtime, or one that collects often and so wakes every waiter each
 * time) therefore queues behind the threads already waiting, instead of
 * winning every race for the lock it just dropped and starving them.
 * Threads with a preferred capability (rts_setInCallCapability) wait for
 * that one and take no ticket, so they never hold up the queue; the
 * capability rule's waits (acquire_same) are not queued either: those
 * threads own their capability.
 */

/* Take any capability (rts_lock): wait for our turn, a free one, and a running world. */
static Capability *acquire_any(void)
{
    pthread_mutex_lock(&caps_lock);
    Capability *cap;
    if (my_preferred_cap >= 0) {
        /* A waiter for one capability: counted there, so a yield on it gives it a turn. */
        Capability *want = capabilities[(uint32_t)my_preferred_cap % enabled_capabilities];
        want->n_waiting++;
        while (sync_pending || (cap = find_free_locked()) == NULL)
            pthread_cond_wait(&caps_changed, &caps_lock);
        want->n_waiting--;
    } else {
        uint64_t ticket = next_ticket++;
        n_waiting_any++;
        while (sync_pending || ticket != now_serving || (cap = find_free_locked()) == NULL)
            pthread_cond_wait(&caps_changed, &caps_lock);
        n_waiting_any--;
        now_serving++;
        pthread_cond_broadcast(&caps_changed); /* the next ticket may find another one free */
    }
    take_locked(cap);
    pthread_mutex_unlock(&caps_lock);
    pin_to(cap);
    return cap;
}

/* Take cap itself (the capability rule): wait while another thread has it or the world is stopped.
 */
static void acquire_same(Capability *cap)
{
    pthread_mutex_lock(&caps_lock);
    cap->n_waiting++;
    while (sync_pending || cap->in_use)
        pthread_cond_wait(&caps_changed, &caps_lock);
    cap->n_waiting--;
    take_locked(cap);
    pthread_mutex_unlock(&caps_lock);
}

static void release(Capability *cap)
{
    my_cap = NULL;
    pthread_setspecific(holder_key, NULL);
    pthread_mutex_lock(&caps_lock);
    cap->in_use = false;
    pthread_cond_broadcast(&caps_changed);
    pthread_mutex_unlock(&caps_lock);
}

Capability *rts_lock(void)
{
    if (!startup_running())
        msg_fatal(1, "rts_lock: the runtime is not running (call hs_init first)");
    if (my_cap)
        msg_fatal(1, "rts_lock: this thread already holds capability %u", my_cap->no);
    if (my_suspended_cap)
        msg_fatal(1, "rts_lock: this thread is suspended in a foreign call (call rts_resume)");
    Capability *cap = acquire_any();
    threads_attach(cap);
    trace_thread_run(cap, cap->r.tso);
    return cap;
}

void cap_misuse(const char *call, const Capability *cap)
{
    if (!startup_running())
        msg_fatal(1, "%s: the runtime is not running (call hs_init first)", call);
    if (cap && cap->no < n_capabilities && capabilities[cap->no] == cap)
        msg_fatal(1, "%s: this thread does not hold capability %u", call, cap->no);
    msg_fatal(1, "%s: this thread does not hold that capability (%p)", call, (const void *)cap);
}

void rts_unlock(Capability *cap)
{
    if (cap == NULL || cap != my_cap)
        cap_misuse("rts_unlock", cap);
    trace_thread_stop(cap, cap->r.tso, TRACE_STOP_YIELDING);
    threads_detach(cap);
    release(cap);
}

void rts_setInCallCapability(int preferred_capability, int affinity)
{
    startup_require_running("rts_setInCallCapability");
    if (preferred_capability < 0)
        msg_fatal(1, "rts_setInCallCapability: capability %d does not exist", preferred_capability);
    my_preferred_cap = preferred_capability;
#ifdef THREADED_RTS
    if (affinity) {
        cpu_set_t allowed;
        if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) > 0) {
            int want = preferred_capability % CPU_COUNT(&allowed), seen = 0;
            for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
                if (CPU_ISSET(cpu, &allowed) && seen++ == want) {
                    cpu_set_t one;
                    CPU_ZERO(&one);
                    CPU_SET(cpu, &one);
                    if (sched_setaffinity(0, sizeof one, &one) != 0)
                        msg_sys_error("warning: rts_setInCallCapability: cannot set affinity");
                    break;
                }
        }
    }
#else
    (void)affinity;
#endif
}

/* --- safepoints and safe foreign calls (include/rts/Safepoints.h) ------------------ */

void rts_yield(Capability *cap)
{
    if (cap == NULL || cap != my_cap)
        cap_misuse("rts_yield", cap);
    if (__atomic_load_n(&sync_pending, __ATOMIC_ACQUIRE)) {
        cap_safepoint(cap);
        return;
    }
    pthread_mutex_lock(&caps_lock);
    bool others = cap->n_waiting > 0 || n_waiting_any > 0;
    if (!others) {
        pthread_mutex_unlock(&caps_lock);
        return;
    }
    /* Give the waiters a turn: wait until one has had the capability, then take it back. */
    trace_thread_stop(cap, cap->r.tso, TRACE_STOP_YIELDING);
    threads_detach(cap);
    my_cap = NULL;
    pthread_setspecific(holder_key, NULL);
    uint64_t seen = cap->acquisitions;
    cap->in_use = false;
    pthread_cond_broadcast(&caps_changed);
    cap->n_waiting++;
    /* Waiters for this capability: the others counted in n_waiting (we are one of them). */
    while (sync_pending || cap->in_use ||
           (cap->acquisitions == seen && (n_waiting_any > 0 || cap->n_waiting > 1)))
        pthread_cond_wait(&caps_changed, &caps_lock);
    cap->n_waiting--;
    take_locked(cap);
    pthread_mutex_unlock(&caps_lock);
    threads_attach(cap);
    trace_thread_run(cap, cap->r.tso);
}

void *rts_suspend(Capability *cap)
{
    if (cap == NULL || cap != my_cap)
        cap_misuse("rts_suspend", cap);
    trace_thread_stop(cap, cap->r.tso, TRACE_STOP_FOREIGN_CALL);
    threads_detach(cap);
    my_suspended_cap = cap;
    release(cap);
    return &my_suspended_cap;
}

Capability *rts_resume(void *token)
{
    if (!startup_running())
        msg_fatal(1, "rts_resume: the runtime is not running (call hs_init first)");
    if (my_cap)
        msg_fatal(1, "rts_resume: this thread holds capability %u; it was not suspended",
                  my_cap->no);
    if (token != (void *)&my_suspended_cap || my_suspended_cap == NULL)
        msg_fatal(1, "rts_resume: %p is not the token of this thread's rts_suspend", token);
    Capability *cap = my_suspended_cap;
    my_suspended_cap = NULL;
    acquire_same(cap); /* the same capability: see the capability rule in rts/Safepoints.h */
    threads_attach(cap);
    trace_thread_run(cap, cap->r.tso);
    return cap;
}

void *suspendThread(Capability *cap, bool interruptible)
{
    (void)interruptible;
    return rts_suspend(cap);
}

Capability *resumeThread(void *token)
{
    return rts_resume(token);
}

/* --- stopping the world ------------------------------------------------------------------ */

/*
 * Note [Stopping the world]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A collection needs every other capability stopped at a safepoint, or
 * free (nobody holds it, or its thread is in rts_suspend: it will not
 * touch the heap until it gets the capability back). The thread that
 * wants to collect (the leader) sets sync_pending, then asks each
 * capability in use to stop by storing NULL in its hplim: its thread's
 * next allocation that leaves the fast path, or its next HS_SAFEPOINT,
 * comes into the runtime, sees sync_pending and parks (cap->stopped)
 * until the leader restarts the world. While sync_pending is set nobody
 * can take a capability.
 *
 * The owner of a capability also writes hplim (moving to its next
 * nursery block); the two writes race. Both sides use sequentially
 * consistent operations in the same order, so a request is never lost:
 * the leader stores sync_pending, then hplim = NULL; the owner stores its
 * new hplim, then reads sync_pending (cap_safepoint_after_refill). If the
 * owner read 0, its store came first in the single order of those
 * operations, and the leader's NULL lands after it.
 *
 * Two threads may want to collect at once: the second one to take
 * caps_lock finds sync_pending set, parks like any other capability and,
 * when the world restarts, returns "someone else collected" (its caller
 * retries the allocation that wanted the collection).
 *
 * --long-gc-sync: the leader waits in slices; once the wait passes the
 * limit it calls RtsConfig.longGCSync for every capability still running,
 * and longGCSyncEnd with the whole wait when the world has stopped.
 */

/* Under caps_lock: park cap at a safepoint until the world restarts. */
static void park_locked(Capability *cap)
{
    cap->stopped = true;
    pthread_cond_broadcast(&caps_changed);
    while (sync_pending)
        pthread_cond_wait(&caps_changed, &caps_lock);
    cap->stopped = false;
}

void cap_safepoint(Capability *cap)
{
    if (!__atomic_load_n(&sync_pending, __ATOMIC_ACQUIRE))
        return;
    pthread_mutex_lock(&caps_lock);
    if (sync_pending && sync_leader != cap)
        park_locked(cap);
    pthread_mutex_unlock(&caps_lock);
    /* A stop without a collection (setNumCapabilities) leaves the request in hplim. */
    sm_restore_hplim(cap);
}

bool cap_sync_pending(void)
{
    return __atomic_load_n(&sync_pending, __ATOMIC_ACQUIRE) != 0;
}

void cap_safepoint_after_refill(Capability *cap)
{
    /* After the owner's sequentially consistent store of hplim (nursery.c). */
    if (__atomic_load_n(&sync_pending, __ATOMIC_SEQ_CST))
        cap_safepoint(cap);
}

/* Under caps_lock: is every capability but the leader stopped or free? */
static bool all_stopped_locked(const Capability *leader)
{
    for (uint32_t i = 0; i < n_capabilities; i++) {
        const Capability *c = capabilities[i];
        if (c != leader && c->in_use && !c->stopped)
            return false;
    }
    return true;
}

static void timespec_after_ns(struct timespec *ts, int64_t ns)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += ns / 1000000000;
    ts->tv_nsec += ns % 1000000000;
    if (ts->tv_nsec >= 1000000000) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000;
    }
}

bool cap_stop_the_world(Capability *leader, int64_t *sync_ns)
{
    int64_t start = os_time_monotonic_ns();
    pthread_mutex_lock(&caps_lock);
    if (sync_pending) {
        /* Someone else is collecting: stop like everyone else, and let them. */
        park_locked(leader);
        pthread_mutex_unlock(&caps_lock);
        *sync_ns = 0;
        return false;
    }
    __atomic_store_n(&sync_pending, 1, __ATOMIC_SEQ_CST);
    sync_leader = leader;
    for (uint32_t i = 0; i < n_capabilities; i++) {
        Capability *c = capabilities[i];
        if (c != leader && c->in_use)
            __atomic_store_n(&c->r.hplim, NULL, __ATOMIC_SEQ_CST);
    }
    int64_t limit = (int64_t)(rts_flags.gc.long_gc_sync * 1e9);
    bool reported = false;
    while (!all_stopped_locked(leader)) {
        if (limit <= 0) {
            pthread_cond_wait(&caps_changed, &caps_lock);
            continue;
        }
        struct timespec ts;
        timespec_after_ns(&ts, limit);
        pthread_cond_timedwait(&caps_changed, &caps_lock, &ts);
        int64_t waited = os_time_monotonic_ns() - start;
        if (waited >= limit && !all_stopped_locked(leader)) {
            void (*hook)(uint32_t, Time) =
                rts_config.longGCSync ? rts_config.longGCSync : LongGCSync;
            for (uint32_t i = 0; i < n_capabilities; i++) {
                Capability *c = capabilities[i];
                if (c != leader && c->in_use && !c->stopped)
                    hook(c->no, waited);
            }
            reported = true;
        }
    }
    pthread_mutex_unlock(&caps_lock);
    *sync_ns = os_time_monotonic_ns() - start;
    if (reported) {
        void (*end)(Time) = rts_config.longGCSyncEnd ? rts_config.longGCSyncEnd : LongGCSyncEnd;
        end(*sync_ns);
    }
    return true;
}

void cap_restart_the_world(Capability *leader)
{
    (void)leader;
    pthread_mutex_lock(&caps_lock);
    __atomic_store_n(&sync_pending, 0, __ATOMIC_SEQ_CST);
    sync_leader = NULL;
    pthread_cond_broadcast(&caps_changed);
    pthread_mutex_unlock(&caps_lock);
}

Capability *cap_lock_if_idle(uint64_t activity_seen)
{
    if (!startup_running() || my_cap)
        return NULL;
    pthread_mutex_lock(&caps_lock);
    bool idle = !sync_pending && activity == activity_seen;
    for (uint32_t i = 0; idle && i < n_capabilities; i++)
        if (capabilities[i]->in_use)
            idle = false;
    Capability *cap = NULL;
    if (idle) {
        cap = capabilities[0];
        take_locked(cap);
    }
    pthread_mutex_unlock(&caps_lock);
    if (cap)
        threads_attach(cap);
    return cap;
}

bool cap_world_is_idle(uint64_t *activity_out)
{
    pthread_mutex_lock(&caps_lock);
    bool idle = !sync_pending;
    for (uint32_t i = 0; idle && i < n_capabilities; i++)
        if (capabilities[i]->in_use)
            idle = false;
    *activity_out = activity;
    pthread_mutex_unlock(&caps_lock);
    return idle;
}

/* --- how many ------------------------------------------------------------------------------ */

uint32_t getNumCapabilities(void)
{
    startup_require_running("getNumCapabilities");
    return enabled_capabilities;
}

void setNumCapabilities(uint32_t n)
{
    startup_require_running("setNumCapabilities");
#ifndef THREADED_RTS
    if (n != 1)
        msg_fatal(1,
                  "setNumCapabilities: %u capabilities need the threaded runtime "
                  "(libhsrts_thr); this one has 1",
                  n);
    return;
#else
    if (n == 0)
        msg_fatal(1, "setNumCapabilities: the number of capabilities must be at least 1");
    if (n > MAX_N_CAPABILITIES)
        msg_fatal(1, "setNumCapabilities: %u capabilities; at most %u are supported", n,
                  MAX_N_CAPABILITIES);
    if (n == enabled_capabilities)
        return;
    /*
     * More capabilities than ever before are made with the world stopped,
     * so that every per-capability table can grow; fewer only disables the
     * top ones (a thread holding one keeps it until it lets it go).
     */
    Capability *cap = cap_mine();
    bool mine = cap != NULL;
    if (!mine)
        cap = rts_lock();
    if (n > n_capabilities) {
        int64_t sync_ns;
        while (!cap_stop_the_world(cap, &sync_ns))
            ;
        pthread_mutex_lock(&caps_lock);
        if (n > caps_room) {
            capabilities = hooks_realloc(capabilities, n * sizeof(Capability *), "capabilities");
            caps_room = n;
        }
        for (uint32_t i = n_capabilities; i < n; i++)
            capabilities[i] = new_cap(i);
        uint32_t old = n_capabilities;
        n_capabilities = n;
        pthread_mutex_unlock(&caps_lock);
        sm_add_capabilities(old, n);
        /* A collection empties the nurseries, so the new ones can be laid out. */
        gc_collect_stopped(cap, true, GC_REASON_FORCED, sync_ns);
        pthread_mutex_lock(&caps_lock);
        enabled_capabilities = n;
        pthread_mutex_unlock(&caps_lock);
        cap_restart_the_world(cap);
    } else {
        pthread_mutex_lock(&caps_lock);
        enabled_capabilities = n;
        pthread_cond_broadcast(&caps_changed);
        pthread_mutex_unlock(&caps_lock);
    }
    if (!mine)
        rts_unlock(cap);
#endif
}

uint32_t cap_n_waiting_any(void)
{
    pthread_mutex_lock(&caps_lock);
    uint32_t n = n_waiting_any;
    pthread_mutex_unlock(&caps_lock);
    return n;
}

void cap_check(const Capability *cap)
{
    if (cap->r.stack && (cap->r.stack->sp < cap->r.stack->stack ||
                         cap->r.stack->sp > cap->r.stack->stack + cap->r.stack->stack_size))
        msg_barf("cap_check: capability %u has sp outside its stack chunk", cap->no);
    StgPtr lim = __atomic_load_n(&cap->r.hplim, __ATOMIC_RELAXED);
    if (cap->current_nursery && lim != NULL &&
        (cap->r.hp < cap->current_nursery->start || cap->r.hp > lim))
        msg_barf("cap_check: capability %u has Hp outside its nursery block", cap->no);
}
