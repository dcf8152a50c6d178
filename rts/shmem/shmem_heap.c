/*
 * The symmetric heap's allocator. See shmem_heap.h.
 *
 * Note [A deterministic symmetric allocator]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * OpenSHMEM promises that shmem_malloc returns the same address on every PE.
 * No PE tells another what it chose: each runs this allocator on its own
 * copy of the bookkeeping, and they agree because every decision depends
 * only on the sequence of calls (sizes, alignments, offsets), never on
 * anything private to a process: descriptor indices, the live map's layout
 * and malloc's addresses are never consulted when choosing a place. Same
 * calls in the same order, same heap size and base: same offsets. When PEs
 * pass different arguments the copies diverge silently, which is why the
 * debug mode (SHMEM_DEBUG=1) compares the arguments of every call across
 * PEs first (shmem_alloc.c).
 *
 * Note [Size classes and coalescing]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Free blocks sit on segregated lists in TLSF's two-level classes (Masmano
 * et al., "TLSF: a new dynamic memory allocator for real-time systems"):
 * below 256 bytes one class per 16-byte size, above that 16 classes per
 * power of two. A request is rounded up to the next class boundary, so the
 * head of the first non-empty class at or above it fits without a search
 * (two bitmap scans: good fit in constant time); the block is split and the
 * rest goes back on its list. Only when that finds nothing is the request's
 * own class searched block by block, and for an alignment every free block
 * that could hold it: so a call fails only when no free range can hold the
 * block, which is what the model-based test checks. Freeing merges a block
 * with free neighbours at once, so free space is never split into adjacent
 * pieces, and after everything is freed the heap is one block again.
 * Because the bookkeeping is out of band, a block is exactly its size
 * rounded up to 16 bytes: no headers, no minimum size beyond the granule,
 * and a heap of N bytes can hold one block of N bytes.
 */
#include "shmem/shmem_heap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "messages.h"

#define NIL SHMEM_HEAP_NIL
#define G   ((uint64_t)SHMEM_HEAP_GRANULE)

static uint64_t round_up(uint64_t x, uint64_t a)
{
    return (x + a - 1) & ~(a - 1);
}

static unsigned log2_floor(uint64_t x)
{
    return 63u - (unsigned)__builtin_clzll(x);
}

/* ---- size classes --------------------------------------------------------- */

/* The class of a block of `size` bytes. */
static void class_of(uint64_t size, unsigned *fl, unsigned *sl)
{
    uint64_t g = size / G;
    if (g < SHMEM_HEAP_SL) {
        *fl = 0;
        *sl = (unsigned)g;
    } else {
        unsigned t = log2_floor(g);
        *fl = t - SHMEM_HEAP_SL_LOG + 1;
        *sl = (unsigned)(g >> (t - SHMEM_HEAP_SL_LOG)) - SHMEM_HEAP_SL;
    }
}

/* The first class all of whose blocks hold `size` bytes. */
static void class_at_least(uint64_t size, unsigned *fl, unsigned *sl)
{
    uint64_t g = size / G;
    if (g >= SHMEM_HEAP_SL)
        g += ((uint64_t)1 << (log2_floor(g) - SHMEM_HEAP_SL_LOG)) - 1;
    class_of(g * G, fl, sl);
}

/* ---- descriptors and lists ------------------------------------------------ */

static uint32_t desc_new(ShmemHeap *h)
{
    if (h->spare == NIL) {
        uint32_t n = h->n_records ? h->n_records * 2 : 64;
        ShmemBlock *b = realloc(h->blocks, (size_t)n * sizeof *b);
        if (!b)
            msg_fatal(254, "shmem: out of memory for the symmetric heap's bookkeeping");
        for (uint32_t i = h->n_records; i < n; i++)
            b[i].next = i + 1 < n ? i + 1 : NIL;
        h->spare = h->n_records;
        h->blocks = b;
        h->n_records = n;
    }
    uint32_t i = h->spare;
    h->spare = h->blocks[i].next;
    return i;
}

