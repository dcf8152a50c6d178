/*
 * The threaded way: -N capabilities on OS threads. Each test starts its
 * own runtime (Check forks per test); -DS in the debug way.
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capability.h"
#include "flags/flags.h"
#include "sm/block.h"
#include "sm/gc.h"
#include "sm/storage.h"
#include "test_util.h"
#include "timer.h"

static const StgInfoTable int_info = HS_CONSTR_INFO(0, 0, 1, "test:Int");
static const StgInfoTable cons_info = HS_CONSTR_INFO(1, 2, 0, "test:Cons");

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

/* A list of n cells; its length. */
static StgWord build_and_count(Capability *cap, StgWord n)
{
    StgClosure **r = rts_push_roots(cap, 2); /* the list; the next head */
    r[0] = NULL;
    for (StgWord i = 0; i < n; i++) {
        r[1] = mk_int(cap, i);
        StgClosure *c = (StgClosure *)rts_alloc(cap, 3);
        c->info = &cons_info;
        c->payload[0] = r[1];
        c->payload[1] = r[0];
        r[0] = TAG_CLOSURE(2, c);
    }
    StgWord len = 0;
    for (StgClosure *p = r[0]; p; p = UNTAG(p)->payload[1])
        len++;
    rts_pop_roots(cap, r);
    return len;
}

/* --- capabilities on OS threads -------------------------------------------------------- */

static Capability *held[4];
static int arrived;

static void *hold_one(void *arg)
{
    int i = (int)(intptr_t)arg;
    Capability *cap = rts_lock();
    held[i] = cap;
    ck_assert_uint_eq(build_and_count(cap, 20000), 20000);
    /* All four hold one at once; waiting at a safepoint, so collections can go on. */
    __atomic_fetch_add(&arrived, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&arrived, __ATOMIC_SEQ_CST) < 4)
        HS_SAFEPOINT(cap);
    ck_assert_ptr_eq(cap_mine(), held[i]);
    rts_unlock(cap);
    hs_thread_done();
    return NULL;
}

START_TEST(n_threads_hold_n_capabilities_at_once)
{
    test_start_rts("check_thr_runtime", "-N4 -A16k", 1);
    ck_assert_uint_eq(getNumCapabilities(), 4);
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, hold_one, (void *)(intptr_t)i);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++)
            ck_assert_ptr_ne(held[i], held[j]);
    hs_exit();
}
END_TEST

/* --- rts_lock serves waiters in order --------------------------------------------------- */

static int late_got_it; /* atomic */

static void *late_locker(void *arg)
{
    (void)arg;
    Capability *cap = rts_lock();
    __atomic_store_n(&late_got_it, 1, __ATOMIC_SEQ_CST);
    rts_unlock(cap);
    hs_thread_done();
    return NULL;
}

START_TEST(rts_lock_waiter_is_not_starved)
{
    /*
     * One capability. This thread holds it while another starts waiting in
     * rts_lock; then it unlocks and locks again at once. Note [rts_lock is
     * first come, first served]: the waiter has the capability in between,
     * so the very first re-lock returns after it (without the queue this
     * thread would usually win the race for the lock it just dropped).
     */
    test_start_rts("check_thr_runtime", "-N1", 1);
    for (int round = 0; round < 20; round++) {
        __atomic_store_n(&late_got_it, 0, __ATOMIC_SEQ_CST);
        Capability *cap = rts_lock();
        pthread_t th;
        ck_assert_int_eq(pthread_create(&th, NULL, late_locker, NULL), 0);
        while (cap_n_waiting_any() == 0)
            usleep(100);
        int relocks = 0;
        while (!__atomic_load_n(&late_got_it, __ATOMIC_SEQ_CST) && relocks < 1000) {
            rts_unlock(cap);
            cap = rts_lock();
            relocks++;
        }
        rts_unlock(cap);
        pthread_join(th, NULL);
        if (relocks != 1)
            ck_abort_msg("round %d: the waiter had the capability after %d re-locks, want 1", round,
                         relocks);
    }
    hs_exit();
}
END_TEST

