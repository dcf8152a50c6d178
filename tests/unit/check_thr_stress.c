/*
 * The threaded stress suite: several mutator threads at once on -N
 * capabilities (more mutators than capabilities too), each running its own
 * mock mutator (tests/support/mutator.c, its own graph and checksums) and
 * all of them sharing some objects through stable pointers:
 *
 *  - a counter in a MUT_VAR, incremented by compare-and-swap (the total
 *    must be every thread's successful CASes);
 *  - an array whose elements every thread overwrites (barriered writes
 *    from several capabilities; -DS checks the remembered sets);
 *  - thunks every thread evaluates at once, whose entries give the
 *    capability up in the middle (blackholing by CAS, waiting on another
 *    thread's blackhole): each must be entered exactly once and give
 *    every thread the same value.
 *
 * Collections come from every thread's allocation and from explicit
 * performGC / performMajorGC, each checked by its thread (checksum of its
 * own graph before == after). With -DS in the debug ways the sanity
 * checker runs around every collection. HSRTS_STRESS_ITERS scales the
 * rounds; HSRTS_TEST_SEED replays (the interleaving is not replayed).
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mutator.h"
#include "sm/gc.h"
#include "sm/gc_par.h"
#include "sm/nonmoving.h"
#include "test_util.h"

static const struct {
    const char *opts;
    int threads;
} configs[] = {
    {"-N2", 2},
    {"-N2 -A8k", 2},
    {"-N4", 4},
    {"-N2 -G3 -A64k", 3}, /* more mutators than capabilities: they take turns */
    {"-N2 -n8k -A64k", 2},
    /* The parallel collector, every collection parallel (the work rule off). */
    {"-N2 -qg0 --parallel-gc-threshold=0", 2},
    {"-N2 -qg0 -qb --parallel-gc-threshold=0 -A8k", 2}, /* no load balancing */
    {"-N4 -qn4 --parallel-gc-threshold=0 -A64k", 4},    /* more GC threads than cores */
    {"-N4 -qn4 -qb --parallel-gc-threshold=0 -G3 -A8k", 3},
    {"-N2 -qg0", 2}, /* the default rule decides */
    /* The concurrent nonmoving mark (Note [The concurrent mark]): mutators write while it runs. */
    {"-N2 -xn", 2},
    {"-N2 -xn -A8k", 3},
    {"-N4 -xn -G3 -A16k", 4},
};
#define N_CONFIGS ((int)(sizeof configs / sizeof configs[0]))

static int iterations(void)
{
    const char *s = getenv("HSRTS_STRESS_ITERS");
    return s ? atoi(s) : 300;
}

static const StgInfoTable int_info = HS_CONSTR_INFO(0, 0, 1, "test:Int");

static StgClosure *mk_int(Capability *cap, StgWord v)
{
    StgClosure *c = (StgClosure *)rts_alloc(cap, 2);
    c->info = &int_info;
    ((StgWord *)c->payload)[0] = v;
    return TAG_CLOSURE(1, c);
}

static StgWord int_of(StgClosure *c)
{
    return ((StgWord *)UNTAG(c)->payload)[0];
}

/* --- the shared objects --------------------------------------------------------------- */

enum { N_SHARED_THUNKS = 32, SHARED_ARRAY = 300 };

static HsStablePtr counter_sp, array_sp, thunks_sp;
static int thunk_entries[N_SHARED_THUNKS];

/* slow k = Int (k * 1000 + 7), after giving the capability up a while. */
static StgClosure *slow_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)fv;
    StgWord k = ((StgWord *)((StgThunk *)self)->payload)[0];
    __atomic_fetch_add(&thunk_entries[k], 1, __ATOMIC_RELAXED);
    for (int i = 0; i < 3; i++) {
        void *t = rts_suspend(cap);
        sched_yield();
        rts_resume(t);
        (void)mk_int(cap, i); /* allocate: collections may fall here */
    }
    return mk_int(cap, k * 1000 + 7);
}
static const StgInfoTable slow_info = HS_THUNK_INFO(slow_entry, 0, 1, "test:slow");

