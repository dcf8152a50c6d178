/*
 * The sanity checker. See sanity.h.
 *
 * It works in three passes: (1) account for every block, (2) walk every
 * object and note where objects start in a heap-wide bitmap, (3) check
 * every pointer field of every object and stack frame against that bitmap
 * and against the remembered sets.
 */
#include "sm/sanity.h"

#include <stdlib.h>
#include <string.h>

#include "capability.h"
#include "flags/flags.h"
#include "hooks.h"
#include "messages.h"
#include "sm/layout.h"
#include "sm/mblock.h"
#include "sm/mut_list.h"
#include "sm/policy.h"
#include "sm/roots.h"
#include "sm/scan.h"
#include "sm/storage.h"
#include "sm/statics.h"
#include "sm/weak.h"
#include "stable.h"
#include "threads.h"

#define BF_SANITY_SEEN 0x8000

static const char *when_;
static uint64_t *starts; /* one bit per heap word: an object starts here */
static uintptr_t starts_end;

/* --- a small set of pointers (remembered objects) --------------------------- */

static StgWord *rset;
static StgWord rset_cap, rset_n;

static StgWord hash_ptr(StgWord p)
{
    return (p >> 3) * 0x9E3779B97F4A7C15ull;
}

static void rset_add(StgWord p)
{
    if (rset_n * 2 >= rset_cap) {
        StgWord *old = rset, old_cap = rset_cap;
        rset_cap = rset_cap ? rset_cap * 2 : 1024;
        rset = hooks_calloc(rset_cap, sizeof(StgWord), "sanity set");
        rset_n = 0;
        for (StgWord i = 0; i < old_cap; i++)
            if (old[i])
                rset_add(old[i]);
        free(old);
    }
    StgWord i = hash_ptr(p) & (rset_cap - 1);
    while (rset[i] && rset[i] != p)
        i = (i + 1) & (rset_cap - 1);
    if (!rset[i]) {
        rset[i] = p;
        rset_n++;
    }
}

static bool rset_has(StgWord p)
{
    if (!rset_cap)
        return false;
    StgWord i = hash_ptr(p) & (rset_cap - 1);
    while (rset[i]) {
        if (rset[i] == p)
            return true;
        i = (i + 1) & (rset_cap - 1);
    }
    return false;
}

/* --- failures ---------------------------------------------------------------- */

#define FAIL(...)                                       \
    do {                                                \
        msg_error("sanity check failed (%s): ", when_); \
        msg_barf(__VA_ARGS__);                          \
    } while (0)

/* --- pass 1: blocks ------------------------------------------------------------ */

static StgWord owned;

static void own(bdescr *bd, const char *owner)
{
    if (bd->flags & BF_SANITY_SEEN)
        FAIL("block group %p is owned twice (again by %s)", (void *)bd->start, owner);
    if (bd_is_free(bd))
        FAIL("block group %p of %s is on a free list", (void *)bd->start, owner);
    /* Atomic: the nonmoving mark thread reads segments' flags meanwhile. */
    __atomic_fetch_or(&bd->flags, (uint16_t)BF_SANITY_SEEN, __ATOMIC_RELAXED);
    owned += bd->blocks;
}

static void own_chain(bdescr *bd, const char *owner)
{
    for (; bd; bd = bd->link)
        own(bd, owner);
}

static void unown_chain(bdescr *bd)
{
    for (; bd; bd = bd->link)
        __atomic_fetch_and(&bd->flags, (uint16_t)~BF_SANITY_SEEN, __ATOMIC_RELAXED);
}

static void for_each_owner(void (*f)(bdescr *, const char *))
{
    for (uint32_t g = 0; g < n_generations; g++) {
        f(generations[g].blocks, "a generation");
        f(generations[g].large_objects, "a generation's large objects");
    }
    for (uint32_t i = 0; i < n_nurseries; i++)
        f(nurseries[i].blocks, "a nursery");
    for (uint32_t c = 0; c < n_capabilities; c++) {
        Capability *cap = capabilities[c];
        for (uint32_t g = 1; g < n_generations; g++)
            f(cap->mut_lists[g], "a remembered set");
        if (cap->pinned_block) {
            bdescr *save = cap->pinned_block->link;
            cap->pinned_block->link = NULL;
            f(cap->pinned_block, "a pinned block");
            cap->pinned_block->link = save;
        }
        f(cap->pinned_blocks, "the pinned blocks");
    }
}

