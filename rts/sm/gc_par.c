/*
 * Parallel collection. See gc_par.h.
 *
 * Note [Who collects]
 * ~~~~~~~~~~~~~~~~~~~
 * The thread that stopped the world (the leader) always collects, as
 * gc_thread 0. The others are GC worker threads of the runtime's own, one
 * per further GC slot, started the first time a collection wants them and
 * then asleep on a condition variable between collections (woken by a new
 * epoch). They are not the mutator threads: those are parked at
 * safepoints, or are C threads that may be blocked in foreign calls with
 * their capability given up, and a runtime embedded in a C program cannot
 * borrow them. GC thread i records remembered-set entries on capability i
 * (a parked capability's sets belong to the collector while the world is
 * stopped), so no two threads share a set.
 *
 * Which capabilities take part (GHC 9.2's rule, adapted): every capability
 * that was in use when the world stopped brings a GC thread. A free or
 * suspended capability (idle) brings one to a collection that balances
 * work (-qb), where the thread can steal; to one that does not, only with
 * -qi<n> and if it was in use at one of the last n collections (it will
 * likely be busy again, and it takes a share of the remembered sets).
 * -qn<n> bounds the count (default: the CPUs the process may run on, as
 * more threads than cores only wait for each other), and so does -N.
 *
 * Note [Parallel only when it pays]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Waking threads, sharing queues and forwarding by CAS cost something;
 * on a small collection (a nursery of mostly dead objects) they cost more
 * than the copying they share. GHC's default goes parallel regardless, and
 * its users turn it off by hand (-qg). Our default decides per collection:
 * the estimate of a collection of generations 0..N is the number of words
 * the last collection of N copied (survival is stable from one collection
 * to the next), or before there was one the live words in generations
 * 0..N; the collection is parallel when the estimate reaches
 * --parallel-gc-threshold (default 2m bytes, a few milliseconds of copying
 * for one thread). --parallel-gc-threshold=0 turns the rule off: every
 * collection -qg allows is parallel. -qg and -qg<n> apply first. Unless
 * -qb is given, a collection the rule makes parallel is also
 * load-balanced: it is big enough to share, and balancing is what lets an
 * idle capability's GC thread help (GHC's derived default, -qb1 below
 * -A32m, leaves every minor collection of a program with one busy
 * capability on one thread; measured in bench/README.md).
 *
 * Parallel collection is for generations that copy: a collection that
 * includes a generation of another policy (mark-region, compacting: their
 * mark is single-threaded) runs on one thread, and so does every
 * collection while some generation takes survivors into room of its own
 * (a policy's todo_full: mark-region's holes are one allocator, and
 * eager promotion can send survivors to any older generation). With -c,
 * minor collections are parallel and the compacting major ones are not;
 * with -w, none is.
 *
 * Note [Work stealing and termination]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Each thread scavenges what it copied. Full to-space blocks with
 * unscanned objects wait on its workspaces' todo_q, reached large objects
 * on todo_large; with balancing, an idle thread steals one of them from
 * another thread (large objects first, then the oldest generation's
 * blocks: their objects tend to be long-lived structure with much behind
 * them), under the owner's todo_lock. The block a thread is filling and
 * the block it is scanning are its own.
 *
 * Termination: `running` counts the threads that may still make work. A
 * thread leaves it only when its own queues are empty (only their owner
 * pushes onto them, so they stay empty), and rejoins it before it takes
 * anything from another thread. When a thread sees running == 0, every
 * thread is idle with empty queues, and nothing can make more: the scan
 * is complete. Without balancing a thread is done as soon as its own
 * queues are empty. Static closures to scan are one shared list (statics.c)
 * that counts as every thread's own: a thread drains it before it goes
 * idle.
 */