/* --- a thread that never allocates, but polls ----------------------------------------- */

static int stop_polling, polling; /* atomics */

static void *poller(void *arg)
{
    (void)arg;
    Capability *cap = rts_lock();
    __atomic_store_n(&polling, 1, __ATOMIC_SEQ_CST);
    unsigned long spins = 0;
    while (!__atomic_load_n(&stop_polling, __ATOMIC_SEQ_CST)) {
        HS_SAFEPOINT(cap); /* the only place this thread can be stopped */
        spins++;
    }
    ck_assert_ptr_eq(cap_mine(), cap);
    rts_unlock(cap);
    hs_thread_done();
    return (void *)spins;
}

START_TEST(safepoint_poll_lets_others_collect)
{
    test_start_rts("check_thr_runtime", "-N2", 1);
    __atomic_store_n(&stop_polling, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&polling, 0, __ATOMIC_SEQ_CST);
    pthread_t th;
    pthread_create(&th, NULL, poller, NULL);
    while (!__atomic_load_n(&polling, __ATOMIC_SEQ_CST))
        sched_yield();
    Capability *cap = rts_lock();
    uint64_t before = gc_count;
    for (int i = 0; i < 20; i++) {
        ck_assert_uint_eq(build_and_count(cap, 5000), 5000);
        performGC(); /* stops the poller at its HS_SAFEPOINT each time */
    }
    ck_assert_uint_ge(gc_count - before, 20);
    rts_unlock(cap);
    __atomic_store_n(&stop_polling, 1, __ATOMIC_SEQ_CST);
    void *spins;
    pthread_join(th, &spins);
    ck_assert_uint_gt((uintptr_t)spins, 0);
    hs_exit();
}
END_TEST

/* --- --long-gc-sync ------------------------------------------------------------------------ */

static int long_sync_calls, long_sync_end_calls;
static uint32_t long_sync_cap;
static Time long_sync_end_ns;

static void my_long_sync(uint32_t cap_no, Time t)
{
    (void)t;
    long_sync_calls++;
    long_sync_cap = cap_no;
}
static void my_long_sync_end(Time t)
{
    long_sync_end_calls++;
    long_sync_end_ns = t;
}

static int stubborn_has_cap, stubborn_go; /* atomics */

/* Holds its capability, allocating nothing and polling nothing, for 300 ms. */
static void *stubborn(void *arg)
{
    (void)arg;
    Capability *cap = rts_lock();
    __atomic_store_n(&stubborn_has_cap, 1, __ATOMIC_SEQ_CST);
    while (!__atomic_load_n(&stubborn_go, __ATOMIC_SEQ_CST))
        ;
    usleep(300 * 1000);
    HS_SAFEPOINT(cap);
    rts_unlock(cap);
    hs_thread_done();
    return (void *)(uintptr_t)cap->no;
}

START_TEST(long_gc_sync_calls_its_hooks)
{
    RtsConfig cfg = defaultRtsConfig;
    cfg.rts_opts_enabled = RtsOptsAll;
    cfg.longGCSync = my_long_sync;
    cfg.longGCSyncEnd = my_long_sync_end;
    char *argv[] = {"check_thr_runtime", "+RTS", "-N2", "--long-gc-sync=0.05", "-RTS", NULL};
    int argc = 5;
    char **av = argv;
    hs_init_ghc(&argc, &av, cfg);
    pthread_t th;
    pthread_create(&th, NULL, stubborn, NULL);
    while (!__atomic_load_n(&stubborn_has_cap, __ATOMIC_SEQ_CST))
        sched_yield();
    Capability *cap = rts_lock();
    __atomic_store_n(&stubborn_go, 1, __ATOMIC_SEQ_CST);
    performGC(); /* waits ~300 ms for the stubborn thread */
    rts_unlock(cap);
    void *its_cap;
    pthread_join(th, &its_cap);
    ck_assert_int_ge(long_sync_calls, 1);
    ck_assert_uint_eq(long_sync_cap, (uint32_t)(uintptr_t)its_cap);
    ck_assert_int_eq(long_sync_end_calls, 1);
    /* Not a timing check: the end hook is only called after a wait past the 50 ms limit. */
    ck_assert_int_ge(long_sync_end_ns, 50 * 1000 * 1000);
    hs_exit();
}
END_TEST

