/*
 * The evaluation protocol and what the collector does with lazy objects:
 * updates and indirections, selector thunks, <<loop>>, application (FUN,
 * PAP, AP), CAFs and static reference tables, nested evaluation across
 * collections under every collector configuration.
 * Each test starts its own runtime (Check forks a process per test); in the
 * debug way the sanity checker runs around every collection.
 */
#include <check.h>
#include <stdlib.h>

#include "flags/flags.h"
#include "sm/statics.h"
#include "test_util.h"

/* --- a tiny language: boxed ints, pairs, lists --------------------------------- */

static const StgInfoTable int_info = HS_CONSTR_INFO(0, 0, 1, "test:Int");
static const StgInfoTable pair_info = HS_CONSTR_INFO(0, 2, 0, "test:Pair");
static const StgInfoTable cons_info = HS_CONSTR_INFO(1, 2, 0, "test:Cons");
static const StgInfoTable nil_info = {.type = CONSTR_STATIC, .name = "test:Nil"};
static const StgClosure nil_closure = {.info = &nil_info};
#define NIL TAG_CLOSURE(1, &nil_closure)

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

static void start(const char *opts)
{
    test_start_rts("check_eval", opts, 1);
}

/* --- updates and indirections ------------------------------------------------ */

static int entered;

/* THUNK with one non-pointer word n: evaluates to Int n. */
static StgClosure *const_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    StgWord n = ((StgWord *)((StgThunk *)self)->payload)[0];
    entered++;
    return mk_int(cap, n);
}
static const StgInfoTable const_thunk_info = HS_THUNK_INFO(const_entry, 0, 1, "test:const");

static StgClosure *mk_const_thunk(Capability *cap, StgWord n)
{
    StgThunk *t = (StgThunk *)rts_alloc(cap, 3);
    t->info = &const_thunk_info;
    t->slot = 0;
    ((StgWord *)t->payload)[0] = n;
    return (StgClosure *)t;
}

START_TEST(eval_updates_once)
{
    start("");
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 1);
    r[0] = mk_const_thunk(cap, 42);
    entered = 0;
    StgClosure *v = rts_eval(cap, r[0]);
    ck_assert_uint_eq(int_of(v), 42);
    ck_assert_uint_eq(GET_TAG(v), 1);
    ck_assert_ptr_eq(UNTAG(r[0])->info, &stg_IND_info);
    v = rts_eval(cap, r[0]);
    ck_assert_uint_eq(int_of(v), 42);
    ck_assert_int_eq(entered, 1);
    /* A value is returned at once. */
    ck_assert_ptr_eq(rts_eval(cap, v), v);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/* THUNK whose free variable is the next thunk of a chain: a tail call. */
static StgClosure *forward_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)cap;
    (void)self;
    entered++;
    return fv[0];
}
static const StgInfoTable forward_info = HS_THUNK_INFO(forward_entry, 1, 0, "test:forward");

/* A chain t[0] -> t[1] -> ... -> t[n-1] -> const thunk. Roots: r[0..n-1]. */
static void mk_chain(Capability *cap, StgClosure **r, int n, StgWord value)
{
    r[n - 1] = mk_const_thunk(cap, value);
    for (int i = n - 2; i >= 0; i--) {
        StgThunk *t = (StgThunk *)rts_alloc(cap, 3);
        t->info = &forward_info;
        t->slot = 0;
        t->payload[0] = r[i + 1];
        r[i] = (StgClosure *)t;
    }
}

