/*
 * Evacuation. See evac.h and Note [To-space blocks] in gc_thread.h.
 */
#include "sm/evac.h"

#include "messages.h"
#include "sm/gc_par.h"
#include "sm/layout.h"
#include "sm/nonmoving.h"
#include "sm/storage.h"

void evac_bad_object(const StgClosure *q, const char *where)
{
    const StgInfoTable *info = q->info;
    msg_fatal(EXIT_INTERNAL_ERROR,
              "%s: object at %p has an invalid info table %p (closure type %u); "
              "the heap is corrupt",
              where, (const void *)q, (const void *)info,
              (unsigned)(info && !HEAP_ALLOCED(info) ? info->type : 0));
}

/*
 * A large object (or pinned block) is never copied: its group moves from
 * the from-space large-object list to its destination generation's list.
 */
/* Guards the from-space large-object lists in a parallel collection (Note [Forwarding by CAS]). */
static GcSpinLock large_lock;

void evac_large(gc_thread *gct, bdescr *bd)
{
    if (RTS_UNLIKELY(nm_pause == NM_PAUSE_START) && bd->gen_no == oldest_gen->no) {
        /* A concurrent cycle's start: greyed, not moved (Note [The concurrent mark]). */
        nm_grey_large(gct, bd);
        return;
    }
#ifdef THREADED_RTS
    if (gct->parallel) {
        gc_spin_lock(&large_lock);
        if (bd->flags & BF_EVACUATED) {
            /* Another thread relinked it while we waited. */
            gc_spin_unlock(&large_lock);
            if (bd->gen_no < gct->evac_gen_no)
                gct->failed_to_evac = true;
            return;
        }
    }
#endif
    ASSERT(bd->blocks > 0 && (bd->flags & BF_LARGE) && !(bd->flags & BF_EVACUATED));
    generation *from = bd->gen;
    /* Unlink from the from-space list (doubly linked through link/u.back). */
    if (bd->u.back)
        bd->u.back->link = bd->link;
    else
        from->old_large_objects = bd->link;
    if (bd->link)
        bd->link->u.back = bd->u.back;

    uint32_t gen_no = dest_gen(gct, bd);
    generation *gen = &generations[gen_no];
    gen_workspace *ws = &gct->ws[gen_no];
    bd->gen = gen;
    bd->gen_no = (uint16_t)gen_no;
    bd->dest_no = (uint16_t)gen->to->no;
    if (bd->flags & BF_PINNED) {
        /* Pinned blocks hold byte arrays only: nothing to scavenge. */
        bd->link = ws->large_done;
        ws->large_done = bd;
    } else {
        gc_push_large(gct, ws, bd);
    }
    /* Last: other threads test this flag, and then read gen_no. */
#ifdef THREADED_RTS
    __atomic_store_n(&bd->flags, (uint16_t)(bd->flags | BF_EVACUATED), __ATOMIC_RELEASE);
    if (gct->parallel)
        gc_spin_unlock(&large_lock);
#else
    bd->flags |= BF_EVACUATED;
#endif
}

uint64_t evac_large_lock_spins(void)
{
    return large_lock.spins;
}
uint64_t evac_large_lock_yields(void)
{
    return large_lock.yields;
}

/*
 * Note [Selector thunks]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * A selector thunk (fst p) keeps all of p alive, and with it p's other
 * fields (snd p) — a classic space leak. So when the collector meets an
 * unevaluated selector thunk whose selectee is (or, through indirections
 * and nested selectors, becomes) a constructor, it evacuates the selected
 * field in its place and lets the thunk, the pair and its other fields die.
 * The field may itself be a selector; the recursion is bounded
 * (SELECTOR_DEPTH), which also cuts cycles such as p = (fst p, 1). The
 * thunk itself is left unchanged, so another reference to it is short-cut
 * the same way.
 *
 * In a parallel collection another GC thread may be copying or scavenging
 * the objects met on the way: a forwarded object's type is read from its
 * copy, but its fields from the from-space original, which nobody writes;
 * the fields of an object that is not in from-space (to-space, or an
 * older generation) may be rewritten by a scavenger at the same moment,
 * so they are read with atomic loads (either value reaches the same
 * object; evacuate() then finds the right copy).
 */
#define SELECTOR_DEPTH 16

static StgClosure *read_field(StgClosure *const *f)
{
#ifdef THREADED_RTS
    return __atomic_load_n(f, __ATOMIC_RELAXED);
#else
    return *f;
#endif
}

/* The value of field `field` of the closure c reaches, following INDs. */
static bool select_field(gc_thread *gct, StgClosure *c, uint32_t field, StgClosure **out)
{
    for (int hops = 0; hops < 64; hops++) {
        c = UNTAG(c);
        if (!HEAP_ALLOCED(c)) {
            if (c->info->type != CONSTR_STATIC || field >= c->info->ptrs)
                return false;
            *out = c->payload[field];
            return true;
        }
        const StgInfoTable *info = gc_info(c);
        if ((StgWord)info & 1)
            info = gc_info((StgClosure *)((StgWord)info - 1)); /* fields: still c's */
        switch (info->type) {
        case CONSTR:
            if (field >= info->ptrs)
                return false;
            *out = read_field(&c->payload[field]);
            return true;
        case IND:
            c = read_field(&((StgInd *)c)->indirectee);
            continue;
        case THUNK_SELECTOR: {
            /* A nested selector: find its value first (bounded). */
            StgClosure *inner;
            if (((StgSelector *)c)->slot != 0 || gct->selector_depth >= SELECTOR_DEPTH)
                return false;
            gct->selector_depth++;
            bool ok =
                select_field(gct, read_field(&((StgSelector *)c)->selectee), info->tag, &inner);
            gct->selector_depth--;
            if (!ok)
                return false;
            c = inner;
            continue;
        }
        default:
            return false;
        }
    }
    return false;
}

bool evac_selector(gc_thread *gct, StgClosure **p, StgClosure *q, const StgInfoTable *info)
{
    if (gct->selector_depth >= SELECTOR_DEPTH)
        return false;
    StgClosure *v;
    gct->selector_depth++;
    bool ok = select_field(gct, ((StgSelector *)q)->selectee, info->tag, &v);
    if (ok && UNTAG(v) != q) {
        evac_set_field(p, v);
        evacuate(gct, p);
    }
    gct->selector_depth--;
    return ok && UNTAG(v) != q;
}