static void make_shared(Capability *cap)
{
    StgClosure **r = rts_push_roots(cap, 3);
    r[0] = (StgClosure *)rts_new_mut_var(cap, mk_int(cap, 0));
    r[1] = (StgClosure *)rts_new_array(cap, SHARED_ARRAY, NULL);
    r[2] = (StgClosure *)rts_new_small_array(cap, N_SHARED_THUNKS, NULL);
    for (StgWord k = 0; k < N_SHARED_THUNKS; k++) {
        StgThunk *t = (StgThunk *)rts_alloc(cap, 3);
        t->info = &slow_info;
        t->slot = 0;
        ((StgWord *)t->payload)[0] = k;
        rts_write_small_array(cap, (StgSmallMutArrPtrs *)r[2], k, (StgClosure *)t);
        thunk_entries[k] = 0;
    }
    counter_sp = getStablePtr((StgPtr)r[0]);
    array_sp = getStablePtr((StgPtr)r[1]);
    thunks_sp = getStablePtr((StgPtr)r[2]);
    rts_pop_roots(cap, r);
}

/* Increment the shared counter by CAS; true once it took. */
static void cas_increment(Capability *cap)
{
    for (;;) {
        StgMutVar *mv = (StgMutVar *)deRefStablePtr(counter_sp);
        StgClosure *old = rts_read_mut_var(mv);
        StgClosure **r = rts_push_roots(cap, 1);
        r[0] = old;
        StgClosure *neu = mk_int(cap, int_of(r[0]) + 1);
        old = r[0];
        rts_pop_roots(cap, r);
        mv = (StgMutVar *)deRefStablePtr(counter_sp); /* it may have moved */
        StgClosure *res;
        if (rts_cas_mut_var(cap, mv, old, neu, &res) == 0)
            return;
    }
}

/* --- one mutator thread ----------------------------------------------------------------- */

typedef struct {
    const char *name;
    uint64_t seed;
    int iters;
    uint64_t increments;
    uint64_t rounds_checked;
    const char *failure; /* set on a failed check (Check's asserts end the thread's process) */
} Worker;

static void *worker_main(void *arg)
{
    Worker *w = arg;
    Capability *cap = rts_lock();
    Mutator m;
    mutator_init(&m, cap, w->seed);
    for (int it = 0; it < w->iters; it++) {
        mutator_step(&m, 10 + (int)rng_below(&m.rng, 60));

        /* Shared work. */
        cas_increment(cap);
        w->increments++;
        StgWord i = rng_below(&m.rng, SHARED_ARRAY);
        StgClosure *v = mk_int(cap, (StgWord)it);
        rts_write_array(cap, (StgMutArrPtrs *)deRefStablePtr(array_sp), i, v);
        StgWord k = rng_below(&m.rng, N_SHARED_THUNKS);
        StgSmallMutArrPtrs *ts = (StgSmallMutArrPtrs *)deRefStablePtr(thunks_sp);
        StgClosure *got = rts_eval(cap, ts->payload[k]);
        if (int_of(got) != k * 1000 + 7) {
            w->failure = "a shared thunk gave the wrong value";
            break;
        }

        /* Explicit collections, checked against this thread's own graph. */
        if (it % 4 == 3) {
            uint64_t before = mutator_checksum(&m);
            if (it % 16 == 15)
                performMajorGC();
            else
                performGC();
            if (mutator_checksum(&m) != before) {
                w->failure = "a collection changed this thread's graph";
                break;
            }
            w->rounds_checked++;
        }
        mutator_check_fixed(&m);
        if (it % 8 == 0)
            rts_yield(cap); /* give threads without a capability a turn */
    }
    mutator_clear(&m);
    mutator_done(&m);
    rts_unlock(cap);
    hs_thread_done();
    return NULL;
}

