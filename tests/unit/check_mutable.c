/*
 * Mutable objects and their barriers: card marking (a young pointer
 * written into one card of an old array is found by a minor collection,
 * which scans only the dirty cards), freezing and thawing, MUT_VAR and
 * SMALL_MUT_ARR_PTRS clean/dirty across collections.
 */
#include <check.h>
#include <stdlib.h>

#include "sm/block.h"
#include "sm/scav.h"
#include "test_util.h"

static const StgInfoTable box_info = HS_CONSTR_INFO(0, 0, 1, "test:Int");

static StgClosure *mk_int(Capability *cap, StgWord v)
{
    StgClosure *c = (StgClosure *)rts_alloc(cap, 2);
    c->info = &box_info;
    ((StgWord *)c->payload)[0] = v;
    return c;
}
static StgWord int_of(StgClosure *c)
{
    return ((StgWord *)UNTAG(c)->payload)[0];
}
static uint32_t gen_of(const void *p)
{
    return Bdescr(UNTAG((const StgClosure *)p))->gen_no;
}

/* Two major collections: whatever is live is in the oldest generation. */
static void promote(void)
{
    performMajorGC();
    performMajorGC();
}

START_TEST(minor_gc_scans_only_dirty_cards)
{
    test_start_rts("check_mutable", "-A64k", 1);
    Capability *cap = rts_lock();
    enum { N = 10000 }; /* 79 cards */
    StgClosure **r = rts_push_roots(cap, 1);
    r[0] = (StgClosure *)rts_new_array(cap, N, NULL);
    StgMutArrPtrs *a = (StgMutArrPtrs *)r[0];
    for (StgWord i = 0; i < N; i++) {
        StgClosure *x = mk_int(cap, i);
        a = (StgMutArrPtrs *)r[0];
        rts_write_array(cap, a, i, x);
    }
    promote();
    a = (StgMutArrPtrs *)r[0];
    ck_assert_uint_eq(gen_of(a), 1);
    ck_assert_ptr_eq(a->info, &stg_MUT_ARR_PTRS_CLEAN_info);

    /* Nothing written: a minor GC looks at no card. */
    uint64_t before = scav_cards_scanned;
    performGC();
    ck_assert_uint_eq(scav_cards_scanned - before, 0);

    /* One young pointer in one card: exactly that card is scanned, and followed. */
    StgClosure *young = mk_int(cap, 424242);
    a = (StgMutArrPtrs *)r[0];
    rts_write_array(cap, a, 5000, young);
    ck_assert_ptr_eq(a->info, &stg_MUT_ARR_PTRS_DIRTY_info);
    before = scav_cards_scanned;
    performGC();
    ck_assert_uint_eq(scav_cards_scanned - before, 1);
    for (int i = 0; i < 5; i++) {
        StgClosure *junk = mk_int(cap, 1);
        (void)junk;
        performGC();
    }
    a = (StgMutArrPtrs *)r[0];
    ck_assert_uint_eq(int_of(a->payload[5000]), 424242);
    ck_assert_uint_eq(int_of(a->payload[4999]), 4999);
    /* The young object was promoted to the array's generation: clean again. */
    ck_assert_uint_eq(gen_of(a->payload[5000]), 1);
    ck_assert_ptr_eq(a->info, &stg_MUT_ARR_PTRS_CLEAN_info);

    /* Writes into two cards: two cards scanned. */
    young = mk_int(cap, 7);
    a = (StgMutArrPtrs *)r[0];
    rts_write_array(cap, a, 0, young);
    young = mk_int(cap, 8);
    a = (StgMutArrPtrs *)r[0];
    rts_write_array(cap, a, N - 1, young);
    before = scav_cards_scanned;
    performGC();
    ck_assert_uint_eq(scav_cards_scanned - before, 2);
    a = (StgMutArrPtrs *)r[0];
    ck_assert_uint_eq(int_of(a->payload[0]) + int_of(a->payload[N - 1]), 15);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

START_TEST(frozen_arrays_leave_the_remembered_set)
{
    test_start_rts("check_mutable", "-A64k", 1);
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 1);
    r[0] = (StgClosure *)rts_new_array(cap, 1000, NULL);
    promote();
    StgClosure *young = mk_int(cap, 9);
    StgMutArrPtrs *a = (StgMutArrPtrs *)r[0];
    rts_write_array(cap, a, 10, young);
    rts_freeze_array(cap, a);
    ck_assert_ptr_eq(a->info, &stg_MUT_ARR_PTRS_FROZEN_DIRTY_info);
    /*
     * A mutable object's referents are not promoted eagerly: the first minor
     * GC only ages the young value in generation 0, so the array stays dirty;
     * the second promotes it and the array is clean (and off the set).
     */
    performGC();
    a = (StgMutArrPtrs *)r[0];
    ck_assert_ptr_eq(a->info, &stg_MUT_ARR_PTRS_FROZEN_DIRTY_info);
    ck_assert_uint_eq(gen_of(a->payload[10]), 0);
    performGC();
    a = (StgMutArrPtrs *)r[0];
    ck_assert_ptr_eq(a->info, &stg_MUT_ARR_PTRS_FROZEN_CLEAN_info);
    ck_assert_uint_eq(gen_of(a->payload[10]), 1);
    ck_assert_uint_eq(int_of(a->payload[10]), 9);
    /* Frozen and clean: minor collections do not look at it. */
    uint64_t before = scav_cards_scanned;
    performGC();
    ck_assert_uint_eq(scav_cards_scanned - before, 0);
    /* Thawed: mutable and remembered again, writes work. */
    rts_thaw_array(cap, a);
    ck_assert_ptr_eq(a->info, &stg_MUT_ARR_PTRS_DIRTY_info);
    young = mk_int(cap, 10);
    a = (StgMutArrPtrs *)r[0];
    rts_write_array(cap, a, 999, young);
    performGC();
    a = (StgMutArrPtrs *)r[0];
    ck_assert_uint_eq(int_of(a->payload[999]), 10);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

START_TEST(mut_vars_and_small_arrays_clean_and_dirty)
{
    test_start_rts("check_mutable", "-A64k", 1);
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 2);
    r[0] = (StgClosure *)rts_new_mut_var(cap, NULL);
    r[1] = (StgClosure *)rts_new_small_array(cap, 30, NULL);
    promote();
    ck_assert_uint_eq(gen_of(r[0]), 1);
    ck_assert_ptr_eq(UNTAG(r[0])->info, &stg_MUT_VAR_CLEAN_info);
    for (StgWord round = 0; round < 50; round++) {
        StgClosure *young = mk_int(cap, round);
        rts_write_mut_var(cap, (StgMutVar *)r[0], young);
        ck_assert_ptr_eq(UNTAG(r[0])->info, &stg_MUT_VAR_DIRTY_info);
        young = mk_int(cap, round * 2);
        rts_write_small_array(cap, (StgSmallMutArrPtrs *)r[1], round % 30, young);
        for (int i = 0; i < 100; i++)
            mk_int(cap, 0); /* garbage, and sometimes a collection */
        /* Aged once (still young: the objects stay dirty), then promoted (clean). */
        performGC();
        ck_assert_ptr_eq(UNTAG(r[0])->info, &stg_MUT_VAR_DIRTY_info);
        ck_assert_ptr_eq(UNTAG(r[1])->info, &stg_SMALL_MUT_ARR_PTRS_DIRTY_info);
        performGC();
        ck_assert_uint_eq(int_of(rts_read_mut_var((StgMutVar *)r[0])), round);
        ck_assert_uint_eq(int_of(((StgSmallMutArrPtrs *)r[1])->payload[round % 30]), round * 2);
        ck_assert_ptr_eq(UNTAG(r[0])->info, &stg_MUT_VAR_CLEAN_info);
        ck_assert_ptr_eq(UNTAG(r[1])->info, &stg_SMALL_MUT_ARR_PTRS_CLEAN_info);
    }
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/*
 * The public size helpers against 128-bit arithmetic, for every StgWord near
 * the rounding boundaries and near 2^64 (Note [Impossible sizes] in
 * rts/sm/alloc.c: they must never wrap).
 */
START_TEST(size_helpers_never_wrap)
{
    typedef unsigned __int128 u128;
    StgWord samples[4096];
    int n = 0;
    for (StgWord k = 0; k < 1024; k++) {
        samples[n++] = k;
        samples[n++] = (StgWord)0 - 1 - k;
        samples[n++] = ((StgWord)1 << 63) - 512 + k;
        samples[n++] = ((StgWord)1 << 58) - 512 + k;
    }
    for (int i = 0; i < n; i++) {
        StgWord x = samples[i];
        u128 words = SIZEOF_W(StgArrBytes) + ((u128)x + WORD_SIZE - 1) / WORD_SIZE;
        ck_assert_msg(arr_words_size_w(x) == (StgWord)words && words >> 64 == 0,
                      "arr_words_size_w(%lu) = %lu", (unsigned long)x,
                      (unsigned long)arr_words_size_w(x));
        u128 cards = ((u128)x + 127) / 128;
        u128 card_words = (cards + WORD_SIZE - 1) / WORD_SIZE;
        ck_assert_msg(mut_arr_ptrs_card_words(x) == (StgWord)card_words,
                      "mut_arr_ptrs_card_words(%lu) = %lu", (unsigned long)x,
                      (unsigned long)mut_arr_ptrs_card_words(x));
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mutable");
    TCase *tc = tcase_create("mutable");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, minor_gc_scans_only_dirty_cards);
    tcase_add_test(tc, frozen_arrays_leave_the_remembered_set);
    tcase_add_test(tc, mut_vars_and_small_arrays_clean_and_dirty);
    tcase_add_test(tc, size_helpers_never_wrap);
    suite_add_tcase(s, tc);
    return test_run(s);
}
