/*
 * Static closures and CAFs. See Note [CAFs and SRTs] in statics.h.
 */
#include "sm/statics.h"

#include <pthread.h>
#include <stdlib.h>

#include "hooks.h"
#include "messages.h"
#include "sm/evac.h"
#include "sm/ptrset.h"
#include "sm/storage.h"
#include "startup.h"
#include "trace/debug_trace.h"

static StgCAF **cafs;
static uint32_t n_cafs, cafs_cap;
static bool keep;
static bool marking; /* a major collection is tracing static closures */
/*
 * A concurrent nonmoving cycle runs (Note [CAFs under the concurrent mark]):
 * every pause from its start to its final one marks, into one set, and
 * only the CAFs registered before its start may be reverted at its end.
 */
static bool cycle;
static uint32_t cycle_cafs; /* revert candidates: cafs[0 .. cycle_cafs) (atomic reads) */
#ifdef DEBUG
static PtrSet reverted_now; /* reverted by the collection in progress (nm_verify asks) */
#endif
static PtrSet marked;
static const StgClosure **work;
static StgWord n_work, work_cap;
/*
 * In a parallel collection every GC thread marks: the set and the work
 * list are shared, under marked_lock. Each thread remembers the last
 * closure it marked (gct->last_static): most static pointers a heap holds
 * are a few nullary constructors, over and over, and this skips the lock
 * and the set for them.
 */
static GcSpinLock marked_lock;

static void lock_marks(gc_thread *gct)
{
#ifdef THREADED_RTS
    if (gct->parallel)
        gc_spin_lock(&marked_lock);
#else
    (void)gct;
#endif
}
static void unlock_marks(gc_thread *gct)
{
#ifdef THREADED_RTS
    if (gct->parallel)
        gc_spin_unlock(&marked_lock);
#else
    (void)gct;
#endif
}

void statics_init(bool keep_cafs)
{
    keep = keep || keep_cafs; /* setKeepCAFs may come before hs_init */
    marking = false;
}

void statics_exit(void)
{
    free(cafs);
    cafs = NULL;
    n_cafs = cafs_cap = 0;
    ptrset_free(&marked);
#ifdef DEBUG
    ptrset_free(&reverted_now);
#endif
    cycle = false;
    cycle_cafs = 0;
    free(work);
    work = NULL;
    n_work = work_cap = 0;
}

/* May come before hs_init. See Note [Calls outside hs_init .. hs_exit] in startup.h. */
void setKeepCAFs(void)
{
    if (startup_shut_down())
        startup_not_running("setKeepCAFs");
    keep = true;
}

/* Guards cafs/n_cafs/cafs_cap against threads entering CAFs at once (the collector runs alone). */
static pthread_mutex_t caf_lock = PTHREAD_MUTEX_INITIALIZER;

void statics_new_caf(StgCAF *caf)
{
    pthread_mutex_lock(&caf_lock);
    if (n_cafs == cafs_cap) {
        cafs_cap = cafs_cap ? cafs_cap * 2 : 64;
        cafs = hooks_realloc(cafs, cafs_cap * sizeof(StgCAF *), "CAF table");
    }
    caf->saved_info = caf->info;
    cafs[n_cafs++] = caf;
    pthread_mutex_unlock(&caf_lock);
    DEBUG_TRACE(gccafs, "gccafs: CAF %p (%s) entered", (void *)caf,
                caf->saved_info->name ? caf->saved_info->name : "unnamed");
}

static void revert(StgCAF *caf)
{
    caf->info = caf->saved_info;
    caf->slot = 0;
    caf->indirectee = NULL;
}

void revertCAFs(void)
{
    startup_require_running("revertCAFs");
    DEBUG_TRACE(gccafs, "gccafs: revertCAFs: %u CAFs reverted", n_cafs);
    for (uint32_t i = 0; i < n_cafs; i++)
        revert(cafs[i]);
    n_cafs = 0;
}

static void revert_unmarked(uint32_t candidates, bool (*also_marked)(const StgClosure *q))
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n_cafs; i++) {
        if (i >= candidates || ptrset_has(&marked, cafs[i]) ||
            (also_marked && also_marked((const StgClosure *)cafs[i]))) {
            cafs[kept++] = cafs[i];
        } else {
            DEBUG_TRACE(gccafs, "gccafs: CAF %p (%s) is unreachable: reverted", (void *)cafs[i],
                        cafs[i]->saved_info->name ? cafs[i]->saved_info->name : "unnamed");
#ifdef DEBUG
            ptrset_add(&reverted_now, cafs[i]);
#endif
            revert(cafs[i]);
        }
    }
    if (n_cafs > 0)
        DEBUG_TRACE(gccafs, "gccafs: %u CAFs kept, %u reverted", kept, n_cafs - kept);
    n_cafs = kept;
}

void statics_gc_start(gc_thread *gct, bool major)
{
#ifdef DEBUG
    ptrset_clear(&reverted_now);
#endif
    gct->last_static = NULL;
    if (cycle) {
        /* Every pause of the cycle marks into the cycle's set, if it may revert a CAF. */
        marking = cycle_cafs != 0;
        gct->mark_statics = marking;
        return;
    }
    marking = major && !keep;
    gct->mark_statics = marking;
    ptrset_clear(&marked);
    n_work = 0;
}