START_TEST(updated_chain_collapses)
{
    start("");
    Capability *cap = rts_lock();
    enum { N = 50 };
    StgClosure **r = rts_push_roots(cap, N);
    mk_chain(cap, r, N, 7);
    StgClosure *v = rts_eval(cap, r[0]);
    ck_assert_uint_eq(int_of(v), 7);
    for (int i = 0; i < N; i++)
        ck_assert_ptr_eq(UNTAG(r[i])->info, &stg_IND_info);
    performGC();
    /* Every root now points straight at the value: the indirections are gone. */
    for (int i = 0; i < N; i++) {
        ck_assert_ptr_eq(UNTAG(r[i])->info, &int_info);
        ck_assert_ptr_eq(UNTAG(r[i]), UNTAG(r[0]));
    }
    ck_assert_uint_eq(int_of(r[N - 1]), 7);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/* --- nested evaluation across collections (Note [Tail calls]) ------------------------ */

/*
 * The collector configurations every nested-evaluation test runs under
 * (a loop test: one forked process per configuration).
 */
static const char *const gc_configs[] = {"", "-Z", "-G1", "-G3", "-A8k", "-A8k -G3", "-A8k -Z"};
#define N_GC_CONFIGS ((int)(sizeof gc_configs / sizeof gc_configs[0]))

/*
 * inner: collects, allocates `pad` words of garbage in steps (so that with
 * -A8k collections also fall at other points of the entry), returns Int 10.
 */
static StgWord inner_pad;
static StgClosure *inner_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)self;
    (void)fv;
    performGC();
    for (StgWord i = 0; i < inner_pad; i++)
        (void)mk_int(cap, i);
    return mk_int(cap, 10);
}
static const StgInfoTable inner_info = HS_THUNK_INFO(inner_entry, 0, 1, "test:inner");

/* outer, no pointer free variables: let x = inner in x + 1 (not a tail call). */
static StgClosure *outer_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)self;
    (void)fv;
    for (StgWord i = 0; i < inner_pad; i++)
        (void)mk_int(cap, i);
    StgThunk *in = (StgThunk *)rts_alloc(cap, 3);
    in->info = &inner_info;
    in->slot = 0;
    StgWord x = int_of(rts_eval(cap, (StgClosure *)in));
    for (StgWord i = 0; i < inner_pad; i++)
        (void)mk_int(cap, i);
    return mk_int(cap, x + 1);
}
static const StgInfoTable outer_info = HS_THUNK_INFO(outer_entry, 0, 1, "test:outer");
static const StgInfoTable outer_caf_info = HS_THUNK_STATIC_INFO(outer_entry, NULL, "test:outerCAF");
static StgCAF outer_caf = HS_CAF(&outer_caf_info);

START_TEST(nested_eval_keeps_its_result_across_collections)
{
    start(gc_configs[_i]);
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 1);
    for (inner_pad = 0; inner_pad < 3000; inner_pad = inner_pad * 2 + 1) {
        StgThunk *t = (StgThunk *)rts_alloc(cap, 3);
        t->info = &outer_info;
        t->slot = 0;
        r[0] = (StgClosure *)t;
        for (int k = 0; k < 3; k++) {
            ck_assert_msg(int_of(rts_eval(cap, r[0])) == 11,
                          "evaluation %d with pad %lu under '%s' gave %lu, want 11", k,
                          (unsigned long)inner_pad, gc_configs[_i],
                          (unsigned long)int_of(rts_eval(cap, r[0])));
            performGC();
        }
    }
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/* outer2: let x = innerCAF in x + 1, where the CAF's entry collects. */
static const StgInfoTable inner_caf_info = HS_THUNK_STATIC_INFO(inner_entry, NULL, "test:innerCAF");
static StgCAF inner_caf = HS_CAF(&inner_caf_info);
static StgClosure *outer2_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)self;
    (void)fv;
    StgWord x = int_of(rts_eval(cap, (StgClosure *)&inner_caf));
    return mk_int(cap, x + 1);
}
static const StgInfoTable outer2_info = HS_THUNK_INFO(outer2_entry, 0, 1, "test:outer2");

START_TEST(nested_eval_of_a_caf_keeps_its_result)
{
    start(gc_configs[_i]);
    setKeepCAFs();
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 1);
    inner_pad = 100;
    StgThunk *t = (StgThunk *)rts_alloc(cap, 3);
    t->info = &outer2_info;
    t->slot = 0;
    r[0] = (StgClosure *)t;
    for (int k = 0; k < 3; k++) {
        ck_assert_uint_eq(int_of(rts_eval(cap, r[0])), 11);
        performGC();
    }
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

