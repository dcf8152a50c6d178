/*
 * The mock mutator. See mutator.h.
 *
 * Every allocation goes through mut_alloc(), which, when the next
 * allocation is going to collect, checksums the graph before and after it:
 * so every collection the mutator causes is checked, not only the explicit
 * ones. A failed check names the seed that replays it.
 */
#include "mutator.h"

#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "flags/flags.h"
#include "sm/gc.h"
#include "sm/nonmoving.h"
#include "sm/storage.h"

/* --- info tables of the shapes we build ---------------------------------------- */

#define MAX_PTRS  5
#define MAX_NPTRS 3

static StgInfoTable constr_info[MAX_PTRS + 1][MAX_NPTRS + 1];
static StgInfoTable thunk_info[MAX_PTRS + 1];
/* Several mutators may run at once, one per OS thread (the threaded stress suite). */
static __thread Mutator *active;             /* this thread's mutator (thunk entries need it) */
static uint64_t weaks_made, weaks_finalized; /* atomic: finalizers run on any thread */
static StgInfoTable cell_info;               /* deep lists: head, tail, level */
static const StgInfoTable static_nil_info = {.type = CONSTR_STATIC, .name = "test:Nil"};
static const StgClosure static_nil = {.info = &static_nil_info};

static StgClosure *build_entry(Capability *cap, StgClosure *self, StgClosure **fv);
static StgClosure *forward_entry(Capability *cap, StgClosure *self, StgClosure **fv);
static bool is_value(StgClosure *p);

static void init_infos(void)
{
    for (int p = 0; p <= MAX_PTRS; p++) {
        for (int n = 0; n <= MAX_NPTRS; n++) {
            StgInfoTable *i = &constr_info[p][n];
            i->type = CONSTR;
            i->tag = (uint32_t)(p * 4 + n);
            i->ptrs = (uint32_t)p;
            i->nptrs = (uint32_t)n;
            i->name = "test:Shape";
        }
        thunk_info[p].type = THUNK;
        thunk_info[p].ptrs = (uint32_t)p;
        thunk_info[p].nptrs = 1;
        thunk_info[p].name = "test:Thunk";
        /* Odd shapes tail-call their first free variable; even ones build a value. */
        thunk_info[p].entry.thunk = (p % 2) ? forward_entry : build_entry;
    }
    cell_info.type = CONSTR;
    cell_info.ptrs = 2;
    cell_info.nptrs = 1;
    cell_info.name = "test:Cell";
}

/* --- checksums around collections ----------------------------------------------- */

static __thread uint64_t checked_gcs;

/* Will allocating `words` now start a collection? */
static bool gc_imminent(Capability *cap, StgWord words)
{
    if (words >= LARGE_OBJECT_THRESHOLD_W) {
        uint64_t lim = rts_flags.gc.large_alloc_lim_bytes ? rts_flags.gc.large_alloc_lim_bytes
                                                          : rts_flags.gc.alloc_area_bytes;
        StgWord blocks = (words * sizeof(StgWord) + BLOCK_SIZE - 1) / BLOCK_SIZE;
        return __atomic_load_n(&sm_large_alloc_blocks, __ATOMIC_RELAXED) + blocks >
               lim / BLOCK_SIZE;
    }
    HsRegs *r = HS_REGS(cap);
    return r->hp + words > __atomic_load_n(&r->hplim, __ATOMIC_RELAXED);
}

/*
 * Run `alloc` (any call that may collect). If a collection may happen,
 * checksum before and after and insist they agree.
 */
#define GUARDED(m, words, call)                                                        \
    ({                                                                                 \
        bool guard_ = gc_imminent((m)->cap, (words));                                  \
        uint64_t before_ = guard_ ? mutator_checksum(m) : 0;                           \
        uint64_t gcs_ = gc_count;                                                      \
        __typeof__(call) r_ = (call);                                                  \
        if (guard_ && gc_count != gcs_) {                                              \
            uint64_t after_ = mutator_checksum(m);                                     \
            ck_assert_msg(before_ == after_,                                           \
                          "collection %llu changed the reachable graph (op %llu)",     \
                          (unsigned long long)gc_count, (unsigned long long)(m)->ops); \
            checked_gcs++;                                                             \
        }                                                                              \
        r_;                                                                            \
    })

