/*
 * The shared stop-the-world mark. See Note [Marking in place] in mark.h.
 */
#include "sm/mark.h"

#include <stdlib.h>
#include <string.h>

#include "hooks.h"
#include "messages.h"
#include "sm/evac.h"
#include "sm/layout.h"
#include "sm/nonmoving.h"
#include "sm/scav.h"
#include "sm/storage.h"

#define MARK_STACK_DEFAULT_LIMIT ((StgWord)16 << 20)

static MarkInfo *infos;    /* one per marked block */
static bdescr *marked;     /* the marked blocks, in the generation's order */
static StgClosure **stack; /* the mark stack */
static StgWord sp, stack_cap;
static StgWord stack_limit = MARK_STACK_DEFAULT_LIMIT;
static bool overflowed;
uint64_t mark_stack_overflows;

void mark_stack_set_limit(StgWord entries)
{
    stack_limit = entries ? entries : MARK_STACK_DEFAULT_LIMIT;
}

void mark_prepare(generation *gen, bool (*evac_block)(bdescr *bd, void *ctx), void *ctx)
{
    /* Large objects: relinked when reached, as under copying (they never move). */
    gen->old_large_objects = gen->large_objects;
    for (bdescr *bd = gen->old_large_objects; bd; bd = bd->link)
        bd->flags &= (uint16_t)~BF_EVACUATED;
    gen->large_objects = NULL;
    gen->n_large_blocks = 0;
    gen->n_large_words = 0;

    free(infos);
    infos = gen->n_blocks ? hooks_calloc(gen->n_blocks, sizeof(MarkInfo), "mark bitmaps") : NULL;
    marked = NULL;
    bdescr **tail = &marked;
    StgWord i = 0;
    gen->old_blocks = NULL;
    gen->n_old_blocks = 0;
    for (bdescr *bd = gen->blocks, *next; bd; bd = next) {
        next = bd->link;
        ASSERT(bd->blocks == 1);
        if (evac_block && evac_block(bd, ctx)) {
            /* From-space: its live objects are copied out (mark_is_alive). */
            bd->flags &= (uint16_t) ~(BF_EVACUATED | BF_MARKED);
            bd->link = gen->old_blocks;
            gen->old_blocks = bd;
            gen->n_old_blocks += bd->blocks;
            continue;
        }
        bd->flags = (uint16_t)((bd->flags & ~BF_EVACUATED) | BF_MARKED);
        bd->u.bitmap = (StgWord *)&infos[i++];
        bd->link = NULL;
        *tail = bd;
        tail = &bd->link;
    }
    gen->blocks = NULL;
    gen->n_blocks = 0;
    gen->n_words = 0;
    sp = 0;
    overflowed = false;
}

/* Set bits [from, from + n) of a block's bitmap. */
static void set_live(StgWord *bm, StgWord from, StgWord n)
{
    while (n > 0) {
        StgWord b = from % 64, k = 64 - b < n ? 64 - b : n;
        bm[from / 64] |= (k == 64 ? ~(StgWord)0 : (((StgWord)1 << k) - 1)) << b;
        from += k;
        n -= k;
    }
}

/* The first word at or after w whose live bit is `bit` (BLOCK_SIZE_W: none). */
static StgWord next_with(const StgWord *live, StgWord w, bool bit)
{
    StgWord i = w / 64;
    if (i >= MARK_BITMAP_WORDS)
        return BLOCK_SIZE_W;
    StgWord bits = (bit ? live[i] : ~live[i]) & (~(StgWord)0 << (w % 64));
    while (!bits) {
        if (++i == MARK_BITMAP_WORDS)
            return BLOCK_SIZE_W;
        bits = bit ? live[i] : ~live[i];
    }
    return i * 64 + (StgWord)__builtin_ctzl(bits);
}

void mark_zero_dead(bdescr *bd, StgWord end)
{
    const StgWord *live = mark_info(bd)->live;
    for (StgWord d = next_with(live, 0, false); d < end;) {
        StgWord e = next_with(live, d, true);
        if (e > end)
            e = end;
        memset(bd->start + d, 0, (e - d) * sizeof(StgWord));
        d = next_with(live, e, false);
    }
}