static void unown(bdescr *bd, const char *owner)
{
    (void)owner;
    unown_chain(bd);
}

static void check_blocks(void)
{
    bd_check();
    sm_check();
    owned = 0;
    for_each_owner(own_chain);
    for_each_owner(unown);
    if (owned != bd_n_alloc_blocks())
        FAIL("%lu blocks are allocated but %lu are accounted for by their owners",
             (unsigned long)bd_n_alloc_blocks(), (unsigned long)owned);
}

/* --- pass 2: objects ------------------------------------------------------------ */

static void mark_start(const void *p)
{
    StgWord w = ((uintptr_t)p - mblock_heap_base) / sizeof(StgWord);
    starts[w / 64] |= (uint64_t)1 << (w % 64);
}

static bool is_start(const void *p)
{
    if ((uintptr_t)p < mblock_heap_base || (uintptr_t)p >= starts_end)
        return false;
    StgWord w = ((uintptr_t)p - mblock_heap_base) / sizeof(StgWord);
    return (starts[w / 64] >> (w % 64)) & 1;
}

static bool valid_info(const StgInfoTable *info)
{
    return info != NULL && ((StgWord)info & (sizeof(StgWord) - 1)) == 0 && !HEAP_ALLOCED(info) &&
           info->type > INVALID_OBJECT && info->type < N_CLOSURE_TYPES;
}

static StgWord check_object_shape(const StgClosure *q, const StgPtr limit)
{
    const StgInfoTable *info = q->info;
    if ((StgWord)info & 1)
        FAIL("object %p is a forwarding pointer outside a collection", (const void *)q);
    if (!valid_info(info) || layout_is_frame_type(info->type))
        FAIL("object %p has an invalid info table %p", (const void *)q, (const void *)info);
    Layout l = layout_of(q, info);
    if (l.size == 0 || (StgPtr)q + l.size > limit)
        FAIL("object %p (%s) of %lu words overruns its block", (const void *)q,
             layout_type_name(info->type), (unsigned long)l.size);
    return l.size;
}

/* Walk [start, end): objects separated by zero slop (Note [Heap walkability]). */
static void walk_objects(StgPtr p, StgPtr end, void (*f)(StgClosure *))
{
    while (p < end) {
        if (*p == 0) {
            p++;
            continue;
        }
        StgWord size = check_object_shape((StgClosure *)p, end);
        f((StgClosure *)p);
        p += size;
    }
}

/* A generation's objects come from its policy's walk; the shape is checked before use. */
typedef struct {
    void (*f)(StgClosure *);
} WalkFn;

static void walk_checked(StgClosure *q, void *ctx)
{
    check_object_shape(q, Bdescr(q)->free);
    ((WalkFn *)ctx)->f(q);
}

static void walk_heap(void (*f)(StgClosure *))
{
    WalkFn fn = {f};
    for (uint32_t g = 0; g < n_generations; g++)
        generations[g].policy->walk(&generations[g], walk_checked, &fn);
    for (uint32_t i = 0; i < n_nurseries; i++)
        for (bdescr *bd = nurseries[i].blocks; bd; bd = bd->link)
            walk_objects(bd->start, bd->free, f);
    for (uint32_t c = 0; c < n_capabilities; c++) {
        Capability *cap = capabilities[c];
        if (cap->pinned_block)
            walk_objects(cap->pinned_block->start, cap->pinned_block->free, f);
        for (bdescr *bd = cap->pinned_blocks; bd; bd = bd->link)
            walk_objects(bd->start, bd->free, f);
    }
}

static void note_start(StgClosure *q)
{
    mark_start(q);
}

/* --- pass 3: pointers ------------------------------------------------------------ */