static StgClosure *mut_alloc(Mutator *m, StgWord words)
{
    return (StgClosure *)GUARDED(m, words, rts_alloc(m->cap, words));
}

/* --- roots ------------------------------------------------------------------------ */

static void set_root(Mutator *m, int slot, StgClosure *v)
{
    m->roots[slot] = v;
    for (int i = 0; i < m->n_fixed;) {
        if (m->fixed[i].slot == slot)
            m->fixed[i] = m->fixed[--m->n_fixed];
        else
            i++;
    }
}

static void track_fixed(Mutator *m, int slot, StgClosure *addr, uint64_t pattern)
{
    if (m->n_fixed < MUT_MAX_FIXED) {
        m->fixed[m->n_fixed].slot = slot;
        m->fixed[m->n_fixed].addr = addr;
        m->fixed[m->n_fixed].pattern = pattern;
        m->n_fixed++;
    }
}

static int random_slot(Mutator *m)
{
    return (int)rng_below(&m->rng, MUT_ROOTS);
}

static StgClosure *follow_ind(StgClosure *p)
{
    while (p && rts_is_heap_alloced(p) && UNTAG(p)->info->type == IND)
        p = ((StgInd *)UNTAG(p))->indirectee;
    return p;
}

/* Pointer fields of an object, for random walks: how many and where. */
static StgWord fields_of(StgClosure *q, StgClosure ***out)
{
    const StgInfoTable *info = q->info;
    switch (info->type) {
    case CONSTR:
        *out = q->payload;
        return info->ptrs;
    case THUNK:
        *out = ((StgThunk *)q)->payload;
        return info->ptrs;
    case MUT_VAR_CLEAN:
    case MUT_VAR_DIRTY:
        *out = &((StgMutVar *)q)->var;
        return 1;
    case MUT_ARR_PTRS_CLEAN:
    case MUT_ARR_PTRS_DIRTY:
        *out = ((StgMutArrPtrs *)q)->payload;
        return ((StgMutArrPtrs *)q)->ptrs;
    case SMALL_MUT_ARR_PTRS_CLEAN:
    case SMALL_MUT_ARR_PTRS_DIRTY:
        *out = ((StgSmallMutArrPtrs *)q)->payload;
        return ((StgSmallMutArrPtrs *)q)->ptrs;
    default:
        return 0;
    }
}

/* A random reachable object (or the static Nil). Never allocates. */
static StgClosure *pick(Mutator *m)
{
    StgClosure *p = m->roots[random_slot(m)];
    int steps = (int)rng_below(&m->rng, 4);
    for (int i = 0; i < steps && p; i++) {
        p = follow_ind(p);
        if (!rts_is_heap_alloced(p))
            break;
        StgClosure **f;
        StgWord n = fields_of(UNTAG(p), &f);
        if (n == 0)
            break;
        StgClosure *next = f[rng_below(&m->rng, n)];
        if (!next)
            break;
        p = next;
    }
    return p ? p : TAG_CLOSURE(1, &static_nil);
}

/* A root holding an object of one of the given types, or -1. */
static int find_root(Mutator *m, uint32_t t1, uint32_t t2)
{
    for (int tries = 0; tries < 8; tries++) {
        int s = random_slot(m);
        StgClosure *p = m->roots[s];
        if (p && rts_is_heap_alloced(p)) {
            uint32_t t = UNTAG(p)->info->type;
            if (t == t1 || t == t2)
                return s;
        }
    }
    return -1;
}

/* --- operations -------------------------------------------------------------------- */

static StgClosure *new_constr(Mutator *m)
{
    int p = (int)rng_below(&m->rng, MAX_PTRS + 1);
    int n = (int)rng_below(&m->rng, MAX_NPTRS + 1);
    StgClosure *c = mut_alloc(m, 1 + (StgWord)p + (StgWord)n);
    c->info = &constr_info[p][n];
    for (int i = 0; i < p; i++)
        c->payload[i] = pick(m);
    for (int j = 0; j < n; j++)
        ((StgWord *)c->payload)[p + j] = rng_next(&m->rng);
    return TAG_CLOSURE(1 + (StgWord)(p + n) % 7, c);
}

