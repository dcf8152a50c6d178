/*
 * Evaluation that a compiler can rely on for depth: tail calls in constant
 * space (Note [Tail calls] in rts/eval.c), selector chains evaluated
 * without C recursion (Note [The evaluation loop]), and nested evaluation
 * bounded by -K, not by the caller's C stack (Note [Evaluation stacks] in
 * rts/cstack.h). Each test starts its own runtime (Check forks per test).
 */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>

#include "capability.h"
#include "test_util.h"

static const StgInfoTable int_info = HS_CONSTR_INFO(0, 0, 1, "test:Int");
static const StgInfoTable pair_info = HS_CONSTR_INFO(0, 2, 0, "test:Pair");
static const StgInfoTable fst_info = HS_SELECTOR_INFO(0, "test:fst");

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

/* --- where the stacks are, seen from entry code ----------------------------------- */

typedef struct {
    int calls;
    const char *c_sp; /* C stack pointer at the first entry */
    StgPtr heap_sp;   /* heap stack pointer at the first entry */
    bool c_same, heap_same;
} StackWatch;

static StackWatch watch;

static void watch_reset(void)
{
    watch.calls = 0;
    watch.c_same = watch.heap_same = true;
}

/*
 * Called by entry code: from the second call on (the first may come from a
 * different caller, e.g. rts_apply before the evaluation loop), the C and
 * heap stack pointers must not move.
 */
static void watch_note(Capability *cap)
{
    const char *c_sp = (const char *)__builtin_frame_address(0);
    StgPtr heap_sp = HS_REGS(cap)->stack->sp;
    if (++watch.calls <= 2) {
        watch.c_sp = c_sp;
        watch.heap_sp = heap_sp;
        return;
    }
    watch.c_same &= c_sp == watch.c_sp;
    watch.heap_same &= heap_sp == watch.heap_sp;
}

/* --- tail calls --------------------------------------------------------------------------- */

/* countdown n = if n == 0 then Int 7 else countdown (n - 1): a tail call each step. */
static StgClosure *countdown_entry(Capability *cap, StgClosure *self, StgClosure **fv);
static const StgInfoTable countdown_info = HS_THUNK_INFO(countdown_entry, 0, 1, "test:countdown");

static StgClosure *mk_countdown(Capability *cap, StgWord n)
{
    StgThunk *t = (StgThunk *)rts_alloc(cap, 3);
    t->info = &countdown_info;
    t->slot = 0;
    ((StgWord *)t->payload)[0] = n;
    return (StgClosure *)t;
}

static StgClosure *countdown_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)fv;
    StgWord n = ((StgWord *)((StgThunk *)self)->payload)[0];
    watch_note(cap);
    if (n == 0)
        return mk_int(cap, 7);
    return mk_countdown(cap, n - 1);
}

/* Configurations and chain lengths (a collection at every 8 KiB is slow with -DS). */
static const struct {
    const char *opts;
    StgWord n;
} tail_configs[] = {
    {"", 10 * 1000 * 1000},     {"-Z", 10 * 1000 * 1000}, {"-G1", 10 * 1000 * 1000},
    {"-K1m", 10 * 1000 * 1000}, {"-A8k", 1000 * 1000},    {"-A8k -Z", 1000 * 1000},
};
#define N_TAIL_CONFIGS ((int)(sizeof tail_configs / sizeof tail_configs[0]))

START_TEST(ten_million_tail_calls_in_constant_space)
{
    /* -K1m: the chain must fit in a small stack too, since it needs no more than one frame. */
    test_start_rts("check_deep_eval", tail_configs[_i].opts, 1);
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 1);
    r[0] = mk_countdown(cap, tail_configs[_i].n);
    watch_reset();
    ck_assert_uint_eq(int_of(rts_eval(cap, r[0])), 7);
    ck_assert_uint_eq(watch.calls, tail_configs[_i].n + 1);
    ck_assert_msg(watch.c_same, "the C stack moved between tail calls");
    ck_assert_msg(watch.heap_same, "the heap stack moved between tail calls");
    /* The first thunk now means the value too. */
    ck_assert_uint_eq(int_of(rts_eval(cap, r[0])), 7);
    performGC();
    ck_assert_uint_eq(int_of(rts_eval(cap, r[0])), 7);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/* A function in a tail-calling loop: go n = if n == 0 then Int 7 else go (n - 1), as APs. */
static StgClosure *go_entry(Capability *cap, StgClosure *self, StgClosure **fv, StgClosure **args);
static const StgInfoTable go_info = HS_FUN_INFO(1, go_entry, 0, 0, "test:go");
static const StgClosure go_closure = {.info = &go_info};

static StgClosure *go_entry(Capability *cap, StgClosure *self, StgClosure **fv, StgClosure **args)
{
    (void)self;
    (void)fv;
    StgWord n = int_of(rts_eval(cap, args[0]));
    watch_note(cap);
    if (n == 0)
        return mk_int(cap, 7);
    StgClosure **a = rts_push_roots(cap, 1);
    a[0] = mk_int(cap, n - 1);
    StgClosure *ap = rts_mk_ap(cap, (StgClosure *)&go_closure, 1, a);
    rts_pop_roots(cap, a);
    return ap;
}

