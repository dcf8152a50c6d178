/*
 * The symmetric heap's allocator (rts/shmem/shmem_heap.c) alone, against a
 * reference model: random sequences of alloc / aligned alloc / realloc /
 * free (valid and invalid) where the model predicts the exact outcome of
 * every call (success, or which error), the returned range must lie in a
 * range the model has free, contents survive reallocs, and
 * shmem_heap_check holds after every step. Then determinism (the same calls
 * give the same offsets), full coalescing and reuse on a churn, and the
 * edge cases. Seeded: the seed is printed and HSRTS_TEST_SEED replays it.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmem/shmem_heap.h"
#include "test_util.h"

#define MAX_LIVE 256
#define GR       SHMEM_HEAP_GRANULE

static uint64_t rup(uint64_t x, uint64_t a)
{
    return (x + a - 1) / a * a;
}

/* ---- the model ------------------------------------------------------------ */

typedef struct {
    uint64_t off;    /* start */
    uint64_t extent; /* bytes it occupies: the request rounded to the granule */
    uint64_t req;    /* bytes asked for: the part whose contents must survive */
    uint64_t tag;    /* what its bytes are filled with */
} MLive;

typedef struct {
    ShmemHeap h;
    uint8_t *mem; /* the heap's bytes, so contents can be checked */
    uint64_t origin;
    MLive live[MAX_LIVE];
    int n;
    uint64_t next_tag;
} Model;

