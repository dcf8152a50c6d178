/*
 * The nonmoving policy (-xn, --nonmoving-gc): the oldest generation is a
 * segregated-fit heap of segments, marked in place and swept; nothing in it
 * ever moves. In the vanilla way the mark is the shared stop-the-world
 * mark (mark.h), as GHC's non-threaded RTS marks; in the threaded way it is
 * the concurrent mark of nonmoving_mark.c (Note [The concurrent mark]).
 *
 * Note [Nonmoving segments]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A segment is a group of NM_SEGMENT_BLOCKS blocks (32 KiB) holding slots
 * of one size: a header (NmSegment, nonmoving.h), one epoch byte per slot,
 * then the slots. Any address in it finds the header through its block
 * descriptor (a later block's descriptor links to the group's head), so
 * segments need no alignment beyond the block's.
 *
 * Size classes: an object of w words goes into the smallest class of at
 * least w words. Classes are dense for small objects, where Haskell heaps
 * are (2..1+count words, count = --nonmoving-dense-allocator-count, default
 * 16; a 1-word object takes a 2-word slot), then sparse: the powers of two
 * and the one-and-a-half powers of two above the dense ones, so a sparse
 * slot wastes at most a third of itself, and a last class of the largest
 * small object (LARGE_OBJECT_THRESHOLD_W - 1 words). Bigger objects are
 * large objects, relinked in place as under every policy.
 *
 * Epochs: the generation has a current epoch (1..255). A slot's byte holds
 * the epoch in which it was last marked or allocated (0: never). Between
 * collections a slot is live iff its byte is the current epoch. A major
 * collection starts a new epoch: marking sets a reached slot's byte to it,
 * and after the mark exactly the slots holding it are alive; the sweep does
 * not have to clear anything to make the dead free. During that collection
 * allocation (promotion from the young generations) must not take a slot
 * still holding the previous epoch (live before, maybe not marked yet), so
 * a slot is free iff its byte is neither the current epoch nor, while
 * marking, the previous one. Bytes are 8 bits, so epochs come round again
 * after 255 collections: a slot that died long ago must not be taken for
 * marked when its stale epoch comes back. The sweep reads every byte anyway
 * (it counts the live slots); it zeroes the bytes holding the epoch that
 * comes next, so no byte holds it when it begins (nm_check asserts it).
 *
 * Allocation happens only in collections (promotion): the generation's
 * workspace gets one slot per object through the policy's todo_full hook,
 * from the size class's current segment, from the slot cursor on, one
 * run of free slots at a time (Note [Promotion into runs]); a full
 * current segment goes to the class's filled list and the next is taken
 * from its active list (segments the last sweep left with free slots),
 * or, after a concurrent cycle, an unswept one swept there and then, or an
 * empty one, or a fresh one from the block allocator (next_segment).
 * Promoted objects are scanned by the
 * generation's scan in the order they were promoted (they are this
 * generation's to-space).
 * Collections that reach this generation's allocator run on one GC thread
 * (gc_par.c: a policy with todo_full), so one allocator serves them all.
 *
 * Sweep: a segment with no live slot goes back to the block allocator (and
 * so, in time, to the OS: GHC keeps its free segments); the others go to
 * the active or the filled list by occupancy. GHC's free-segment list is
 * the block allocator here. Each class's occupancy (live slots / slots) is
 * recorded (nm_class_census; -Dn prints it after every sweep). After a
 * concurrent cycle the mark thread sweeps, beside the program (Note [The
 * concurrent sweep]); the vanilla way and a full collection sweep in the
 * pause.
 *
 * The concurrent mark (threaded way, nonmoving_mark.c) sets the same
 * epoch bytes from its own thread; promotion while it runs follows the rule
 * above (neither epoch) and gives the new epoch (allocate black). The
 * allocator is still one for all (collections that promote here run on one
 * GC thread, and the mark thread never allocates). Between the pauses of
 * a cycle the previous epoch's slots may be alive as well (nm_walk,
 * nm_is_live_slot), and the live counts are not kept (nm_check waits).
 */
#include "sm/nonmoving.h"
#include "sm/nonmoving_heap.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "flags/flags.h"
#include "hooks.h"
#include "messages.h"
#include "sm/evac.h"
#include "sm/mark.h"
#include "sm/policy.h"
#include "sm/scav.h"
#include "sm/storage.h"
#include "sm/trigger.h"
#include "trace/debug_trace.h"
#include "trace/trace.h"

#define SEGMENT_BYTES   ((StgWord)NM_SEGMENT_BLOCKS * BLOCK_SIZE)
#define MAX_SMALL_WORDS (LARGE_OBJECT_THRESHOLD_W - 1)

uint32_t nm_class_count;
static uint32_t *class_words;                        /* [n_classes] */
static uint16_t class_of_words[MAX_SMALL_WORDS + 1]; /* words -> class */
NmAlloc *nm_allocs;                                  /* [n_classes] */
static SlotRun *runs;                                /* [n_classes]: the open runs */

uint8_t nm_epoch = 1, nm_prev_epoch;
bool nm_marking;
/*
 * The concurrent sweep (Note [The concurrent sweep]): guarded by sweep_lock
 * are every class's unswept, active and filled lists, dead_segs, n_unswept,
 * the census and the segments on those lists; `sweeping` is also read
 * without it (atomic).
 */
pthread_mutex_t nm_sweep_lock = PTHREAD_MUTEX_INITIALIZER;
static NmSegment *dead_segs; /* swept empty, still the generation's: freed by the next collection */
static StgWord n_unswept;
static uint32_t sweep_no; /* sweeps begun; a segment whose `sweeps` is older is not swept yet */
static bool sweeping;    /* a cycle's final pause handed its segments to the sweep, not all swept */
static bool sweep_ended; /* the sweep ended since the last collection: heap sizing may look */
static uint32_t sweep_cursor; /* the class the sweeper takes from next */
/*
 * The segment the mark thread is sweeping outside the lock, off every list
 * (NULL: none), and the collections that wait for it to be filed before they
 * look at the lists (sweep_held: the mark thread takes no other meanwhile).
 */
static NmSegment *sweep_inflight;
static uint32_t sweep_held;
static pthread_cond_t sweep_cond = PTHREAD_COND_INITIALIZER;
/* Words in slots marked since the cycle's start, and promoted into black slots since. */
static StgWord marked_words, black_words;
static uint32_t marked_objects; /* slots marked this cycle (the CONC_MARK_END event) */
/* Pointers into segments are marked: a stop-the-world mark, or a pause of a concurrent cycle. */
static bool segs_marked;
/* Live slots and slots over every sweep of the run; kept after nm_exit (the -s summary). */
static uint64_t swept_live, swept_slots;
/* Slots in use and slots as every mark of the run began; kept likewise (nm_new_epoch). */
static uint64_t start_used, start_slots;

