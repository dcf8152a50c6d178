/*
 * The concurrent snapshot-at-the-beginning mark of the nonmoving
 * generation (-xn, threaded way). The vanilla way keeps the stop-the-world
 * mark of mark.c, as GHC's non-threaded RTS does.
 *
 * Note [The concurrent mark]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A cycle is three kinds of pause around a mark thread (gc.c sequences
 * them: gc_collect_stopped, plan_pause), then a sweep on the same thread:
 *
 *  START (a collection that would have been major, once the last cycle's
 *    sweep is done): every young generation is collected as in a minor
 *    collection (the nonmoving generation's remembered sets are roots;
 *    all of them even when the trigger chose fewer: their objects' pointers
 *    into the nonmoving heap are part of the snapshot), but the nonmoving
 *    generation starts a new epoch and the pause greys (gct->nm_grey:
 *    segments' flags never change) every pointer into it that it meets
 *    (roots, young survivors, promoted objects, remembered objects): nm_mark
 *    sets the epoch byte and the object goes on the mark stack. Every large
 *    object of the generation is a candidate (cand_large); one the pause
 *    reaches is greyed the same way (nm_grey_large), not scanned in the
 *    pause. Every thread's TSO is scanned in the pause (scav_one; Note
 *    [Greying without reading] says how they are found without reading
 *    every greyed object). Its stack chunks are marked lazily (Note [Lazy
 *    stack marking]): the pause scans the chunks a minor collection scans
 *    (young and dirty ones, among them every chunk a thread runs on) and
 *    leaves the old clean ones to the mark thread, or to their thread,
 *    which marks a chunk before it runs on it. Then the
 *    barrier word is set in every capability and the sink below installed.
 *
 *  The mark thread (one per runtime, started on first need, asleep between
 *    cycles) traces the grey objects with a tracer that never moves or
 *    writes anything but epoch bytes: each pointer field (read with a
 *    relaxed atomic load: a mutator may be writing it) that points into the
 *    nonmoving heap greys its target; pointers to young objects are ignored
 *    (a young object that existed at the snapshot was traced by the start
 *    pause, which greyed what it pointed to; one made after the snapshot can
 *    only hold what the mutator read from the snapshot or made later). It
 *    goes on while minor collections run (Note [Tracing beside a
 *    collection]), prefetches (mark_batch), and takes large arrays a slice
 *    at a time. Thunks under evaluation keep their free variables
 *    (SCAN_KEEP_BLACKHOLED: Note [Blackholed free variables] in scan.h).
 *    Weak objects' fields are left to the final pause. A TSO first met by
 *    the tracer is left for the final pause to scan (its fields change
 *    without barriers); a stack chunk is claimed and traced (Note [Lazy
 *    stack marking]). In the start pause, weak objects, values and
 *    finalizers in the nonmoving heap are not greyed (weak.c asks
 *    nm_weak_field_deferred): every key there is alive for a minor
 *    collection, and marking the weaks would keep alive every weak whose key
 *    is another weak.
 *
 *  Barriers: every overwritten value a barriered write, CAS, thunk update
 *    (the thunk's free variables: rts_update_thunk, reached from eval.c's
 *    update when the barrier word is set) or weak dereference reports goes
 *    to the sink. Values outside the nonmoving heap are dropped there (same
 *    argument as for the tracer); the others go into the capability's own
 *    chunk, with no lock; a full chunk is handed to the shared list
 *    (upd_lock) and wakes the mark thread.
 *
 *  DURING (every collection while a cycle runs): a minor collection, with
 *    the mark thread still running. Nothing is greyed; objects promoted
 *    into the nonmoving heap get the current epoch (allocate black:
 *    slot_free in nonmoving.c never hands out a slot still holding the
 *    previous epoch) and are never traced by the mark. Every capability's
 *    chunk is flushed to the shared list.
 *
 *  FINAL: the first collection that finds the mark run dry (the `dry` flag,
 *    read before the capabilities' chunks are flushed; the mark thread does
 *    not ask for the pause: it runs dry and sleeps; the next collection,
 *    triggered by allocation, the idle timer or a forced GC, is the final
 *    sync). It takes mark_lock. The capabilities' chunks not yet handed over
 *    are marked in this pause (at most UPD_CHUNK values each, and what they
 *    reach that is not marked yet). It is a major collection of every
 *    generation in which the nonmoving generation keeps its epoch: the pause
 *    greys again, candidate large objects not marked are from-space, the
 *    remembered sets are roots (objects the mark traced are not scanned
 *    again, and their young fields are found there), and the pause drains
 *    what it greys. Both the START and the FINAL pause scan the remembered
 *    sets greying, so what a dead remembered object points to lives one
 *    more cycle (greying only after that scan lost a reachable object under
 *    -G3 in check_thr_nonmoving; a candidate cause, not checked: stacks and
 *    TSOs on a remembered set, whose fields change without barriers, were
 *    then scanned before greying was on; another, found since and fixed, is
 *    a requested start pause that collected generation 0 only and left
 *    generation 1's pointers ungreyed). Dead objects leave the remembered
 *    sets. Weak pointers are decided here (a key whose slot is not marked is
 *    dead, weak.c queues the finalizer once), stable names likewise; then,
 *    in the debug ways with -DS, a stop-the-world trace checks that
 *    everything reachable is marked (nm_verify), the barrier is turned off,
 *    and the segments are handed to the concurrent sweep (Note [The
 *    concurrent sweep] in nonmoving.c): the mark thread sweeps them next.
 *
 * CAFs: in a concurrent cycle every pause treats the registered CAFs'
 * values as roots, as a minor collection does, and the final pause reverts
 * the CAFs the snapshot did not reach: the tracer notes the static closures
 * that fields and SRTs name (Note [CAFs under the concurrent mark] in
 * statics.h).
 *
 * A forced major collection (performMajorGC, idle, new capabilities)
 * finishes a running cycle in the pause (its FINAL), then runs a whole
 * cycle as one collection, NM_PAUSE_FULL: the last sweep finished, a new
 * epoch as in START, every large object from-space, the remembered sets as
 * roots and the mark traced to the end in the pause as in FINAL, then the
 * weak phase and the sweep, in the pause. The exit's collection (gc.c)
 * waits (holding no capability) for the mark thread to run dry, finishes
 * the cycle running with a FINAL and starts none.
 *
 * Locking: mark_lock is held by the mark thread while it marks a batch, and
 * by a START, FINAL or FULL pause for its whole length (nm_pause_begin), so
 * those never race the mark thread on epoch bytes, the large-object sets or
 * fields the pause rewrites; a DURING pause does not take it (Note [Tracing
 * beside a collection] says what the two share). The mark stack, the
 * deferred TSOs, cand_large and marked_large are guarded by it.
 * The shared chunk list is guarded by upd_lock (taken under mark_lock,
 * never the other way). A capability's own chunk belongs to the thread
 * holding the capability, or to the collector when the world is stopped.
 * The sweep takes sweep_lock (nonmoving.c), never with mark_lock.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capability.h"
#include "flags/flags.h"
#include "hooks.h"
#include "messages.h"
#include "os/os_mem.h"
#include "os/os_time.h"
#include "sm/barrier_sink.h"
#include "sm/block_alloc.h"
#include "sm/evac.h"
#include "sm/gc.h"
#include "sm/mblock.h"
#include "sm/nonmoving.h"
#include "sm/policy.h"
#include "sm/ptrset.h"
#include "sm/roots.h"
#include "sm/scan.h"
#include "sm/scav.h"
#include "sm/statics.h"
#include "sm/storage.h"
#include "stats/stats.h"
#include "threads.h"
#include "trace/debug_trace.h"
#include "trace/eventlog.h"
#include "trace/trace.h"

NmPause nm_pause;
static bool cycle; /* a cycle runs (written in pauses; the mark thread reads it under mark_lock) */

/* The mark stack (guarded by mark_lock). */
static StgClosure **stack;
static StgWord sp, stack_cap;
/* TSOs to scan in a pause (guarded by mark_lock). */
static StgClosure **deferred;
static StgWord n_deferred, deferred_cap;
/* Large objects of the nonmoving generation the start pause did not reach, and those marked since.
 */
static PtrSet cand_large, marked_large;

#define UPD_CHUNK 254
typedef struct NmUpdChunk_ {
    struct NmUpdChunk_ *next;
    StgWord n;
    StgClosure *v[UPD_CHUNK];
} NmUpdChunk;
static NmUpdChunk **cap_chunk; /* [cap]: the one its holder fills */
static uint32_t n_cap_chunk;
static NmUpdChunk *full_chunks; /* guarded by upd_lock */
static pthread_mutex_t upd_lock = PTHREAD_MUTEX_INITIALIZER;

