/*
 * deepstack: what a deep stack costs the old generation's collector. A
 * recursion DEPTH levels deep, each level a frame holding a cell of its own,
 * waits under a churn: a table of SLOTS lists in the old generation, each of
 * STEPS steps replacing one list by a new one of LEN cells, so that major
 * collections (under -xn, concurrent cycles) keep coming while the stack is
 * deep. Then the recursion returns, each level adding its cell.
 *
 * The levels are root frames pushed in a loop (a C recursion this deep
 * would overflow the C stack); they cross many stack chunks, which stay
 * old and untouched while the churn runs: a collector that scans every
 * chunk at the start of a cycle pauses for the whole stack
 * (bench/README.md, "Lazy stack marking"). hsrts only: no peers.
 *
 * Usage: deepstack [DEPTH [STEPS]] [+RTS options -RTS]
 * Prints "deepstack: depth D steps S stacksum A tablesum B"; both sums are
 * checked against what the program wrote.
 */
#include "Rts.h"
#include "bench.h"

enum { SLOTS = 4096, LEN = 64 };

static const StgInfoTable cell_info = HS_CONSTR_INFO(1, 1, 1, "main:Main.Cell");

/* A list of LEN cells, each holding v. */
static StgClosure *list_of(Capability *cap, long v)
{
    StgClosure **r = rts_push_roots(cap, 1);
    for (int i = 0; i < LEN; i++) {
        StgClosure *c = (StgClosure *)rts_alloc(cap, 3);
        c->info = &cell_info;
        c->payload[0] = r[0];
        bench_set_word(c, 1, (StgWord)v);
        r[0] = TAG_CLOSURE(1, c);
    }
    StgClosure *l = r[0];
    rts_pop_roots(cap, r);
    return l;
}

static long list_sum(StgClosure *l)
{
    long s = 0;
    for (; l; l = UNTAG(l)->payload[0])
        s += (long)bench_get_word(UNTAG(l), 1);
    return s;
}

static long last[SLOTS];

int main(int argc, char *argv[])
{
    hs_init_with_rtsopts(&argc, &argv);
    long depth = bench_arg(argc, argv, 1, 1000000, 1, 1L << 26, "DEPTH");
    long steps = bench_arg(argc, argv, 2, 1000000, 0, 1L << 32, "STEPS");
    Capability *cap = rts_lock();

    StgClosure ***levels = malloc((size_t)depth * sizeof *levels);
    if (!levels) {
        fprintf(stderr, "deepstack: out of memory for %ld levels\n", depth);
        return 1;
    }
    for (long d = 0; d < depth; d++) {
        levels[d] = rts_push_roots(cap, 1);
        StgClosure *c = (StgClosure *)rts_alloc(cap, 3);
        c->info = &cell_info;
        c->payload[0] = NULL;
        bench_set_word(c, 1, (StgWord)d);
        levels[d][0] = TAG_CLOSURE(1, c);
    }

    StgClosure **t = rts_push_roots(cap, 1);
    t[0] = (StgClosure *)rts_new_array(cap, SLOTS, NULL);
    for (long s = 0; s < steps; s++) {
        long i = (long)(((unsigned long)s * 2654435761u) % SLOTS);
        StgClosure *l = list_of(cap, s);
        rts_write_array(cap, (StgMutArrPtrs *)t[0], (StgWord)i, l);
        last[i] = s + 1;
    }
    long tablesum = 0, want_table = 0;
    for (long i = 0; i < SLOTS; i++) {
        tablesum += list_sum(((StgMutArrPtrs *)t[0])->payload[i]);
        want_table += last[i] ? (last[i] - 1) * LEN : 0;
    }
    rts_pop_roots(cap, t);

    long stacksum = 0;
    for (long d = depth; d-- > 0;) {
        stacksum += (long)bench_get_word(UNTAG(levels[d][0]), 1);
        rts_pop_roots(cap, levels[d]);
    }
    free(levels);
    rts_unlock(cap);

    printf("deepstack: depth %ld steps %ld stacksum %ld tablesum %ld\n", depth, steps, stacksum,
           tablesum);
    bench_check("deepstack", "stacksum", stacksum, depth * (depth - 1) / 2);
    bench_check("deepstack", "tablesum", tablesum, want_table);
    hs_exit();
    return 0;
}
