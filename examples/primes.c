/*
 * The infinite list of primes, lazily, as a compiler would emit it for
 *
 *     primes = sieve (enumFrom 2)
 *     sieve (p : xs) = p : sieve [x | x <- xs, x `mod` p /= 0]
 *     main = print (take n primes)
 *
 * Every list tail is a thunk; evaluating one pushes an update frame, runs
 * its entry code and overwrites it with the cons cell it computed.
 * Usage: primes [n]   (default 20)
 */
#include <stdio.h>
#include <stdlib.h>

#include "prelude.h"

/* enumFrom n: a thunk with one non-pointer free variable. */
static StgClosure *from_entry(Capability *cap, StgClosure *self, StgClosure **fv);
static const StgInfoTable from_info = HS_THUNK_INFO(from_entry, 0, 1, "main:Main.enumFrom");

static StgClosure *mk_from(Capability *cap, StgInt n)
{
    StgThunk *t = (StgThunk *)rts_alloc(cap, 3);
    t->info = &from_info;
    t->slot = 0;
    ((StgInt *)t->payload)[0] = n;
    return (StgClosure *)t;
}

static StgClosure *from_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)fv;
    StgInt n = ((StgInt *)((StgThunk *)self)->payload)[0]; /* before allocating */
    StgClosure **r = rts_push_roots(cap, 2);
    r[0] = mk_int(cap, n);
    r[1] = mk_from(cap, n + 1);
    StgClosure *cell = mk_cons(cap, r);
    rts_pop_roots(cap, r);
    return cell;
}

/* filter (\x -> x `mod` p /= 0) xs: free variables xs (pointer) and p. */
static StgClosure *sift_entry(Capability *cap, StgClosure *self, StgClosure **fv);
static const StgInfoTable sift_info = HS_THUNK_INFO(sift_entry, 1, 1, "main:Main.sift");

static StgClosure *mk_sift(Capability *cap, StgInt p, StgClosure *xs)
{
    StgClosure **r = rts_push_roots(cap, 1);
    r[0] = xs;
    StgThunk *t = (StgThunk *)rts_alloc(cap, 4);
    t->info = &sift_info;
    t->slot = 0;
    t->payload[0] = r[0];
    ((StgInt *)t->payload)[1] = p;
    rts_pop_roots(cap, r);
    return (StgClosure *)t;
}

static StgClosure *sift_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    StgInt p = ((StgInt *)((StgThunk *)self)->payload)[1];
    /* fv[0] (xs) is rooted by the runtime; we walk it forward in place. */
    for (;;) {
        fv[0] = rts_eval(cap, fv[0]);
        StgInt x = int_val(rts_eval(cap, HEAD(fv[0])));
        if (x % p != 0) {
            StgClosure **r = rts_push_roots(cap, 2);
            r[0] = HEAD(fv[0]);
            r[1] = mk_sift(cap, p, TAIL(fv[0]));
            StgClosure *cell = mk_cons(cap, r);
            rts_pop_roots(cap, r);
            return cell;
        }
        fv[0] = TAIL(fv[0]);
    }
}

/* sieve xs */
static StgClosure *sieve_entry(Capability *cap, StgClosure *self, StgClosure **fv);
static const StgInfoTable sieve_info = HS_THUNK_INFO(sieve_entry, 1, 0, "main:Main.sieve");

static StgClosure *mk_sieve(Capability *cap, StgClosure *xs)
{
    StgClosure **r = rts_push_roots(cap, 1);
    r[0] = xs;
    StgThunk *t = (StgThunk *)rts_alloc(cap, 3);
    t->info = &sieve_info;
    t->slot = 0;
    t->payload[0] = r[0];
    rts_pop_roots(cap, r);
    return (StgClosure *)t;
}

static StgClosure *sieve_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)self;
    fv[0] = rts_eval(cap, fv[0]);
    StgInt p = int_val(rts_eval(cap, HEAD(fv[0])));
    StgClosure **r = rts_push_roots(cap, 2);
    r[0] = HEAD(fv[0]);
    r[1] = mk_sift(cap, p, TAIL(fv[0]));
    r[1] = mk_sieve(cap, r[1]);
    StgClosure *cell = mk_cons(cap, r);
    rts_pop_roots(cap, r);
    return cell;
}

int main(int argc, char *argv[])
{
    hs_init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 20;
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 1);
    r[0] = mk_sieve(cap, mk_from(cap, 2));
    for (int i = 0; i < n; i++) {
        r[0] = rts_eval(cap, r[0]);
        printf("%s%ld", i ? " " : "", (long)int_val(rts_eval(cap, HEAD(r[0]))));
        r[0] = TAIL(r[0]);
    }
    printf("\n");
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
    return 0;
}
