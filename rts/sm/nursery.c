/*
 * Nurseries: the allocation area, -A bytes per capability, optionally cut
 * into -n chunks that capabilities take from a shared pool.
 *
 * Invariants: every nursery block is a single block with BF_NURSERY, in
 * generation 0 with dest_no 0 (survivors age in generation 0), and is
 * empty (free == start) right after a collection. A capability allocates
 * into cap->current_nursery, one of the blocks of cap->nursery.
 */
#include <stdlib.h>
#include <string.h>

#include "flags/flags.h"
#include "hooks.h"
#include "sm/numa.h"
#include "sm/storage.h"

nursery *nurseries;
uint32_t n_nurseries;
static uint32_t next_nursery; /* -n: the next chunk to hand out (taken atomically) */
static StgWord chunk_blocks;  /* -n: blocks per chunk; 0 = one nursery per capability */

void nursery_init(void);
void nursery_exit(void);

static bdescr *new_nursery_block(uint32_t node)
{
    bdescr *bd = bd_alloc_group_on_node(node, 1);
    bd->gen = g0;
    bd->gen_no = 0;
    bd->dest_no = 0;
    bd->flags = BF_NURSERY;
    return bd;
}

/* Grow or shrink one nursery to n blocks, on `node`. Caller holds sm_lock. */
static void set_nursery_size(nursery *n, StgWord blocks, uint32_t node)
{
    while (n->n_blocks < blocks) {
        bdescr *bd = new_nursery_block(node);
        bd->link = n->blocks;
        n->blocks = bd;
        n->n_blocks++;
    }
    while (n->n_blocks > blocks && n->blocks) {
        bdescr *bd = n->blocks;
        n->blocks = bd->link;
        bd_free_group(bd);
        n->n_blocks--;
    }
}

/* Lay out `total` blocks of allocation area as nurseries. */
static void build_nurseries(StgWord total)
{
    uint32_t wanted;
    if (chunk_blocks > 0) {
        StgWord chunks = (total + chunk_blocks - 1) / chunk_blocks;
        wanted = (uint32_t)(chunks < n_capabilities ? n_capabilities : chunks);
    } else {
        wanted = n_capabilities;
    }
    sm_lock();
    if (wanted != n_nurseries) {
        for (uint32_t i = wanted; i < n_nurseries; i++)
            set_nursery_size(&nurseries[i], 0, 0);
        nurseries = hooks_realloc(nurseries, wanted * sizeof(nursery), "nurseries");
        for (uint32_t i = n_nurseries; i < wanted; i++) {
            nurseries[i].blocks = NULL;
            nurseries[i].n_blocks = 0;
        }
        n_nurseries = wanted;
    }
    StgWord per = total / n_nurseries, extra = total % n_nurseries;
    for (uint32_t i = 0; i < n_nurseries; i++) {
        StgWord b = per + (i < extra ? 1 : 0);
        /* Nursery i is capability i's (the first n_capabilities), or a chunk: its node. */
        set_nursery_size(&nurseries[i], b == 0 ? 1 : b, numa_node_of_cap(i));
    }
    sm_unlock();
}

void nursery_init(void)
{
    StgWord per_cap = rts_flags.gc.alloc_area_bytes / BLOCK_SIZE;
    if (per_cap < 1)
        per_cap = 1;
    chunk_blocks = rts_flags.gc.nursery_chunk_bytes / BLOCK_SIZE;
    nurseries = NULL;
    n_nurseries = 0;
    build_nurseries(per_cap * n_capabilities);
    sm_reset_nurseries();
}

void nursery_exit(void)
{
    sm_lock();
    for (uint32_t i = 0; i < n_nurseries; i++)
        set_nursery_size(&nurseries[i], 0, 0);
    sm_unlock();
    free(nurseries);
    nurseries = NULL;
    n_nurseries = 0;
}

/*
 * hplim is also written by a thread stopping the world (Note [Stopping the
 * world] in capability.c): the owner's stores are atomic too, and the
 * owner checks for a stop request after each (cap_safepoint_after_refill).
 */
