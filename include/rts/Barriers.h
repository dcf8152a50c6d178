/*
 * hsrts public header: write barriers.
 *
 * Objects are immutable once initialised except for the kinds below; every
 * write to one of them after its allocation goes through these functions.
 * Writes that initialise a freshly allocated object (before the next
 * safepoint) need no barrier. Each inline write does, in this order:
 *
 *  1. tests the capability's barrier-state word (HsRegs.barrier, on the
 *     same cache line as hp): when a collector needs to see overwritten
 *     values (a concurrent mark's snapshot), it calls the out-of-line slow
 *     path with the object, the field and the value about to be
 *     overwritten. The fast path is one load and one branch.
 *  2. stores the new value with release ordering: an object is published
 *     to another thread only through a barriered write, a thunk update, a
 *     CAS or a root, and this store is what makes the object's own
 *     initialising writes visible before the pointer to it. (On x86-64 a
 *     release store is a plain store.)
 *  3. keeps the generational collector's remembered sets exact: the first
 *     write to a clean object marks it dirty (and remembers it if old); an
 *     array write also marks its card.
 *
 * This code is compiled into clients, so it is the same in every way
 * (vanilla, threaded, debug) and under every collector: a client compiled
 * once stays sound under -N and -xn. See Note [Remembered sets] in
 * rts/sm/mut_list.h.
 */
#ifndef HSRTS_RTS_BARRIERS_H
#define HSRTS_RTS_BARRIERS_H

#include "HsFFI.h"
#include "rts/Regs.h"
#include "rts/StgInfo.h"

extern RTS_EXPORT void rts_dirty_mut_var(Capability *cap, StgMutVar *mv);
extern RTS_EXPORT void rts_dirty_mut_arr(Capability *cap, StgMutArrPtrs *a);
extern RTS_EXPORT void rts_dirty_small_mut_arr(Capability *cap, StgSmallMutArrPtrs *a);

/*
 * The slow path of step 1: `old` is the value that `*field`, a field of
 * `obj`, holds and that the caller is about to overwrite.
 */
extern RTS_EXPORT void rts_write_barrier_slow(Capability *cap, StgClosure *obj, StgClosure **field,
                                              StgClosure *old);

/*
 * Another thread may write the same object at the same time (through these
 * functions, a CAS, or the runtime dirtying its header), so every load and
 * store of a shared word here is atomic; relaxed where no order is needed,
 * which is the plain mov it always compiled to.
 */
RTS_INLINE void rts_write_mut_var(Capability *cap, StgMutVar *mv, StgClosure *v)
{
    if (RTS_UNLIKELY(HS_REGS(cap)->barrier != 0))
        rts_write_barrier_slow(cap, (StgClosure *)mv, &mv->var,
                               __atomic_load_n(&mv->var, __ATOMIC_RELAXED));
    __atomic_store_n(&mv->var, v, __ATOMIC_RELEASE);
    if (RTS_UNLIKELY(__atomic_load_n(&mv->info, __ATOMIC_RELAXED) == &stg_MUT_VAR_CLEAN_info))
        rts_dirty_mut_var(cap, mv);
}

RTS_INLINE StgClosure *rts_read_mut_var(const StgMutVar *mv)
{
    return __atomic_load_n(&mv->var, __ATOMIC_ACQUIRE);
}

/* Write element i of a mutable array: the element, its card, the header. */
RTS_INLINE void rts_write_array(Capability *cap, StgMutArrPtrs *a, StgWord i, StgClosure *v)
{
    if (RTS_UNLIKELY(HS_REGS(cap)->barrier != 0))
        rts_write_barrier_slow(cap, (StgClosure *)a, &a->payload[i],
                               __atomic_load_n(&a->payload[i], __ATOMIC_RELAXED));
    __atomic_store_n(&a->payload[i], v, __ATOMIC_RELEASE);
    __atomic_store_n(&mut_arr_ptrs_cards(a)[i >> MUT_ARR_PTRS_CARD_BITS], 1, __ATOMIC_RELAXED);
    if (RTS_UNLIKELY(__atomic_load_n(&a->info, __ATOMIC_RELAXED) == &stg_MUT_ARR_PTRS_CLEAN_info))
        rts_dirty_mut_arr(cap, a);
}

RTS_INLINE void rts_write_small_array(Capability *cap, StgSmallMutArrPtrs *a, StgWord i,
                                      StgClosure *v)
{
    if (RTS_UNLIKELY(HS_REGS(cap)->barrier != 0))
        rts_write_barrier_slow(cap, (StgClosure *)a, &a->payload[i],
                               __atomic_load_n(&a->payload[i], __ATOMIC_RELAXED));
    __atomic_store_n(&a->payload[i], v, __ATOMIC_RELEASE);
    if (RTS_UNLIKELY(__atomic_load_n(&a->info, __ATOMIC_RELAXED) ==
                     &stg_SMALL_MUT_ARR_PTRS_CLEAN_info))
        rts_dirty_small_mut_arr(cap, a);
}

/*
 * Compare-and-swap, with GHC's casMutVar# / casArray# / casSmallArray#
 * semantics: if the field holds `old` (pointer equality, tags included),
 * store `new_value` and return 0; otherwise store nothing and return 1.
 * Either way *result is the value the field holds afterwards. Sequentially
 * consistent; the barriers of the writes above apply. A CAS on a frozen
 * array is refused (one line, exit 1).
 */
extern RTS_EXPORT HsInt rts_cas_mut_var(Capability *cap, StgMutVar *mv, StgClosure *old,
                                        StgClosure *new_value, StgClosure **result);
extern RTS_EXPORT HsInt rts_cas_array(Capability *cap, StgMutArrPtrs *a, StgWord i, StgClosure *old,
                                      StgClosure *new_value, StgClosure **result);
extern RTS_EXPORT HsInt rts_cas_small_array(Capability *cap, StgSmallMutArrPtrs *a, StgWord i,
                                            StgClosure *old, StgClosure *new_value,
                                            StgClosure **result);

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
 * indirection to its value, with release ordering, reporting its free
 * variables to a concurrent mark; the runtime records an old-generation
 * thunk on its remembered set. Only for a thunk the calling code itself is
 * evaluating: rts_eval does this for every thunk it evaluates.
 */
extern RTS_EXPORT void rts_update_thunk(Capability *cap, StgClosure *thunk, StgClosure *value);

#endif /* HSRTS_RTS_BARRIERS_H */
