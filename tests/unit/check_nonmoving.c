/*
 * The nonmoving old generation (-xn, issue 14, the stop-the-world step):
 * its size classes, its segments against a model (which slots live, which
 * are reused, which segments go back), nothing moving, the epoch bytes
 * wrapping round (hundreds of major collections under -DS, which checks
 * that no slot holds the epoch to come) and the mark stack's overflow
 * walk over segments. The stress suite (check_stress) runs the mock
 * mutator under -xn; these check what a checksum cannot see.
 */
#include <check.h>
#include <stdlib.h>

#include "sm/block.h"
#include "sm/mark.h"
#include "sm/nonmoving.h"
#include "sm/policy.h"
#include "sm/storage.h"
#include "evac_sparse.h"
#include "test_util.h"

/* List cells for the overflow test: next, side. */
static const StgInfoTable pair_info = HS_CONSTR_INFO(1, 2, 2, "test:P");

/* --- size classes ----------------------------------------------------------------- */

static void classes_run(const char *opts, uint32_t dense)
{
    test_start_rts("check_nonmoving", opts, 0);
    uint32_t n = nm_n_classes();
    ck_assert_uint_gt(n, dense);
    uint32_t prev = 0;
    for (StgWord w = 1; w < LARGE_OBJECT_THRESHOLD_W; w++) {
        uint32_t c = nm_class_of(w);
        StgWord slot = nm_class_words(c);
        ck_assert_uint_ge(slot, w);
        ck_assert_uint_ge(c, prev); /* monotone */
        prev = c;
        if (w >= 2 && w <= 1 + dense)
            ck_assert_uint_eq(slot, w); /* dense: exact */
        else if (w > 1 + dense)
            ck_assert_uint_le(2 * slot, 3 * w); /* sparse: at most a third wasted */
        if (c > 0)
            ck_assert_uint_lt(nm_class_words(c - 1), w); /* the smallest class that fits */
    }
    ck_assert_uint_eq(nm_class_words(n - 1), LARGE_OBJECT_THRESHOLD_W - 1);
    hs_exit();
}

START_TEST(size_classes)
{
    classes_run("-xn", 16);
}
END_TEST

START_TEST(size_classes_two_dense)
{
    classes_run("-xn --nonmoving-dense-allocator-count=2", 2);
}
END_TEST

/* --- segments against a model ------------------------------------------------------- */

#define MODEL_LEAVES 7500