static void check_pointer(const StgClosure *holder, StgClosure *const *field, uint32_t holder_gen,
                          bool remembered)
{
    StgClosure *p = *field;
    if (p == NULL)
        return;
    StgClosure *q = UNTAG(p);
    if (!HEAP_ALLOCED(q)) {
        if (!valid_info(q->info))
            FAIL("field %p of %p points to %p, neither a heap object nor a static closure",
                 (const void *)field, (const void *)holder, (void *)p);
        return;
    }
    if (!is_start(q))
        FAIL("field %p of %p (%s) points to %p, which is not the start of a live object",
             (const void *)field, (const void *)holder, layout_type_name(holder->info->type),
             (void *)p);
    if (holder_gen > 0 && Bdescr(q)->gen_no < holder_gen && !remembered)
        FAIL("%p (%s, generation %u) points into generation %u (%p) but is not remembered",
             (const void *)holder, layout_type_name(holder->info->type), holder_gen,
             Bdescr(q)->gen_no, (void *)p);
}

static void check_stack(StgStack *s, uint32_t gen, bool remembered)
{
    StgPtr p = s->sp, end = s->stack + s->stack_size;
    if (p < s->stack || p > end)
        FAIL("stack %p has sp %p outside it", (void *)s, (void *)p);
    if (gen > 0 && s->dirty && !remembered)
        FAIL("dirty stack %p in generation %u is not remembered", (void *)s, gen);
    bool saw_bottom = false;
    while (p < end) {
        const StgInfoTable *info = ((StgClosure *)p)->info;
        if (!valid_info(info) || !layout_is_frame_type(info->type))
            FAIL("stack %p: bad frame info %p at %p", (void *)s, (const void *)info, (void *)p);
        FrameLayout f = layout_frame(p, info);
        if (f.size == 0 || p + f.size > end)
            FAIL("stack %p: frame at %p overruns the chunk", (void *)s, (void *)p);
        StgClosure **slots = (StgClosure **)(p + f.first_slot);
        for (StgWord i = 0; i < f.n_slots; i++)
            if (frame_slot_is_ptr(&f, i))
                check_pointer((StgClosure *)s, &slots[i], gen, remembered || s->dirty);
        if (info->type == UNDERFLOW_FRAME) {
            StgClosure *next = (StgClosure *)((StgUnderflowFrame *)p)->next_chunk;
            if (UNTAG(next)->info->type != STACK)
                FAIL("stack %p: underflow frame points to %p, not a stack", (void *)s,
                     (void *)next);
        }
        if (info->type == STOP_FRAME || info->type == UNDERFLOW_FRAME) {
            saw_bottom = true;
            if (p + f.size != end)
                FAIL("stack %p: bottom frame at %p is not at the end", (void *)s, (void *)p);
            break;
        }
        p += f.size;
    }
    if (!saw_bottom && s->sp != end)
        FAIL("stack %p has no bottom frame", (void *)s);
}

/* Check q's pointer fields: the ones its scan class (scan.h) says tracing follows. */
static void check_fields(StgClosure *q)
{
    const StgInfoTable *info = q->info;
    uint32_t gen = Bdescr(q)->gen_no;
    bool remembered = gen > 0 && rset_has((StgWord)q);
    ScanInfo si = scan_info(q, info, 0);
    StgClosure **fields = (StgClosure **)q + si.ptr_off;
    switch (si.cls) {
    case SCAN_STACK:
        check_stack((StgStack *)q, gen, remembered);
        return;
    case SCAN_WEAK:
        /* The weak table is visited by every collection: no remembered set needed. */
        remembered = true;
        break;
    case SCAN_CARDS: {
        StgMutArrPtrs *a = (StgMutArrPtrs *)q;
        uint8_t *cards = mut_arr_ptrs_cards(a);
        for (StgWord i = 0; i < a->ptrs; i++)
            check_pointer(q, &a->payload[i], gen, remembered && cards[i >> MUT_ARR_PTRS_CARD_BITS]);
        return;
    }
    default:
        break;
    }
    for (uint32_t i = 0; i < si.n_ptrs; i++)
        check_pointer(q, &fields[i], gen, remembered);
}

