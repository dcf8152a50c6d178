/*
 * allocdrop: the allocation fast path's throughput. Builds a list of LEN
 * cells, sums it and drops it, REPS times; at every collection only the list
 * under construction is live, so the cost is allocation, not copying.
 *
 *     data L = Nil | Cons !Int !L      -- Cons: tail pointer, then the Int
 *
 * Usage: allocdrop [LEN [REPS]] [+RTS options -RTS]
 * Prints "allocdrop: len LEN reps REPS sum S"; S is checked against
 * REPS * LEN * (LEN + 1) / 2. Peers: bench/peers/allocdrop.{hs,ml,c}.
 */
#include "Rts.h"
#include "bench.h"

static const StgInfoTable nil_info = {
    .type = CONSTR_STATIC, .tag = 0, .ptrs = 0, .nptrs = 0, .name = "main:Main.Nil"};
static const StgInfoTable cons_info = HS_CONSTR_INFO(1, 1, 1, "main:Main.Cons");
static const StgClosure nil_closure = {.info = &nil_info};

#define NIL      TAG_CLOSURE(1, &nil_closure)
#define CONS_TAG 2

typedef struct {
    StgClosure *acc;
} BuildRoots;

/* [1..len], built from the end. The accumulator lives in a root frame
 * because every cell's allocation may collect (and move it). */
static StgClosure *build(Capability *cap, long len)
{
    BuildRoots *r = HS_ROOTS(cap, BuildRoots);
    r->acc = NIL;
    for (long i = len; i > 0; i--) {
        StgClosure *c = (StgClosure *)rts_alloc(cap, 3);
        c->info = &cons_info;
        c->payload[0] = r->acc;
        bench_set_word(c, 1, (StgWord)i);
        r->acc = TAG_CLOSURE(CONS_TAG, c);
    }
    StgClosure *l = r->acc;
    HS_POP_ROOTS(cap, r);
    return l;
}

static long sum(StgClosure *l)
{
    long s = 0;
    while (GET_TAG(l) == CONS_TAG) {
        StgClosure *c = UNTAG(l);
        s += (long)bench_get_word(c, 1);
        l = c->payload[0];
    }
    return s;
}

int main(int argc, char *argv[])
{
    hs_init_with_rtsopts(&argc, &argv);
    long len = bench_arg(argc, argv, 1, 1000, 1, 1L << 24, "LEN");
    long reps = bench_arg(argc, argv, 2, 1000, 1, 1L << 32, "REPS");

    Capability *cap = rts_lock();
    long total = 0;
    for (long r = 0; r < reps; r++)
        total += sum(build(cap, len));
    rts_unlock(cap);

    printf("allocdrop: len %ld reps %ld sum %ld\n", len, reps, total);
    bench_check("allocdrop", "sum", total, reps * (len * (len + 1) / 2));
    hs_exit();
    return 0;
}