static pthread_mutex_t mark_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t ctl_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ctl_cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t dry_cond = PTHREAD_COND_INITIALIZER; /* the mark thread ran dry */
static bool work_posted, stopping; /* written under ctl_lock; prefault() polls work_posted */
static bool thread_started;
static pthread_t mark_thread;
static bool paused; /* the collector holds mark_lock */

/* This cycle's figures (the mark thread's are atomic). */
static int64_t cycle_start_ns, cpu_at_start; /* at the START pause (nm_cycle_times) */
static int64_t cpu_at_last_final;            /* the mark thread's CPU at the last FINAL */
static uint64_t cycles;

bool nm_concurrent(void)
{
#ifdef THREADED_RTS
    return n_generations > 1 && oldest_gen->policy == &gen_policy_nonmoving;
#else
    return false;
#endif
}

/* The generation's blocks at the last start pause, and how many it gained until its final. */
static StgWord blocks_at_start, growth_blocks; /* growth: prefaulting (held blocks) */
static StgWord large_at_start;
static StgWord promoted_words; /* the last cycle's promotion: heap sizing */

static bool cycle_requested; /* atomic */

void nm_request_cycle(void)
{
    __atomic_store_n(&cycle_requested, true, __ATOMIC_RELAXED);
}

bool nm_take_cycle_request(void)
{
    return __atomic_exchange_n(&cycle_requested, false, __ATOMIC_RELAXED);
}

bool nm_cycle_running(void)
{
    return __atomic_load_n(&cycle, __ATOMIC_ACQUIRE);
}

uint64_t nm_cycles(void)
{
    return __atomic_load_n(&cycles, __ATOMIC_ACQUIRE);
}

/* --- the mark stack ------------------------------------------------------------- */

static void grow(StgClosure ***a, StgWord *capacity, const char *what)
{
    *capacity = *capacity ? *capacity * 2 : 4096;
    *a = hooks_realloc(*a, *capacity * sizeof **a, what);
}

static void push_entry(StgClosure *e)
{
    if (sp == stack_cap)
        grow(&stack, &stack_cap, "nm mark stack");
    stack[sp++] = e;
}

/*
 * The rest of an object with many pointer fields, from field `from` on: two
 * entries, the index under the object tagged with 1 (objects are
 * word-aligned). A large array is traced SLICE fields at a time, so that a
 * pause never waits for the mark thread to finish one (mark_batch).
 */
#define SLICE 2048
static void push_slice(StgClosure *q, StgWord from)
{
    push_entry((StgClosure *)from);
    push_entry((StgClosure *)((StgWord)q | 1));
}

static void defer(StgClosure *q)
{
    if (n_deferred == deferred_cap)
        grow(&deferred, &deferred_cap, "nm deferred");
    deferred[n_deferred++] = q;
}

/*
 * A large object greyed: a TSO is deferred (its fields change without
 * barriers), a STACK not marked yet this cycle and the rest go on the mark
 * stack. Reading the header is cheap
 * here, large objects being few; a segment's slot is pushed unread
 * (push_entry), see Note [Greying without reading].
 */
static bool stack_marked(const StgStack *s);

static void push_large(StgClosure *q)
{
    uint32_t type = __atomic_load_n(&q->info, __ATOMIC_ACQUIRE)->type;
    if (type == TSO)
        defer(q);
    else if (type != STACK || !stack_marked((const StgStack *)q))
        push_entry(q); /* a STACK is marked lazily: Note [Lazy stack marking] */
}

static bool in_oldest_large(const bdescr *bd, uint16_t flags)
{
    return (flags & BF_LARGE) && bd->gen_no == oldest_gen->no;
}

/*
 * Static closures the snapshot names, as the mark thread finds them (Note
 * [CAFs under the concurrent mark] in statics.h): its own set (the pauses
 * mark into statics.c's meanwhile), under mark_lock, with the closures each
 * names in turn. A pause (gct) marks into statics.c's set instead.
 */
static PtrSet mt_statics;
/* statics_cycle_wanted(), read once by the start pause: the tracer asks per object. */
static bool note_statics;
static const StgClosure *mt_last_static; /* most static fields are a few nullary constructors */
static const StgClosure **mt_static_work;
static StgWord mt_n_static_work, mt_static_work_cap;

static void mt_push_static(void *ctx, const StgClosure *q)
{
    (void)ctx;
    q = UNTAG(q);
    if (q == mt_last_static || !ptrset_add(&mt_statics, q))
        return;
    mt_last_static = q;
    if (mt_n_static_work == mt_static_work_cap) {
        mt_static_work_cap = mt_static_work_cap ? 2 * mt_static_work_cap : 64;
        mt_static_work = hooks_realloc(mt_static_work, mt_static_work_cap * sizeof *mt_static_work,
                                       "static closures to note");
    }
    mt_static_work[mt_n_static_work++] = q;
}

static void note_static(const StgClosure *q, gc_thread *gct)
{
    if (gct != NULL) {
        statics_mark(gct, q);
        return;
    }
    if (!note_statics)
        return;
    mt_push_static(NULL, q);
    while (mt_n_static_work > 0) {
        const StgClosure *s = mt_static_work[--mt_n_static_work];
        /* A CAF's header changes when it is entered (relaxed: any value it held is a valid one). */
        statics_refs(s, __atomic_load_n(&s->info, __ATOMIC_RELAXED), mt_push_static, NULL);
    }
}

static void note_srt(const StgClosure *const *srt, gc_thread *gct)
{
    if (gct != NULL) {
        statics_mark_srt(gct, srt);
        return;
    }
    for (; *srt; srt++)
        note_static(*srt, NULL);
}

/* Did the mark thread find q this cycle? (statics_cycle_end, in the final pause) */
static bool mt_noted_static(const StgClosure *q)
{
    return ptrset_has(&mt_statics, q);
}

void nm_cafs_cycle_end(void)
{
    statics_cycle_end(mt_noted_static);
    note_statics = false;
    ptrset_clear(&mt_statics);
    mt_last_static = NULL;
}

/*
 * p was reachable from the snapshot (or reported by a barrier): grey it if
 * it is in the nonmoving heap. gct: the pause's GC thread, or NULL outside
 * a collection (the mark thread; a drain between two passes).
 */
static void grey(StgClosure *p, gc_thread *gct)
{
    p = UNTAG(p);
    if (p == NULL)
        return;
    if (!HEAP_ALLOCED(p)) {
        note_static(p, gct);
        return;
    }
    bdescr *bd = Bdescr(p);
    uint16_t flags = gc_block_flags(bd);
    if (flags & BF_NONMOVING) {
        if (nm_mark(p, bd))
            push_entry(p);
        /*
         * A marked old copy keeps its copies, each of a chain (a copy's
         * segment may be a source in its turn): the table maps it to the
         * next, which must not be freed while it may be looked up (Note
         * [Evacuating sparse segments] in nonmoving_evac.c).
         */
        if (!__atomic_load_n(&nm_forwarding, __ATOMIC_ACQUIRE))
            return;
        for (StgClosure *to = nm_forwardee(p, bd); to; to = nm_forwardee(to, Bdescr(to)))
            if (nm_mark(to, Bdescr(to)))
                push_entry(to);
        return;
    }
    if (!in_oldest_large(bd, flags))
        return; /* young: see Note [The concurrent mark] */
    if (!(flags & BF_EVACUATED)) {
        /* From-space of a pause: relinked, and scanned by the collector. */
        ASSERT(gct != NULL);
        gct->evac_gen_no = 0;
        evac_large(gct, bd);
        return;
    }
    if (ptrset_has(&cand_large, bd) && ptrset_add(&marked_large, bd))
        push_large(p);
}

/*
 * Note [Greying without reading]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Greying a slot writes its epoch byte and pushes its address; it does not
 * read the object. Reading its header there (to set TSOs aside) was a cache
 * miss per greyed object, in the start pause for every pointer into the
 * nonmoving heap it met, and in the mark thread ahead of the prefetch ring
 * (mark_batch), which then had nothing left to hide: 9% of mapchurn's
 * samples under thr -xn were that one load. The header is read when the
 * object is traced, after its prefetch, and a TSO met there is scanned
 * then if the world is stopped, else deferred to the final pause.
 *
 * What the start pause must still scan in the pause is every TSO a
 * thread can run on during the cycle (its fields change without
 * barriers); stacks are marked lazily (Note [Lazy stack marking]), and
 * are large objects, whose headers push_large reads (they are few). The
 * TSOs in segments are those of the thread
 * table, which nm_start_threads marks and scans before the roots are
 * visited, so the roots find them marked and do not push them. A TSO the
 * table does not hold (its thread has finished, nothing changes it) goes
 * to the mark stack and from there to the final pause.
 */