/* --- idle collections --------------------------------------------------------------------- */

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* 200 MB live (touched, so resident), then dropped; then the program goes idle. */
static void allocate_then_idle(void)
{
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 1);
    r[0] = (StgClosure *)rts_new_array(cap, 4096, NULL);
    for (StgWord i = 0; i < 4096; i++) {
        StgArrBytes *b = rts_new_byte_array(cap, 48 * 1024);
        memset(b->payload, 0x5a, 48 * 1024);
        rts_write_array(cap, (StgMutArrPtrs *)r[0], i, (StgClosure *)b);
    }
    performMajorGC();
    r[0] = NULL; /* garbage now, but only a major collection finds out */
    rts_pop_roots(cap, r);
    rts_unlock(cap);
}

START_TEST(idle_gc_returns_memory)
{
    test_start_rts("check_thr_runtime", "-N2 -I0.1 --disable-delayed-os-memory-return", 0);
    allocate_then_idle();
    long before = rss_kib();
    uint64_t idle_before = timer_idle_gcs();
    /* Idle (no capability in use) until the timer has collected: polled, not timed,
     * so a slow or loaded machine only makes the wait longer (at most 30 s). */
    long after = before;
    for (int i = 0; i < 300 && (timer_idle_gcs() == idle_before || after >= before - 100 * 1024);
         i++) {
        usleep(100 * 1000);
        after = rss_kib();
    }
    ck_assert_uint_ge(timer_idle_gcs() - idle_before, 1);
    ck_assert_msg(after < before - 100 * 1024, "RSS %ld KiB before the idle spell, %ld after",
                  before, after);
    hs_exit();
}
END_TEST

START_TEST(no_idle_gc_under_I0)
{
    test_start_rts("check_thr_runtime", "-N2 -I0", 0);
    allocate_then_idle();
    uint64_t gcs = gc_count;
    usleep(600 * 1000);
    ck_assert_uint_eq(timer_idle_gcs(), 0);
    ck_assert_uint_eq(gc_count, gcs);
    hs_exit();
}
END_TEST

/* --- fake NUMA nodes ------------------------------------------------------------------------ */

#ifdef DEBUG
START_TEST(debug_numa_puts_nurseries_on_both_nodes)
{
    test_start_rts("check_thr_runtime", "-N2 --debug-numa=2", 1);
    bool seen[2] = {false, false};
    for (uint32_t c = 0; c < n_capabilities; c++) {
        Capability *cap = capabilities[c];
        ck_assert_uint_eq(cap->node, c % 2);
        for (bdescr *bd = cap->nursery->blocks; bd; bd = bd->link) {
            ck_assert_uint_eq(bd->node, cap->node);
            seen[bd->node] = true;
        }
    }
    ck_assert(seen[0] && seen[1]);
    Capability *cap = rts_lock();
    ck_assert_uint_eq(build_and_count(cap, 50000), 50000);
    performMajorGC();
    rts_unlock(cap);
    hs_exit();
}
END_TEST
#endif

/* --- setNumCapabilities ------------------------------------------------------------------- */

static int churn_stop; /* atomic */

static void *churner(void *arg)
{
    (void)arg;
    unsigned long rounds = 0;
    while (!__atomic_load_n(&churn_stop, __ATOMIC_SEQ_CST)) {
        Capability *cap = rts_lock();
        ck_assert_uint_eq(build_and_count(cap, 3000), 3000);
        rts_unlock(cap);
        rounds++;
    }
    hs_thread_done();
    return (void *)rounds;
}

