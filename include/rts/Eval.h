/*
 * hsrts public header: evaluation and application.
 *
 * rts_eval(cap, p) returns the value of p (a constructor, function, partial
 * application or other value, possibly tagged). A tagged pointer is
 * returned at once; an indirection is followed; a thunk is evaluated by
 * the protocol of include/README.md ("Evaluation"): an update frame is
 * pushed, the thunk is blackholed (re-entering it from the same thread is
 * reported as <<loop>>), its entry code runs, and the thunk is overwritten
 * by an indirection to the value. Both calls may collect; their pointer
 * arguments are kept alive by the runtime during the call.
 */
#ifndef HSRTS_RTS_EVAL_H
#define HSRTS_RTS_EVAL_H

#include "rts/Regs.h"
#include "rts/StgInfo.h"

extern RTS_EXPORT StgClosure *rts_eval_slow(Capability *cap, StgClosure *p);

RTS_INLINE StgClosure *rts_eval(Capability *cap, StgClosure *p)
{
    /* Already a value: a tagged pointer, or an indirection to one. No call. */
    if (RTS_LIKELY(GET_TAG(p) != 0))
        return p;
    if (RTS_LIKELY(p != NULL)) {
        const StgInfoTable *info = __atomic_load_n(&p->info, __ATOMIC_ACQUIRE);
        if (info == &stg_IND_info) {
            StgClosure *v = ((StgInd *)p)->indirectee;
            if (RTS_LIKELY(GET_TAG(v) != 0))
                return v;
        }
    }
    return rts_eval_slow(cap, p);
}

/*
 * Apply f (a FUN, a PAP, or something that evaluates to one) to n
 * arguments. `args` must point at rooted slots (a root frame): they stay
 * valid across the call. Too few arguments build a PAP; too many apply the
 * result to the rest.
 */
extern RTS_EXPORT StgClosure *rts_apply(Capability *cap, StgClosure *f, StgWord n,
                                        StgClosure **args);

/* A suspended application f args (an AP thunk); `args` rooted as above. */
extern RTS_EXPORT StgClosure *rts_mk_ap(Capability *cap, StgClosure *f, StgWord n,
                                        StgClosure **args);

/* Keep every CAF alive for ever (as RtsConfig.keep_cafs), GHC's names. */
extern RTS_EXPORT void setKeepCAFs(void);
/* Return every evaluated CAF to its unevaluated state. */
extern RTS_EXPORT void revertCAFs(void);

#endif /* HSRTS_RTS_EVAL_H */