START_TEST(nested_eval_in_a_caf_keeps_its_result)
{
    start(gc_configs[_i]);
    Capability *cap = rts_lock();
    inner_pad = 100;
    for (int k = 0; k < 3; k++) {
        ck_assert_uint_eq(int_of(rts_eval(cap, (StgClosure *)&outer_caf)), 11);
        performGC();
    }
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/* p: a thunk whose entry collects and returns the pair (Int 1, Int 2). */
static StgClosure *pair_gc_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)self;
    (void)fv;
    performGC();
    StgClosure **r = rts_push_roots(cap, 2);
    r[0] = mk_int(cap, 1);
    r[1] = mk_int(cap, 2);
    StgClosure *c = (StgClosure *)rts_alloc(cap, 3);
    c->info = &pair_info;
    c->payload[0] = r[0];
    c->payload[1] = r[1];
    rts_pop_roots(cap, r);
    return TAG_CLOSURE(1, c);
}
static const StgInfoTable pair_gc_info = HS_THUNK_INFO(pair_gc_entry, 0, 1, "test:pairGC");
static const StgInfoTable snd_info = HS_SELECTOR_INFO(1, "test:snd");

START_TEST(selector_of_a_collecting_thunk_keeps_its_result)
{
    start(gc_configs[_i]);
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 2);
    StgThunk *p = (StgThunk *)rts_alloc(cap, 3);
    p->info = &pair_gc_info;
    p->slot = 0;
    r[0] = (StgClosure *)p;
    StgSelector *s = (StgSelector *)rts_alloc(cap, 3);
    s->info = &snd_info;
    s->slot = 0;
    s->selectee = r[0];
    r[1] = (StgClosure *)s;
    for (int k = 0; k < 3; k++) {
        ck_assert_uint_eq(int_of(rts_eval(cap, r[1])), 2);
        performGC();
    }
    ck_assert_uint_eq(int_of(UNTAG(rts_eval(cap, r[0]))->payload[0]), 1);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/* --- <<loop>> and blackholes ------------------------------------------------------ */

static StgClosure *self_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)fv;
    return rts_eval(cap, self);
}
static const StgInfoTable self_info = HS_THUNK_INFO(self_entry, 0, 1, "test:loop");

START_TEST(reentering_a_thunk_is_loop)
{
    start("");
    Capability *cap = rts_lock();
    StgThunk *t = (StgThunk *)rts_alloc(cap, 3);
    t->info = &self_info;
    t->slot = 0;
    rts_eval(cap, (StgClosure *)t); /* exits 1 with <<loop>> */
}
END_TEST

/* Evaluation in progress: the slot holds our token; a collection blackholes it. */
static StgClosure **inspect_root;
static StgClosure *inspect_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    StgWord n = ((StgWord *)((StgThunk *)self)->payload)[0];
    ck_assert_uint_eq(((StgThunk *)self)->slot, HS_REGS(cap)->owner);
    ck_assert_uint_eq(HS_REGS(cap)->owner & 1, 1);
    performGC();
    StgClosure *now = UNTAG(inspect_root[0]);
    ck_assert_ptr_eq(now->info, &stg_BLACKHOLE_info);
    ck_assert_uint_eq(((StgBlackhole *)now)->owner, HS_REGS(cap)->owner);
    return mk_int(cap, n);
}
static const StgInfoTable inspect_info = HS_THUNK_INFO(inspect_entry, 0, 1, "test:inspect");

