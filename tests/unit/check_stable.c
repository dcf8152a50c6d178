/*
 * Weak pointers (finalizers exactly once, after the key dies and not
 * before, all pending ones at hs_exit, values kept while keys live), stable
 * pointers and stable names (surviving thousands of moving collections,
 * freed entries reused, dead entries reclaimed).
 */
#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "stable.h"
#include "test_util.h"

static const StgInfoTable box_info = HS_CONSTR_INFO(0, 1, 1, "test:Box");

/* A box: one pointer field, one word. */
static StgClosure *mk_box(Capability *cap, StgClosure *p, StgWord w)
{
    StgClosure **r = rts_push_roots(cap, 1);
    r[0] = p;
    StgClosure *c = (StgClosure *)rts_alloc(cap, 3);
    c->info = &box_info;
    c->payload[0] = r[0];
    ((StgWord *)c->payload)[1] = w;
    rts_pop_roots(cap, r);
    return c;
}

static StgWord word_of(StgClosure *c)
{
    return ((StgWord *)UNTAG(c)->payload)[1];
}

/* The value of a live weak pointer, or NULL once it is dead (these tests never store NULL values).
 */
static StgClosure *weak_value(Capability *cap, StgClosure *w)
{
    StgClosure *v;
    return rts_deref_weak(cap, (StgWeak *)w, &v) ? v : NULL;
}

static void start(void)
{
    test_start_rts("check_stable", "-A16k", 1);
}

/* Garbage to make minor collections happen and move things. */
static void churn(Capability *cap, int n)
{
    for (int i = 0; i < n; i++)
        mk_box(cap, NULL, (StgWord)i);
}

/* --- weak pointers -------------------------------------------------------------- */

static int fin_count[8];
static void count_fin(void *env)
{
    fin_count[(intptr_t)env]++;
}

START_TEST(finalizer_runs_once_after_key_dies)
{
    start();
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 2); /* key, weak */
    r[0] = mk_box(cap, NULL, 1);
    StgClosure *value = mk_box(cap, NULL, 77);
    r[1] = (StgClosure *)rts_mk_weak(cap, r[0], value, count_fin, (void *)0);
    for (int i = 0; i < 20; i++) {
        churn(cap, 500);
        if (i % 5 == 0)
            performMajorGC();
        ck_assert_int_eq(fin_count[0], 0);
        StgClosure *v = weak_value(cap, r[1]);
        ck_assert_ptr_nonnull(v);
        ck_assert_uint_eq(word_of(v), 77); /* the value lives only through the weak */
    }
    r[0] = NULL; /* the key dies */
    performMajorGC();
    ck_assert_int_eq(fin_count[0], 1);
    ck_assert_ptr_null(weak_value(cap, r[1]));
    performMajorGC();
    churn(cap, 2000);
    ck_assert_int_eq(fin_count[0], 1);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
    ck_assert_int_eq(fin_count[0], 1);
}
END_TEST

START_TEST(finalizer_runs_even_if_weak_is_unreachable)
{
    start();
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 1);
    r[0] = mk_box(cap, NULL, 1);
    rts_mk_weak(cap, r[0], NULL, count_fin, (void *)1); /* the weak object is dropped */
    churn(cap, 3000);
    performMajorGC();
    ck_assert_int_eq(fin_count[1], 0);
    r[0] = NULL;
    performGC();
    performMajorGC();
    ck_assert_int_eq(fin_count[1], 1);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
    ck_assert_int_eq(fin_count[1], 1);
}
END_TEST

START_TEST(finalize_weak_runs_it_now_and_only_once)
{
    start();
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 2);
    r[0] = mk_box(cap, NULL, 1);
    r[1] = (StgClosure *)rts_mk_weak(cap, r[0], r[0], count_fin, (void *)2);
    rts_finalize_weak(cap, (StgWeak *)r[1]);
    ck_assert_int_eq(fin_count[2], 1);
    ck_assert_ptr_null(weak_value(cap, r[1]));
    r[0] = NULL;
    performMajorGC();
    rts_finalize_weak(cap, (StgWeak *)r[1]);
    ck_assert_int_eq(fin_count[2], 1);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
    ck_assert_int_eq(fin_count[2], 1);
}
END_TEST

START_TEST(pending_finalizers_run_at_exit)
{
    start();
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 1);
    r[0] = mk_box(cap, NULL, 1);
    for (int i = 0; i < 3; i++)
        rts_mk_weak(cap, r[0], NULL, count_fin, (void *)3);
    performMajorGC();
    ck_assert_int_eq(fin_count[3], 0);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
    ck_assert_int_eq(fin_count[3], 3);
}
END_TEST