/*
 * Runs of promoted objects not scanned yet, and closed since: a ring,
 * scanned first in, first out (Note [Promotion into runs]). pending_cap is
 * a power of two.
 */
typedef struct {
    StgPtr from, to; /* slots from `from` up to `to` */
    StgWord step;    /* words per slot */
} NmRun;
static NmRun *pending;
static StgWord pending_head, n_pending, pending_cap;

static NmSegment *next_segment(generation *gen, uint32_t cls);

static uint8_t next_epoch(uint8_t e)
{
    return e == 255 ? 1 : (uint8_t)(e + 1);
}

static bool slot_free(uint8_t b)
{
    return b != nm_epoch && !(nm_marking && b == nm_prev_epoch);
}

/* --- size classes ----------------------------------------------------------- */

static void add_class(uint32_t words)
{
    class_words =
        hooks_realloc(class_words, (nm_class_count + 1) * sizeof *class_words, "nm classes");
    class_words[nm_class_count++] = words;
}

static void init_classes(uint32_t dense)
{
    nm_class_count = 0;
    uint32_t w = 2;
    for (; w <= 1 + dense && w <= MAX_SMALL_WORDS; w++)
        add_class(w);
    /* Sparse: 2^k and 3 * 2^(k-1) above the dense classes. */
    for (uint32_t p = 4; w <= MAX_SMALL_WORDS; p *= 2) {
        uint32_t cand[2] = {p, p + p / 2};
        for (int i = 0; i < 2; i++)
            if (cand[i] >= w && cand[i] < MAX_SMALL_WORDS) {
                add_class(cand[i]);
                w = cand[i] + 1;
            }
        if (p >= MAX_SMALL_WORDS)
            break;
    }
    if (class_words[nm_class_count - 1] < MAX_SMALL_WORDS)
        add_class(MAX_SMALL_WORDS);
    uint32_t c = 0;
    class_of_words[0] = 0;
    for (uint32_t s = 1; s <= MAX_SMALL_WORDS; s++) {
        while (class_words[c] < s)
            c++;
        class_of_words[s] = (uint16_t)c;
    }
}

uint32_t nm_n_classes(void)
{
    return nm_class_count;
}

uint32_t nm_class_of(StgWord words)
{
    if (words > MAX_SMALL_WORDS)
        msg_barf("nonmoving: a %lu-word object is a large object", (unsigned long)words);
    return class_of_words[words];
}

uint32_t nm_class_words(uint32_t cls)
{
    return class_words[cls];
}

void nm_init(void)
{
    uint32_t dense = rts_flags.gc.nonmoving_dense_allocator_count;
    free(class_words);
    class_words = NULL;
    init_classes(dense);
    free(nm_allocs);
    nm_allocs = hooks_calloc(nm_class_count, sizeof *nm_allocs, "nm allocators");
    free(runs);
    runs = hooks_calloc(nm_class_count, sizeof *runs, "nm runs");
    for (uint32_t c = 0; c < nm_class_count; c++)
        nm_allocs[c].census.slot_words = class_words[c];
    nm_epoch = 1;
    nm_prev_epoch = 0;
    nm_marking = false;
    segs_marked = false;
    swept_live = swept_slots = 0;
    start_used = start_slots = 0;
    pending_head = n_pending = 0;
    dead_segs = NULL;
    n_unswept = 0;
    sweep_no = 0;
    __atomic_store_n(&sweeping, false, __ATOMIC_RELAXED);
    sweep_ended = false;
    sweep_cursor = 0;
    marked_words = black_words = 0;
    marked_objects = 0;
    nm_evac_reset();
}

/* The segments themselves are the generation's blocks: sm_exit frees them. */
void nm_exit(void)
{
    nm_mark_exit();
    nm_evac_reset();
    free(nm_allocs);
    nm_allocs = NULL;
    free(runs);
    runs = NULL;
    free(class_words);
    class_words = NULL;
    nm_class_count = 0;
    free(pending);
    pending = NULL;
    pending_head = n_pending = pending_cap = 0;
}

/* --- segments ----------------------------------------------------------------- */

static StgWord header_bytes(uint32_t n_slots)
{
    return (sizeof(NmSegment) + n_slots + sizeof(StgWord) - 1) & ~(sizeof(StgWord) - 1);
}

static uint32_t slots_per_segment(uint32_t slot_words)
{
    StgWord slot_bytes = (StgWord)slot_words * sizeof(StgWord);
    uint32_t n = (uint32_t)((SEGMENT_BYTES - sizeof(NmSegment)) / (slot_bytes + 1));
    while (header_bytes(n) + n * slot_bytes > SEGMENT_BYTES)
        n--;
    return n;
}

/* Every block of the segment says what the collection does with it. */
static void set_segment_flags(bdescr *head, uint16_t flags)
{
    for (uint32_t i = 0; i < NM_SEGMENT_BLOCKS; i++)
        head[i].flags = flags;
}

/*
 * A segment's flags never change: BF_EVACUATED says "never moves" to a
 * collection that does not decide the generation, and one that does (a
 * major mark, the pauses of a concurrent cycle that grey) says so in
 * gct->nm_grey, so that starting and ending a mark costs nothing per
 * segment (the flags of every segment's blocks were rewritten twice a
 * cycle before: milliseconds on a large heap).
 */
#define SEGMENT_FLAGS ((uint16_t)(BF_NONMOVING | BF_EVACUATED))

/*
 * The generation's segments are a list of their head descriptors through
 * link, doubly linked through u.back, so that a segment the concurrent
 * sweep found empty leaves it in O(1).
 */
static void link_segment(generation *gen, bdescr *bd)
{
    bd->u.back = NULL;
    bd->link = gen->blocks;
    if (gen->blocks)
        gen->blocks->u.back = bd;
    gen->blocks = bd;
    gen->n_blocks += NM_SEGMENT_BLOCKS;
}

static void unlink_segment(generation *gen, bdescr *bd)
{
    if (bd->u.back)
        bd->u.back->link = bd->link;
    else
        gen->blocks = bd->link;
    if (bd->link)
        bd->link->u.back = bd->u.back;
    gen->n_blocks -= NM_SEGMENT_BLOCKS;
}