START_TEST(set_num_capabilities_up_and_down_while_running)
{
    test_start_rts("check_thr_runtime", "-N1 -A32k", 1);
    __atomic_store_n(&churn_stop, 0, __ATOMIC_SEQ_CST);
    pthread_t th[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&th[i], NULL, churner, NULL);
    uint32_t seq[] = {2, 4, 1, 3, 2, 1, 4};
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        setNumCapabilities(seq[i]);
        ck_assert_uint_eq(getNumCapabilities(), seq[i]);
        usleep(30 * 1000);
    }
    __atomic_store_n(&churn_stop, 1, __ATOMIC_SEQ_CST);
    for (int i = 0; i < 3; i++) {
        void *rounds;
        pthread_join(th[i], &rounds);
        ck_assert_uint_gt((uintptr_t)rounds, 0);
    }
    ck_assert_uint_eq(n_capabilities, 4);
    hs_exit();
}
END_TEST

/* --- evaluation between threads ---------------------------------------------------------- */

static int slow_entries;

static StgClosure *slow_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)self;
    (void)fv;
    __atomic_fetch_add(&slow_entries, 1, __ATOMIC_RELAXED);
    void *t = rts_suspend(cap);
    usleep(50 * 1000); /* the others meet the blackhole meanwhile */
    rts_resume(t);
    return mk_int(cap, 4242);
}
static const StgInfoTable slow_info = HS_THUNK_INFO(slow_entry, 0, 1, "test:slow");
static HsStablePtr shared_thunk;

static void *evaluator(void *arg)
{
    (void)arg;
    Capability *cap = rts_lock();
    StgClosure *v = rts_eval(cap, (StgClosure *)deRefStablePtr(shared_thunk));
    StgWord x = int_of(v);
    rts_unlock(cap);
    hs_thread_done();
    return (void *)x;
}

START_TEST(thunk_entered_once_by_racing_threads)
{
    test_start_rts("check_thr_runtime", "-N4", 1);
    Capability *cap = rts_lock();
    StgThunk *t = (StgThunk *)rts_alloc(cap, 3);
    t->info = &slow_info;
    t->slot = 0;
    shared_thunk = getStablePtr((StgPtr)t);
    rts_unlock(cap);
    pthread_t th[6];
    for (int i = 0; i < 6; i++)
        pthread_create(&th[i], NULL, evaluator, NULL);
    for (int i = 0; i < 6; i++) {
        void *x;
        pthread_join(th[i], &x);
        ck_assert_uint_eq((uintptr_t)x, 4242);
    }
    ck_assert_int_eq(slow_entries, 1);
    hs_exit();
}
END_TEST

/* A thread re-entering its own thunk is still <<loop>>. */
static StgClosure *self_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)fv;
    return rts_eval(cap, self);
}
static const StgInfoTable self_info = HS_THUNK_INFO(self_entry, 0, 1, "test:loop");

START_TEST(own_thunk_is_loop_under_N)
{
    test_start_rts("check_thr_runtime", "-N2", 1);
    Capability *cap = rts_lock();
    StgThunk *t = (StgThunk *)rts_alloc(cap, 3);
    t->info = &self_info;
    t->slot = 0;
    rts_eval(cap, (StgClosure *)t); /* exits 1 with <<loop>> */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("thr_runtime");
    TCase *tc = tcase_create("thr_runtime");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, n_threads_hold_n_capabilities_at_once);
    tcase_add_test(tc, rts_lock_waiter_is_not_starved);
    tcase_add_test(tc, safepoint_poll_lets_others_collect);
    tcase_add_test(tc, long_gc_sync_calls_its_hooks);
    tcase_add_test(tc, idle_gc_returns_memory);
    tcase_add_test(tc, no_idle_gc_under_I0);
#ifdef DEBUG /* --debug-numa is a debug-way flag, as GHC's */
    tcase_add_test(tc, debug_numa_puts_nurseries_on_both_nodes);
#endif
    tcase_add_test(tc, set_num_capabilities_up_and_down_while_running);
    tcase_add_test(tc, thunk_entered_once_by_racing_threads);
    tcase_add_exit_test(tc, own_thunk_is_loop_under_N, 1);
    suite_add_tcase(s, tc);
    return test_run(s);
}