#include "sm/gc_par.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "capability.h"
#include "flags/flags.h"
#include "hooks.h"
#include "messages.h"
#include "os/os_time.h"
#include "sm/block_alloc.h"
#include "sm/gc.h"
#include "sm/mblock.h"
#include "sm/policy.h"
#include "sm/scav.h"
#include "sm/statics.h"
#include "sm/storage.h"
#include "trace/trace.h"

static gc_thread **threads; /* [n_slots] */
static uint32_t n_slots;

/* Workers: see Note [Who collects]. Guarded by par_lock. */
static pthread_mutex_t par_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t par_wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t par_done = PTHREAD_COND_INITIALIZER;
static pthread_t *worker_ids; /* [n_slots]; slot 0 unused */
static uint32_t n_workers;    /* started: slots 1..n_workers */
static uint64_t epoch;        /* collections handed to the workers */
static bool shutting_down;
static uint32_t n_finished; /* workers done with this epoch's collection */
static uint64_t workers_started;

/* The collection being run (written by the leader before the epoch moves). */
static GcParPlan cur_plan;
static void (*cur_body)(gc_thread *gct);
static uint32_t running; /* Note [Work stealing and termination] */

/* Per generation: words copied by the last collection of 0..g (the work rule). */
static uint64_t last_copied[GC_MAX_GENERATIONS];
static bool last_copied_known[GC_MAX_GENERATIONS];
/*
 * Per capability: the collection at which it was last in use (-qi), and its
 * acquisitions then (a capability taken and given back between two
 * collections was in use in that interval).
 */
static uint64_t *cap_last_in_use, *cap_last_acq;
static uint32_t cap_room;

static uint64_t idle_spins_total, idle_yields_total;

#define SPARE_BATCH 16

void gc_spin_lock_slow(GcSpinLock *l)
{
    uint64_t spins = 0, yields = 0;
    for (;;) {
        for (int i = 0; i < 200; i++) {
            spins++;
            if (!__atomic_load_n(&l->locked, __ATOMIC_RELAXED) &&
                !__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
                goto got;
            __builtin_ia32_pause();
        }
        yields++;
        sched_yield();
    }
got:
    l->spins += spins; /* held now: the counters are ours */
    l->yields += yields;
}

static gc_thread *new_thread(uint32_t i)
{
    gc_thread *gct = hooks_calloc(1, sizeof *gct, "GC thread");
    gct->index = i;
    for (uint32_t g = 0; g < n_generations; g++)
        gct->ws[g].gen = &generations[g];
    return gct;
}

static void ensure_slots(uint32_t n)
{
    if (n <= n_slots)
        return;
    threads = hooks_realloc(threads, n * sizeof *threads, "GC threads");
    worker_ids = hooks_realloc(worker_ids, n * sizeof *worker_ids, "GC threads");
    for (uint32_t i = n_slots; i < n; i++)
        threads[i] = new_thread(i);
    n_slots = n;
}

void gc_par_add_capabilities(uint32_t to)
{
    ensure_slots(to);
    if (to > cap_room) {
        cap_last_in_use =
            hooks_realloc(cap_last_in_use, to * sizeof *cap_last_in_use, "GC capability activity");
        cap_last_acq =
            hooks_realloc(cap_last_acq, to * sizeof *cap_last_acq, "GC capability activity");
        for (uint32_t c = cap_room; c < to; c++) {
            cap_last_in_use[c] = gc_count;
            cap_last_acq[c] = 0;
        }
        cap_room = to;
    }
}

void gc_par_init(void)
{
    n_slots = 0;
    threads = NULL;
    worker_ids = NULL;
    n_workers = 0;
    epoch = 0;
    shutting_down = false;
    cap_room = 0;
    cap_last_in_use = cap_last_acq = NULL;
    memset(last_copied_known, 0, sizeof last_copied_known);
    gc_par_add_capabilities(n_capabilities > 0 ? n_capabilities : 1);
}

void gc_par_exit(void)
{
    pthread_mutex_lock(&par_lock);
    shutting_down = true;
    epoch++;
    pthread_cond_broadcast(&par_wake);
    pthread_mutex_unlock(&par_lock);
    for (uint32_t i = 1; i <= n_workers; i++)
        pthread_join(worker_ids[i], NULL);
    n_workers = 0;
    for (uint32_t i = 0; i < n_slots; i++)
        free(threads[i]);
    free(threads);
    free(worker_ids);
    free(cap_last_in_use);
    free(cap_last_acq);
    threads = NULL;
    worker_ids = NULL;
    cap_last_in_use = cap_last_acq = NULL;
    n_slots = cap_room = 0;
}

gc_thread *gc_par_thread(uint32_t i)
{
    return threads[i];
}
uint32_t gc_par_n_slots(void)
{
    return n_slots;
}
uint64_t gc_par_workers_started(void)
{
    return workers_started;
}
uint64_t gc_par_spin_count(void)
{
    return idle_spins_total;
}
uint64_t gc_par_yield_count(void)
{
    return idle_yields_total;
}

void gc_par_record(uint32_t N, uint64_t copied_words)
{
    last_copied[N] = copied_words;
    last_copied_known[N] = true;
}

/* --- the plan ----------------------------------------------------------------------------- */

#ifdef THREADED_RTS
static uint32_t online_cpus(void)
{
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) > 0)
        return (uint32_t)CPU_COUNT(&allowed);
    return 1;
}
#endif