static void check_remembered_sets(void)
{
    rset_n = 0;
    if (rset)
        memset(rset, 0, rset_cap * sizeof(StgWord));
    for (uint32_t c = 0; c < n_capabilities; c++)
        for (uint32_t g = 1; g < n_generations; g++)
            for (bdescr *bd = capabilities[c]->mut_lists[g]; bd; bd = bd->link)
                for (StgPtr e = bd->start; e < bd->free; e++) {
                    StgClosure *q = (StgClosure *)*e;
                    if (!is_start(q))
                        FAIL("remembered set of generation %u holds %p, not an object", g,
                             (void *)q);
                    if (Bdescr(q)->gen_no != g)
                        FAIL("remembered set of generation %u holds %p of generation %u", g,
                             (void *)q, Bdescr(q)->gen_no);
                    rset_add((StgWord)q);
                }
}

/* A root outside the heap (CAF value, stable pointer) must be a valid closure. */
static void check_root(const char *what, StgClosure *const *field)
{
    StgClosure *p = *field;
    if (p == NULL)
        return;
    StgClosure *q = UNTAG(p);
    if (HEAP_ALLOCED(q) ? !is_start(q) : !valid_info(q->info))
        FAIL("%s %p does not point to a closure", what, (void *)p);
}

static void check_thread(void *ctx, StgClosure **slot)
{
    (void)ctx;
    StgTSO *t = (StgTSO *)*slot;
    if (!is_start(t) || t->info->type != TSO || !is_start(t->stackobj))
        FAIL("thread table entry %p is not a TSO with a stack", (void *)t);
}

static const char *root_kind_name(RootKind kind)
{
    switch (kind) {
    case ROOT_CAPABILITY:
        return "a capability's root";
    case ROOT_THREAD:
        return "a thread table entry";
    case ROOT_STABLE_PTR:
        return "a stable pointer";
    case ROOT_CAF:
        return "the value of a CAF";
    case ROOT_WEAK:
        return "a weak table entry";
    }
    return "a root";
}

/*
 * Every root the collector starts from, through the same visitor (roots.h):
 * a kind of root added there is checked here without another line.
 */
static void check_root_slot(RootVisitor *v, StgClosure **slot, RootKind kind)
{
    (void)v;
    check_root(root_kind_name(kind), slot);
    if (kind == ROOT_THREAD)
        check_thread(NULL, slot);
}

static void check_roots(void)
{
    RootVisitor v = {check_root_slot};
    roots_visit(&v, ROOTS_ALL);
    for (uint32_t i = 0; i < statics_caf_count(); i++) {
        StgCAF *caf = statics_caf(i);
        if (caf->info->type == IND_STATIC)
            check_root("the value of a CAF", &caf->indirectee);
        else if (caf->info->type != THUNK_STATIC)
            FAIL("registered CAF %p has closure type %u", (void *)caf, (unsigned)caf->info->type);
    }
    for (StgWord i = 0; i < weak_count(); i++) {
        StgWeak *w = weak_get(i);
        if (!is_start(w) || w->info != &stg_WEAK_info)
            FAIL("weak table entry %lu (%p) is not a live weak pointer", (unsigned long)i,
                 (void *)w);
        check_root("the key of a weak pointer", &w->key);
    }
    stable_ptr_check(check_root); /* and its count */
    for (uint32_t c = 0; c < n_capabilities; c++) {
        Capability *cap = capabilities[c];
        cap_check(cap);
        if (cap->r.tso) {
            if (!is_start(cap->r.tso) || cap->r.tso->info->type != TSO)
                FAIL("capability %u's thread %p is not a TSO", c, (void *)cap->r.tso);
            if (cap->r.stack != cap->r.tso->stackobj)
                FAIL("capability %u runs on stack %p, its thread's is %p", c, (void *)cap->r.stack,
                     (void *)cap->r.tso->stackobj);
            if (!cap->r.stack->dirty)
                FAIL("capability %u's active stack %p is not dirty", c, (void *)cap->r.stack);
        }
    }
}

void sanity_check_heap(const char *when, bool after_gc)
{
    (void)after_gc;
    when_ = when;
    check_blocks();

    starts_end = mblock_high_water();
    StgWord words = (starts_end - mblock_heap_base) / sizeof(StgWord);
    starts = hooks_calloc(words / 64 + 1, sizeof(uint64_t), "sanity bitmap");
    walk_heap(note_start);
    check_remembered_sets();
    walk_heap(check_fields);
    check_roots();
    free(starts);
    starts = NULL;
}
