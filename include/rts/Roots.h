/*
 * hsrts public header: precise roots for C code.
 *
 * C code may hold heap pointers in C locals only between two safepoints
 * (allocation, a call that may allocate, rts_yield). Across a safepoint a
 * pointer lives in a frame on the thread's heap stack, where the collector
 * finds and updates it. The macros here push a RET_DYN frame of pointer
 * slots (all NULL at first) and pop it again, in strict LIFO order:
 *
 *     typedef struct { StgClosure *left, *right; } TreeRoots;
 *     TreeRoots *r = HS_ROOTS(cap, TreeRoots);
 *     r->left = build(cap, depth - 1);
 *     r->right = build(cap, depth - 1);
 *     StgClosure *node = mk_node(cap, r);    // reads r->left, r->right
 *     HS_POP_ROOTS(cap, r);
 *
 * Stack chunks never move, so the pointer a push returns stays valid until
 * the matching pop.
 */
#ifndef HSRTS_RTS_ROOTS_H
#define HSRTS_RTS_ROOTS_H

#include <string.h>

#include "rts/Regs.h"
#include "rts/StgInfo.h"

extern RTS_EXPORT StgClosure **rts_push_roots_slow(Capability *cap, StgWord n);
extern RTS_EXPORT void rts_stack_underflow(Capability *cap);
extern RTS_EXPORT RTS_NORETURN void rts_bad_pop(Capability *cap, StgClosure **slots);

/* Push a frame of n pointer slots, all NULL. */
RTS_INLINE StgClosure **rts_push_roots(Capability *cap, StgWord n)
{
    StgStack *s = HS_REGS(cap)->stack;
    StgPtr sp = s->sp - (n + SIZEOF_W(StgRetDyn));
    if (RTS_UNLIKELY(sp < s->stack))
        return rts_push_roots_slow(cap, n);
    StgRetDyn *f = (StgRetDyn *)sp;
    f->info = &stg_RET_DYN_info;
    f->size = n;
    memset(f->slots, 0, n * sizeof(StgClosure *));
    s->sp = sp;
    return f->slots;
}

/* Pop the frame whose slots a push returned; it must be the topmost. */
RTS_INLINE void rts_pop_roots(Capability *cap, StgClosure **slots)
{
    StgStack *s = HS_REGS(cap)->stack;
    StgRetDyn *f = (StgRetDyn *)((StgPtr)slots - SIZEOF_W(StgRetDyn));
    if (RTS_UNLIKELY((StgPtr)f != s->sp))
        rts_bad_pop(cap, slots);
    s->sp = (StgPtr)&f->slots[f->size];
    if (RTS_UNLIKELY(((const StgClosure *)s->sp)->info == &stg_UNDERFLOW_FRAME_info))
        rts_stack_underflow(cap);
}

#define HS_ROOTS(cap, T)     ((T *)rts_push_roots((cap), sizeof(T) / sizeof(StgClosure *)))
#define HS_POP_ROOTS(cap, r) rts_pop_roots((cap), (StgClosure **)(void *)(r))

#endif /* HSRTS_RTS_ROOTS_H */
