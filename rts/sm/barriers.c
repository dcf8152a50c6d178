/*
 * The slow paths of the write barriers in include/rts/Barriers.h.
 * See Note [Remembered sets] in mut_list.h.
 */
#include <string.h>

#include "Rts.h"
#include "messages.h"
#include "sm/block.h"
#include "sm/layout.h"
#include "sm/mblock.h"
#include "sm/mut_list.h"
#include "sm/storage.h"
#include "sm/barrier_sink.h"
#include "startup.h"

/*
 * Note [The barrier word]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * HsRegs.barrier is 0 unless a collector needs to see the values that
 * writes overwrite; whoever sets it (the nonmoving collector's concurrent
 * mark, or a test) installs a sink first, which gets every overwritten
 * value: from the inline writes' slow path, from CAS, from thunk updates
 * (the free variables the thunk held) and from weak dereferences (the value
 * handed out). Generated code tests the word before every write, so the
 * word can be turned on for a capability at any safepoint of its thread.
 */
static BarrierSink sink;

void sm_barrier_set_sink(BarrierSink s)
{
    sink = s;
}

BarrierSink sm_barrier_get_sink(void)
{
    return sink;
}

void sm_barrier_note(Capability *cap, StgClosure *obj, StgClosure **field, StgClosure *old)
{
    if (sink)
        sink(cap, obj, field, old);
}

void rts_write_barrier_slow(Capability *cap, StgClosure *obj, StgClosure **field, StgClosure *old)
{
    startup_require_running("rts_write_barrier_slow");
    sm_barrier_note(cap, obj, field, old);
}

/*
 * A mutable object's new header (clean/dirty, frozen/thawed). A concurrent
 * mark may be reading it (Note [The concurrent mark] in nonmoving_mark.c):
 * an atomic store (relaxed: a plain move), as its loads are.
 */
RTS_INLINE void set_header(StgClosure *q, const StgInfoTable *info)
{
    __atomic_store_n(&q->info, info, __ATOMIC_RELAXED);
}

/*
 * Its header, read where another mutator may be dirtying the same object
 * (two CASes on one MUT_VAR or array): relaxed atomic, the store's pair.
 */
RTS_INLINE const StgInfoTable *get_header(const StgClosure *q)
{
    return __atomic_load_n(&q->info, __ATOMIC_RELAXED);
}

/* Record p if it lives in an old generation. */
RTS_INLINE void remember(Capability *cap, StgClosure *p)
{
    bdescr *bd = Bdescr(p);
    if (bd->gen_no > 0)
        mut_list_record(cap, p, bd->gen_no);
}

void rts_dirty_mut_var(Capability *cap, StgMutVar *mv)
{
    startup_require_running("rts_dirty_mut_var");
    set_header((StgClosure *)mv, &stg_MUT_VAR_DIRTY_info);
    remember(cap, (StgClosure *)mv);
}

void rts_dirty_mut_arr(Capability *cap, StgMutArrPtrs *a)
{
    startup_require_running("rts_dirty_mut_arr");
    set_header((StgClosure *)a, &stg_MUT_ARR_PTRS_DIRTY_info);
    remember(cap, (StgClosure *)a);
}

void rts_dirty_small_mut_arr(Capability *cap, StgSmallMutArrPtrs *a)
{
    startup_require_running("rts_dirty_small_mut_arr");
    set_header((StgClosure *)a, &stg_SMALL_MUT_ARR_PTRS_DIRTY_info);
    remember(cap, (StgClosure *)a);
}