START_TEST(key_held_by_stable_pointer_does_not_finalize)
{
    start();
    Capability *cap = rts_lock();
    StgClosure *key = mk_box(cap, NULL, 5);
    HsStablePtr sp = getStablePtr((StgPtr)key);
    key = (StgClosure *)deRefStablePtr(sp);
    rts_mk_weak(cap, key, NULL, count_fin, (void *)4);
    for (int i = 0; i < 10; i++) {
        churn(cap, 1000);
        performMajorGC();
    }
    ck_assert_int_eq(fin_count[4], 0);
    ck_assert_uint_eq(word_of((StgClosure *)deRefStablePtr(sp)), 5);
    hs_free_stable_ptr(sp);
    performMajorGC();
    ck_assert_int_eq(fin_count[4], 1);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/*
 * w1 = weak k1 -> k2, w2 = weak k2 -> v2, with k2 reachable only as w1's
 * value: while k1 lives, w1 keeps k2 alive, so w2 lives too. When k1 dies,
 * both die in the same collection.
 */
START_TEST(weak_values_keep_other_keys_alive)
{
    start();
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 3); /* k1, w1, w2 */
    r[0] = mk_box(cap, NULL, 1);
    StgClosure *k2 = mk_box(cap, NULL, 2);
    r[1] = (StgClosure *)rts_mk_weak(cap, r[0], k2, count_fin, (void *)5);
    r[2] = mk_box(cap, NULL, 3); /* v2; k2 is read after this allocation */
    k2 = weak_value(cap, r[1]);
    r[2] = (StgClosure *)rts_mk_weak(cap, k2, r[2], count_fin, (void *)6);
    for (int i = 0; i < 5; i++) {
        churn(cap, 1000);
        performMajorGC();
    }
    ck_assert_int_eq(fin_count[5] + fin_count[6], 0);
    ck_assert_uint_eq(word_of(weak_value(cap, r[2])), 3);
    ck_assert_ptr_eq(UNTAG(weak_value(cap, r[1])), UNTAG(((StgWeak *)r[2])->key));
    r[0] = NULL;
    performMajorGC();
    ck_assert_int_eq(fin_count[5], 1);
    ck_assert_int_eq(fin_count[6], 1);
    ck_assert_ptr_null(weak_value(cap, r[2]));
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/* --- stable pointers --------------------------------------------------------------- */

START_TEST(stable_pointers_survive_moves_and_are_reused)
{
    start();
    Capability *cap = rts_lock();
    enum { N = 1000 };
    static HsStablePtr sp[N];
    for (int i = 0; i < N; i++)
        sp[i] = getStablePtr((StgPtr)mk_box(cap, NULL, (StgWord)i));
    ck_assert_uint_eq(stable_ptr_count(), N);
    for (int gc = 0; gc < 2000; gc++) {
        churn(cap, 50);
        if (gc % 100 == 0)
            performMajorGC();
        else
            performGC();
        if (gc % 250 == 0)
            for (int i = 0; i < N; i++)
                ck_assert_uint_eq(word_of((StgClosure *)deRefStablePtr(sp[i])), (StgWord)i);
    }
    for (int i = 0; i < N; i++)
        ck_assert_uint_eq(word_of((StgClosure *)deRefStablePtr(sp[i])), (StgWord)i);
    /* Freed entries come back. */
    for (int i = 0; i < N; i += 2)
        hs_free_stable_ptr(sp[i]);
    ck_assert_uint_eq(stable_ptr_count(), N / 2);
    for (int i = 0; i < N; i += 2) {
        HsStablePtr again = getStablePtr((StgPtr)mk_box(cap, NULL, 12345));
        ck_assert((StgWord)again <= N); /* no growth: an old slot */
    }
    ck_assert_uint_eq(stable_ptr_count(), N);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

START_TEST(bad_stable_pointer_is_refused)
{
    start();
    HsStablePtr sp = getStablePtr(NULL);
    hs_free_stable_ptr(sp);
    deRefStablePtr(sp); /* the program's mistake: exits 1 with a one-line error */
}
END_TEST

/*
 * hs_free_stable_ptr needs no capability (as in GHC): threads without one
 * free stable pointers in a loop while this thread allocates and collects
 * (-A8k, and performGC; under -DS the sanity checker walks and counts the
 * table after each collection). Every walk of the table must hold its
 * lock, or a free lands in the middle of one and the count disagrees.
 */
enum { BATCH = 100000, FREERS = 2, ROUNDS = 16 };
/* Mostly outside the heap, so a long table costs the checker little else. */
static const StgInfoTable unit_info = HS_CONSTR_INFO(1, 0, 0, "test:Unit");
static StgClosure unit_closure = {.info = &unit_info};
static HsStablePtr batch[BATCH];
static int round_ready; /* the round whose batch may be freed; ROUNDS: stop */
static int next_to_free, freed;

static void *free_without_a_capability(void *arg)
{
    (void)arg;
    for (int round = 0; round < ROUNDS; round++) {
        while (__atomic_load_n(&round_ready, __ATOMIC_ACQUIRE) <= round)
            sched_yield();
        int i;
        while ((i = __atomic_fetch_add(&next_to_free, 1, __ATOMIC_ACQ_REL)) < BATCH) {
            hs_free_stable_ptr(batch[i]);
            __atomic_fetch_add(&freed, 1, __ATOMIC_ACQ_REL);
        }
    }
    return NULL;
}

START_TEST(free_stable_ptrs_without_a_capability_while_collecting)
{
    test_start_rts("check_stable", "-A8k", 1);
    Capability *cap = rts_lock();
    pthread_t freers[FREERS];
    for (int i = 0; i < FREERS; i++)
        pthread_create(&freers[i], NULL, free_without_a_capability, NULL);
    unsigned overlapping = 0;
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < BATCH; i++)
            batch[i] = getStablePtr((StgPtr)(i % 64 ? &unit_closure : mk_box(cap, NULL, 1)));
        ck_assert_uint_eq(stable_ptr_count(), BATCH);
        __atomic_store_n(&freed, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&next_to_free, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&round_ready, round + 1, __ATOMIC_RELEASE);
        while (__atomic_load_n(&freed, __ATOMIC_ACQUIRE) < BATCH) {
            churn(cap, 100); /* a collection every few rounds of this loop (-A8k) */
            performGC();
            overlapping++;
        }
        ck_assert_uint_eq(stable_ptr_count(), 0);
    }
    for (int i = 0; i < FREERS; i++)
        pthread_join(freers[i], NULL);
    performMajorGC(); /* the checker counts the table once more */
    ck_assert_uint_gt(overlapping, 0);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/* --- stable names -------------------------------------------------------------------- */

START_TEST(stable_names_follow_objects)
{
    start();
    Capability *cap = rts_lock();
    enum { N = 300 };
    StgClosure **objs = rts_push_roots(cap, N);
    StgClosure **names = rts_push_roots(cap, N);
    for (int i = 0; i < N; i++)
        objs[i] = mk_box(cap, NULL, (StgWord)i);
    for (int i = 0; i < N; i++)
        names[i] = (StgClosure *)rts_make_stable_name(cap, objs[i]);
    for (int gc = 0; gc < 1000; gc++) {
        churn(cap, 40);
        if (gc % 50 == 0)
            performMajorGC();
        else
            performGC();
        if (gc % 200 == 0) {
            for (int i = 0; i < N; i++) {
                StgStableName *again = rts_make_stable_name(cap, objs[i]);
                ck_assert_ptr_eq(again, UNTAG(names[i]));
            }
        }
    }
    /* Different objects, different names. */
    for (int i = 1; i < N; i++)
        ck_assert_uint_ne(rts_stable_name_to_int((StgStableName *)names[i]),
                          rts_stable_name_to_int((StgStableName *)names[0]));
    /* Dead objects and dead names give their entries back. */
    StgWord before = stable_name_count();
    ck_assert_uint_ge(before, N);
    for (int i = 0; i < N; i++)
        objs[i] = names[i] = NULL;
    performMajorGC();
    ck_assert_uint_eq(stable_name_count(), before - N);
    rts_pop_roots(cap, names);
    rts_pop_roots(cap, objs);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("stable");
    TCase *tc = tcase_create("stable");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, finalizer_runs_once_after_key_dies);
    tcase_add_test(tc, finalizer_runs_even_if_weak_is_unreachable);
    tcase_add_test(tc, finalize_weak_runs_it_now_and_only_once);
    tcase_add_test(tc, pending_finalizers_run_at_exit);
    tcase_add_test(tc, key_held_by_stable_pointer_does_not_finalize);
    tcase_add_test(tc, weak_values_keep_other_keys_alive);
    tcase_add_test(tc, stable_pointers_survive_moves_and_are_reused);
    tcase_add_exit_test(tc, bad_stable_pointer_is_refused, 1);
    tcase_add_test(tc, free_stable_ptrs_without_a_capability_while_collecting);
    tcase_add_test(tc, stable_names_follow_objects);
    suite_add_tcase(s, tc);
    return test_run(s);
}
