/*
 * Evaluation stacks: the C stacks evaluation runs on.
 *
 * Note [Evaluation stacks]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * Entry code is C, so every nested evaluation (an entry that calls
 * rts_eval and then computes with the result) is a C call: the depth a
 * program can reach is C-stack depth. A thread that calls into hsrts may
 * have any C stack at all (8 MiB for a main thread, 64 KiB for some
 * thread pools), and running off its end is a SIGSEGV with no message.
 * So evaluation never runs on the caller's stack: the outermost rts_eval
 * or rts_apply of an OS thread switches to a stack the runtime owns, and
 * nested ones stay on it.
 *
 * Each OS thread that evaluates gets one such stack, reserved once (not
 * committed: the OS commits pages as they are first touched) with
 * `-K` bytes for evaluation plus CSTACK_HEADROOM bytes below for the code
 * that runs between two checks: entry code's own frames, libc, the
 * collector. Every rts_eval and rts_apply compares the stack pointer with
 * `check_mark`, one compare on the path that evaluates a thunk:
 *
 *   - below `limit` (hi - -K) is a stack overflow: GHC's message (the
 *     stackOverflowHook) and exit 2, as a thread passing -K on its heap
 *     stack;
 *   - the first time a run of evaluation goes below `discard_mark` (1 MiB
 *     down) it is noted, and when the outermost evaluation returns, the
 *     pages below the mark are given back, so one deep recursion does not
 *     keep its stack for the rest of the run.
 *
 * Code that uses more than the headroom between two checks reaches the
 * guard pages; the fault is caught on an alternate signal stack and ends
 * the same way (unless --install-signal-handlers=no, when it is an
 * ordinary SIGSEGV). Heap stacks (update and root frames) are bounded by
 * -K separately (threads.c); either bound reports the same overflow.
 */
#ifndef RTS_CSTACK_H
#define RTS_CSTACK_H

#include <stdbool.h>

#include "capability.h"
#include "os/os_stack.h"

/* Bytes below the -K limit for code between two depth checks. */
#define CSTACK_HEADROOM (256 * 1024)
/* Stack kept resident after a deep evaluation returns. */
#define CSTACK_KEEP (1024 * 1024)

typedef struct cstack_ {
    OsStack os;
    char *limit;                 /* the lowest stack pointer evaluation may reach */
    char *discard_mark;          /* below this, give pages back when the evaluation ends */
    char *check_mark;            /* discard_mark until passed, then limit */
    bool running;                /* the thread is running on this stack */
    struct cstack_ *next, *prev; /* every stack (guarded by the list lock in cstack.c) */
} cstack;

/* Start-up and shut-down (the fault handler; every stack not in use is released). */
void cstack_init(void);
void cstack_exit(void);

/*
 * End the process with `code` from the calling thread's own stack (after
 * the runtime has shut down: shutdownHaskellAndExit from entry code).
 */
RTS_NORETURN void cstack_exit_process(int code);

/* The calling OS thread's evaluation stack, or NULL if it has none yet. */
cstack *cstack_mine(void);
/* The calling OS thread is done with the runtime: release its stack. */
void cstack_forget_mine(void);

/*
 * Run fn(arg) on the calling thread's evaluation stack (made on first
 * use); cap must be the capability the thread holds. Only for a thread
 * not already on its stack.
 */
void *cstack_run(Capability *cap, void *(*fn)(void *), void *arg);

/* The slow side of cstack_check: a stack overflow, or a note that the run went deep. */
void cstack_deep(Capability *cap);

/* cap->eval_mark when the thread is not on its evaluation stack. */
#define CSTACK_OFF ((char *)UINTPTR_MAX)

/* Set cap->eval_mark from the calling thread's stack (rts_lock, cstack_run). */
RTS_INLINE void cstack_set_mark(Capability *cap)
{
    cstack *cs = cap->cstack;
    cap->eval_mark = cs && cs->running ? cs->check_mark : CSTACK_OFF;
}

/*
 * Both checks of an evaluation entry point in one compare: true when the
 * thread is on its evaluation stack and above the check mark (the common
 * case). Otherwise the caller switches stacks (not on it: cstack_on false)
 * or calls cstack_deep. See Note [Evaluation stacks].
 */
RTS_INLINE bool cstack_fast(const Capability *cap)
{
    return RTS_LIKELY(OS_STACK_POINTER() >= cap->eval_mark);
}

/* Is the calling thread running on its evaluation stack? */
RTS_INLINE bool cstack_on(const Capability *cap)
{
    return cap->cstack != NULL && cap->cstack->running;
}

#endif /* RTS_CSTACK_H */
