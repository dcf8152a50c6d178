/*
 * The compacting policy (-c, -c<n>): the oldest generation is marked in
 * place (mark.h) and then slid down over its own blocks.
 *
 * Note [Sliding compaction]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * After the mark (and the weak phase, stable names and CAFs: everything
 * that decides liveness) the compacted generation's finish runs three
 * passes (the mark made the first) over the marked blocks, taken in
 * address order (so that the blocks left empty are the highest ones, and
 * whole megablocks can go back):
 *
 *  1. Live bits: every word of every marked object has a bit (MarkInfo's
 *     `live`), set by the mark as it scanned the object (Note [Live bits]
 *     in mark.h), so no pass reads an object only to learn its size.
 *  2. Forwarding: objects keep their order; the destination is a cursor
 *     running over the same blocks. A block's 64-word chunks are placed
 *     whole: the objects that start in chunk c (S_c words, at most 64 plus
 *     one object, so less than a block) go to the cursor's block if they
 *     fit, else to the start of the next block. So within a chunk the new
 *     address of an object is the chunk's destination plus the live words
 *     before it in the chunk: base[c] + popcount(live bits of c below the
 *     object), where base[c] already subtracts the live words an earlier
 *     object spills into c. Forwarding is then a table look-up and one
 *     popcount, with no forwarding word in the objects and no second walk.
 *     The cursor never passes the object being placed (what precedes an
 *     object in the list fits before it), so sliding is safe in place.
 *  3. Update: every pointer to a marked object is rewritten to its new
 *     address: the roots (capabilities, threads, stable pointers, the weak
 *     table), evaluated CAFs, the stable-name table, the remembered sets,
 *     and the fields of every object of every generation (all copied or
 *     marked by this major collection) and of large objects. Each slot is
 *     visited once (a second visit would forward an already new address).
 *  4. Move: objects are moved in order (memmove: a destination may overlap
 *     its source), the destination blocks get their new `free`, and blocks
 *     left empty are freed.
 *
 * Note [Blocks that stay]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * A slide moves every object above the first gap, and gaps are
 * everywhere: a to-space block ends in slop (the next object did not fit).
 * On largeheap's build phase, where nothing dies, a compaction moved about
 * half of the 1.2 GB live to reclaim well under 1%, and passes 3 and 4
 * read the whole heap to do it. So a block may stay where it is (its dead
 * words zeroed, `free` after its last live word; it loses BF_MARKED before
 * pass 3, so fix() leaves pointers into it alone without a look-up):
 *  - if the waste of the marked blocks (words not live, in blocks that
 *    hold any) is at most 1/COMPACT_WASTE_FRACTION of the live words, every
 *    block with live data stays and nothing moves: empty blocks are freed,
 *    passes 3 and 4 are skipped;
 *  - otherwise a block stays if its own waste is at most
 *    1/COMPACT_WASTE_FRACTION of a block, and the others slide over the
 *    blocks that do not stay, in address order (the cursor skips the ones
 *    that stay, and the argument above holds on that subsequence).
 * So at most 1/COMPACT_WASTE_FRACTION of the generation is left as gaps,
 * which a later compaction reclaims once there is more: HotSpot's Parallel
 * Old leaves a dense prefix in place for the same reason; here it is every
 * dense block, not only a prefix. The gaps count as live words in the
 * generation's n_words (so the copying row's check still holds, and -c<n>
 * can switch rows); blocks freed in the middle of the heap are reused by
 * promotion. Largeheap 1200 -c: major GC user time 6.4-6.7 s -> 2.7-2.8 s.
 * Under -M nothing stays: there the slide is what empties the highest
 * blocks, so that whole megablocks go back, and -M counts megablocks
 * (largeheap 6 under -M10m -A1m, whose -c30 compacts, overflowed with
 * blocks freed in the middle of megablocks still in use).
 *
 * The result satisfies the copying policy's invariants (dense blocks with
 * BF_EVACUATED), which is why -c<n> can switch the generation between the
 * two rows from one major collection to the next. The side tables are 24
 * words a block (4.7%), malloc'd for the collection; no copy reserve is
 * needed. Words moved count as copied in -S/-s (GHC counts compaction in
 * the same column). Large objects are relinked, never moved.
 */
