/*
 * Scavenging. See Note [To-space blocks] in gc_thread.h and
 * Note [Remembered sets] in mut_list.h.
 */
#include "sm/scav.h"

#include "capability.h"
#include "messages.h"
#include "sm/evac.h"
#include "sm/gc_par.h"
#include "sm/layout.h"
#include "sm/mut_list.h"
#include "sm/nonmoving.h"
#include "sm/policy.h"
#include "sm/roots.h"
#include "sm/scan.h"
#include "sm/statics.h"
#include "flags/flags.h"

uint64_t scav_cards_scanned;

RTS_INLINE void scav_range(gc_thread *gct, StgClosure **fields, StgWord n)
{
    for (StgWord i = 0; i < n; i++)
        evacuate(gct, &fields[i]);
}

bool scav_stack_is_active(const StgStack *s)
{
    for (uint32_t i = 0; i < n_capabilities; i++)
        if (capabilities[i]->r.stack == s)
            return true;
    return false;
}

static void scav_stack_frames(gc_thread *gct, StgStack *s)
{
    for (StackWalk w = stack_walk(s); stack_walk_next(&w);) {
        if (stack_walk_bad(&w))
            msg_fatal(EXIT_INTERNAL_ERROR,
                      "scavenge: bad stack frame at %p (info %p) in stack %p; the stack is corrupt",
                      (void *)w.p, (const void *)w.info, (void *)s);
        if (gct->mark_statics && w.info->srt)
            statics_mark_srt(gct, w.info->srt);
        StgClosure **slots = stack_walk_slots(&w);
        if (w.f.all_ptrs) {
            scav_range(gct, slots, w.f.n_slots);
        } else {
            for (StgWord i = 0; i < w.f.n_slots; i++)
                if (frame_slot_is_ptr(&w.f, i))
                    evacuate(gct, &slots[i]);
        }
    }
}

/*
 * A mutable object's new clean/dirty header. Atomic in the threaded way:
 * another GC thread may be trying to claim the same object from a second
 * remembered set (claim_remembered).
 */
RTS_INLINE void set_info(StgClosure *q, const StgInfoTable *info)
{
#ifdef THREADED_RTS
    __atomic_store_n(&q->info, info, __ATOMIC_RELEASE);
#else
    q->info = info;
#endif
}

/*
 * Scavenge a MUT_ARR_PTRS: every card (a whole array in to-space), or only
 * the dirty cards (an old array from a remembered set). Each card ends up
 * marked iff it still points young; the header says whether any does.
 */
static void scav_mut_arr(gc_thread *gct, StgMutArrPtrs *a, bool dirty_cards_only)
{
    uint8_t *cards = mut_arr_ptrs_cards(a);
    StgWord n_cards = (a->ptrs + (1u << MUT_ARR_PTRS_CARD_BITS) - 1) >> MUT_ARR_PTRS_CARD_BITS;
    bool any = false;
    bool saved = gct->eager_promotion;
    gct->eager_promotion = false;
    for (StgWord c = 0; c < n_cards; c++) {
        if (dirty_cards_only && !cards[c])
            continue;
        StgWord lo = c << MUT_ARR_PTRS_CARD_BITS;
        StgWord hi = lo + (1u << MUT_ARR_PTRS_CARD_BITS);
        if (hi > a->ptrs)
            hi = a->ptrs;
        gct->failed_to_evac = false;
        scav_range(gct, &a->payload[lo], hi - lo);
        gct->cards_scanned++;
        cards[c] = gct->failed_to_evac;
        any |= gct->failed_to_evac;
    }
    gct->eager_promotion = saved;
    uint32_t type = a->info->type;
    bool frozen = type == MUT_ARR_PTRS_FROZEN_CLEAN || type == MUT_ARR_PTRS_FROZEN_DIRTY;
    if (frozen)
        set_info((StgClosure *)a,
                 any ? &stg_MUT_ARR_PTRS_FROZEN_DIRTY_info : &stg_MUT_ARR_PTRS_FROZEN_CLEAN_info);
    else
        set_info((StgClosure *)a,
                 any ? &stg_MUT_ARR_PTRS_DIRTY_info : &stg_MUT_ARR_PTRS_CLEAN_info);
    gct->failed_to_evac = any;
}