static void op_constr(Mutator *m)
{
    set_root(m, random_slot(m), new_constr(m));
}

static void op_thunk(Mutator *m)
{
    int p = (int)rng_below(&m->rng, MAX_PTRS + 1);
    StgThunk *t = (StgThunk *)mut_alloc(m, 2 + (StgWord)p + 1);
    t->info = &thunk_info[p];
    t->slot = 0;
    for (int i = 0; i < p; i++)
        t->payload[i] = pick(m);
    ((StgWord *)t->payload)[p] = rng_next(&m->rng);
    set_root(m, random_slot(m), (StgClosure *)t);
}

static void op_update(Mutator *m)
{
    int s = find_root(m, THUNK, THUNK);
    if (s < 0)
        return;
    /*
     * A thunk's value is a value: never a thunk, so no chain of updates and
     * tail calls can lead back to a thunk under evaluation (<<loop>>).
     */
    StgClosure *v = pick(m);
    if (!is_value(v))
        v = TAG_CLOSURE(1, &static_nil);
    rts_update_thunk(m->cap, m->roots[s], v);
}

/* A value of the thunk's shape from its free variables (allocates). */
static StgClosure *build_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    uint32_t p = self->info->ptrs;
    StgWord w = ((StgWord *)((StgThunk *)self)->payload)[p];
    StgClosure *c = mut_alloc(active, 1 + (StgWord)p + 1);
    (void)cap;
    c->info = &constr_info[p][1];
    for (uint32_t i = 0; i < p; i++)
        c->payload[i] = fv[i];
    ((StgWord *)c->payload)[p] = w;
    return TAG_CLOSURE(1 + (StgWord)(p + 1) % 7, c);
}

/* The value of the first free variable (a tail call when it is a thunk). */
static StgClosure *forward_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)cap;
    (void)self;
    return fv[0];
}

/* Whether a closure may be a thunk's value: thunks and their INDs may not. */
static bool is_value(StgClosure *p)
{
    p = follow_ind(p);
    if (!p || !rts_is_heap_alloced(p))
        return true;
    uint32_t t = UNTAG(p)->info->type;
    return t != THUNK && t != BLACKHOLE;
}

static void op_eval(Mutator *m)
{
    int s = find_root(m, THUNK, THUNK);
    if (s < 0)
        return;
    StgClosure *v = rts_eval(m->cap, m->roots[s]);
    ck_assert_msg(is_value(v), "rts_eval returned a thunk");
    if (rng_below(&m->rng, 2))
        set_root(m, random_slot(m), v);
}

static void count_finalizer(void *env)
{
    (void)env;
    __atomic_fetch_add(&weaks_finalized, 1, __ATOMIC_RELAXED);
}

static void op_weak(Mutator *m)
{
    /*
     * A key that is (or is a thunk updated to) a static closure never dies:
     * indirections are followed, as GHC does. Keep to keys that can die, so
     * the heap can return to its floor at the end.
     */
    StgClosure *key = follow_ind(pick(m));
    if (!rts_is_heap_alloced(key) || UNTAG(key)->info->type == THUNK)
        return;
    StgClosure **r = rts_push_roots(m->cap, 1);
    r[0] = key;
    StgClosure *value = GUARDED(m, 2, new_constr(m)); /* reachable only from the weak */
    StgWeak *w =
        GUARDED(m, SIZEOF_W(StgWeak), rts_mk_weak(m->cap, r[0], value, count_finalizer, NULL));
    rts_pop_roots(m->cap, r);
    __atomic_fetch_add(&weaks_made, 1, __ATOMIC_RELAXED);
    set_root(m, random_slot(m), (StgClosure *)w);
}

static void op_deref_weak(Mutator *m)
{
    int s = find_root(m, WEAK, WEAK);
    if (s < 0)
        return;
    StgClosure *v;
    if (rts_deref_weak(m->cap, (StgWeak *)m->roots[s], &v) && v)
        set_root(m, random_slot(m), v);
}