static void desc_release(ShmemHeap *h, uint32_t i)
{
    h->blocks[i].next = h->spare;
    h->spare = i;
}

static void free_list_insert(ShmemHeap *h, uint32_t i)
{
    ShmemBlock *b = &h->blocks[i];
    unsigned fl, sl;
    class_of(b->size, &fl, &sl);
    b->free = true;
    b->free_prev = NIL;
    b->free_next = h->heads[fl][sl];
    if (b->free_next != NIL)
        h->blocks[b->free_next].free_prev = i;
    h->heads[fl][sl] = i;
    h->sl_bitmap[fl] |= 1u << sl;
    h->fl_bitmap |= (uint64_t)1 << fl;
    h->n_free++;
}

static void free_list_remove(ShmemHeap *h, uint32_t i)
{
    ShmemBlock *b = &h->blocks[i];
    unsigned fl, sl;
    class_of(b->size, &fl, &sl);
    if (b->free_prev != NIL)
        h->blocks[b->free_prev].free_next = b->free_next;
    else
        h->heads[fl][sl] = b->free_next;
    if (b->free_next != NIL)
        h->blocks[b->free_next].free_prev = b->free_prev;
    if (h->heads[fl][sl] == NIL) {
        h->sl_bitmap[fl] &= ~(1u << sl);
        if (h->sl_bitmap[fl] == 0)
            h->fl_bitmap &= ~((uint64_t)1 << fl);
    }
    b->free = false;
    h->n_free--;
}

/* A new descriptor for [off, off+size), linked into address order after `after`. */
static uint32_t addr_insert_after(ShmemHeap *h, uint32_t after, uint64_t off, uint64_t size)
{
    uint32_t i = desc_new(h);
    ShmemBlock *b = &h->blocks[i];
    ShmemBlock *a = &h->blocks[after];
    b->off = off;
    b->size = size;
    b->free = false;
    b->prev = after;
    b->next = a->next;
    if (a->next != NIL)
        h->blocks[a->next].prev = i;
    a->next = i;
    return i;
}

/* As above, before `before` (which may be the first block). */
static uint32_t addr_insert_before(ShmemHeap *h, uint32_t before, uint64_t off, uint64_t size)
{
    uint32_t i = desc_new(h);
    ShmemBlock *b = &h->blocks[i];
    ShmemBlock *n = &h->blocks[before];
    b->off = off;
    b->size = size;
    b->free = false;
    b->next = before;
    b->prev = n->prev;
    if (n->prev != NIL)
        h->blocks[n->prev].next = i;
    else
        h->first = i;
    n->prev = i;
    return i;
}

static void addr_unlink(ShmemHeap *h, uint32_t i)
{
    ShmemBlock *b = &h->blocks[i];
    if (b->prev != NIL)
        h->blocks[b->prev].next = b->next;
    else
        h->first = b->next;
    if (b->next != NIL)
        h->blocks[b->next].prev = b->prev;
    desc_release(h, i);
}

/* ---- the live map --------------------------------------------------------- */

static uint64_t map_slot(const ShmemHeap *h, uint64_t off)
{
    return ((off / G) * 0x9E3779B97F4A7C15ull) >> (64 - log2_floor(h->map_cap));
}

static uint32_t map_lookup(const ShmemHeap *h, uint64_t off)
{
    uint64_t mask = h->map_cap - 1;
    for (uint64_t s = map_slot(h, off);; s = (s + 1) & mask) {
        uint32_t i = h->map[s];
        if (i == NIL || h->blocks[i].off == off)
            return i;
    }
}

static void map_put(ShmemHeap *h, uint32_t i);

static void map_grow(ShmemHeap *h)
{
    uint32_t *old = h->map;
    uint64_t old_cap = h->map_cap;
    h->map_cap *= 2;
    h->map = malloc(h->map_cap * sizeof *h->map);
    if (!h->map)
        msg_fatal(254, "shmem: out of memory for the symmetric heap's bookkeeping");
    memset(h->map, 0xff, h->map_cap * sizeof *h->map);
    for (uint64_t s = 0; s < old_cap; s++)
        if (old[s] != NIL)
            map_put(h, old[s]);
    free(old);
}