static void scan_table_thread(void *ctx, StgClosure **slot)
{
    gc_thread *gct = ctx;
    StgClosure *q = UNTAG(*slot);
    if (q == NULL || !HEAP_ALLOCED(q))
        return;
    bdescr *bd = Bdescr(q);
    if (!(gc_block_flags(bd) & BF_NONMOVING))
        return; /* young: the collection evacuates it and scans the copy, greying */
    if (nm_mark(q, bd))
        scav_one(gct, q, oldest_gen->no);
}

void nm_start_threads(gc_thread *gct)
{
    ASSERT(nm_pause == NM_PAUSE_START);
    threads_visit(scan_table_thread, gct);
}

void nm_grey_large(gc_thread *gct, bdescr *bd)
{
    ASSERT(nm_pause == NM_PAUSE_START && ptrset_has(&cand_large, bd));
    (void)gct;
    bd->flags |= BF_EVACUATED;
    if (ptrset_add(&marked_large, bd))
        push_large((StgClosure *)bd->start);
}

void nm_grey(gc_thread *gct, StgClosure *q, bdescr *bd)
{
    (void)bd;
    grey(q, gct);
}

/*
 * Note [Tracing beside a collection]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The mark thread keeps tracing while a minor collection runs (a DURING
 * pause takes no lock the mark thread holds), so on a program that spends
 * most of its time collecting the young generation the mark still
 * progresses. What the two share, and why it is safe:
 *
 *  - Fields of nonmoving objects: a minor collection rewrites the ones
 *    that point young (to the young object's new address, or to its
 *    promoted copy, which is allocated black). The tracer reads either
 *    value; both are young or black, and neither needs greying. The
 *    collector stores with release (evac_set_field in evac.h) and the tracer
 *    loads with acquire, so a copy or segment reached through a new value
 *    is seen whole.
 *  - Which blocks are segments: the tracer does not read a pointer's block
 *    flags, which the block allocator rewrites with plain stores; it reads
 *    the descriptor's nm_segment word, which only the nonmoving heap writes
 *    (atomically: set with release when a segment is made, cleared when it
 *    is freed). A young pointer the tracer read may be stale by the time it
 *    reads that word — the collection moved the object, freed its block,
 *    and the block became part of a new segment — and the word would then
 *    claim a segment that the pointer is no slot of. So the tracer reads a
 *    run of fields and their words, then checks that no block group was
 *    freed meanwhile (bd_free_seq in block_alloc.h); if one was, it reads
 *    the run again. If none was, each word describes its block as it was
 *    when the pointer was read, when the pointer was a real one (the field
 *    held it); and a block that was a segment then is one until the cycle
 *    ends (segments are freed by the sweep only). Large objects are known
 *    by the candidate set alone (a candidate is never freed in a cycle).
 *  - Epoch bytes: the tracer marks slots holding the previous epoch; the
 *    collection's promotion takes free slots (neither epoch) and gives them
 *    the current one. They never write the same byte. A slot the tracer
 *    reaches that holds the current epoch is marked or allocated black.
 *  - Everything else of the mark (its stack, the deferred TSOs,
 *    the large-object sets) is the mark thread's between the start and the
 *    final pause, which hold mark_lock; a DURING pause touches none of it.
 *    Updated remembered-set chunks go through upd_lock.
 *
 * Every access the two share is atomic, so ThreadSanitizer checks them
 * with no suppression (one was needed while the collector stored plainly
 * and the tracer read descriptors' flags; when TSan lost the mark thread's
 * stack it could not apply it).
 */
typedef struct {
    StgClosure *p;
    uint32_t segment;   /* its block's nm_segment word: non-zero in a segment, else maybe a large
                           object */
    StgClosure **field; /* where p was read */
    StgClosure *seen;   /* the field's value, tagged */
} Found;

/*
 * Fields of nonmoving and large objects the mark thread found holding an
 * old copy of a duplicated object, with the copy they are to hold (Note
 * [Evacuating sparse segments] in nonmoving_evac.c). The mark thread writes
 * nothing but epoch bytes: a mutator may be reading the field (generated
 * code reads fields with plain loads), so the final pause, with the world
 * stopped, redirects each field that still holds what the tracer read (one
 * the program wrote since belongs to a remembered object, which the final
 * pause scans). Guarded by mark_lock.
 */
typedef struct {
    StgClosure **field;
    StgClosure *seen, *to;
} Redirect;
static Redirect *redirects;
static StgWord n_redirects, redirects_cap;

static void note_redirect(StgClosure **field, StgClosure *seen, StgClosure *to)
{
    if (n_redirects == redirects_cap) {
        redirects_cap = redirects_cap ? redirects_cap * 2 : 1024;
        redirects = hooks_realloc(redirects, redirects_cap * sizeof *redirects, "nm redirects");
    }
    redirects[n_redirects++] = (Redirect){field, seen, to};
}

/* The final pause (world stopped, mark_lock held): the noted fields take their copies. */
static void apply_redirects(void)
{
    for (StgWord i = 0; i < n_redirects; i++) {
        Redirect *r = &redirects[i];
        if (__atomic_load_n(r->field, __ATOMIC_RELAXED) == r->seen)
            __atomic_store_n(r->field, r->to, __ATOMIC_RELAXED);
    }
    DEBUG_TRACE(nonmoving_gc, "nonmoving: %lu fields redirected to copies",
                (unsigned long)n_redirects);
    n_redirects = 0;
    if (redirects_cap > 65536) {
        free(redirects);
        redirects = NULL;
        redirects_cap = 0;
    }
}

/* The mark thread's tracing of n fields: see Note [Tracing beside a collection]. */
/*
 * The static closures among a run of fields, off the tracer's loop (a call
 * inside it, taken at every nullary constructor, made the mark thread's
 * CPU on bench/largeheap about 20% higher, CAFs or none). A field that no
 * longer holds the static closure the loop saw was written since, and the
 * barrier reported what it held.
 */
__attribute__((noinline, cold)) static void note_statics_in(StgClosure **f, StgWord n)
{
    for (StgWord j = 0; j < n; j++) {
        StgClosure *p = UNTAG(__atomic_load_n(&f[j], __ATOMIC_ACQUIRE));
        if (p != NULL && !HEAP_ALLOCED(p))
            note_static(p, NULL);
    }
}

static void nm_trace_fields_concurrent(StgClosure **f, StgWord n, bool redirect)
{
    enum { RUN = 32 };
    Found found[RUN];
    bool any_large = cand_large.n > 0;
    for (StgWord i = 0; i < n; i += RUN) {
        StgWord k = n - i < RUN ? n - i : RUN;
        uint32_t m;
        bool saw_static;
        for (;;) {
            uint64_t seq = bd_free_seq_begin();
            m = 0;
            saw_static = false;
            for (StgWord j = 0; j < k; j++) {
                StgClosure *v = __atomic_load_n(&f[i + j], __ATOMIC_ACQUIRE);
                StgClosure *p = UNTAG(v);
                if (p == NULL)
                    continue;
                if (!HEAP_ALLOCED(p)) {
                    saw_static = true;
                    continue;
                }
                uint32_t seg = __atomic_load_n(&Bdescr(p)->nm_segment, __ATOMIC_ACQUIRE);
                if (seg || any_large)
                    found[m++] = (Found){p, seg, &f[i + j], v};
            }
            if (bd_free_seq_unchanged(seq))
                break;
        }
        if (RTS_UNLIKELY(saw_static && note_statics))
            note_statics_in(&f[i], k);
        bool fwd = __atomic_load_n(&nm_forwarding, __ATOMIC_ACQUIRE);
        for (uint32_t j = 0; j < m; j++) {
            StgClosure *p = found[j].p;
            bdescr *bd = Bdescr(p);
            if (found[j].segment) {
                StgClosure *to = RTS_UNLIKELY(fwd) && (found[j].segment & NM_SEG_SOURCE)
                                     ? nm_forward_slot(p, bd)
                                     : NULL;
                if (to && !redirect) {
                    /*
                     * A stack slot: its frame may be gone by the final pause, and
                     * a word that took its place must not be rewritten. The old
                     * copy is marked, and with it its copies (as grey does): both
                     * live to the next cycle.
                     */
                    for (StgClosure *c = p; c; c = nm_forwardee(c, Bdescr(c)))
                        if (nm_mark_concurrent(c, Bdescr(c)))
                            push_entry(c);
                    continue;
                }
                if (to) {
                    /*
                     * An old copy: the copy is marked, not the old one, and the
                     * final pause redirects the field (Note [Evacuating sparse
                     * segments] in nonmoving_evac.c). A segment stays one until the
                     * cycle ends: the copy's descriptor is safe to read.
                     */
                    note_redirect(found[j].field, found[j].seen,
                                  TAG_CLOSURE(GET_TAG(found[j].seen), to));
                    p = to;
                    bd = Bdescr(p);
                }
                if (nm_mark_concurrent(p, bd))
                    push_entry(p);
            } else if (ptrset_has(&cand_large, bd) && ptrset_add(&marked_large, bd)) {
                /*
                 * A candidate is a large object of the generation since the
                 * start pause, never freed before the final one: no stale
                 * pointer's block is one (nor is a young large object's).
                 */
                push_large(p);
            }
        }
    }
}