static void op_stable(Mutator *m)
{
    int i = (int)rng_below(&m->rng, MUT_STABLE);
    if (m->stable[i]) {
        hs_free_stable_ptr(m->stable[i]);
        m->stable[i] = NULL;
    } else {
        m->stable[i] = getStablePtr((StgPtr)pick(m));
    }
}

static void op_stable_name(Mutator *m)
{
    StgClosure *p = pick(m);
    StgStableName *sn = GUARDED(m, SIZEOF_W(StgStableName), rts_make_stable_name(m->cap, p));
    set_root(m, random_slot(m), (StgClosure *)sn);
}

static void op_mut_var(Mutator *m)
{
    StgClosure *init = pick(m);
    StgMutVar *mv = GUARDED(m, SIZEOF_W(StgMutVar), rts_new_mut_var(m->cap, init));
    set_root(m, random_slot(m), (StgClosure *)mv);
}

static void op_write_mut_var(Mutator *m)
{
    int s = find_root(m, MUT_VAR_CLEAN, MUT_VAR_DIRTY);
    if (s < 0)
        return;
    StgClosure *young = rng_below(&m->rng, 2) ? new_constr(m) : pick(m);
    rts_write_mut_var(m->cap, (StgMutVar *)UNTAG(m->roots[s]), young);
}

static void op_array(Mutator *m)
{
    bool large = rng_below(&m->rng, 6) == 0;
    StgWord n = large ? 500 + rng_below(&m->rng, 2500) : 1 + rng_below(&m->rng, 300);
    StgWord words = SIZEOF_W(StgMutArrPtrs) + n + mut_arr_ptrs_card_words(n);
    StgClosure *init = pick(m);
    StgMutArrPtrs *a = GUARDED(m, words, rts_new_array(m->cap, n, init));
    int s = random_slot(m);
    set_root(m, s, (StgClosure *)a);
    if (words >= LARGE_OBJECT_THRESHOLD_W)
        track_fixed(m, s, (StgClosure *)a, 0);
}

static void op_write_array(Mutator *m)
{
    int s = find_root(m, MUT_ARR_PTRS_CLEAN, MUT_ARR_PTRS_DIRTY);
    if (s < 0)
        return;
    int k = 1 + (int)rng_below(&m->rng, 4);
    for (int i = 0; i < k; i++) {
        StgClosure *young = rng_below(&m->rng, 2) ? new_constr(m) : pick(m);
        StgMutArrPtrs *a = (StgMutArrPtrs *)UNTAG(m->roots[s]);
        rts_write_array(m->cap, a, rng_below(&m->rng, a->ptrs), young);
    }
}

static void op_small_array(Mutator *m)
{
    StgWord n = 1 + rng_below(&m->rng, 40);
    StgClosure *init = pick(m);
    StgSmallMutArrPtrs *a =
        GUARDED(m, SIZEOF_W(StgSmallMutArrPtrs) + n, rts_new_small_array(m->cap, n, init));
    set_root(m, random_slot(m), (StgClosure *)a);
}

static void op_write_small_array(Mutator *m)
{
    int s = find_root(m, SMALL_MUT_ARR_PTRS_CLEAN, SMALL_MUT_ARR_PTRS_DIRTY);
    if (s < 0)
        return;
    StgClosure *young = new_constr(m);
    StgSmallMutArrPtrs *a = (StgSmallMutArrPtrs *)UNTAG(m->roots[s]);
    rts_write_small_array(m->cap, a, rng_below(&m->rng, a->ptrs), young);
}

static void fill_pattern(StgArrBytes *a, uint64_t pattern)
{
    uint8_t *b = (uint8_t *)a->payload;
    for (StgWord i = 0; i < a->bytes; i++)
        b[i] = (uint8_t)(pattern >> ((i % 8) * 8)) ^ (uint8_t)i;
}

static bool pattern_ok(const StgArrBytes *a, uint64_t pattern)
{
    const uint8_t *b = (const uint8_t *)a->payload;
    for (StgWord i = 0; i < a->bytes; i++)
        if (b[i] != ((uint8_t)(pattern >> ((i % 8) * 8)) ^ (uint8_t)i))
            return false;
    return true;
}

