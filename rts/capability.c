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

void cap_init(void)
{
    /* Until the threaded way exists there is exactly one capability. */
    n_capabilities = 1;
    capabilities = hooks_calloc(n_capabilities, sizeof(Capability *), "capabilities");
    for (uint32_t i = 0; i < n_capabilities; i++) {
        Capability *cap = hooks_calloc(1, sizeof(Capability), "capability");
        cap->no = i;
        pthread_mutex_init(&cap->lock, NULL);
        pthread_cond_init(&cap->released, NULL);
        capabilities[i] = cap;
    }
}

void cap_exit(void)
{
    for (uint32_t i = 0; i < n_capabilities; i++) {
        pthread_mutex_destroy(&capabilities[i]->lock);
        pthread_cond_destroy(&capabilities[i]->released);
        free(capabilities[i]);
    }
    free(capabilities);
    capabilities = NULL;
    n_capabilities = 0;
    my_cap = NULL;
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
    Capability *cap = capabilities[0];
    pthread_mutex_lock(&cap->lock);
    while (cap->in_use)
        pthread_cond_wait(&cap->released, &cap->lock);
    cap->in_use = true;
    cap->owner = pthread_self();
    pthread_mutex_unlock(&cap->lock);
    my_cap = cap;
    threads_attach(cap);
    trace_thread_run(cap, cap->r.tso);
    return cap;
}

void rts_unlock(Capability *cap)
{
    if (cap == NULL || cap != my_cap) {
        if (cap && startup_running() && cap->no < n_capabilities && capabilities[cap->no] == cap)
            msg_fatal(1, "rts_unlock: this thread does not hold capability %u", cap->no);
        msg_fatal(1, "rts_unlock: this thread does not hold that capability (%p)", (void *)cap);
    }
    trace_thread_stop(cap, cap->r.tso);
    threads_detach(cap);
    my_cap = NULL;
    pthread_mutex_lock(&cap->lock);
    cap->in_use = false;
    pthread_cond_signal(&cap->released);
    pthread_mutex_unlock(&cap->lock);
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
