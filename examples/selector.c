/*
 * The classic selector-thunk space leak, and the collector's fix:
 *
 *     pairs  = [ (i, replicate 512 i) | i <- [1..n] ]
 *     firsts = map fst pairs          -- each element a selector thunk `fst p`
 *     main   = print (sum firsts)
 *
 * Until `sum` runs, each `fst p` would keep its whole pair alive, and with
 * it the big second component. The collector evaluates a selector thunk
 * whose selectee is already a constructor, so the second components die as
 * soon as nothing else needs them: the program prints the live data just
 * before the sum, which stays near n small cells instead of n * 12 KiB.
 * Usage: selector [n]   (default 20000); run with +RTS -T for the numbers.
 */
#include <stdio.h>
#include <stdlib.h>

#include "prelude.h"

static const StgInfoTable fst_info = HS_SELECTOR_INFO(0, "main:Main.fst");

/* replicate k x, built eagerly (it is the big part). */
static StgClosure *replicate(Capability *cap, StgInt k, StgClosure *x)
{
    StgClosure **r = rts_push_roots(cap, 2);
    r[0] = x;
    r[1] = NIL;
    for (StgInt i = 0; i < k; i++)
        r[1] = mk_cons(cap, r);
    StgClosure *xs = r[1];
    rts_pop_roots(cap, r);
    return xs;
}

int main(int argc, char *argv[])
{
    hs_init(&argc, &argv);
    StgInt n = argc > 1 ? atol(argv[1]) : 20000;
    Capability *cap = rts_lock();
    /* r[0]: firsts (built backwards), r[1]: the pair, r[2]: scratch */
    StgClosure **r = rts_push_roots(cap, 3);
    r[0] = NIL;
    for (StgInt i = n; i >= 1; i--) {
        r[2] = mk_int(cap, i);
        StgClosure *big = replicate(cap, 512, r[2]);
        r[1] = (StgClosure *)rts_alloc(cap, 3);
        UNTAG(r[1])->info = &pair_info;
        UNTAG(r[1])->payload[0] = r[2];
        UNTAG(r[1])->payload[1] = big;
        r[1] = TAG_CLOSURE(1, r[1]);
        StgSelector *s = (StgSelector *)rts_alloc(cap, 3);
        s->info = &fst_info;
        s->slot = 0;
        s->selectee = r[1];
        StgClosure **c = rts_push_roots(cap, 2);
        c[0] = (StgClosure *)s;
        c[1] = r[0];
        r[0] = mk_cons(cap, c);
        rts_pop_roots(cap, c);
    }
    r[1] = r[2] = NULL;
    /* Every `fst p` is still unevaluated here: how much do they keep alive? */
    performMajorGC();
    RTSStats s;
    getRTSStats(&s);
    StgInt sum = 0;
    for (StgClosure *p = r[0]; IS_CONS(p); p = TAIL(p))
        sum += int_val(rts_eval(cap, HEAD(p)));
    printf("sum of firsts: %ld\n", (long)sum);
    if (getRTSStatsEnabled())
        printf("live before the sum: %lu bytes (the second components alone: %lu bytes)\n",
               (unsigned long)s.gc.live_bytes, (unsigned long)(n * 512 * 3 * 8));
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
    return 0;
}