GcParPlan gc_par_plan(uint32_t N)
{
    GcParPlan plan = {1, false, 0};
    /* Which capabilities are in use now (-qi remembers it). */
    uint32_t active = 0, free_caps = 0, recently_free = 0;
    for (uint32_t c = 0; c < n_capabilities && c < cap_room; c++) {
        const Capability *cap = capabilities[c];
        if (cap->in_use || cap->acquisitions != cap_last_acq[c])
            cap_last_in_use[c] = gc_count;
        cap_last_acq[c] = cap->acquisitions;
        if (cap->in_use) {
            active++;
        } else if (c < enabled_capabilities) {
            free_caps++;
            if (rts_flags.par.idle_skip > 0 &&
                gc_count - cap_last_in_use[c] < rts_flags.par.idle_skip)
                recently_free++;
        }
    }
#ifdef THREADED_RTS
    const ParFlags *pf = &rts_flags.par;
    if (!pf->parallel_gc || N < pf->parallel_gc_gen || enabled_capabilities < 2)
        return plan;
    for (uint32_t g = 0; g < n_generations; g++)
        if ((g <= N && generations[g].policy != &gen_policy_copying) ||
            generations[g].policy->todo_full)
            return plan;
    uint32_t n = pf->gc_threads ? pf->gc_threads : online_cpus();
    if (n > enabled_capabilities)
        n = enabled_capabilities;
    /*
     * -qb given: as GHC. Not given: a collection big enough to be parallel
     * is big enough to share out, so the work rule decides balancing too
     * (GHC's derived default, -qb1 under -A32m, would leave the minor
     * collections of a program with one busy capability on one thread).
     */
    bool balance = pf->load_balance_set ? pf->load_balance && N >= pf->load_balance_gen : true;
    uint32_t joining = active + (balance ? free_caps : recently_free);
    if (joining < 1)
        joining = 1;
    if (n > joining)
        n = joining;
    if (n < 2)
        return plan;
    /* The work rule. */
    uint64_t est;
    if (last_copied_known[N]) {
        est = last_copied[N];
    } else {
        est = 0;
        for (uint32_t g = 0; g <= N; g++)
            est += generations[g].n_words + generations[g].n_large_words;
    }
    plan.estimate_words = est;
    uint64_t threshold = pf->parallel_gc_threshold_bytes;
    if (threshold > 0 && est * sizeof(StgWord) < threshold)
        return plan;
    plan.n_threads = n;
    plan.balance = balance;
#else
    (void)N;
    (void)active;
    (void)free_caps;
    (void)recently_free;
#endif
    return plan;
}

