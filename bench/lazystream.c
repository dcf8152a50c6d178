/*
 * lazystream: a lazy stream pipeline, evaluated on demand with rts_eval:
 * thunks, updates and selector thunks.
 *
 *     data S = Cons !Int S                        -- the tail is lazy
 *     gen n            = Cons n (gen (n + 1))
 *     smap (Cons x r)  = Cons (f x) (smap r)      -- f x = (x * 2654435761) mod 2^31
 *     split (Cons x r) = let p = split r          -- fst p, snd p: selector thunks
 *                        in if even x then (Cons x (fst p), snd p)
 *                                     else (fst p, Cons x (snd p))
 *     zipp (Cons a r) (Cons b s) = Cons (a + b) (zipp r s)
 *     main = sum (take N (zipp evens odds)) where (evens, odds) = split (smap (gen 0))
 *
 * Every element passes through four thunks (gen, smap, split, zipp), each
 * updated with its value; the two halves of each split are selector thunks,
 * which the collector evaluates once their pair exists, so that consumed
 * parts of the stream are not kept alive (Wadler's space-leak fix). The
 * check (the same in the peers) recomputes the sum with plain loops: the
 * k-th even value of f plus the k-th odd one, for k < N.
 *
 * Roots in entry code: the runtime hands each entry rooted copies of its
 * pointer free variables (fv, include/README.md "Evaluation"); the entry
 * keeps what it evaluates there, so nothing it holds goes stale when an
 * allocation collects, and overwriting them lets consumed cells die.
 *
 * Usage: lazystream [N] [+RTS options -RTS]
 * Prints "lazystream: n N sum S". Peers: bench/peers/lazystream.{hs,ml}.
 */
#include "Rts.h"
#include "bench.h"

static const StgInfoTable cons_info = HS_CONSTR_INFO(1, 1, 1, "main:Main.Cons");
static const StgInfoTable pair_info = HS_CONSTR_INFO(1, 2, 0, "main:GHC.Tuple.(,)");
static const StgInfoTable fst_info = HS_SELECTOR_INFO(0, "main:Main.fst");
static const StgInfoTable snd_info = HS_SELECTOR_INFO(1, "main:Main.snd");

#define CONS_TAG 1
#define PAIR_TAG 1

static inline long f(long x)
{
    return (x * 2654435761L) & 0x7fffffff;
}
static inline long head(StgClosure *c)
{
    return (long)bench_get_word(UNTAG(c), 1);
}
static inline StgClosure *tail(StgClosure *c)
{
    return UNTAG(c)->payload[0];
}
static inline StgClosure *free_var(StgClosure *self, int i)
{
    return ((StgThunk *)self)->payload[i];
}

static StgClosure *init_cons(StgPtr p, long x, StgClosure *rest)
{
    StgClosure *c = (StgClosure *)p;
    c->info = &cons_info;
    c->payload[0] = rest;
    bench_set_word(c, 1, (StgWord)x);
    return TAG_CLOSURE(CONS_TAG, c);
}

/* A thunk of `ptrs` pointer free variables (or one word) at p. */
static StgClosure *init_thunk(StgPtr p, const StgInfoTable *info, StgClosure *a, StgClosure *b)
{
    StgThunk *t = (StgThunk *)p;
    t->info = info;
    t->slot = 0;
    t->payload[0] = a;
    if (info->ptrs > 1)
        t->payload[1] = b;
    return (StgClosure *)t;
}

static StgClosure *gen_entry(Capability *cap, StgClosure *self, StgClosure **fv);
static StgClosure *smap_entry(Capability *cap, StgClosure *self, StgClosure **fv);
static StgClosure *split_entry(Capability *cap, StgClosure *self, StgClosure **fv);
static StgClosure *zipp_entry(Capability *cap, StgClosure *self, StgClosure **fv);
static const StgInfoTable gen_info = HS_THUNK_INFO(gen_entry, 0, 1, "main:Main.gen");
static const StgInfoTable smap_info = HS_THUNK_INFO(smap_entry, 1, 0, "main:Main.smap");
static const StgInfoTable split_info = HS_THUNK_INFO(split_entry, 1, 0, "main:Main.split");
static const StgInfoTable zipp_info = HS_THUNK_INFO(zipp_entry, 2, 0, "main:Main.zipp");