/* Fields of a mutable object: not eagerly promoted (it will be written again). */
RTS_INLINE void scav_mutable_fields(gc_thread *gct, StgClosure **fields, StgWord n)
{
    bool saved = gct->eager_promotion;
    gct->eager_promotion = false;
    scav_range(gct, fields, n);
    gct->eager_promotion = saved;
}

/* After scavenging a mutable object: clean if nothing in it points young any more. */
static void set_clean_or_dirty(gc_thread *gct, StgClosure *q, uint32_t type)
{
    bool dirty = gct->failed_to_evac;
    switch (type) {
    case MUT_VAR_CLEAN:
    case MUT_VAR_DIRTY:
        set_info(q, dirty ? &stg_MUT_VAR_DIRTY_info : &stg_MUT_VAR_CLEAN_info);
        break;
    case SMALL_MUT_ARR_PTRS_CLEAN:
    case SMALL_MUT_ARR_PTRS_DIRTY:
        set_info(q,
                 dirty ? &stg_SMALL_MUT_ARR_PTRS_DIRTY_info : &stg_SMALL_MUT_ARR_PTRS_CLEAN_info);
        break;
    default: /* frozen */
        set_info(q, dirty ? &stg_SMALL_MUT_ARR_PTRS_FROZEN_DIRTY_info
                          : &stg_SMALL_MUT_ARR_PTRS_FROZEN_CLEAN_info);
        break;
    }
}

/*
 * Scavenge one object in place; returns its size. Sets gct->failed_to_evac
 * when the object must stay on (or go onto) a remembered set.
 * `from_mut_list`: the object is an old one taken from a remembered set.
 * What is followed is the object's scan class (scan.h).
 */
RTS_INLINE StgWord scav_object_inline(gc_thread *gct, StgClosure *q, bool from_mut_list)
{
    const StgInfoTable *info = q->info;
    ScanInfo si = scan_info(q, info, 0);
    StgClosure **fields = (StgClosure **)q + si.ptr_off;

    switch (si.cls) {
    case SCAN_FIELDS:
        scav_range(gct, fields, si.n_ptrs);
        return si.size;

    case SCAN_NONE:
    case SCAN_WEAK: /* weak pointers' fields belong to the weak phase (Note [Weak pointers]) */
        if (si.size == 0)
            evac_bad_object(q, "scavenge");
        return si.size;

    case SCAN_CODE:
        if (gct->mark_statics && si.srt)
            statics_mark_srt(gct, si.srt);
        scav_range(gct, fields, si.n_ptrs);
        return si.size;

    case SCAN_MUTABLE:
        scav_mutable_fields(gct, fields, si.n_ptrs);
        set_clean_or_dirty(gct, q, info->type);
        return si.size;

    case SCAN_CARDS:
        scav_mut_arr(gct, (StgMutArrPtrs *)q, from_mut_list);
        return si.size;

    case SCAN_TSO: {
        StgTSO *t = (StgTSO *)q;
        scav_mutable_fields(gct, fields, si.n_ptrs);
        /* A spare chunk is reachable from nowhere else: it dies here. */
        t->spare = NULL;
        if (gct->failed_to_evac)
            t->flags |= TSO_DIRTY;
        else
            t->flags &= ~(StgWord)TSO_DIRTY;
        return si.size;
    }

    case SCAN_STACK: {
        StgStack *s = (StgStack *)q;
        bool saved = gct->eager_promotion;
        gct->eager_promotion = false;
        scav_stack_frames(gct, s);
        gct->eager_promotion = saved;
        if (gct->nm_grey)
            nm_stack_scanned(s); /* its slots are greyed: Note [Lazy stack marking] */
        /* The chunk a thread is running on will be written again: keep it remembered. */
        if (scav_stack_is_active(s))
            gct->failed_to_evac = true;
        s->dirty = gct->failed_to_evac;
        return si.size;
    }
    }
    evac_bad_object(q, "scavenge");
}