/*
 * Note [Lazy stack marking]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A thread's stack is a chain of chunks (threads.c), written by its thread
 * with no barrier: pushes write words the snapshot did not hold, but pops
 * give up frames that may hold the only pointers to snapshot objects. So a
 * chunk's frames must be marked before its thread pops any of them. The
 * start pause used to scan every chunk of every thread, a pause that grew
 * with the stacks' depth. Now each chunk is marked once per cycle by
 * whoever gets to it first, and `StgStack.marking` says how far that got:
 *
 *   stack_epoch << 1        marked this cycle (the done word);
 *   (stack_epoch << 1) | 1  being marked (claimed by a CAS);
 *   anything else           not marked yet.
 *
 * stack_epoch is bumped by every start and full pause (never 0; a reachable
 * chunk is marked in every cycle, so an old value cannot come round again
 * while its chunk is reachable). Who marks:
 *
 *  - A pause that greys (start, final, full): any chunk it scans (scav.c
 *    calls nm_stack_scanned). The start pause scans what a minor collection
 *    scans: young chunks and dirty (remembered) ones, which include every
 *    chunk a thread is running on (an active chunk stays dirty). An old clean
 *    chunk it reaches goes on the mark stack unscanned (push_large).
 *  - The mark thread, when it traces a chunk (trace_stack_concurrent): it
 *    claims the chunk, greys its frames' slots and stores the done word. A
 *    chunk it can claim is clean and old (it was not dirty at the start, or
 *    the start pause would have scanned it, and nothing has run on it since,
 *    or its thread would have marked it), so no mutator and no minor
 *    collection writes it meanwhile. A slot holding an old copy of a
 *    duplicated object is not redirected (the final pause could find another
 *    frame there): both copies are marked.
 *  - A mutator, before it runs on a chunk (nm_stack_before_run, from
 *    threads_stack_activate: a thread attaching, a stack underflowing to an
 *    older chunk, a new chunk): if the chunk is not marked, it claims it and
 *    reports every slot (and the chunk) to its update remembered set, as a
 *    barrier reports an overwritten value. If the mark thread holds the
 *    claim, it waits for the done word (one chunk's trace).
 *
 * The final pause scans any chunk it reaches that is not marked. A chunk a
 * mutator claimed has its slots in that mutator's chunk of reports, which
 * the mark takes like any other. Chunks made since the start pause are not
 * in the snapshot: their first activation marks them cheaply (a few frames).
 */
static uint32_t stack_epoch; /* written in start and full pauses; read with relaxed loads */

static uint32_t stack_done_word(void)
{
    return __atomic_load_n(&stack_epoch, __ATOMIC_RELAXED) << 1;
}

static bool stack_marked(const StgStack *s)
{
    return __atomic_load_n(&s->marking, __ATOMIC_ACQUIRE) == stack_done_word();
}

void nm_stack_scanned(StgStack *s)
{
    __atomic_store_n(&s->marking, stack_done_word(), __ATOMIC_RELEASE);
}

static void new_stack_epoch(void)
{
    uint32_t e = (stack_epoch + 1) & 0x7fffffffu;
    __atomic_store_n(&stack_epoch, e ? e : 1, __ATOMIC_RELAXED);
}

