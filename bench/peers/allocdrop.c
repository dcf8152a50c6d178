/*
 * allocdrop in C (the peer of bench/allocdrop.c; see there): a list of LEN
 * cells built, summed and dropped REPS times. With malloc every cell is
 * freed after the sum; the arena releases the whole list at once.
 */
#include "../bench.h"
#include "mm.h"

typedef struct cell {
    struct cell *tail;
    long head;
} cell;

static cell *build(long len)
{
    cell *acc = NULL;
    for (long i = len; i > 0; i--) {
        cell *c = mm_alloc(sizeof *c);
        c->tail = acc;
        c->head = i;
        acc = c;
    }
    return acc;
}

static long sum(const cell *l)
{
    long s = 0;
    for (; l; l = l->tail)
        s += l->head;
    return s;
}

static void drop(cell *l)
{
    while (MM_FREES && l) {
        cell *t = l->tail;
        mm_free(l);
        l = t;
    }
}

int main(int argc, char *argv[])
{
    mm_init();
    long len = bench_arg(argc, argv, 1, 1000, 1, 1L << 24, "LEN");
    long reps = bench_arg(argc, argv, 2, 1000, 1, 1L << 32, "REPS");
    long total = 0;
    for (long r = 0; r < reps; r++) {
        mm_mark_t m = mm_mark();
        cell *l = build(len);
        total += sum(l);
        drop(l);
        mm_release(m);
    }
    printf("allocdrop: len %ld reps %ld sum %ld\n", len, reps, total);
    bench_check("allocdrop", "sum", total, reps * (len * (len + 1) / 2));
    mm_report();
    return 0;
}