/*
 * The loops that scan to-space (scav_block, scav_slots, scav_objects) get scav_object
 * inline: a call per object, with the frame its many inlined evacuations
 * need, was a few percent of a minor collection's time. Other callers
 * share one out-of-line copy.
 */
static StgWord scav_object(gc_thread *gct, StgClosure *q, bool from_mut_list)
{
    return scav_object_inline(gct, q, from_mut_list);
}

StgWord scav_one(gc_thread *gct, StgClosure *q, uint32_t gen_no)
{
    gct->evac_gen_no = gen_no;
    gct->failed_to_evac = false;
    StgWord size = scav_object(gct, q, false);
    if (gct->failed_to_evac && gen_no > 0)
        mut_list_record(gct->cap, q, gen_no);
    return size;
}

void scav_slots(gc_thread *gct, StgPtr from, StgPtr to, StgWord step, uint32_t gen_no)
{
    gct->evac_gen_no = gen_no;
    for (StgPtr p = from; p < to; p += step) {
        gct->failed_to_evac = false;
        scav_object_inline(gct, (StgClosure *)p, false);
        if (gct->failed_to_evac && gen_no > 0)
            mut_list_record(gct->cap, (StgClosure *)p, gen_no);
    }
}

StgPtr scav_objects(gc_thread *gct, StgPtr p, StgPtr lim, uint32_t gen_no)
{
    gct->evac_gen_no = gen_no;
    while (p < lim) {
        gct->failed_to_evac = false;
        StgWord size = scav_object_inline(gct, (StgClosure *)p, false);
        if (gct->failed_to_evac && gen_no > 0)
            mut_list_record(gct->cap, (StgClosure *)p, gen_no);
        p += size;
    }
    return p;
}

static void push_scanned(gen_workspace *ws, bdescr *bd)
{
    bd->link = ws->scavd_list;
    ws->scavd_list = bd;
}

/* Cheney-scan a to-space block from its scan pointer. */
static void scav_block(gc_thread *gct, gen_workspace *ws, bdescr *bd)
{
    uint32_t gen_no = bd->gen_no;
    StgPtr p = bd->u.scan;
    gct->scan_bd = bd;
    gct->evac_gen_no = gen_no;
    for (;;) {
        /* The block may be filling while we scan it. */
        StgPtr lim = bd == ws->todo_bd ? ws->todo_free : bd->free;
        if (p >= lim)
            break;
        gct->failed_to_evac = false;
        StgWord size = scav_object_inline(gct, (StgClosure *)p, false);
        if (gct->failed_to_evac && gen_no > 0)
            mut_list_record(gct->cap, (StgClosure *)p, gen_no);
        p += size;
    }
    bd->u.scan = p;
    gct->scan_bd = NULL;
    if (bd != ws->todo_bd)
        push_scanned(ws, bd);
}

static void scav_large(gc_thread *gct, gen_workspace *ws, bdescr *bd)
{
    gct->evac_gen_no = bd->gen_no;
    gct->failed_to_evac = false;
    scav_object(gct, (StgClosure *)bd->start, false);
    if (gct->failed_to_evac && bd->gen_no > 0)
        mut_list_record(gct->cap, (StgClosure *)bd->start, bd->gen_no);
    bd->link = ws->large_done;
    ws->large_done = bd;
}

bool scav_workspace(gc_thread *gct, gen_workspace *ws)
{
    bool work = false;
    bdescr *bd;
    while ((bd = gc_pop(gct, &ws->todo_large)) != NULL) {
        scav_large(gct, ws, bd);
        work = true;
    }
    while ((bd = gc_pop(gct, &ws->todo_q)) != NULL) {
        scav_block(gct, ws, bd);
        work = true;
    }
    bd = ws->todo_bd;
    if (bd && bd->u.scan < ws->todo_free) {
        scav_block(gct, ws, bd);
        work = true;
    }
    return work;
}

