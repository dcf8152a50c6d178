/*
 * Evacuating the nonmoving heap's sparse segments by duplicating their
 * immutable objects (-xn, --nonmoving-evac-occupancy): see the Note below.
 */
#include "sm/nonmoving.h"
#include "sm/nonmoving_heap.h"

#include <stdlib.h>

#include "flags/flags.h"
#include "hooks.h"
#include "messages.h"
#include "sm/evac.h"
#include "sm/layout.h"
#include "sm/storage.h"
#include "trace/debug_trace.h"

/*
 * Note [Evacuating sparse segments]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Objects in a segment never move: generated code reads headers and fields
 * directly, with no read barrier, so no header may become a forwarding
 * pointer while the program can reach it. A sparse segment (few live slots
 * after a sweep, the rest free but usable only by objects of its size
 * class) is emptied by *duplication* instead:
 *
 *  - Choosing (evac_after_sweep, a pause after a sweep ended): a class whose
 *    occupancy is below --nonmoving-evac-occupancy (default 0.9) gives up its
 *    sparsest active segments, fewest live slots first, until its other
 *    segments would be that full; a segment is skipped if more than a
 *    quarter of its live objects could not be copied. A chosen segment is a
 *    source: `evac` in its header (not the block flags, which never change)
 *    names its NmSource, whose side table maps a slot to its copy; it leaves
 *    the active list for the class's sources list, so promotion never takes
 *    its free slots.
 *  - Copying (nm_evac_copy, early in a minor collection, before the roots;
 *    at most EVAC_BUDGET_W words per pause): each live slot of a source
 *    holding an immutable object — CONSTR, FUN or PAP, never a thunk, an
 *    indirection, a mutable object, a WEAK, a TSO, a STACK or a STABLE_NAME
 *    — is copied into a slot taken by the promotion allocator (a current or
 *    active segment of the class: dense slots; black while a cycle runs), and
 *    the side table records it. The copy is promoted like any object: the
 *    pause scans it (its young fields, its remembered-set entry). The old copy
 *    stays a valid object: a copy of an immutable object cannot be told from
 *    it (pointer equality is not observable but through stable names, below),
 *    so the program may go on reading either.
 *  - Redirecting: every pointer to an old copy that the collector meets is
 *    replaced by its copy (nm_forward follows a chain, when a copy's segment
 *    became a source in its turn): evacuation (evac_heap: roots, young
 *    objects, remembered and promoted objects, in every pause), the pauses'
 *    tracer, the mark thread (which writes nothing but epoch bytes: it marks
 *    the copy and notes the field, and the final pause, the world stopped,
 *    redirects it if it still holds the old copy; a program writing the field
 *    since made its object remembered), the stop-the-world mark (its scan
 *    is evacuation), weak keys and the stable-name table (gc_is_alive).
 *    Stable pointers are roots: redirected too.
 *  - Reclaiming: nobody frees an old copy. Once nothing points to it, no mark
 *    reaches it and the sweep frees its slot; a source whose slots all died
 *    is dead and freed (or reused) as any empty segment, its side table with
 *    it. A source some of whose copied slots still live stays a source; one
 *    whose copied slots all died, but whose other objects live, is retired
 *    after a sweep (evac_after_sweep: back to the active or filled list).
 *
 * Why an old copy is never freed while reachable. A sweep frees what the
 * cycle's mark did not mark; the mark is as before except that a pointer to
 * an old copy marks its copy instead, after the pointer was rewritten. So a
 * pointer to an old copy left after the final pause would be one no mark
 * and no final pause met. Stop-the-world marks (the vanilla way, a full
 * pause) meet every pointer of everything reachable. A concurrent cycle's
 * final pause meets the roots, every young object (it collects every
 * generation) and every remembered object; what it does not meet are
 * oldest-generation objects the mark thread traced and nobody wrote since:
 * their fields holding an old copy were noted when traced and are
 * redirected by the final pause itself, and a write to an old object
 * remembers it (the generational barrier records any write, whatever the
 * value, so the final pause scans it). The mutator may hold an old copy it
 * read before a field was rewritten: in its stack (active chunks are
 * remembered), in a young object or in an old one it wrote: all met by the
 * final pause. One case is left: an object the mark thread traced *before*
 * the slot it points to was copied (copying in a pause of the same cycle).
 * So a pause of a running cycle copies only slots holding the current epoch
 * (marked, or allocated black): the old copy then lives to the next cycle,
 * which redirects what is left. Outside a cycle every live slot holds the
 * current epoch. A marked old copy keeps its copies alive (grey marks the
 * whole chain): a barrier may report the old copy, and a later pointer
 * redirected to a copy the sweep freed would dangle; under -DS nm_check
 * asserts that a live old copy's copy lives, and nm_verify that nothing
 * reachable is unmarked.
 *
 * Identity: the stable-name table and weak keys follow in the pause that
 * copies (both are visited by every collection through gc_is_alive, which
 * redirects), and rts_make_stable_name forwards an old copy before looking
 * it up, so both copies have one name, and a weak keyed on the old copy
 * lives as long as either does (a reached old copy marks its copy).
 *
 * Races (threaded way): side tables, `evac` and the blocks' NM_SEG_SOURCE
 * bits (nonmoving.h: the test every forwarding reader makes first,
 * in the descriptor it read for the block flags) are written in pauses only;
 * the mark thread reads them (acquire) while a pause of its cycle may be
 * adding copies: a copy is whole, its epoch byte written, before its table
 * entry is stored (release). Tables are freed in pauses, outside a cycle
 * (sources are retired after a sweep, dead ones when reaped or reused), when
 * no live pointer into the segment can be looked up but through a live
 * object, which keeps its source (a live old copy is never retired). The
 * collector's stores into fields are release stores in the threaded way
 * (evac_set_field), which the mark thread's acquire loads may meet.
 *
 * Costs: reclaiming takes a cycle after the copying (two, if it copied
 * during a cycle); until then both copies are counted live, so occupancy
 * right after a sweep counts a source's old copies and their copies twice.
 * Heap sizing counts copied-out sources off the limit (Note [Evacuation and
 * heap sizing] in trigger.c). Pointer identity of an old and a new copy
 * differs until every pointer is redirected: sharing is kept by identity
 * (stable names, and the test mutator's checksum, which asks nm_forward),
 * not by address.
 */