#include <stdlib.h>
#include <string.h>

#include "hooks.h"
#include "messages.h"
#include "sm/mark.h"
#include "sm/mblock.h"
#include "sm/mut_list.h"
#include "sm/policy.h"
#include "sm/roots.h"
#include "sm/scan.h"
#include "sm/statics.h"
#include "sm/storage.h"
#include "sm/trigger.h"
#include "stable.h"

/* Waste a compaction may leave: see Note [Blocks that stay]. */
#define COMPACT_WASTE_FRACTION 32

static void compact_prepare(gc_thread *gct, generation *gen)
{
    (void)gct;
    mark_prepare(gen, NULL, NULL);
}

static StgWord low_bits(StgWord w, StgWord b)
{
    return b ? w & (((StgWord)1 << b) - 1) : 0;
}

/* The new address of q, a marked object (pass 2's table). */
RTS_INLINE StgClosure *forward(const bdescr *bd, const StgClosure *q)
{
    StgWord off = (StgWord)((const StgWord *)q - bd->start);
    const MarkInfo *mi = mark_info(bd);
    return (StgClosure *)(mi->base[off / 64] +
                          mark_popcount(low_bits(mi->live[off / 64], off % 64)));
}

RTS_INLINE void fix(StgClosure **slot)
{
    StgClosure *p = *slot;
    if (!HEAP_ALLOCED(p))
        return;
    StgClosure *q = UNTAG(p);
    const bdescr *bd = Bdescr(q);
    if (!(bd->flags & BF_MARKED))
        return;
    ASSERT(mark_is_marked(bd, q));
    *slot = TAG_CLOSURE(GET_TAG(p), forward(bd, q));
}

static void fix_ctx(void *ctx, StgClosure **slot)
{
    (void)ctx;
    fix(slot);
}

static void fix_root(RootVisitor *v, StgClosure **slot, RootKind kind)
{
    (void)v;
    (void)kind;
    fix(slot);
}

static void fix_stack(StgStack *s)
{
    for (StackWalk w = stack_walk(s); stack_walk_next(&w);) {
        if (stack_walk_bad(&w))
            msg_barf("compact: bad stack frame at %p in stack %p", (void *)w.p, (void *)s);
        StgClosure **slots = stack_walk_slots(&w);
        for (StgWord i = 0; i < w.f.n_slots; i++)
            if (frame_slot_is_ptr(&w.f, i))
                fix(&slots[i]);
    }
}

/* Rewrite q's pointer fields (the ones tracing follows: scan.h); returns q's size. */
static StgWord fix_fields(StgClosure *q)
{
    ScanInfo si = scan_info(q, q->info, 0);
    if (si.cls == SCAN_STACK) {
        fix_stack((StgStack *)q);
        return si.size;
    }
    StgClosure **fields = (StgClosure **)q + si.ptr_off;
    for (uint32_t i = 0; i < si.n_ptrs; i++)
        fix(&fields[i]);
    return si.size;
}

/* Objects of a block that is not being compacted (walkable: Note [Heap walkability]). */
static void fix_block(bdescr *bd)
{
    StgPtr p = bd->start;
    while (p < bd->free) {
        if (*p == 0) {
            p++;
            continue;
        }
        p += fix_fields((StgClosure *)p);
    }
}

/* Call f on every marked object of bd, in address order. */
#define FOR_MARKED(bd, q, body)                                          \
    do {                                                                 \
        MarkInfo *mi_ = mark_info(bd);                                   \
        for (StgWord w_ = 0; w_ < MARK_BITMAP_WORDS; w_++) {             \
            StgWord bits_ = mi_->start[w_];                              \
            while (bits_) {                                              \
                StgWord off_ = w_ * 64 + (StgWord)__builtin_ctzl(bits_); \
                bits_ &= bits_ - 1;                                      \
                StgClosure *q = (StgClosure *)((bd)->start + off_);      \
                body;                                                    \
            }                                                            \
        }                                                                \
    } while (0)

/* The first chunk at or after c in which a marked object starts (MARK_BITMAP_WORDS: none). */
static StgWord next_chunk(const MarkInfo *mi, StgWord c)
{
    while (c < MARK_BITMAP_WORDS && !mi->start[c])
        c++;
    return c;
}