START_TEST(thunk_under_evaluation_becomes_blackhole)
{
    start("");
    Capability *cap = rts_lock();
    inspect_root = rts_push_roots(cap, 1);
    StgThunk *t = (StgThunk *)rts_alloc(cap, 3);
    t->info = &inspect_info;
    t->slot = 0;
    ((StgWord *)t->payload)[0] = 5;
    inspect_root[0] = (StgClosure *)t;
    ck_assert_uint_eq(int_of(rts_eval(cap, inspect_root[0])), 5);
    ck_assert_uint_eq(int_of(rts_eval(cap, inspect_root[0])), 5);
    rts_pop_roots(cap, inspect_root);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/* --- selector thunks ---------------------------------------------------------------- */

static const StgInfoTable fst_info = HS_SELECTOR_INFO(0, "test:fst");

static uint64_t live_after_major(void)
{
    performMajorGC();
    RTSStats s;
    getRTSStats(&s);
    return s.gc.live_bytes;
}

/*
 * n pairs (Int i, big array); a list of `fst p` selector thunks; the pairs
 * themselves dropped. The collector evaluates the selectors, so the arrays
 * die: residency stays near n * (cons + selector or Int), far below the
 * arrays' n * 2 KiB.
 */
START_TEST(selector_thunks_do_not_leak)
{
    start("-T");
    Capability *cap = rts_lock();
    enum { N = 2000, BIG = 256 };
    StgClosure **r = rts_push_roots(cap, 3); /* list, pair, selector */
    uint64_t base = live_after_major();
    r[0] = NIL;
    for (int i = 0; i < N; i++) {
        r[1] = (StgClosure *)rts_alloc(cap, 3);
        UNTAG(r[1])->info = &pair_info;
        UNTAG(r[1])->payload[0] = UNTAG(r[1])->payload[1] = NULL;
        StgClosure *x = mk_int(cap, (StgWord)i);
        UNTAG(r[1])->payload[0] = x;
        StgClosure *big = (StgClosure *)rts_new_array(cap, BIG, NULL);
        UNTAG(r[1])->payload[1] = big;
        StgSelector *s = (StgSelector *)rts_alloc(cap, 3);
        s->info = &fst_info;
        s->slot = 0;
        s->selectee = r[1];
        r[2] = (StgClosure *)s;
        StgClosure *c = (StgClosure *)rts_alloc(cap, 3);
        c->info = &cons_info;
        c->payload[0] = r[2];
        c->payload[1] = r[0];
        r[0] = TAG_CLOSURE(2, c);
    }
    r[1] = r[2] = NULL;
    uint64_t live = live_after_major() - base;
    uint64_t bound = (uint64_t)N * 8 * (3 + 3 + 2) + 64 * 1024;
    uint64_t leak = (uint64_t)N * 8 * BIG;
    ck_assert_msg(live < bound, "live %llu bytes after GC, want < %llu (arrays would be %llu)",
                  (unsigned long long)live, (unsigned long long)bound, (unsigned long long)leak);
    /* The selectors were short-cut to the Ints, and still mean the right thing. */
    StgWord want = N;
    for (StgClosure *p = r[0]; GET_TAG(p) == 2; p = UNTAG(p)->payload[1]) {
        StgClosure *head = UNTAG(p)->payload[0];
        ck_assert_ptr_eq(UNTAG(head)->info, &int_info);
        ck_assert_uint_eq(int_of(rts_eval(cap, head)), --want);
    }
    ck_assert_uint_eq(want, 0);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

START_TEST(selector_evaluated_by_rts_eval)
{
    start("");
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 2);
    r[0] = (StgClosure *)rts_alloc(cap, 3);
    UNTAG(r[0])->info = &pair_info;
    UNTAG(r[0])->payload[0] = UNTAG(r[0])->payload[1] = NULL;
    StgClosure *t = mk_const_thunk(cap, 11); /* fst of the pair is a thunk */
    UNTAG(r[0])->payload[0] = t;
    StgSelector *s = (StgSelector *)rts_alloc(cap, 3);
    s->info = &fst_info;
    s->slot = 0;
    s->selectee = r[0];
    r[1] = (StgClosure *)s;
    ck_assert_uint_eq(int_of(rts_eval(cap, r[1])), 11);
    ck_assert_ptr_eq(UNTAG(r[1])->info, &stg_IND_info);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/*
 * The fast paths of rts_eval (Note [The fast paths of rts_eval] in eval.c)
 * and each of their hand-overs to the loop, with collections inside the
 * entries (fp_pad) under every collector configuration: a selector whose
 * selectee is a thunk with free variables, whose field is a value or a
 * thunk; a selector of an evaluated pair; a selector whose selectee's entry
 * returns another thunk (a tail call).
 */
static StgWord fp_pad;

/* pairfv a b = (Int (a + 1), b), a evaluated first; then fp_pad words of garbage. */
static StgClosure *pairfv_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)self;
    fv[0] = rts_eval(cap, fv[0]);
    for (StgWord i = 0; i < fp_pad; i++)
        (void)mk_int(cap, i);
    StgPtr p = rts_alloc(cap, 2 + 3);
    StgClosure *x = (StgClosure *)p;
    x->info = &int_info;
    ((StgWord *)x->payload)[0] = int_of(fv[0]) + 1;
    StgClosure *pr = (StgClosure *)(p + 2);
    pr->info = &pair_info;
    pr->payload[0] = TAG_CLOSURE(1, x);
    pr->payload[1] = fv[1];
    return TAG_CLOSURE(1, pr);
}
static const StgInfoTable pairfv_info = HS_THUNK_INFO(pairfv_entry, 2, 0, "test:pairfv");

