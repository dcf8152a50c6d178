/*
 * See evac_sparse.h.
 */
#include "evac_sparse.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "Rts.h"
#include "sm/nonmoving.h"
#include "test_util.h"

#define EVAC_LEAVES 60000
#define EVAC_EVERY  4 /* keep every 4th leaf: the leaves' segments are a quarter full */
#define EVAC_NAMES  64
/* A list cell: head, tail. */
static const StgInfoTable cons_info = HS_CONSTR_INFO(1, 2, 0, "test:Cons");
static int evac_fin[EVAC_NAMES];

static void evac_count_fin(void *env)
{
    __atomic_fetch_add(&evac_fin[(intptr_t)env], 1, __ATOMIC_RELAXED);
}

static StgClosure *cons(Capability *cap, StgClosure **head, StgClosure **tail)
{
    StgClosure *c = (StgClosure *)rts_alloc(cap, 3);
    c->info = &cons_info;
    c->payload[0] = *head;
    c->payload[1] = *tail;
    return TAG_CLOSURE(1, c);
}

/* The kept list's leaves against the model: their values, in order. */
static void check_kept(StgClosure *l, StgWord n)
{
    StgWord i = 0;
    for (; l; l = UNTAG(l)->payload[1], i++) {
        ck_assert_uint_lt(i, n);
        StgClosure *leaf = UNTAG(UNTAG(l)->payload[0]);
        ck_assert_msg(nm_is_live_slot(leaf), "kept leaf %lu is not in a live slot",
                      (unsigned long)i);
        test_check_leaf(leaf, i * EVAC_EVERY);
    }
    ck_assert_uint_eq(i, n);
}

static double class_occupancy(uint32_t cls, NmClassCensus *k)
{
    nm_class_census(cls, k);
    return k->slots ? (double)k->live_slots / (double)k->slots : 1.0;
}

/*
 * A list of leaves, every EVAC_EVERY-th kept: the leaves' class is a quarter
 * full after the sweep. Minor collections copy the kept leaves into dense
 * slots, the next major one frees the old copies and their segments; the
 * leaves' values, their stable names and weak pointers keyed on them (not
 * finalised while the leaves live, finalised once when they die) come through.
 * `cycle` is what a major collection is (a concurrent cycle in the threaded
 * suite).
 */