static void set_hplim(Capability *cap, StgPtr lim)
{
    __atomic_store_n(&cap->r.hplim, lim, __ATOMIC_SEQ_CST);
}

static void cap_use_nursery(Capability *cap, nursery *n)
{
    cap->nursery = n;
    cap->current_nursery = n->blocks;
    cap->r.hp = n->blocks->start;
    set_hplim(cap, n->blocks->start + BLOCK_SIZE_W);
}

void sm_restore_hplim(Capability *cap)
{
    if (__atomic_load_n(&cap->r.hplim, __ATOMIC_RELAXED) == NULL && cap->current_nursery) {
        set_hplim(cap, cap->current_nursery->start + BLOCK_SIZE_W);
        cap_safepoint_after_refill(cap);
    }
}

void sm_reset_nurseries(void)
{
    for (uint32_t i = 0; i < n_nurseries; i++)
        for (bdescr *bd = nurseries[i].blocks; bd; bd = bd->link) {
#ifdef DEBUG
            /* What is left is dead: make a pointer still aiming here show. */
            memset(bd->start, 0xaa, (size_t)(bd->free - bd->start) * sizeof(StgWord));
#endif
            bd->free = bd->start;
        }
    for (uint32_t c = 0; c < n_capabilities; c++)
        cap_use_nursery(capabilities[c], &nurseries[c]);
    next_nursery = n_capabilities;
}

/* After setNumCapabilities raised the count: every capability needs a nursery (-A each). */
void sm_nurseries_fit_capabilities(void)
{
    if (n_nurseries >= n_capabilities)
        return;
    StgWord per_cap = rts_flags.gc.alloc_area_bytes / BLOCK_SIZE;
    if (per_cap < 1)
        per_cap = 1;
    StgWord total = sm_nursery_blocks() + per_cap * (n_capabilities - n_nurseries);
    build_nurseries(total);
}

void sm_resize_nurseries(StgWord blocks)
{
    if (blocks == sm_nursery_blocks())
        return;
    build_nurseries(blocks);
    sm_reset_nurseries();
}

StgWord sm_nursery_blocks(void)
{
    StgWord n = 0;
    for (uint32_t i = 0; i < n_nurseries; i++)
        n += nurseries[i].n_blocks;
    return n;
}

void sm_sync_cap(Capability *cap)
{
    if (cap->current_nursery)
        cap->current_nursery->free = cap->r.hp;
}

/*
 * Move the capability to its next nursery block, or to a fresh chunk.
 * false: the allocation area is used up and it is time to collect.
 */
bool nursery_next_block(Capability *cap)
{
    bdescr *bd = cap->current_nursery;
    bd->free = cap->r.hp;
    if (bd->link) {
        cap->current_nursery = bd->link;
    } else {
        /* -n: chunks are shared by every capability. */
        uint32_t next = __atomic_load_n(&next_nursery, __ATOMIC_RELAXED);
        while (next < n_nurseries) {
            if (__atomic_compare_exchange_n(&next_nursery, &next, next + 1, false, __ATOMIC_ACQ_REL,
                                            __ATOMIC_RELAXED)) {
                cap_use_nursery(cap, &nurseries[next]);
                return true;
            }
        }
        return false;
    }
    cap->r.hp = cap->current_nursery->start;
    set_hplim(cap, cap->current_nursery->start + BLOCK_SIZE_W);
    return true;
}

uint64_t sm_allocated_since_gc(void)
{
    uint64_t words = 0;
    for (uint32_t i = 0; i < n_nurseries; i++)
        for (bdescr *bd = nurseries[i].blocks; bd; bd = bd->link)
            words += bd_words(bd);
    /* Large objects not yet through a GC; pinned blocks of every capability. */
    for (bdescr *bd = g0->large_objects; bd; bd = bd->link)
        if (!(bd->flags & BF_EVACUATED))
            words += bd_words(bd);
    for (uint32_t c = 0; c < n_capabilities; c++) {
        Capability *cap = capabilities[c];
        if (cap->pinned_block)
            words += bd_words(cap->pinned_block);
        for (bdescr *bd = cap->pinned_blocks; bd; bd = bd->link)
            words += bd_words(bd);
    }
    return words;
}