/* gen n = Cons n (gen (n + 1)): one non-pointer free variable, read first. */
static StgClosure *gen_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)fv;
    long n = (long)bench_get_word(self, 1); /* payload[0] of the thunk, after its slot */
    StgPtr p = rts_alloc(cap, 3 + 3);
    StgClosure *next = init_thunk(p + 3, &gen_info, NULL, NULL);
    bench_set_word(next, 1, (StgWord)(n + 1));
    return init_cons(p, n, next);
}

static StgClosure *smap_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)self;
    fv[0] = rts_eval(cap, fv[0]);
    StgPtr p = rts_alloc(cap, 3 + 3);
    StgClosure *v = fv[0];
    StgClosure *rest = init_thunk(p + 3, &smap_info, tail(v), NULL);
    StgClosure *c = init_cons(p, f(head(v)), rest);
    return c;
}

/* One allocation for the five objects: the thunk p, fst p, snd p, a Cons, the pair. */
static StgClosure *split_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)self;
    fv[0] = rts_eval(cap, fv[0]);
    StgPtr p = rts_alloc(cap, 5 * 3);
    StgClosure *v = fv[0];
    long x = head(v);
    StgClosure *pr = init_thunk(p, &split_info, tail(v), NULL);
    StgSelector *fs = (StgSelector *)(p + 3), *sn = (StgSelector *)(p + 6);
    fs->info = &fst_info;
    fs->slot = 0;
    fs->selectee = pr;
    sn->info = &snd_info;
    sn->slot = 0;
    sn->selectee = pr;
    StgClosure *pair = (StgClosure *)(p + 12);
    pair->info = &pair_info;
    if (x % 2 == 0) {
        pair->payload[0] = init_cons(p + 9, x, (StgClosure *)fs);
        pair->payload[1] = (StgClosure *)sn;
    } else {
        pair->payload[0] = (StgClosure *)fs;
        pair->payload[1] = init_cons(p + 9, x, (StgClosure *)sn);
    }
    return TAG_CLOSURE(PAIR_TAG, pair);
}

static StgClosure *zipp_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)self;
    fv[0] = rts_eval(cap, fv[0]);
    fv[1] = rts_eval(cap, fv[1]);
    StgPtr p = rts_alloc(cap, 3 + 4);
    StgClosure *a = fv[0], *b = fv[1];
    StgClosure *rest = init_thunk(p + 3, &zipp_info, tail(a), tail(b));
    StgClosure *c = init_cons(p, head(a) + head(b), rest);
    return c;
}

/* The sum the pipeline must produce, from plain loops over f. */
static long expected(long n)
{
    long sum = 0, ie = 0, io = 0;
    for (long k = 0; k < n; k++) {
        while (f(ie) % 2 != 0)
            ie++;
        while (f(io) % 2 == 0)
            io++;
        sum += f(ie++) + f(io++);
    }
    return sum;
}

int main(int argc, char *argv[])
{
    hs_init_with_rtsopts(&argc, &argv);
    long n = bench_arg(argc, argv, 1, 10000, 0, 1L << 40, "N");

    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 1); /* the stream */
    /* (evens, odds) = split (smap (gen 0)); the stream is zipp evens odds */
    StgPtr p = rts_alloc(cap, 3 + 3 + 3 + 3 + 3 + 4);
    StgClosure *g = init_thunk(p, &gen_info, NULL, NULL);
    bench_set_word(g, 1, 0);
    StgClosure *m = init_thunk(p + 3, &smap_info, g, NULL);
    StgClosure *pr = init_thunk(p + 6, &split_info, m, NULL);
    StgSelector *ev = (StgSelector *)(p + 9), *od = (StgSelector *)(p + 12);
    ev->info = &fst_info;
    ev->slot = 0;
    ev->selectee = pr;
    od->info = &snd_info;
    od->slot = 0;
    od->selectee = pr;
    r[0] = init_thunk(p + 15, &zipp_info, (StgClosure *)ev, (StgClosure *)od);

    long sum = 0;
    for (long k = 0; k < n; k++) {
        StgClosure *v = rts_eval(cap, r[0]);
        sum += head(v);
        r[0] = tail(v);
    }
    rts_pop_roots(cap, r);
    rts_unlock(cap);

    printf("lazystream: n %ld sum %ld\n", n, sum);
    bench_check("lazystream", "sum", sum, expected(n));
    hs_exit();
    return 0;
}