/* Claim s for marking; false if it is marked or someone else is marking it. */
static bool claim_stack(StgStack *s)
{
    uint32_t done = stack_done_word();
    StgHalfWord m = __atomic_load_n(&s->marking, __ATOMIC_ACQUIRE);
    if (m == done || m == (done | 1))
        return false;
    return __atomic_compare_exchange_n(&s->marking, &m, done | 1, false, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}

/* Every pointer slot of s's frames, a run at a time, and every frame's SRT. */
static void stack_slots(StgStack *s, void (*f)(void *ctx, StgClosure **slots, StgWord n),
                        void (*srt)(void *ctx, const StgClosure *const *srt), void *ctx)
{
    for (StackWalk w = stack_walk(s); stack_walk_next(&w);) {
        if (stack_walk_bad(&w))
            msg_fatal(EXIT_INTERNAL_ERROR,
                      "nonmoving: bad stack frame at %p (info %p) in stack %p; the stack is "
                      "corrupt",
                      (void *)w.p, (const void *)w.info, (void *)s);
        if (w.info->srt)
            srt(ctx, w.info->srt);
        StgClosure **slots = stack_walk_slots(&w);
        if (w.f.all_ptrs) {
            if (w.f.n_slots > 0)
                f(ctx, slots, w.f.n_slots);
        } else {
            for (StgWord i = 0; i < w.f.n_slots; i++)
                if (frame_slot_is_ptr(&w.f, i))
                    f(ctx, &slots[i], 1);
        }
    }
}

static void trace_slots_concurrent(void *ctx, StgClosure **slots, StgWord n)
{
    (void)ctx;
    nm_trace_fields_concurrent(slots, n, false);
}

static void trace_srt_concurrent(void *ctx, const StgClosure *const *srt)
{
    (void)ctx;
    if (note_statics)
        note_srt(srt, NULL);
}

/* The mark thread meets a chunk: Note [Lazy stack marking]. */
static void trace_stack_concurrent(StgStack *s)
{
    if (!claim_stack(s))
        return; /* marked, or a mutator is reporting its slots */
    stack_slots(s, trace_slots_concurrent, trace_srt_concurrent, NULL);
    __atomic_store_n(&s->marking, stack_done_word(), __ATOMIC_RELEASE);
}

/*
 * The tracer: the pointer fields of q from field `from` on, without moving
 * or writing anything but epoch bytes. gct: a pause's GC thread (the world
 * is stopped), or NULL: the mark thread, beside mutators and maybe a minor
 * collection.
 */
static void trace(StgClosure *q, StgWord from, gc_thread *gct)
{
    const StgInfoTable *info = __atomic_load_n(&q->info, __ATOMIC_ACQUIRE);
    ScanInfo si = scan_info(q, info, SCAN_KEEP_BLACKHOLED);
    switch (si.cls) {
    case SCAN_NONE:
    case SCAN_WEAK:
        return;
    case SCAN_TSO:
        /*
         * Pushed unread (Note [Greying without reading]). With the world
         * stopped (a final or full pause) scanned now; the mark thread
         * leaves it to the final pause.
         */
        if (gct != NULL)
            scav_one(gct, q, oldest_gen->no);
        else
            defer(q);
        return;
    case SCAN_STACK:
        /* Note [Lazy stack marking]. A pause's scan marks it (nm_stack_scanned). */
        if (gct == NULL)
            trace_stack_concurrent((StgStack *)q);
        else if (!stack_marked((StgStack *)q))
            scav_one(gct, q, oldest_gen->no);
        return;
    default: {
        if (si.srt && from == 0 && (gct != NULL || note_statics))
            note_srt(si.srt, gct);
        StgClosure **f = (StgClosure **)q + si.ptr_off;
        StgWord n = si.n_ptrs;
        if (from >= n)
            return;
        if (n - from > SLICE) {
            n = from + SLICE;
            push_slice(q, n);
        }
        if (gct == NULL) {
            nm_trace_fields_concurrent(f + from, n - from, true);
            return;
        }
        bool fwd = __atomic_load_n(&nm_forwarding, __ATOMIC_ACQUIRE);
        for (StgWord i = from; i < n; i++) {
            StgClosure *v = __atomic_load_n(&f[i], __ATOMIC_RELAXED);
            if (RTS_UNLIKELY(fwd)) {
                /* The world is stopped: the field takes the copy (Note [Evacuating sparse
                 * segments] in nonmoving_evac.c). */
                StgClosure *to = nm_forward(v);
                if (to != v) {
                    __atomic_store_n(&f[i], to, __ATOMIC_RELAXED);
                    v = to;
                }
            }
            grey(v, gct);
        }
        return;
    }
    }
}

/* Trace the entry on top of the mark stack (sp > 0). */
static void trace_top(gc_thread *gct)
{
    StgClosure *e = stack[--sp];
    if ((StgWord)e & 1) {
        StgWord from = (StgWord)stack[--sp];
        trace((StgClosure *)((StgWord)e & ~(StgWord)1), from, gct);
    } else {
        trace(e, 0, gct);
    }
}

bool nm_weak_field_deferred(const StgClosure *p)
{
    if (nm_pause != NM_PAUSE_START)
        return false;
    p = UNTAG(p);
    return p != NULL && HEAP_ALLOCED(p) && Bdescr(p)->gen_no == oldest_gen->no;
}

/* --- the update remembered sets --------------------------------------------------- */

static NmUpdChunk *new_chunk(void)
{
    NmUpdChunk *c = hooks_malloc(sizeof *c, "nm update chunk");
    c->next = NULL;
    c->n = 0;
    return c;
}

/* Hand capability c's chunk to the shared list (its holder, or the world stopped). */
static void flush_cap(uint32_t c)
{
    NmUpdChunk *ch = cap_chunk[c];
    if (ch->n == 0)
        return;
    trace_conc_upd_rem_set_flush(c);
    NmUpdChunk *fresh = new_chunk();
    pthread_mutex_lock(&upd_lock);
    ch->next = full_chunks;
    full_chunks = ch;
    pthread_mutex_unlock(&upd_lock);
    cap_chunk[c] = fresh;
}

/* The mark thread has nothing to do: set by it before it sleeps, cleared by post_work (atomic). */
static bool dry = true;

/* Wake the thread. Marking work clears `dry`; a prefault request must not (it would put off a
 * final pause). */
static void post(bool marking)
{
    pthread_mutex_lock(&ctl_lock);
    __atomic_store_n(&work_posted, true, __ATOMIC_RELAXED);
    if (marking)
        __atomic_store_n(&dry, false, __ATOMIC_RELEASE);
    pthread_cond_signal(&ctl_cond);
    pthread_mutex_unlock(&ctl_lock);
}

static void post_work(void)
{
    post(true);
}

/* A sink installed before the cycle began (a test's): it gets every value too, and is put back. */
static BarrierSink prev_sink;

/* A value for the mark, from the mutator holding cap: into its chunk if it is in the nonmoving
 * heap. */
static void report(Capability *cap, StgClosure *old)
{
    StgClosure *p = UNTAG(old);
    if (p == NULL)
        return;
    if (!HEAP_ALLOCED(p)) {
        /* A static closure: the mark notes it (Note [CAFs under the concurrent mark]). */
        if (!note_statics)
            return;
    } else {
        bdescr *bd = Bdescr(p);
        uint16_t flags = bd->flags;
        if (!(flags & BF_NONMOVING) && !in_oldest_large(bd, flags))
            return;
    }
    ASSERT(cap->no < n_cap_chunk);
    NmUpdChunk *ch = cap_chunk[cap->no];
    ch->v[ch->n++] = p;
    if (ch->n == UPD_CHUNK) {
        flush_cap(cap->no);
        post_work();
    }
}

/* The barrier sink (Note [The barrier word] in barriers.c): runs on the mutator. */
static void sink(Capability *cap, StgClosure *obj, StgClosure **field, StgClosure *old)
{
    if (prev_sink)
        prev_sink(cap, obj, field, old);
    report(cap, old);
}

static void report_slots(void *ctx, StgClosure **slots, StgWord n)
{
    Capability *cap = ctx;
    for (StgWord i = 0; i < n; i++)
        report(cap, slots[i]);
}

static void report_srt(void *ctx, const StgClosure *const *srt)
{
    if (!note_statics)
        return;
    for (; *srt; srt++)
        report(ctx, (StgClosure *)*srt);
}

void nm_stack_before_run(Capability *cap, StgStack *s)
{
    if (!nm_cycle_running() || stack_marked(s))
        return;
    if (claim_stack(s)) {
        report(cap, (StgClosure *)s);
        stack_slots(s, report_slots, report_srt, cap);
        __atomic_store_n(&s->marking, stack_done_word(), __ATOMIC_RELEASE);
        return;
    }
    /* The mark thread is tracing it (Note [Lazy stack marking]): one chunk's fields. */
    while (!stack_marked(s))
        sched_yield();
}

/* Take the shared chunks onto the mark stack (mark_lock held). */
static bool take_chunks(gc_thread *gct)
{
    pthread_mutex_lock(&upd_lock);
    NmUpdChunk *list = full_chunks;
    full_chunks = NULL;
    pthread_mutex_unlock(&upd_lock);
    bool any = list != NULL;
    for (NmUpdChunk *next; list; list = next) {
        next = list->next;
        for (StgWord i = 0; i < list->n; i++)
            grey(list->v[i], gct);
        free(list);
    }
    return any;
}

/* Mark until nothing is left (mark_lock held). */
static void drain(gc_thread *gct)
{
    do {
        while (sp > 0)
            trace_top(gct);
    } while (take_chunks(gct));
}

/* --- the mark thread ---------------------------------------------------------------- */

#define BATCH 2048

/*
 * One batch; false when the thread ran dry. Entries leave the stack through
 * a ring of RING, prefetched as they enter it and traced as they leave, as
 * the stop-the-world mark does (Note [Prefetching the mark] in mark.h): the
 * mark thread is waiting for memory most of the time. What is left in the
 * ring goes back on the stack at the end of the batch (the pauses see the
 * stack only).
 */
#define RING 8
static bool mark_batch(void)
{
    struct {
        StgClosure *q;
        StgWord from;
    } ring[RING];
    uint32_t head = 0, n_ring = 0;
    bool more = true;
    for (uint32_t n = 0; n < BATCH; n++) {
        while (n_ring < RING && sp > 0) {
            StgClosure *e = stack[--sp];
            StgWord from = 0;
            if ((StgWord)e & 1) {
                from = (StgWord)stack[--sp];
                e = (StgClosure *)((StgWord)e & ~(StgWord)1);
            }
            __builtin_prefetch(e, 0);
            uint32_t i = (head + n_ring++) % RING;
            ring[i].q = e;
            ring[i].from = from;
        }
        if (n_ring == 0) {
            if (!take_chunks(NULL) || sp == 0) {
                more = false;
                break;
            }
            continue;
        }
        StgClosure *q = ring[head].q;
        StgWord from = ring[head].from;
        head = (head + 1) % RING;
        n_ring--;
        trace(q, from, NULL);
    }
    for (; n_ring > 0; n_ring--, head = (head + 1) % RING) {
        if (ring[head].from)
            push_slice(ring[head].q, ring[head].from);
        else
            push_entry(ring[head].q);
    }
    return more;
}

/*
 * Megablocks to populate ahead of the heap's growth (Note [Prefaulted
 * megablocks] in mblock.c), asked for at the end of each collection; the
 * thread does it when it has nothing to mark or sweep.
 */
static uint32_t prefault_want;

#define PREFAULT_STEP 2 /* megablocks at a time: marking waits at most that long */

/* Populate up to PREFAULT_STEP of the megablocks asked for; false if there was nothing to do. */
static bool prefault_step(void)
{
    uint32_t n = __atomic_load_n(&prefault_want, __ATOMIC_ACQUIRE), step = 0;
    do {
        if (n == 0)
            return false;
        step = n < PREFAULT_STEP ? n : PREFAULT_STEP;
    } while (!__atomic_compare_exchange_n(&prefault_want, &n, n - step, true, __ATOMIC_ACQ_REL,
                                          __ATOMIC_ACQUIRE));
    void *base = NULL;
    sm_lock();
    uint32_t got = mblock_prefault_claim(step, &base);
    sm_unlock();
    if (!got)
        return false;
    bool ok = os_populate(base, (size_t)got << MBLOCK_SHIFT);
    sm_lock();
    mblock_prefault_done(ok);
    sm_unlock();
    return ok;
}

static void prefault(void)
{
    /* Until done, or the pause that just ended gave the mark work (it goes first). */
    while (!__atomic_load_n(&work_posted, __ATOMIC_RELAXED) &&
           !__atomic_load_n(&stopping, __ATOMIC_RELAXED) && prefault_step())
        ;
}

static bool test_hold; /* nm_test_hold_mark (atomic) */

void nm_test_hold_mark(bool hold)
{
    __atomic_store_n(&test_hold, hold, __ATOMIC_RELEASE);
}

static void *mark_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&ctl_lock);
    for (;;) {
        while (!stopping && !work_posted)
            pthread_cond_wait(&ctl_cond, &ctl_lock);
        if (stopping)
            break;
        __atomic_store_n(&work_posted, false, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&ctl_lock);
        for (bool more = true; more && !__atomic_load_n(&stopping, __ATOMIC_RELAXED);) {
            if (RTS_UNLIKELY(__atomic_load_n(&test_hold, __ATOMIC_ACQUIRE))) {
                struct timespec ts = {0, 200000};
                nanosleep(&ts, NULL);
                continue;
            }
            if (nm_cycle_running()) {
                pthread_mutex_lock(&mark_lock);
                more = nm_cycle_running() && mark_batch();
                pthread_mutex_unlock(&mark_lock);
                /* What the pauses just took fresh, a step between batches (Note [Prefaulted
                 * megablocks]). */
                if (__atomic_load_n(&prefault_want, __ATOMIC_RELAXED))
                    prefault_step();
            } else {
                /* After a cycle: its sweep (Note [The concurrent sweep] in nonmoving.c). */
                more = nm_sweeping() && nm_sweep_batch();
            }
        }
        /* Nothing to mark or sweep: now is the time to populate. */
        if (!nm_cycle_running() && !nm_sweeping())
            prefault();
        pthread_mutex_lock(&ctl_lock);
        if (!work_posted) {
            __atomic_store_n(&dry, true, __ATOMIC_RELEASE);
            pthread_cond_broadcast(&dry_cond);
            /* Note [Asking for the final pause]. */
            if (nm_cycle_running() && !__atomic_load_n(&stopping, __ATOMIC_RELAXED))
                gc_want();
        }
    }
    pthread_mutex_unlock(&ctl_lock);
    return NULL;
}

