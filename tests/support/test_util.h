/*
 * Helpers shared by the Check test programs: seeded randomness that prints
 * its seed and takes it back (HSRTS_TEST_SEED), and starting the runtime
 * with a list of +RTS options.
 */
#ifndef HSRTS_TEST_UTIL_H
#define HSRTS_TEST_UTIL_H

#include <stdint.h>

#include "Rts.h"

typedef struct {
    uint64_t s;
} TestRng;

/* The seed: HSRTS_TEST_SEED if set, else from the clock; printed to stderr. */
uint64_t test_seed(const char *test_name);
void rng_init(TestRng *r, uint64_t seed);
uint64_t rng_next(TestRng *r);
/* Uniform in [0, n). */
uint64_t rng_below(TestRng *r, uint64_t n);

/*
 * hs_init_ghc with argv = { name, "+RTS", opts..., "-RTS" } where opts is
 * `opts` split on spaces, and every RTS option allowed. In the debug way
 * "-DS" is added when `sanity` is true.
 */
void test_start_rts(const char *name, const char *opts, int sanity);

/*
 * A leaf: a constructor of no pointers and three value words derived from
 * v (TEST_LEAF_WORDS with the header); test_check_leaf asserts c is one,
 * holding v's words (an object moved, copied or swept by mistake fails).
 */
#define TEST_LEAF_WORDS 4
extern const StgInfoTable test_leaf_info;
StgClosure *test_new_leaf(Capability *cap, StgWord v);
void test_check_leaf(const StgClosure *c, StgWord v);

struct Suite;
/* Run a Check suite (forking per test unless CK_FORK=no); the exit status for main. */
int test_run(struct Suite *s);

#endif /* HSRTS_TEST_UTIL_H */
