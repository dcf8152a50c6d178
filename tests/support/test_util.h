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

struct Suite;
/* Run a Check suite (forking per test unless CK_FORK=no); the exit status for main. */
int test_run(struct Suite *s);

#endif /* HSRTS_TEST_UTIL_H */