START_TEST(function_tail_calls_in_constant_space)
{
    test_start_rts("check_deep_eval", tail_configs[_i].opts, 1);
    Capability *cap = rts_lock();
    StgClosure **a = rts_push_roots(cap, 1);
    a[0] = mk_int(cap, tail_configs[_i].n / 10);
    watch_reset();
    ck_assert_uint_eq(int_of(rts_apply(cap, (StgClosure *)&go_closure, 1, a)), 7);
    ck_assert_msg(watch.c_same, "the C stack moved between tail calls");
    ck_assert_msg(watch.heap_same, "the heap stack moved between tail calls");
    rts_pop_roots(cap, a);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/* --- selector chains ------------------------------------------------------------------------ */

/*
 * s_1 = fst s_2, ..., s_{n-1} = fst s_n, s_n = fst q_n, where q_k = (q_{k-1}, _)
 * and q_0 = (Int 5, _): s_1's value is q_0. Built from the inside out.
 */
static void build_selector_chain(Capability *cap, StgClosure **r, StgWord n)
{
    /* r[0]: the pair chain so far; r[1]: the selector chain so far. */
    r[0] = mk_int(cap, 5);
    for (StgWord k = 0; k <= n; k++) {
        StgClosure *q = (StgClosure *)rts_alloc(cap, 3);
        q->info = &pair_info;
        q->payload[0] = r[0];
        q->payload[1] = NULL;
        r[0] = TAG_CLOSURE(1, q);
    }
    r[1] = r[0];
    for (StgWord k = 0; k < n; k++) {
        StgSelector *s = (StgSelector *)rts_alloc(cap, 3);
        s->info = &fst_info;
        s->slot = 0;
        s->selectee = r[1];
        r[1] = (StgClosure *)s;
    }
    r[0] = NULL;
}

static void selector_chain(const char *opts, StgWord n)
{
    test_start_rts("check_deep_eval", opts, 1);
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 2);
    build_selector_chain(cap, r, n);
    RTSStats before, after;
    getRTSStats(&before);
    StgClosure *v = rts_eval(cap, r[1]);
    getRTSStats(&after);
    /* s_1's value is q_0 = (Int 5, _). */
    ck_assert_ptr_eq(UNTAG(v)->info, &pair_info);
    ck_assert_uint_eq(int_of(UNTAG(v)->payload[0]), 5);
    if (opts[0] != '\0') /* -A1g: the chain was evaluated with no collection at all */
        ck_assert_uint_eq(after.gcs, before.gcs);
    performGC();
    v = rts_eval(cap, r[1]);
    ck_assert_uint_eq(int_of(UNTAG(v)->payload[0]), 5);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}

START_TEST(million_selector_chain_without_collection)
{
    selector_chain("-A1g -T", 1000 * 1000);
}
END_TEST

START_TEST(selector_chain_with_collections)
{
    selector_chain("", 200 * 1000);
}
END_TEST

/* --- nested (non-tail) evaluation ------------------------------------------------------- */

/* up k = 1 + eval(up (k - 1)), up 0 = Int 0: each level a nested C call. */
static StgClosure *up_entry(Capability *cap, StgClosure *self, StgClosure **fv);
static const StgInfoTable up_info = HS_THUNK_INFO(up_entry, 0, 1, "test:up");

static StgClosure *mk_up(Capability *cap, StgWord k)
{
    StgThunk *t = (StgThunk *)rts_alloc(cap, 3);
    t->info = &up_info;
    t->slot = 0;
    ((StgWord *)t->payload)[0] = k;
    return (StgClosure *)t;
}

static StgClosure *up_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)fv;
    StgWord k = ((StgWord *)((StgThunk *)self)->payload)[0];
    if (k == 0)
        return mk_int(cap, 0);
    StgWord v = int_of(rts_eval(cap, mk_up(cap, k - 1)));
    return mk_int(cap, v + 1);
}

static StgWord nested(Capability *cap, StgWord depth)
{
    StgClosure **r = rts_push_roots(cap, 1);
    r[0] = mk_up(cap, depth);
    StgWord v = int_of(rts_eval(cap, r[0]));
    rts_pop_roots(cap, r);
    return v;
}

START_TEST(million_nested_evaluations_with_default_options)
{
    test_start_rts("check_deep_eval", "", 0);
    Capability *cap = rts_lock();
    ck_assert_uint_eq(nested(cap, 1000 * 1000), 1000 * 1000);
    /* And again: the stack given back after the first run is usable. */
    ck_assert_uint_eq(nested(cap, 1000 * 1000), 1000 * 1000);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

START_TEST(nested_evaluation_past_K_is_stack_overflow)
{
    test_start_rts("check_deep_eval", "-K1m", 1);
    Capability *cap = rts_lock();
    nested(cap, 1000 * 1000); /* exits 2 */
}
END_TEST

/* A thread with a 64 KiB C stack still evaluates deeply: evaluation runs on the runtime's stack. */
static void *small_stack_thread(void *arg)
{
    (void)arg;
    Capability *cap = rts_lock();
    StgWord v = nested(cap, 100 * 1000);
    rts_unlock(cap);
    hs_thread_done();
    return (void *)v;
}

START_TEST(small_stack_thread_evaluates_deeply)
{
    test_start_rts("check_deep_eval", "", 1);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, &attr, small_stack_thread, NULL), 0);
    void *res;
    pthread_join(th, &res);
    ck_assert_uint_eq((StgWord)res, 100 * 1000);
    hs_exit();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("deep_eval");
    TCase *tc = tcase_create("deep_eval");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, ten_million_tail_calls_in_constant_space, 0, N_TAIL_CONFIGS);
    tcase_add_loop_test(tc, function_tail_calls_in_constant_space, 0, N_TAIL_CONFIGS);
    tcase_add_test(tc, million_selector_chain_without_collection);
    tcase_add_test(tc, selector_chain_with_collections);
    tcase_add_test(tc, million_nested_evaluations_with_default_options);
    tcase_add_exit_test(tc, nested_evaluation_past_K_is_stack_overflow, 2);
    tcase_add_test(tc, small_stack_thread_evaluates_deeply);
    suite_add_tcase(s, tc);
    return test_run(s);
}