/* The mark thread's CPU time when it stopped (nm_mark_exit). */
static int64_t exited_thread_cpu_ns;

int64_t nm_mark_thread_cpu_ns(void)
{
    if (__atomic_load_n(&thread_started, __ATOMIC_ACQUIRE))
        return exited_thread_cpu_ns + os_time_cpu_of_thread_ns(mark_thread);
    return exited_thread_cpu_ns;
}

static void start_thread(void)
{
    if (thread_started)
        return;
    __atomic_store_n(&stopping, false, __ATOMIC_RELAXED);
    if (pthread_create(&mark_thread, NULL, mark_main, NULL) != 0)
        msg_fatal(1, "nonmoving: cannot start the mark thread");
    __atomic_store_n(&thread_started, true, __ATOMIC_RELEASE);
}

void nm_mark_exit(void)
{
    if (thread_started) {
        pthread_mutex_lock(&ctl_lock);
        __atomic_store_n(&stopping, true, __ATOMIC_RELAXED);
        pthread_cond_signal(&ctl_cond);
        pthread_mutex_unlock(&ctl_lock);
        int64_t cpu = nm_mark_thread_cpu_ns();
        pthread_join(mark_thread, NULL);
        __atomic_store_n(&thread_started, false, __ATOMIC_RELEASE);
        exited_thread_cpu_ns = cpu;
    }
    cpu_at_last_final = cpu_at_start = exited_thread_cpu_ns; /* the next runtime counts from here */
    if (nm_cycle_running())
        sm_barrier_set_sink(prev_sink);
    prev_sink = NULL;
    for (uint32_t c = 0; c < n_cap_chunk; c++)
        free(cap_chunk[c]);
    free(cap_chunk);
    cap_chunk = NULL;
    n_cap_chunk = 0;
    for (NmUpdChunk *next; full_chunks; full_chunks = next) {
        next = full_chunks->next;
        free(full_chunks);
    }
    free(stack);
    stack = NULL;
    sp = stack_cap = 0;
    free(deferred);
    deferred = NULL;
    n_deferred = deferred_cap = 0;
    free(redirects);
    redirects = NULL;
    n_redirects = redirects_cap = 0;
    __atomic_store_n(&prefault_want, 0, __ATOMIC_RELAXED); /* for the next runtime's heap */
    ptrset_free(&cand_large);
    ptrset_free(&marked_large);
    ptrset_free(&mt_statics);
    note_statics = false;
    mt_last_static = NULL;
    free(mt_static_work);
    mt_static_work = NULL;
    mt_n_static_work = mt_static_work_cap = 0;
    blocks_at_start = growth_blocks = promoted_words = 0;
    cycle = false;
    nm_pause = NM_PAUSE_NONE;
}

/* --- the pauses (gc.c) ---------------------------------------------------------------- */

static bool ran_dry; /* at this pause, before the flush: the mark had nothing left */
static bool flushed; /* this pause handed capabilities' chunks to the mark */

/*
 * Every collection of a concurrent runtime begins here, with the world
 * stopped. The mark thread goes on (Note [Tracing beside a collection]);
 * the pauses that need it stopped take mark_lock (stop_mark_thread).
 */
void nm_pause_mark_thread(void)
{
    ran_dry = __atomic_load_n(&dry, __ATOMIC_ACQUIRE);
    /* Everything the mutators reported is the mark's now. */
    flushed = false;
    for (uint32_t c = 0; c < n_cap_chunk; c++)
        if (cap_chunk[c]->n > 0) {
            flush_cap(c);
            flushed = true;
        }
}

void nm_stop_mark_thread(void)
{
    if (paused)
        return;
    pthread_mutex_lock(&mark_lock);
    paused = true;
}

/*
 * Between cycles (sm_lock held): the megablocks the next cycle will take
 * fresh if it promotes what the last one did between its start and final
 * pauses (growth_blocks), beyond the free blocks the heap has now. During a
 * cycle only what the collections took fresh is populated, a step between
 * mark batches (the mark goes first): before that, every segment a cycle
 * promoted into beyond those free blocks was fresh memory, and on largeheap
 * each such minor collection took about a thousand page faults.
 */
static uint64_t expected_fresh_mblocks(void)
{
    if (nm_cycle_running() || nm_sweeping())
        return 0; /* the sweep's empty segments are not free blocks yet */
    uint64_t in_use = mblock_n_in_use(), committed = mblock_n_committed();
    uint64_t blocks = in_use * BLOCKS_PER_MBLOCK, alloc = bd_n_alloc_blocks();
    uint64_t free_blocks =
        (blocks > alloc ? blocks - alloc : 0) + (committed - in_use) * BLOCKS_PER_MBLOCK;
    return growth_blocks > free_blocks ? (growth_blocks - free_blocks) / BLOCKS_PER_MBLOCK : 0;
}

/*
 * What one minor collection may promote: the nurseries and what aged in
 * generation 0, each at most -A per capability.
 */
static uint64_t one_gc_mblocks(void)
{
    uint64_t bytes = 2 * rts_flags.gc.alloc_area_bytes * n_capabilities;
    return (bytes + MBLOCK_SIZE - 1) >> MBLOCK_SHIFT;
}

/*
 * At the end of a collection: populate what the heap is about to take
 * fresh (Note [Prefaulted megablocks]). Posted without clearing `dry`: it
 * is not marking work, and must not put off a final pause.
 */
void nm_ask_prefault(void)
{
    sm_lock();
    uint32_t want =
        mblock_prefault_want(expected_fresh_mblocks(), nm_cycle_running(), one_gc_mblocks());
    sm_unlock();
    if (want == 0)
        return;
    __atomic_store_n(&prefault_want, want, __ATOMIC_RELEASE);
    start_thread();
    post(false);
}

void nm_resume_mark_thread(void)
{
    bool work = (nm_cycle_running() && flushed) || nm_sweeping();
    if (paused) {
        pthread_mutex_lock(&upd_lock);
        work = (nm_cycle_running() && (sp > 0 || full_chunks != NULL)) || nm_sweeping();
        pthread_mutex_unlock(&upd_lock);
        paused = false;
        pthread_mutex_unlock(&mark_lock);
    }
    if (work) {
        start_thread();
        post_work();
    } else if (nm_cycle_running() && __atomic_load_n(&dry, __ATOMIC_ACQUIRE)) {
        /*
         * Nothing for a mark that has nothing: it will not run dry again to
         * ask for the final pause (Note [Asking for the final pause]), so
         * this pause asks. A start pause can leave nothing: when every
         * object its roots reach in the nonmoving heap was promoted by the
         * pause itself (allocated black and scanned there).
         */
        gc_want();
    }
}

bool nm_nothing_left(void)
{
    return ran_dry;
}