/* A segment's header for class cls: every slot free. */
static void init_segment(NmSegment *s, uint32_t cls)
{
    s->link = NULL;
    s->state = NM_SEG_IN_USE;
    s->evac = 0;
    s->sweeps = sweep_no;
    s->cls = cls;
    s->slot_words = class_words[cls];
    s->n_slots = slots_per_segment(s->slot_words);
    s->next_free = 0;
    s->live = 0;
    ASSERT(s->slot_words >= 2); /* so that slot_inv fits 32 bits */
    s->slot_inv = (uint32_t)((((uint64_t)1 << 32) + s->slot_words - 1) / s->slot_words);
    memset(s->mark, 0, s->n_slots);
    s->slots = (StgPtr)((char *)s + header_bytes(s->n_slots));
    nm_allocs[cls].census.segments++;
    nm_allocs[cls].census.slots += s->n_slots;
}

static NmSegment *new_segment(generation *gen, uint32_t cls)
{
    bdescr *bd = bd_alloc_group_lock(NM_SEGMENT_BLOCKS);
    StgPtr end = bd->start + SEGMENT_BYTES / sizeof(StgWord);
    for (uint32_t i = 0; i < NM_SEGMENT_BLOCKS; i++) {
        bd[i].gen = gen;
        bd[i].gen_no = (uint16_t)gen->no;
        bd[i].dest_no = (uint16_t)gen->to->no;
        bd[i].free = end; /* objects may cross block boundaries: the segment is one extent */
    }
    set_segment_flags(bd, SEGMENT_FLAGS);
    link_segment(gen, bd);
    NmSegment *s = (NmSegment *)bd->start;
    init_segment(s, cls);
    /* Last, with release: the mark thread tests it (Note [Tracing beside a collection]). */
    for (uint32_t i = 0; i < NM_SEGMENT_BLOCKS; i++)
        __atomic_store_n(&bd[i].nm_segment, NM_SEG_BLOCK, __ATOMIC_RELEASE);
    return s;
}

/* Give an empty segment back to the block allocator. */
static void free_segment(generation *gen, NmSegment *s)
{
    nm_evac_drop_source(s);
    bdescr *bd = Bdescr(s);
    unlink_segment(gen, bd);
    /* No stale BF_NONMOVING or nm_segment in the later blocks (a stale pointer's reader tests). */
    set_segment_flags(bd, 0);
    for (uint32_t i = 0; i < NM_SEGMENT_BLOCKS; i++)
        __atomic_store_n(&bd[i].nm_segment, 0, __ATOMIC_RELAXED);
    bd_free_group_lock(bd);
}

/* The next free slot of s from its cursor, or n_slots. */
static uint32_t find_free(NmSegment *s)
{
    uint32_t i = s->next_free;
    while (i < s->n_slots && !slot_free(mark_byte(s, i)))
        i++;
    return i;
}

/* --- the policy ----------------------------------------------------------------- */

/*
 * Note [Promotion into runs]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Every object a collection promotes into this generation comes through
 * nm_todo_full (the workspace has no block to bump into), so its cost is
 * the cost of promotion. Each size class has an open run: free slots
 * [bump, lim) of its current segment, one contiguous stretch (a fresh
 * segment is one run; a swept one has a run per stretch of free slots).
 * Taking a slot is a bump of `bump` and the slot's epoch byte; the
 * segment's and the census's counts are settled when the run closes (the
 * run is used up, or the collection ends: nm_finish closes every run).
 *
 * Scanning follows allocation as a copying collection's scan follows its
 * to-space (Cheney): the objects from `scan` to `bump` of an open run wait
 * to be scanned, and a run that closes with some waiting puts them on a
 * queue of runs, scanned first in, first out. Promoted objects used to
 * wait one by one on a stack (depth first): promotion took 2.1x a copying
 * collection's minor pause on bench/largeheap; breadth first alone saved a
 * quarter of that (it reads the young generation in about the order its
 * objects were allocated), and runs the call and the queue entry per
 * object. A slot's unused tail is never scanned: the walk steps a slot at
 * a time, scanning the object at the slot's start.
 */
static void grow_pending(void)
{
    StgWord cap = pending_cap ? pending_cap * 2 : 256;
    NmRun *q = hooks_malloc(cap * sizeof *q, "nm pending");
    for (StgWord k = 0; k < n_pending; k++)
        q[k] = pending[(pending_head + k) & (pending_cap - 1)];
    free(pending);
    pending = q;
    pending_cap = cap;
    pending_head = 0;
}

static void push_pending(StgPtr from, StgPtr to, StgWord step)
{
    if (RTS_UNLIKELY(n_pending == pending_cap))
        grow_pending();
    pending[(pending_head + n_pending) & (pending_cap - 1)] = (NmRun){from, to, step};
    n_pending++;
}

static NmRun pop_pending(void)
{
    NmRun r = pending[pending_head];
    pending_head = (pending_head + 1) & (pending_cap - 1);
    n_pending--;
    return r;
}

/* Settle the open run's counts and queue what it holds unscanned; no run is open after. */
static void close_run(generation *gen, uint32_t cls)
{
    NmAlloc *a = &nm_allocs[cls];
    SlotRun *r = &runs[cls];
    NmSegment *s = a->current;
    if (!r->lim)
        return;
    uint32_t n = (uint32_t)(r->mark - a->first);
    s->next_free = (uint32_t)(r->mark - s->mark);
    s->live += n;
    a->promoted_slots += n;
    /* Atomic, not under sweep_lock: the sweep adds to the same count, and runs are short when a
     * segment is fragmented (a lock per run). */
    __atomic_fetch_add(&a->census.live_slots, n, __ATOMIC_RELAXED);
    gen->n_words += (StgWord)n * s->slot_words;
    if (nm_marking)
        black_words += (StgWord)n * s->slot_words;
    if (a->scan < r->bump)
        push_pending(a->scan, r->bump, s->slot_words);
    a->scan = NULL;
    *r = (SlotRun){0};
}

/*
 * Open the next run of free slots of class cls, taking segments as needed.
 * Out of line: nm_todo_full's common path then saves no registers.
 */
__attribute__((noinline)) static void open_run(generation *gen, uint32_t cls)
{
    NmAlloc *a = &nm_allocs[cls];
    SlotRun *r = &runs[cls];
    close_run(gen, cls);
    for (;;) {
        NmSegment *s = a->current;
        if (s) {
            uint32_t i = find_free(s);
            if (i < s->n_slots) {
                uint32_t j = i + 1;
                while (j < s->n_slots && slot_free(mark_byte(s, j)))
                    j++;
                r->bump = a->scan = slot_addr(s, i);
                r->lim = slot_addr(s, j);
                r->mark = a->first = &s->mark[i];
                r->step = s->slot_words;
                return;
            }
            s->next_free = s->n_slots;
            pthread_mutex_lock(&nm_sweep_lock);
            s->link = a->filled;
            a->filled = s;
            pthread_mutex_unlock(&nm_sweep_lock);
        }
        a->current = next_segment(gen, cls);
    }
}

