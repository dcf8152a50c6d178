/*
 * Evacuation: make sure the object a field points to survives this GC, and
 * update the field to its new address (keeping the pointer's tag).
 *
 * Note [Forwarding pointers]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * When an object is copied, its from-space header is overwritten with the
 * address of the copy plus 1. Info tables are word-aligned, so a header
 * with the low bit set is always a forwarding pointer. Tags live in the
 * pointers, not the objects, so a forwarded field keeps its own tag.
 */
#ifndef RTS_SM_EVAC_H
#define RTS_SM_EVAC_H

#include "messages.h"
#include "sm/gc_thread.h"
#include "sm/layout.h"
#include "sm/mblock.h"

/* Report an object whose info table the collector cannot make sense of. */
RTS_NORETURN void evac_bad_object(const StgClosure *q, const char *where);

void statics_mark(gc_thread *gct, const StgClosure *q);

/* Mark q, in a block of a generation marked in place (Note [Marking in place] in mark.h). */
void mark_object(gc_thread *gct, StgClosure *q, bdescr *bd);

/*
 * A selector thunk whose selectee is already a constructor: evacuate the
 * selected field instead. false if it cannot be done (leave the thunk).
 */
bool evac_selector(gc_thread *gct, StgClosure **p, StgClosure *q);

/* Relink a large object (or pinned block) into its destination generation. */
void evac_large(gc_thread *gct, bdescr *bd);

RTS_INLINE bool is_forwarded(const StgClosure *q)
{
    return ((StgWord)q->info & 1) != 0;
}
RTS_INLINE StgClosure *forwardee(const StgClosure *q)
{
    return (StgClosure *)((StgWord)q->info - 1);
}

/* Check an info pointer before trusting it (debug way: every object). */
RTS_INLINE void check_info(const StgClosure *q, const StgInfoTable *info)
{
#ifdef DEBUG
    if (info == NULL || ((StgWord)info & (sizeof(StgWord) - 1)) != 0 || HEAP_ALLOCED(info) ||
        info->type == INVALID_OBJECT || info->type >= N_CLOSURE_TYPES ||
        layout_is_frame_type(info->type))
        evac_bad_object(q, "evacuate");
#else
    (void)q;
    (void)info;
#endif
}

/* Most objects are a few words: give the common sizes straight-line copies. */
RTS_INLINE void copy_words(StgPtr to, const StgWord *from, StgWord size)
{
    switch (size) {
    case 2:
        to[0] = from[0];
        to[1] = from[1];
        return;
    case 3:
        to[0] = from[0];
        to[1] = from[1];
        to[2] = from[2];
        return;
    case 4:
        to[0] = from[0];
        to[1] = from[1];
        to[2] = from[2];
        to[3] = from[3];
        return;
    default:
        for (StgWord i = 0; i < size; i++)
            to[i] = from[i];
    }
}

RTS_INLINE uint32_t dest_gen(gc_thread *gct, const bdescr *bd)
{
    uint32_t gen_no = bd->dest_no;
    if (gen_no < gct->evac_gen_no) {
        if (gct->eager_promotion)
            gen_no = gct->evac_gen_no;
        else
            gct->failed_to_evac = true;
    }
    return gen_no;
}

/* Copy q (size words) to its destination generation and forward it. */
RTS_INLINE StgClosure *copy(gc_thread *gct, StgClosure *q, StgWord size, const bdescr *bd)
{
    ASSERT(size > 0 && size < LARGE_OBJECT_THRESHOLD_W);
    StgPtr to = gc_alloc_for_copy(gct, size, dest_gen(gct, bd));
    copy_words(to, (const StgWord *)q, size);
    q->info = (const StgInfoTable *)((StgWord)to + 1);
    return (StgClosure *)to;
}

RTS_INLINE void evac_heap(gc_thread *gct, StgClosure **p, StgClosure *q)
{
    StgWord tag;
    bdescr *bd;
    const StgInfoTable *info;

loop:
    tag = GET_TAG(q);
    q = UNTAG(q);
    bd = Bdescr(q);

    if (bd->flags & (BF_EVACUATED | BF_LARGE | BF_MARKED)) {
        if (RTS_UNLIKELY(bd->flags & BF_MARKED))
            mark_object(gct, q, bd);
        else if (!(bd->flags & BF_EVACUATED))
            evac_large(gct, bd);
        else if (bd->gen_no < gct->evac_gen_no)
            gct->failed_to_evac = true;
        return;
    }

    info = q->info;
    if ((StgWord)info & 1) {
        StgClosure *to = (StgClosure *)((StgWord)info - 1);
        *p = TAG_CLOSURE(tag, to);
        if (Bdescr(to)->gen_no < gct->evac_gen_no)
            gct->failed_to_evac = true;
        return;
    }
    check_info(q, info);

    switch (info->type) {
    case CONSTR:
    case FUN:
        *p = TAG_CLOSURE(tag, copy(gct, q, 1 + (StgWord)info->ptrs + info->nptrs, bd));
        return;

    case IND:
        /* Short-cut the indirection: the field points at the value. */
        q = ((StgInd *)q)->indirectee;
        *p = q;
        if (!HEAP_ALLOCED(q)) {
            if (gct->mark_statics && q)
                statics_mark(gct, q);
            return;
        }
        goto loop;

    case THUNK:
    case AP:
    case THUNK_SELECTOR: {
        StgWord slot = ((StgThunk *)q)->slot;
        if (slot & 1) {
            /*
             * Under evaluation: only the owner survives, as a BLACKHOLE; the
             * free variables may die. See Note [Blackholed free variables]
             * in scan.h.
             */
            StgPtr to = gc_alloc_for_copy(gct, SIZEOF_W(StgBlackhole), dest_gen(gct, bd));
            ((StgBlackhole *)to)->info = &stg_BLACKHOLE_info;
            ((StgBlackhole *)to)->owner = slot;
            q->info = (const StgInfoTable *)((StgWord)to + 1);
            *p = (StgClosure *)to;
            return;
        }
        if (info->type == THUNK) {
            *p = TAG_CLOSURE(tag, copy(gct, q, 2 + (StgWord)info->ptrs + info->nptrs, bd));
            return;
        }
        if (info->type == THUNK_SELECTOR && evac_selector(gct, p, q))
            return;
        break;
    }

    default:
        break;
    }

    Layout l = layout_of(q, info);
    if (l.size == 0)
        evac_bad_object(q, "evacuate");
    *p = TAG_CLOSURE(tag, copy(gct, q, l.size, bd));
}

/*
 * Evacuate *p. Static closures never move; a major GC notes that they were
 * reached (Note [CAFs and SRTs] in statics.h). NULL is left alone.
 */
RTS_INLINE void evacuate(gc_thread *gct, StgClosure **p)
{
    StgClosure *q = *p;
    if (HEAP_ALLOCED(q))
        evac_heap(gct, p, q);
    else if (gct->mark_statics && q)
        statics_mark(gct, q);
}

#endif /* RTS_SM_EVAC_H */
