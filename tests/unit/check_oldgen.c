/*
 * The old generations that do not copy (issue 13): the mark stack's
 * overflow path, mark-region's holes against a model of the line map,
 * memory reuse and shrinking after fragmenting the old generation on
 * purpose (-w, -c), compaction leaving dense blocks in place, and -c<n>
 * switching to compaction under -M. The stress
 * suite (check_stress) runs the mutator under -w and -c; these check the
 * properties a checksum cannot see.
 */
#include <check.h>
#include <stdlib.h>

#include "sm/block.h"
#include "sm/mark.h"
#include "sm/policy.h"
#include "sm/storage.h"
#include "test_util.h"

/* List nodes: a next pointer, then `n` words all equal to the node's value. */
static const StgInfoTable node_info[] = {
    HS_CONSTR_INFO(1, 1, 1, "test:N1"),   HS_CONSTR_INFO(1, 1, 2, "test:N2"),
    HS_CONSTR_INFO(1, 1, 5, "test:N5"),   HS_CONSTR_INFO(1, 1, 13, "test:N13"),
    HS_CONSTR_INFO(1, 1, 30, "test:N30"), HS_CONSTR_INFO(1, 1, 60, "test:N60"),
};
/* Pair nodes for the overflow test: next, side. */
static const StgInfoTable pair_info = HS_CONSTR_INFO(1, 2, 1, "test:P");

static StgWord node_words(const StgInfoTable *info)
{
    return 1 + info->ptrs + info->nptrs;
}

/* Cons a node of `info` holding v onto the list in root slot *head. */
static StgClosure *cons(Capability *cap, StgClosure **head, const StgInfoTable *info, StgWord v)
{
    StgClosure *c = (StgClosure *)rts_alloc(cap, node_words(info));
    c->info = info;
    c->payload[0] = *head;
    for (uint32_t i = 0; i < info->nptrs; i++)
        ((StgWord *)c->payload)[1 + i] = v;
    *head = c;
    return c;
}

/* Sum over a list of every value word (checks each node's words agree). */
static uint64_t list_sum(StgClosure *p, uint64_t *count)
{
    uint64_t s = 0, n = 0;
    for (; p; p = UNTAG(p)->payload[0]) {
        StgClosure *q = UNTAG(p);
        StgWord v = ((StgWord *)q->payload)[1];
        for (uint32_t i = 1; i < q->info->nptrs; i++)
            ck_assert_uint_eq(((StgWord *)q->payload)[1 + i], v);
        s = s * 31 + v;
        n++;
    }
    if (count)
        *count = n;
    return s;
}

static void promote(void)
{
    performMajorGC();
    performMajorGC();
}

/* --- the mark stack's overflow path --------------------------------------------- */

static void overflow_run(const char *opts)
{
    test_start_rts("check_oldgen", opts, 1);
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 2); /* the list, a scratch leaf */
    /* A list of pairs (next, a leaf list of two nodes): marking a pair pushes two. */
    for (StgWord i = 0; i < 3000; i++) {
        r[1] = NULL;
        cons(cap, &r[1], &node_info[0], i);
        cons(cap, &r[1], &node_info[1], i + 1);
        StgClosure *c = (StgClosure *)rts_alloc(cap, 4);
        c->info = &pair_info;
        c->payload[0] = r[0];
        c->payload[1] = r[1];
        ((StgWord *)c->payload)[2] = i;
        r[0] = c;
    }
    promote(); /* now in the oldest generation: the next major collection marks it */
    uint64_t before = 0;
    for (StgClosure *p = r[0]; p; p = UNTAG(p)->payload[0])
        before =
            before * 7 + ((StgWord *)UNTAG(p)->payload)[2] + list_sum(UNTAG(p)->payload[1], NULL);
    uint64_t overflows = mark_stack_overflows;
    mark_stack_set_limit(1);
    performMajorGC(); /* under -DS in the debug way: the heap is checked after */
    performMajorGC();
    mark_stack_set_limit(0);
    ck_assert_uint_gt(mark_stack_overflows, overflows);
    uint64_t after = 0;
    for (StgClosure *p = r[0]; p; p = UNTAG(p)->payload[0])
        after =
            after * 7 + ((StgWord *)UNTAG(p)->payload)[2] + list_sum(UNTAG(p)->payload[1], NULL);
    ck_assert_uint_eq(before, after);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}