/*
 * Promotion: one slot per object (Note [Nonmoving segments], Note
 * [Promotion into runs]). gc_alloc_slot takes slots from the open runs
 * inline; it comes here when the collection's first promotion finds no runs
 * installed, or a run is used up.
 */
static StgPtr nm_todo_full(gc_thread *gct, gen_workspace *ws, StgWord size)
{
    uint32_t cls = nm_class_of(size);
    SlotRun *r = &runs[cls];
    if (r->bump == r->lim)
        open_run(ws->gen, cls);
    ws->runs = runs;
    ws->run_of_size = class_of_words;
    ws->run_mark = nm_epoch;
    /* Every object comes through the runs: no block to bump into. */
    ws->todo_bd = NULL;
    ws->todo_lim = NULL;
    return gc_alloc_slot(gct, ws, size);
}

/* Scan what waits: closed runs first, then the open ones; true if there was any. */
static bool scan_promoted(gc_thread *gct, generation *gen)
{
    bool work = false;
    for (;;) {
        bool again = false;
        while (n_pending > 0) {
            NmRun r = pop_pending();
            scav_slots(gct, r.from, r.to, r.step, gen->no);
            work = again = true;
        }
        for (uint32_t c = 0; c < nm_class_count; c++) {
            NmAlloc *a = &nm_allocs[c];
            /*
             * What waits now, as a batch: scanning may promote into this very
             * run (scan takes up after the batch) or close it (close_run queues
             * only what came after the batch).
             */
            SlotRun *r = &runs[c];
            while (a->scan && a->scan < r->bump) {
                StgPtr from = a->scan, to = r->bump;
                a->scan = to;
                scav_slots(gct, from, to, r->step, gen->no);
                work = again = true;
            }
        }
        if (!again)
            return work;
    }
}

void nm_new_epoch(void)
{
    ASSERT(!nm_sweeping());
    /*
     * The heap as the mark begins, at its fullest: what the last sweep left
     * live and every slot promoted since, against the slots held (Note
     * [Nonmoving segments]: the census is whole, no sweep runs).
     */
    for (uint32_t c = 0; c < nm_class_count; c++) {
        start_used += __atomic_load_n(&nm_allocs[c].census.live_slots, __ATOMIC_RELAXED);
        start_slots += nm_allocs[c].census.slots;
    }
    nm_prev_epoch = nm_epoch;
    nm_epoch = next_epoch(nm_epoch);
    nm_marking = true;
    marked_words = black_words = 0;
    marked_objects = 0;
}

void nm_set_segments_marked(bool marked)
{
    segs_marked = marked;
}

bool nm_segments_marked(void)
{
    return segs_marked;
}

bool nm_slot_marked(const StgClosure *q, const bdescr *bd)
{
    NmSegment *s = segment_of_bd(bd);
    return __atomic_load_n(&s->mark[slot_index(s, q)], __ATOMIC_RELAXED) == nm_epoch;
}

static void nm_prepare(gc_thread *gct, generation *gen)
{
    (void)gct;
    if (nm_pause != NM_PAUSE_NONE)
        return; /* a concurrent cycle's final pause: nm_pause_begin did it */
    /* Large objects, the mark stack: as every marked generation (the segments are not MarkInfo
     * blocks). */
    bdescr *segs = gen->blocks;
    StgWord n_blocks = gen->n_blocks;
    gen->blocks = NULL;
    gen->n_blocks = 0;
    mark_prepare(gen, NULL, NULL);
    gen->blocks = segs;
    gen->n_blocks = n_blocks;
    gen->n_words = 0; /* the sweep counts what lives */
    nm_new_epoch();
    nm_set_segments_marked(true);
    trace_conc_mark_begin(); /* in the pause: GHC's non-threaded runtime posts it too */
}

bool nm_mark(StgClosure *q, bdescr *bd)
{
    NmSegment *s = segment_of_bd(bd);
    uint32_t i = slot_index(s, q);
    ASSERT(i < s->n_slots && (StgPtr)q == slot_addr(s, i));
    /* Atomic: tests read the bytes (nm_is_live_slot) while the mark thread writes them. */
    uint8_t b = __atomic_load_n(&s->mark[i], __ATOMIC_RELAXED);
    if (b == nm_epoch)
        return false;
    if (b != nm_prev_epoch)
        msg_barf("nonmoving: marking %p, a free slot (epoch byte %u; epoch %u)", (void *)q, b,
                 nm_epoch);
    __atomic_store_n(&s->mark[i], nm_epoch, __ATOMIC_RELAXED);
    marked_words += s->slot_words;
    marked_objects++;
    return true;
}

bool nm_mark_concurrent(StgClosure *q, bdescr *bd)
{
    NmSegment *s = segment_of_bd(bd);
    uint32_t i = slot_index(s, q);
    ASSERT(i < s->n_slots && (StgPtr)q == slot_addr(s, i));
    uint8_t b = __atomic_load_n(&s->mark[i], __ATOMIC_RELAXED);
    if (b != nm_prev_epoch) {
        /*
         * Marked, or allocated black by a minor collection running beside
         * the mark thread (its byte is written before any pointer to the
         * object is stored: on x86-64, seen in that order).
         */
#ifdef DEBUG
        if (b != nm_epoch)
            msg_barf("nonmoving: the mark thread reached %p, a free slot (epoch byte %u; "
                     "epoch %u)",
                     (void *)q, b, nm_epoch);
#endif
        return false;
    }
    __atomic_store_n(&s->mark[i], nm_epoch, __ATOMIC_RELAXED);
    marked_words += s->slot_words;
    marked_objects++;
    return true;
}

void nm_rescan(gc_thread *gct, uint32_t gen_no,
               void (*scan)(gc_thread *gct, StgClosure *q, uint32_t gen_no))
{
    for (bdescr *bd = generations[gen_no].blocks; bd; bd = bd->link) {
        NmSegment *s = (NmSegment *)bd->start;
        for (uint32_t i = 0; i < s->n_slots; i++)
            if (s->mark[i] == nm_epoch)
                scan(gct, (StgClosure *)slot_addr(s, i), gen_no);
    }
}