/*
 * Note [Only the holes promotion leaves]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A free slot a sweep leaves costs memory only if promotion does not fill
 * it before the next cycle: promotion takes a class's free slots before a
 * fresh segment, and the generation's limit counts data, not segments
 * (Note [What the nonmoving limit counts] in trigger.c). A source, on the
 * other hand, costs at once: its free slots are held unused until the next
 * cycle frees it, and its live objects are held twice meanwhile. So a class
 * gives up sources only for holes promotion has left unused: of the holes
 * the last choice left it (`holes_at_choice`, sources' excluded), those
 * beyond the slots it promoted since (`promoted_slots` since
 * `promoted_at_choice`; evacuation's copies count, they fill holes too),
 * and no more than that many now. A class whose holes were all filled
 * gives up none: on bench/mapchurn every class is promoted into faster
 * than its holes appear, and sources chosen by occupancy alone (0.9) held
 * 15-29% of the segments' slots free at each cycle's start and raised peak
 * RSS from 130 to 174 MB. A class nothing is promoted into gives up its
 * sparse segments one sweep after they became sparse.
 */

#define NM_MAX_SOURCES 4096               /* sources at once (`evac` is 16 bits) */
#define EVAC_BUDGET_W  ((StgWord)1 << 15) /* words copied per pause (256 KiB) */

typedef struct {
    NmSegment *seg;
    StgClosure **fwd; /* [n_slots]: a slot's copy (NULL: not copied); NULL until the first */
    uint32_t cursor;  /* this pass over the slots has looked at those below */
    uint32_t waiting; /* this pass skipped so many live slots not marked yet (a cycle runs) */
    uint32_t n_fwd;   /* slots copied */
    bool done;        /* a pass found nothing left to copy */
    /* Its live words when chosen (the sweep's thread rewrites `live` later): once done, the old
     * copies' words, which the program no longer needs (heap sizing). */
    StgWord live_words;
} NmSource;

/*
 * The sources by index (`evac` - 1). Written in pauses; an entry is read by
 * the mark thread while a cycle runs (nm_forwardee), when none is set or
 * cleared (sources are chosen and retired outside a cycle's mark).
 */
static NmSource *sources[NM_MAX_SOURCES];
static uint32_t n_sources, sources_hi; /* in use; entries at or above sources_hi are NULL */
static uint32_t n_fwd_sources;         /* sources with a copy: nm_forwarding */
static StgWord done_source_words;      /* the old copies' words of sources copied out */
bool nm_forwarding;
static uint64_t evac_copied; /* objects copied over the run */

