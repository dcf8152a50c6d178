/*
 * mapchurn in C (the peer of bench/mapchurn.c; see there): the same AVL tree
 * with path copying. Only the newest version of the map is ever kept, so
 * with malloc each node that an update copies or a rotation replaces is
 * freed at once; the garbage collectors and the arena leave it.
 */
#include "../bench.h"
#include "mm.h"

typedef struct node {
    struct node *l, *r;
    long k, v, h;
} node;

#define TIP NULL

static inline long height(const node *t)
{
    return t ? t->h : 0;
}
static inline long mk_key(long j)
{
    return (j * 2654435761L) & 0x7fffffff;
}

static node *mk_node(node *l, long k, long v, node *r)
{
    node *n = mm_alloc(sizeof *n);
    long hl = height(l), hr = height(r);
    n->l = l;
    n->r = r;
    n->k = k;
    n->v = v;
    n->h = (hl > hr ? hl : hr) + 1;
    return n;
}

static node *balance(node *l, long k, long v, node *r)
{
    long hl = height(l), hr = height(r);
    node *m, *res;
    if (hl > hr + 1) {
        if (height(l->l) >= height(l->r)) {
            res = mk_node(l->l, l->k, l->v, mk_node(l->r, k, v, r));
        } else {
            m = l->r;
            res = mk_node(mk_node(l->l, l->k, l->v, m->l), m->k, m->v, mk_node(m->r, k, v, r));
            mm_free(m);
        }
        mm_free(l);
        return res;
    }
    if (hr > hl + 1) {
        if (height(r->r) >= height(r->l)) {
            res = mk_node(mk_node(l, k, v, r->l), r->k, r->v, r->r);
        } else {
            m = r->l;
            res = mk_node(mk_node(l, k, v, m->l), m->k, m->v, mk_node(m->r, r->k, r->v, r->r));
            mm_free(m);
        }
        mm_free(r);
        return res;
    }
    return mk_node(l, k, v, r);
}

static node *insert(node *t, long k, long v)
{
    if (!t)
        return mk_node(TIP, k, v, TIP);
    node *l = t->l, *r = t->r;
    long tk = t->k, tv = t->v;
    mm_free(t);
    if (k < tk)
        l = insert(l, k, v);
    else if (k > tk)
        r = insert(r, k, v);
    else
        tv = v;
    return balance(l, tk, tv, r);
}

static node *delete_min(node *t, long *mk, long *mv)
{
    node *l = t->l, *r = t->r;
    long tk = t->k, tv = t->v;
    mm_free(t);
    if (!l) {
        *mk = tk;
        *mv = tv;
        return r;
    }
    return balance(delete_min(l, mk, mv), tk, tv, r);
}

static node *delete (node *t, long k)
{
    if (!t)
        return t;
    node *l = t->l, *r = t->r;
    long tk = t->k, tv = t->v;
    mm_free(t);
    if (k < tk)
        l = delete (l, k);
    else if (k > tk)
        r = delete (r, k);
    else if (!l || !r)
        return l ? l : r;
    else
        r = delete_min(r, &tk, &tv);
    return balance(l, tk, tv, r);
}

static int member(const node *t, long k)
{
    while (t) {
        if (k == t->k)
            return 1;
        t = k < t->k ? t->l : t->r;
    }
    return 0;
}

typedef struct {
    long size, keysum, valsum, bad;
} census_t;

static long census(const node *t, long lo, long hi, census_t *c)
{
    if (!t)
        return 0;
    long hl = census(t->l, lo, t->k, c), hr = census(t->r, t->k, hi, c);
    long h = (hl > hr ? hl : hr) + 1;
    if (t->k <= lo || t->k >= hi || hl - hr > 1 || hr - hl > 1 || h != t->h)
        c->bad++;
    c->size++;
    c->keysum += t->k;
    c->valsum += t->v;
    return h;
}

int main(int argc, char *argv[])
{
    mm_init();
    long live = bench_arg(argc, argv, 1, 1000, 2, 1L << 28, "LIVE");
    long ops = bench_arg(argc, argv, 2, 10000, 0, 1L << 30, "OPS");
    node *m = TIP;
    for (long j = 0; j < live; j++)
        m = insert(m, mk_key(j), j);
    long found = 0;
    for (long j = 0; j < ops; j++) {
        m = insert(m, mk_key(live + j), live + j);
        m = delete (m, mk_key(j));
        found += member(m, mk_key(j + live / 2));
    }
    census_t c = {0, 0, 0, 0};
    census(m, -1, 1L << 31, &c);
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
    mm_report();
    return 0;
}