/* --- to-space blocks ---------------------------------------------------------------------- */

bdescr *gc_par_take_block(gc_thread *gct)
{
    if (gct->n_spare_blocks == 0) {
        sm_lock();
        for (int i = 0; i < SPARE_BATCH; i++) {
            bdescr *bd = bd_alloc_group_on_node(gct->cap->node, 1);
            bd->link = gct->spare_blocks;
            gct->spare_blocks = bd;
        }
        sm_unlock();
        gct->n_spare_blocks = SPARE_BATCH;
        gct->alloc_block_batches++;
    }
    bdescr *bd = gct->spare_blocks;
    gct->spare_blocks = bd->link;
    gct->n_spare_blocks--;
    return bd;
}

/* --- running a collection ----------------------------------------------------------------- */

static void run_thread(gc_thread *gct)
{
    int64_t start = os_time_monotonic_ns();
    trace_gc_work(gct->cap);
    cur_body(gct);
    gct->busy_ns = os_time_monotonic_ns() - start;
    gc_par_scavenge(gct);
    trace_gc_done(gct->cap);
}

static void *worker_main(void *arg)
{
    uint32_t i = (uint32_t)(uintptr_t)arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&par_lock);
    for (;;) {
        while (epoch == seen)
            pthread_cond_wait(&par_wake, &par_lock);
        seen = epoch;
        if (shutting_down)
            break;
        bool mine = i < cur_plan.n_threads;
        pthread_mutex_unlock(&par_lock);
        if (mine)
            run_thread(threads[i]);
        pthread_mutex_lock(&par_lock);
        if (mine) {
            n_finished++;
            pthread_cond_signal(&par_done);
        }
    }
    pthread_mutex_unlock(&par_lock);
    return NULL;
}

static void start_workers(uint32_t upto)
{
    while (n_workers + 1 < upto) {
        uint32_t i = n_workers + 1;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 1u << 20);
        int rc = pthread_create(&worker_ids[i], &attr, worker_main, (void *)(uintptr_t)i);
        pthread_attr_destroy(&attr);
        if (rc != 0)
            msg_fatal(EXIT_INTERNAL_ERROR, "parallel GC: cannot start a GC thread (error %d)", rc);
        n_workers++;
        workers_started++;
    }
}

void gc_par_run(const GcParPlan *plan, void (*body)(gc_thread *gct))
{
    uint32_t n = plan->n_threads;
    /* cur_plan and cur_body change under par_lock only: a worker that sat out
     * the last collection may still be reading them. */
    if (n <= 1) {
        threads[0]->parallel = false;
        body(threads[0]);
        gc_par_scavenge(threads[0]);
        return;
    }
    ensure_slots(n);
    for (uint32_t i = 0; i < n; i++) {
        gc_thread *gct = threads[i];
        gct->parallel = true;
        gct->n_todo = 0;
        gct->par_collections++;
    }
    __atomic_store_n(&running, n, __ATOMIC_RELAXED);
    pthread_mutex_lock(&par_lock);
    start_workers(n);
    cur_plan = *plan;
    cur_body = body;
    n_finished = 0;
    epoch++;
    pthread_cond_broadcast(&par_wake);
    pthread_mutex_unlock(&par_lock);

    run_thread(threads[0]);

    pthread_mutex_lock(&par_lock);
    while (n_finished < n - 1)
        pthread_cond_wait(&par_done, &par_lock);
    pthread_mutex_unlock(&par_lock);
    for (uint32_t i = 0; i < n; i++)
        threads[i]->parallel = false;
}

/* --- stealing ----------------------------------------------------------------------------- */

static bool any_work_elsewhere(const gc_thread *gct, uint32_t n)
{
    if (statics_work_pending())
        return true;
    for (uint32_t i = 0; i < n; i++)
        if (threads[i] != gct && __atomic_load_n(&threads[i]->n_todo, __ATOMIC_RELAXED) > 0)
            return true;
    return false;
}

