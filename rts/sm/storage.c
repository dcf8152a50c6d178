/*
 * The storage manager: generations, large objects, start-up and shut-down.
 * See Note [Generations and aging] in storage.h.
 */
#include "sm/storage.h"

#include <stdlib.h>

#include "flags/flags.h"
#include "hooks.h"
#include "messages.h"
#include "sm/gc.h"
#include "sm/mblock.h"
#include "sm/mut_list.h"
#include "sm/nonmoving.h"
#include "sm/policy.h"
#include "sm/trigger.h"

generation *generations;
uint32_t n_generations;
generation *g0;
generation *oldest_gen;
StgWord sm_large_alloc_blocks;

void nursery_init(void);
void nursery_exit(void);

bool sm_zero_slop;

void sm_init(void)
{
#ifdef DEBUG
    sm_zero_slop = true;
#else
    sm_zero_slop = rts_flags.prof.heap_prof != HEAP_PROF_NONE;
#endif
    mblock_init();
    bd_init();

    n_generations = rts_flags.gc.generations;
    if (n_generations < 1)
        msg_fatal(1, "-G must be at least 1");
    generations = hooks_calloc(n_generations, sizeof(generation), "generations");
    for (uint32_t g = 0; g < n_generations; g++) {
        generations[g].no = g;
        generations[g].policy = &gen_policy_copying;
        generations[g].to = &generations[g + 1 < n_generations ? g + 1 : g];
    }
    g0 = &generations[0];
    oldest_gen = &generations[n_generations - 1];
    /* The oldest generation's row (Note [Generation policies]); -c<n> may switch it later. */
    if (rts_flags.gc.compact || rts_flags.gc.sweep) {
        if (n_generations == 1)
            msg_error("WARNING: compact/sweep is incompatible with -G1; disabled");
        else if (rts_flags.gc.sweep)
            oldest_gen->policy = &gen_policy_mark_region;
        else
            oldest_gen->policy = &gen_policy_compacting;
    } else if (rts_flags.gc.nonmoving && n_generations > 1) {
        oldest_gen->policy = &gen_policy_nonmoving;
        nm_init();
    }
    sm_large_alloc_blocks = 0;

    for (uint32_t c = 0; c < n_capabilities; c++) {
        Capability *cap = capabilities[c];
        cap->mut_lists = hooks_calloc(n_generations, sizeof(bdescr *), "remembered sets");
        for (uint32_t g = 1; g < n_generations; g++)
            cap->mut_lists[g] = mut_list_new_block();
    }
    nursery_init();
    trigger_init();
    gc_init();
}

void sm_exit(void)
{
    gc_exit();
    nursery_exit();
    nm_exit();
    for (uint32_t c = 0; c < n_capabilities; c++) {
        free(capabilities[c]->mut_lists);
        capabilities[c]->mut_lists = NULL;
    }
    free(generations);
    generations = NULL;
    g0 = oldest_gen = NULL;
    n_generations = 0;
    bd_exit();
    mblock_exit(); /* gives the whole reservation back */
}

void sm_link_large(generation *gen, bdescr *bd)
{
    bd->gen = gen;
    bd->gen_no = (uint16_t)gen->no;
    bd->dest_no = (uint16_t)gen->to->no;
    bd->flags |= BF_LARGE | BF_EVACUATED;
    bd->u.back = NULL;
    bd->link = gen->large_objects;
    if (gen->large_objects)
        gen->large_objects->u.back = bd;
    gen->large_objects = bd;
    gen->n_large_blocks += bd->blocks;
    gen->n_large_words += bd_words(bd);
}

void sm_unlink_large(generation *gen, bdescr *bd)
{
    if (bd->u.back)
        bd->u.back->link = bd->link;
    else
        gen->large_objects = bd->link;
    if (bd->link)
        bd->link->u.back = bd->u.back;
    gen->n_large_blocks -= bd->blocks;
    gen->n_large_words -= bd_words(bd);
}

StgWord sm_count_owned_blocks(void)
{
    StgWord n = 0;
    for (uint32_t g = 0; g < n_generations; g++)
        n += generations[g].n_blocks + generations[g].n_large_blocks;
    for (uint32_t i = 0; i < n_nurseries; i++)
        n += nurseries[i].n_blocks;
    for (uint32_t c = 0; c < n_capabilities; c++) {
        Capability *cap = capabilities[c];
        for (uint32_t g = 1; g < n_generations; g++)
            for (bdescr *bd = cap->mut_lists[g]; bd; bd = bd->link)
                n += bd->blocks;
        if (cap->pinned_block)
            n += cap->pinned_block->blocks;
        for (bdescr *bd = cap->pinned_blocks; bd; bd = bd->link)
            n += bd->blocks;
    }
    return n;
}

void sm_add_capabilities(uint32_t from, uint32_t to)
{
    for (uint32_t c = from; c < to; c++) {
        Capability *cap = capabilities[c];
        cap->mut_lists = hooks_calloc(n_generations, sizeof(bdescr *), "remembered sets");
        for (uint32_t g = 1; g < n_generations; g++)
            cap->mut_lists[g] = mut_list_new_block();
    }
    gc_add_capabilities(from, to);
}

void sm_check(void)
{
    for (uint32_t g = 0; g < n_generations; g++) {
        generation *gen = &generations[g];
        gen->policy->check(gen);
        StgWord blocks = 0, words = 0;
        bdescr *prev = NULL;
        for (bdescr *bd = gen->large_objects; bd; prev = bd, bd = bd->link) {
            if (bd->u.back != prev || bd->gen != gen || !(bd->flags & BF_LARGE))
                msg_barf("sm_check: large object %p of generation %u has bad fields",
                         (void *)bd->start, g);
            blocks += bd->blocks;
            words += bd_words(bd);
        }
        if (blocks != gen->n_large_blocks || words != gen->n_large_words)
            msg_barf("sm_check: generation %u large-object counts are wrong", g);
    }
}
