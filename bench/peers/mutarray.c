/*
 * mutarray in C (the peer of bench/mutarray.c; see there): an array of N
 * pointers to boxes, WRITES writes of fresh boxes. With malloc the box a
 * write replaces is freed.
 */
#include "../bench.h"
#include "mm.h"

typedef struct {
    long v;
} box;

static box *new_box(long v)
{
    box *b = mm_alloc_atomic(sizeof *b);
    b->v = v;
    return b;
}

int main(int argc, char *argv[])
{
    mm_init();
    long n = bench_arg(argc, argv, 1, 1000, 1, 1L << 24, "N");
    long writes = bench_arg(argc, argv, 2, 100000, 0, 1L << 40, "WRITES");
    long *shadow = malloc((size_t)n * sizeof *shadow);
    box **arr = mm_alloc((size_t)n * sizeof *arr);
    if (!shadow) {
        fprintf(stderr, "mutarray: out of memory for the shadow array\n");
        return 2;
    }
    for (long i = 0; i < n; i++) {
        arr[i] = new_box(i);
        shadow[i] = i;
    }
    long x = 42;
    for (long t = 0; t < writes; t++) {
        x = (x * 1103515245 + 12345) & 0x7fffffff;
        long i = (x >> 7) % n;
        box *b = new_box(t);
        mm_free(arr[i]);
        arr[i] = b;
        shadow[i] = t;
    }
    long sum = 0, want = 0;
    for (long i = 0; i < n; i++) {
        sum += arr[i]->v;
        want += shadow[i];
    }
    printf("mutarray: n %ld writes %ld sum %ld\n", n, writes, sum);
    bench_check("mutarray", "sum of the boxes", sum, want);
    mm_report();
    return 0;
}
