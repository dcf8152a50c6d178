/*
 * See gc_util.h.
 */
#include "sm/gc_util.h"

#include "sm/block.h"
#include "sm/evac.h"
#include "sm/mblock.h"
#include "sm/nonmoving.h"
#include "sm/policy.h"
#include "sm/storage.h"

bool gc_is_alive(StgClosure **pp)
{
    StgClosure *p = *pp;
    for (;;) {
        if (p == NULL || !HEAP_ALLOCED(p)) {
            *pp = p;
            return true;
        }
        StgWord tag = GET_TAG(p);
        StgClosure *q = UNTAG(p);
        bdescr *bd = Bdescr(q);
        if ((bd->flags & BF_NONMOVING) && __atomic_load_n(&nm_forwarding, __ATOMIC_ACQUIRE)) {
            /* Weak keys and stable names follow a duplicated object (Note [Evacuating sparse
             * segments] in nonmoving_evac.c). */
            StgClosure *to = nm_forward_slot(q, bd);
            if (to) {
                q = to;
                bd = Bdescr(q);
                p = TAG_CLOSURE(tag, q);
            }
        }
        /* A nonmoving segment keeps BF_EVACUATED; a marking collection decides it by its marks. */
        if ((bd->flags & BF_EVACUATED) && !((bd->flags & BF_NONMOVING) && nm_segments_marked())) {
            *pp = p;
            return true;
        }
        /* In a generation being collected: its policy knows. */
        StgClosure *now = bd->gen->policy->is_alive(bd, q);
        if (now) {
            *pp = TAG_CLOSURE(tag, now);
            return true;
        }
        if ((bd->flags & BF_LARGE) || q->info->type != IND)
            return false;
        p = ((StgInd *)q)->indirectee;
    }
}
