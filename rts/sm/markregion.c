/*
 * The mark-region policy (-w): the oldest generation is marked in place
 * (mark.h) and its free space is reclaimed line by line.
 *
 * Note [Lines and holes]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * A block (4 KiB) is cut into 32 lines of 128 bytes (16 words); bd->lines
 * has a bit per line in use. After the mark, the sweep goes through each
 * marked block's start bits: every marked object sets the bits of the
 * lines it covers (exactly: object sizes are known, so no conservative
 * extra line as in Immix, where marking does not know sizes), and the words
 * between marked objects are zeroed, so that the block stays walkable
 * (Note [Heap walkability] in layout.h) whatever is later put in its free
 * lines. A block with no marked object goes back to the block allocator.
 * A run of free lines is a hole.
 *
 * Until the next major collection, objects promoted into the generation
 * (minor collections) are bump-allocated into the holes, in address order
 * (the sweep's order is the block list's; sorted, mapchurn's major
 * collections under -w took 6% less time, its minor ones no more): the
 * generation's workspace (gc_thread.h) points into the current hole
 * instead of a fresh block (the policy's todo_full hook); a hole too small
 * for the object being copied is skipped. What is copied into holes is
 * scanned from a cursor that follows the filling (the holes are the
 * to-space of this generation). When the holes run out, fresh blocks are used
 * as under copying. The lines a hole's objects cover are set, and bd->free
 * moves up if the hole was past it.
 *
 * Why 128-byte lines: most objects are 2-6 words, so a line holds a few of
 * them and one survivor pins little; a line is two cache lines, so bump
 * allocation in a hole is as local as in a fresh block; 32 lines make
 * the line map one word of the descriptor. Smaller lines would find more
 * holes but a hole must hold the object being promoted (up to 409 words):
 * a medium object skips small holes, which costs only that hole.
 *
 * Fragmentation (the part GHC's -w lacks): a block that the last sweep
 * left sparse (at most a quarter of its lines in use) is not marked by
 * the next major collection but evacuated: it becomes from-space, its live
 * objects are copied out to fresh blocks (the same evacuate that copies
 * the young generations; every pointer to them is in an object the
 * collection scans, so it is updated), and the block is freed. At most an
 * eighth of the generation's blocks are evacuated per collection (the
 * copy reserve this policy asks of heap sizing).
 *
 * Large objects and pinned blocks are relinked when reached, as under
 * copying, and never move. Stacks are large objects.
 */
#include <stdlib.h>
#include <string.h>

#include "hooks.h"
#include "messages.h"
#include "sm/evac.h"
#include "sm/mark.h"
#include "sm/policy.h"
#include "sm/scav.h"
#include "sm/storage.h"

#define LINE_WORDS      16
#define LINES_PER_BLOCK (BLOCK_SIZE_W / LINE_WORDS)
#define SPARSE_LINES    (LINES_PER_BLOCK / 4)
#define HOLE_LOOKAHEAD  32

_Static_assert(LINES_PER_BLOCK == 32, "the line map is 32 bits");

typedef struct {
    bdescr *bd;
    StgPtr start, end;
    StgPtr filled; /* end of what was copied in (once taken) */
} Hole;

static Hole *holes;
static StgWord n_holes, holes_cap;
static StgWord next_hole; /* the next hole to take */
static bool hole_active;  /* the workspace is in holes[next_hole - 1] */
static StgWord scan_hole; /* scanning cursor: hole index ... */
static StgPtr scan_p;     /* ... and address */
static StgWord evacuate_budget;

/* Lines [from, to) of a block (word offsets; to > from) as a mask. */
static uint32_t lines_of(StgWord from, StgWord to)
{
    StgWord lo = from / LINE_WORDS, hi = (to - 1) / LINE_WORDS;
    uint64_t m = ((((uint64_t)1) << (hi - lo + 1)) - 1) << lo;
    return (uint32_t)m;
}

static void add_hole(bdescr *bd, StgWord lo_line, StgWord hi_line)
{
    if (n_holes == holes_cap) {
        holes_cap = holes_cap ? holes_cap * 2 : 256;
        holes = hooks_realloc(holes, holes_cap * sizeof *holes, "mark-region holes");
    }
    holes[n_holes].bd = bd;
    holes[n_holes].start = bd->start + lo_line * LINE_WORDS;
    holes[n_holes].end = bd->start + hi_line * LINE_WORDS;
    holes[n_holes].filled = holes[n_holes].start;
    n_holes++;
}

static bool sparse(bdescr *bd, void *ctx)
{
    (void)ctx;
    if (evacuate_budget == 0 || __builtin_popcount(bd->lines) > SPARSE_LINES)
        return false;
    evacuate_budget--;
    return true;
}

static void mr_prepare(gc_thread *gct, generation *gen)
{
    (void)gct;
    /* Holes belong to the last sweep; this collection makes new ones. */
    n_holes = next_hole = scan_hole = 0;
    hole_active = false;
    evacuate_budget = gen->n_blocks / 8;
    mark_prepare(gen, sparse, NULL);
}