static bool nm_scan(gc_thread *gct, generation *gen)
{
    bool work = false;
    if (scan_promoted(gct, gen))
        work = true;
    if (nm_concurrent()) {
        /* Large objects promoted or relinked, then the pause's own part. */
        if (scav_workspace(gct, &gct->ws[gen->no]))
            work = true;
        if ((nm_pause == NM_PAUSE_START || nm_pause == NM_PAUSE_FINAL ||
             nm_pause == NM_PAUSE_FULL) &&
            nm_pause_scan(gct, gen->no))
            work = true;
    } else if (nm_marking) {
        if (mark_scan(gct, gen))
            work = true;
    } else if (scav_workspace(gct, &gct->ws[gen->no])) {
        work = true; /* large objects promoted into the generation */
    }
    return work;
}

static StgClosure *nm_is_alive(const bdescr *bd, StgClosure *q)
{
    if (nm_pause == NM_PAUSE_START)
        return q; /* the start pause collects the young generations only */
    if (bd->flags & BF_NONMOVING) {
        NmSegment *s = segment_of_bd(bd);
        return s->mark[slot_index(s, q)] == nm_epoch ? q : NULL;
    }
    if (bd->flags & BF_LARGE)
        return NULL; /* reached, it would have been relinked with BF_EVACUATED */
    return is_forwarded(q) ? forwardee(q) : NULL;
}

/*
 * Note [The concurrent sweep]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Sweeping reads every epoch byte of every segment (it counts a segment's
 * live slots and zeroes the bytes holding the epoch to come: Note
 * [Nonmoving segments]) and files the segment: empty, full (filled list)
 * or with free slots (active list). On a 1.5 GiB heap that took 117 ms of
 * the final pause. After a concurrent cycle it runs beside the program
 * instead:
 *
 *  - The final pause only hands every segment over: each class's current,
 *    active and filled segments go to its unswept list, and the
 *    generation's live words are what the mark counted (marked_words)
 *    plus what was promoted black during the cycle (black_words), so heap
 *    sizing has its figure at once.
 *  - The mark thread then sweeps (nm_sweep_batch), one segment at a time,
 *    taking it off its unswept list and filing it under sweep_lock but
 *    reading its bytes outside the lock; a collection that looks at the
 *    lists whole (nm_check, nm_finish_sweep) first waits for the segment in
 *    flight (sweep_hold). Promotion (a collection, on one GC thread) takes
 *    segments with sweep_lock too: an active one (swept), else it sweeps an
 *    unswept one of its class itself (a few, so that what a class frees is
 *    reused before the heap grows), else an empty one (dead), else a fresh
 *    one. Slots of a segment not swept yet are never taken; one whose
 *    segment is swept is free iff its byte is not the current epoch.
 *  - A segment the sweep finds empty goes on the dead list, still on the
 *    generation's block list: the sweeping thread must not change that list,
 *    which collections walk. The next collection frees them (reap_dead).
 *    An empty segment is thus back with the block allocator (and in time
 *    the OS) within one collection; GHC keeps its free segments.
 *  - The next cycle starts only once everything is swept (plan_pause in
 *    gc.c): no byte may hold the epoch it is about to start. A forced full
 *    collection finishes the sweep in its pause first (nm_finish_sweep).
 *  - When the last segment is swept the census is whole again (per class
 *    occupancy, the run's mean), and the next collection lets heap sizing
 *    look at the heap as the sweep left it (trigger_nonmoving_swept).
 *
 * The vanilla way, which has no mark thread, and the full pause sweep in
 * the pause (sweep_all).
 */

/* Count s's live slots, zeroing the bytes of the epoch to come (Note [Nonmoving segments]). */
static uint32_t sweep_segment(NmSegment *s)
{
    uint8_t next = next_epoch(nm_epoch);
    uint32_t live = 0;
    for (uint32_t i = 0; i < s->n_slots; i++) {
        uint8_t b = s->mark[i];
        if (b == nm_epoch)
            live++;
        else if (b == next)
            __atomic_store_n(&s->mark[i], 0, __ATOMIC_RELAXED); /* heap walks read them */
    }
    return live;
}

/* File s, swept and found to hold `live` slots, on its class's lists (sweep_lock held). */
static void file_swept(NmSegment *s, uint32_t live)
{
    NmAlloc *a = &nm_allocs[s->cls];
    s->live = live;
    s->sweeps = sweep_no;
    if (s->live == 0) {
        s->state = NM_SEG_DEAD;
        s->next_free = 0;
        s->link = dead_segs;
        dead_segs = s;
        return;
    }
    s->state = NM_SEG_IN_USE;
    if (s->evac) {
        /* Never promoted into while its old copies may live (evac_after_sweep retires it). */
        s->next_free = 0;
        s->link = a->sources;
        a->sources = s;
    } else if (s->live == s->n_slots) {
        s->next_free = s->n_slots;
        s->link = a->filled;
        a->filled = s;
    } else {
        s->next_free = 0;
        s->link = a->active;
        a->active = s;
    }
    a->census.segments++;
    if (s->live == s->n_slots)
        a->census.filled++;
    a->census.slots += s->n_slots;
    __atomic_fetch_add(&a->census.live_slots, s->live, __ATOMIC_RELAXED);
}

/* Sweep s (off every list) and file it (sweep_lock held). */
static void sweep_one(NmSegment *s)
{
    file_swept(s, sweep_segment(s));
}

/* The last segment is swept (sweep_lock held): the census is whole. */
static void sweep_done(void)
{
    StgWord live = 0, slots = 0;
    for (uint32_t c = 0; c < nm_class_count; c++) {
        live += __atomic_load_n(&nm_allocs[c].census.live_slots, __ATOMIC_RELAXED);
        slots += nm_allocs[c].census.slots;
    }
    swept_live += live;
    swept_slots += slots;
#ifdef DEBUG
    if (rts_flags.debug.nonmoving_gc) {
        msg_debug("nonmoving: epoch %u swept, occupancy %.3f\n", nm_epoch,
                  slots ? (double)live / (double)slots : 1.0);
        for (uint32_t c = 0; c < nm_class_count; c++) {
            const NmClassCensus *k = &nm_allocs[c].census;
            if (k->segments)
                msg_debug("nonmoving:   %3lu-word slots: %lu segments, %lu/%lu live (%.3f)\n",
                          (unsigned long)k->slot_words, (unsigned long)k->segments,
                          (unsigned long)__atomic_load_n(&k->live_slots, __ATOMIC_RELAXED),
                          (unsigned long)k->slots,
                          (double)__atomic_load_n(&k->live_slots, __ATOMIC_RELAXED) /
                              (double)k->slots);
        }
    }
#endif
    if (trace_nonmoving_census_on())
        for (uint32_t c = 0; c < nm_class_count; c++) {
            const NmClassCensus *k = &nm_allocs[c].census;
            if (k->segments)
                trace_nonmoving_census((uint32_t)(k->slot_words * sizeof(StgWord)),
                                       (uint32_t)(k->segments - k->filled), (uint32_t)k->filled,
                                       (uint32_t)__atomic_load_n(&k->live_slots, __ATOMIC_RELAXED));
        }
    trace_conc_sweep_end();
    __atomic_store_n(&sweeping, false, __ATOMIC_RELEASE);
    sweep_ended = true;
}