void rts_update_thunk(Capability *cap, StgClosure *thunk, StgClosure *value)
{
    startup_require_running("rts_update_thunk");
    StgClosure *t = UNTAG(thunk);
    const StgInfoTable *info = t->info;
    StgWord size;
    if (RTS_UNLIKELY(HS_REGS(cap)->barrier != 0)) {
        /* The snapshot saw the thunk's free variables: they must not be lost to it. */
        Layout l = layout_of(t, info);
        StgClosure **fields = (StgClosure **)t + l.ptr_off;
        for (uint32_t i = 0; i < l.n_ptrs; i++)
            sm_barrier_note(cap, t, &fields[i], fields[i]);
    }
    if (info->type == THUNK_STATIC) {
        /* A CAF: registered when entered, so its value is a root from now on. */
        ((StgCAF *)t)->indirectee = value;
        __atomic_store_n(&t->info, &stg_IND_STATIC_info, __ATOMIC_RELEASE);
        return;
    }
    switch (info->type) {
    case THUNK:
    case AP:
    case THUNK_SELECTOR:
    case BLACKHOLE:
        size = layout_of(t, info).size;
        break;
    default:
        msg_fatal(1, "rts_update_thunk: %p is not a thunk (closure type %u)", (void *)t,
                  (unsigned)info->type);
    }
#ifdef DEBUG
    /* An indirection cycle would make the collector loop: catch it here. */
    for (StgClosure *v = value; v && HEAP_ALLOCED(v) && UNTAG(v)->info->type == IND;
         v = ((StgInd *)UNTAG(v))->indirectee)
        if (UNTAG(v) == t)
            msg_fatal(1, "rts_update_thunk: updating %p with itself", (void *)t);
    if (UNTAG(value) == t)
        msg_fatal(1, "rts_update_thunk: updating %p with itself", (void *)t);
#endif
    /* Other threads may be reading this word as t's owner: Note [The owner slot
     * is shared] in eval.c. */
    __atomic_store_n(&((StgInd *)t)->indirectee, value, __ATOMIC_RELAXED);
    /* See Note [Heap walkability] in sm/layout.h. */
    if (sm_zero_slop) {
        /* Word by word, atomically: a concurrent mark may be reading the free variables (it
         * had them from the report above). */
        StgWord *slop = (StgWord *)t + SIZEOF_W(StgInd);
        for (StgWord i = 0; i < size - SIZEOF_W(StgInd); i++)
            __atomic_store_n(&slop[i], 0, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&t->info, &stg_IND_info, __ATOMIC_RELEASE);
    if (HEAP_ALLOCED(t))
        remember(cap, t);
}

/* --- compare-and-swap ----------------------------------------------------------- */

static RTS_NORETURN void cas_frozen(const char *call, const StgClosure *a)
{
    msg_fatal(1, "%s: the array %p is frozen (closure type %u); thaw it before writing", call,
              (const void *)a, (unsigned)a->info->type);
}

/* One CAS on *field of obj; on success the barriers of a write. */
static HsInt cas_field(Capability *cap, StgClosure *obj, StgClosure **field, StgClosure *old,
                       StgClosure *new_value, StgClosure **result)
{
    StgClosure *expected = old;
    if (__atomic_compare_exchange_n(field, &expected, new_value, false, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST)) {
        if (RTS_UNLIKELY(HS_REGS(cap)->barrier != 0))
            sm_barrier_note(cap, obj, field, old);
        if (result)
            *result = new_value;
        return 0;
    }
    if (result)
        *result = expected;
    return 1;
}

HsInt rts_cas_mut_var(Capability *cap, StgMutVar *mv, StgClosure *old, StgClosure *new_value,
                      StgClosure **result)
{
    startup_require_running("rts_cas_mut_var");
    HsInt r = cas_field(cap, (StgClosure *)mv, &mv->var, old, new_value, result);
    if (r == 0 && get_header((StgClosure *)mv) == &stg_MUT_VAR_CLEAN_info)
        rts_dirty_mut_var(cap, mv);
    return r;
}

HsInt rts_cas_array(Capability *cap, StgMutArrPtrs *a, StgWord i, StgClosure *old,
                    StgClosure *new_value, StgClosure **result)
{
    startup_require_running("rts_cas_array");
    uint32_t type = a->info->type;
    if (type == MUT_ARR_PTRS_FROZEN_CLEAN || type == MUT_ARR_PTRS_FROZEN_DIRTY)
        cas_frozen("rts_cas_array", (StgClosure *)a);
    if (i >= a->ptrs)
        msg_fatal(1, "rts_cas_array: index %lu is out of bounds (the array has %lu elements)",
                  (unsigned long)i, (unsigned long)a->ptrs);
    HsInt r = cas_field(cap, (StgClosure *)a, &a->payload[i], old, new_value, result);
    if (r == 0) {
        mut_arr_ptrs_cards(a)[i >> MUT_ARR_PTRS_CARD_BITS] = 1;
        if (get_header((StgClosure *)a) == &stg_MUT_ARR_PTRS_CLEAN_info)
            rts_dirty_mut_arr(cap, a);
    }
    return r;
}

HsInt rts_cas_small_array(Capability *cap, StgSmallMutArrPtrs *a, StgWord i, StgClosure *old,
                          StgClosure *new_value, StgClosure **result)
{
    startup_require_running("rts_cas_small_array");
    uint32_t type = a->info->type;
    if (type == SMALL_MUT_ARR_PTRS_FROZEN_CLEAN || type == SMALL_MUT_ARR_PTRS_FROZEN_DIRTY)
        cas_frozen("rts_cas_small_array", (StgClosure *)a);
    if (i >= a->ptrs)
        msg_fatal(1, "rts_cas_small_array: index %lu is out of bounds (the array has %lu elements)",
                  (unsigned long)i, (unsigned long)a->ptrs);
    HsInt r = cas_field(cap, (StgClosure *)a, &a->payload[i], old, new_value, result);
    if (r == 0 && get_header((StgClosure *)a) == &stg_SMALL_MUT_ARR_PTRS_CLEAN_info)
        rts_dirty_small_mut_arr(cap, a);
    return r;
}

/* --- freezing -------------------------------------------------------------------- */

void rts_freeze_array(Capability *cap, StgMutArrPtrs *a)
{
    startup_require_running("rts_freeze_array");
    (void)cap;
    /* A dirty one stays where it is remembered until the next collection cleans it. */
    set_header((StgClosure *)a, a->info == &stg_MUT_ARR_PTRS_DIRTY_info
                                    ? &stg_MUT_ARR_PTRS_FROZEN_DIRTY_info
                                    : &stg_MUT_ARR_PTRS_FROZEN_CLEAN_info);
}

void rts_thaw_array(Capability *cap, StgMutArrPtrs *a)
{
    startup_require_running("rts_thaw_array");
    bool remembered = a->info == &stg_MUT_ARR_PTRS_FROZEN_DIRTY_info;
    set_header((StgClosure *)a, &stg_MUT_ARR_PTRS_DIRTY_info);
    if (!remembered)
        remember(cap, (StgClosure *)a);
}

void rts_freeze_small_array(Capability *cap, StgSmallMutArrPtrs *a)
{
    startup_require_running("rts_freeze_small_array");
    (void)cap;
    set_header((StgClosure *)a, a->info == &stg_SMALL_MUT_ARR_PTRS_DIRTY_info
                                    ? &stg_SMALL_MUT_ARR_PTRS_FROZEN_DIRTY_info
                                    : &stg_SMALL_MUT_ARR_PTRS_FROZEN_CLEAN_info);
}

void rts_thaw_small_array(Capability *cap, StgSmallMutArrPtrs *a)
{
    startup_require_running("rts_thaw_small_array");
    bool remembered = a->info == &stg_SMALL_MUT_ARR_PTRS_FROZEN_DIRTY_info;
    set_header((StgClosure *)a, &stg_SMALL_MUT_ARR_PTRS_DIRTY_info);
    if (!remembered)
        remember(cap, (StgClosure *)a);
}