static void map_put(ShmemHeap *h, uint32_t i)
{
    uint64_t mask = h->map_cap - 1;
    uint64_t s = map_slot(h, h->blocks[i].off);
    while (h->map[s] != NIL)
        s = (s + 1) & mask;
    h->map[s] = i;
}

static void map_insert(ShmemHeap *h, uint32_t i)
{
    if ((h->n_used + 1) * 2 > h->map_cap)
        map_grow(h);
    map_put(h, i);
}

/* Remove by backward shifting, so lookups need no tombstones. */
static void map_remove(ShmemHeap *h, uint64_t off)
{
    uint64_t mask = h->map_cap - 1;
    uint64_t s = map_slot(h, off);
    while (h->blocks[h->map[s]].off != off)
        s = (s + 1) & mask;
    uint64_t hole = s;
    for (uint64_t j = (hole + 1) & mask; h->map[j] != NIL; j = (j + 1) & mask) {
        uint64_t home = map_slot(h, h->blocks[h->map[j]].off);
        /* Move j into the hole unless its home lies cyclically in (hole, j]. */
        bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!stays) {
            h->map[hole] = h->map[j];
            hole = j;
        }
    }
    h->map[hole] = NIL;
}

/* ---- set-up --------------------------------------------------------------- */

void shmem_heap_init(ShmemHeap *h, uint64_t origin, uint64_t size)
{
    if (size == 0 || size % G != 0 || origin % G != 0)
        msg_barf("shmem_heap_init: bad heap at %llu of size %llu", (unsigned long long)origin,
                 (unsigned long long)size);
    memset(h, 0, sizeof *h);
    h->origin = origin;
    h->size = size;
    h->spare = NIL;
    h->fl_bitmap = 0;
    for (unsigned fl = 0; fl < SHMEM_HEAP_FL; fl++)
        for (unsigned sl = 0; sl < SHMEM_HEAP_SL; sl++)
            h->heads[fl][sl] = NIL;
    h->map_cap = 64;
    h->map = malloc(h->map_cap * sizeof *h->map);
    if (!h->map)
        msg_fatal(254, "shmem: out of memory for the symmetric heap's bookkeeping");
    memset(h->map, 0xff, h->map_cap * sizeof *h->map);
    uint32_t i = desc_new(h);
    h->blocks[i] = (ShmemBlock){.off = 0, .size = size, .prev = NIL, .next = NIL};
    h->first = i;
    free_list_insert(h, i);
}

void shmem_heap_exit(ShmemHeap *h)
{
    free(h->blocks);
    free(h->map);
    memset(h, 0, sizeof *h);
}

/* ---- allocation ----------------------------------------------------------- */

/* Head of the first non-empty class at or after (fl, sl), or NIL. */
static uint32_t first_nonempty(const ShmemHeap *h, unsigned fl, unsigned sl)
{
    if (fl >= SHMEM_HEAP_FL)
        return NIL;
    uint32_t sl_map = sl < SHMEM_HEAP_SL ? h->sl_bitmap[fl] & (~0u << sl) : 0;
    if (!sl_map) {
        uint64_t fl_map = fl + 1 < 64 ? h->fl_bitmap & (~(uint64_t)0 << (fl + 1)) : 0;
        if (!fl_map)
            return NIL;
        fl = (unsigned)__builtin_ctzll(fl_map);
        sl_map = h->sl_bitmap[fl];
    }
    return h->heads[fl][(unsigned)__builtin_ctz(sl_map)];
}

/* Where a block of `size` bytes aligned to `align` starts inside free block i, if it fits. */
static bool fits(const ShmemHeap *h, uint32_t i, uint64_t size, uint64_t align, uint64_t *start)
{
    const ShmemBlock *b = &h->blocks[i];
    uint64_t pad = (0 - (h->origin + b->off)) & (align - 1);
    if (pad > b->size || b->size - pad < size)
        return false;
    *start = b->off + pad;
    return true;
}

