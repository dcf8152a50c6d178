/*
 * Test helpers. See test_util.h.
 */
#include "test_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t test_seed(const char *test_name)
{
    const char *env = getenv("HSRTS_TEST_SEED");
    uint64_t seed;
    if (env && *env) {
        seed = strtoull(env, NULL, 0);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed = ((uint64_t)ts.tv_sec * 1000000007u) ^ (uint64_t)ts.tv_nsec;
    }
    fprintf(stderr, "%s: seed %llu (replay with HSRTS_TEST_SEED=%llu)\n", test_name,
            (unsigned long long)seed, (unsigned long long)seed);
    return seed;
}

void rng_init(TestRng *r, uint64_t seed)
{
    r->s = seed ? seed : 0x9E3779B97F4A7C15ull;
}

uint64_t rng_next(TestRng *r)
{
    /* xorshift64* */
    uint64_t x = r->s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

uint64_t rng_below(TestRng *r, uint64_t n)
{
    return n ? rng_next(r) % n : 0;
}

void test_start_rts(const char *name, const char *opts, int sanity)
{
    static char *argv_store[64];
    static char buf[1024];
    int argc = 0;
    argv_store[argc++] = (char *)name;
    argv_store[argc++] = "+RTS";
    snprintf(buf, sizeof buf, "%s%s", opts ? opts : "", sanity && rts_isDebugged() ? " -DS" : "");
    for (char *tok = strtok(buf, " "); tok && argc < 60; tok = strtok(NULL, " "))
        argv_store[argc++] = tok;
    argv_store[argc++] = "-RTS";
    argv_store[argc] = NULL;
    char **argv = argv_store;
    RtsConfig cfg = defaultRtsConfig;
    cfg.rts_opts_enabled = RtsOptsAll;
    hs_init_ghc(&argc, &argv, cfg);
}

int test_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

const StgInfoTable test_leaf_info = HS_CONSTR_INFO(1, 0, 3, "test:Leaf");

StgClosure *test_new_leaf(Capability *cap, StgWord v)
{
    StgClosure *c = (StgClosure *)rts_alloc(cap, TEST_LEAF_WORDS);
    c->info = &test_leaf_info;
    ((StgWord *)c->payload)[0] = v;
    ((StgWord *)c->payload)[1] = ~v;
    ((StgWord *)c->payload)[2] = v * 3;
    return c;
}

void test_check_leaf(const StgClosure *c, StgWord v)
{
    ck_assert_ptr_eq(c->info, &test_leaf_info);
    ck_assert_uint_eq(((const StgWord *)c->payload)[0], v);
    ck_assert_uint_eq(((const StgWord *)c->payload)[1], ~v);
    ck_assert_uint_eq(((const StgWord *)c->payload)[2], v * 3);
}