/* Live words of a marked block; *end: one past its last live word. */
static StgWord block_live(const MarkInfo *mi, StgWord *end)
{
    StgWord n = 0;
    *end = 0;
    for (StgWord c = 0; c < MARK_BITMAP_WORDS; c++)
        if (mi->live[c]) {
            n += mark_popcount(mi->live[c]);
            *end = c * 64 + 64 - (StgWord)__builtin_clzl(mi->live[c]);
        }
    return n;
}

/* The next block the slide may fill (one that does not stay: Note [Blocks that stay]). */
static bdescr *next_dest(bdescr *bd)
{
    while (bd && !(bd->flags & BF_MARKED))
        bd = bd->link;
    return bd;
}

/*
 * Live words of a block before the first object that starts in chunk c, or
 * all of them if c is MARK_BITMAP_WORDS (below[c]: live words before chunk c).
 */
static StgWord live_before(const MarkInfo *mi, const StgWord *below, StgWord c)
{
    if (c == MARK_BITMAP_WORDS)
        return below[c];
    return below[c] + mark_popcount(low_bits(mi->live[c], (StgWord)__builtin_ctzl(mi->start[c])));
}

/*
 * Pass 2, forwarding, from the mark's live bits (Note [Live bits] in
 * mark.h): the objects that start in chunk c are the live words from its
 * first start to the first start of the next chunk that has one (objects do
 * not overlap), so no object is read. Blocks that stay keep their objects
 * (Note [Blocks that stay]). Returns whether the others slide (passes 3
 * and 4 are needed).
 */
static bool compute_forwarding(bdescr *blocks)
{
    StgWord live_total = 0, waste_total = 0, end;
    for (bdescr *bd = blocks; bd; bd = bd->link) {
        StgWord live = block_live(mark_info(bd), &end);
        live_total += live;
        waste_total += live ? BLOCK_SIZE_W - live : 0;
    }
    bool may_stay = trigger_heap_limit_blocks() == 0; /* not under -M: see the Note */
    bool all_stay = waste_total <= live_total / COMPACT_WASTE_FRACTION;
    bool slide = false;
    for (bdescr *bd = blocks; bd; bd = bd->link) {
        StgWord live = block_live(mark_info(bd), &end);
        bd->free = bd->start; /* what stays empty is freed */
        if (live > 0 && may_stay &&
            (all_stay || BLOCK_SIZE_W - live <= BLOCK_SIZE_W / COMPACT_WASTE_FRACTION)) {
            bd->flags &= (uint16_t)~BF_MARKED;
            bd->free = bd->start + end;
            mark_zero_dead(bd, end);
        } else if (live > 0) {
            slide = true;
        }
    }
    if (!slide)
        return false;
    bdescr *dest = next_dest(blocks);
    StgPtr to = dest->start;
    for (bdescr *bd = dest; bd; bd = next_dest(bd->link)) {
        MarkInfo *mi = mark_info(bd);
        StgWord below[MARK_BITMAP_WORDS + 1]; /* live words before each chunk */
        below[0] = 0;
        for (StgWord c = 0; c < MARK_BITMAP_WORDS; c++)
            below[c + 1] = below[c] + mark_popcount(mi->live[c]);
        StgWord c = next_chunk(mi, 0);
        while (c < MARK_BITMAP_WORDS) {
            StgWord next = next_chunk(mi, c + 1);
            StgWord live_first = live_before(mi, below, c);
            StgWord live_next = live_before(mi, below, next);
            StgWord words = live_next - live_first;
            if (to + words > dest->start + BLOCK_SIZE_W) {
                dest->free = to;
                dest = next_dest(dest->link);
                to = dest->start;
            }
            mi->base[c] = to - (live_first - below[c]);
            to += words;
            c = next;
        }
    }
    dest->free = to;
    return true;
}