static int by_off(const void *a, const void *b)
{
    const MLive *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

static void model_init(Model *m, uint64_t size, uint64_t origin)
{
    memset(m, 0, sizeof *m);
    m->origin = origin;
    m->mem = calloc(size, 1);
    ck_assert_ptr_nonnull(m->mem);
    shmem_heap_init(&m->h, origin, size);
    m->next_tag = 1;
}

static void model_exit(Model *m)
{
    shmem_heap_exit(&m->h);
    free(m->mem);
}

static uint8_t pattern(uint64_t tag, uint64_t i)
{
    return (uint8_t)((tag * 0x9E3779B1u) >> 7 ^ i * 31u ^ (i >> 8));
}

static void fill(Model *m, const MLive *l, uint64_t from)
{
    for (uint64_t i = from; i < l->req; i++)
        m->mem[l->off + i] = pattern(l->tag, i);
}

static void verify(const Model *m, const MLive *l, uint64_t upto)
{
    /* A plain loop: Check's assertions mark their point at every call, which is slow. */
    for (uint64_t i = 0; i < upto; i++)
        if (m->mem[l->off + i] != pattern(l->tag, i))
            ck_abort_msg("block at %llu (tag %llu): byte %llu changed", (unsigned long long)l->off,
                         (unsigned long long)l->tag, (unsigned long long)i);
}

/* The free ranges, in address order, as [start, end) pairs; returns how many. */
static int gaps(Model *m, uint64_t (*g)[2])
{
    qsort(m->live, (size_t)m->n, sizeof m->live[0], by_off);
    int k = 0;
    uint64_t at = 0;
    for (int i = 0; i < m->n; i++) {
        if (m->live[i].off > at) {
            g[k][0] = at;
            g[k++][1] = m->live[i].off;
        }
        at = m->live[i].off + m->live[i].extent;
    }
    if (at < m->h.size) {
        g[k][0] = at;
        g[k++][1] = m->h.size;
    }
    return k;
}

/* Would `extent` bytes at an `align` boundary fit in some free range? */
static bool model_fits(Model *m, uint64_t extent, uint64_t align)
{
    static uint64_t g[MAX_LIVE + 1][2];
    int k = gaps(m, g);
    if (align < GR)
        align = GR;
    for (int i = 0; i < k; i++) {
        uint64_t pad = (0 - (m->origin + g[i][0])) & (align - 1);
        if (pad <= g[i][1] - g[i][0] && g[i][1] - g[i][0] - pad >= extent)
            return true;
    }
    return false;
}

/* Is [off, off+extent) inside one free range of the model? */
static bool model_is_free(Model *m, uint64_t off, uint64_t extent)
{
    static uint64_t g[MAX_LIVE + 1][2];
    int k = gaps(m, g);
    for (int i = 0; i < k; i++)
        if (off >= g[i][0] && off + extent <= g[i][1])
            return true;
    return false;
}

static int find_live(const Model *m, uint64_t off)
{
    for (int i = 0; i < m->n; i++)
        if (m->live[i].off == off)
            return i;
    return -1;
}

static MLive *live_at(Model *m, uint64_t off)
{
    int i = find_live(m, off);
    ck_assert_msg(i >= 0, "the model has no block at %llu", (unsigned long long)off);
    return &m->live[i];
}

/* What the heap must answer for a pointer that is no live block's start. */
static ShmemHeapStatus model_classify(const Model *m, uint64_t off)
{
    if (off >= m->h.size)
        return SHMEM_HEAP_OUTSIDE;
    for (int i = 0; i < m->n; i++)
        if (off > m->live[i].off && off < m->live[i].off + m->live[i].extent)
            return SHMEM_HEAP_NOT_A_BLOCK;
    return SHMEM_HEAP_ALREADY_FREE;
}

static void model_check(Model *m)
{
    const char *why = shmem_heap_check(&m->h);
    ck_assert_msg(why == NULL, "shmem_heap_check: %s", why);
    uint64_t used = 0;
    for (int i = 0; i < m->n; i++)
        used += m->live[i].extent;
    ck_assert_uint_eq(m->h.bytes_used, used);
    ck_assert_uint_eq(m->h.n_used, (uint64_t)m->n);
}

/* ---- one step of each kind, outcome predicted by the model ---------------- */

static void step_alloc(Model *m, uint64_t req, uint64_t align)
{
    uint64_t extent = rup(req, GR);
    ShmemHeapStatus want;
    if (align == 0 || (align & (align - 1)))
        want = SHMEM_HEAP_BAD_ALIGN;
    else if (req > m->h.size)
        want = SHMEM_HEAP_TOO_BIG;
    else if (m->n == MAX_LIVE || !model_fits(m, extent, align))
        want = SHMEM_HEAP_NO_SPACE;
    else
        want = SHMEM_HEAP_OK;
    uint64_t off = ~(uint64_t)0;
    ShmemHeapStatus got = want == SHMEM_HEAP_NO_SPACE && m->n == MAX_LIVE
                              ? SHMEM_HEAP_NO_SPACE /* the model's table is full: skip */
                              : shmem_heap_alloc(&m->h, req, align, &off);
    ck_assert_msg(got == want, "alloc(%llu, align %llu): status %d, model says %d",
                  (unsigned long long)req, (unsigned long long)align, got, want);
    if (got != SHMEM_HEAP_OK)
        return;
    ck_assert_msg((m->origin + off) % (align < GR ? GR : align) == 0,
                  "alloc(%llu, align %llu) = %llu is not aligned", (unsigned long long)req,
                  (unsigned long long)align, (unsigned long long)off);
    ck_assert_msg(model_is_free(m, off, extent), "alloc(%llu) = %llu overlaps a live block",
                  (unsigned long long)req, (unsigned long long)off);
    MLive *l = &m->live[m->n++];
    *l = (MLive){off, extent, req, m->next_tag++};
    fill(m, l, 0);
}

static void step_free_live(Model *m, int i)
{
    MLive l = m->live[i];
    verify(m, &l, l.req);
    ck_assert_int_eq(shmem_heap_free(&m->h, l.off), SHMEM_HEAP_OK);
    m->live[i] = m->live[--m->n];
    /* Scribble over it: the next owner must not see the old bytes as its own. */
    memset(m->mem + l.off, 0xA5, l.extent);
}

static void step_free_bad(Model *m, uint64_t off)
{
    ShmemHeapStatus want = model_classify(m, off);
    ShmemHeapStatus got = shmem_heap_free(&m->h, off);
    ck_assert_msg(got == want, "free(%llu) of no block: status %d, model says %d",
                  (unsigned long long)off, got, want);
}

/* The free bytes directly below and above [off, off+extent). */
static void model_neighbours(Model *m, uint64_t off, uint64_t extent, uint64_t *below,
                             uint64_t *above)
{
    static uint64_t g[MAX_LIVE + 1][2];
    int k = gaps(m, g);
    *below = *above = 0;
    for (int i = 0; i < k; i++) {
        if (g[i][1] == off)
            *below = g[i][1] - g[i][0];
        if (g[i][0] == off + extent)
            *above = g[i][1] - g[i][0];
    }
}

static void step_realloc(Model *m, uint64_t off, uint64_t req)
{
    MLive old = *live_at(m, off);
    uint64_t extent = rup(req, GR);
    ShmemHeapStatus want;
    if (req > m->h.size) {
        want = SHMEM_HEAP_TOO_BIG;
    } else if (extent <= old.extent) {
        want = SHMEM_HEAP_OK;
    } else {
        /* Elsewhere, or over itself and the free ranges touching it. */
        uint64_t below, above;
        model_neighbours(m, off, old.extent, &below, &above);
        want = model_fits(m, extent, GR) || below + old.extent + above >= extent
                   ? SHMEM_HEAP_OK
                   : SHMEM_HEAP_NO_SPACE;
    }
    uint64_t new_off = ~(uint64_t)0, copy = ~(uint64_t)0;
    ShmemHeapStatus got = shmem_heap_realloc(&m->h, off, req, &new_off, &copy);
    ck_assert_msg(got == want, "realloc(%llu of %llu, %llu): status %d, model says %d",
                  (unsigned long long)off, (unsigned long long)old.extent, (unsigned long long)req,
                  got, want);
    if (got != SHMEM_HEAP_OK) {
        verify(m, &old, old.req); /* unchanged */
        return;
    }
    if (new_off != off) {
        ck_assert_uint_ge(copy, old.req);
        memmove(m->mem + new_off, m->mem + off, copy);
    }
    MLive *slot = live_at(m, off);
    *slot = m->live[--m->n];
    ck_assert_msg(model_is_free(m, new_off, extent),
                  "realloc(%llu, %llu) = %llu overlaps a live block", (unsigned long long)off,
                  (unsigned long long)req, (unsigned long long)new_off);
    MLive *n = &m->live[m->n++];
    *n = (MLive){new_off, extent, req, old.tag};
    verify(m, n, old.req < req ? old.req : req);
    fill(m, n, 0);
}

/* A random size: mostly small, some large, a few larger than the heap. */
static uint64_t random_size(TestRng *r, uint64_t heap)
{
    switch (rng_below(r, 20)) {
    case 0:
        return heap / 2 + rng_below(r, heap);
    case 1:
    case 2:
        return 1 + rng_below(r, heap / 16);
    default:
        return 1 + rng_below(r, 1 + rng_below(r, 2048));
    }
}

static void random_step(Model *m, TestRng *r)
{
    unsigned k = (unsigned)rng_below(r, 100);
    if (k < 35) {
        step_alloc(m, random_size(r, m->h.size), 1);
    } else if (k < 45) {
        uint64_t align;
        if (rng_below(r, 10) == 0)
            align = rng_below(r, 2) ? 0 : 3 + 2 * rng_below(r, 1000); /* not a power of two */
        else
            align = (uint64_t)1 << rng_below(r, 21);
        step_alloc(m, random_size(r, m->h.size), align);
    } else if (k < 75) {
        if (m->n)
            step_free_live(m, (int)rng_below(r, (uint64_t)m->n));
    } else if (k < 90) {
        if (m->n)
            step_realloc(m, m->live[rng_below(r, (uint64_t)m->n)].off, random_size(r, m->h.size));
    } else {
        /* A pointer no call returned: interior, free space, or out of the heap. */
        uint64_t off = rng_below(r, 8) == 0 ? m->h.size + rng_below(r, 1 << 20)
                                            : rng_below(r, m->h.size / GR) * GR;
        if (find_live(m, off) < 0)
            step_free_bad(m, off);
    }
}

START_TEST(model_random)
{
    TestRng r;
    rng_init(&r, test_seed("check_shmem_heap model_random"));
    /* Small heaps run out often; origins vary the alignment arithmetic. */
    static const uint64_t sizes[] = {4096, 64 << 10, 1 << 20, 3 << 20};
    for (int round = 0; round < 8; round++) {
        Model *m = malloc(sizeof *m);
        uint64_t origin = ((uint64_t)1 << 40) + rng_below(&r, 1 << 16) * GR;
        model_init(m, sizes[round % 4], origin);
        for (int s = 0; s < 6000; s++) {
            random_step(m, &r);
            model_check(m);
            if (s % 256 == 0)
                for (int i = 0; i < m->n; i++)
                    verify(m, &m->live[i], m->live[i].req);
        }
        while (m->n)
            step_free_live(m, 0);
        model_check(m);
        ck_assert_uint_eq(m->h.n_free, 1); /* fully coalesced */
        model_exit(m);
        free(m);
    }
}
END_TEST

/* Two heaps fed the same calls give the same offsets, wherever their bookkeeping lives. */
START_TEST(deterministic)
{
    uint64_t seed = test_seed("check_shmem_heap deterministic");
    ShmemHeap a, b;
    shmem_heap_init(&a, (uint64_t)1 << 46, 1 << 20);
    /* Let b's descriptor array and map come from other malloc addresses. */
    void *junk = malloc(12345);
    shmem_heap_init(&b, (uint64_t)1 << 46, 1 << 20);
    TestRng r;
    rng_init(&r, seed);
    uint64_t live[64];
    int n = 0;
    for (int s = 0; s < 20000; s++) {
        uint64_t oa = 0, ob = 0, ca = 0, cb = 0;
        unsigned k = (unsigned)rng_below(&r, 3);
        if (k == 0 && n < 64) {
            uint64_t size = 1 + rng_below(&r, 20000), align = (uint64_t)1 << rng_below(&r, 14);
            ShmemHeapStatus sa = shmem_heap_alloc(&a, size, align, &oa);
            ck_assert_int_eq(sa, shmem_heap_alloc(&b, size, align, &ob));
            if (sa == SHMEM_HEAP_OK) {
                ck_assert_uint_eq(oa, ob);
                live[n++] = oa;
            }
        } else if (k == 1 && n) {
            int i = (int)rng_below(&r, (uint64_t)n);
            uint64_t size = 1 + rng_below(&r, 40000);
            ShmemHeapStatus sa = shmem_heap_realloc(&a, live[i], size, &oa, &ca);
            ck_assert_int_eq(sa, shmem_heap_realloc(&b, live[i], size, &ob, &cb));
            if (sa == SHMEM_HEAP_OK) {
                ck_assert_uint_eq(oa, ob);
                ck_assert_uint_eq(ca, cb);
                live[i] = oa;
            }
        } else if (n) {
            int i = (int)rng_below(&r, (uint64_t)n);
            ck_assert_int_eq(shmem_heap_free(&a, live[i]), SHMEM_HEAP_OK);
            ck_assert_int_eq(shmem_heap_free(&b, live[i]), SHMEM_HEAP_OK);
            live[i] = live[--n];
        }
    }
    shmem_heap_exit(&a);
    shmem_heap_exit(&b);
    free(junk);
}
END_TEST

/*
 * A churn of mixed sizes around a steady live set: the footprint (highest
 * byte ever used) stays close to the peak live bytes, freed space is reused,
 * and freeing everything leaves one free block.
 */
START_TEST(churn)
{
    TestRng r;
    rng_init(&r, test_seed("check_shmem_heap churn"));
    enum { LIVE = 2000, STEPS = 200000 };
    const uint64_t size = 64 << 20;
    ShmemHeap h;
    shmem_heap_init(&h, 0, size);
    static uint64_t offs[LIVE];
    int n = 0;
    uint64_t peak_live = 0, high_water = 0;
    for (int s = 0; s < STEPS; s++) {
        if (n == LIVE || (n > 0 && rng_below(&r, 2))) {
            int i = (int)rng_below(&r, (uint64_t)n);
            ck_assert_int_eq(shmem_heap_free(&h, offs[i]), SHMEM_HEAP_OK);
            offs[i] = offs[--n];
        } else {
            /* Log-uniform sizes from 16 B to 16 KiB. */
            uint64_t want = (uint64_t)16 << rng_below(&r, 11);
            want += rng_below(&r, want);
            uint64_t off;
            ck_assert_int_eq(shmem_heap_alloc(&h, want, 1, &off), SHMEM_HEAP_OK);
            offs[n++] = off;
            uint64_t end = off + shmem_heap_block_size(&h, off);
            if (end > high_water)
                high_water = end;
            if (h.bytes_used > peak_live)
                peak_live = h.bytes_used;
        }
    }
    ck_assert_ptr_null(shmem_heap_check(&h));
    fprintf(stderr, "churn: peak live %llu bytes, footprint %llu bytes (%.2fx), %llu free blocks\n",
            (unsigned long long)peak_live, (unsigned long long)high_water,
            (double)high_water / (double)peak_live, (unsigned long long)h.n_free);
    ck_assert_msg(high_water < 2 * peak_live, "footprint %llu is over twice the peak live %llu",
                  (unsigned long long)high_water, (unsigned long long)peak_live);
    while (n)
        ck_assert_int_eq(shmem_heap_free(&h, offs[--n]), SHMEM_HEAP_OK);
    ck_assert_ptr_null(shmem_heap_check(&h));
    ck_assert_uint_eq(h.n_free, 1);
    ck_assert_uint_eq(shmem_heap_largest_free(&h), size);
    shmem_heap_exit(&h);
}
END_TEST

/* A freed small block between blocks in use is what the next request of its size gets. */
START_TEST(reuse_same_class)
{
    ShmemHeap h;
    shmem_heap_init(&h, 0, 1 << 20);
    uint64_t o[5];
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(shmem_heap_alloc(&h, 100, 1, &o[i]), SHMEM_HEAP_OK);
    ck_assert_int_eq(shmem_heap_free(&h, o[2]), SHMEM_HEAP_OK);
    uint64_t again;
    ck_assert_int_eq(shmem_heap_alloc(&h, 97, 1, &again), SHMEM_HEAP_OK);
    ck_assert_uint_eq(again, o[2]);
    shmem_heap_exit(&h);
}
END_TEST

START_TEST(whole_heap_and_too_big)
{
    ShmemHeap h;
    const uint64_t size = 1 << 20;
    shmem_heap_init(&h, 0, size);
    uint64_t off, off2;
    ck_assert_int_eq(shmem_heap_alloc(&h, size + 1, 1, &off), SHMEM_HEAP_TOO_BIG);
    ck_assert_int_eq(shmem_heap_alloc(&h, size, 1, &off), SHMEM_HEAP_OK);
    ck_assert_uint_eq(off, 0);
    ck_assert_int_eq(shmem_heap_alloc(&h, 1, 1, &off2), SHMEM_HEAP_NO_SPACE);
    ck_assert_int_eq(shmem_heap_free(&h, 0), SHMEM_HEAP_OK);
    ck_assert_int_eq(shmem_heap_free(&h, 0), SHMEM_HEAP_ALREADY_FREE);
    ck_assert_int_eq(shmem_heap_free(&h, size), SHMEM_HEAP_OUTSIDE);
    ck_assert_int_eq(shmem_heap_alloc(&h, 64, 0, &off), SHMEM_HEAP_BAD_ALIGN);
    ck_assert_int_eq(shmem_heap_alloc(&h, 64, 3, &off), SHMEM_HEAP_BAD_ALIGN);
    ck_assert_int_eq(shmem_heap_alloc(&h, 64, 48, &off), SHMEM_HEAP_BAD_ALIGN);
    ck_assert_int_eq(shmem_heap_alloc(&h, 64, 1, &off), SHMEM_HEAP_OK);
    ck_assert_int_eq(shmem_heap_free(&h, off + 16), SHMEM_HEAP_NOT_A_BLOCK);
    ck_assert_ptr_null(shmem_heap_check(&h));
    shmem_heap_exit(&h);
}
END_TEST

/* Every power of two from 1 byte to twice the heap, from an origin aligned to 2^20 only. */
START_TEST(every_alignment)
{
    ShmemHeap h;
    const uint64_t size = 8 << 20, origin = (uint64_t)3 << 20;
    shmem_heap_init(&h, origin, size);
    uint64_t pad;
    ck_assert_int_eq(shmem_heap_alloc(&h, 48, 1, &pad), SHMEM_HEAP_OK); /* offset 0 taken */
    for (unsigned k = 0; k <= 24; k++) {
        uint64_t align = (uint64_t)1 << k, off;
        ShmemHeapStatus st = shmem_heap_alloc(&h, 100, align, &off);
        /* The only multiples of 2^23 and above inside [3 MiB, 11 MiB) are 8 MiB... */
        bool can = origin + size - 100 >= rup(origin + 48, align < GR ? GR : align);
        ck_assert_int_eq(st, can ? SHMEM_HEAP_OK : SHMEM_HEAP_NO_SPACE);
        if (st == SHMEM_HEAP_OK) {
            ck_assert_uint_eq((origin + off) % (align < GR ? GR : align), 0);
            ck_assert_int_eq(shmem_heap_free(&h, off), SHMEM_HEAP_OK);
        }
        ck_assert_ptr_null(shmem_heap_check(&h));
    }
    shmem_heap_exit(&h);
}
END_TEST

/* Realloc: shrink and grow in place, move, slide down, and fail leaving the block. */
START_TEST(realloc_paths)
{
    ShmemHeap h;
    shmem_heap_init(&h, 0, 4096);
    uint64_t a, b, c, n, copy;
    ck_assert_int_eq(shmem_heap_alloc(&h, 1024, 1, &a), SHMEM_HEAP_OK);
    ck_assert_int_eq(shmem_heap_alloc(&h, 1024, 1, &b), SHMEM_HEAP_OK);
    ck_assert_int_eq(shmem_heap_alloc(&h, 1024, 1, &c), SHMEM_HEAP_OK);
    /* Shrink b in place, then grow it back into its own freed tail. */
    ck_assert_int_eq(shmem_heap_realloc(&h, b, 100, &n, &copy), SHMEM_HEAP_OK);
    ck_assert_uint_eq(n, b);
    ck_assert_int_eq(shmem_heap_realloc(&h, b, 1024, &n, &copy), SHMEM_HEAP_OK);
    ck_assert_uint_eq(n, b);
    ck_assert_uint_eq(copy, 0);
    /* c grows into the free 1024 bytes after it. */
    ck_assert_int_eq(shmem_heap_realloc(&h, c, 2048, &n, &copy), SHMEM_HEAP_OK);
    ck_assert_uint_eq(n, c);
    /* Heap full: growing b fails and leaves it. */
    ck_assert_int_eq(shmem_heap_realloc(&h, b, 1040, &n, &copy), SHMEM_HEAP_NO_SPACE);
    ck_assert_uint_eq(shmem_heap_block_size(&h, b), 1024);
    /* With a freed, b slides down over it. */
    ck_assert_int_eq(shmem_heap_free(&h, a), SHMEM_HEAP_OK);
    ck_assert_int_eq(shmem_heap_realloc(&h, b, 2048, &n, &copy), SHMEM_HEAP_OK);
    ck_assert_uint_eq(n, a);
    ck_assert_uint_eq(copy, 1024);
    ck_assert_int_eq(shmem_heap_realloc(&h, b, 16, &n, &copy), SHMEM_HEAP_NOT_A_BLOCK);
    ck_assert_int_eq(shmem_heap_realloc(&h, a, 4097, &n, &copy), SHMEM_HEAP_TOO_BIG);
    ck_assert_ptr_null(shmem_heap_check(&h));
    shmem_heap_exit(&h);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("shmem_heap");
    TCase *tc = tcase_create("model");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, model_random);
    tcase_add_test(tc, deterministic);
    tcase_add_test(tc, churn);
    suite_add_tcase(s, tc);
    TCase *edges = tcase_create("edges");
    tcase_add_test(edges, reuse_same_class);
    tcase_add_test(edges, whole_heap_and_too_big);
    tcase_add_test(edges, every_alignment);
    tcase_add_test(edges, realloc_paths);
    suite_add_tcase(s, edges);
    return s;
}

int main(void)
{
    return test_run(suite());
}
