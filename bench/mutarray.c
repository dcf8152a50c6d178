/*
 * mutarray: an old, large array of pointers receiving writes of young
 * objects, the case card marking exists for. An array of N boxed Ints
 * (a large object, promoted early) gets WRITES writes, each of a freshly
 * allocated box, at pseudo-random indices; every minor collection must find
 * the old-to-young pointers through the array's dirty cards rather than by
 * scanning all of it.
 *
 *     data Box = Box !Int;  arr :: MutableArray# RealWorld Box
 *
 * A plain C array outside the heap shadows the array's contents; at the end
 * the sum of the boxes must equal the shadow's sum (the same check in every
 * language). Indices: x' = (x * 1103515245 + 12345) mod 2^31, i = (x' >> 7)
 * mod N, the same in every peer.
 *
 * Usage: mutarray [N [WRITES]] [+RTS options -RTS]
 * Prints "mutarray: n N writes W sum S". Peers: bench/peers/mutarray.*.
 */
#include "Rts.h"
#include "bench.h"

static const StgInfoTable box_info = HS_CONSTR_INFO(1, 0, 1, "main:Main.Box");

#define BOX_TAG 1

static StgClosure *new_box(Capability *cap, long v)
{
    StgClosure *b = (StgClosure *)rts_alloc(cap, 2);
    b->info = &box_info;
    bench_set_word(b, 0, (StgWord)v);
    return TAG_CLOSURE(BOX_TAG, b);
}

static long box_value(StgClosure *b)
{
    return (long)bench_get_word(UNTAG(b), 0);
}

typedef struct {
    StgMutArrPtrs *arr;
} ArrRoots;

int main(int argc, char *argv[])
{
    hs_init_with_rtsopts(&argc, &argv);
    long n = bench_arg(argc, argv, 1, 1000, 1, 1L << 24, "N");
    long writes = bench_arg(argc, argv, 2, 100000, 0, 1L << 40, "WRITES");
    long *shadow = malloc((size_t)n * sizeof *shadow);
    if (!shadow) {
        fprintf(stderr, "mutarray: out of memory for the shadow array\n");
        return 2;
    }

    Capability *cap = rts_lock();
    ArrRoots *r = HS_ROOTS(cap, ArrRoots);
    r->arr = rts_new_array(cap, (StgWord)n, NULL);
    for (long i = 0; i < n; i++) {
        StgClosure *b = new_box(cap, i);
        rts_write_array(cap, r->arr, (StgWord)i, b);
        shadow[i] = i;
    }
    long x = 42;
    for (long t = 0; t < writes; t++) {
        x = (x * 1103515245 + 12345) & 0x7fffffff;
        long i = (x >> 7) % n;
        StgClosure *b = new_box(cap, t);
        rts_write_array(cap, r->arr, (StgWord)i, b); /* r->arr is read after the allocation */
        shadow[i] = t;
    }
    long sum = 0, want = 0;
    for (long i = 0; i < n; i++) {
        sum += box_value(r->arr->payload[i]);
        want += shadow[i];
    }
    HS_POP_ROOTS(cap, r);
    rts_unlock(cap);

    printf("mutarray: n %ld writes %ld sum %ld\n", n, writes, sum);
    bench_check("mutarray", "sum of the boxes", sum, want);
    free(shadow);
    hs_exit();
    return 0;
}