void nm_evac_reset(void)
{
    for (uint32_t k = 0; k < sources_hi; k++)
        if (sources[k]) {
            free(sources[k]->fwd);
            free(sources[k]);
            sources[k] = NULL;
        }
    n_sources = sources_hi = n_fwd_sources = 0;
    done_source_words = 0;
    __atomic_store_n(&nm_forwarding, false, __ATOMIC_RELEASE);
}

uint32_t nm_evac_sources(void)
{
    return n_sources;
}

StgWord nm_evac_source_words(void)
{
    return done_source_words;
}

uint64_t nm_evac_copied(void)
{
    return evac_copied;
}

/* Objects whose copy the program cannot tell from them. */
static bool evac_movable(const StgInfoTable *info)
{
    return info->type == CONSTR || info->type == FUN || info->type == PAP;
}

StgClosure *nm_forwardee_source(const StgClosure *q, const bdescr *bd)
{
    const NmSegment *s = segment_of_bd(bd);
    uint16_t e = __atomic_load_n(&s->evac, __ATOMIC_ACQUIRE);
    if (e == 0)
        return NULL;
    NmSource *src = __atomic_load_n(&sources[e - 1], __ATOMIC_ACQUIRE);
    StgClosure **fwd = __atomic_load_n(&src->fwd, __ATOMIC_ACQUIRE);
    if (!fwd)
        return NULL;
    return __atomic_load_n(&fwd[slot_index(s, q)], __ATOMIC_ACQUIRE);
}

StgClosure *nm_forward(StgClosure *p)
{
    StgWord tag = GET_TAG(p);
    StgClosure *q = UNTAG(p);
    bool moved = false;
    while (q && HEAP_ALLOCED(q)) {
        const bdescr *bd = Bdescr(q);
        if (!(gc_block_flags(bd) & BF_NONMOVING))
            break;
        StgClosure *to = nm_forwardee(q, bd);
        if (!to)
            break;
        q = to;
        moved = true;
    }
    return moved ? TAG_CLOSURE(tag, q) : p;
}

/* NM_SEG_SOURCE in every block of s (nonmoving.h), set or cleared. */
static void set_source_bits(NmSegment *s, bool on)
{
    bdescr *bd = Bdescr(s);
    for (uint32_t i = 0; i < NM_SEGMENT_BLOCKS; i++) {
        if (on)
            __atomic_fetch_or(&bd[i].nm_segment, NM_SEG_SOURCE, __ATOMIC_RELEASE);
        else
            __atomic_fetch_and(&bd[i].nm_segment, ~NM_SEG_SOURCE, __ATOMIC_RELEASE);
    }
}

/* Make s (swept, on no list) a source; false if every index is taken. */
static bool make_source(NmSegment *s)
{
    if (n_sources == NM_MAX_SOURCES)
        return false;
    uint32_t k = 0;
    while (sources[k])
        k++;
    NmSource *src = hooks_calloc(1, sizeof *src, "nm evacuation source");
    src->seg = s;
    src->live_words = (StgWord)s->live * s->slot_words; /* sweep_lock held: the census is whole */
    __atomic_store_n(&sources[k], src, __ATOMIC_RELEASE);
    if (k >= sources_hi)
        sources_hi = k + 1;
    n_sources++;
    __atomic_store_n(&s->evac, (uint16_t)(k + 1), __ATOMIC_RELEASE);
    set_source_bits(s, true);
    return true;
}

/* s stops being a source (a pause; nothing live points to a copied slot of it). */
void nm_evac_drop_source(NmSegment *s)
{
    if (!s->evac)
        return;
    uint32_t k = s->evac - 1u;
    NmSource *src = sources[k];
    set_source_bits(s, false);
    __atomic_store_n(&s->evac, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&sources[k], NULL, __ATOMIC_RELEASE);
    while (sources_hi > 0 && !sources[sources_hi - 1])
        sources_hi--;
    n_sources--;
    if (src->done)
        done_source_words -= src->live_words;
    if (src->n_fwd > 0 && --n_fwd_sources == 0)
        __atomic_store_n(&nm_forwarding, false, __ATOMIC_RELEASE);
    free(src->fwd);
    free(src);
}

/* A swept source: every slot it copied is dead (an old copy nobody reached). */
static bool source_drained(const NmSource *src)
{
    const NmSegment *s = src->seg;
    if (!src->done)
        return false;
    for (uint32_t i = 0; src->fwd && i < s->n_slots; i++)
        if (src->fwd[i] && slot_in_use(mark_byte(s, i)))
            return false;
    return true;
}