/*
 * A free block holding `size` bytes at an `align` boundary: good fit from
 * the classes first, then every candidate in class order.
 */
static uint32_t find_free(const ShmemHeap *h, uint64_t size, uint64_t align, uint64_t *start)
{
    unsigned fl, sl;
    uint64_t slack = align - G; /* the most an aligned start can lie past a block's */
    if (slack <= h->size - size) {
        uint64_t need = size + slack;
        class_at_least(need, &fl, &sl);
        uint32_t i = first_nonempty(h, fl, sl);
        if (i != NIL && fits(h, i, size, align, start))
            return i;
    }
    /* Exhaustive: every free block of the request's class and above. */
    class_of(size, &fl, &sl);
    for (;;) {
        uint32_t i = first_nonempty(h, fl, sl);
        if (i == NIL)
            return NIL;
        class_of(h->blocks[i].size, &fl, &sl);
        for (; i != NIL; i = h->blocks[i].free_next)
            if (fits(h, i, size, align, start))
                return i;
        if (++sl == SHMEM_HEAP_SL) {
            sl = 0;
            fl++;
        }
    }
}

/* Make [start, start+size) of free block i a block in use; the rest stays free. */
static uint32_t carve(ShmemHeap *h, uint32_t i, uint64_t start, uint64_t size)
{
    free_list_remove(h, i);
    ShmemBlock *b = &h->blocks[i];
    uint64_t lead = start - b->off;
    if (lead > 0) {
        uint32_t l = addr_insert_before(h, i, b->off, lead);
        b = &h->blocks[i]; /* the descriptor array may have moved */
        b->off = start;
        b->size -= lead;
        free_list_insert(h, l);
        b = &h->blocks[i];
    }
    uint64_t tail = b->size - size;
    if (tail > 0) {
        b->size = size;
        uint32_t t = addr_insert_after(h, i, start + size, tail);
        free_list_insert(h, t);
        b = &h->blocks[i];
    }
    b->free = false;
    h->n_used++;
    h->bytes_used += size;
    map_insert(h, i);
    return i;
}

ShmemHeapStatus shmem_heap_alloc(ShmemHeap *h, uint64_t size, uint64_t align, uint64_t *off)
{
    if (align == 0 || (align & (align - 1)) != 0)
        return SHMEM_HEAP_BAD_ALIGN;
    if (size == 0 || size > h->size)
        return SHMEM_HEAP_TOO_BIG;
    if (align < G)
        align = G;
    size = round_up(size, G);
    uint64_t start;
    uint32_t i = find_free(h, size, align, &start);
    if (i == NIL)
        return SHMEM_HEAP_NO_SPACE;
    carve(h, i, start, size);
    *off = start;
    return SHMEM_HEAP_OK;
}

/* ---- freeing -------------------------------------------------------------- */

/* Why `off` names no block in use. */
static ShmemHeapStatus classify(const ShmemHeap *h, uint64_t off)
{
    if (off >= h->size)
        return SHMEM_HEAP_OUTSIDE;
    for (uint32_t i = h->first; i != NIL; i = h->blocks[i].next) {
        const ShmemBlock *b = &h->blocks[i];
        if (off < b->off + b->size)
            return b->free ? SHMEM_HEAP_ALREADY_FREE : SHMEM_HEAP_NOT_A_BLOCK;
    }
    return SHMEM_HEAP_OUTSIDE;
}

/* Block i stops being in use; returns the free block that now holds it. */
static uint32_t release(ShmemHeap *h, uint32_t i)
{
    ShmemBlock *b = &h->blocks[i];
    map_remove(h, b->off);
    h->n_used--;
    h->bytes_used -= b->size;
    uint32_t p = b->prev, n = b->next;
    if (p != NIL && h->blocks[p].free) {
        free_list_remove(h, p);
        h->blocks[p].size += h->blocks[i].size;
        addr_unlink(h, i);
        i = p;
    }
    if (n != NIL && h->blocks[n].free) {
        free_list_remove(h, n);
        h->blocks[i].size += h->blocks[n].size;
        addr_unlink(h, n);
    }
    free_list_insert(h, i);
    return i;
}

