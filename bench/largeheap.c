/*
 * largeheap: a large live heap (LIVE_MIB MiB, default 1200, i.e. more than
 * 1 GiB) under steady churn, for major collections and their pauses. An
 * array of slots holds one 16-cell list each; after it is built, CHURN x
 * (number of slots) steps each replace the oldest slot's list with a new
 * one (slot t mod slots at step t, a FIFO cache), so old-generation data
 * keeps dying while the live size stays put. The slots are replaced in
 * order rather than at random so that minor collections find few dirty
 * cards in the big array: random writes to an old array are mutarray's
 * subject, and here they would hide the major collections.
 *
 *     data L = Nil | Cons !Int !L;  slots :: MutableArray# RealWorld L
 *
 * Sizes are in hsrts's (and GHC's) layout: a cell is 3 words, a slot 16
 * cells plus its array element, 392 bytes. Cell k of the list that step t
 * wrote into slot s holds (7t + 13s + k) mod 2^20 (t = 0 for the initial
 * lists); an unmanaged shadow array records which step wrote each slot, and
 * the final sum of all cells must match the sum the shadow predicts (the
 * same check in every language).
 *
 * Usage: largeheap [LIVE_MIB [CHURN]] [+RTS options -RTS]   (defaults 1200, 2)
 * Prints "largeheap: slots S steps T sum X".
 */
#include "Rts.h"
#include "bench.h"

static const StgInfoTable nil_info = {
    .type = CONSTR_STATIC, .tag = 0, .ptrs = 0, .nptrs = 0, .name = "main:Main.Nil"};
static const StgInfoTable cons_info = HS_CONSTR_INFO(1, 1, 1, "main:Main.Cons");
static const StgClosure nil_closure = {.info = &nil_info};

#define NIL       TAG_CLOSURE(1, &nil_closure)
#define CONS_TAG  2
#define LIST_LEN  16
#define SLOT_SIZE (LIST_LEN * 3 * 8 + 8)

static inline long cell_value(long t, long s, long k)
{
    return (7 * t + 13 * s + k) & 0xfffff;
}

typedef struct {
    StgClosure *acc;
} BuildRoots;

static StgClosure *build(Capability *cap, long t, long s)
{
    BuildRoots *r = HS_ROOTS(cap, BuildRoots);
    r->acc = NIL;
    for (long k = LIST_LEN - 1; k >= 0; k--) {
        StgClosure *c = (StgClosure *)rts_alloc(cap, 3);
        c->info = &cons_info;
        c->payload[0] = r->acc;
        bench_set_word(c, 1, (StgWord)cell_value(t, s, k));
        r->acc = TAG_CLOSURE(CONS_TAG, c);
    }
    StgClosure *l = r->acc;
    HS_POP_ROOTS(cap, r);
    return l;
}

typedef struct {
    StgMutArrPtrs *slots;
} MainRoots;

int main(int argc, char *argv[])
{
    hs_init_with_rtsopts(&argc, &argv);
    long mib = bench_arg(argc, argv, 1, 1200, 1, 16384, "LIVE_MIB");
    long churn = bench_arg(argc, argv, 2, 2, 0, 1000, "CHURN");
    long nslots = (mib << 20) / SLOT_SIZE, steps = churn * nslots;
    long *shadow = calloc((size_t)nslots, sizeof *shadow);
    if (!shadow) {
        fprintf(stderr, "largeheap: out of memory for the shadow array\n");
        return 2;
    }

    Capability *cap = rts_lock();
    MainRoots *r = HS_ROOTS(cap, MainRoots);
    r->slots = rts_new_array(cap, (StgWord)nslots, NIL);
    for (long s = 0; s < nslots; s++) {
        StgClosure *l = build(cap, 0, s);
        rts_write_array(cap, r->slots, (StgWord)s, l);
    }
    for (long t = 1; t <= steps; t++) {
        long s = t % nslots;
        StgClosure *l = build(cap, t, s);
        rts_write_array(cap, r->slots, (StgWord)s, l);
        shadow[s] = t;
    }
    long sum = 0, want = 0;
    for (long s = 0; s < nslots; s++) {
        for (StgClosure *l = r->slots->payload[s]; GET_TAG(l) == CONS_TAG; l = UNTAG(l)->payload[0])
            sum += (long)bench_get_word(UNTAG(l), 1);
        for (long k = 0; k < LIST_LEN; k++)
            want += cell_value(shadow[s], s, k);
    }
    HS_POP_ROOTS(cap, r);
    rts_unlock(cap);

    printf("largeheap: slots %ld steps %ld sum %ld\n", nslots, steps, sum);
    bench_check("largeheap", "sum of the cells", sum, want);
    free(shadow);
    hs_exit();
    return 0;
}
