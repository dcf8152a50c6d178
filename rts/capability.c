/*
 * Capabilities. See capability.h.
 */
#include "capability.h"

#include <stdlib.h>
#include <string.h>

#include "flags/flags.h"
#include "hooks.h"
#include "messages.h"
#include "startup.h"
#include "threads.h"
#include "trace/trace.h"

Capability **capabilities;
uint32_t n_capabilities;

static __thread Capability *my_cap;

/* A suspended thread (rts_suspend): the capability it gave up; the token is this variable's
 * address. */
static __thread Capability *my_suspended_cap;

/* A capability on its own cache lines: HsRegs (hp, hplim, barrier) on the first. */
static Capability *new_cap(void)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, sizeof(Capability)) != 0)
        hooks_os_alloc_failed(sizeof(Capability), "capability");
    memset(p, 0, sizeof(Capability));
    return p;
}

void cap_init(void)
{
    /* Until the threaded way exists there is exactly one capability. */
    n_capabilities = 1;
    capabilities = hooks_calloc(n_capabilities, sizeof(Capability *), "capabilities");
    for (uint32_t i = 0; i < n_capabilities; i++) {
        Capability *cap = new_cap();
        cap->no = i;
        pthread_mutex_init(&cap->lock, NULL);
        pthread_cond_init(&cap->released, NULL);
        capabilities[i] = cap;
    }
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
    n_capabilities = 0;
    my_cap = NULL;
    my_suspended_cap = NULL;
}

/* Take cap (wait while another thread has it). */
static void acquire(Capability *cap)
{
    pthread_mutex_lock(&cap->lock);
    if (cap->in_use) {
        cap->n_waiting++;
        while (cap->in_use)
            pthread_cond_wait(&cap->released, &cap->lock);
        cap->n_waiting--;
    }
    cap->in_use = true;
    cap->owner = pthread_self();
    cap->acquisitions++;
    pthread_mutex_unlock(&cap->lock);
    my_cap = cap;
}

static void release(Capability *cap)
{
    my_cap = NULL;
    pthread_mutex_lock(&cap->lock);
    cap->in_use = false;
    pthread_cond_broadcast(&cap->released);
    pthread_mutex_unlock(&cap->lock);
}

Capability *cap_mine(void)
{
    return my_cap;
}

Capability *rts_lock(void)
{
    if (!startup_running())
        msg_fatal(1, "rts_lock: the runtime is not running (call hs_init first)");
    if (my_cap)
        msg_fatal(1, "rts_lock: this thread already holds capability %u", my_cap->no);
    if (my_suspended_cap)
        msg_fatal(1, "rts_lock: this thread is suspended in a foreign call (call rts_resume)");
    Capability *cap = capabilities[0];
    acquire(cap);
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

/* --- safepoints and safe foreign calls (include/rts/Safepoints.h) ------------------ */

void rts_yield(Capability *cap)
{
    if (cap == NULL || cap != my_cap)
        cap_misuse("rts_yield", cap);
    pthread_mutex_lock(&cap->lock);
    bool others = cap->n_waiting > 0;
    pthread_mutex_unlock(&cap->lock);
    if (!others)
        return;
    /* Give the waiters a turn: wait until one has had the capability, then take it back. */
    trace_thread_stop(cap, cap->r.tso, TRACE_STOP_YIELDING);
    threads_detach(cap);
    my_cap = NULL;
    pthread_mutex_lock(&cap->lock);
    uint64_t seen = cap->acquisitions;
    cap->in_use = false;
    pthread_cond_broadcast(&cap->released);
    cap->n_waiting++;
    while (cap->in_use || cap->acquisitions == seen)
        pthread_cond_wait(&cap->released, &cap->lock);
    cap->n_waiting--;
    cap->in_use = true;
    cap->owner = pthread_self();
    cap->acquisitions++;
    pthread_mutex_unlock(&cap->lock);
    my_cap = cap;
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
    acquire(cap); /* the same capability: see the capability rule in rts/Safepoints.h */
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

void cap_check(const Capability *cap)
{
    if (cap->r.stack && (cap->r.stack->sp < cap->r.stack->stack ||
                         cap->r.stack->sp > cap->r.stack->stack + cap->r.stack->stack_size))
        msg_barf("cap_check: capability %u has sp outside its stack chunk", cap->no);
    if (cap->current_nursery &&
        (cap->r.hp < cap->current_nursery->start || cap->r.hp > cap->r.hplim))
        msg_barf("cap_check: capability %u has Hp outside its nursery block", cap->no);
}