START_TEST(mark_stack_overflow_compacting)
{
    overflow_run("-c");
}
END_TEST

START_TEST(mark_stack_overflow_mark_region)
{
    overflow_run("-w");
}
END_TEST

/* --- fragmentation ------------------------------------------------------------------- */

#define FRAG_NODES 40000
#define FRAG_K     16

/*
 * An array of n leaves (a large object: promotion copies the leaves in
 * array order, so neighbours in the array are neighbours in the old
 * generation), in root slot r[0]; leaf i has size class size_of(i).
 */
static void make_leaves(Capability *cap, StgClosure **r, StgWord n, TestRng *rng)
{
    r[0] = (StgClosure *)rts_new_array(cap, n, NULL);
    for (StgWord i = 0; i < n; i++) {
        StgClosure *leaf = NULL;
        cons(cap, &leaf, &node_info[rng ? rng_below(rng, 6) : 1], i);
        rts_write_array(cap, (StgMutArrPtrs *)r[0], i, leaf);
    }
    promote();
}

/* Drop the leaves `keep` says no to; the checksum of those kept. */
static uint64_t drop_leaves(Capability *cap, StgClosure **r, bool (*keep)(StgWord i, void *),
                            void *ctx)
{
    StgMutArrPtrs *a = (StgMutArrPtrs *)r[0];
    uint64_t sum = 0;
    for (StgWord i = 0; i < a->ptrs; i++) {
        if (!keep(i, ctx))
            rts_write_array(cap, a, i, NULL);
        else
            sum = sum * 31 + list_sum(a->payload[i], NULL);
    }
    return sum;
}

static uint64_t leaves_sum(StgClosure **r)
{
    StgMutArrPtrs *a = (StgMutArrPtrs *)r[0];
    uint64_t sum = 0;
    for (StgWord i = 0; i < a->ptrs; i++)
        if (a->payload[i])
            sum = sum * 31 + list_sum(a->payload[i], NULL);
    return sum;
}

static bool every_kth(StgWord i, void *ctx)
{
    (void)ctx;
    return i % FRAG_K == 0;
}

START_TEST(fragmented_compacting)
{
    test_start_rts("check_oldgen", "-c", 1);
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 1);
    make_leaves(cap, r, FRAG_NODES, NULL);
    StgWord full = oldest_gen->n_blocks;
    uint64_t kept = drop_leaves(cap, r, every_kth, NULL);
    performMajorGC();
    ck_assert_uint_eq(leaves_sum(r), kept);
    /* Back to live data plus a small overhead (whole 64-word chunks per block). */
    StgWord live_blocks = (oldest_gen->n_words + BLOCK_SIZE_W - 1) / BLOCK_SIZE_W;
    StgWord leaf_words = FRAG_NODES / FRAG_K * node_words(&node_info[1]);
    ck_assert_uint_ge(oldest_gen->n_words, leaf_words);
    ck_assert_uint_le(oldest_gen->n_words, leaf_words + 64); /* and the runtime's few objects */
    ck_assert_uint_le(oldest_gen->n_blocks, live_blocks + live_blocks / 8 + 1);
    ck_assert_uint_lt(oldest_gen->n_blocks * 4, full);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

