/*
 * Evaluation stacks. See Note [Evaluation stacks] in cstack.h.
 */
#include "cstack.h"

#include <pthread.h>
#include <stdlib.h>

#include "flags/flags.h"
#include "hooks.h"
#include "messages.h"
#include "os/os_mem.h"
#include "threads.h"

static __thread cstack *my_cstack;

/* Every stack, so that hs_exit can release them. */
static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static cstack *all_stacks;

/* A fault in the guard pages (or the headroom) of our stack is a stack overflow. */
static void on_fault(void *addr)
{
    cstack *cs = my_cstack;
    if (cs == NULL || !cs->running)
        return;
    char *a = addr;
    if (a >= cs->os.lo - cs->os.guard && a < cs->limit) {
        Capability *cap = cap_mine();
        if (cap)
            threads_stack_overflow(cap);
        StackOverflowHook(0);
        msg_exit(EXIT_STACKOVERFLOW);
    }
}

typedef struct {
    void (*fn)(int);
    int code;
} ExitCall;

static void exit_call(void *p)
{
    ExitCall *e = p;
    e->fn(e->code);
}

/*
 * The process ends while this thread runs on its evaluation stack: end it
 * from the thread's own stack, where exit handlers (and sanitizers' leak
 * checks) expect to run.
 */
static void exit_off_stack(void (*fn)(int), int code)
{
    cstack *cs = my_cstack;
    if (cs == NULL || !cs->running)
        return;
    ExitCall e = {fn, code};
    os_leave_stack(&cs->os, exit_call, &e);
}

void cstack_init(void)
{
    if (rts_flags.misc.install_signal_handlers)
        os_fault_install(on_fault);
    msg_set_exit_elsewhere(exit_off_stack);
}

void cstack_exit(void)
{
    pthread_mutex_lock(&list_lock);
    for (cstack *cs = all_stacks, *next; cs; cs = next) {
        next = cs->next;
        /* A stack still in use (hs_exit called from entry code) goes with the process. */
        if (cs->running)
            continue;
        if (cs->prev)
            cs->prev->next = cs->next;
        else
            all_stacks = cs->next;
        if (cs->next)
            cs->next->prev = cs->prev;
        if (cs == my_cstack)
            my_cstack = NULL;
        os_stack_release(&cs->os);
        free(cs);
    }
    pthread_mutex_unlock(&list_lock);
    os_fault_uninstall();
}

void cstack_exit_process(int code)
{
    msg_set_exit_elsewhere(exit_off_stack);
    msg_exit(code);
}

cstack *cstack_mine(void)
{
    return my_cstack;
}

/* The evaluation budget: -K, or the machine's memory when -K is 0 (no limit). */
static size_t eval_bytes(void)
{
    uint64_t k = rts_flags.gc.max_stack_bytes;
    if (k == 0)
        k = os_physical_memory();
    if (k == 0)
        k = (uint64_t)1 << 32;
    return (size_t)k;
}

static cstack *create(void)
{
    cstack *cs = hooks_calloc(1, sizeof *cs, "evaluation stack");
    size_t want = eval_bytes() + CSTACK_HEADROOM;
    if (!os_stack_reserve(&cs->os, want, 2 * CSTACK_HEADROOM))
        hooks_os_alloc_failed((W_)want, "evaluation stack");
    /* A smaller reservation than asked for (ulimit -v, no overcommit): the limit follows it. */
    size_t usable = (size_t)(cs->os.hi - cs->os.lo) - CSTACK_HEADROOM;
    cs->limit = cs->os.hi - usable;
    cs->discard_mark = usable > CSTACK_KEEP ? cs->os.hi - CSTACK_KEEP : cs->limit;
    cs->check_mark = cs->discard_mark;
    os_fault_thread_init();
    pthread_mutex_lock(&list_lock);
    cs->next = all_stacks;
    if (all_stacks)
        all_stacks->prev = cs;
    all_stacks = cs;
    pthread_mutex_unlock(&list_lock);
    return cs;
}

void cstack_forget_mine(void)
{
    cstack *cs = my_cstack;
    if (cs == NULL)
        return;
    if (cs->running)
        msg_fatal(1, "hs_thread_done: called from inside an evaluation");
    pthread_mutex_lock(&list_lock);
    if (cs->prev)
        cs->prev->next = cs->next;
    else
        all_stacks = cs->next;
    if (cs->next)
        cs->next->prev = cs->prev;
    pthread_mutex_unlock(&list_lock);
    os_stack_release(&cs->os);
    free(cs);
    my_cstack = NULL;
    os_fault_thread_exit();
}

void *cstack_run(Capability *cap, void *(*fn)(void *), void *arg)
{
    cstack *cs = cap->cstack;
    if (cs == NULL) {
        if (my_cstack == NULL)
            my_cstack = create();
        cs = cap->cstack = my_cstack;
    }
    ASSERT(!cs->running);
    cs->running = true;
    cstack_set_mark(cap);
    void *r = os_run_on_stack(&cs->os, fn, arg);
    cs->running = false;
    /* The same capability: every call that gives it up gets it back (capability.h). */
    cstack_set_mark(cap);
    if (cs->check_mark != cs->discard_mark) {
        /* This run went deep: give the pages below the mark back. */
        os_stack_discard(cs->limit - CSTACK_HEADROOM, cs->discard_mark);
        cs->check_mark = cs->discard_mark;
    }
    return r;
}

void cstack_deep(Capability *cap)
{
    cstack *cs = cap->cstack;
    if (OS_STACK_POINTER() < cs->limit)
        threads_stack_overflow(cap);
    cs->check_mark = cs->limit;
    cstack_set_mark(cap);
}