void evac_sparse_run(const char *opts, void (*cycle)(void))
{
    test_start_rts("evac_sparse", opts, 1);
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 6);
    /* r[0] all leaves, r[1] the kept ones, r[2] a cell, r[3] names, r[4] weaks, r[5] tmp */
    uint32_t cls = nm_class_of(TEST_LEAF_WORDS);
    memset(evac_fin, 0, sizeof evac_fin);
    for (StgWord i = 0; i < EVAC_LEAVES; i++) {
        r[5] = test_new_leaf(cap, i);
        r[0] = cons(cap, &r[5], &r[0]);
    }
    r[5] = NULL;
    /* Everything old (a full collection in every way: a young leaf would be promoted densely). */
    performMajorGC();
    performMajorGC();
    NmClassCensus k;
    ck_assert(class_occupancy(cls, &k) > 0.9);

    /* The kept leaves: r[0] is newest first, so r[1] ends oldest first. */
    StgWord n_kept = 0;
    r[3] = (StgClosure *)rts_new_array(cap, EVAC_NAMES, NULL);
    r[4] = (StgClosure *)rts_new_array(cap, EVAC_NAMES, NULL);
    static StgWord sn_int[EVAC_NAMES];
    for (r[2] = r[0]; r[2]; r[2] = UNTAG(r[2])->payload[1]) {
        StgClosure *leaf = UNTAG(r[2])->payload[0];
        StgWord v = ((StgWord *)UNTAG(leaf)->payload)[0];
        if (v % EVAC_EVERY != 0)
            continue;
        r[5] = leaf;
        r[1] = cons(cap, &r[5], &r[1]);
        StgWord j = v / EVAC_EVERY;
        if (j % 16 == 0 && j / 16 < EVAC_NAMES) {
            StgWord t = j / 16;
            StgStableName *sn = rts_make_stable_name(cap, r[5]);
            sn_int[t] = rts_stable_name_to_int(sn);
            rts_write_array(cap, (StgMutArrPtrs *)r[3], t, (StgClosure *)sn);
            StgWeak *w = rts_mk_weak(cap, r[5], NULL, evac_count_fin, (void *)(intptr_t)t);
            rts_write_array(cap, (StgMutArrPtrs *)r[4], t, (StgClosure *)w);
        }
        n_kept++;
    }
    r[5] = NULL;
    ck_assert_uint_eq(n_kept, EVAC_LEAVES / EVAC_EVERY);
    /* Sparse now; the census before any copying (the same pause chooses the sources). */
    r[0] = NULL;
    performMajorGC();
    NmClassCensus sparse;
    double before = class_occupancy(cls, &sparse);
    ck_assert_msg(before < 0.35, "the leaves' class is %.3f full", before);
    check_kept(r[1], n_kept);

    /* Minor collections copy; the next cycle frees the old copies (and a later one retires). */
    uint64_t copied = nm_evac_copied();
    for (int round = 0; round < 4; round++) {
        for (int g = 0; g < 6; g++) {
            performGC();
            check_kept(r[1], n_kept);
        }
        cycle();
        check_kept(r[1], n_kept);
    }
    double after = class_occupancy(cls, &k);
    fprintf(stderr,
            "evacuate_sparse[%s]: leaves' class %.3f full (%lu segments) before, %.3f (%lu) after; "
            "%llu copied\n",
            opts, before, (unsigned long)sparse.segments, after, (unsigned long)k.segments,
            (unsigned long long)(nm_evac_copied() - copied));
    ck_assert_msg(nm_evac_copied() - copied >= n_kept / 2, "%llu leaves copied",
                  (unsigned long long)(nm_evac_copied() - copied));
    ck_assert_msg(after >= 0.9, "the leaves' class is %.3f full after evacuation (%.3f before)",
                  after, before);
    ck_assert_msg(k.segments * 2 < sparse.segments, "%lu segments of %lu left",
                  (unsigned long)k.segments, (unsigned long)sparse.segments);
    check_kept(r[1], n_kept);

    /* Identity: one stable name whichever copy asks; the weaks' keys live. */
    StgWord t = 0;
    for (StgClosure *l = r[1]; l; l = UNTAG(l)->payload[1]) {
        StgClosure *leaf = UNTAG(l)->payload[0];
        StgWord j = ((StgWord *)UNTAG(leaf)->payload)[0] / EVAC_EVERY;
        if (j % 16 != 0 || j / 16 >= EVAC_NAMES)
            continue;
        t = j / 16;
        StgStableName *sn = rts_make_stable_name(cap, leaf);
        ck_assert_uint_eq(rts_stable_name_to_int(sn), sn_int[t]);
        ck_assert_ptr_eq(sn, ((StgMutArrPtrs *)r[3])->payload[t]);
        ck_assert_msg(evac_fin[t] == 0, "weak %lu was finalised while its key lives",
                      (unsigned long)t);
        StgClosure *v;
        ck_assert(rts_deref_weak(cap, (StgWeak *)((StgMutArrPtrs *)r[4])->payload[t], &v));
    }
    for (StgWord i = 0; i < EVAC_NAMES; i++)
        ck_assert_int_eq(evac_fin[i], 0);

    /* The keys die: every weak is finalised once. */
    r[1] = NULL;
    cycle();
    cycle();
    for (StgWord i = 0; i < EVAC_NAMES; i++)
        ck_assert_msg(evac_fin[i] == 1, "weak %lu finalised %d times", (unsigned long)i,
                      evac_fin[i]);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
