/*
 * See gc_util.h.
 */
#include "sm/gc_util.h"

#include "sm/block.h"
#include "sm/evac.h"
#include "sm/mblock.h"

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
        if (bd->flags & BF_EVACUATED) {
            *pp = p;
            return true;
        }
        if (bd->flags & BF_LARGE)
            return false;
        if (is_forwarded(q)) {
            *pp = TAG_CLOSURE(tag, forwardee(q));
            return true;
        }
        if (q->info->type != IND)
            return false;
        p = ((StgInd *)q)->indirectee;
    }
}