bdescr *mark_blocks(void)
{
#ifdef DEBUG
    /* The live bits are exactly the words of the marked objects (Note [Live bits]). */
    for (bdescr *bd = marked; bd; bd = bd->link) {
        const MarkInfo *mi = mark_info(bd);
        StgWord expect[MARK_BITMAP_WORDS] = {0};
        for (StgWord off = 0; off < BLOCK_SIZE_W; off++)
            if ((mi->start[off / 64] >> (off % 64)) & 1) {
                StgClosure *q = (StgClosure *)(bd->start + off);
                set_live(expect, off, layout_of(q, q->info).size);
            }
        if (memcmp(expect, mi->live, sizeof expect) != 0)
            msg_barf("mark: block %p: live bits do not match its marked objects",
                     (void *)bd->start);
    }
#endif
    return marked;
}

void mark_done(void)
{
    free(infos);
    infos = NULL;
    marked = NULL;
    free(stack);
    stack = NULL;
    sp = stack_cap = 0;
}

static void push(StgClosure *q)
{
    if (sp == stack_cap) {
        if (stack_cap >= stack_limit) {
            /* Leave q marked but unscanned: the overflow walk finds it. */
            if (!overflowed)
                mark_stack_overflows++;
            overflowed = true;
            return;
        }
        StgWord cap = stack_cap ? stack_cap * 2 : 1024;
        if (cap > stack_limit)
            cap = stack_limit;
        stack = hooks_realloc(stack, cap * sizeof *stack, "mark stack");
        stack_cap = cap;
    }
    __builtin_prefetch(q, 0); /* Note [Prefetching the mark] */
    stack[sp++] = q;
}

void mark_object(gc_thread *gct, StgClosure *q, bdescr *bd)
{
    (void)gct;
    if (bd->flags & BF_NONMOVING) {
        if (nm_pause != NM_PAUSE_NONE) {
            /* A pause of the concurrent mark: Note [The concurrent mark]. */
            nm_grey(gct, q, bd);
            return;
        }
        /* A segment's slot: its epoch byte is the mark (Note [Nonmoving segments]). */
        if (!nm_mark(q, bd))
            return;
        check_info(q, q->info);
        push(q);
        return;
    }
    StgWord off = (StgWord)((StgPtr)q - bd->start);
    StgWord *w = &mark_info(bd)->start[off / 64];
    StgWord bit = (StgWord)1 << (off % 64);
    if (*w & bit)
        return;
    check_info(q, q->info);
    *w |= bit;
    push(q);
}

/* Scan one marked object; a thunk under evaluation becomes a BLACKHOLE in place first. */
static void scan_marked(gc_thread *gct, StgClosure *q, uint32_t gen_no)
{
    const StgInfoTable *info = q->info;
    uint32_t type = info->type;
    if ((type == THUNK || type == AP || type == THUNK_SELECTOR) && (((StgThunk *)q)->slot & 1)) {
        StgWord size = layout_of(q, info).size;
        StgWord owner = ((StgThunk *)q)->slot;
        q->info = &stg_BLACKHOLE_info;
        ((StgBlackhole *)q)->owner = owner;
        memset((StgWord *)q + SIZEOF_W(StgBlackhole), 0,
               (size - SIZEOF_W(StgBlackhole)) * sizeof(StgWord));
    }
    StgWord size = scav_one(gct, q, gen_no);
    /* Its words, for the row's finish (Note [Live bits] in mark.h); a segment has no MarkInfo. */
    bdescr *bd = Bdescr(q);
    if (!(bd->flags & BF_NONMOVING))
        set_live(mark_info(bd)->live, (StgWord)((StgPtr)q - bd->start), size);
}

/* Scan q, then what that pushed (the overflow walks). */
static void scan_and_drain(gc_thread *gct, StgClosure *q, uint32_t gen_no)
{
    scan_marked(gct, q, gen_no);
    while (sp > 0)
        scan_marked(gct, stack[--sp], gen_no);
}