/* tailpair a b = pairfv a b, returned unevaluated: a tail call. */
static StgClosure *tailpair_entry(Capability *cap, StgClosure *self, StgClosure **fv);
static const StgInfoTable tailpair_info = HS_THUNK_INFO(tailpair_entry, 2, 0, "test:tailpair");

static StgClosure *mk_thunk2(Capability *cap, const StgInfoTable *info, StgClosure **a,
                             StgClosure **b)
{
    StgThunk *t = (StgThunk *)rts_alloc(cap, 4);
    t->info = info;
    t->slot = 0;
    t->payload[0] = *a;
    t->payload[1] = *b;
    return (StgClosure *)t;
}

static StgClosure *tailpair_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)self;
    for (StgWord i = 0; i < fp_pad; i++)
        (void)mk_int(cap, i);
    return mk_thunk2(cap, &pairfv_info, &fv[0], &fv[1]);
}

static StgClosure *mk_sel(Capability *cap, const StgInfoTable *info, StgClosure **selectee)
{
    StgSelector *s = (StgSelector *)rts_alloc(cap, 3);
    s->info = info;
    s->slot = 0;
    s->selectee = *selectee;
    return (StgClosure *)s;
}

/* r[0] = fst t, r[1] = snd t for t = info a b, with a = const ka, b = const kb. */
static void mk_pair_sels(Capability *cap, StgClosure **r, const StgInfoTable *info, StgWord ka,
                         StgWord kb)
{
    r[2] = mk_const_thunk(cap, ka);
    r[3] = mk_const_thunk(cap, kb);
    r[0] = mk_thunk2(cap, info, &r[2], &r[3]);
    r[1] = mk_sel(cap, &snd_info, &r[0]);
    r[0] = mk_sel(cap, &fst_info, &r[0]);
}

static void check_sel(Capability *cap, StgClosure **r, int i, StgWord want, const char *what,
                      const char *config)
{
    for (int k = 0; k < 3; k++) {
        StgWord got = int_of(rts_eval(cap, r[i]));
        ck_assert_msg(got == want, "%s, evaluation %d with pad %lu under '%s': %lu, want %lu", what,
                      k, (unsigned long)fp_pad, config, (unsigned long)got, (unsigned long)want);
        performGC();
    }
}

START_TEST(selector_fast_paths_keep_their_results)
{
    start(gc_configs[_i]);
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 4);
    for (fp_pad = 0; fp_pad < 3000; fp_pad = fp_pad * 4 + 1) {
        /* fst first: its selectee is a thunk, its field a value; then snd of the pair. */
        mk_pair_sels(cap, r, &pairfv_info, 10, 20);
        check_sel(cap, r, 0, 11, "fst (pairfv 10 20)", gc_configs[_i]);
        check_sel(cap, r, 1, 20, "snd (pairfv 10 20), pair evaluated", gc_configs[_i]);
        /* snd first: the field picked from the new pair is a thunk. */
        mk_pair_sels(cap, r, &pairfv_info, 30, 40);
        check_sel(cap, r, 1, 40, "snd (pairfv 30 40)", gc_configs[_i]);
        check_sel(cap, r, 0, 31, "fst (pairfv 30 40), pair evaluated", gc_configs[_i]);
        /* The selectee's entry returns a thunk. */
        mk_pair_sels(cap, r, &tailpair_info, 50, 60);
        check_sel(cap, r, 0, 51, "fst (tailpair 50 60)", gc_configs[_i]);
        check_sel(cap, r, 1, 60, "snd (tailpair 50 60), pair evaluated", gc_configs[_i]);
        mk_pair_sels(cap, r, &tailpair_info, 70, 80);
        check_sel(cap, r, 1, 80, "snd (tailpair 70 80)", gc_configs[_i]);
        check_sel(cap, r, 0, 71, "fst (tailpair 70 80), pair evaluated", gc_configs[_i]);
    }
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/* --- application ------------------------------------------------------------------- */

