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
#include "startup.h"

StgPtr rts_alloc_slow(Capability *cap, StgWord words)
{
    startup_require_running("rts_alloc_slow");
    if (words >= LARGE_OBJECT_THRESHOLD_W)
        return rts_alloc_large(cap, words);
    for (;;) {
        StgPtr lim = __atomic_load_n(&cap->r.hplim, __ATOMIC_RELAXED);
        if (RTS_UNLIKELY(lim == NULL)) {
            /* A stop request (Note [Stopping the world] in capability.c), or the end of one. */
            cap_safepoint(cap);
            sm_restore_hplim(cap);
            continue;
        }
        StgPtr p = cap->r.hp;
        if (p + words <= lim) {
            cap->r.hp = p + words;
            return p;
        }
        if (nursery_next_block(cap)) {
            cap_safepoint_after_refill(cap);
            if (RTS_UNLIKELY(gc_wanted())) /* see gc.h */
                gc_run_wanted(cap);
        } else
            gc_collect(cap, false, GC_REASON_HEAP_CHECK);
    }
}

static StgWord large_alloc_limit_blocks(void)
{
    uint64_t lim = rts_flags.gc.large_alloc_lim_bytes;
    if (lim == 0)
        lim = rts_flags.gc.alloc_area_bytes;
    return (StgWord)(lim / BLOCK_SIZE);
}

/*
 * Note [Impossible sizes]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * Sizes reach the allocation API from generated code, often straight from
 * the program (`newArray n`), so any StgWord may arrive: a negative Int
 * becomes 2^64 - k. No size computation may wrap: the size helpers of
 * rts/Closures.h round up without adding first, and an entry point whose
 * object adds words to a count (arrays: header and card table) refuses a
 * count above SM_MAX_OBJECT_WORDS before adding. Every request is then
 * checked whole, in the unit the caller gave it (bytes, elements, words),
 * and one that can never be met is refused, never shortened:
 *  - with -M, a request of -M or more is a heap overflow at once (GHC's
 *    allocate() decides the same): the out-of-heap hook prints GHC's
 *    message and the program exits 251, even if a program's own hook
 *    returns, since no -Mgrace allowance makes room for it;
 *  - a request the heap's reservation (-xr) cannot hold is one line naming
 *    the call and the size, and exit 251.
 * SM_MAX_OBJECT_WORDS (2^58) is far above any reservation, and small enough
 * that a header and a card table added to it cannot wrap.
 */
#define SM_MAX_OBJECT_WORDS ((StgWord)1 << 58)

/* See Note [Impossible sizes]. `n` counts `unit`s; `bytes` is the request (saturated). */
static RTS_NORETURN void refuse_size(const char *call, StgWord n, const char *unit, StgWord bytes,
                                     const char *see)
{
    StgWord limit = trigger_heap_limit_blocks();
    if (limit > 0) {
        StgWord limit_bytes = limit > (StgWord)-1 / BLOCK_SIZE ? (StgWord)-1 : limit * BLOCK_SIZE;
        hooks_heap_overflow(bytes, limit_bytes);
        msg_exit(EXIT_HEAPOVERFLOW);
    }
    msg_fatal(EXIT_HEAPOVERFLOW,
              "%s: out of memory (requested %lu %s, more than fits in the heap's %lu-byte address "
              "space; see %s)",
              call, (unsigned long)n, unit, (unsigned long)mblock_heap_size, see);
}

static StgWord words_to_blocks(StgWord words)
{
    return words / BLOCK_SIZE_W + (words % BLOCK_SIZE_W != 0);
}

/*
 * Refuse an object of `words` words that no heap could hold, reporting the
 * caller's request (n units). See Note [Impossible sizes].
 */
static void check_fits(const char *call, StgWord words, StgWord n, const char *unit,
                       const char *see)
{
    StgWord bytes = words > (StgWord)-1 / WORD_SIZE ? (StgWord)-1 : words * WORD_SIZE;
    if (words > SM_MAX_OBJECT_WORDS)
        refuse_size(call, n, unit, bytes, see);
    StgWord blocks = words_to_blocks(words);
    StgWord limit = trigger_heap_limit_blocks();
    if ((limit > 0 && blocks >= limit) || !bd_request_fits(blocks))
        refuse_size(call, n, unit, bytes, see);
}

/* A large object of `words` words that check_fits has passed. May collect. */
static StgPtr alloc_large(Capability *cap, StgWord words)
{
    /* -M is checked by check_fits and after collections: see Note [When the heap has overflowed].
     */
    StgWord blocks = words_to_blocks(words);
    if (__atomic_load_n(&sm_large_alloc_blocks, __ATOMIC_RELAXED) + blocks >
        large_alloc_limit_blocks())
        gc_collect(cap, false, GC_REASON_LARGE);
    cap_safepoint(cap);
    /* Generation 0's large-object list is shared by every capability: sm_lock. */
    sm_lock();
    bdescr *bd = bd_alloc_group(blocks);
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
    __atomic_fetch_add(&sm_large_alloc_blocks, bd->blocks, __ATOMIC_RELAXED);
    sm_unlock();
    return bd->start;
}

