/*
 * Several OS threads taking turns on the runtime: each one's first
 * rts_lock makes its runtime thread (a TSO and a first stack chunk) and can
 * collect while doing so; the collector and the sanity checker must never
 * see a thread that is half made. -A8k makes a collection likely at every
 * step (and each thread ends its turn with a large object, so the next
 * thread's first stack chunk passes -AL); -DS (debug way) checks the thread
 * table around every collection.
 */
#include <check.h>
#include <pthread.h>

#include "capability.h"
#include "sm/gc.h"
#include "test_util.h"

static const StgInfoTable cons_info = HS_CONSTR_INFO(1, 2, 0, "test:Cons");

enum { THREADS = 6, ROUNDS = 40, CELLS = 2000 };

/* Lock, build a list (collecting), check its length, unlock, forget the thread. */
static void *worker(void *arg)
{
    (void)arg;
    for (int round = 0; round < ROUNDS; round++) {
        Capability *cap = rts_lock();
        StgClosure **r = rts_push_roots(cap, 1);
        r[0] = NULL;
        for (int i = 0; i < CELLS; i++) {
            StgClosure *c = (StgClosure *)rts_alloc(cap, 3);
            c->info = &cons_info;
            c->payload[0] = NULL;
            c->payload[1] = r[0];
            r[0] = TAG_CLOSURE(2, c);
        }
        int n = 0;
        for (StgClosure *p = r[0]; p; p = UNTAG(p)->payload[1])
            n++;
        rts_pop_roots(cap, r);
        /* Use up -AL, so that the next thread's first stack chunk collects. */
        (void)rts_new_byte_array(cap, 2 * 4096);
        rts_unlock(cap);
        /* A fresh runtime thread next round: its making is what is being tested. */
        hs_thread_done();
        if (n != CELLS)
            return (void *)1;
    }
    return NULL;
}

START_TEST(new_threads_are_whole_when_a_collection_sees_them)
{
    test_start_rts("check_threads", "-A8k", 1);
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, worker, NULL), 0);
    for (int i = 0; i < THREADS; i++) {
        void *res;
        pthread_join(th[i], &res);
        ck_assert_ptr_null(res);
    }
    hs_exit();
}
END_TEST

/* --- a safe foreign call: rts_suspend / rts_resume ------------------------------------- */

static const StgInfoTable int_info = HS_CONSTR_INFO(0, 0, 1, "test:Int");

static void *collector_thread(void *arg)
{
    (void)arg;
    Capability *cap = rts_lock();
    for (int i = 0; i < 20000; i++) {
        StgClosure *c = (StgClosure *)rts_alloc(cap, 2);
        c->info = &int_info;
        ((StgWord *)c->payload)[0] = (StgWord)i;
    }
    performMajorGC();
    rts_unlock(cap);
    hs_thread_done();
    return NULL;
}

START_TEST(suspended_thread_keeps_its_roots_while_others_collect)
{
    test_start_rts("check_threads", "-A8k", 1);
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 1);
    StgClosure *c = (StgClosure *)rts_alloc(cap, 2);
    c->info = &int_info;
    ((StgWord *)c->payload)[0] = 4242;
    r[0] = TAG_CLOSURE(1, c);
    StgClosure *before = r[0];
    uint64_t gcs_before = gc_count;

    void *token = rts_suspend(cap);
    /* A blocking call: meanwhile another thread takes the capability and collects. */
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, collector_thread, NULL), 0);
    pthread_join(th, NULL);
    Capability *again = rts_resume(token);

    ck_assert_ptr_eq(again, cap); /* the capability rule */
    ck_assert_uint_gt(gc_count, gcs_before);
    ck_assert_ptr_ne(r[0], before); /* it moved, and the frame was updated */
    ck_assert_uint_eq(((StgWord *)UNTAG(r[0])->payload)[0], 4242);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/* --- rts_yield and HS_SAFEPOINT ---------------------------------------------------------- */

static volatile int waiter_ran;

static void *waiter_thread(void *arg)
{
    (void)arg;
    Capability *cap = rts_lock(); /* waits: the main thread holds the capability */
    waiter_ran = 1;
    rts_unlock(cap);
    hs_thread_done();
    return NULL;
}

START_TEST(yield_gives_a_waiting_thread_a_turn)
{
    test_start_rts("check_threads", "", 1);
    Capability *cap = rts_lock();
    HS_SAFEPOINT(cap); /* nothing wanted: no call, nothing happens */
    rts_yield(cap);    /* no one waiting: returns at once */
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, waiter_thread, NULL), 0);
    /* A loop that never allocates: its safepoint lets the waiter run. */
    while (!waiter_ran)
        rts_yield(cap);
    ck_assert_ptr_eq(cap_mine(), cap);
    pthread_join(th, NULL);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("threads");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, new_threads_are_whole_when_a_collection_sees_them);
    tcase_add_test(tc, suspended_thread_keeps_its_roots_while_others_collect);
    tcase_add_test(tc, yield_gives_a_waiting_thread_a_turn);
    suite_add_tcase(s, tc);
    return test_run(s);
}