static StgClosure *add_entry(Capability *cap, StgClosure *self, StgClosure **fv, StgClosure **args)
{
    (void)self;
    (void)fv;
    StgWord a = int_of(rts_eval(cap, args[0]));
    StgWord b = int_of(rts_eval(cap, args[1]));
    return mk_int(cap, a + b);
}
static const StgInfoTable add_info = HS_FUN_INFO(2, add_entry, 0, 0, "test:add");
static const StgClosure add_closure = {.info = &add_info};

/* \x -> add: arity 1, returns a function. */
static StgClosure *konst_add_entry(Capability *cap, StgClosure *self, StgClosure **fv,
                                   StgClosure **args)
{
    (void)cap;
    (void)self;
    (void)fv;
    (void)args;
    return (StgClosure *)&add_closure;
}
static const StgInfoTable konst_add_info = HS_FUN_INFO(1, konst_add_entry, 0, 0, "test:kadd");
static const StgClosure konst_add_closure = {.info = &konst_add_info};

START_TEST(apply_exact_partial_and_over)
{
    start("-A8k");
    Capability *cap = rts_lock();
    StgClosure **a = rts_push_roots(cap, 4);
    a[0] = mk_int(cap, 2);
    a[1] = mk_int(cap, 3);
    a[2] = mk_int(cap, 4);
    StgClosure *sum = rts_apply(cap, (StgClosure *)&add_closure, 2, a);
    ck_assert_uint_eq(int_of(sum), 5);

    /* Partial: a PAP waiting for one more; then saturate it. */
    a[3] = rts_apply(cap, (StgClosure *)&add_closure, 1, a);
    ck_assert_ptr_eq(UNTAG(a[3])->info, &stg_PAP_info);
    performGC(); /* the PAP and its argument move */
    ck_assert_uint_eq(int_of(rts_apply(cap, a[3], 1, &a[2])), 6);

    /* Over-saturated: (konst add) 0 3 4 = 7. */
    StgClosure **b = rts_push_roots(cap, 3);
    b[0] = a[0];
    b[1] = a[1];
    b[2] = a[2];
    ck_assert_uint_eq(int_of(rts_apply(cap, (StgClosure *)&konst_add_closure, 3, b)), 7);

    /* A suspended application: an AP thunk, updated when evaluated. */
    StgClosure *ap = rts_mk_ap(cap, (StgClosure *)&add_closure, 2, &b[1]);
    b[0] = ap;
    ck_assert_uint_eq(int_of(rts_eval(cap, b[0])), 7);
    ck_assert_ptr_eq(UNTAG(b[0])->info, &stg_IND_info);
    rts_pop_roots(cap, b);
    rts_pop_roots(cap, a);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/* --- CAFs and SRTs ------------------------------------------------------------------- */

static int caf_entries;

/* A CAF whose value is a list of 5000 Ints (big enough to see in residency). */
static StgClosure *big_list_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)self;
    (void)fv;
    caf_entries++;
    StgClosure **r = rts_push_roots(cap, 1);
    r[0] = NIL;
    for (int i = 0; i < 5000; i++) {
        StgClosure *x = mk_int(cap, (StgWord)i);
        StgClosure *c = (StgClosure *)rts_alloc(cap, 3);
        c->info = &cons_info;
        c->payload[0] = x;
        c->payload[1] = r[0];
        r[0] = TAG_CLOSURE(2, c);
    }
    StgClosure *v = r[0];
    rts_pop_roots(cap, r);
    return v;
}
static const StgInfoTable caf_info = HS_THUNK_STATIC_INFO(big_list_entry, NULL, "test:bigList");
static StgCAF the_caf = HS_CAF(&caf_info);