StgPtr rts_alloc_large(Capability *cap, StgWord words)
{
    startup_require_running("rts_alloc_large");
    if (words == 0)
        msg_fatal(1, "rts_alloc_large: a heap object has at least one word (requested 0)");
    check_fits("rts_alloc_large", words, words, "words", "-xr");
    return alloc_large(cap, words);
}

StgStack *sm_alloc_stack(Capability *cap, StgWord words)
{
    if (words <= SIZEOF_W(StgStack))
        msg_barf("sm_alloc_stack: a stack chunk of %lu words has no room for frames",
                 (unsigned long)words);
    StgWord bytes = words > (StgWord)-1 / WORD_SIZE ? (StgWord)-1 : words * WORD_SIZE;
    check_fits("stack chunk", words, bytes, "bytes", "-ki, -kc and -xr");
    StgStack *s = (StgStack *)alloc_large(cap, words);
    Bdescr(s)->flags |= BF_STACK;
    return s;
}

/* Room for `words` in a pinned block: never moves while alive. */
static StgPtr alloc_pinned(Capability *cap, StgWord words)
{
    if (words >= LARGE_OBJECT_THRESHOLD_W)
        return alloc_large(cap, words); /* large objects never move either */
    bdescr *bd = cap->pinned_block;
    if (bd == NULL || bd->free + words > bd->start + BLOCK_SIZE_W) {
        if (__atomic_load_n(&sm_large_alloc_blocks, __ATOMIC_RELAXED) + 1 >
            large_alloc_limit_blocks()) {
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
        __atomic_fetch_add(&sm_large_alloc_blocks, 1, __ATOMIC_RELAXED);
    }
    StgPtr p = bd->free;
    bd->free += words;
    return p;
}

/* Words for a small object, or a large one that check_fits has passed. May collect. */
static StgPtr alloc_checked(Capability *cap, StgWord words)
{
    if (words < LARGE_OBJECT_THRESHOLD_W)
        return rts_alloc(cap, words);
    return alloc_large(cap, words);
}

StgArrBytes *rts_new_byte_array(Capability *cap, StgWord bytes)
{
    startup_require_running("rts_new_byte_array");
    StgWord words = arr_words_size_w(bytes);
    check_fits("rts_new_byte_array", words, bytes, "bytes", "-xr");
    StgArrBytes *a = (StgArrBytes *)alloc_checked(cap, words);
    a->info = &stg_ARR_WORDS_info;
    a->bytes = bytes;
    return a;
}

StgArrBytes *rts_new_pinned_byte_array(Capability *cap, StgWord bytes)
{
    startup_require_running("rts_new_pinned_byte_array");
    StgWord words = arr_words_size_w(bytes);
    check_fits("rts_new_pinned_byte_array", words, bytes, "bytes", "-xr");
    StgArrBytes *a = (StgArrBytes *)alloc_pinned(cap, words);
    a->info = &stg_ARR_WORDS_info;
    a->bytes = bytes;
    return a;
}

/* Words of an array object of n elements and `extra` more; see Note [Impossible sizes]. */
static StgWord array_words(const char *call, StgWord n, StgWord extra)
{
    StgWord words = n > SM_MAX_OBJECT_WORDS ? (StgWord)-1 : n + extra;
    check_fits(call, words, n, "elements", "-xr");
    return words;
}

StgMutArrPtrs *rts_new_array(Capability *cap, StgWord n, StgClosure *init)
{
    startup_require_running("rts_new_array");
    StgWord card_words = mut_arr_ptrs_card_words(n);
    StgWord words = array_words("rts_new_array", n, SIZEOF_W(StgMutArrPtrs) + card_words);
    StgClosure **root = rts_push_roots(cap, 1);
    root[0] = init;
    StgMutArrPtrs *a = (StgMutArrPtrs *)alloc_checked(cap, words);
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
    startup_require_running("rts_new_small_array");
    StgWord words = array_words("rts_new_small_array", n, SIZEOF_W(StgSmallMutArrPtrs));
    StgClosure **root = rts_push_roots(cap, 1);
    root[0] = init;
    StgSmallMutArrPtrs *a = (StgSmallMutArrPtrs *)alloc_checked(cap, words);
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
    startup_require_running("rts_new_mut_var");
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
    startup_require_running("rts_is_heap_alloced");
    return HEAP_ALLOCED(UNTAG((const StgClosure *)p));
}