/* Take one unswept segment of class cls (sweep_lock held), or NULL. */
static NmSegment *take_unswept(uint32_t cls)
{
    NmSegment **list = nm_allocs[cls].unswept;
    int l = list[0] ? 0 : list[1] ? 1 : 2;
    NmSegment *s = list[l];
    if (s) {
        list[l] = s->link;
        s->link = NULL;
        n_unswept--;
    }
    return s;
}

static bool has_unswept(uint32_t cls)
{
    return nm_allocs[cls].unswept[0] || nm_allocs[cls].unswept[1] || nm_allocs[cls].unswept[2];
}

/* The sweep is over once nothing is left unswept and nothing is being swept (sweep_lock held). */
static void sweep_maybe_done(void)
{
    if (n_unswept == 0 && !sweep_inflight && sweeping)
        sweep_done();
}

/* Sweep s, taken off its unswept list (sweep_lock held). */
static void sweep_taken(NmSegment *s)
{
    sweep_one(s);
    sweep_maybe_done();
}

/*
 * Take sweep_lock for a collection that reads or changes the lists as a
 * whole: wait until the segment the mark thread is sweeping is filed, and
 * keep it from taking another until sweep_release.
 */
static void sweep_hold(void)
{
    pthread_mutex_lock(&nm_sweep_lock);
    sweep_held++;
    while (sweep_inflight)
        pthread_cond_wait(&sweep_cond, &nm_sweep_lock);
}

static void sweep_release(void)
{
    if (--sweep_held == 0)
        pthread_cond_broadcast(&sweep_cond);
    pthread_mutex_unlock(&nm_sweep_lock);
}

/*
 * Every segment, current, active and filled, goes to the unswept lists: the
 * lists move whole, in O(classes) (touching every segment's header was 34 ms
 * of a final pause on a 1.4 GiB heap). The census counts a class's segments
 * in use, which are exactly those.
 */
static void hand_to_sweep(generation *gen)
{
    pthread_mutex_lock(&nm_sweep_lock);
    ASSERT(!sweep_inflight);
    sweep_no++;
    for (uint32_t c = 0; c < nm_class_count; c++) {
        NmAlloc *a = &nm_allocs[c];
        ASSERT(!has_unswept(c));
        n_unswept += a->census.segments;
        a->census.segments = a->census.filled = a->census.slots = a->census.live_slots = 0;
        if (a->current) {
            a->current->link = a->active;
            a->active = a->current;
            a->current = NULL;
        }
        a->unswept[0] = a->active;
        a->unswept[1] = a->filled;
        a->unswept[2] = a->sources;
        a->active = a->filled = a->sources = NULL;
    }
    gen->n_words = marked_words + black_words;
    trace_conc_sweep_begin();
    if (n_unswept > 0)
        __atomic_store_n(&sweeping, true, __ATOMIC_RELEASE);
    else
        sweep_done();
    pthread_mutex_unlock(&nm_sweep_lock);
}

StgWord nm_black_words(void)
{
    return black_words;
}

bool nm_sweeping(void)
{
    return __atomic_load_n(&sweeping, __ATOMIC_ACQUIRE);
}

/*
 * The mark thread's sweep: a segment at a time, taken and filed under
 * sweep_lock but swept outside it, so that a collection promoting into the
 * heap meanwhile waits for a list operation, not for a segment's sweep.
 * (Swept under the lock, 64 segments back to back, the lock passed from one
 * to the next before a woken collection could run: on largeheap a minor
 * collection waited for it 5 times on average.) Nothing else touches an
 * unswept segment's bytes but heap walks, which read them atomically, and
 * the sweep only clears bytes of the epoch to come, which no walk reads as
 * live.
 */
bool nm_sweep_batch(void)
{
    for (uint32_t k = 0; k < 64; k++) {
        pthread_mutex_lock(&nm_sweep_lock);
        while (sweep_held)
            pthread_cond_wait(&sweep_cond, &nm_sweep_lock);
        NmSegment *s = NULL;
        for (uint32_t n = 0; n < nm_class_count && !s; n++) {
            s = take_unswept(sweep_cursor);
            if (!s)
                sweep_cursor = sweep_cursor + 1 == nm_class_count ? 0 : sweep_cursor + 1;
        }
        sweep_inflight = s;
        pthread_mutex_unlock(&nm_sweep_lock);
        if (!s)
            return false;
        uint32_t live = sweep_segment(s);
        pthread_mutex_lock(&nm_sweep_lock);
        file_swept(s, live);
        sweep_inflight = NULL;
        if (sweep_held)
            pthread_cond_broadcast(&sweep_cond);
        sweep_maybe_done();
        pthread_mutex_unlock(&nm_sweep_lock);
    }
    return true;
}

/* Free the segments the sweep found empty (a collection: the world is stopped). */
static void reap_dead(generation *gen)
{
    pthread_mutex_lock(&nm_sweep_lock);
    NmSegment *list = dead_segs;
    dead_segs = NULL;
    pthread_mutex_unlock(&nm_sweep_lock);
    uint32_t n = 0;
    for (NmSegment *s = list, *next; s; s = next, n++) {
        next = s->link;
        free_segment(gen, s);
    }
    if (n > 0)
        trace_nonmoving_pruned(n, 0); /* every empty segment goes back to the block allocator */
}

void nm_finish_sweep(void)
{
    sweep_hold();
    for (uint32_t c = 0; c < nm_class_count; c++)
        for (NmSegment *s; (s = take_unswept(c));)
            sweep_taken(s);
    sweep_release();
    reap_dead(oldest_gen);
}

/*
 * The next segment of class cls to promote into, swept (a collection;
 * Note [The concurrent sweep]): one with free slots, else one of the
 * class's unswept ones swept now (at most a few), else an empty one, else a
 * fresh one.
 */