START_TEST(segments_model)
{
    /* Free slots are reused in place: without evacuation, whose sources take none. */
    test_start_rts("check_nonmoving", "-xn --nonmoving-evac-occupancy=0", 1);
    ck_assert_ptr_eq(oldest_gen->policy, &gen_policy_nonmoving);
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 1);
    TestRng rng;
    rng_init(&rng, test_seed("segments_model"));
    uint32_t cls = nm_class_of(TEST_LEAF_WORDS);
    NmClassCensus base, k;
    performMajorGC();
    nm_class_census(cls, &base);

    /* An array of leaves (a large object), promoted: aged once, then into segments. */
    r[0] = (StgClosure *)rts_new_array(cap, MODEL_LEAVES, NULL);
    for (StgWord i = 0; i < MODEL_LEAVES; i++)
        rts_write_array(cap, (StgMutArrPtrs *)r[0], i, test_new_leaf(cap, i));
    performMajorGC();
    performMajorGC();
    StgMutArrPtrs *a = (StgMutArrPtrs *)r[0];
    static StgClosure *addr[MODEL_LEAVES];
    static bool kept[MODEL_LEAVES];
    for (StgWord i = 0; i < MODEL_LEAVES; i++) {
        addr[i] = UNTAG(a->payload[i]);
        ck_assert_msg(nm_is_live_slot(addr[i]), "leaf %lu is not in a live slot", (unsigned long)i);
        ck_assert_ptr_eq(Bdescr(addr[i])->gen, oldest_gen);
    }
    nm_class_census(cls, &k);
    ck_assert_uint_eq(k.live_slots, base.live_slots + MODEL_LEAVES);
    ck_assert_uint_eq(k.slot_words, TEST_LEAF_WORDS);
    StgWord full_segments = k.segments;
    ck_assert_uint_ge(full_segments * (k.slots / k.segments), MODEL_LEAVES);

    /* Keep a random third; whole runs go, so some segments empty entirely. */
    StgWord n_kept = 0;
    for (StgWord i = 0; i < MODEL_LEAVES; i++) {
        /* Runs of 2500 (over two segments): all kept, all dead (an empty segment at least), a
         * third. */
        StgWord run = i / 2500;
        kept[i] = run == 0 || (run == 2 && rng_below(&rng, 3) == 0);
        if (!kept[i])
            rts_write_array(cap, a, i, NULL);
        else
            n_kept++;
    }
    performMajorGC();
    a = (StgMutArrPtrs *)r[0];
    for (StgWord i = 0; i < MODEL_LEAVES; i++) {
        if (kept[i]) {
            /* Nothing moves. */
            ck_assert_ptr_eq(UNTAG(a->payload[i]), addr[i]);
            ck_assert(nm_is_live_slot(addr[i]));
            test_check_leaf(addr[i], i);
        } else {
            ck_assert_msg(!nm_is_live_slot(addr[i]), "dead leaf %lu's slot is live",
                          (unsigned long)i);
        }
    }
    nm_class_census(cls, &k);
    ck_assert_uint_eq(k.live_slots, base.live_slots + n_kept);
    /* Empty segments went back to the block allocator. */
    ck_assert_uint_lt(k.segments, full_segments);
    StgWord free_slots = k.slots - k.live_slots;
    ck_assert_uint_eq(k.slots, k.segments * (k.slots / k.segments));

    /* New leaves, promoted by minor collections, go into the free slots: no new segment. */
    StgWord n_new = free_slots < MODEL_LEAVES - n_kept ? free_slots : MODEL_LEAVES - n_kept;
    StgWord segments_before = k.segments, placed = 0;
    for (StgWord i = 0; i < MODEL_LEAVES && placed < n_new; i++)
        if (!kept[i]) {
            rts_write_array(cap, (StgMutArrPtrs *)r[0], i, test_new_leaf(cap, i + 1000000));
            placed++;
        }
    performGC();
    performGC();
    nm_class_census(cls, &k);
    ck_assert_uint_eq(k.segments, segments_before);
    ck_assert_uint_eq(k.live_slots, base.live_slots + n_kept + n_new);
    a = (StgMutArrPtrs *)r[0];
    StgWord reused = 0;
    placed = 0;
    for (StgWord i = 0; i < MODEL_LEAVES && placed < n_new; i++)
        if (!kept[i]) {
            StgClosure *c = UNTAG(a->payload[i]);
            ck_assert(nm_is_live_slot(c));
            test_check_leaf(c, i + 1000000);
            for (StgWord j = 0; j < MODEL_LEAVES; j++)
                if (!kept[j] && addr[j] == c) {
                    reused++;
                    break;
                }
            placed++;
        }
    ck_assert_uint_gt(reused, 0); /* dead leaves' slots, taken again */
    ck_assert(nm_occupancy() > 0 && nm_occupancy() <= 1);

    /*
     * The occupancy as a mark begins (-s's second figure) takes the census as
     * it stands: every class's slots in use, the refilled holes among them.
     */
    uint64_t used_now = 0, slots_now = 0, used0, slots0, used1, slots1;
    for (uint32_t c = 0; c < nm_n_classes(); c++) {
        NmClassCensus kc;
        nm_class_census(c, &kc);
        used_now += kc.live_slots;
        slots_now += kc.slots;
    }
    ck_assert_uint_ge(used_now, n_kept + n_new);
    nm_start_census(&used0, &slots0);

    /* Everything dropped: the class is back where it started. */
    r[0] = NULL;
    performMajorGC();
    nm_start_census(&used1, &slots1);
    ck_assert_uint_eq(used1 - used0, used_now);
    ck_assert_uint_eq(slots1 - slots0, slots_now);
    ck_assert(nm_mean_start_occupancy() > 0 && nm_mean_start_occupancy() <= 1);
    nm_class_census(cls, &k);
    ck_assert_uint_eq(k.live_slots, base.live_slots);
    ck_assert_uint_eq(k.segments, base.segments);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/* --- epochs come round: many major collections, checked ---------------------------- */

#define WRAP_LEAVES 300
#define WRAP_ROUNDS 700 /* the epoch byte wraps after 255 */

