/*
 * binary-trees in C (the peer of bench/binarytrees.c; see there), the
 * Benchmarks Game algorithm. With malloc each tree is freed node by node
 * after its check; the arena releases it at once, as a region would.
 */
#include "../bench.h"
#include "mm.h"

typedef struct node {
    struct node *left, *right;
} node;

static node *bottom_up(int depth)
{
    node *n = mm_alloc(sizeof *n);
    n->left = depth > 0 ? bottom_up(depth - 1) : NULL;
    n->right = depth > 0 ? bottom_up(depth - 1) : NULL;
    return n;
}

static long check(const node *t)
{
    return t ? 1 + check(t->left) + check(t->right) : 0;
}

static void drop(node *t)
{
    if (MM_FREES && t) {
        drop(t->left);
        drop(t->right);
        mm_free(t);
    }
}

/* Check a tree, free it (malloc) or release it (arena). */
static long check_and_drop(int depth)
{
    mm_mark_t m = mm_mark();
    node *t = bottom_up(depth);
    long c = check(t);
    drop(t);
    mm_release(m);
    return c;
}

int main(int argc, char *argv[])
{
    mm_init();
    int n = (int)bench_arg(argc, argv, 1, 10, 0, 30, "depth");
    const int min_depth = 4;
    int max_depth = n < min_depth + 2 ? min_depth + 2 : n;
    int stretch = max_depth + 1;
    long c = check_and_drop(stretch);
    printf("stretch tree of depth %d\t check: %ld\n", stretch, c);
    bench_check("binarytrees", "stretch tree nodes", c, (1L << (stretch + 1)) - 1);

    node *long_lived = bottom_up(max_depth);
    for (int d = min_depth; d <= max_depth; d += 2) {
        long iterations = 1L << (max_depth - d + min_depth);
        long sum = 0;
        for (long i = 0; i < iterations; i++)
            sum += check_and_drop(d);
        printf("%ld\t trees of depth %d\t check: %ld\n", iterations, d, sum);
        bench_check("binarytrees", "nodes", sum, iterations * ((1L << (d + 1)) - 1));
    }
    c = check(long_lived);
    printf("long lived tree of depth %d\t check: %ld\n", max_depth, c);
    bench_check("binarytrees", "long-lived tree nodes", c, (1L << (max_depth + 1)) - 1);
    drop(long_lived);
    mm_report();
    return 0;
}