/* Live slots of s that copying would empty. */
static uint32_t movable_slots(const NmSegment *s)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->n_slots; i++)
        if (slot_in_use(mark_byte(s, i)) &&
            evac_movable(__atomic_load_n(&((StgClosure *)slot_addr(s, i))->info, __ATOMIC_ACQUIRE)))
            n++;
    return n;
}

static int by_live(const void *a, const void *b)
{
    uint32_t x = (*(NmSegment *const *)a)->live, y = (*(NmSegment *const *)b)->live;
    return x < y ? -1 : x > y;
}

/* Choose class c's sources (sweep_lock held): see Note [Evacuating sparse segments]. */
static void choose_sources(uint32_t c, double target)
{
    NmAlloc *a = &nm_allocs[c];
    StgWord live = a->census.live_slots, slots = a->census.slots;
    for (NmSegment *s = a->sources; s; s = s->link) {
        /* What sources hold moves into the other segments; what they copied is counted there. */
        const NmSource *src = sources[s->evac - 1];
        for (uint32_t i = 0; src->fwd && i < s->n_slots; i++)
            if (src->fwd[i] && slot_in_use(mark_byte(s, i)))
                live--;
        slots -= s->n_slots;
    }
    /* See Note [Only the holes promotion leaves]. */
    StgWord holes = slots > live ? slots - live : 0;
    StgWord promoted = (StgWord)(a->promoted_slots - a->promoted_at_choice);
    StgWord unused = a->holes_at_choice > promoted ? a->holes_at_choice - promoted : 0;
    /* The holes promotion filled before: it will fill them again. */
    StgWord kept_holes = holes > unused ? holes - unused : 0;
    a->promoted_at_choice = a->promoted_slots;
    a->holes_at_choice = holes;
    if (slots == 0 || unused == 0 || (double)live >= target * (double)slots)
        return;
    StgWord n = 0;
    for (NmSegment *s = a->active; s; s = s->link)
        n++;
    if (n < 2)
        return;
    NmSegment **cand = hooks_malloc(n * sizeof *cand, "nm evacuation candidates");
    n = 0;
    for (NmSegment *s = a->active; s; s = s->link)
        if ((double)s->live < target * (double)s->n_slots)
            cand[n++] = s;
    qsort(cand, n, sizeof *cand, by_live);
    bool chosen = false;
    for (StgWord k = 0; k < n && (double)live < target * (double)slots && slots > live + kept_holes;
         k++) {
        NmSegment *s = cand[k];
        if (slots - s->n_slots < live)
            break; /* the others could not take its objects */
        uint32_t movable = movable_slots(s);
        if (movable < s->live && s->live - movable > s->live / 4)
            continue; /* it would stay sparse */
        if (!make_source(s))
            break;
        chosen = true;
        slots -= s->n_slots;
    }
    free(cand);
    if (!chosen)
        return;
    a->holes_at_choice = slots - live; /* the holes promotion can take: not the sources' */
    /* The chosen leave the active list for the sources list. */
    NmSegment *keep = NULL, **tail = &keep;
    for (NmSegment *s = a->active, *next; s; s = next) {
        next = s->link;
        if (s->evac) {
            s->link = a->sources;
            a->sources = s;
        } else {
            *tail = s;
            tail = &s->link;
        }
    }
    *tail = NULL;
    a->active = keep;
}

/*
 * After a sweep (a pause: the first after the sweep ended, perhaps a start
 * pause, whose new epoch has not marked anything yet: live is slot_in_use):
 * retire the sources whose copied slots all died, then choose the next ones.
 */
void nm_evac_after_sweep(void)
{
    double target = rts_flags.gc.nonmoving_evac_occupancy;
    uint32_t kept = 0, retired = 0, before = n_sources;
    pthread_mutex_lock(&nm_sweep_lock);
    for (uint32_t c = 0; c < nm_class_count; c++) {
        NmAlloc *a = &nm_allocs[c];
        NmSegment *list = a->sources;
        a->sources = NULL;
        for (NmSegment *s = list, *next; s; s = next) {
            next = s->link;
            if (!source_drained(sources[s->evac - 1])) {
                s->link = a->sources;
                a->sources = s;
                kept++;
                continue;
            }
            retired++;
            nm_evac_drop_source(s);
            if (s->live == s->n_slots) {
                s->next_free = s->n_slots;
                s->link = a->filled;
                a->filled = s;
            } else {
                s->link = a->active;
                a->active = s;
            }
        }
        if (target > 0)
            choose_sources(c, target);
    }
    pthread_mutex_unlock(&nm_sweep_lock);
    DEBUG_TRACE(nonmoving_gc,
                "nonmoving: %u evacuation sources (%u before, %u kept, %u retired; %llu objects "
                "copied so far)",
                n_sources, before, kept, retired, (unsigned long long)evac_copied);
    (void)before; /* without DEBUG_TRACE */
    (void)kept;
    (void)retired;
}