ShmemHeapStatus shmem_heap_free(ShmemHeap *h, uint64_t off)
{
    uint32_t i = off < h->size ? map_lookup(h, off) : NIL;
    if (i == NIL)
        return classify(h, off);
    release(h, i);
    return SHMEM_HEAP_OK;
}

/* ---- resizing ------------------------------------------------------------- */

ShmemHeapStatus shmem_heap_realloc(ShmemHeap *h, uint64_t off, uint64_t size, uint64_t *new_off,
                                   uint64_t *copy)
{
    uint32_t i = off < h->size ? map_lookup(h, off) : NIL;
    if (i == NIL)
        return classify(h, off);
    if (size == 0 || size > h->size)
        return SHMEM_HEAP_TOO_BIG;
    size = round_up(size, G);
    *new_off = off;
    *copy = 0;
    ShmemBlock *b = &h->blocks[i];
    uint64_t old = b->size;
    uint32_t n = b->next;
    bool next_free = n != NIL && h->blocks[n].free;

    if (size <= old) { /* shrink in place; the tail joins a free neighbour */
        uint64_t tail = old - size;
        if (tail == 0)
            return SHMEM_HEAP_OK;
        b->size = size;
        h->bytes_used -= tail;
        if (next_free) {
            free_list_remove(h, n);
            h->blocks[n].off -= tail;
            h->blocks[n].size += tail;
            free_list_insert(h, n);
        } else {
            free_list_insert(h, addr_insert_after(h, i, off + size, tail));
        }
        return SHMEM_HEAP_OK;
    }

    if (next_free && old + h->blocks[n].size >= size) { /* grow into the next block */
        uint64_t extra = size - old;
        free_list_remove(h, n);
        h->blocks[n].off += extra;
        h->blocks[n].size -= extra;
        if (h->blocks[n].size == 0)
            addr_unlink(h, n);
        else
            free_list_insert(h, n);
        h->blocks[i].size = size;
        h->bytes_used += extra;
        return SHMEM_HEAP_OK;
    }

    uint64_t start;
    uint32_t j = find_free(h, size, G, &start);
    if (j != NIL) { /* elsewhere: the old block is still in use, so no overlap */
        carve(h, j, start, size);
        release(h, map_lookup(h, off));
        *new_off = start;
        *copy = old;
        return SHMEM_HEAP_OK;
    }

    uint32_t p = h->blocks[i].prev;
    if (p != NIL && h->blocks[p].free &&
        h->blocks[p].size + old + (next_free ? h->blocks[n].size : 0) >= size) {
        /* Slide down into the free block before it (and the one after). */
        uint32_t f = release(h, i);
        start = h->blocks[f].off;
        carve(h, f, start, size);
        *new_off = start;
        *copy = old;
        return SHMEM_HEAP_OK;
    }
    return SHMEM_HEAP_NO_SPACE;
}

/* ---- queries and the check ------------------------------------------------ */

uint64_t shmem_heap_block_size(const ShmemHeap *h, uint64_t off)
{
    uint32_t i = off < h->size ? map_lookup(h, off) : NIL;
    return i == NIL ? 0 : h->blocks[i].size;
}

uint64_t shmem_heap_largest_free(const ShmemHeap *h)
{
    if (!h->fl_bitmap)
        return 0;
    unsigned fl = log2_floor(h->fl_bitmap);
    unsigned sl = log2_floor(h->sl_bitmap[fl]);
    uint64_t best = 0;
    for (uint32_t i = h->heads[fl][sl]; i != NIL; i = h->blocks[i].free_next)
        if (h->blocks[i].size > best)
            best = h->blocks[i].size;
    return best;
}