static void op_bytes(Mutator *m, bool pinned)
{
    bool large = rng_below(&m->rng, 4) == 0;
    StgWord bytes = large ? 4000 + rng_below(&m->rng, 30000) : rng_below(&m->rng, 1500);
    StgWord words = arr_words_size_w(bytes);
    StgArrBytes *a;
    if (pinned)
        a = GUARDED(m, words < LARGE_OBJECT_THRESHOLD_W ? LARGE_OBJECT_THRESHOLD_W : words,
                    rts_new_pinned_byte_array(m->cap, bytes));
    else
        a = GUARDED(m, words, rts_new_byte_array(m->cap, bytes));
    uint64_t pattern = rng_next(&m->rng);
    fill_pattern(a, pattern);
    int s = random_slot(m);
    set_root(m, s, (StgClosure *)a);
    if (pinned || words >= LARGE_OBJECT_THRESHOLD_W)
        track_fixed(m, s, (StgClosure *)a, pattern);
}

/*
 * Deep recursion through root frames: each level keeps its result in a
 * frame while the next level allocates, so collections in the middle must
 * update frames in many stack chunks. Returns a list of `depth` cells whose
 * level words read depth, depth-1, ..., 1.
 */
static StgClosure *deep_list(Mutator *m, StgWord depth)
{
    if (depth == 0)
        return TAG_CLOSURE(1, &static_nil);
    StgWord slots = 1 + rng_below(&m->rng, 3);
    StgClosure **f = rts_push_roots(m->cap, slots);
    if (slots > 1)
        f[1] = new_constr(m); /* garbage that lives while the frame does */
    f[0] = deep_list(m, depth - 1);
    StgClosure *c = mut_alloc(m, 4);
    c->info = &cell_info;
    c->payload[0] = slots > 1 ? f[1] : pick(m);
    c->payload[1] = f[0];
    ((StgWord *)c->payload)[2] = depth;
    rts_pop_roots(m->cap, f);
    return TAG_CLOSURE(2, c);
}

static void op_deep(Mutator *m)
{
    StgWord depth = 1 + rng_below(&m->rng, rng_below(&m->rng, 8) == 0 ? 6000 : 300);
    StgClosure *list = deep_list(m, depth);
    StgClosure *p = list;
    for (StgWord want = depth; want > 0; want--) {
        ck_assert_msg(GET_TAG(p) == 2, "deep list broken at level %lu", (unsigned long)want);
        StgClosure *c = UNTAG(p);
        ck_assert_uint_eq(((StgWord *)c->payload)[2], want);
        p = c->payload[1];
    }
    ck_assert_ptr_eq(UNTAG(p), &static_nil);
    set_root(m, random_slot(m), list);
}

void mutator_step(Mutator *m, int n)
{
    active = m;
    for (int i = 0; i < n; i++) {
        m->ops++;
        uint64_t k = rng_below(&m->rng, 1000);
        if (k < 330)
            op_constr(m);
        else if (k < 380)
            op_thunk(m);
        else if (k < 400)
            op_update(m);
        else if (k < 430)
            op_eval(m);
        else if (k < 440)
            op_weak(m);
        else if (k < 450)
            op_deref_weak(m);
        else if (k < 470)
            op_stable(m);
        else if (k < 480)
            op_stable_name(m);
        else if (k < 520)
            op_mut_var(m);
        else if (k < 600)
            op_write_mut_var(m);
        else if (k < 640)
            op_array(m);
        else if (k < 720)
            op_write_array(m);
        else if (k < 740)
            op_small_array(m);
        else if (k < 770)
            op_write_small_array(m);
        else if (k < 800)
            op_bytes(m, false);
        else if (k < 830)
            op_bytes(m, true);
        else if (k < 850)
            op_deep(m);
        else if (k < 950)
            set_root(m, random_slot(m), NULL);
        else
            set_root(m, random_slot(m), m->roots[random_slot(m)]);
    }
}

/* --- checksum ---------------------------------------------------------------------- */