/* A heap thunk whose code uses the CAF: its SRT says so. */
static const StgClosure *const user_srt[] = {(const StgClosure *)&the_caf, NULL};
static const StgInfoTable caf_user_info = {
    .type = THUNK, .ptrs = 0, .nptrs = 1, .name = "test:usesCAF", .srt = user_srt};

static void caf_scenario(bool keep, bool via_srt)
{
    start("-T");
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 1);
    uint64_t base = live_after_major();
    caf_entries = 0;
    StgClosure *v = rts_eval(cap, (StgClosure *)&the_caf);
    ck_assert_uint_eq(int_of(UNTAG(v)->payload[0]), 4999);
    ck_assert_ptr_eq(the_caf.info, &stg_IND_STATIC_info);
    ck_assert_uint_eq(statics_caf_count(), 1);

    /* Reachable: from a root slot, or through the SRT of a live thunk. */
    if (via_srt) {
        StgThunk *t = (StgThunk *)rts_alloc(cap, 3);
        t->info = &caf_user_info;
        t->slot = 0;
        r[0] = (StgClosure *)t;
    } else {
        r[0] = (StgClosure *)&the_caf;
    }
    uint64_t with = live_after_major() - base;
    ck_assert_uint_ge(with, 5000 * 8 * 5);
    ck_assert_ptr_eq(the_caf.info, &stg_IND_STATIC_info);

    /* Unreachable: reverted and its value collected, unless CAFs are kept. */
    r[0] = NULL;
    uint64_t without = live_after_major() - base;
    if (keep) {
        ck_assert_ptr_eq(the_caf.info, &stg_IND_STATIC_info);
        ck_assert_uint_ge(without, 5000 * 8 * 5);
    } else {
        ck_assert_ptr_eq(the_caf.info, &caf_info);
        ck_assert_uint_lt(without, 5000 * 8);
        ck_assert_uint_eq(statics_caf_count(), 0);
    }
    /* Entering it again recomputes it (or not, if kept). */
    v = rts_eval(cap, (StgClosure *)&the_caf);
    ck_assert_uint_eq(int_of(UNTAG(v)->payload[0]), 4999);
    ck_assert_int_eq(caf_entries, keep ? 1 : 2);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}

START_TEST(caf_kept_while_reachable_then_reverted)
{
    caf_scenario(false, false);
}
END_TEST
START_TEST(caf_kept_through_an_srt)
{
    caf_scenario(false, true);
}
END_TEST
START_TEST(caf_kept_for_ever_with_keep_cafs)
{
    setKeepCAFs();
    caf_scenario(true, false);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("eval");
    TCase *tc = tcase_create("eval");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, eval_updates_once);
    tcase_add_test(tc, updated_chain_collapses);
    tcase_add_loop_test(tc, nested_eval_keeps_its_result_across_collections, 0, N_GC_CONFIGS);
    tcase_add_loop_test(tc, nested_eval_in_a_caf_keeps_its_result, 0, N_GC_CONFIGS);
    tcase_add_loop_test(tc, nested_eval_of_a_caf_keeps_its_result, 0, N_GC_CONFIGS);
    tcase_add_loop_test(tc, selector_of_a_collecting_thunk_keeps_its_result, 0, N_GC_CONFIGS);
    tcase_add_exit_test(tc, reentering_a_thunk_is_loop, 1);
    tcase_add_test(tc, thunk_under_evaluation_becomes_blackhole);
    tcase_add_test(tc, selector_thunks_do_not_leak);
    tcase_add_test(tc, selector_evaluated_by_rts_eval);
    tcase_add_loop_test(tc, selector_fast_paths_keep_their_results, 0, N_GC_CONFIGS);
    tcase_add_test(tc, apply_exact_partial_and_over);
    tcase_add_test(tc, caf_kept_while_reachable_then_reverted);
    tcase_add_test(tc, caf_kept_through_an_srt);
    tcase_add_test(tc, caf_kept_for_ever_with_keep_cafs);
    suite_add_tcase(s, tc);
    return test_run(s);
}
