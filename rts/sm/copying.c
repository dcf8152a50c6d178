/*
 * The copying policy (Note [Generation policies] in policy.h): a collected
 * generation's blocks become from-space; survivors are copied into
 * to-space blocks of their destination's workspace (Note [To-space
 * blocks] in gc_thread.h), scanned Cheney-style (scav.c), and the
 * from-space is freed. Large objects are relinked, never copied.
 */
#include "sm/policy.h"

#include "messages.h"
#include "sm/evac.h"
#include "sm/scav.h"
#include "sm/storage.h"

static void copying_prepare(gc_thread *gct, generation *gen)
{
    (void)gct;
    gen->old_blocks = gen->blocks;
    gen->n_old_blocks = gen->n_blocks;
    for (bdescr *bd = gen->old_blocks; bd; bd = bd->link)
        bd->flags &= (uint16_t)~BF_EVACUATED;
    gen->blocks = NULL;
    gen->n_blocks = 0;
    gen->n_words = 0;
    gen->old_large_objects = gen->large_objects;
    for (bdescr *bd = gen->old_large_objects; bd; bd = bd->link)
        bd->flags &= (uint16_t)~BF_EVACUATED;
    gen->large_objects = NULL;
    gen->n_large_blocks = 0;
    gen->n_large_words = 0;
}

static bool copying_scan(gc_thread *gct, generation *gen)
{
    return scav_workspace(gct, &gct->ws[gen->no]);
}

static StgClosure *copying_is_alive(const bdescr *bd, StgClosure *q)
{
    if (bd->flags & BF_LARGE)
        return NULL; /* reached, it would have been relinked with BF_EVACUATED */
    return is_forwarded(q) ? forwardee(q) : NULL;
}

void copying_retire_todo_bd(gen_workspace *ws)
{
    bdescr *bd = ws->todo_bd;
    if (bd) {
        bd->free = ws->todo_free;
        if (bd->free == bd->start) {
            bd_free_group_lock(bd);
        } else {
            bd->link = ws->scavd_list;
            ws->scavd_list = bd;
        }
        ws->todo_bd = NULL;
        ws->todo_free = ws->todo_lim = NULL;
    }
}

/* Move the workspace's to-space blocks and large objects into the generation. */
void copying_finish_workspace(gc_thread *gct, gen_workspace *ws)
{
    generation *gen = ws->gen;
    bdescr *bd;
    copying_retire_todo_bd(ws);
    /* These are the blocks this collection copied into: they count the copying. */
    for (bdescr *next; (bd = ws->scavd_list) != NULL; ws->scavd_list = next) {
        next = bd->link;
        bd->link = gen->blocks;
        gen->blocks = bd;
        gen->n_blocks += bd->blocks;
        gen->n_words += bd_words(bd);
        gct->copied_words += bd_words(bd);
    }
    for (bdescr *next; (bd = ws->large_done) != NULL; ws->large_done = next) {
        next = bd->link;
        sm_link_large(gen, bd);
    }
}

void copying_free_dead_large_objects(generation *gen)
{
    bdescr *bd = gen->old_large_objects;
    gen->old_large_objects = NULL;
    sm_lock();
    while (bd) {
        bdescr *next = bd->link;
        bd_free_group(bd);
        bd = next;
    }
    sm_unlock();
}

static void copying_finish(gc_thread *gct, generation *gen, bool collected)
{
    copying_finish_workspace(gct, &gct->ws[gen->no]);
    if (!collected)
        return;
    bd_free_chain_lock(gen->old_blocks);
    gen->old_blocks = NULL;
    gen->n_old_blocks = 0;
    copying_free_dead_large_objects(gen);
}

/* Walk [p, end): objects separated by slop (Note [Heap walkability] in layout.h). */
static void walk_block(StgPtr p, StgPtr end, void (*f)(StgClosure *, void *), void *ctx)
{
    while (p < end) {
        if (*p == 0) {
            p++;
            continue;
        }
        StgClosure *q = (StgClosure *)p;
        f(q, ctx); /* first: the sanity checker checks the info table before it is trusted */
        StgWord size = layout_of(q, q->info).size;
        if (size == 0)
            return;
        p += size;
    }
}

void copying_walk(generation *gen, void (*f)(StgClosure *, void *), void *ctx)
{
    for (bdescr *bd = gen->blocks; bd; bd = bd->link)
        walk_block(bd->start, bd->free, f, ctx);
    copying_walk_large(gen, f, ctx);
}

void copying_walk_large(generation *gen, void (*f)(StgClosure *, void *), void *ctx)
{
    for (bdescr *bd = gen->large_objects; bd; bd = bd->link)
        walk_block(bd->start, bd->free, f, ctx);
}

void copying_check(const generation *gen)
{
    uint32_t g = gen->no;
    StgWord blocks = 0, words = 0;
    for (bdescr *bd = gen->blocks; bd; bd = bd->link) {
        if (bd->gen != gen || bd->gen_no != g || bd->dest_no != gen->to->no ||
            !(bd->flags & BF_EVACUATED) || (bd->flags & BF_LARGE))
            msg_barf("copying: block %p of generation %u has bad fields", (void *)bd->start, g);
        blocks += bd->blocks;
        words += bd_words(bd);
    }
    if (blocks != gen->n_blocks || words != gen->n_words)
        msg_barf("copying: generation %u counts %lu blocks/%lu words, has %lu/%lu", g,
                 (unsigned long)gen->n_blocks, (unsigned long)gen->n_words, (unsigned long)blocks,
                 (unsigned long)words);
}

/* Copying a generation needs room for all of it again (the copy reserve). */
static StgWord copying_reserve(const generation *gen, StgWord blocks)
{
    (void)gen;
    return blocks;
}

const GenPolicy gen_policy_copying = {
    .name = "copying",
    .prepare = copying_prepare,
    .scan = copying_scan,
    .is_alive = copying_is_alive,
    .finish = copying_finish,
    .walk = copying_walk,
    .check = copying_check,
    .reserve = copying_reserve,
};