/* The hole being filled is full or the collection ends: account for what went in. */
static void retire_hole(gc_thread *gct, gen_workspace *ws)
{
    Hole *h = &holes[next_hole - 1];
    generation *gen = ws->gen;
    bdescr *bd = h->bd;
    h->filled = ws->todo_free;
    StgWord n = (StgWord)(h->filled - h->start);
    if (n > 0) {
        bd->lines |= lines_of((StgWord)(h->start - bd->start), (StgWord)(h->filled - bd->start));
        if (h->filled > bd->free)
            bd->free = h->filled;
        gen->n_words += n;
        gct->copied_words += n;
    }
    bd->u.scan = NULL;
    hole_active = false;
    ws->todo_bd = NULL;
    ws->todo_free = ws->todo_lim = NULL;
}

static StgPtr mr_todo_full(gc_thread *gct, gen_workspace *ws, StgWord size)
{
    if (hole_active)
        retire_hole(gct, ws);
    while (next_hole < n_holes) {
        /* A hole too small for this object stays for later ones if one just ahead fits. */
        if ((StgWord)(holes[next_hole].end - holes[next_hole].start) < size) {
            for (StgWord i = next_hole + 1; i < n_holes && i <= next_hole + HOLE_LOOKAHEAD; i++)
                if ((StgWord)(holes[i].end - holes[i].start) >= size) {
                    Hole t = holes[i];
                    holes[i] = holes[next_hole];
                    holes[next_hole] = t;
                    break;
                }
        }
        Hole *h = &holes[next_hole++];
        if (scan_hole == next_hole - 1)
            scan_p = h->start;
        if ((StgWord)(h->end - h->start) < size) {
            h->filled = h->start; /* too small for this object: skipped */
            continue;
        }
        hole_active = true;
        /* The copying scanner must not take the hole's block for a to-space block. */
        h->bd->u.scan = (StgPtr)(StgWord)-1;
        ws->todo_bd = h->bd;
        ws->todo_free = h->start + size;
        ws->todo_lim = h->end;
        return h->start;
    }
    return NULL; /* fresh blocks from now on */
}

/* Scan what was copied into holes, from the cursor. */
static bool scan_holes(gc_thread *gct, generation *gen)
{
    gen_workspace *ws = &gct->ws[gen->no];
    bool work = false;
    while (scan_hole < next_hole) {
        bool active = hole_active && scan_hole == next_hole - 1;
        StgPtr lim = active ? ws->todo_free : holes[scan_hole].filled;
        if (scan_p < lim) {
            /* Scanning may fill the active hole further: lim is read again after. */
            scan_p = scav_objects(gct, scan_p, lim, gen->no);
            work = true;
            continue;
        }
        if (active)
            break;
        if (++scan_hole < next_hole)
            scan_p = holes[scan_hole].start;
    }
    return work;
}

static bool mr_scan(gc_thread *gct, generation *gen)
{
    bool work = scan_holes(gct, gen);
    if (mark_scan(gct, gen))
        work = true;
    return work;
}

/*
 * Sweep one marked block from its live bits (Note [Live bits] in mark.h):
 * zero what died, set its lines; false if nothing lives in it.
 */
static bool sweep_block(bdescr *bd, StgWord *live_words)
{
    const StgWord *live = mark_info(bd)->live;
    StgWord n = 0, end = 0;
    uint32_t lines = 0;
    for (StgWord w = 0; w < MARK_BITMAP_WORDS; w++) {
        StgWord bits = live[w];
        if (!bits)
            continue;
        n += mark_popcount(bits);
        end = w * 64 + 64 - (StgWord)__builtin_clzl(bits);
        /* Fold each 16-bit line into its lowest bit. */
        bits |= bits >> 1;
        bits |= bits >> 2;
        bits |= bits >> 4;
        bits |= bits >> 8;
        StgWord four = (bits & 1) | ((bits >> 15) & 2) | ((bits >> 30) & 4) | ((bits >> 45) & 8);
        lines |= (uint32_t)four << (w * (64 / LINE_WORDS));
    }
    if (n == 0)
        return false;
    mark_zero_dead(bd, BLOCK_SIZE_W);
    bd->free = bd->start + end;
    bd->lines = lines;
    *live_words = n;
    return true;
}

static void add_holes_of(bdescr *bd)
{
    StgWord l = 0;
    while (l < LINES_PER_BLOCK) {
        if (bd->lines & (1u << l)) {
            l++;
            continue;
        }
        StgWord h = l;
        while (h < LINES_PER_BLOCK && !(bd->lines & (1u << h)))
            h++;
        add_hole(bd, l, h);
        l = h;
    }
}

/*
 * Put the holes in address order: an LSD radix sort on the line number,
 * SORT_BITS a pass (the sweep adds each block's holes in order, but the
 * blocks come in list order). qsort took 5 ms of a 60 ms major collection
 * on mapchurn -w (52k holes).
 */
#define SORT_BITS 11