/* After an overflow: scan every marked object again (Note [Marking in place]). */
static void rescan_marked(gc_thread *gct, uint32_t gen_no)
{
    if (nm_marking)
        nm_rescan(gct, gen_no, scan_and_drain);
    for (bdescr *bd = marked; bd; bd = bd->link) {
        MarkInfo *mi = mark_info(bd);
        for (StgWord w = 0; w < MARK_BITMAP_WORDS; w++) {
            StgWord bits = mi->start[w];
            while (bits) {
                StgWord b = (StgWord)__builtin_ctzl(bits);
                bits &= bits - 1;
                /* Drain as we go: the stack holds what this walk discovers. */
                scan_and_drain(gct, (StgClosure *)(bd->start + w * 64 + b), gen_no);
            }
        }
    }
}

/*
 * Note [Prefetching the mark]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Marking a large heap is waiting for memory: each object popped is
 * somewhere the cache has not seen. So an object is not scanned when it
 * leaves the stack: it enters a small ring and is prefetched, and the ring
 * scans its oldest entry, MARK_PREFETCH - 1 objects later, by when the
 * header and fields have arrived (Boehm's and OCaml's markers do the same).
 * The order of scanning changes a little, not what is marked. An object is
 * also prefetched when it is pushed, which helps the ones that wait on the
 * stack (the rest of a parent's fields).
 *
 * Without the ring the mark is a chain of dependent misses: the object
 * popped is usually the one just pushed (the last field of the object
 * just scanned), so its prefetch has had no time. Every marked row uses
 * the ring. At first only the nonmoving heap's mark did (largeheap 300
 * -xn: major GC time -18%), because under -c and -w the ring had made
 * binarytrees' majors 12% slower (their blocks were laid down by a
 * copying scan in the order the mark follows, and the hardware prefetcher
 * was there first). Measured again after the scavenger's and the mark's
 * later changes, ring against none (3 interleaved runs, major GC CPU
 * time, median): mapchurn -w 0.39 s vs 0.52, -c 0.99 vs 1.12 (its tree is
 * rebuilt in random order, and -w fills holes anywhere); binarytrees 20 -w
 * 0.95 vs 0.93, -c 1.99 vs 2.10; largeheap 300 -w 0.79 vs 0.76, -c 1.74 vs
 * 1.81. On binarytrees 21 -w perf counts the same samples in the mark
 * with and without it (7.5k vs 7.6k). Prefetching each object's fields'
 * descriptors from the middle of the ring, and a ring of 16 or 32, were
 * no faster on mapchurn -w (the first 20% slower: the object is read
 * before it has arrived).
 */
#define MARK_PREFETCH 8

/* Scan everything on the stack, and what that pushes; true if any (Note [Prefetching the mark]). */
static bool drain(gc_thread *gct, uint32_t gen_no)
{
    StgClosure *ring[MARK_PREFETCH];
    uint32_t head = 0, n = 0;
    bool work = false;
    for (;;) {
        while (n < MARK_PREFETCH && sp > 0) {
            StgClosure *q = stack[--sp];
            __builtin_prefetch(q, 0);
            ring[(head + n++) % MARK_PREFETCH] = q;
        }
        if (n == 0)
            return work;
        StgClosure *q = ring[head];
        head = (head + 1) % MARK_PREFETCH;
        n--;
        scan_marked(gct, q, gen_no);
        work = true;
    }
}

bool mark_scan(gc_thread *gct, generation *gen)
{
    bool work = scav_workspace(gct, &gct->ws[gen->no]);
    if (!marked && sp == 0 && !overflowed)
        return work;
    for (;;) {
        if (drain(gct, gen->no))
            work = true;
        if (!overflowed)
            break;
        overflowed = false;
        rescan_marked(gct, gen->no);
        work = true;
    }
    return work;
}

StgClosure *mark_is_alive(const bdescr *bd, StgClosure *q)
{
    if (bd->flags & BF_MARKED)
        return mark_is_marked(bd, q) ? q : NULL;
    if (bd->flags & BF_LARGE)
        return NULL; /* reached, it would have been relinked with BF_EVACUATED */
    return is_forwarded(q) ? forwardee(q) : NULL;
}
