/*
 * A mock mutator: builds random object graphs through the public API the
 * way compiled code would (allocation fast path, root frames, barriers),
 * mutates them, and checksums everything reachable from its roots in a way
 * that does not depend on addresses, so a collection can be checked to
 * preserve the graph exactly.
 */
#ifndef HSRTS_TEST_MUTATOR_H
#define HSRTS_TEST_MUTATOR_H

#include <stdint.h>

#include "Rts.h"
#include "test_util.h"

#define MUT_ROOTS     48
#define MUT_STABLE    16
#define MUT_MAX_FIXED 64

typedef struct {
    Capability *cap;
    TestRng rng;
    StgClosure **roots; /* a RET_DYN frame of MUT_ROOTS slots */
    /* Objects that must never move (pinned and large): where they were. */
    struct {
        int slot;
        StgClosure *addr;
        uint64_t pattern;
    } fixed[MUT_MAX_FIXED];
    int n_fixed;
    HsStablePtr stable[MUT_STABLE]; /* more roots, through stable pointers */
    uint64_t ops;
} Mutator;

/* Push the root frame (the caller holds cap). */
void mutator_init(Mutator *m, Capability *cap, uint64_t seed);
/* Pop the root frame. */
void mutator_done(Mutator *m);

/* Perform n random operations (allocation, mutation, deep recursion, drops). */
void mutator_step(Mutator *m, int n);

/* Checksum of the graph reachable from the roots (address-independent). */
uint64_t mutator_checksum(Mutator *m);
/* Number of objects the last checksum visited. */
uint64_t mutator_last_count(void);

/* Pinned and large objects still rooted are where they were, contents intact. */
void mutator_check_fixed(Mutator *m);

/* Collections the mutator caused and checked (checksum before == after). */
uint64_t mutator_checked_gcs(void);

/* Weak pointers made, and finalizers run (after hs_exit the two agree). */
uint64_t mutator_weaks_made(void);
uint64_t mutator_weaks_finalized(void);

/* Drop every root (and free the stable pointers). */
void mutator_clear(Mutator *m);

#endif /* HSRTS_TEST_MUTATOR_H */
