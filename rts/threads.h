/*
 * Threads: a TSO and its chain of STACK chunks, and the thread table.
 *
 * Every OS thread that has called rts_lock() owns one Haskell-style thread
 * (TSO) until hs_thread_done() or hs_exit(); the thread table holds them,
 * and is a root of every collection. A TSO moves like any small object;
 * stack chunks are large objects and never move.
 *
 * Note [Active stacks]
 * ~~~~~~~~~~~~~~~~~~~~~
 * C code writes heap pointers into its frames without a barrier, so the
 * chunk a thread is running on must be scanned by every collection. A chunk
 * becomes active when its thread takes a capability or switches chunks
 * (overflow or underflow); activation marks it dirty and, if it is in an
 * old generation, records it on the remembered set. The collector keeps
 * the chunks that are still active dirty and remembered (scav.c), so an
 * active chunk is always dirty. A chunk that is not active is only written
 * by the collector; while a concurrent nonmoving cycle runs (its
 * collections are minor ones), only when it is young or dirty.
 *
 * Activation is also where a thread marks a chunk for the concurrent
 * nonmoving mark (Note [Lazy stack marking] in sm/nonmoving_mark.c): the
 * mark thread may be tracing any old clean chunk, so whatever makes a
 * thread run on a chunk (attach, overflow, underflow, and anything added
 * later) must call threads_stack_activate before the thread reads, pops or
 * writes a frame of it.
 *
 * Note [Moving frames]
 * ~~~~~~~~~~~~~~~~~~~~~
 * C code holds pointers into its root frames (RET_DYN), so those never
 * move. Update frames and selector frames are different: rts_eval finds
 * them again by position (the top of the stack), never by address, so the
 * runtime may move them (eval_frame_is_movable in eval.h). On overflow the
 * topmost such frames, up to -kb bytes, move into the new chunk, so that
 * returning from the evaluation that overflowed does not immediately
 * underflow (GHC's reason for -kb). Moving stops at the first frame of
 * another kind.
 */
#ifndef RTS_THREADS_H
#define RTS_THREADS_H

#include "capability.h"

void threads_init(void);
void threads_exit(void);

/* Give the calling OS thread's TSO to cap (creating it on first use). */
void threads_attach(Capability *cap);
/* The capability is being released: its thread is no longer running. */
void threads_detach(Capability *cap);
/* The calling OS thread is done with the runtime: forget its TSO (traced as finished). */
void threads_forget_mine(void);
/* Trace the calling OS thread's end (the thread that shuts the runtime down). */
void threads_finished_mine(void);

/*
 * Collector (sm/roots.c): f(ctx, slot) for every TSO in the thread table.
 * The table's lock is held meanwhile (other OS threads may be making
 * threads: see new_thread).
 */
void threads_visit(void (*f)(void *ctx, StgClosure **slot), void *ctx);

/*
 * Make room for a frame of `words` words on the current thread's stack and
 * return its address (the new sp); the caller writes the frame. May
 * collect; `protect` (or NULL) is a pointer kept alive and updated across
 * that. On overflow a new chunk is started (-kc) and the topmost update
 * frames, up to -kb bytes of them, move into it (Note [Moving frames]).
 */
StgPtr threads_stack_push_slow(Capability *cap, StgWord words, StgClosure **protect);

RTS_INLINE StgPtr threads_stack_push(Capability *cap, StgWord words, StgClosure **protect)
{
    StgStack *s = cap->r.stack;
    if (RTS_UNLIKELY(s->sp - words < s->stack))
        return threads_stack_push_slow(cap, words, protect);
    s->sp -= words;
    return s->sp;
}

/* Pop `words` words off the current stack (the topmost frame), following an underflow. */
RTS_INLINE void threads_stack_pop(Capability *cap, StgWord words)
{
    StgStack *s = cap->r.stack;
    s->sp += words;
    if (RTS_UNLIKELY(((StgClosure *)s->sp)->info == &stg_UNDERFLOW_FRAME_info))
        rts_stack_underflow(cap);
}

/* Mark a chunk dirty and remember it. See Note [Active stacks]. */
void threads_stack_activate(Capability *cap, StgStack *s);

/*
 * The current thread passed -K (on its heap stack or its evaluation
 * stack): the stackOverflowHook with the size of the chunk in use, exit 2.
 */
RTS_NORETURN void threads_stack_overflow(Capability *cap);

/* Threads made since start-up (GHC's bound tasks: OS threads that used the runtime). */
uint32_t threads_made(void);

#endif /* RTS_THREADS_H */
