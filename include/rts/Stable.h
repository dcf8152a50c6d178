/*
 * hsrts public header: weak pointers, stable pointers, stable names.
 */
#ifndef HSRTS_RTS_STABLE_H
#define HSRTS_RTS_STABLE_H

#include "HsFFI.h"
#include "rts/Regs.h"

/*
 * A weak pointer from key to value: value (and the weak object) stay alive
 * while key is alive, whether or not the weak object itself is reachable;
 * once a collection finds key unreachable, the weak pointer is dead
 * (rts_deref_weak gives NULL) and `finalizer(env)`, if any, runs exactly
 * once, right after that collection, on the thread that collected. A C
 * finalizer must not touch the heap or call back into the runtime (as
 * GHC's C finalizers). hs_exit runs the finalizers of every weak pointer
 * still alive. May collect; key and value are kept alive during the call.
 */
extern RTS_EXPORT StgWeak *rts_mk_weak(Capability *cap, StgClosure *key, StgClosure *value,
                                       HsFinalizer finalizer, void *env);
/*
 * GHC's deRefWeak#: true and *value = the value while the weak pointer is
 * alive (a live weak's value may itself be NULL); false once it is dead.
 * The value is reported to a concurrent mark, so it survives it. Never
 * collects.
 */
extern RTS_EXPORT HsBool rts_deref_weak(Capability *cap, const StgWeak *w, StgClosure **value);
/* Kill the weak pointer now and run its C finalizer (if it has not run). Never collects. */
extern RTS_EXPORT void rts_finalize_weak(Capability *cap, StgWeak *w);

/*
 * Stable pointers: a root until freed, and a handle C code may keep anywhere.
 * These three need no capability: the table has its own lock (GHC's
 * hs_lock_stable_ptr_table, HsFFI.h), so any OS thread may free a stable
 * pointer while another collects. What deRefStablePtr returns is a heap
 * pointer, valid only until the next collection: use it while holding a
 * capability.
 */
extern RTS_EXPORT HsStablePtr getStablePtr(StgPtr p);
extern RTS_EXPORT StgPtr deRefStablePtr(HsStablePtr sp);
/*
 * Freeing NULL does nothing (as in GHC). A stable pointer freed twice, or
 * used after it was freed, or a value no getStablePtr returned is the
 * program's mistake: one line naming the call, exit 1.
 */
extern RTS_EXPORT void freeStablePtr(HsStablePtr sp);

/*
 * Stable names: the same object (indirections followed) always gives the
 * same STABLE_NAME object while that object is alive, even as it moves.
 * The table does not keep objects alive; entries of dead objects and dead
 * stable names are reclaimed. May collect.
 */
extern RTS_EXPORT StgStableName *rts_make_stable_name(Capability *cap, StgClosure *p);
RTS_INLINE StgWord rts_stable_name_to_int(const StgStableName *sn)
{
    return sn->sn;
}

#endif /* HSRTS_RTS_STABLE_H */
