/*
 * A strict left fold over a big lazy list, as a compiler would emit it for
 *
 *     main = print (foldl' (+) 0 (enumFromTo 1 n))
 *
 * The list is produced on demand by thunks and consumed as it is produced,
 * so the program runs in constant space whatever n: it samples the live
 * data along the way and prints the most it saw (with +RTS -T).
 * Usage: fold [n]   (default 10000000)
 */
#include <stdio.h>
#include <stdlib.h>

#include "prelude.h"

/* enumFromTo a b: two non-pointer free variables. */
static StgClosure *range_entry(Capability *cap, StgClosure *self, StgClosure **fv);
static const StgInfoTable range_info = HS_THUNK_INFO(range_entry, 0, 2, "main:Main.enumFromTo");

static StgClosure *mk_range(Capability *cap, StgInt a, StgInt b)
{
    StgThunk *t = (StgThunk *)rts_alloc(cap, 4);
    t->info = &range_info;
    t->slot = 0;
    ((StgInt *)t->payload)[0] = a;
    ((StgInt *)t->payload)[1] = b;
    return (StgClosure *)t;
}

static StgClosure *range_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)fv;
    StgInt a = ((StgInt *)((StgThunk *)self)->payload)[0];
    StgInt b = ((StgInt *)((StgThunk *)self)->payload)[1];
    if (a > b)
        return NIL;
    StgClosure **r = rts_push_roots(cap, 2);
    r[0] = mk_int(cap, a);
    r[1] = mk_range(cap, a + 1, b);
    StgClosure *cell = mk_cons(cap, r);
    rts_pop_roots(cap, r);
    return cell;
}

int main(int argc, char *argv[])
{
    hs_init(&argc, &argv);
    StgInt n = argc > 1 ? atol(argv[1]) : 10000000;
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 1);
    r[0] = mk_range(cap, 1, n);
    StgInt acc = 0;
    uint64_t most_live = 0;
    for (StgInt i = 0;; i++) {
        r[0] = rts_eval(cap, r[0]);
        if (!IS_CONS(r[0]))
            break;
        acc += int_val(rts_eval(cap, HEAD(r[0])));
        r[0] = TAIL(r[0]); /* the consumed cell becomes garbage */
        if (i % (n / 8 + 1) == 0) {
            /* Sample the live data now and then: it does not grow with i. */
            performMajorGC();
            RTSStats s;
            getRTSStats(&s);
            if (s.gc.live_bytes > most_live)
                most_live = s.gc.live_bytes;
        }
    }
    printf("sum: %ld\n", (long)acc);
    if (getRTSStatsEnabled())
        printf("most live data seen: %lu bytes\n", (unsigned long)most_live);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
    return 0;
}
