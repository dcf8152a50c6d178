/*
 * The one place that knows the shape of every closure type (STYLE.md item 6).
 *
 * Every heap object except a STACK keeps its pointer fields in one
 * contiguous run of words; layout_of() returns where that run starts, how
 * long it is and the object's size. Evacuate, scavenge, the sanity checker
 * and the heap walkers all use it, so a new closure type is added here
 * once. Stack frames are described by layout_frame().
 *
 * Note [Heap walkability]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * While sm_zero_slop is set (the debug way, heap profiling, any collector
 * that walks blocks linearly), every block's words [start, free) are a
 * sequence of objects, each beginning with a non-zero info pointer,
 * separated only by zero words ("slop"): when an object shrinks in place (a
 * thunk overwritten by an IND, a thunk turned into a BLACKHOLE) the words it
 * gives up are zeroed, so a linear walk can step from one object to the
 * next: after an object, skip zero words. The sanity checker and the heap
 * census rely on this. Otherwise nothing walks a block that may hold an
 * updated thunk (copying collection walks only to-space, which holds
 * copies), and updates skip the zeroing, as GHC's do outside its debug and
 * profiling ways.
 */
#ifndef RTS_SM_LAYOUT_H
#define RTS_SM_LAYOUT_H

#include "Rts.h"

typedef struct {
    uint32_t ptr_off; /* words from the header to the first pointer field */
    uint32_t n_ptrs;  /* length of the run of pointer fields */
    StgWord size;     /* object size in words, header included */
} Layout;

/* Is info's type a stack frame? */
RTS_INLINE bool layout_is_frame_type(uint32_t type)
{
    return type >= RET_SMALL && type <= STOP_FRAME;
}

/*
 * The layout of a heap or static object. The caller has checked that info
 * is a valid info table of a non-frame type; an unknown type gives size 0.
 */
RTS_INLINE Layout layout_of(const StgClosure *p, const StgInfoTable *info)
{
    Layout l = {1, 0, 0};
    switch (info->type) {
    case CONSTR:
    case FUN:
    case TSO:
    case CONSTR_STATIC:
    case FUN_STATIC:
        l.n_ptrs = info->ptrs;
        l.size = 1 + (StgWord)info->ptrs + info->nptrs;
        break;
    case THUNK:
        l.ptr_off = 2;
        l.n_ptrs = info->ptrs;
        l.size = 2 + (StgWord)info->ptrs + info->nptrs;
        break;
    case THUNK_SELECTOR:
        l.ptr_off = 2;
        l.n_ptrs = 1;
        l.size = SIZEOF_W(StgSelector);
        break;
    case AP: {
        const StgAP *ap = (const StgAP *)p;
        l.ptr_off = offsetof(StgAP, fun) / sizeof(StgWord);
        l.n_ptrs = 1 + ap->n_args;
        l.size = SIZEOF_W(StgAP) + ap->n_args;
        break;
    }
    case PAP: {
        const StgPAP *pap = (const StgPAP *)p;
        l.ptr_off = offsetof(StgPAP, fun) / sizeof(StgWord);
        l.n_ptrs = 1 + pap->n_args;
        l.size = SIZEOF_W(StgPAP) + pap->n_args;
        break;
    }
    case IND:
    case MUT_VAR_CLEAN:
    case MUT_VAR_DIRTY:
        l.n_ptrs = 1;
        l.size = 2;
        break;
    case BLACKHOLE:
        l.size = SIZEOF_W(StgBlackhole);
        break;
    case STABLE_NAME:
        l.size = SIZEOF_W(StgStableName);
        break;
    case ARR_WORDS:
        l.size = arr_words_size_w(((const StgArrBytes *)p)->bytes);
        break;
    case MUT_ARR_PTRS_CLEAN:
    case MUT_ARR_PTRS_DIRTY:
    case MUT_ARR_PTRS_FROZEN_CLEAN:
    case MUT_ARR_PTRS_FROZEN_DIRTY: {
        const StgMutArrPtrs *a = (const StgMutArrPtrs *)p;
        l.ptr_off = SIZEOF_W(StgMutArrPtrs);
        l.n_ptrs = (uint32_t)a->ptrs;
        l.size = SIZEOF_W(StgMutArrPtrs) + a->size;
        break;
    }
    case SMALL_MUT_ARR_PTRS_CLEAN:
    case SMALL_MUT_ARR_PTRS_DIRTY:
    case SMALL_MUT_ARR_PTRS_FROZEN_CLEAN:
    case SMALL_MUT_ARR_PTRS_FROZEN_DIRTY: {
        const StgSmallMutArrPtrs *a = (const StgSmallMutArrPtrs *)p;
        l.ptr_off = SIZEOF_W(StgSmallMutArrPtrs);
        l.n_ptrs = (uint32_t)a->ptrs;
        l.size = SIZEOF_W(StgSmallMutArrPtrs) + a->ptrs;
        break;
    }
    case WEAK:
        /* key, value, finalizer; the collector treats the key specially. */
        l.ptr_off = offsetof(StgWeak, key) / sizeof(StgWord);
        l.n_ptrs = 3;
        l.size = SIZEOF_W(StgWeak);
        break;
    case STACK:
        /* Pointers live in frames: see layout_frame(). */
        l.size = SIZEOF_W(StgStack) + ((const StgStack *)p)->stack_size;
        break;
    case THUNK_STATIC:
        /* A CAF not yet evaluated: slot, no value yet (StgCAF). */
        l.size = SIZEOF_W(StgCAF);
        break;
    case IND_STATIC:
        l.ptr_off = offsetof(StgCAF, indirectee) / sizeof(StgWord);
        l.n_ptrs = 1;
        l.size = SIZEOF_W(StgCAF);
        break;
    default:
        l.size = 0; /* invalid */
        break;
    }
    return l;
}