static void fix_everything(generation *gen, bdescr *marked)
{
    RootVisitor v = {fix_root};
    roots_visit(&v, ROOT_CAPABILITY | ROOT_THREAD | ROOT_STABLE_PTR | ROOT_WEAK);
    for (uint32_t i = 0; i < statics_caf_count(); i++) {
        StgCAF *caf = statics_caf(i);
        if (caf->info->type == IND_STATIC)
            fix(&caf->indirectee);
    }
    stable_name_update(fix_ctx, NULL);
    for (uint32_t c = 0; c < n_capabilities; c++)
        for (uint32_t g = 1; g < n_generations; g++)
            for (bdescr *bd = capabilities[c]->mut_lists[g]; bd; bd = bd->link)
                for (StgPtr e = bd->start; e < bd->free; e++)
                    fix((StgClosure **)e);
    for (uint32_t g = 0; g < n_generations; g++) {
        for (bdescr *bd = generations[g].blocks; bd; bd = bd->link)
            fix_block(bd);
        for (bdescr *bd = generations[g].large_objects; bd; bd = bd->link)
            if (!(bd->flags & BF_PINNED))
                fix_fields((StgClosure *)bd->start);
    }
    (void)gen;
    for (bdescr *bd = marked; bd; bd = bd->link)
        FOR_MARKED(bd, q, fix_fields(q));
}

/* Pass 4: returns the words that moved. */
static StgWord move_objects(bdescr *marked)
{
    StgWord moved = 0;
    for (bdescr *bd = next_dest(marked); bd; bd = next_dest(bd->link))
        FOR_MARKED(bd, q, {
            StgWord size = layout_of(q, q->info).size;
            StgClosure *to = forward(bd, q);
            if (to != q) {
                memmove(to, q, size * sizeof(StgWord));
                moved += size;
            }
        });
    return moved;
}

static int by_address(const void *a, const void *b)
{
    StgPtr x = (*(bdescr *const *)a)->start, y = (*(bdescr *const *)b)->start;
    return x < y ? -1 : x > y;
}

/*
 * The marked blocks in address order: sliding then empties the highest
 * blocks, so whole megablocks can go back (-M counts megablocks in use).
 */
static bdescr *sort_by_address(bdescr *list)
{
    StgWord n = 0;
    for (bdescr *bd = list; bd; bd = bd->link)
        n++;
    if (n < 2)
        return list;
    bdescr **v = hooks_malloc(n * sizeof *v, "compaction order");
    n = 0;
    for (bdescr *bd = list; bd; bd = bd->link)
        v[n++] = bd;
    qsort(v, n, sizeof *v, by_address);
    for (StgWord i = 0; i + 1 < n; i++)
        v[i]->link = v[i + 1];
    v[n - 1]->link = NULL;
    list = v[0];
    free(v);
    return list;
}

static void compact_finish(gc_thread *gct, generation *gen, bool collected)
{
    copying_finish_workspace(gct, &gct->ws[gen->no]);
    if (!collected)
        return;
    copying_free_dead_large_objects(gen);
    bdescr *marked = sort_by_address(mark_blocks());
    if (compute_forwarding(marked)) {
        fix_everything(gen, marked);
        gct->copied_words += move_objects(marked);
    }
    /* The blocks become the generation's, in order, as the copying row leaves
     * them. */
    bdescr *kept = NULL, **tail = &kept, *dead = NULL;
    for (bdescr *bd = marked, *next; bd; bd = next) {
        next = bd->link;
        bd->flags = (uint16_t)((bd->flags & ~BF_MARKED) | BF_EVACUATED);
        bd->u.scan = NULL;
        if (bd->free == bd->start) {
            bd->link = dead;
            dead = bd;
            continue;
        }
        gen->n_blocks += bd->blocks;
        gen->n_words += bd_words(bd);
        bd->link = NULL;
        *tail = bd;
        tail = &bd->link;
    }
    *tail = gen->blocks;
    gen->blocks = kept;
    bd_free_chain_lock(dead);
    mark_done();
}

/* Compaction needs no copy reserve. */
static StgWord compact_reserve(const generation *gen, StgWord blocks)
{
    (void)gen;
    (void)blocks;
    return 0;
}

const GenPolicy gen_policy_compacting = {
    .name = "compacting",
    .prepare = compact_prepare,
    .scan = mark_scan,
    .is_alive = mark_is_alive,
    .finish = compact_finish,
    .walk = copying_walk,
    .check = copying_check,
    .reserve = compact_reserve,
    .todo_full = NULL,
};