/* Copy slot i of source src (a live immutable object) into a slot of its class; its size. */
static StgWord copy_slot(gc_thread *gct, NmSource *src, uint32_t i)
{
    NmSegment *s = src->seg;
    StgClosure *q = (StgClosure *)slot_addr(s, i);
    const StgInfoTable *info = __atomic_load_n(&q->info, __ATOMIC_ACQUIRE);
    StgWord size = layout_of(q, info).size;
    if (size == 0 || size > s->slot_words)
        evac_bad_object(q, "nonmoving evacuation");
    StgPtr to = gc_alloc_for_copy(gct, size, oldest_gen->no);
    ASSERT(segment_of((StgClosure *)to) != s && !segment_of((StgClosure *)to)->evac);
    /* The mark thread may be redirecting the old copy's fields (either value will do). */
    to[0] = (StgWord)info;
    for (StgWord w = 1; w < size; w++)
        to[w] = __atomic_load_n(&((StgWord *)q)[w], __ATOMIC_RELAXED);
    if (!src->fwd) {
        StgClosure **fwd = hooks_calloc(s->n_slots, sizeof *fwd, "nm forwarding table");
        __atomic_store_n(&src->fwd, fwd, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&src->fwd[i], (StgClosure *)to, __ATOMIC_RELEASE);
    if (src->n_fwd++ == 0 && n_fwd_sources++ == 0)
        __atomic_store_n(&nm_forwarding, true, __ATOMIC_RELEASE);
    evac_copied++;
    return size;
}

void nm_evac_copy(gc_thread *gct)
{
    StgWord budget = EVAC_BUDGET_W;
    for (uint32_t k = 0; k < sources_hi && budget > 0; k++) {
        NmSource *src = sources[k];
        if (!src || src->done)
            continue;
        NmSegment *s = src->seg;
        if (src->cursor == s->n_slots) {
            /* The last pass waited for the mark: again (a pause later). */
            src->cursor = src->waiting = 0;
        }
        uint32_t i = src->cursor;
        for (; i < s->n_slots && budget > 0; i++) {
            uint8_t b = mark_byte(s, i);
            if ((src->fwd && src->fwd[i]) || !slot_in_use(b))
                continue;
            const StgInfoTable *info =
                __atomic_load_n(&((StgClosure *)slot_addr(s, i))->info, __ATOMIC_ACQUIRE);
            if (!evac_movable(info))
                continue;
            if (b != nm_epoch) {
                /* Not marked yet by the running cycle: see Note [Evacuating sparse segments]. */
                src->waiting++;
                continue;
            }
            StgWord size = copy_slot(gct, src, i);
            budget = size < budget ? budget - size : 0;
        }
        src->cursor = i;
        if (i == s->n_slots && src->waiting == 0) {
            src->done = true;
            done_source_words += src->live_words;
        }
    }
}

/* -DS: a live old copy's copies live (Note [Evacuating sparse segments]); its index is its own. */
void nm_evac_check_source(const NmSegment *s)
{
    if (!s->evac)
        return;
    const NmSource *src = sources[s->evac - 1];
    if (!src || src->seg != s)
        msg_barf("nonmoving: segment %p names source %u, not its own", (const void *)s, s->evac);
    for (uint32_t i = 0; src->fwd && i < s->n_slots; i++) {
        StgClosure *to = src->fwd[i];
        if (!to || mark_byte(s, i) != nm_epoch)
            continue;
        if (!nm_is_live_slot(to))
            msg_barf("nonmoving: slot %u of source %p lives, its copy %p does not", i,
                     (const void *)s, (void *)to);
        const StgClosure *from = (const StgClosure *)slot_addr(s, i);
        if (to->info != from->info)
            msg_barf("nonmoving: slot %u of source %p and its copy %p differ", i, (const void *)s,
                     (void *)to);
    }
}

StgClosure *nm_forward_slot(const StgClosure *q, const bdescr *bd)
{
    StgClosure *to = nm_forwardee(q, bd);
    return to ? UNTAG(nm_forward(to)) : NULL;
}
