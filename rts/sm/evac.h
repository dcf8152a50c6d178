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
 *
 * Note [Forwarding by CAS]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * In a parallel collection two GC threads may reach the same object at
 * once. Each copies it into its own to-space and then installs its
 * forwarding pointer with a compare-and-swap on the header, from the info
 * pointer it read to the copy: one wins. The loser's copy is the last thing
 * it allocated, so it takes the words back (todo_free = its copy) and uses
 * the winner's address; if the winner put the object in a younger
 * generation than the loser needed, the field stays remembered
 * (failed_to_evac), as when a forwarded object is met. A copy is made from
 * the info pointer read and the object's other words, which nobody writes
 * during a collection: the header is the only word of a from-space object
 * that changes, so it is read with acquire loads (which also make the
 * winner's copy and its block descriptor visible) and written only by CAS.
 *
 * Large objects have no header to swap: a global lock guards the
 * from-space lists they are unlinked from, and BF_EVACUATED, stored with
 * release after the object is relinked, is what other threads test.
 * One GC thread (the vanilla way, or a collection that is not parallel)
 * stores the forwarding pointer plainly.
 */
#ifndef RTS_SM_EVAC_H
#define RTS_SM_EVAC_H

#include "messages.h"
#include "sm/gc_thread.h"
#include "sm/layout.h"
#include "sm/mblock.h"
#include "sm/nonmoving.h"

/* Report an object whose info table the collector cannot make sense of. */
RTS_NORETURN void evac_bad_object(const StgClosure *q, const char *where);

void statics_mark(gc_thread *gct, const StgClosure *q);

/* Mark q, in a block of a generation marked in place (Note [Marking in place] in mark.h). */
void mark_object(gc_thread *gct, StgClosure *q, bdescr *bd);

/*
 * A selector thunk whose selectee is already a constructor: evacuate the
 * selected field instead. false if it cannot be done (leave the thunk).
 */
bool evac_selector(gc_thread *gct, StgClosure **p, StgClosure *q, const StgInfoTable *info);

/* Relink a large object (or pinned block) into its destination generation. */
void evac_large(gc_thread *gct, bdescr *bd);

/* A header or a block's flags, which another GC thread may be writing (Note [Forwarding by CAS]).
 */
RTS_INLINE const StgInfoTable *gc_info(const StgClosure *q)
{
#ifdef THREADED_RTS
    return __atomic_load_n(&q->info, __ATOMIC_ACQUIRE);
#else
    return q->info;
#endif
}
RTS_INLINE uint16_t gc_block_flags(const bdescr *bd)
{
#ifdef THREADED_RTS
    return __atomic_load_n(&bd->flags, __ATOMIC_ACQUIRE);
#else
    return bd->flags;
#endif
}

RTS_INLINE bool is_forwarded(const StgClosure *q)
{
    return ((StgWord)gc_info(q) & 1) != 0;
}
RTS_INLINE StgClosure *forwardee(const StgClosure *q)
{
    return (StgClosure *)((StgWord)gc_info(q) - 1);
}

/*
 * Store a field's new value. In the threaded way a release store: the
 * nonmoving mark thread may be reading the field (of an old object on a
 * remembered set) while a minor collection rewrites it, and what it reaches
 * through the new value (a copy just made, in a segment just made) must be
 * visible to it (Note [Tracing beside a collection] in nonmoving_mark.c).
 * On x86-64 it is the same mov.
 */
RTS_INLINE void evac_set_field(StgClosure **p, StgClosure *v)
{
#ifdef THREADED_RTS
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
#else
    *p = v;
#endif
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

/*
 * Copy an object whose header (`info`) was read already; the header word
 * is not read again (Note [Forwarding by CAS]). Most objects are a few
 * words: the common sizes get straight-line copies.
 */
RTS_INLINE void copy_words(StgPtr to, const StgInfoTable *info, const StgWord *from, StgWord size)
{
    to[0] = (StgWord)info;
    switch (size) {
    case 2:
        to[1] = from[1];
        return;
    case 3:
        to[1] = from[1];
        to[2] = from[2];
        return;
    case 4:
        to[1] = from[1];
        to[2] = from[2];
        to[3] = from[3];
        return;
    default:
        for (StgWord i = 1; i < size; i++)
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

/*
 * Make q's header point at its copy `to` (the last `size` words gct
 * allocated in generation gen_no): the address q now lives at.
 */
RTS_INLINE StgClosure *forward(gc_thread *gct, StgClosure *q, const StgInfoTable *info, StgPtr to,
                               StgWord size, uint32_t gen_no)
{
#ifdef THREADED_RTS
    if (gct->parallel) {
        const StgInfoTable *seen = info;
        if (RTS_LIKELY(__atomic_compare_exchange_n(&q->info, &seen,
                                                   (const StgInfoTable *)((StgWord)to + 1), false,
                                                   __ATOMIC_RELEASE, __ATOMIC_ACQUIRE)))
            return (StgClosure *)to;
        /* Another thread copied it first: take our words back, use its copy. */
        gct->ws[gen_no].todo_free = to;
        gct->copy_races++;
        StgClosure *won = (StgClosure *)((StgWord)seen - 1);
        if (Bdescr(won)->gen_no < gct->evac_gen_no)
            gct->failed_to_evac = true;
        return won;
    }
#endif
    (void)size;
    (void)gen_no;
    (void)info;
    q->info = (const StgInfoTable *)((StgWord)to + 1);
    return (StgClosure *)to;
}

/* Copy q (size words) to its destination generation and forward it. */
RTS_INLINE StgClosure *copy(gc_thread *gct, StgClosure *q, const StgInfoTable *info, StgWord size,
                            const bdescr *bd)
{
    ASSERT(size > 0 && size < LARGE_OBJECT_THRESHOLD_W);
    uint32_t gen_no = dest_gen(gct, bd);
    StgPtr to = gc_alloc_for_copy(gct, size, gen_no);
    copy_words(to, info, (const StgWord *)q, size);
    return forward(gct, q, info, to, size, gen_no);
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

    uint16_t flags = gc_block_flags(bd);
    if (flags & (BF_EVACUATED | BF_LARGE | BF_MARKED)) {
        if (RTS_UNLIKELY(flags & BF_NONMOVING) && RTS_UNLIKELY(gct->nm_fwd) &&
            nm_block_in_source(bd)) {
            /* An old copy: the field takes its copy (Note [Evacuating sparse segments]). */
            StgClosure *to = nm_forward_slot(q, bd);
            if (to) {
                q = to;
                bd = Bdescr(q);
                evac_set_field(p, TAG_CLOSURE(tag, q));
            }
        }
        /*
         * Nonmoving segments keep BF_EVACUATED; a collection that marks
         * them says so in gct (Note [Nonmoving segments] in nonmoving.c).
         */
        if (RTS_UNLIKELY(flags & (BF_MARKED | BF_NONMOVING)) &&
            ((flags & BF_MARKED) || gct->nm_grey))
            mark_object(gct, q, bd);
        else if (!(flags & BF_EVACUATED))
            evac_large(gct, bd);
        else if (bd->gen_no < gct->evac_gen_no)
            gct->failed_to_evac = true;
        return;
    }

    info = gc_info(q);
    if ((StgWord)info & 1) {
        StgClosure *to = (StgClosure *)((StgWord)info - 1);
        evac_set_field(p, TAG_CLOSURE(tag, to));
        if (Bdescr(to)->gen_no < gct->evac_gen_no)
            gct->failed_to_evac = true;
        return;
    }
    check_info(q, info);

    switch (info->type) {
    case CONSTR:
    case FUN:
        evac_set_field(
            p, TAG_CLOSURE(tag, copy(gct, q, info, 1 + (StgWord)info->ptrs + info->nptrs, bd)));
        return;

    case IND:
        /* Short-cut the indirection: the field points at the value. */
        q = ((StgInd *)q)->indirectee;
        evac_set_field(p, q);
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
            uint32_t gen_no = dest_gen(gct, bd);
            StgPtr to = gc_alloc_for_copy(gct, SIZEOF_W(StgBlackhole), gen_no);
            ((StgBlackhole *)to)->info = &stg_BLACKHOLE_info;
            ((StgBlackhole *)to)->owner = slot;
            evac_set_field(p, forward(gct, q, info, to, SIZEOF_W(StgBlackhole), gen_no));
            return;
        }
        if (info->type == THUNK) {
            evac_set_field(
                p, TAG_CLOSURE(tag, copy(gct, q, info, 2 + (StgWord)info->ptrs + info->nptrs, bd)));
            return;
        }
        if (info->type == THUNK_SELECTOR && evac_selector(gct, p, q, info))
            return;
        break;
    }

    default:
        break;
    }

    Layout l = layout_of(q, info);
    if (l.size == 0)
        evac_bad_object(q, "evacuate");
    evac_set_field(p, TAG_CLOSURE(tag, copy(gct, q, info, l.size, bd)));
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