/* Work taken from another GC thread (gc_par.c): it lands in our own workspace of its generation. */
void scav_stolen_block(gc_thread *gct, bdescr *bd)
{
    scav_block(gct, &gct->ws[bd->gen_no], bd);
}
void scav_stolen_large(gc_thread *gct, bdescr *bd)
{
    scav_large(gct, &gct->ws[bd->gen_no], bd);
}

void scav_loop(gc_thread *gct)
{
    bool work;
    do {
        work = false;
        for (uint32_t g = 0; g < n_generations; g++)
            if (generations[g].policy->scan(gct, &generations[g]))
                work = true;
        if (statics_scavenge(gct))
            work = true;
        gct->scav_find_work++;
    } while (work);
}

/*
 * In a parallel collection an object can be on two capabilities'
 * remembered sets (two threads made it dirty at once), and two GC threads
 * must not scavenge it at the same time: the first to turn its header
 * from dirty to clean takes it; the other finds it clean and skips it, as
 * it would an object cleaned since it was recorded. The scavenger sets the
 * header's final state. Other remembered objects (updated thunks, stacks,
 * threads, objects a collection left pointing young) are recorded once.
 */
static bool claim_remembered(gc_thread *gct, StgClosure *q, const StgInfoTable *info)
{
#ifdef THREADED_RTS
    if (!gct->parallel)
        return true;
    const StgInfoTable *clean;
    switch (info->type) {
    case MUT_VAR_DIRTY:
        clean = &stg_MUT_VAR_CLEAN_info;
        break;
    case MUT_ARR_PTRS_DIRTY:
        clean = &stg_MUT_ARR_PTRS_CLEAN_info;
        break;
    case MUT_ARR_PTRS_FROZEN_DIRTY:
        clean = &stg_MUT_ARR_PTRS_FROZEN_CLEAN_info;
        break;
    case SMALL_MUT_ARR_PTRS_DIRTY:
        clean = &stg_SMALL_MUT_ARR_PTRS_CLEAN_info;
        break;
    case SMALL_MUT_ARR_PTRS_FROZEN_DIRTY:
        clean = &stg_SMALL_MUT_ARR_PTRS_FROZEN_CLEAN_info;
        break;
    default:
        return true;
    }
    const StgInfoTable *seen = info;
    return __atomic_compare_exchange_n(&q->info, &seen, clean, false, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
#else
    (void)gct;
    (void)q;
    (void)info;
    return true;
#endif
}

/* One remembered object of generation g, as a root (roots_visit_remembered). */
static void scav_remembered(void *ctx, StgClosure *q, uint32_t g)
{
    gc_thread *gct = ctx;
    const StgInfoTable *info = gc_info(q);
    uint32_t type = info->type;
    /* Cleaned since it was recorded (it is already off the set). */
    if (type == MUT_VAR_CLEAN || type == MUT_ARR_PTRS_CLEAN || type == SMALL_MUT_ARR_PTRS_CLEAN ||
        (type == STACK && !((StgStack *)q)->dirty))
        return;
    if (!claim_remembered(gct, q, info))
        return;
    gct->evac_gen_no = g;
    gct->failed_to_evac = false;
    scav_object(gct, q, true);
    if (gct->failed_to_evac)
        mut_list_record(gct->cap, q, g);
}

void scav_mut_lists(gc_thread *gct, bdescr ***saved, uint32_t N, uint32_t n_threads)
{
    /* GC thread i takes the sets of capabilities i, i + n, i + 2n, ... */
    for (uint32_t c = gct->index; c < n_capabilities; c += n_threads) {
        roots_visit_remembered_cap(saved, c, N, scav_remembered, gct);
        for (uint32_t g = N + 1; g < n_generations; g++) {
            bd_free_chain_lock(saved[c][g]);
            saved[c][g] = NULL;
        }
    }
}
