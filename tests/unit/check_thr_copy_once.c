/*
 * Parallel collection copies each object exactly once (Note [Forwarding by
 * CAS] in rts/sm/evac.h).
 *
 * Two old arrays, A on capability 0's remembered set and B on capability
 * 1's, point at the same young objects in the same order: A[i] == B[i]. A
 * parallel collection gives the two sets to different GC threads (each
 * takes its own capabilities' sets), so the threads race for the same
 * objects all along the arrays (the later one catches up quickly, as it
 * finds the objects forwarded, and then races the other). Each element is a small
 * structure whose second node also points at the previous element's first
 * node, so objects are shared within the young data too. After every
 * collection: A[i] and B[N-1-i] are still the same object, the links
 * between elements are identities, every value is intact, and nothing is
 * left in the nursery. An object copied twice would show up as two
 * addresses. Each round must have been a parallel collection.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm/block.h"
#include "sm/gc.h"
#include "sm/gc_par.h"
#include "test_util.h"

static const char *const configs[] = {
    "-N2 -qg0 -qb0 --parallel-gc-threshold=0",
    "-N2 -qg0 -qb -qi8 --parallel-gc-threshold=0", /* no balancing: -qi brings the idle capability
                                                    */
    "-N4 -qn4 -qb0 --parallel-gc-threshold=0",
};
#define N_CONFIGS ((int)(sizeof configs / sizeof configs[0]))

enum { N = 20000 };

static const StgInfoTable leaf_info = HS_CONSTR_INFO(1, 0, 1, "test:Leaf");
static const StgInfoTable node_info = HS_CONSTR_INFO(1, 2, 1, "test:Node");

typedef struct {
    const StgInfoTable *info;
    StgClosure *leaf, *next;
    StgWord value;
} Node;
typedef struct {
    const StgInfoTable *info;
    StgWord value;
} Leaf;

static int rounds(void)
{
    const char *s = getenv("HSRTS_STRESS_ITERS");
    return s ? atoi(s) / 6 + 1 : 50;
}

/* Element i: node1(leaf(i), node2, i); node2(leaf(i+N), element i-1's node1, i+N). */
static void fill_a(Capability *cap, HsStablePtr a_sp, StgWord base)
{
    for (StgWord i = 0; i < N; i++) {
        StgWord *w = (StgWord *)rts_alloc(cap, 12); /* may collect: nothing unrooted is held */
        StgMutArrPtrs *a = (StgMutArrPtrs *)deRefStablePtr(a_sp);
        Leaf *l1 = (Leaf *)w, *l2 = (Leaf *)(w + 6);
        Node *n1 = (Node *)(w + 2), *n2 = (Node *)(w + 8);
        *l1 = (Leaf){&leaf_info, base + i};
        *l2 = (Leaf){&leaf_info, base + i + N};
        *n2 = (Node){&node_info, (StgClosure *)l2, i > 0 ? a->payload[i - 1] : NULL, base + i + N};
        *n1 = (Node){&node_info, (StgClosure *)l1, (StgClosure *)n2, base + i};
        rts_write_array(cap, a, i, (StgClosure *)n1);
    }
}

/* Check's assertions write to a pipe each time: test in C, assert only on a failure. */
#define REQUIRE(cond, ...)             \
    do {                               \
        if (!(cond))                   \
            ck_abort_msg(__VA_ARGS__); \
    } while (0)

static void check_elements(const char *name, int round, StgMutArrPtrs *a, StgMutArrPtrs *b,
                           StgWord base)
{
    for (StgWord i = 0; i < N; i++) {
        Node *n1 = (Node *)a->payload[i];
        REQUIRE(n1 == (Node *)b->payload[i],
                "%s: round %d: element %lu copied twice (A has %p, B has %p)", name, round,
                (unsigned long)i, (void *)n1, (void *)b->payload[i]);
        REQUIRE(!(Bdescr(n1)->flags & BF_NURSERY), "%s: element %lu left in the nursery", name,
                (unsigned long)i);
        Node *n2 = (Node *)n1->next;
        REQUIRE(n1->info == &node_info && n1->value == base + i &&
                    ((Leaf *)n1->leaf)->value == base + i && n2->info == &node_info &&
                    n2->value == base + i + N && ((Leaf *)n2->leaf)->value == base + i + N,
                "%s: round %d: element %lu's values changed", name, round, (unsigned long)i);
        REQUIRE(n2->next == (i > 0 ? a->payload[i - 1] : NULL),
                "%s: round %d: element %lu's link to %lu is not the object itself", name, round,
                (unsigned long)i, (unsigned long)i - 1);
    }
}

START_TEST(copy_once)
{
    const char *opts = configs[_i];
    char name[128];
    snprintf(name, sizeof name, "copy_once[%s]", opts);
    test_start_rts("check_thr_copy_once", opts, 1);

    rts_setInCallCapability(0, 0);
    Capability *cap = rts_lock();
    HsStablePtr a_sp = getStablePtr((StgPtr)rts_new_array(cap, N, NULL));
    HsStablePtr b_sp = getStablePtr((StgPtr)rts_new_array(cap, N, NULL));
    rts_unlock(cap);
    performMajorGC(); /* the arrays are old now: writes to them are remembered */

    uint64_t par_at_start = gc_par_thread(0)->par_collections;
    uint64_t races = 0;
    int n_rounds = rounds();
    for (int r = 0; r < n_rounds; r++) {
        StgWord base = (StgWord)r * 10 * N;
        StgMutArrPtrs *a, *b;
        /* A's writes from capability 0, B's from capability 1: two remembered sets. */
        rts_setInCallCapability(0, 0);
        cap = rts_lock();
        ck_assert_uint_eq(cap->no, 0);
        fill_a(cap, a_sp, base);
        rts_unlock(cap);

        rts_setInCallCapability(1, 0);
        cap = rts_lock();
        ck_assert_uint_eq(cap->no, 1);
        a = (StgMutArrPtrs *)deRefStablePtr(a_sp);
        b = (StgMutArrPtrs *)deRefStablePtr(b_sp);
        for (StgWord i = 0; i < N; i++)
            rts_write_array(cap, b, i, a->payload[i]);
        uint64_t par_before = gc_par_thread(0)->par_collections;
        /* A minor collection: both arrays are remembered, the elements young. */
        performGC();
        ck_assert_msg(gc_par_thread(0)->par_collections > par_before,
                      "%s: round %d: the collection was not parallel", name, r);
        a = (StgMutArrPtrs *)deRefStablePtr(a_sp);
        b = (StgMutArrPtrs *)deRefStablePtr(b_sp);
        check_elements(name, r, a, b, base);
        rts_unlock(cap);
    }
    for (uint32_t t = 0; t < gc_par_n_slots(); t++)
        races += gc_par_thread(t)->copy_races;
    fprintf(stderr, "%s: %d rounds, %llu parallel collections, %llu copy races lost\n", name,
            n_rounds, (unsigned long long)(gc_par_thread(0)->par_collections - par_at_start),
            (unsigned long long)races);
    hs_free_stable_ptr(a_sp);
    hs_free_stable_ptr(b_sp);
    hs_exit();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("thr_copy_once");
    TCase *tc = tcase_create("configs");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, copy_once, 0, N_CONFIGS);
    suite_add_tcase(s, tc);
    return test_run(s);
}
