/*
 * Shared by the benchmark programs in bench/ and the C peers in bench/peers/:
 * size arguments and the self-check's failure path. Every workload takes its
 * sizes as positional integers (the same in every language) and checks its
 * own result; a failed check prints one line and exits 1.
 */
#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* argv[i] as an integer in [lo, hi], or dflt when absent; exits 2 otherwise. */
static inline long bench_arg(int argc, char **argv, int i, long dflt, long lo, long hi,
                             const char *what)
{
    if (argc <= i)
        return dflt;
    char *end;
    errno = 0;
    long v = strtol(argv[i], &end, 10);
    if (errno || *end || end == argv[i] || v < lo || v > hi) {
        fprintf(stderr, "%s: %s must be an integer between %ld and %ld, not '%s'\n", argv[0], what,
                lo, hi, argv[i]);
        exit(2);
    }
    return v;
}

/* The workload computed a wrong result: say what differs and fail. */
static inline void bench_check(const char *prog, const char *what, long got, long want)
{
    if (got != want) {
        fprintf(stderr, "%s: check failed: %s is %ld, expected %ld\n", prog, what, got, want);
        exit(1);
    }
}

/*
 * Non-pointer payload words of hsrts objects. The payload is declared as
 * pointers; memcpy reads and writes a word there without breaking the
 * strict-aliasing rules (it compiles to one move).
 */
#if defined(HSRTS_RTS_CLOSURES_H)
#include <string.h>

static inline StgWord bench_get_word(const StgClosure *c, unsigned i)
{
    StgWord w;
    memcpy(&w, &c->payload[i], sizeof w);
    return w;
}

static inline void bench_set_word(StgClosure *c, unsigned i, StgWord w)
{
    memcpy(&c->payload[i], &w, sizeof w);
}
#endif

#endif /* BENCH_BENCH_H */
