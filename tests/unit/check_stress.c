/*
 * The stress suite: the mock mutator under every configuration of the
 * collector that exists, with the sanity checker on in the debug way.
 * For each configuration: thousands of collections (explicit minor and
 * major ones, and those the mutator's allocation causes), each checked to
 * preserve the reachable graph exactly (checksum before == after), pinned
 * and large objects never moving, and at the end every block not needed by
 * an empty heap given back (the block count returns to its floor). The
 * mutator also evaluates thunks (update frames, blackholes, tail calls),
 * makes weak pointers (every finalizer runs exactly once), stable pointers
 * and stable names.
 *
 * HSRTS_STRESS_ITERS scales the run (default 1000 rounds per configuration);
 * soak the old-generation collectors with HSRTS_STRESS_ONLY="-w -A8k" or
 * "-c -A8k" (thousands of collections caused by allocation; about 4
 * minutes each in the debug way, too long for make check);
 * HSRTS_TEST_SEED replays a failure, and makes a run repeatable: its
 * printed checksum digests must not change when the collector is
 * restructured (address-independent checksums of every round); HSRTS_STRESS_ONLY="<opts>" runs one
 * configuration (with CK_FORK=no, under a debugger).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mutator.h"
#include "sm/block_alloc.h"
#include "sm/gc.h"
#include "sm/storage.h"
#include "test_util.h"

/* The configurations: each runs in its own process. */
static const char *const configs[] = {
    "-G1",
    "-G2",
    "-G3",
    "-A8k",
    "-A64k",
    "-A1m",
    "-A64m",
    "-A64k -n8k",
    "-A1m -n64k",
    "-G3 -A8k",
    "-G1 -A8k",
    "-G3 -A64k -n16k",
    "-H16m -A64k",
    "-F1.2 -O64k -A64k",
    "-AL64k -A256k",
    /* The old generations that do not copy (issue 13). */
    "-w",
    "-c",
    "-w -G3",
    "-c -G3",
    /* compacts once the old generation's live data pass 30% of -M */
    "-c30 -M8m -A1m",
};
#define N_CONFIGS ((int)(sizeof configs / sizeof configs[0]))

static int iterations(void)
{
    const char *s = getenv("HSRTS_STRESS_ITERS");
    return s ? atoi(s) : 1000;
}

START_TEST(stress_config)
{
    const char *opts = configs[_i];
    const char *only = getenv("HSRTS_STRESS_ONLY");
    if (only && strcmp(only, opts) != 0)
        return;
    char name[128];
    snprintf(name, sizeof name, "stress[%s]", opts);
    uint64_t seed = test_seed(name);
    test_start_rts("check_stress", opts, 1);
    Capability *cap = rts_lock();
    Mutator m;
    mutator_init(&m, cap, seed);

    performMajorGC();
    /* The allocation area may be resized (-H, -G1): count everything else. */
    uint64_t floor_blocks = bd_n_alloc_blocks() - sm_nursery_blocks();
    uint64_t gcs_at_start = gc_count;

    int iters = iterations();
    uint64_t digest = 0; /* every round's checksum: the same run gives the same digest */
    for (int it = 0; it < iters; it++) {
        mutator_step(&m, 10 + (int)rng_below(&m.rng, 100));
        uint64_t before = mutator_checksum(&m);
        if (it % 8 == 7)
            performMajorGC();
        else
            performGC();
        uint64_t after = mutator_checksum(&m);
        ck_assert_msg(before == after, "%s: round %d: checksum changed across a collection", name,
                      it);
        digest = (digest ^ after) * 0x100000001b3ull;
        mutator_check_fixed(&m);
    }
    uint64_t collections = gc_count - gcs_at_start;
    fprintf(stderr,
            "%s: %llu collections (%llu caused by allocation, checked), last graph %llu objects, "
            "checksum digest %016llx\n",
            name, (unsigned long long)collections, (unsigned long long)mutator_checked_gcs(),
            (unsigned long long)mutator_last_count(), (unsigned long long)digest);
    ck_assert_uint_ge(collections, (uint64_t)iters);

    /* Everything unreachable is reclaimed. */
    mutator_clear(&m);
    performMajorGC();
    performMajorGC();
    uint64_t now_blocks = bd_n_alloc_blocks() - sm_nursery_blocks();
    ck_assert_msg(now_blocks == floor_blocks,
                  "%s: %llu blocks in use after dropping everything, floor is %llu", name,
                  (unsigned long long)now_blocks, (unsigned long long)floor_blocks);

    mutator_done(&m);
    rts_unlock(cap);
    hs_exit();
    /* Every weak pointer's finalizer ran, exactly once (hs_exit runs the rest). */
    ck_assert_uint_eq(mutator_weaks_finalized(), mutator_weaks_made());
}
END_TEST

int main(void)
{
    Suite *s = suite_create("stress");
    TCase *tc = tcase_create("configs");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, stress_config, 0, N_CONFIGS);
    suite_add_tcase(s, tc);
    return test_run(s);
}