START_TEST(epochs_wrap)
{
    test_start_rts("check_nonmoving", "-xn -A64k", 1);
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 2);
    TestRng rng;
    rng_init(&rng, test_seed("epochs_wrap"));
    static StgWord val[WRAP_LEAVES];
    r[0] = (StgClosure *)rts_new_array(cap, WRAP_LEAVES, NULL);
    for (StgWord i = 0; i < WRAP_LEAVES; i++) {
        val[i] = i;
        rts_write_array(cap, (StgMutArrPtrs *)r[0], i, test_new_leaf(cap, i));
    }
    /*
     * Leaves that die at once, in the working set's segment above it: the
     * replacements below take the lowest free slots, so these stay dead
     * (their bytes stale) while the epochs come round.
     */
    r[1] = (StgClosure *)rts_new_array(cap, 2 * WRAP_LEAVES, NULL);
    for (StgWord i = 0; i < 2 * WRAP_LEAVES; i++)
        rts_write_array(cap, (StgMutArrPtrs *)r[1], i, test_new_leaf(cap, i));
    performMajorGC();
    performMajorGC();
    r[1] = NULL;
    performMajorGC();
    uint32_t cls = nm_class_of(TEST_LEAF_WORDS);
    NmClassCensus k;
    nm_class_census(cls, &k);
    StgWord base_live = k.live_slots - WRAP_LEAVES; /* the runtime's own 4-word objects */
    ck_assert_uint_le(base_live, 16);
    uint32_t majors = oldest_gen->collections;
    for (int round = 0; round < WRAP_ROUNDS; round++) {
        /* Replace a few leaves: some slots die, young leaves take free ones. */
        for (int j = 0; j < 10; j++) {
            StgWord i = rng_below(&rng, WRAP_LEAVES);
            val[i] = (StgWord)round * 1000 + (StgWord)j;
            rts_write_array(cap, (StgMutArrPtrs *)r[0], i, test_new_leaf(cap, val[i]));
        }
        if (round % 3 == 2)
            performGC();
        performMajorGC(); /* -DS in the debug way: nm_check on every one */
        StgMutArrPtrs *a = (StgMutArrPtrs *)r[0];
        StgWord old = 0; /* the leaves in segments (the newest age in generation 0 first) */
        for (StgWord i = 0; i < WRAP_LEAVES; i++) {
            test_check_leaf(UNTAG(a->payload[i]), val[i]);
            old += nm_is_live_slot(UNTAG(a->payload[i]));
        }
        ck_assert_uint_ge(old, WRAP_LEAVES - 10);
        /* Exactly those live: no long-dead slot came back when its epoch did. */
        nm_class_census(cls, &k);
        ck_assert_uint_eq(k.live_slots, base_live + old);
    }
    ck_assert_uint_ge(oldest_gen->collections - majors, WRAP_ROUNDS);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/* --- the mark stack's overflow walk over segments ---------------------------------- */

START_TEST(mark_stack_overflow)
{
    test_start_rts("check_nonmoving", "-xn", 1);
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 2); /* the list, the next side pair */
    /*
     * A list of cells (next, side), side = (leaf, NULL): with room for one
     * entry on the stack, a side pair pushed while its cell's next is on it
     * overflows, and only the overflow walk finds its leaf.
     */
    for (StgWord i = 0; i < 3000; i++) {
        r[1] = test_new_leaf(cap, i);
        StgClosure *side = (StgClosure *)rts_alloc(cap, 5);
        side->info = &pair_info;
        side->payload[0] = r[1];
        side->payload[1] = NULL;
        ((StgWord *)side->payload)[2] = i;
        ((StgWord *)side->payload)[3] = 0;
        r[1] = side;
        StgClosure *c = (StgClosure *)rts_alloc(cap, 5);
        c->info = &pair_info;
        c->payload[0] = r[0];
        c->payload[1] = r[1];
        ((StgWord *)c->payload)[2] = i;
        ((StgWord *)c->payload)[3] = 0;
        r[0] = c;
    }
    r[1] = NULL;
    performMajorGC();
    performMajorGC();
    uint64_t overflows = mark_stack_overflows;
    mark_stack_set_limit(1);
    performMajorGC();
    performMajorGC();
    mark_stack_set_limit(0);
    ck_assert_uint_gt(mark_stack_overflows, overflows);
    StgWord n = 3000;
    for (StgClosure *p = r[0]; p; p = UNTAG(p)->payload[0]) {
        n--;
        StgClosure *side = UNTAG(UNTAG(p)->payload[1]);
        StgClosure *leaf = UNTAG(side->payload[0]);
        ck_assert(nm_is_live_slot(UNTAG(p)) && nm_is_live_slot(side));
        ck_assert_msg(nm_is_live_slot(leaf), "leaf %lu was not marked", (unsigned long)n);
        ck_assert_uint_eq(((StgWord *)UNTAG(p)->payload)[2], n);
        test_check_leaf(leaf, n);
    }
    ck_assert_uint_eq(n, 0);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/* --- evacuating sparse segments (tests/support/evac_sparse.c) ------------------------ */

static void major(void)
{
    performMajorGC();
}

START_TEST(evacuate_sparse)
{
    evac_sparse_run("-xn --nonmoving-evac-occupancy=0.95", major);
}
END_TEST

START_TEST(evacuate_sparse_g3)
{
    evac_sparse_run("-xn -G3 -A64k --nonmoving-evac-occupancy=0.95", major);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("nonmoving");
    TCase *tc = tcase_create("nonmoving");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, size_classes);
    tcase_add_test(tc, size_classes_two_dense);
    tcase_add_test(tc, segments_model);
    tcase_add_test(tc, epochs_wrap);
    tcase_add_test(tc, mark_stack_overflow);
    tcase_add_test(tc, evacuate_sparse);
    tcase_add_test(tc, evacuate_sparse_g3);
    suite_add_tcase(s, tc);
    return test_run(s);
}
