/*
 * mapchurn: a persistent balanced-tree map (an AVL tree, path copying) under
 * churn. LIVE entries are inserted, then each of OPS steps inserts a new key,
 * deletes the oldest one and looks one up, so the live set stays at LIVE
 * entries in the old generation while every step allocates a new path of
 * ~log2(LIVE) nodes and makes the old path garbage.
 *
 *     data M = Tip | Node !M !M !Int !Int !Int    -- left right key value height
 *
 * Keys: key(j) = (j * 2654435761) mod 2^31, a bijection, so the final map
 * holds exactly the keys key(j), OPS <= j < OPS + LIVE, with values j. The
 * self-check (the same in every language) walks the final tree: it must be
 * ordered and balanced, hold LIVE entries with those key and value sums,
 * and every lookup must have hit. The peers (bench/peers/mapchurn.*) run
 * the same insert, delete, delete-min and rebalancing code.
 *
 * Usage: mapchurn [LIVE [OPS]] [+RTS options -RTS]
 * Prints "mapchurn: live LIVE ops OPS size N keysum K valsum V found F".
 */
#include "Rts.h"
#include "bench.h"

static const StgInfoTable tip_info = {
    .type = CONSTR_STATIC, .tag = 0, .ptrs = 0, .nptrs = 0, .name = "main:Main.Tip"};
static const StgInfoTable node_info = HS_CONSTR_INFO(1, 2, 3, "main:Main.Node");
static const StgClosure tip_closure = {.info = &tip_info};

#define TIP      TAG_CLOSURE(1, &tip_closure)
#define NODE_TAG 2
#define NODE_W   6 /* header, left, right, key, value, height */

static inline int is_node(StgClosure *t)
{
    return GET_TAG(t) == NODE_TAG;
}
static inline StgClosure *left(StgClosure *t)
{
    return UNTAG(t)->payload[0];
}
static inline StgClosure *right(StgClosure *t)
{
    return UNTAG(t)->payload[1];
}
static inline long key(StgClosure *t)
{
    return (long)bench_get_word(UNTAG(t), 2);
}
static inline long val(StgClosure *t)
{
    return (long)bench_get_word(UNTAG(t), 3);
}
static inline long height(StgClosure *t)
{
    return is_node(t) ? (long)bench_get_word(UNTAG(t), 4) : 0;
}

static inline long mk_key(long j)
{
    return (j * 2654435761L) & 0x7fffffff;
}

/* Write a node at p, which the caller has just allocated. */
static StgClosure *init_node(StgPtr p, StgClosure *l, long k, long v, StgClosure *r)
{
    StgClosure *c = (StgClosure *)p;
    long hl = height(l), hr = height(r);
    c->info = &node_info;
    c->payload[0] = l;
    c->payload[1] = r;
    bench_set_word(c, 2, (StgWord)k);
    bench_set_word(c, 3, (StgWord)v);
    bench_set_word(c, 4, (StgWord)((hl > hr ? hl : hr) + 1));
    return TAG_CLOSURE(NODE_TAG, c);
}

enum rotation { NONE, SINGLE_R, DOUBLE_R, SINGLE_L, DOUBLE_L };

/*
 * Node (l, k, v, r), rebalanced. l and r are read through root slots: the
 * one allocation here (all the nodes a rotation needs, as a compiler's single
 * heap check would do) may move them. The case is decided before it.
 */
static StgClosure *balance(Capability *cap, StgClosure **lp, long k, long v, StgClosure **rp)
{
    long hl = height(*lp), hr = height(*rp);
    enum rotation rot = NONE;
    if (hl > hr + 1)
        rot = height(left(*lp)) >= height(right(*lp)) ? SINGLE_R : DOUBLE_R;
    else if (hr > hl + 1)
        rot = height(right(*rp)) >= height(left(*rp)) ? SINGLE_L : DOUBLE_L;
    static const int nodes[] = {
        [NONE] = 1, [SINGLE_R] = 2, [DOUBLE_R] = 3, [SINGLE_L] = 2, [DOUBLE_L] = 3};
    StgPtr p = rts_alloc(cap, (StgWord)nodes[rot] * NODE_W);
    StgClosure *l = *lp, *r = *rp, *a, *b, *m;
    switch (rot) {
    case SINGLE_R:
        a = init_node(p + NODE_W, right(l), k, v, r);
        return init_node(p, left(l), key(l), val(l), a);
    case DOUBLE_R:
        m = right(l);
        a = init_node(p + NODE_W, left(l), key(l), val(l), left(m));
        b = init_node(p + 2 * NODE_W, right(m), k, v, r);
        return init_node(p, a, key(m), val(m), b);
    case SINGLE_L:
        a = init_node(p + NODE_W, l, k, v, left(r));
        return init_node(p, a, key(r), val(r), right(r));
    case DOUBLE_L:
        m = left(r);
        a = init_node(p + NODE_W, l, k, v, left(m));
        b = init_node(p + 2 * NODE_W, right(m), key(r), val(r), right(r));
        return init_node(p, a, key(m), val(m), b);
    case NONE:
        break;
    }
    return init_node(p, l, k, v, r);
}