typedef struct {
    StgWord *keys;
    uint64_t *ids;
    StgWord cap, n;
} Map;

static __thread Map seen;
static __thread uint64_t last_count;

static void map_reset(void)
{
    if (seen.cap == 0) {
        seen.cap = 1 << 16;
        seen.keys = calloc(seen.cap, sizeof(StgWord));
        seen.ids = calloc(seen.cap, sizeof(uint64_t));
    } else {
        memset(seen.keys, 0, seen.cap * sizeof(StgWord));
    }
    seen.n = 0;
}

static StgWord map_slot(StgWord key)
{
    StgWord i = ((key >> 3) * 0x9E3779B97F4A7C15ull) & (seen.cap - 1);
    while (seen.keys[i] && seen.keys[i] != key)
        i = (i + 1) & (seen.cap - 1);
    return i;
}

static void map_grow(void)
{
    Map old = seen;
    seen.cap *= 2;
    seen.keys = calloc(seen.cap, sizeof(StgWord));
    seen.ids = calloc(seen.cap, sizeof(uint64_t));
    seen.n = 0;
    for (StgWord i = 0; i < old.cap; i++)
        if (old.keys[i]) {
            StgWord j = map_slot(old.keys[i]);
            seen.keys[j] = old.keys[i];
            seen.ids[j] = old.ids[i];
            seen.n++;
        }
    free(old.keys);
    free(old.ids);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

/*
 * A static thing (an info table, a static closure) by what it is, not where
 * it is: the same in every run and every build, so that a digest of
 * checksums can be compared across builds (check_stress.c).
 */
static uint64_t static_id(const StgInfoTable *info)
{
    uint64_t h = 1469598103934665603ull ^ info->type;
    for (const char *c = info->name ? info->name : ""; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    h = (h ^ info->ptrs) * 1099511628211ull;
    return (h ^ info->nptrs) * 1099511628211ull;
}

/* Closure kinds as the checksum sees them: clean and dirty are the same. */
static uint64_t kind_of(const StgInfoTable *info)
{
    switch (info->type) {
    case MUT_VAR_CLEAN:
    case MUT_VAR_DIRTY:
        return 1001;
    case MUT_ARR_PTRS_CLEAN:
    case MUT_ARR_PTRS_DIRTY:
        return 1002;
    case SMALL_MUT_ARR_PTRS_CLEAN:
    case SMALL_MUT_ARR_PTRS_DIRTY:
        return 1003;
    case WEAK:
        return 1004; /* alive or dead: a collection may kill it */
    default:
        return static_id(info); /* stable across moves, runs and builds */
    }
}

/*
 * Serialise the graph in depth-first preorder from the roots, children in
 * field order, with back-references by preorder number; hash the stream.
 * INDs are transparent (the collector removes them).
 */
uint64_t mutator_checksum(Mutator *m)
{
    static __thread StgClosure **stack;
    static __thread StgWord stack_cap;
    map_reset();
    uint64_t h = 0x12345678;
    uint64_t next_id = 1;
    StgWord sp = 0;
    if (!stack) {
        stack_cap = 1 << 16;
        stack = malloc(stack_cap * sizeof *stack);
    }
    for (int r = MUT_STABLE - 1; r >= 0; r--)
        stack[sp++] = m->stable[r] ? (StgClosure *)deRefStablePtr(m->stable[r]) : NULL;
    for (int r = MUT_ROOTS - 1; r >= 0; r--)
        stack[sp++] = m->roots[r];
    while (sp > 0) {
        StgClosure *p = follow_ind(stack[--sp]);
        if (p == NULL) {
            h = mix(h, 0);
            continue;
        }
        h = mix(h, GET_TAG(p));
        StgClosure *q = UNTAG(p);
        if (!rts_is_heap_alloced(q)) {
            h = mix(h, 0x57a7 ^ static_id(q->info));
            continue;
        }
        /*
         * An object and its copies are one (the nonmoving heap duplicates immutable objects:
         * Note [Evacuating sparse segments] in rts/sm/nonmoving_evac.c): sharing is kept by
         * identity, not by address, as stable names keep it.
         */
        q = UNTAG(nm_forward(q));
        StgWord slot = map_slot((StgWord)q);
        if (seen.keys[slot]) {
            h = mix(h, 0xbac4 ^ seen.ids[slot]);
            continue;
        }
        seen.keys[slot] = (StgWord)q;
        seen.ids[slot] = next_id++;
        if (++seen.n * 2 > seen.cap)
            map_grow();
        const StgInfoTable *info = q->info;
        /* Under evaluation: the collector may make it a BLACKHOLE at any time. */
        if ((info->type == THUNK && (((StgThunk *)q)->slot & 1)) || info->type == BLACKHOLE) {
            h = mix(h, 0xb1ac);
            continue;
        }
        h = mix(h, kind_of(info));
        StgClosure **f = NULL;
        StgWord nf = fields_of(q, &f);
        switch (info->type) {
        case CONSTR:
            for (uint32_t j = 0; j < info->nptrs; j++)
                h = mix(h, ((StgWord *)q->payload)[info->ptrs + j]);
            break;
        case THUNK:
            h = mix(h, ((StgThunk *)q)->slot);
            for (uint32_t j = 0; j < info->nptrs; j++)
                h = mix(h, ((StgWord *)((StgThunk *)q)->payload)[info->ptrs + j]);
            break;
        case STABLE_NAME:
            h = mix(h, ((StgStableName *)q)->sn);
            break;
        case ARR_WORDS: {
            StgArrBytes *a = (StgArrBytes *)q;
            h = mix(h, a->bytes);
            for (StgWord i = 0; i < (a->bytes + 7) / 8; i++)
                h = mix(h, a->payload[i] & (i + 1 == (a->bytes + 7) / 8 && a->bytes % 8
                                                ? ((uint64_t)1 << (8 * (a->bytes % 8))) - 1
                                                : ~(uint64_t)0));
            break;
        }
        default:
            h = mix(h, nf);
            break;
        }
        if (sp + nf >= stack_cap) {
            while (sp + nf >= stack_cap)
                stack_cap *= 2;
            stack = realloc(stack, stack_cap * sizeof *stack);
        }
        for (StgWord i = nf; i > 0; i--)
            stack[sp++] = f[i - 1];
    }
    last_count = next_id - 1;
    return h;
}

uint64_t mutator_last_count(void)
{
    return last_count;
}

void mutator_check_fixed(Mutator *m)
{
    for (int i = 0; i < m->n_fixed; i++) {
        StgClosure *now = UNTAG(m->roots[m->fixed[i].slot]);
        ck_assert_msg(now == m->fixed[i].addr, "pinned/large object moved from %p to %p",
                      (void *)m->fixed[i].addr, (void *)now);
        if (now->info->type == ARR_WORDS)
            ck_assert_msg(pattern_ok((StgArrBytes *)now, m->fixed[i].pattern),
                          "contents of pinned/large byte array %p changed", (void *)now);
    }
}

void mutator_init(Mutator *m, Capability *cap, uint64_t seed)
{
    active = m;
    static pthread_once_t infos_ready = PTHREAD_ONCE_INIT;
    pthread_once(&infos_ready, init_infos);
    memset(m, 0, sizeof *m);
    m->cap = cap;
    rng_init(&m->rng, seed);
    m->roots = rts_push_roots(cap, MUT_ROOTS);
}

void mutator_done(Mutator *m)
{
    rts_pop_roots(m->cap, m->roots);
    m->roots = NULL;
}

void mutator_clear(Mutator *m)
{
    for (int i = 0; i < MUT_ROOTS; i++)
        set_root(m, i, NULL);
    for (int i = 0; i < MUT_STABLE; i++)
        if (m->stable[i]) {
            hs_free_stable_ptr(m->stable[i]);
            m->stable[i] = NULL;
        }
}

uint64_t mutator_weaks_made(void)
{
    return __atomic_load_n(&weaks_made, __ATOMIC_RELAXED);
}
uint64_t mutator_weaks_finalized(void)
{
    return __atomic_load_n(&weaks_finalized, __ATOMIC_RELAXED);
}

uint64_t mutator_checked_gcs(void)
{
    return checked_gcs;
}