const char *shmem_heap_check(const ShmemHeap *h)
{
    static char why[160];
#define BROKEN(...)                             \
    do {                                        \
        snprintf(why, sizeof why, __VA_ARGS__); \
        return why;                             \
    } while (0)
    uint64_t at = 0, used = 0, n_used = 0, n_free = 0;
    uint32_t prev = NIL;
    for (uint32_t i = h->first; i != NIL; i = h->blocks[i].next) {
        const ShmemBlock *b = &h->blocks[i];
        if (b->prev != prev)
            BROKEN("block at %llu: wrong back link", (unsigned long long)b->off);
        if (b->off != at)
            BROKEN("block at %llu: expected one at %llu", (unsigned long long)b->off,
                   (unsigned long long)at);
        if (b->size == 0 || b->size % G != 0)
            BROKEN("block at %llu: size %llu", (unsigned long long)b->off,
                   (unsigned long long)b->size);
        if (b->free) {
            if (prev != NIL && h->blocks[prev].free)
                BROKEN("free blocks at %llu and %llu are neighbours",
                       (unsigned long long)h->blocks[prev].off, (unsigned long long)b->off);
            n_free++;
        } else {
            if (map_lookup(h, b->off) != i)
                BROKEN("block in use at %llu is not in the live map", (unsigned long long)b->off);
            used += b->size;
            n_used++;
        }
        at += b->size;
        prev = i;
        if (n_used + n_free > h->n_records)
            BROKEN("the address list loops");
    }
    if (at != h->size)
        BROKEN("blocks cover %llu of %llu bytes", (unsigned long long)at,
               (unsigned long long)h->size);
    if (used != h->bytes_used || n_used != h->n_used || n_free != h->n_free)
        BROKEN("counters: %llu bytes in %llu blocks used, %llu free; recorded %llu, %llu, %llu",
               (unsigned long long)used, (unsigned long long)n_used, (unsigned long long)n_free,
               (unsigned long long)h->bytes_used, (unsigned long long)h->n_used,
               (unsigned long long)h->n_free);
    uint64_t listed = 0;
    for (unsigned fl = 0; fl < SHMEM_HEAP_FL; fl++) {
        for (unsigned sl = 0; sl < SHMEM_HEAP_SL; sl++) {
            bool bit = (h->sl_bitmap[fl] >> sl) & 1;
            if (bit != (h->heads[fl][sl] != NIL))
                BROKEN("class (%u,%u): bitmap bit %d disagrees with its list", fl, sl, bit);
            uint32_t back = NIL;
            for (uint32_t i = h->heads[fl][sl]; i != NIL; i = h->blocks[i].free_next) {
                unsigned f, s;
                class_of(h->blocks[i].size, &f, &s);
                if (!h->blocks[i].free || f != fl || s != sl || h->blocks[i].free_prev != back)
                    BROKEN("class (%u,%u) lists the wrong block at %llu", fl, sl,
                           (unsigned long long)h->blocks[i].off);
                back = i;
                if (++listed > n_free)
                    BROKEN("free lists hold more blocks than are free");
            }
        }
        if (((h->fl_bitmap >> fl) & 1) != (h->sl_bitmap[fl] != 0))
            BROKEN("first-level bitmap bit %u is wrong", fl);
    }
    if (listed != n_free)
        BROKEN("%llu free blocks, %llu on the free lists", (unsigned long long)n_free,
               (unsigned long long)listed);
    uint64_t mapped = 0;
    for (uint64_t s = 0; s < h->map_cap; s++) {
        uint32_t i = h->map[s];
        if (i == NIL)
            continue;
        mapped++;
        if (h->blocks[i].free)
            BROKEN("live map holds a free block at %llu", (unsigned long long)h->blocks[i].off);
    }
    if (mapped != n_used)
        BROKEN("live map holds %llu blocks, %llu in use", (unsigned long long)mapped,
               (unsigned long long)n_used);
    return NULL;
#undef BROKEN
}