static void sort_holes(void)
{
    if (n_holes < 2) /* holes is NULL until the first hole */
        return;
    StgPtr lo = holes[0].start, hi = lo;
    for (StgWord i = 1; i < n_holes; i++) {
        if (holes[i].start < lo)
            lo = holes[i].start;
        if (holes[i].start > hi)
            hi = holes[i].start;
    }
    StgWord range = (StgWord)(hi - lo) / LINE_WORDS;
    Hole *src = holes, *dst = hooks_malloc(n_holes * sizeof *holes, "mark-region hole sort");
    Hole *spare = dst;
    StgWord shift = 0;
    do {
        StgWord count[1u << SORT_BITS] = {0};
        for (StgWord i = 0; i < n_holes; i++)
            count[((StgWord)(src[i].start - lo) / LINE_WORDS >> shift) & ((1u << SORT_BITS) - 1)]++;
        for (StgWord k = 0, sum = 0; k < (1u << SORT_BITS); k++) {
            StgWord c = count[k];
            count[k] = sum;
            sum += c;
        }
        for (StgWord i = 0; i < n_holes; i++)
            dst[count[((StgWord)(src[i].start - lo) / LINE_WORDS >> shift) &
                      ((1u << SORT_BITS) - 1)]++] = src[i];
        Hole *t = src;
        src = dst;
        dst = t;
        shift += SORT_BITS;
    } while (shift < 64 && (range >> shift) != 0);
    if (src != holes)
        memcpy(holes, src, n_holes * sizeof *holes);
    free(spare);
}

static void mr_finish(gc_thread *gct, generation *gen, bool collected)
{
    gen_workspace *ws = &gct->ws[gen->no];
    if (hole_active)
        retire_hole(gct, ws);
    /* Fresh blocks: promotions of a major collection, or after the holes ran out. */
    bdescr *before = gen->blocks;
    copying_finish_workspace(gct, ws);
    for (bdescr *bd = gen->blocks; bd != before; bd = bd->link)
        bd->lines = bd->free > bd->start ? lines_of(0, bd_words(bd)) : 0;
    if (!collected) {
        scan_hole = next_hole;
        return;
    }
    /* Sweep (Note [Lines and holes]); sparse blocks were evacuated: free them. */
    bd_free_chain_lock(gen->old_blocks);
    gen->old_blocks = NULL;
    gen->n_old_blocks = 0;
    copying_free_dead_large_objects(gen);
    n_holes = next_hole = scan_hole = 0;
    bdescr *dead = NULL;
    for (bdescr *bd = mark_blocks(), *next; bd; bd = next) {
        next = bd->link;
        StgWord live;
        bd->flags &= (uint16_t)~BF_MARKED;
        if (!sweep_block(bd, &live)) {
            bd->link = dead;
            dead = bd;
            continue;
        }
        bd->flags |= BF_EVACUATED;
        bd->u.scan = NULL;
        bd->link = gen->blocks;
        gen->blocks = bd;
        gen->n_blocks += bd->blocks;
        gen->n_words += live;
        add_holes_of(bd);
    }
    bd_free_chain_lock(dead);
    mark_done();
    /* Address order: promotion then writes through memory as into fresh blocks. */
    sort_holes();
    scan_hole = next_hole = 0;
    scan_p = n_holes ? holes[0].start : NULL;
}

static void mr_check(const generation *gen)
{
    uint32_t g = gen->no;
    StgWord blocks = 0, words = 0;
    for (bdescr *bd = gen->blocks; bd; bd = bd->link) {
        if (bd->gen != gen || bd->gen_no != g || bd->dest_no != gen->to->no ||
            !(bd->flags & BF_EVACUATED) || (bd->flags & (BF_LARGE | BF_MARKED)) || bd->blocks != 1)
            msg_barf("mark-region: block %p of generation %u has bad fields", (void *)bd->start, g);
        /* Every word in use lies in a line in use (Note [Lines and holes]). */
        for (StgPtr p = bd->start; p < bd->free; p++)
            if (*p != 0 && !(bd->lines & (1u << ((StgWord)(p - bd->start) / LINE_WORDS))))
                msg_barf("mark-region: block %p: word %p is in a free line", (void *)bd->start,
                         (void *)p);
        blocks += bd->blocks;
        words += bd_words(bd);
    }
    if (blocks != gen->n_blocks || gen->n_words > words)
        msg_barf("mark-region: generation %u counts %lu blocks/%lu live words, has %lu/%lu", g,
                 (unsigned long)gen->n_blocks, (unsigned long)gen->n_words, (unsigned long)blocks,
                 (unsigned long)words);
}

/* Marking needs no copy reserve; evacuating sparse blocks needs at most an eighth. */
static StgWord mr_reserve(const generation *gen, StgWord blocks)
{
    (void)gen;
    return blocks / 8;
}

const GenPolicy gen_policy_mark_region = {
    .name = "mark-region",
    .prepare = mr_prepare,
    .scan = mr_scan,
    .is_alive = mark_is_alive,
    .finish = mr_finish,
    .walk = copying_walk,
    .check = mr_check,
    .reserve = mr_reserve,
    .todo_full = mr_todo_full,
};
