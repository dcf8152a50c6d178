/*
 * Evacuation. See evac.h and Note [To-space blocks] in gc_thread.h.
 */
#include "sm/evac.h"

#include "messages.h"
#include "sm/layout.h"

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
void evac_large(bdescr *bd)
{
    ASSERT(bd->blocks > 0 && (bd->flags & BF_LARGE) && !(bd->flags & BF_EVACUATED));
    generation *from = bd->gen;
    /* Unlink from the from-space list (doubly linked through link/u.back). */
    if (bd->u.back)
        bd->u.back->link = bd->link;
    else
        from->old_large_objects = bd->link;
    if (bd->link)
        bd->link->u.back = bd->u.back;

    uint32_t gen_no = dest_gen(bd);
    generation *gen = &generations[gen_no];
    gen_workspace *ws = &gct->ws[gen_no];
    bd->flags |= BF_EVACUATED;
    bd->gen = gen;
    bd->gen_no = (uint16_t)gen_no;
    bd->dest_no = (uint16_t)gen->to->no;
    if (bd->flags & BF_PINNED) {
        /* Pinned blocks hold byte arrays only: nothing to scavenge. */
        bd->link = ws->large_done;
        ws->large_done = bd;
    } else {
        bd->link = ws->todo_large;
        ws->todo_large = bd;
    }
}
