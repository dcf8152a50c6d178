/*
 * hsrts public header: the part of a capability that generated code touches.
 *
 * A Capability is opaque except for this prefix: the allocation pointer and
 * limit of its current nursery block and its current thread's stack. The
 * runtime's own struct Capability_ begins with an HsRegs, so HS_REGS() is a
 * cast, not a call.
 */
#ifndef HSRTS_RTS_REGS_H
#define HSRTS_RTS_REGS_H

#include "rts/Closures.h"

typedef struct Capability_ Capability;

typedef struct HsRegs_ {
    StgPtr hp;       /* next free word of the current nursery block */
    StgPtr hplim;    /* end of it; NULL forces every allocation into the slow path */
    StgStack *stack; /* current stack chunk of the current thread */
    StgTSO *tso;     /* current thread */
    StgWord owner;   /* the current thread's owner token (odd), for blackholing */
} HsRegs;

#define HS_REGS(cap) ((HsRegs *)(void *)(cap))

#endif /* HSRTS_RTS_REGS_H */
