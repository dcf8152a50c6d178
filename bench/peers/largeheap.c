/*
 * largeheap in C (the peer of bench/largeheap.c; see there): an array of
 * slots holding 16-cell lists, churned. With malloc the list a step replaces
 * is freed cell by cell.
 */
#include "../bench.h"
#include "mm.h"

#define LIST_LEN  16
#define SLOT_SIZE (LIST_LEN * 3 * 8 + 8) /* in hsrts's layout, for the same slot count */

typedef struct cell {
    struct cell *tail;
    long head;
} cell;

static inline long cell_value(long t, long s, long k)
{
    return (7 * t + 13 * s + k) & 0xfffff;
}

static cell *build(long t, long s)
{
    cell *acc = NULL;
    for (long k = LIST_LEN - 1; k >= 0; k--) {
        cell *c = mm_alloc(sizeof *c);
        c->tail = acc;
        c->head = cell_value(t, s, k);
        acc = c;
    }
    return acc;
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
    long mib = bench_arg(argc, argv, 1, 1200, 1, 16384, "LIVE_MIB");
    long churn = bench_arg(argc, argv, 2, 2, 0, 1000, "CHURN");
    long nslots = (mib << 20) / SLOT_SIZE, steps = churn * nslots;
    long *shadow = calloc((size_t)nslots, sizeof *shadow);
    cell **slots = mm_alloc((size_t)nslots * sizeof *slots);
    if (!shadow) {
        fprintf(stderr, "largeheap: out of memory for the shadow array\n");
        return 2;
    }
    for (long s = 0; s < nslots; s++)
        slots[s] = build(0, s);
    for (long t = 1; t <= steps; t++) {
        long s = t % nslots;
        cell *l = build(t, s);
        drop(slots[s]);
        slots[s] = l;
        shadow[s] = t;
    }
    long sum = 0, want = 0;
    for (long s = 0; s < nslots; s++) {
        for (const cell *l = slots[s]; l; l = l->tail)
            sum += l->head;
        for (long k = 0; k < LIST_LEN; k++)
            want += cell_value(shadow[s], s, k);
    }
    printf("largeheap: slots %ld steps %ld sum %ld\n", nslots, steps, sum);
    bench_check("largeheap", "sum of the cells", sum, want);
    mm_report();
    return 0;
}
