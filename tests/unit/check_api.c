/*
 * The embedding API: nested hs_init/hs_exit counting, re-initialisation
 * after shut-down refused, RtsConfig's hooks called when GHC calls them,
 * argv handling, hs_thread_done, the way queries.
 */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "flags/flags.h"
#include "startup.h"
#include "test_util.h"

static int defaults_calls, exit_calls, gc_done_calls;
static uint32_t last_gen;

static void my_defaults(void)
{
    defaults_calls++;
    /* Runs before any option is parsed: the command line still wins. */
    rts_flags.gc.generations = 3;
    rts_flags.gc.alloc_area_bytes = 64 * 1024;
}
static void my_on_exit(void)
{
    exit_calls++;
}
static void my_gc_done(const GCDetails *d)
{
    gc_done_calls++;
    last_gen = d->gen;
}

START_TEST(hooks_are_called)
{
    char *args[] = {"check_api", "x", "+RTS", "-A128k", "-RTS", "y", NULL};
    char **argv = args;
    int argc = 6;
    RtsConfig cfg = defaultRtsConfig;
    cfg.rts_opts_enabled = RtsOptsAll;
    cfg.defaultsHook = my_defaults;
    cfg.onExitHook = my_on_exit;
    cfg.gcDoneHook = my_gc_done;
    hs_init_ghc(&argc, &argv, cfg);
    ck_assert_int_eq(defaults_calls, 1);
    ck_assert_uint_eq(rts_flags.gc.generations, 3);           /* from the hook */
    ck_assert_uint_eq(rts_flags.gc.alloc_area_bytes, 131072); /* the command line wins */
    /* RTS arguments are gone from argv; the argv API agrees. */
    ck_assert_int_eq(argc, 3);
    ck_assert_str_eq(argv[1], "x");
    ck_assert_str_eq(argv[2], "y");
    ck_assert_ptr_null(argv[3]);
    int pargc;
    char **pargv;
    getProgArgv(&pargc, &pargv);
    ck_assert_int_eq(pargc, 3);
    getFullProgArgv(&pargc, &pargv);
    ck_assert_int_eq(pargc, 6);
    ck_assert_str_eq(pargv[3], "-A128k");

    performGC();
    ck_assert_int_eq(gc_done_calls, 1);
    performMajorGC();
    ck_assert_int_eq(gc_done_calls, 2);
    ck_assert_uint_eq(last_gen, 2);
    hs_exit();
    ck_assert_int_eq(exit_calls, 1);
    ck_assert_int_eq(gc_done_calls, 3); /* hs_exit's final major collection */
}
END_TEST

START_TEST(nested_init_and_exit)
{
    test_start_rts("check_api", "", 0);
    test_start_rts("check_api", "", 0); /* counted; its config is ignored */
    ck_assert(startup_running());
    hs_exit();
    ck_assert(startup_running()); /* one hs_init left */
    Capability *cap = rts_lock();
    rts_unlock(cap);
    hs_exit();
    ck_assert(!startup_running());
    hs_exit(); /* too many: a warning, as GHC */
}
END_TEST

START_TEST(reinit_after_shutdown_is_refused)
{
    test_start_rts("check_api", "", 0);
    hs_exit();
    test_start_rts("check_api", "", 0); /* exits 1 */
}
END_TEST

static void *other_thread(void *arg)
{
    (void)arg;
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 1);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_thread_done();
    return NULL;
}

START_TEST(threads_take_turns_and_finish)
{
    test_start_rts("check_api", "", 1);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, other_thread, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    performMajorGC();
    hs_exit();
}
END_TEST

/*
 * Thread A evaluates a thunk whose entry gives the capability up for a
 * while (a safe foreign call would); thread B meanwhile evaluates the same
 * thunk, finds it under A's evaluation, and must wait for A's value rather
 * than evaluate it again or report <<loop>>.
 */
static const StgInfoTable int_info = HS_CONSTR_INFO(0, 0, 1, "test:Int");
static volatile int a_inside, b_started, entries;
static HsStablePtr shared;

static StgClosure *slow_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)fv;
    StgWord n = ((StgWord *)((StgThunk *)self)->payload)[0];
    entries++;
    rts_unlock(cap);
    a_inside = 1;
    while (!b_started)
        sched_yield();
    usleep(20000); /* let B reach the blackhole (correct either way) */
    cap = rts_lock();
    StgClosure *c = (StgClosure *)rts_alloc(cap, 2);
    c->info = &int_info;
    ((StgWord *)c->payload)[0] = n;
    return TAG_CLOSURE(1, c);
}
static const StgInfoTable slow_info = HS_THUNK_INFO(slow_entry, 0, 1, "test:slow");

static void *thread_b(void *arg)
{
    (void)arg;
    while (!a_inside)
        sched_yield();
    Capability *cap = rts_lock();
    b_started = 1;
    StgClosure *v = rts_eval(cap, (StgClosure *)deRefStablePtr(shared));
    StgWord got = ((StgWord *)UNTAG(v)->payload)[0];
    rts_unlock(cap);
    hs_thread_done();
    return (void *)got;
}

START_TEST(second_thread_waits_for_a_blackhole)
{
    test_start_rts("check_api", "-A16k", 1);
    Capability *cap = rts_lock();
    StgThunk *t = (StgThunk *)rts_alloc(cap, 3);
    t->info = &slow_info;
    t->slot = 0;
    ((StgWord *)t->payload)[0] = 31;
    shared = getStablePtr((StgPtr)t);
    pthread_t b;
    pthread_create(&b, NULL, thread_b, NULL);
    StgClosure *v = rts_eval(cap, (StgClosure *)deRefStablePtr(shared));
    ck_assert_uint_eq(((StgWord *)UNTAG(v)->payload)[0], 31);
    rts_unlock(cap);
    void *got;
    pthread_join(b, &got);
    ck_assert_uint_eq((StgWord)got, 31);
    ck_assert_int_eq(entries, 1);
    hs_free_stable_ptr(shared);
    hs_exit();
}
END_TEST

START_TEST(way_queries)
{
#ifdef THREADED_RTS
    ck_assert_int_eq(rts_isThreaded(), 1);
#else
    ck_assert_int_eq(rts_isThreaded(), 0);
#endif
#ifdef DEBUG
    ck_assert_int_eq(rts_isDebugged(), 1);
#else
    ck_assert_int_eq(rts_isDebugged(), 0);
#endif
}
END_TEST

int main(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("api");
    tcase_add_test(tc, hooks_are_called);
    tcase_add_test(tc, nested_init_and_exit);
    tcase_add_exit_test(tc, reinit_after_shutdown_is_refused, 1);
    tcase_add_test(tc, threads_take_turns_and_finish);
    tcase_add_test(tc, second_thread_waits_for_a_blackhole);
    tcase_add_test(tc, way_queries);
    suite_add_tcase(s, tc);
    return test_run(s);
}
