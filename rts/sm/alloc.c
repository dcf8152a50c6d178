/*
 * Allocation slow paths and the runtime's object constructors.
 *
 * Every function here may collect: callers hold no unrooted heap pointers
 * across a call (include/rts/Roots.h).
 */
#include <string.h>

#include "Rts.h"
#include "flags/flags.h"
#include "hooks.h"
#include "messages.h"
#include "sm/gc.h"
#include "sm/mblock.h"
#include "sm/storage.h"
#include "sm/trigger.h"

StgPtr rts_alloc_slow(Capability *cap, StgWord words)
{
    if (words >= LARGE_OBJECT_THRESHOLD_W)
        return rts_alloc_large(cap, words);
    while (!nursery_next_block(cap))
        gc_collect(cap, false, GC_REASON_HEAP_CHECK);
    StgPtr p = cap->r.hp;
    cap->r.hp = p + words;
    return p;
}

static StgWord large_alloc_limit_blocks(void)
{
    uint64_t lim = rts_flags.gc.large_alloc_lim_bytes;
    if (lim == 0)
        lim = rts_flags.gc.alloc_area_bytes;
    return (StgWord)(lim / BLOCK_SIZE);
}

/* A request no heap could ever hold is bad input, not a heap overflow. */
static RTS_NORETURN void request_too_large(StgWord words)
{
    msg_fatal(EXIT_HEAPOVERFLOW,
              "out of memory (requested %lu words, more than the heap's %lu-byte address space; "
              "see -xr)",
              (unsigned long)words, (unsigned long)mblock_heap_size);
}

StgPtr rts_alloc_large(Capability *cap, StgWord words)
{
    if (words > (StgWord)1 << 58)
        request_too_large(words);
    StgWord bytes = words * sizeof(StgWord);
    StgWord blocks = (bytes + BLOCK_SIZE - 1) / BLOCK_SIZE;
    if (!bd_request_fits(blocks))
        request_too_large(words);
    if (sm_large_alloc_blocks + blocks > large_alloc_limit_blocks())
        gc_collect(cap, false, GC_REASON_LARGE);
    StgWord limit = trigger_heap_limit_blocks();
    if (limit > 0 && bd_n_alloc_blocks() + blocks > limit) {
        gc_collect(cap, true, GC_REASON_LARGE);
        limit = trigger_heap_limit_blocks();
        if (bd_n_alloc_blocks() + blocks > limit)
            trigger_heap_overflow(bytes);
    }
    bdescr *bd = bd_alloc_group_lock(blocks);
    bd->gen = g0;
    bd->gen_no = 0;
    bd->dest_no = 0;
    bd->flags = BF_LARGE;
    bd->free = bd->start + words;
    /* A new large object is in the nursery: no BF_EVACUATED until it survives. */
    bd->u.back = NULL;
    bd->link = g0->large_objects;
    if (g0->large_objects)
        g0->large_objects->u.back = bd;
    g0->large_objects = bd;
    g0->n_large_blocks += bd->blocks;
    g0->n_large_words += words;
    sm_large_alloc_blocks += bd->blocks;
    return bd->start;
}

/* Room for `words` in a pinned block: never moves while alive. */
static StgPtr alloc_pinned(Capability *cap, StgWord words)
{
    if (words >= LARGE_OBJECT_THRESHOLD_W)
        return rts_alloc_large(cap, words); /* large objects never move either */
    bdescr *bd = cap->pinned_block;
    if (bd == NULL || bd->free + words > bd->start + BLOCK_SIZE_W) {
        if (sm_large_alloc_blocks + 1 > large_alloc_limit_blocks()) {
            gc_collect(cap, false, GC_REASON_LARGE);
            bd = cap->pinned_block; /* the collector retired it */
        }
        if (bd) {
            bd->link = cap->pinned_blocks;
            cap->pinned_blocks = bd;
        }
        bd = bd_alloc_block_lock();
        bd->gen = g0;
        bd->gen_no = 0;
        bd->dest_no = 0;
        bd->flags = BF_LARGE | BF_PINNED;
        cap->pinned_block = bd;
        sm_large_alloc_blocks++;
    }
    StgPtr p = bd->free;
    bd->free += words;
    return p;
}

StgArrBytes *rts_new_byte_array(Capability *cap, StgWord bytes)
{
    StgArrBytes *a = (StgArrBytes *)rts_alloc(cap, arr_words_size_w(bytes));
    a->info = &stg_ARR_WORDS_info;
    a->bytes = bytes;
    return a;
}

StgArrBytes *rts_new_pinned_byte_array(Capability *cap, StgWord bytes)
{
    StgArrBytes *a = (StgArrBytes *)alloc_pinned(cap, arr_words_size_w(bytes));
    a->info = &stg_ARR_WORDS_info;
    a->bytes = bytes;
    return a;
}

StgMutArrPtrs *rts_new_array(Capability *cap, StgWord n, StgClosure *init)
{
    StgClosure **root = rts_push_roots(cap, 1);
    root[0] = init;
    StgWord card_words = mut_arr_ptrs_card_words(n);
    StgMutArrPtrs *a = (StgMutArrPtrs *)rts_alloc(cap, SIZEOF_W(StgMutArrPtrs) + n + card_words);
    init = root[0];
    rts_pop_roots(cap, root);
    a->info = &stg_MUT_ARR_PTRS_CLEAN_info;
    a->ptrs = n;
    a->size = n + card_words;
    for (StgWord i = 0; i < n; i++)
        a->payload[i] = init;
    memset(mut_arr_ptrs_cards(a), 0, card_words * sizeof(StgWord));
    return a;
}

StgSmallMutArrPtrs *rts_new_small_array(Capability *cap, StgWord n, StgClosure *init)
{
    StgClosure **root = rts_push_roots(cap, 1);
    root[0] = init;
    StgSmallMutArrPtrs *a = (StgSmallMutArrPtrs *)rts_alloc(cap, SIZEOF_W(StgSmallMutArrPtrs) + n);
    init = root[0];
    rts_pop_roots(cap, root);
    a->info = &stg_SMALL_MUT_ARR_PTRS_CLEAN_info;
    a->ptrs = n;
    for (StgWord i = 0; i < n; i++)
        a->payload[i] = init;
    return a;
}

StgMutVar *rts_new_mut_var(Capability *cap, StgClosure *init)
{
    StgClosure **root = rts_push_roots(cap, 1);
    root[0] = init;
    StgMutVar *mv = (StgMutVar *)rts_alloc(cap, SIZEOF_W(StgMutVar));
    mv->info = &stg_MUT_VAR_CLEAN_info;
    mv->var = root[0];
    rts_pop_roots(cap, root);
    return mv;
}

int rts_is_heap_alloced(const void *p)
{
    return HEAP_ALLOCED(UNTAG((const StgClosure *)p));
}
