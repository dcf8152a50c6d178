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
#include "startup.h"

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
    mv->info = &stg_MUT_VAR_DIRTY_info;
    remember(cap, (StgClosure *)mv);
}

void rts_dirty_mut_arr(Capability *cap, StgMutArrPtrs *a)
{
    startup_require_running("rts_dirty_mut_arr");
    a->info = &stg_MUT_ARR_PTRS_DIRTY_info;
    remember(cap, (StgClosure *)a);
}

void rts_dirty_small_mut_arr(Capability *cap, StgSmallMutArrPtrs *a)
{
    startup_require_running("rts_dirty_small_mut_arr");
    a->info = &stg_SMALL_MUT_ARR_PTRS_DIRTY_info;
    remember(cap, (StgClosure *)a);
}

void rts_update_thunk(Capability *cap, StgClosure *thunk, StgClosure *value)
{
    startup_require_running("rts_update_thunk");
    StgClosure *t = UNTAG(thunk);
    const StgInfoTable *info = t->info;
    StgWord size;
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
    ((StgInd *)t)->indirectee = value;
    /* See Note [Heap walkability] in sm/layout.h. */
    memset((StgWord *)t + SIZEOF_W(StgInd), 0, (size - SIZEOF_W(StgInd)) * sizeof(StgWord));
    __atomic_store_n(&t->info, &stg_IND_info, __ATOMIC_RELEASE);
    if (HEAP_ALLOCED(t))
        remember(cap, t);
}

void rts_freeze_array(Capability *cap, StgMutArrPtrs *a)
{
    startup_require_running("rts_freeze_array");
    (void)cap;
    /* A dirty one stays where it is remembered until the next collection cleans it. */
    a->info = a->info == &stg_MUT_ARR_PTRS_DIRTY_info ? &stg_MUT_ARR_PTRS_FROZEN_DIRTY_info
                                                      : &stg_MUT_ARR_PTRS_FROZEN_CLEAN_info;
}

void rts_thaw_array(Capability *cap, StgMutArrPtrs *a)
{
    startup_require_running("rts_thaw_array");
    bool remembered = a->info == &stg_MUT_ARR_PTRS_FROZEN_DIRTY_info;
    a->info = &stg_MUT_ARR_PTRS_DIRTY_info;
    if (!remembered)
        remember(cap, (StgClosure *)a);
}

void rts_freeze_small_array(Capability *cap, StgSmallMutArrPtrs *a)
{
    startup_require_running("rts_freeze_small_array");
    (void)cap;
    a->info = a->info == &stg_SMALL_MUT_ARR_PTRS_DIRTY_info
                  ? &stg_SMALL_MUT_ARR_PTRS_FROZEN_DIRTY_info
                  : &stg_SMALL_MUT_ARR_PTRS_FROZEN_CLEAN_info;
}

void rts_thaw_small_array(Capability *cap, StgSmallMutArrPtrs *a)
{
    startup_require_running("rts_thaw_small_array");
    bool remembered = a->info == &stg_SMALL_MUT_ARR_PTRS_FROZEN_DIRTY_info;
    a->info = &stg_SMALL_MUT_ARR_PTRS_DIRTY_info;
    if (!remembered)
        remember(cap, (StgClosure *)a);
}