/*
 * Note [Asking for the final pause]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A cycle ends at a collection that finds the mark dry (plan_pause in
 * gc.c). Waiting for the next collection the allocation area asks for
 * kept the barrier on and the cycle's garbage unswept for as long as the
 * program took to fill it, and for ever if the program stopped allocating
 * (blocked outside the runtime, or finished its work and went quiet): the
 * memory a nonmoving heap should give back stayed taken. So the mark
 * thread, when it runs dry during a cycle, asks for a collection
 * (gc_want in gc.h): whichever capability next takes a nursery block
 * runs it (a collection of the young generations that is also the final
 * pause), or, when every capability is free, the timer thread does
 * (timer.c; with -V0 there is none, and the final waits for the next
 * collection as before). The request is only a flag: gc_run_wanted asks
 * nm_final_due again, so a request the cycle's own final pause overtook
 * costs nothing. A pause that leaves the mark nothing to do while it is
 * dry asks too (nm_resume_mark_thread): the thread will not run dry again.
 * A start pause that promoted every object its roots reach (allocated
 * black, scanned in the pause) left such a cycle waiting for the next
 * collection the allocation area asked for (check_thr_nonmoving's
 * cycle_ends_* tests, whenever the thread had finished its populate
 * before the start pause). GHC's mark thread stops the capabilities
 * itself for the final sync; here capabilities are the program's threads,
 * and stopping them needs one.
 */
/*
 * `dry` is cleared only by post_work: a pause's (START, or a DURING that
 * handed the mark capabilities' chunks) or a mutator's full chunk. The
 * mark drains that work and asks again when it runs dry, so a request
 * that finds this false was overtaken by new work and another follows;
 * one the FINAL overtook finds no cycle running.
 */
bool nm_final_due(void)
{
    return nm_cycle_running() && __atomic_load_n(&dry, __ATOMIC_ACQUIRE);
}

void nm_wait_mark_dry(void)
{
    pthread_mutex_lock(&ctl_lock);
    while (thread_started && nm_cycle_running() && !__atomic_load_n(&dry, __ATOMIC_ACQUIRE) &&
           !stopping)
        pthread_cond_wait(&dry_cond, &ctl_lock);
    pthread_mutex_unlock(&ctl_lock);
}

/*
 * Note [The exit waits for the sweep]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The exit's collection may be the running cycle's final pause, which hands
 * the sweep to the mark thread (gc_collect_stopped). The runtime used to go
 * on to close the event log and join the thread at once: the thread gave up
 * the sweep half done, so the log had a CONC_SWEEP_BEGIN with no END and no
 * census (-ln), whenever the last cycle's final pause was the exit's
 * (t_trace_ghc_events caught it in about one run in five of largeheap 24 4).
 * As GHC's exit waits for its concurrent collection, shut-down now waits for
 * that sweep to end before it reports and closes the log, when there is a
 * log or a -t/-s/-S report (the sweep's census and occupancy are in them):
 * on bench/largeheap the wait is 0.08-0.12 s, for a heap about to be
 * unmapped that nobody else would see swept. What was asked to be populated
 * is dropped first: after the sweep the thread would populate it for
 * nothing.
 */
/* Woken by dry_cond: the mark thread broadcasts it whenever it runs out of
 * work, and the sweep's end is such a time (mark_main). */
void nm_wait_sweep_at_exit(void)
{
    if (!trace_ev_running() && rts_flags.stats.level < STATS_ONELINE)
        return;
    __atomic_store_n(&prefault_want, 0, __ATOMIC_RELAXED);
    pthread_mutex_lock(&ctl_lock);
    while (thread_started && nm_sweeping() && !stopping)
        pthread_cond_wait(&dry_cond, &ctl_lock);
    pthread_mutex_unlock(&ctl_lock);
}

void nm_drain_in_pause(void)
{
    ASSERT(paused && cycle);
    drain(NULL);
}

static void set_barrier(StgWord on)
{
    for (uint32_t c = 0; c < n_capabilities; c++)
        HS_REGS(capabilities[c])->barrier = on;
}

static void pause_greys(void);

void nm_pause_begin(NmPause pause)
{
    if (pause != NM_PAUSE_DURING)
        nm_stop_mark_thread();
    nm_pause = pause;
    switch (pause) {
    case NM_PAUSE_START:
    case NM_PAUSE_FULL:
        ASSERT(!cycle && sp == 0);
        /*
         * A populate asked for before a start pause goes on beside it (the
         * thread populates outside mark_lock), since the pause promotes
         * into the very megablocks it is populating: cancelled here, the
         * pause took them untouched and populated them itself (Note
         * [Populating what is taken untouched]), and each largeheap run's
         * first start pause took 7.7-11.1 ms against 5.4-7.4 (bench/README,
         * "The start pause kept its populate"). A full cycle in one pause
         * (a forced major collection: performMajorGC, idle) wants nothing
         * more populated.
         */
        if (pause == NM_PAUSE_FULL)
            __atomic_store_n(&prefault_want, 0, __ATOMIC_RELAXED);
        if (pause == NM_PAUSE_START) {
            statics_cycle_start(); /* Note [CAFs under the concurrent mark] in statics.h */
            note_statics = statics_cycle_wanted();
            ptrset_clear(&mt_statics);
            mt_last_static = NULL;
        }
        nm_finish_sweep(); /* a full collection may come before the last sweep ended */
        nm_new_epoch();
        new_stack_epoch();
        trace_conc_mark_begin();
        ptrset_clear(&cand_large);
        ptrset_clear(&marked_large);
        pause_greys();
        if (n_cap_chunk < n_capabilities) {
            cap_chunk = hooks_realloc(cap_chunk, n_capabilities * sizeof *cap_chunk, "nm chunks");
            for (uint32_t c = n_cap_chunk; c < n_capabilities; c++)
                cap_chunk[c] = new_chunk();
            n_cap_chunk = n_capabilities;
        }
        break;
    case NM_PAUSE_FINAL: {
        ASSERT(cycle);
        trace_conc_sync_begin();
        apply_redirects();
        take_chunks(NULL);
        pause_greys();
        break;
    }
    default:
        break;
    }
}

/* The segments grey what a pause reaches; the large objects become from-space (or the unmarked
 * candidates do, in the final pause). */
static void pause_greys(void)
{
    generation *gen = oldest_gen;
    if (nm_pause == NM_PAUSE_START) {
        nm_set_segments_marked(true);
        /*
         * Large objects: every one is a candidate; one the pause reaches is
         * greyed (nm_grey_large), left for the mark thread to trace, not
         * scanned in the pause (a large array was the start pause's longest
         * part). Without BF_EVACUATED for the pause, so that the first
         * pointer to one reaches evac_large.
         */
        for (bdescr *bd = gen->large_objects; bd; bd = bd->link) {
            ptrset_add(&cand_large, bd);
            bd->flags &= (uint16_t)~BF_EVACUATED;
        }
    } else if (nm_pause == NM_PAUSE_FULL) {
        nm_set_segments_marked(true);
        /* Large objects: from-space for the pause (as mark_prepare). */
        gen->old_large_objects = gen->large_objects;
        for (bdescr *bd = gen->old_large_objects; bd; bd = bd->link)
            bd->flags &= (uint16_t)~BF_EVACUATED;
        gen->large_objects = NULL;
        gen->n_large_blocks = 0;
        gen->n_large_words = 0;
    } else if (nm_pause == NM_PAUSE_FINAL) {
        nm_set_segments_marked(true);
        /* Candidates nobody marked: from-space (the pause may still reach them). */
        gen->old_large_objects = NULL;
        for (bdescr *bd = gen->large_objects, *next; bd; bd = next) {
            next = bd->link;
            if (!ptrset_has(&cand_large, bd) || ptrset_has(&marked_large, bd))
                continue;
            sm_unlink_large(gen, bd);
            bd->flags &= (uint16_t)~BF_EVACUATED;
            bd->u.back = NULL;
            bd->link = gen->old_large_objects;
            if (bd->link)
                bd->link->u.back = bd;
            gen->old_large_objects = bd;
        }
    }
}

StgWord nm_cycle_promoted_words(void)
{
    return promoted_words;
}

/* After the generations' finish (gc.c). */
void nm_pause_end(void)
{
    generation *gen = oldest_gen;
    switch (nm_pause) {
    case NM_PAUSE_START:
        blocks_at_start = gen->n_blocks + gen->n_large_blocks;
        large_at_start = gen->n_large_blocks;
        nm_set_segments_marked(false);
        /* Not reached in the pause: marked by the tracer, or dead at the final pause. */
        for (bdescr *bd = gen->large_objects; bd; bd = bd->link)
            bd->flags |= BF_EVACUATED;
        __atomic_store_n(&cycle, true, __ATOMIC_RELEASE);
        cycle_start_ns = os_time_monotonic_ns();
        cpu_at_start = nm_mark_thread_cpu_ns();
        prev_sink = sm_barrier_get_sink();
        sm_barrier_set_sink(sink);
        set_barrier(1);
        break;
    case NM_PAUSE_FINAL: {
        StgWord now = gen->n_blocks + gen->n_large_blocks;
        growth_blocks = now > blocks_at_start ? now - blocks_at_start : 0;
        promoted_words = nm_black_words();
        if (gen->n_large_blocks > large_at_start)
            promoted_words += (gen->n_large_blocks - large_at_start) * BLOCK_SIZE_W;
        __atomic_store_n(&cycle, false, __ATOMIC_RELEASE);
        set_barrier(0);
        sm_barrier_set_sink(prev_sink);
        prev_sink = NULL;
        ptrset_clear(&cand_large);
        ptrset_clear(&marked_large);
        __atomic_fetch_add(&cycles, 1, __ATOMIC_RELEASE);
        trace_conc_sync_end();
        break;
    }
    case NM_PAUSE_FULL:
        ptrset_clear(&cand_large);
        ptrset_clear(&marked_large);
        break;
    default:
        break;
    }
    nm_pause = NM_PAUSE_NONE;
}

