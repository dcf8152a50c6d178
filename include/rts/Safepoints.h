/*
 * hsrts public header: safepoints, and giving the capability up around
 * blocking C calls.
 *
 * A safepoint is a place where the runtime may stop the thread (for a
 * collection, or to let another thread have the capability): every
 * allocation that leaves its block, every call that may collect, and these.
 * At a safepoint every heap pointer the thread needs lives in a root frame
 * (include/rts/Roots.h).
 *
 * The capability rule: a thread always gets back the capability it gave
 * up. Every call that can give it up for a while — rts_yield, rts_suspend
 * and rts_resume, rts_eval when it waits for a thunk another thread is
 * evaluating — returns with the same Capability * the thread held, so
 * generated code may keep `cap` in a local for as long as it holds it.
 * (rts_lock takes whichever capability is free; rts_setInCallCapability
 * says which one a thread prefers.)
 */
#ifndef HSRTS_RTS_SAFEPOINTS_H
#define HSRTS_RTS_SAFEPOINTS_H

#include <stdbool.h>

#include "rts/Regs.h"

/*
 * A safepoint for code that does not allocate (a loop that only reads, or
 * computes on unboxed values): if the runtime wants the thread to stop, it
 * stops here; if other threads wait for this capability, they get a turn.
 * Returns with the same capability. May collect.
 */
extern RTS_EXPORT void rts_yield(Capability *cap);

/* The inline poll: one load and one branch when nothing is wanted. */
#define HS_SAFEPOINT(cap)                              \
    do {                                               \
        if (RTS_UNLIKELY(HS_REGS(cap)->hplim == NULL)) \
            rts_yield(cap);                            \
    } while (0)

/*
 * A safe foreign call (GHC's suspendThread / resumeThread): give the
 * capability up around a C call that may block, so that other threads can
 * run and collect meanwhile; between the two the thread must not touch
 * the heap (its roots stay in its root frames, which the collector
 * updates). rts_resume takes the token rts_suspend returned and gives back
 * the same capability, waiting for it if another thread has it.
 * `interruptible` is accepted for GHC's signature and has no effect yet.
 */
extern RTS_EXPORT void *rts_suspend(Capability *cap);
extern RTS_EXPORT Capability *rts_resume(void *token);
extern RTS_EXPORT void *suspendThread(Capability *cap, bool interruptible);
extern RTS_EXPORT Capability *resumeThread(void *token);

#endif /* HSRTS_RTS_SAFEPOINTS_H */