/* Take one piece of work from another thread and scavenge it. */
static bool steal_and_scavenge(gc_thread *gct, uint32_t n)
{
    if (statics_scavenge(gct))
        return true;
    for (uint32_t k = 1; k < n; k++) {
        gc_thread *victim = threads[(gct->index + k) % n];
        if (__atomic_load_n(&victim->n_todo, __ATOMIC_RELAXED) == 0)
            continue;
        bdescr *bd = NULL;
        bool large = false;
        gc_spin_lock(&victim->todo_lock);
        for (uint32_t g = n_generations; g-- > 0 && !bd;) {
            gen_workspace *ws = &victim->ws[g];
            if ((bd = ws->todo_large) != NULL) {
                ws->todo_large = bd->link;
                large = true;
            } else if ((bd = ws->todo_q) != NULL) {
                ws->todo_q = bd->link;
            }
        }
        if (bd)
            __atomic_store_n(&victim->n_todo, victim->n_todo - 1, __ATOMIC_RELAXED);
        gc_spin_unlock(&victim->todo_lock);
        if (!bd)
            continue;
        gct->steals++;
        if (large)
            scav_stolen_large(gct, bd);
        else
            scav_stolen_block(gct, bd);
        return true;
    }
    return false;
}

void gc_par_scavenge(gc_thread *gct)
{
    int64_t t0 = os_time_monotonic_ns();
    scav_loop(gct);
    if (!gct->parallel || !cur_plan.balance) {
        gct->busy_ns += os_time_monotonic_ns() - t0;
        return;
    }
    uint32_t n = cur_plan.n_threads;
    for (;;) {
        gct->busy_ns += os_time_monotonic_ns() - t0;
        /* Idle: our queues are empty (Note [Work stealing and termination]). */
        __atomic_fetch_sub(&running, 1, __ATOMIC_ACQ_REL);
        trace_gc_idle(gct->cap);
        uint64_t spins = 0;
        for (;;) {
            if (any_work_elsewhere(gct, n)) {
                __atomic_fetch_add(&running, 1, __ATOMIC_ACQ_REL);
                t0 = os_time_monotonic_ns();
                if (steal_and_scavenge(gct, n))
                    break;
                gct->busy_ns += os_time_monotonic_ns() - t0;
                __atomic_fetch_sub(&running, 1, __ATOMIC_ACQ_REL);
            }
            if (__atomic_load_n(&running, __ATOMIC_ACQUIRE) == 0)
                return;
            if (++spins % 64 == 0) {
                gct->idle_yields++;
                sched_yield();
            } else {
                gct->idle_spins++;
                __builtin_ia32_pause();
            }
        }
        trace_gc_work(gct->cap);
        scav_loop(gct);
    }
}

/* --- after the collection ----------------------------------------------------------------- */

static void append(bdescr **to, bdescr *list)
{
    if (!list)
        return;
    bdescr *last = list;
    while (last->link)
        last = last->link;
    last->link = *to;
    *to = list;
}

void gc_par_fold(uint32_t n)
{
    gc_thread *leader = threads[0];
    for (uint32_t i = 0; i < n_slots; i++) {
        gc_thread *gct = threads[i];
        if (gct->spare_blocks) {
            bd_free_chain_lock(gct->spare_blocks);
            gct->spare_blocks = NULL;
            gct->n_spare_blocks = 0;
        }
        if (i >= n)
            continue;
        /* What this thread copied (the work balance): its to-space blocks. */
        uint64_t words = 0;
        for (uint32_t g = 0; g < n_generations; g++) {
            const gen_workspace *ws = &gct->ws[g];
            for (const bdescr *bd = ws->scavd_list; bd; bd = bd->link)
                words += bd_words(bd);
            if (ws->todo_bd)
                words += (StgWord)(ws->todo_free - ws->todo_bd->start);
        }
        gct->copied_this_gc = words;
        gct->total_copied_words += words;
        gct->total_busy_ns += gct->busy_ns;
        if (i == 0)
            continue;
        for (uint32_t g = 0; g < n_generations; g++) {
            gen_workspace *ws = &gct->ws[g], *to = &leader->ws[g];
            copying_retire_todo_bd(ws);
            if (ws->todo_q || ws->todo_large)
                msg_barf("parallel GC: GC thread %u finished with work left", i);
            append(&to->scavd_list, ws->scavd_list);
            append(&to->large_done, ws->large_done);
            ws->scavd_list = ws->large_done = NULL;
        }
    }
    idle_spins_total = idle_yields_total = 0;
    for (uint32_t i = 0; i < n_slots; i++) {
        idle_spins_total += threads[i]->idle_spins;
        idle_yields_total += threads[i]->idle_yields;
    }
}

