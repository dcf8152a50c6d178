/*
 * binary-trees (the Computer Language Benchmarks Game) against hsrts's
 * public API, written as a compiler's C backend would emit it for
 *
 *     data Tree = Nil | Node !Tree !Tree
 *
 * Nil is a static closure; Node is a heap constructor with two pointer
 * fields. Pointers carry the constructor tag (Nil = 1, Node = 2). Every heap
 * pointer that lives across an allocation sits in a root frame.
 *
 * Usage: binarytrees [depth] [+RTS options -RTS]   (every RTS option is allowed)
 *
 * Each check is compared with 2^(d+1) - 1 nodes per tree of depth d; a
 * wrong count fails the program (bench/bench.h), as in every peer.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "Rts.h"
#include "bench.h"

static const StgInfoTable nil_info = {
    .type = CONSTR_STATIC, .tag = 0, .ptrs = 0, .nptrs = 0, .name = "main:Main.Nil"};
static const StgInfoTable node_info = HS_CONSTR_INFO(1, 2, 0, "main:Main.Node");
static const StgClosure nil_closure = {.info = &nil_info};

#define NIL      TAG_CLOSURE(1, &nil_closure)
#define NODE_TAG 2

typedef struct {
    StgClosure *left, *right;
} NodeRoots;

static StgClosure *make_node(Capability *cap, StgClosure *left, StgClosure *right)
{
    /* No allocation happens between reading left/right and storing them. */
    StgClosure *n = (StgClosure *)rts_alloc(cap, 3);
    n->info = &node_info;
    n->payload[0] = left;
    n->payload[1] = right;
    return TAG_CLOSURE(NODE_TAG, n);
}

static StgClosure *bottom_up(Capability *cap, int depth)
{
    if (depth <= 0) {
        StgClosure *n = (StgClosure *)rts_alloc(cap, 3);
        n->info = &node_info;
        n->payload[0] = NIL;
        n->payload[1] = NIL;
        return TAG_CLOSURE(NODE_TAG, n);
    }
    NodeRoots *r = HS_ROOTS(cap, NodeRoots);
    r->left = bottom_up(cap, depth - 1);
    r->right = bottom_up(cap, depth - 1);
    StgClosure *n = make_node(cap, NULL, NULL);
    UNTAG(n)->payload[0] = r->left;
    UNTAG(n)->payload[1] = r->right;
    HS_POP_ROOTS(cap, r);
    return n;
}

/* Counts nodes; no allocation, so no roots needed. */
static long check(StgClosure *t)
{
    long n = 0;
    while (GET_TAG(t) == NODE_TAG) {
        StgClosure *node = UNTAG(t);
        n += 1 + check(node->payload[0]);
        t = node->payload[1];
    }
    return n;
}

typedef struct {
    StgClosure *long_lived;
} MainRoots;

/*
 * With several capabilities (threaded runtime, -N2...) the short-lived trees
 * of one depth are shared out between that many OS threads, as the
 * Benchmarks Game's parallel versions do; each takes a capability of its own.
 */
typedef struct {
    int depth;
    long iterations;
    long sum;
} Share;

static void *share_main(void *arg)
{
    Share *sh = arg;
    Capability *cap = rts_lock();
    for (long i = 0; i < sh->iterations; i++)
        sh->sum += check(bottom_up(cap, sh->depth));
    rts_unlock(cap);
    hs_thread_done();
    return NULL;
}

static long trees_in_parallel(Capability *cap, int d, long iterations, uint32_t n)
{
    Share sh[64];
    pthread_t th[64];
    if (n > 64)
        n = 64;
    void *token = rts_suspend(cap); /* this thread only waits meanwhile */
    for (uint32_t t = 0; t < n; t++) {
        sh[t] = (Share){d, iterations / n + ((long)t < iterations % n ? 1 : 0), 0};
        pthread_create(&th[t], NULL, share_main, &sh[t]);
    }
    long sum = 0;
    for (uint32_t t = 0; t < n; t++) {
        pthread_join(th[t], NULL);
        sum += sh[t].sum;
    }
    rts_resume(token);
    return sum;
}

int main(int argc, char *argv[])
{
    hs_init_with_rtsopts(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 10;
    if (n < 0 || n > 30) {
        fprintf(stderr, "binarytrees: depth must be between 0 and 30\n");
        hs_exit();
        return 1;
    }
    const int min_depth = 4;
    int max_depth = n < min_depth + 2 ? min_depth + 2 : n;

    Capability *cap = rts_lock();
    int stretch = max_depth + 1;
    long c = check(bottom_up(cap, stretch));
    printf("stretch tree of depth %d\t check: %ld\n", stretch, c);
    bench_check("binarytrees", "stretch tree nodes", c, (1L << (stretch + 1)) - 1);

    MainRoots *r = HS_ROOTS(cap, MainRoots);
    r->long_lived = bottom_up(cap, max_depth);

    uint32_t caps = getNumCapabilities();
    for (int d = min_depth; d <= max_depth; d += 2) {
        long iterations = 1L << (max_depth - d + min_depth);
        long sum = 0;
        if (caps > 1)
            sum = trees_in_parallel(cap, d, iterations, caps);
        else
            for (long i = 0; i < iterations; i++)
                sum += check(bottom_up(cap, d));
        printf("%ld\t trees of depth %d\t check: %ld\n", iterations, d, sum);
        bench_check("binarytrees", "nodes", sum, iterations * ((1L << (d + 1)) - 1));
    }
    c = check(r->long_lived);
    printf("long lived tree of depth %d\t check: %ld\n", max_depth, c);
    bench_check("binarytrees", "long-lived tree nodes", c, (1L << (max_depth + 1)) - 1);
    HS_POP_ROOTS(cap, r);
    rts_unlock(cap);
    hs_exit();
    return 0;
}
