/*
 * hsrts public header: write barriers.
 *
 * Objects are immutable once initialised except for the kinds below; every
 * write to one of them after its allocation goes through these functions,
 * which keep the generational collector's remembered sets exact. Writes that
 * initialise a freshly allocated object (before the next safepoint) need no
 * barrier. See Note [Remembered sets] in rts/sm/mut_list.h.
 */
#ifndef HSRTS_RTS_BARRIERS_H
#define HSRTS_RTS_BARRIERS_H

#include "rts/Regs.h"
#include "rts/StgInfo.h"

extern RTS_EXPORT void rts_dirty_mut_var(Capability *cap, StgMutVar *mv);
extern RTS_EXPORT void rts_dirty_mut_arr(Capability *cap, StgMutArrPtrs *a);
extern RTS_EXPORT void rts_dirty_small_mut_arr(Capability *cap, StgSmallMutArrPtrs *a);

RTS_INLINE void rts_write_mut_var(Capability *cap, StgMutVar *mv, StgClosure *v)
{
    mv->var = v;
    if (RTS_UNLIKELY(mv->info == &stg_MUT_VAR_CLEAN_info))
        rts_dirty_mut_var(cap, mv);
}

RTS_INLINE StgClosure *rts_read_mut_var(const StgMutVar *mv)
{
    return mv->var;
}

/* Write element i of a mutable array: the element, its card, the header. */
RTS_INLINE void rts_write_array(Capability *cap, StgMutArrPtrs *a, StgWord i, StgClosure *v)
{
    a->payload[i] = v;
    mut_arr_ptrs_cards(a)[i >> MUT_ARR_PTRS_CARD_BITS] = 1;
    if (RTS_UNLIKELY(a->info == &stg_MUT_ARR_PTRS_CLEAN_info))
        rts_dirty_mut_arr(cap, a);
}

RTS_INLINE void rts_write_small_array(Capability *cap, StgSmallMutArrPtrs *a, StgWord i,
                                      StgClosure *v)
{
    a->payload[i] = v;
    if (RTS_UNLIKELY(a->info == &stg_SMALL_MUT_ARR_PTRS_CLEAN_info))
        rts_dirty_small_mut_arr(cap, a);
}

/*
 * Freezing and thawing, as GHC's unsafeFreeze/unsafeThaw: a frozen array is
 * immutable and leaves the remembered set at the next collection; thawing
 * makes it mutable again (and remembered, if old).
 */
extern RTS_EXPORT void rts_freeze_array(Capability *cap, StgMutArrPtrs *a);
extern RTS_EXPORT void rts_thaw_array(Capability *cap, StgMutArrPtrs *a);
extern RTS_EXPORT void rts_freeze_small_array(Capability *cap, StgSmallMutArrPtrs *a);
extern RTS_EXPORT void rts_thaw_small_array(Capability *cap, StgSmallMutArrPtrs *a);

/*
 * Overwrite a thunk (THUNK, AP, THUNK_SELECTOR or BLACKHOLE) with an
 * indirection to its value. The runtime records an old-generation thunk on
 * its remembered set.
 */
extern RTS_EXPORT void rts_update_thunk(Capability *cap, StgClosure *thunk, StgClosure *value);

#endif /* HSRTS_RTS_BARRIERS_H */