/*
 * The final pause, before the sweep: remembered objects of the nonmoving
 * generation that were not marked are dead, and their slots (or blocks) are
 * about to be freed; the pause scanned them as roots all the same (an object
 * first marked in the pause is traced without moving its young fields, which
 * only the remembered sets find), and may have remembered them again.
 */
void nm_filter_remembered(void)
{
    uint32_t g = oldest_gen->no;
    for (uint32_t c = 0; c < n_capabilities; c++)
        for (bdescr *bd = capabilities[c]->mut_lists[g]; bd; bd = bd->link) {
            StgPtr w = bd->start;
            for (StgPtr p = bd->start; p < bd->free; p++) {
                StgClosure *q = UNTAG((StgClosure *)*p);
                bdescr *qb = Bdescr(q);
                bool alive = (qb->flags & BF_NONMOVING) ? nm_slot_marked(q, qb)
                                                        : (qb->flags & BF_EVACUATED) != 0;
                if (alive)
                    *w++ = *p;
            }
            bd->free = w;
        }
}

/* A pause's share of the generation's scan (nm_scan): deferred TSOs; the final pause drains. */
bool nm_pause_scan(gc_thread *gct, uint32_t gen_no)
{
    bool work = false;
    for (bool progress = true; progress;) {
        progress = false;
        while (n_deferred > 0) {
            scav_one(gct, deferred[--n_deferred], gen_no);
            progress = true;
        }
        if (nm_pause == NM_PAUSE_FINAL || nm_pause == NM_PAUSE_FULL) {
            while (sp > 0) {
                trace_top(gct);
                progress = true;
            }
        }
        work |= progress;
    }
    return work;
}

/*
 * The concurrent line of -s and RTSStats' nonmoving_gc_{cpu,elapsed}_ns,
 * per cycle, over one window: from the last FINAL to this one. CPU is the
 * mark thread's (its mark, the last cycle's sweep, the megablocks it
 * populated, its wake-ups); elapsed is this cycle's START to FINAL plus,
 * for the time before the START, what the thread ran then, i.e. its CPU
 * (one thread's running time; timing its sweep and populate alone missed
 * its wake-ups, thousands under -A16k). Elapsed was START to FINAL only,
 * and CPU exceeded it by the populate's time (largeheap: 6.3 s in 2.7 s).
 */
/* The window since the last FINAL; `started`: it holds a START (cycle_start_ns is this one's). */
static int64_t window_times(bool started, int64_t *cpu_ns, int64_t *elapsed_ns)
{
    int64_t cpu = nm_mark_thread_cpu_ns();
    *cpu_ns = cpu - cpu_at_last_final;
    if (started)
        *elapsed_ns = os_time_monotonic_ns() - cycle_start_ns + (cpu_at_start - cpu_at_last_final);
    else
        *elapsed_ns = *cpu_ns; /* before a START: the thread's running time */
    return cpu;
}

void nm_cycle_times(int64_t *cpu_ns, int64_t *elapsed_ns)
{
    cpu_at_last_final = window_times(true, cpu_ns, elapsed_ns);
}

void nm_unfinished_times(int64_t *cpu_ns, int64_t *elapsed_ns)
{
    window_times(nm_cycle_running(), cpu_ns, elapsed_ns);
}

/* --- debug: everything reachable is marked ------------------------------------------------ */

#ifdef DEBUG
static PtrSet seen;
static StgClosure *v_parent_cur;
static StgClosure **vstack, **vparent;
static StgWord vsp, vcap;

static void v_push(StgClosure *p)
{
    p = UNTAG(p);
    if (p == NULL || !ptrset_add(&seen, p))
        return;
    if (!HEAP_ALLOCED(p) && statics_reverted_now(p))
        msg_barf(
            "nonmoving: CAF %p (%s) is reachable but was reverted (reached from %p, %s)", (void *)p,
            ((StgCAF *)p)->info->name ? ((StgCAF *)p)->info->name : "unnamed", (void *)v_parent_cur,
            v_parent_cur ? (HEAP_ALLOCED(v_parent_cur) ? layout_type_name(v_parent_cur->info->type)
                                                       : "a static closure")
                         : "a root");
    if (vsp == vcap) {
        StgWord c = vcap;
        grow(&vstack, &vcap, "nm verify");
        vparent = hooks_realloc(vparent, vcap * sizeof *vparent, "nm verify");
        (void)c;
    }
    vparent[vsp] = v_parent_cur;
    vstack[vsp++] = p;
}

static void v_root(RootVisitor *v, StgClosure **slot, RootKind kind)
{
    (void)v;
    (void)kind;
    v_push(*slot);
}

static void v_srt(const StgClosure *const *srt)
{
    for (; srt && *srt; srt++)
        v_push((StgClosure *)*srt);
}

static void v_static_ref(void *ctx, const StgClosure *s)
{
    (void)ctx;
    v_push((StgClosure *)s);
}

static void v_stack(StgStack *s)
{
    for (StackWalk w = stack_walk(s); stack_walk_next(&w);) {
        if (stack_walk_bad(&w))
            msg_barf("nonmoving: bad frame in stack %p", (void *)s);
        v_srt(w.info->srt);
        StgClosure **slots = stack_walk_slots(&w);
        for (StgWord i = 0; i < w.f.n_slots; i++)
            if (frame_slot_is_ptr(&w.f, i))
                v_push(slots[i]);
    }
}

void nm_verify(void)
{
    RootVisitor v = {v_root};
    ptrset_clear(&seen);
    vsp = 0;
    v_parent_cur = NULL;
    roots_visit(&v, ROOTS_REACHABILITY);
    uint64_t checked = 0;
    while (vsp > 0) {
        StgClosure *parent = vparent[vsp - 1];
        StgClosure *q = vstack[--vsp];
        v_parent_cur = q;
        if (!HEAP_ALLOCED(q)) {
            /* Note [CAFs under the concurrent mark] in statics.h: what it names, and a CAF's value.
             */
            statics_refs(q, q->info, v_static_ref, NULL);
            if (q->info->type == IND_STATIC)
                v_push(((StgCAF *)q)->indirectee);
            continue;
        }
        bdescr *bd = Bdescr(q);
        if (bd->flags & BF_NONMOVING) {
            if (!nm_slot_marked(q, bd))
                msg_barf("nonmoving: %p (%s) is reachable but was not marked: a missed barrier? "
                         "(reached from %p, %s, generation %u%s)",
                         (void *)q, layout_type_name(q->info->type), (void *)parent,
                         parent ? layout_type_name(parent->info->type) : "a root",
                         parent ? Bdescr(parent)->gen_no : 0,
                         parent && (Bdescr(parent)->flags & BF_NONMOVING)
                             ? (nm_slot_marked(parent, Bdescr(parent)) ? ", marked" : ", unmarked")
                             : "");
            checked++;
        } else if (in_oldest_large(bd, bd->flags) && !(bd->flags & BF_EVACUATED)) {
            msg_barf("nonmoving: large object %p is reachable but was not marked", (void *)q);
        }
        const StgInfoTable *info = q->info;
        if (info->type == STACK) {
            v_stack((StgStack *)q);
            continue;
        }
        ScanInfo si = scan_info(q, info, 0);
        if (si.cls == SCAN_NONE || si.cls == SCAN_WEAK)
            continue;
        v_srt(si.srt);
        StgClosure **f = (StgClosure **)q + si.ptr_off;
        for (uint32_t i = 0; i < si.n_ptrs; i++)
            v_push(f[i]);
    }
    ptrset_free(&seen);
    free(vstack);
    free(vparent);
    vstack = vparent = NULL;
    vcap = 0;
    DEBUG_TRACE(nonmoving_gc, "nonmoving: verified %llu reachable objects marked",
                (unsigned long long)checked);
}
#endif
