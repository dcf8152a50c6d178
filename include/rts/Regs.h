/*
 * hsrts public header: the part of a capability that generated code touches.
 *
 * A Capability is opaque except for this prefix: the allocation pointer and
 * limit of its current nursery block, its current thread's stack, and the
 * barrier-state word. The runtime's own struct Capability_ begins with an
 * HsRegs, and capabilities are aligned to 64 bytes, so HS_REGS() is a cast,
 * not a call, and hp, hplim and barrier share one cache line.
 *
 * This layout is part of the ABI (HSRTS_ABI_VERSION in rts/Config.h).
 */
#ifndef HSRTS_RTS_REGS_H
#define HSRTS_RTS_REGS_H

#include "rts/Closures.h"

typedef struct Capability_ Capability;

typedef struct HsRegs_ {
    StgPtr hp; /* next free word of the current nursery block */
    /*
     * End of it. NULL forces every allocation, and every HS_SAFEPOINT, into
     * the runtime: that is how the runtime stops a thread (a collection
     * wants the world stopped, another thread waits for the capability).
     */
    StgPtr hplim;
    /*
     * 0 unless a collector needs to see the values that writes overwrite
     * (a concurrent mark's snapshot). Every inline write tests it before it
     * stores (include/rts/Barriers.h).
     */
    StgWord barrier;
    StgStack *stack; /* current stack chunk of the current thread */
    StgTSO *tso;     /* current thread */
    StgWord owner;   /* the current thread's owner token (odd), for blackholing */
} HsRegs;

#define HS_REGS(cap) ((HsRegs *)(void *)(cap))

#endif /* HSRTS_RTS_REGS_H */