static NmSegment *next_segment(generation *gen, uint32_t cls)
{
    NmAlloc *a = &nm_allocs[cls];
    NmSegment *s = NULL;
    pthread_mutex_lock(&nm_sweep_lock);
    for (uint32_t budget = 8; !s;) {
        if (a->active) {
            s = a->active;
            a->active = s->link;
        } else if (budget > 0 && has_unswept(cls)) {
            budget--;
            sweep_taken(take_unswept(cls));
        } else if (dead_segs) {
            s = dead_segs;
            dead_segs = s->link;
            nm_evac_drop_source(s);
            init_segment(s, cls);
        } else {
            s = new_segment(gen, cls);
        }
    }
    pthread_mutex_unlock(&nm_sweep_lock);
    s->link = NULL;
    return s;
}

/* Sweep everything in the pause (the vanilla way, a full collection). */
static void sweep_all(generation *gen)
{
    nm_finish_sweep(); /* nothing should be left, but the dead list may be */
    pthread_mutex_lock(&nm_sweep_lock);
    trace_conc_sweep_begin();
    for (uint32_t c = 0; c < nm_class_count; c++)
        nm_allocs[c].census.segments = nm_allocs[c].census.filled = nm_allocs[c].census.slots =
            nm_allocs[c].census.live_slots = 0;
    StgWord live_words = 0;
    for (uint32_t c = 0; c < nm_class_count; c++) {
        NmAlloc *a = &nm_allocs[c];
        if (a->current) {
            a->current->link = a->active;
            a->active = a->current;
            a->current = NULL;
        }
        NmSegment *lists[3] = {a->active, a->filled, a->sources};
        a->active = a->filled = a->sources = NULL;
        for (int l = 0; l < 3; l++)
            for (NmSegment *s = lists[l], *next; s; s = next) {
                next = s->link;
                sweep_one(s);
                live_words += (StgWord)s->live * s->slot_words;
            }
    }
    __atomic_store_n(&sweeping, true, __ATOMIC_RELAXED); /* for sweep_done */
    sweep_done();
    sweep_ended = false; /* this collection's own sizing follows */
    pthread_mutex_unlock(&nm_sweep_lock);
    reap_dead(gen);
    gen->n_words = live_words;
}

static void nm_finish(gc_thread *gct, generation *gen, bool collected)
{
    for (uint32_t c = 0; c < nm_class_count; c++)
        close_run(gen, c);
    ASSERT(n_pending == 0);
    /* Large objects reached in this collection join the generation. */
    copying_finish_workspace(gct, &gct->ws[gen->no]);
    reap_dead(gen);
    pthread_mutex_lock(&nm_sweep_lock);
    bool ended = sweep_ended;
    sweep_ended = false;
    pthread_mutex_unlock(&nm_sweep_lock);
    if (ended && !collected) {
        nm_evac_after_sweep(); /* first: heap sizing leaves the sources out */
        trigger_after_sweep();
    }
    if (!collected)
        return;
#ifdef DEBUG
    if ((nm_pause == NM_PAUSE_FINAL || nm_pause == NM_PAUSE_FULL) && rts_flags.debug.sanity)
        nm_verify();
#endif
    if (nm_pause == NM_PAUSE_FINAL || nm_pause == NM_PAUSE_FULL)
        nm_filter_remembered();
    trace_conc_mark_end(marked_objects);
    copying_free_dead_large_objects(gen);
    gen->old_blocks = NULL;
    gen->n_old_blocks = 0;
    bool swept = nm_pause != NM_PAUSE_FINAL;
    if (swept)
        sweep_all(gen);
    else
        hand_to_sweep(gen); /* Note [The concurrent sweep] */
    nm_marking = false;
    nm_set_segments_marked(false);
    if (nm_pause == NM_PAUSE_NONE)
        mark_done();
    if (swept)
        nm_evac_after_sweep(); /* live is the current epoch again */
}

static void nm_walk(generation *gen, void (*f)(StgClosure *q, void *ctx), void *ctx)
{
    for (bdescr *bd = gen->blocks; bd; bd = bd->link) {
        NmSegment *s = (NmSegment *)bd->start;
        for (uint32_t i = 0; i < s->n_slots; i++)
            if (slot_in_use(__atomic_load_n(&s->mark[i], __ATOMIC_RELAXED)))
                f((StgClosure *)slot_addr(s, i), ctx);
    }
    copying_walk_large(gen, f, ctx);
}

static void check_list(const generation *gen, uint32_t c, NmSegment *list, bool filled,
                       uint32_t state, bool want_unswept, StgWord *n)
{
    for (NmSegment *s = list; s; s = s->link) {
        bool unswept = s->state == NM_SEG_IN_USE && s->sweeps != sweep_no;
        if ((state != NM_SEG_DEAD && s->cls != c) || Bdescr(s)->gen != gen ||
            (state == NM_SEG_DEAD ? s->state != NM_SEG_DEAD : unswept != want_unswept))
            msg_barf("nonmoving: segment %p (state %u, %s) is on the %s list of class %u",
                     (void *)s, s->state, unswept ? "unswept" : "swept",
                     want_unswept ? "unswept" : "swept", c);
        if (filled && !want_unswept && s->live != s->n_slots)
            msg_barf("nonmoving: filled segment %p has a free slot", (void *)s);
        if (state == NM_SEG_DEAD && s->live != 0)
            msg_barf("nonmoving: dead segment %p has live slots", (void *)s);
        (*n)++;
    }
}

/* Every segment of a list is a source, or none is. */
static void check_evac(const NmSegment *list, bool sources_list)
{
    for (const NmSegment *s = list; s; s = s->link)
        if ((s->evac != 0) != sources_list)
            msg_barf("nonmoving: segment %p (source %u) is on a %s list", (const void *)s, s->evac,
                     sources_list ? "sources" : "promotion");
}

