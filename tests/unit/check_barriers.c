/*
 * The write barriers as the frozen ABI defines them (include/rts/Barriers.h):
 * with the barrier word off, no write reaches the runtime's slow path; with
 * it on, every write kind reports the object, the field and the value it
 * overwrote, before storing; CAS has GHC's semantics; thunk updates report
 * the free variables the thunk held; a weak dereference reports the value
 * it hands out. Built in every way; -DS in the debug way.
 */
#include <check.h>

#include "capability.h"
#include "sm/barrier_sink.h"
#include "test_util.h"

static const StgInfoTable int_info = HS_CONSTR_INFO(0, 0, 1, "test:Int");
static const StgInfoTable pair_info = HS_CONSTR_INFO(0, 2, 0, "test:Pair");

typedef struct {
    StgClosure *obj;
    StgClosure **field;
    StgClosure *old;
} Seen;

static Seen seen[64];
static int n_seen;

static void sink(Capability *cap, StgClosure *obj, StgClosure **field, StgClosure *old)
{
    (void)cap;
    ck_assert_int_lt(n_seen, 64);
    seen[n_seen++] = (Seen){obj, field, old};
}

static StgClosure *mk_int(Capability *cap, StgWord v)
{
    StgClosure *c = (StgClosure *)rts_alloc(cap, 2);
    c->info = &int_info;
    ((StgWord *)c->payload)[0] = v;
    return TAG_CLOSURE(1, c);
}

static void expect_one(StgClosure *obj, StgClosure **field, StgClosure *old)
{
    ck_assert_int_eq(n_seen, 1);
    ck_assert_ptr_eq(seen[0].obj, obj);
    ck_assert_ptr_eq(seen[0].field, field);
    ck_assert_ptr_eq(seen[0].old, old);
    n_seen = 0;
}

/* Roots: r[0] mut var, r[1] array, r[2] small array, r[3..6] values a..d. */
enum { MV, ARR, SARR, A, B, C, D, N_ROOTS };

static StgClosure **setup(Capability *cap)
{
    StgClosure **r = rts_push_roots(cap, N_ROOTS);
    r[A] = mk_int(cap, 1);
    r[B] = mk_int(cap, 2);
    r[C] = mk_int(cap, 3);
    r[D] = mk_int(cap, 4);
    r[MV] = (StgClosure *)rts_new_mut_var(cap, r[A]);
    r[ARR] = (StgClosure *)rts_new_array(cap, 300, r[A]);
    r[SARR] = (StgClosure *)rts_new_small_array(cap, 5, r[A]);
    return r;
}

static void every_write(Capability *cap, StgClosure **r, bool on)
{
    StgMutVar *mv = (StgMutVar *)r[MV];
    StgMutArrPtrs *a = (StgMutArrPtrs *)r[ARR];
    StgSmallMutArrPtrs *sa = (StgSmallMutArrPtrs *)r[SARR];
    StgClosure *res;

    /* Every field written below starts as a, the barrier off meanwhile. */
    StgWord saved = HS_REGS(cap)->barrier;
    HS_REGS(cap)->barrier = 0;
    rts_write_mut_var(cap, mv, r[A]);
    rts_write_array(cap, a, 257, r[A]);
    rts_write_array(cap, a, 3, r[A]);
    rts_write_small_array(cap, sa, 4, r[A]);
    rts_write_small_array(cap, sa, 0, r[A]);
    HS_REGS(cap)->barrier = saved;
    ck_assert_int_eq(n_seen, 0);

    rts_write_mut_var(cap, mv, r[B]);
    ck_assert_ptr_eq(rts_read_mut_var(mv), r[B]);
    if (on)
        expect_one((StgClosure *)mv, &mv->var, r[A]);

    rts_write_array(cap, a, 257, r[B]);
    ck_assert_ptr_eq(a->payload[257], r[B]);
    ck_assert_uint_eq(mut_arr_ptrs_cards(a)[257 >> MUT_ARR_PTRS_CARD_BITS], 1);
    if (on)
        expect_one((StgClosure *)a, &a->payload[257], r[A]);

    rts_write_small_array(cap, sa, 4, r[B]);
    ck_assert_ptr_eq(sa->payload[4], r[B]);
    if (on)
        expect_one((StgClosure *)sa, &sa->payload[4], r[A]);

    /* CAS: a failing one stores nothing and reports nothing; a succeeding one reports. */
    ck_assert_int_eq(rts_cas_mut_var(cap, mv, r[A], r[C], &res), 1);
    ck_assert_ptr_eq(res, r[B]);
    ck_assert_int_eq(n_seen, 0);
    ck_assert_int_eq(rts_cas_mut_var(cap, mv, r[B], r[C], &res), 0);
    ck_assert_ptr_eq(res, r[C]);
    ck_assert_ptr_eq(mv->var, r[C]);
    if (on)
        expect_one((StgClosure *)mv, &mv->var, r[B]);

    ck_assert_int_eq(rts_cas_array(cap, a, 3, r[D], r[C], &res), 1);
    ck_assert_ptr_eq(res, r[A]);
    ck_assert_int_eq(rts_cas_array(cap, a, 3, r[A], r[C], &res), 0);
    ck_assert_ptr_eq(a->payload[3], r[C]);
    if (on)
        expect_one((StgClosure *)a, &a->payload[3], r[A]);

    ck_assert_int_eq(rts_cas_small_array(cap, sa, 0, r[A], r[D], &res), 0);
    ck_assert_ptr_eq(res, r[D]);
    if (on)
        expect_one((StgClosure *)sa, &sa->payload[0], r[A]);
    ck_assert_int_eq(n_seen, 0);
}