/* --- stack frames --------------------------------------------------------- */

typedef struct {
    StgWord size;          /* frame size in words, info pointer included */
    StgWord n_slots;       /* slots after the info pointer described below */
    StgWord small_bitmap;  /* RET_SMALL: bit i = slot i is a pointer */
    const StgWord *bitmap; /* RET_BIG: bitmap words; NULL otherwise */
    bool all_ptrs;         /* every slot from first_slot is a pointer */
    uint32_t first_slot;   /* words from the info pointer to slot 0 */
} FrameLayout;

/* The layout of the frame at `frame`, or size 0 for an invalid frame. */
RTS_INLINE FrameLayout layout_frame(const StgWord *frame, const StgInfoTable *info)
{
    FrameLayout f = {0, 0, 0, NULL, false, 1};
    switch (info->type) {
    case RET_DYN:
        f.first_slot = 2;
        f.n_slots = ((const StgRetDyn *)frame)->size;
        f.size = 2 + f.n_slots;
        f.all_ptrs = true;
        break;
    case RET_SMALL:
        f.n_slots = info->ptrs;
        f.size = 1 + f.n_slots;
        f.small_bitmap = info->bitmap.small;
        break;
    case RET_BIG:
        f.n_slots = info->bitmap.large->size;
        f.size = 1 + f.n_slots;
        f.bitmap = info->bitmap.large->bitmap;
        break;
    case UPDATE_FRAME:
    case UNDERFLOW_FRAME:
        f.n_slots = 1;
        f.size = 2;
        f.all_ptrs = true;
        break;
    case STOP_FRAME:
        f.size = 1;
        break;
    default:
        break;
    }
    return f;
}

RTS_INLINE bool frame_slot_is_ptr(const FrameLayout *f, StgWord i)
{
    if (f->all_ptrs)
        return true;
    if (f->bitmap)
        return (f->bitmap[i / 64] >> (i % 64)) & 1;
    return i < 64 && ((f->small_bitmap >> i) & 1);
}

/*
 * Walking a stack chunk's frames, from sp to its bottom frame (a
 * STOP_FRAME, or the UNDERFLOW_FRAME leading to the next chunk), for every
 * collector that scans a stack (scav.c, compact.c, nonmoving_mark.c):
 *
 *     for (StackWalk w = stack_walk(s); stack_walk_next(&w);) {
 *         if (stack_walk_bad(&w))
 *             ...report w.p and w.info: the chunk is corrupt...
 *         StgClosure **slots = stack_walk_slots(&w); // w.f: which are pointers
 *     }
 *
 * A bad frame (a type that is not a frame's, or one running past the
 * chunk's end) is the walk's last. The sanity checker walks by itself: it
 * checks each info pointer before it trusts the layout.
 */
typedef struct {
    StgPtr p;                 /* the frame */
    const StgInfoTable *info; /* its info table */
    FrameLayout f;            /* its layout */
    StgPtr next, end;
    bool last;
} StackWalk;

RTS_INLINE StackWalk stack_walk(const StgStack *s)
{
    StackWalk w = {0};
    w.next = s->sp;
    w.end = (StgPtr)s->stack + s->stack_size;
    return w;
}

RTS_INLINE bool stack_walk_next(StackWalk *w)
{
    if (w->last || w->next >= w->end)
        return false;
    w->p = w->next;
    w->info = ((const StgClosure *)w->p)->info;
    w->f = layout_frame(w->p, w->info);
    w->next = w->p + w->f.size;
    w->last = w->f.size == 0 || w->next > w->end || w->info->type == STOP_FRAME ||
              w->info->type == UNDERFLOW_FRAME;
    return true;
}

RTS_INLINE bool stack_walk_bad(const StackWalk *w)
{
    return w->f.size == 0 || w->next > w->end;
}

RTS_INLINE StgClosure **stack_walk_slots(const StackWalk *w)
{
    return (StgClosure **)(w->p + w->f.first_slot);
}

/* GHC's closure-type names, for heap profiles and debug output. */
const char *layout_type_name(uint32_t type);

#endif /* RTS_SM_LAYOUT_H */