static void nm_check(const generation *gen)
{
    uint32_t g = gen->no;
    StgWord blocks = 0, words = 0, segments = 0, listed = 0;
    uint8_t next = next_epoch(nm_epoch);
    if (nm_marking && !nm_cycle_running())
        msg_barf("nonmoving: checked while marking");
    if (nm_marking)
        return; /* the mark thread may be setting epoch bytes: the counts are not kept */
    /* The sweep's thread stops between two segments (Note [The concurrent sweep]). */
    sweep_hold();
    for (bdescr *bd = gen->blocks; bd; bd = bd->link) {
        NmSegment *s = (NmSegment *)bd->start;
        if (bd->blocks != NM_SEGMENT_BLOCKS)
            msg_barf("nonmoving: segment %p has %u blocks", (void *)s, bd->blocks);
        for (uint32_t i = 0; i < NM_SEGMENT_BLOCKS; i++)
            if (bd[i].gen != gen || bd[i].gen_no != g || bd[i].dest_no != gen->to->no ||
                bd[i].flags != (BF_NONMOVING | BF_EVACUATED) ||
                bd[i].free != bd->start + SEGMENT_BYTES / sizeof(StgWord))
                msg_barf("nonmoving: block %u of segment %p has bad fields", i, (void *)s);
        if (s->cls >= nm_class_count || s->slot_words != class_words[s->cls] ||
            s->n_slots != slots_per_segment(s->slot_words) ||
            s->slots != (StgPtr)((char *)s + header_bytes(s->n_slots)) || s->next_free > s->n_slots)
            msg_barf("nonmoving: segment %p has a bad header", (void *)s);
        /* Not swept yet: no live count, the next epoch's bytes not cleared, no cursor. */
        bool swept = s->state == NM_SEG_DEAD || s->sweeps == sweep_no;
        uint32_t live = 0;
        for (uint32_t i = 0; i < s->n_slots; i++) {
            uint8_t b = s->mark[i];
            if (b == next && swept)
                msg_barf("nonmoving: slot %u of segment %p holds the next epoch %u", i, (void *)s,
                         next);
            if (b != nm_epoch) {
                if (i < s->next_free && swept)
                    msg_barf("nonmoving: slot %u of segment %p is free below the cursor", i,
                             (void *)s);
                continue;
            }
            live++;
            /* The object fits its slot (the walk checks its shape). */
            StgClosure *q = (StgClosure *)slot_addr(s, i);
            StgWord size = layout_of(q, q->info).size;
            if (size == 0 || size > s->slot_words)
                msg_barf("nonmoving: slot %u of segment %p holds a %lu-word object", i, (void *)s,
                         (unsigned long)size);
        }
        if (swept && live != s->live)
            msg_barf("nonmoving: segment %p counts %u live slots, has %u", (void *)s, s->live,
                     live);
        nm_evac_check_source(s);
        for (uint32_t i = 0; i < NM_SEGMENT_BLOCKS; i++)
            if (__atomic_load_n(&bd[i].nm_segment, __ATOMIC_RELAXED) !=
                (NM_SEG_BLOCK | (s->evac ? NM_SEG_SOURCE : 0)))
                msg_barf("nonmoving: block %u of segment %p has nm_segment %u (evac %u)", i,
                         (void *)s, bd[i].nm_segment, s->evac);
        blocks += bd->blocks;
        words += (StgWord)live * s->slot_words;
        segments++;
    }
    for (uint32_t c = 0; c < nm_class_count; c++) {
        const NmAlloc *a = &nm_allocs[c];
        if (a->current)
            check_list(gen, c, a->current, false, NM_SEG_IN_USE, false, &listed);
        check_list(gen, c, a->active, false, NM_SEG_IN_USE, false, &listed);
        check_list(gen, c, a->filled, true, NM_SEG_IN_USE, false, &listed);
        check_list(gen, c, a->sources, false, NM_SEG_IN_USE, false, &listed);
        check_list(gen, c, a->unswept[0], false, NM_SEG_IN_USE, true, &listed);
        check_list(gen, c, a->unswept[1], true, NM_SEG_IN_USE, true, &listed);
        check_list(gen, c, a->unswept[2], false, NM_SEG_IN_USE, true, &listed);
    }
    check_list(gen, 0, dead_segs, false, NM_SEG_DEAD, false, &listed);
    for (uint32_t c = 0; c < nm_class_count; c++) {
        const NmAlloc *a = &nm_allocs[c];
        check_evac(a->current, false);
        check_evac(a->active, false);
        check_evac(a->filled, false);
        check_evac(a->unswept[0], false);
        check_evac(a->unswept[1], false);
        check_evac(a->sources, true);
        check_evac(a->unswept[2], true);
    }
    sweep_release();
    /* Live words: what the mark counted and what was promoted since (hand_to_sweep). */
    if (blocks != gen->n_blocks || words != gen->n_words || listed != segments)
        msg_barf("nonmoving: generation %u counts %lu blocks/%lu words, has %lu/%lu; %lu "
                 "segments, %lu listed",
                 g, (unsigned long)gen->n_blocks, (unsigned long)gen->n_words,
                 (unsigned long)blocks, (unsigned long)words, (unsigned long)segments,
                 (unsigned long)listed);
}

/* Marking in place needs no copy reserve. */
static StgWord nm_reserve(const generation *gen, StgWord blocks)
{
    (void)gen;
    (void)blocks;
    return 0;
}

const GenPolicy gen_policy_nonmoving = {
    .name = "nonmoving",
    .prepare = nm_prepare,
    .scan = nm_scan,
    .is_alive = nm_is_alive,
    .finish = nm_finish,
    .walk = nm_walk,
    .check = nm_check,
    .reserve = nm_reserve,
    .todo_full = nm_todo_full,
};

/* --- census ----------------------------------------------------------------------- */

void nm_class_census(uint32_t cls, NmClassCensus *out)
{
    pthread_mutex_lock(&nm_sweep_lock);
    const NmClassCensus *k = &nm_allocs[cls].census;
    out->slot_words = k->slot_words;
    out->segments = k->segments;
    out->filled = k->filled;
    out->slots = k->slots;
    out->live_slots = __atomic_load_n(&k->live_slots, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&nm_sweep_lock);
}

double nm_occupancy(void)
{
    StgWord live = 0, slots = 0;
    pthread_mutex_lock(&nm_sweep_lock);
    for (uint32_t c = 0; c < nm_class_count; c++) {
        live += __atomic_load_n(&nm_allocs[c].census.live_slots, __ATOMIC_RELAXED);
        slots += nm_allocs[c].census.slots;
    }
    pthread_mutex_unlock(&nm_sweep_lock);
    return slots ? (double)live / (double)slots : 1.0;
}

void nm_start_census(uint64_t *used, uint64_t *slots)
{
    *used = start_used;
    *slots = start_slots;
}

double nm_mean_start_occupancy(void)
{
    return start_slots ? (double)start_used / (double)start_slots : -1;
}

double nm_mean_sweep_occupancy(void)
{
    return swept_slots ? (double)swept_live / (double)swept_slots : -1;
}

bool nm_is_live_slot(const StgClosure *q)
{
    if (!HEAP_ALLOCED(q) || !(Bdescr(q)->flags & BF_NONMOVING))
        return false;
    NmSegment *s = segment_of(q);
    /* q may be anywhere in a segment reused since (a test's stale address). */
    if ((const StgWord *)q < s->slots || (const StgWord *)q >= slot_addr(s, s->n_slots))
        return false;
    uint32_t i = slot_index(s, q);
    return (const StgWord *)q == slot_addr(s, i) &&
           slot_in_use(__atomic_load_n(&s->mark[i], __ATOMIC_RELAXED));
}