START_TEST(barrier_off_means_no_slow_path)
{
    test_start_rts("check_barriers", "", 1);
    sm_barrier_set_sink(sink);
    Capability *cap = rts_lock();
    ck_assert_uint_eq(HS_REGS(cap)->barrier, 0);
    StgClosure **r = setup(cap);
    n_seen = 0;
    every_write(cap, r, false);
    ck_assert_int_eq(n_seen, 0);
    performGC();
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

START_TEST(barrier_on_reports_every_overwritten_value)
{
    test_start_rts("check_barriers", "", 1);
    sm_barrier_set_sink(sink);
    Capability *cap = rts_lock();
    StgClosure **r = setup(cap);
    n_seen = 0;
    HS_REGS(cap)->barrier = 1;
    every_write(cap, r, true);
    HS_REGS(cap)->barrier = 0;
    performMajorGC(); /* the old objects are remembered right: -DS checks it */
    HS_REGS(cap)->barrier = 1;
    every_write(cap, r, true);
    HS_REGS(cap)->barrier = 0;
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/* swap p = Pair (snd p) (fst p): a thunk with two pointer free variables. */
static StgClosure *swap_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)self;
    StgClosure *c = (StgClosure *)rts_alloc(cap, 3);
    c->info = &pair_info;
    c->payload[0] = fv[1];
    c->payload[1] = fv[0];
    return TAG_CLOSURE(1, c);
}
static const StgInfoTable swap_info = HS_THUNK_INFO(swap_entry, 2, 0, "test:swap");

START_TEST(thunk_update_reports_its_free_variables)
{
    test_start_rts("check_barriers", "", 1);
    sm_barrier_set_sink(sink);
    Capability *cap = rts_lock();
    StgClosure **r = setup(cap);
    StgThunk *t = (StgThunk *)rts_alloc(cap, 4);
    t->info = &swap_info;
    t->slot = 0;
    t->payload[0] = r[A];
    t->payload[1] = r[B];
    StgClosure **tr = rts_push_roots(cap, 1);
    tr[0] = (StgClosure *)t;
    n_seen = 0;
    HS_REGS(cap)->barrier = 1;
    StgClosure *v = rts_eval(cap, tr[0]);
    HS_REGS(cap)->barrier = 0;
    ck_assert_ptr_eq(UNTAG(v)->payload[0], r[B]);
    ck_assert_int_eq(n_seen, 2);
    t = (StgThunk *)tr[0];
    ck_assert_ptr_eq(seen[0].obj, (StgClosure *)t);
    ck_assert_ptr_eq(seen[0].old, r[A]);
    ck_assert_ptr_eq(seen[1].old, r[B]);
    ck_assert_ptr_eq(t->info, &stg_IND_info);
    /* Off again: the next update reports nothing. */
    n_seen = 0;
    StgThunk *t2 = (StgThunk *)rts_alloc(cap, 4);
    t2->info = &swap_info;
    t2->slot = 0;
    t2->payload[0] = r[C];
    t2->payload[1] = r[D];
    (void)rts_eval(cap, (StgClosure *)t2);
    ck_assert_int_eq(n_seen, 0);
    rts_pop_roots(cap, tr);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

START_TEST(weak_dereference_reports_the_value)
{
    test_start_rts("check_barriers", "", 1);
    sm_barrier_set_sink(sink);
    Capability *cap = rts_lock();
    StgClosure **r = setup(cap);
    StgWeak *w = rts_mk_weak(cap, r[A], r[B], NULL, NULL);
    StgClosure **wr = rts_push_roots(cap, 1);
    wr[0] = (StgClosure *)w;
    StgClosure *v = NULL;
    n_seen = 0;
    ck_assert(rts_deref_weak(cap, (StgWeak *)wr[0], &v));
    ck_assert_ptr_eq(v, r[B]);
    ck_assert_int_eq(n_seen, 0);
    HS_REGS(cap)->barrier = 1;
    ck_assert(rts_deref_weak(cap, (StgWeak *)wr[0], &v));
    HS_REGS(cap)->barrier = 0;
    expect_one(wr[0], &((StgWeak *)wr[0])->value, r[B]);
    /* Dead: false, and NULL. */
    rts_finalize_weak(cap, (StgWeak *)wr[0]);
    ck_assert(!rts_deref_weak(cap, (StgWeak *)wr[0], &v));
    ck_assert_ptr_null(v);
    rts_pop_roots(cap, wr);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("barriers");
    TCase *tc = tcase_create("barriers");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, barrier_off_means_no_slow_path);
    tcase_add_test(tc, barrier_on_reports_every_overwritten_value);
    tcase_add_test(tc, thunk_update_reports_its_free_variables);
    tcase_add_test(tc, weak_dereference_reports_the_value);
    suite_add_tcase(s, tc);
    return test_run(s);
}