START_TEST(threaded_stress)
{
    const char *opts = configs[_i].opts;
    int nthreads = configs[_i].threads;
    const char *only = getenv("HSRTS_STRESS_ONLY");
    if (only && strcmp(only, opts) != 0)
        return;
    char name[128];
    snprintf(name, sizeof name, "stress_thr[%s x%d]", opts, nthreads);
    uint64_t seed = test_seed(name);
    test_start_rts("check_thr_stress", opts, 1);
    Capability *cap = rts_lock();
    make_shared(cap);
    rts_unlock(cap);

    uint64_t gcs_at_start = gc_count;
    uint64_t par_at_start = gc_par_thread(0)->par_collections;
    Worker w[8];
    pthread_t th[8];
    for (int t = 0; t < nthreads; t++) {
        w[t] = (Worker){.name = name, .seed = seed + (uint64_t)t * 7919, .iters = iterations()};
        ck_assert_int_eq(pthread_create(&th[t], NULL, worker_main, &w[t]), 0);
    }
    uint64_t increments = 0;
    for (int t = 0; t < nthreads; t++) {
        pthread_join(th[t], NULL);
        ck_assert_msg(w[t].failure == NULL, "%s: thread %d: %s", name, t, w[t].failure);
        increments += w[t].increments;
    }

    cap = rts_lock();
    StgMutVar *mv = (StgMutVar *)deRefStablePtr(counter_sp);
    ck_assert_uint_eq(int_of(rts_read_mut_var(mv)), increments);
    StgSmallMutArrPtrs *ts = (StgSmallMutArrPtrs *)deRefStablePtr(thunks_sp);
    for (int k = 0; k < N_SHARED_THUNKS; k++) {
        ck_assert_msg(thunk_entries[k] <= 1, "%s: shared thunk %d entered %d times", name, k,
                      thunk_entries[k]);
        if (thunk_entries[k] == 1)
            ck_assert_uint_eq(int_of(rts_eval(cap, ts->payload[k])), (StgWord)k * 1000 + 7);
    }
    StgMutArrPtrs *a = (StgMutArrPtrs *)deRefStablePtr(array_sp);
    for (StgWord i = 0; i < SHARED_ARRAY; i++)
        if (a->payload[i])
            ck_assert_ptr_eq(UNTAG(a->payload[i])->info, &int_info);
    uint64_t collections = gc_count - gcs_at_start;
    fprintf(stderr, "%s: %llu collections, %llu CAS increments\n", name,
            (unsigned long long)collections, (unsigned long long)increments);
    ck_assert_uint_ge(collections, (uint64_t)iterations() / 4);
    /*
     * With the work rule off, a load-balanced collection (the major ones,
     * from -qb's default generation 1) is parallel whoever is idle; without
     * balancing (-qb) it depends on how many mutators were running.
     */
    uint64_t par = gc_par_thread(0)->par_collections - par_at_start;
    fprintf(stderr, "%s: %llu parallel collections\n", name, (unsigned long long)par);
    if (strstr(opts, "-xn"))
        fprintf(stderr, "%s: %llu concurrent nonmoving cycles\n", name,
                (unsigned long long)nm_cycles());
    if (strstr(opts, "--parallel-gc-threshold=0") && !strstr(opts, "-qb "))
        ck_assert_uint_gt(par, 0);
    hs_free_stable_ptr(counter_sp);
    hs_free_stable_ptr(array_sp);
    hs_free_stable_ptr(thunks_sp);
    rts_unlock(cap);
    hs_exit();
    ck_assert_uint_eq(mutator_weaks_finalized(), mutator_weaks_made());
}
END_TEST

int main(void)
{
    Suite *s = suite_create("thr_stress");
    TCase *tc = tcase_create("configs");
    tcase_set_timeout(tc, 900);
    tcase_add_loop_test(tc, threaded_stress, 0, N_CONFIGS);
    suite_add_tcase(s, tc);
    return test_run(s);
}