void statics_cycle_start(void)
{
    cycle = true;
    ptrset_clear(&marked);
    n_work = 0;
    __atomic_store_n(&cycle_cafs, keep ? 0 : n_cafs, __ATOMIC_RELAXED);
}

bool statics_cycle_wanted(void)
{
    return __atomic_load_n(&cycle_cafs, __ATOMIC_RELAXED) != 0;
}

void statics_cycle_end(bool (*also_marked)(const StgClosure *q))
{
    if (!cycle)
        return;
    if (!keep)
        revert_unmarked(cycle_cafs, also_marked);
    cycle = false;
    __atomic_store_n(&cycle_cafs, 0, __ATOMIC_RELAXED);
    ptrset_clear(&marked);
    n_work = 0;
}

#ifdef DEBUG
bool statics_reverted_now(const StgClosure *q)
{
    return ptrset_has(&reverted_now, q);
}
#endif

void statics_gc_thread_start(gc_thread *gct)
{
    gct->mark_statics = marking;
    gct->last_static = NULL;
}

bool statics_work_pending(void)
{
    return __atomic_load_n(&n_work, __ATOMIC_RELAXED) != 0;
}

uint64_t statics_lock_spins(void)
{
    return marked_lock.spins;
}
uint64_t statics_lock_yields(void)
{
    return marked_lock.yields;
}

void statics_visit_caf_roots(void (*f)(void *ctx, StgClosure **slot), void *ctx)
{
    if (marking && !cycle)
        return; /* a major GC keeps only the CAFs it reaches */
    for (uint32_t i = 0; i < n_cafs; i++)
        if (cafs[i]->info->type == IND_STATIC)
            f(ctx, &cafs[i]->indirectee);
}

void statics_mark(gc_thread *gct, const StgClosure *q)
{
    q = UNTAG(q);
    if (q == gct->last_static || !marking || q == NULL)
        return;
    gct->last_static = q;
    lock_marks(gct);
    if (ptrset_add(&marked, q)) {
        if (n_work == work_cap) {
            work_cap = work_cap ? work_cap * 2 : 256;
            work = hooks_realloc(work, work_cap * sizeof *work, "static closures to scan");
        }
        work[n_work] = q;
        __atomic_store_n(&n_work, n_work + 1, __ATOMIC_RELAXED);
    }
    unlock_marks(gct);
}

/* The next static closure to scan, or NULL. */
static const StgClosure *pop_work(gc_thread *gct)
{
    if (__atomic_load_n(&n_work, __ATOMIC_RELAXED) == 0)
        return NULL;
    const StgClosure *q = NULL;
    lock_marks(gct);
    if (n_work > 0) {
        q = work[n_work - 1];
        __atomic_store_n(&n_work, n_work - 1, __ATOMIC_RELAXED);
    }
    unlock_marks(gct);
    return q;
}

void statics_mark_srt(gc_thread *gct, const StgClosure *const *srt)
{
    for (; srt && *srt; srt++)
        statics_mark(gct, *srt);
}

void statics_refs(const StgClosure *q, const StgInfoTable *info,
                  void (*f)(void *ctx, const StgClosure *s), void *ctx)
{
    switch (info->type) {
    case THUNK_STATIC:
    case FUN_STATIC:
        for (const StgClosure *const *srt = info->srt; srt && *srt; srt++)
            f(ctx, *srt);
        break;
    case CONSTR_STATIC:
    case CONSTR:
        /* A static constructor: its fields are static closures too. */
        for (uint32_t i = 0; i < info->ptrs; i++)
            if (q->payload[i] && !HEAP_ALLOCED(q->payload[i]))
                f(ctx, q->payload[i]);
        break;
    default:
        break; /* IND_STATIC: its value is traced by the collector; a CAF being entered */
    }
}

static void mark_ref(void *ctx, const StgClosure *s)
{
    statics_mark(ctx, s);
}

bool statics_scavenge(gc_thread *gct)
{
    const StgClosure *q = pop_work(gct);
    if (q == NULL)
        return false;
    uint32_t saved = gct->evac_gen_no;
    for (; q; q = pop_work(gct)) {
        const StgInfoTable *info = q->info;
        switch (info->type) {
        case IND_STATIC:
            /* The value of a CAF that is still needed lives in the oldest generation. */
            gct->evac_gen_no = oldest_gen->no;
            evacuate(gct, &((StgCAF *)q)->indirectee);
            break;
        default:
            statics_refs(q, info, mark_ref, gct);
            break;
        }
    }
    gct->evac_gen_no = saved;
    return true;
}

void statics_gc_end(gc_thread *gct)
{
    if (marking && !cycle)
        revert_unmarked(n_cafs, NULL);
    marking = false;
    gct->mark_statics = false;
}

uint32_t statics_caf_count(void)
{
    return n_cafs;
}
StgCAF *statics_caf(uint32_t i)
{
    return i < n_cafs ? cafs[i] : NULL;
}