/* --- --internal-counters ------------------------------------------------------------------ */

static void row_lock(FILE *f, const char *name, uint64_t spins, uint64_t yields)
{
    fprintf(f, "%*s%*s%*llu%*llu\n", 4, "", -30, name, 14, (unsigned long long)spins, 14,
            (unsigned long long)yields);
}
static void row_value(FILE *f, const char *name, uint64_t v)
{
    fprintf(f, "%*s%*s%*llu\n", 4, "", -30, name, 14, (unsigned long long)v);
}

void gc_par_print_counters(FILE *f)
{
    uint64_t todo_spins = 0, todo_yields = 0, idle_spins = 0, idle_yields = 0;
    uint64_t any_work = 0, find_work = 0, steals = 0, races = 0, batches = 0;
    for (uint32_t i = 0; i < n_slots; i++) {
        const gc_thread *t = threads[i];
        todo_spins += t->todo_lock.spins;
        todo_yields += t->todo_lock.yields;
        idle_spins += t->idle_spins;
        idle_yields += t->idle_yields;
        any_work += t->any_work;
        find_work += t->scav_find_work;
        steals += t->steals;
        races += t->copy_races;
        batches += t->alloc_block_batches;
    }
    fprintf(f, "Internal Counters:\n");
    fprintf(f, "%*s%*s%*s%*s\n", 4, "", -30, "SpinLock", 14, "Spins", 14, "Yields");
    row_lock(f, "gc_todo_lists", todo_spins, todo_yields);
    row_lock(f, "gc_static_marks", statics_lock_spins(), statics_lock_yields());
    row_lock(f, "gc_large_objects", evac_large_lock_spins(), evac_large_lock_yields());
    row_lock(f, "gc_idle_looking_for_work", idle_spins, idle_yields);
    row_value(f, "gc_alloc_block_batches", batches);
    row_value(f, "gc_workers_started", workers_started);
    row_value(f, "any_work", any_work);
    row_value(f, "scav_find_work", find_work);
    row_value(f, "steals", steals);
    row_value(f, "copy_races", races);
    /* Note [Prefaulted megablocks]: populated off the pauses, and how many the heap then took. */
    MBlockPrefaultStats pf = mblock_prefault_stats();
    row_value(f, "mblocks_prefaulted", pf.claimed);
    row_value(f, "mblocks_prefaulted_taken", pf.taken);
    fprintf(f, "%*s%*s%*s%*s%*s\n", 4, "", -30, "GC thread", 14, "Par colls", 14, "Busy (s)", 14,
            "Copied bytes");
    for (uint32_t i = 0; i < n_slots; i++) {
        const gc_thread *t = threads[i];
        char name[32];
        snprintf(name, sizeof name, "gc_thread %u%s", i, i == 0 ? " (leader)" : "");
        fprintf(f, "%*s%*s%*llu%*.3f%*llu\n", 4, "", -30, name, 14,
                (unsigned long long)t->par_collections, 14, t->total_busy_ns / 1e9, 14,
                (unsigned long long)(t->total_copied_words * sizeof(StgWord)));
    }
}