START_TEST(fragmented_mark_region)
{
    test_start_rts("check_oldgen", "-w", 1);
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 2);
    make_leaves(cap, r, FRAG_NODES, NULL);
    StgWord full = oldest_gen->n_blocks;
    uint64_t kept = drop_leaves(cap, r, every_kth, NULL);
    performMajorGC();
    ck_assert_uint_eq(leaves_sum(r), kept);
    /* Marked in place: the blocks stay (each keeps a leaf or two)... */
    ck_assert_uint_ge(oldest_gen->n_blocks, full / 2);
    /* ... and the same amount of new data goes into their holes. */
    for (StgWord i = 0; i < FRAG_NODES - FRAG_NODES / FRAG_K; i++)
        cons(cap, &r[1], &node_info[1], i);
    uint64_t again = list_sum(r[1], NULL);
    performGC();
    performGC(); /* aged, then promoted into the oldest generation's holes */
    ck_assert_uint_eq(list_sum(r[1], NULL), again);
    /* Lines are coarser than leaves: most of it, not all (without reuse: all of it). */
    StgWord new_blocks =
        (FRAG_NODES - FRAG_NODES / FRAG_K) * node_words(&node_info[1]) / BLOCK_SIZE_W;
    ck_assert_uint_lt(oldest_gen->n_blocks, full + new_blocks / 2);
    /* Drop it again: the sparse blocks are evacuated, an eighth per collection. */
    r[1] = NULL;
    for (int i = 0; i < 40; i++)
        performMajorGC();
    ck_assert_uint_eq(leaves_sum(r), kept);
    StgWord live_blocks = (oldest_gen->n_words + BLOCK_SIZE_W - 1) / BLOCK_SIZE_W;
    ck_assert_uint_le(oldest_gen->n_blocks, 2 * live_blocks + 2);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/* --- the hole allocator against a model of the line map -------------------------- */

#define MAX_MODEL_BLOCKS 4096

static bool random_third(StgWord i, void *ctx)
{
    (void)i;
    return rng_below((TestRng *)ctx, 3) == 0;
}

START_TEST(holes_model)
{
    test_start_rts("check_oldgen", "-w", 1);
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 2);
    TestRng rng;
    rng_init(&rng, test_seed("holes_model"));
    /* Fragment with objects of random sizes, keep a random third. */
    make_leaves(cap, r, 20000, &rng);
    uint64_t kept = drop_leaves(cap, r, random_third, &rng);
    performMajorGC();
    ck_assert_uint_eq(leaves_sum(r), kept);
    /* The model: each block's free lines, as the sweep left them. */
    static struct {
        bdescr *bd;
        uint32_t lines;
    } model[MAX_MODEL_BLOCKS];
    int n = 0;
    StgWord free_words = 0;
    for (bdescr *bd = oldest_gen->blocks; bd && n < MAX_MODEL_BLOCKS; bd = bd->link, n++) {
        model[n].bd = bd;
        model[n].lines = bd->lines;
        /* Free lines hold only zeros. */
        for (StgWord w = 0; w < BLOCK_SIZE_W; w++)
            if (!(bd->lines & (1u << (w / 16)))) {
                ck_assert_uint_eq(bd->start[w], 0);
                free_words++;
            }
    }
    ck_assert_int_lt(n, MAX_MODEL_BLOCKS);
    /* New objects of every size, promoted by minor collections (no major one). */
    uint32_t majors = oldest_gen->collections;
    StgWord new_words = 0;
    for (StgWord i = 0; i < 3000; i++) {
        const StgInfoTable *info = &node_info[rng_below(&rng, 6)];
        cons(cap, &r[1], info, i);
        new_words += node_words(info);
    }
    ck_assert_uint_lt(new_words * 2, free_words); /* room to spare */
    uint64_t again = list_sum(r[1], NULL);
    performGC();
    performGC();
    ck_assert_uint_eq(oldest_gen->collections, majors);
    ck_assert_uint_eq(list_sum(r[1], NULL), again);
    ck_assert_uint_eq(leaves_sum(r), kept);
    uint64_t in_holes = 0, elsewhere = 0;
    for (StgClosure *p = r[1]; p; p = UNTAG(p)->payload[0]) {
        StgClosure *q = UNTAG(p);
        bdescr *bd = Bdescr(q);
        ck_assert_ptr_eq(bd->gen, oldest_gen);
        int m = 0;
        while (m < n && model[m].bd != bd)
            m++;
        if (m == n) {
            elsewhere++;
            continue;
        }
        /* In a block the sweep kept: only in lines that were free. */
        StgWord from = (StgWord)((StgPtr)q - bd->start);
        StgWord to = from + node_words(q->info);
        for (StgWord l = from / 16; l <= (to - 1) / 16; l++)
            ck_assert_msg(!(model[m].lines & (1u << l)), "object %p lies in a line in use",
                          (void *)q);
        /* and the lines it covers are in use now */
        for (StgWord l = from / 16; l <= (to - 1) / 16; l++)
            ck_assert(bd->lines & (1u << l));
        in_holes++;
    }
    /* The holes have twice the room needed: all of it went there. */
    ck_assert_uint_eq(elsewhere, 0);
    ck_assert_uint_eq(in_holes, 3000);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/* --- compaction: blocks that stay (Note [Blocks that stay] in compact.c) --------------- */