typedef struct {
    StgClosure *l, *r;
} SubRoots;

/*
 * The map functions take the tree through a root slot (*tp) and read it only
 * after pushing their own frame, since the push itself may collect.
 */
static StgClosure *insert(Capability *cap, StgClosure **tp, long k, long v)
{
    if (!is_node(*tp))
        return init_node(rts_alloc(cap, NODE_W), TIP, k, v, TIP);
    SubRoots *s = HS_ROOTS(cap, SubRoots);
    StgClosure *t = *tp;
    long tk = key(t), tv = val(t);
    s->l = left(t);
    s->r = right(t);
    if (k < tk)
        s->l = insert(cap, &s->l, k, v);
    else if (k > tk)
        s->r = insert(cap, &s->r, k, v);
    else
        tv = v;
    StgClosure *res = balance(cap, &s->l, tk, tv, &s->r);
    HS_POP_ROOTS(cap, s);
    return res;
}

/* The tree without its smallest entry, which goes to *mk, *mv. */
static StgClosure *delete_min(Capability *cap, StgClosure **tp, long *mk, long *mv)
{
    StgClosure *t = *tp;
    if (!is_node(left(t))) {
        *mk = key(t);
        *mv = val(t);
        return right(t);
    }
    SubRoots *s = HS_ROOTS(cap, SubRoots);
    t = *tp;
    long tk = key(t), tv = val(t);
    s->l = left(t);
    s->r = right(t);
    s->l = delete_min(cap, &s->l, mk, mv);
    StgClosure *res = balance(cap, &s->l, tk, tv, &s->r);
    HS_POP_ROOTS(cap, s);
    return res;
}

static StgClosure *delete (Capability *cap, StgClosure **tp, long k)
{
    if (!is_node(*tp))
        return *tp;
    SubRoots *s = HS_ROOTS(cap, SubRoots);
    StgClosure *t = *tp, *res;
    long tk = key(t), tv = val(t);
    s->l = left(t);
    s->r = right(t);
    if (k < tk) {
        s->l = delete (cap, &s->l, k);
    } else if (k > tk) {
        s->r = delete (cap, &s->r, k);
    } else if (!is_node(s->l) || !is_node(s->r)) {
        res = is_node(s->l) ? s->l : s->r;
        HS_POP_ROOTS(cap, s);
        return res;
    } else {
        s->r = delete_min(cap, &s->r, &tk, &tv);
    }
    res = balance(cap, &s->l, tk, tv, &s->r);
    HS_POP_ROOTS(cap, s);
    return res;
}

static int member(StgClosure *t, long k)
{
    while (is_node(t)) {
        long tk = key(t);
        if (k == tk)
            return 1;
        t = k < tk ? left(t) : right(t);
    }
    return 0;
}

typedef struct {
    long size, keysum, valsum, bad;
} Census;

/* Height of t, counting its entries and noting any order or balance fault. */
static long census(StgClosure *t, long lo, long hi, Census *c)
{
    if (!is_node(t))
        return 0;
    long k = key(t);
    long hl = census(left(t), lo, k, c), hr = census(right(t), k, hi, c);
    long h = (hl > hr ? hl : hr) + 1;
    if (k <= lo || k >= hi || hl - hr > 1 || hr - hl > 1 || h != height(t))
        c->bad++;
    c->size++;
    c->keysum += k;
    c->valsum += val(t);
    return h;
}

typedef struct {
    StgClosure *map;
} MainRoots;

int main(int argc, char *argv[])
{
    hs_init_with_rtsopts(&argc, &argv);
    long live = bench_arg(argc, argv, 1, 1000, 2, 1L << 28, "LIVE");
    long ops = bench_arg(argc, argv, 2, 10000, 0, 1L << 30, "OPS");

    Capability *cap = rts_lock();
    MainRoots *r = HS_ROOTS(cap, MainRoots);
    r->map = TIP;
    for (long j = 0; j < live; j++)
        r->map = insert(cap, &r->map, mk_key(j), j);
    long found = 0;
    for (long j = 0; j < ops; j++) {
        r->map = insert(cap, &r->map, mk_key(live + j), live + j);
        r->map = delete (cap, &r->map, mk_key(j));
        found += member(r->map, mk_key(j + live / 2));
    }
    Census c = {0, 0, 0, 0};
    census(r->map, -1, 1L << 31, &c);
    HS_POP_ROOTS(cap, r);
    rts_unlock(cap);

    long keysum = 0, valsum = 0;
    for (long j = ops; j < ops + live; j++) {
        keysum += mk_key(j);
        valsum += j;
    }
    printf("mapchurn: live %ld ops %ld size %ld keysum %ld valsum %ld found %ld\n", live, ops,
           c.size, c.keysum, c.valsum, found);
    bench_check("mapchurn", "order or balance faults", c.bad, 0);
    bench_check("mapchurn", "size", c.size, live);
    bench_check("mapchurn", "key sum", c.keysum, keysum);
    bench_check("mapchurn", "value sum", c.valsum, valsum);
    bench_check("mapchurn", "lookups found", found, ops);
    hs_exit();
    return 0;
}