static bool after_first_quarter_or_odd(StgWord i, void *ctx)
{
    (void)ctx;
    return i >= FRAG_NODES / 4 || i % 4 != 0;
}

START_TEST(compacting_dense_blocks_stay)
{
    test_start_rts("check_oldgen", "-c", 1);
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 1);
    make_leaves(cap, r, FRAG_NODES, NULL);
    StgMutArrPtrs *a = (StgMutArrPtrs *)r[0];
    StgClosure **was = malloc(FRAG_NODES * sizeof *was);
    for (StgWord i = 0; i < FRAG_NODES; i++)
        was[i] = a->payload[i];
    /* Nothing died: nothing moves. */
    performMajorGC();
    for (StgWord i = 0; i < FRAG_NODES; i++)
        ck_assert_ptr_eq(a->payload[i], was[i]);
    /* The first half dies: its blocks are freed, the others stay. */
    StgWord blocks = oldest_gen->n_blocks;
    for (StgWord i = 0; i < FRAG_NODES / 2; i++)
        rts_write_array(cap, a, i, NULL);
    uint64_t kept = leaves_sum(r);
    performMajorGC();
    ck_assert_uint_eq(leaves_sum(r), kept);
    for (StgWord i = FRAG_NODES / 2; i < FRAG_NODES; i++)
        ck_assert_ptr_eq(a->payload[i], was[i]);
    ck_assert_uint_lt(oldest_gen->n_blocks, blocks * 3 / 4);
    /* Too much waste in the first quarter's blocks: they slide, the rest stays. */
    make_leaves(cap, r, FRAG_NODES, NULL);
    a = (StgMutArrPtrs *)r[0];
    for (StgWord i = 0; i < FRAG_NODES; i++)
        was[i] = a->payload[i];
    kept = drop_leaves(cap, r, after_first_quarter_or_odd, NULL);
    performMajorGC();
    ck_assert_uint_eq(leaves_sum(r), kept);
    /* Leaves moved from the first quarter, and from after it (the last, partly full block). */
    StgWord moved = 0, moved_after = 0;
    for (StgWord i = 0; i < FRAG_NODES; i++) {
        if (!a->payload[i] || a->payload[i] == was[i])
            continue;
        if (i < FRAG_NODES / 4)
            moved++;
        else
            moved_after++;
    }
    ck_assert_uint_gt(moved, 0);
    ck_assert_uint_le(moved_after, BLOCK_SIZE_W / node_words(&node_info[1]));
    free(was);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/* --- -c<n> under -M ------------------------------------------------------------------ */

START_TEST(compact_threshold_switches)
{
    test_start_rts("check_oldgen", "-c30 -M8m -A1m", 1);
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 1);
    ck_assert_ptr_eq(oldest_gen->policy, &gen_policy_copying);
    /* 3 MB live: more than 30% of -M. */
    for (StgWord i = 0; i < 3 * 1024 * 1024 / (8 * 4); i++)
        cons(cap, &r[0], &node_info[1], i);
    uint64_t sum = list_sum(r[0], NULL);
    promote();
    ck_assert_ptr_eq(oldest_gen->policy, &gen_policy_compacting);
    performMajorGC();
    ck_assert_uint_eq(list_sum(r[0], NULL), sum);
    r[0] = NULL;
    promote();
    ck_assert_ptr_eq(oldest_gen->policy, &gen_policy_copying);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("oldgen");
    TCase *tc = tcase_create("oldgen");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, mark_stack_overflow_compacting);
    tcase_add_test(tc, mark_stack_overflow_mark_region);
    tcase_add_test(tc, fragmented_compacting);
    tcase_add_test(tc, fragmented_mark_region);
    tcase_add_test(tc, holes_model);
    tcase_add_test(tc, compact_threshold_switches);
    tcase_add_test(tc, compacting_dense_blocks_stay);
    suite_add_tcase(s, tc);
    return test_run(s);
}
