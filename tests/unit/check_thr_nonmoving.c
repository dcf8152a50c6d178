/*
 * The concurrent nonmoving mark (-xn, threaded way; Note [The concurrent
 * mark] in rts/sm/nonmoving_mark.c): mutators rewrite the old generation
 * while a mark runs, with every kind of write that must reach the mark,
 * and the structures they keep must come through the sweep whole.
 *
 * Each mutator thread owns a table (an array, old) of boxes, each holding
 * a list of numbered cells; a model in C knows each list's length and sum.
 * The box kinds are the write kinds: a MUT_VAR (rts_write_mut_var, or
 * rts_cas_mut_var), a small array's element (rts_write_small_array), an
 * element of the table itself (rts_write_array, a large array's card) and a
 * thunk whose free variable is the list (evaluated during the mark: its
 * update overwrites the free variable, rts_update_thunk reports it). The
 * classic snapshot-at-the-beginning hazard is made on purpose: a list is
 * read, the only heap reference to it is overwritten, the list lives only
 * on the thread's stack (pushed after the snapshot) for a while (random
 * busy loops, allocation, minor collections), then is stored elsewhere. If
 * any of those writes failed to report the overwritten value, the list's
 * old cells would not be marked, be swept, be reused by promotion, and the
 * checksums would differ (and, in the debug way, the final pause's check
 * that everything reachable is marked fails first).
 *
 * Cycles are started on purpose (nm_request_cycle) and end at the first
 * collection that finds the mark done, so mutation overlaps the mark's
 * whole length; timing is random (busy loops of random length between
 * writes), and the suite runs many rounds. HSRTS_TEST_SEED replays the
 * choices (not the interleaving); HSRTS_STRESS_ITERS scales the rounds.
 */
#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sm/mblock.h"
#include "sm/nonmoving.h"
#include "sm/storage.h"
#include "eventlog_decode.h"
#include "evac_sparse.h"
#include "test_util.h"

enum { N_BOXES = 48, MAX_LIST = 40 };

/* A list cell: next (or NULL), then its number. */
static const StgInfoTable cell_info = HS_CONSTR_INFO(1, 1, 1, "test:Cell");

static StgClosure *id_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)cap;
    (void)self;
    return fv[0];
}
/* A thunk over a list and a side list: its value is the list (the side list is dropped). */
static const StgInfoTable box_thunk_info = HS_THUNK_INFO(id_entry, 2, 0, "test:BoxThunk");

typedef enum { BOX_MUTVAR, BOX_SMALL_ARRAY, BOX_THUNK, BOX_DIRECT, N_KINDS } BoxKind;

typedef struct {
    uint64_t len, sum;
} ListSum;

typedef struct {
    const char *name;
    TestRng rng;
    int rounds;
    HsStablePtr table; /* MUT_ARR_PTRS of N_BOXES boxes (a list directly for BOX_DIRECT) */
    BoxKind kind[N_BOXES];
    ListSum model[N_BOXES];
    ListSum side[N_BOXES]; /* a thunk box's side list, while it is not evaluated */
    uint64_t next_no;
    uint64_t cycles_seen, writes;
} Thread;

static StgClosure *new_list(Capability *cap, Thread *t, ListSum *s)
{
    StgWord n = 1 + rng_below(&t->rng, MAX_LIST);
    StgClosure **r = rts_push_roots(cap, 1);
    r[0] = NULL;
    s->len = s->sum = 0;
    for (StgWord i = 0; i < n; i++) {
        StgClosure *c = (StgClosure *)rts_alloc(cap, 3);
        c->info = &cell_info;
        c->payload[0] = r[0];
        StgWord no = t->next_no++;
        ((StgWord *)c->payload)[1] = no;
        r[0] = TAG_CLOSURE(1, c);
        s->len++;
        s->sum += no * 2654435761u;
    }
    StgClosure *l = r[0];
    rts_pop_roots(cap, r);
    return l;
}

static void list_sum(StgClosure *l, ListSum *s)
{
    s->len = s->sum = 0;
    for (; l; l = UNTAG(l)->payload[0]) {
        ck_assert_ptr_eq(UNTAG(l)->info, &cell_info);
        s->len++;
        s->sum += ((StgWord *)UNTAG(l)->payload)[1] * 2654435761u;
    }
}

static StgMutArrPtrs *table_of(Thread *t)
{
    return (StgMutArrPtrs *)deRefStablePtr(t->table);
}

static StgClosure *new_list(Capability *cap, Thread *t, ListSum *s);

/* A box of `kind` around the list in *lp (rooted by the caller: it may move), for box i. */
static StgClosure *new_box(Capability *cap, Thread *t, uint32_t i, BoxKind kind, StgClosure **lp)
{
    switch (kind) {
    case BOX_MUTVAR:
        return (StgClosure *)rts_new_mut_var(cap, *lp);
    case BOX_SMALL_ARRAY: {
        StgSmallMutArrPtrs *a = rts_new_small_array(cap, 2, NULL);
        rts_write_small_array(cap, a, 1, *lp);
        return (StgClosure *)a;
    }
    case BOX_THUNK: {
        StgClosure **r = rts_push_roots(cap, 1);
        r[0] = new_list(cap, t, &t->side[i]);
        StgThunk *th = (StgThunk *)rts_alloc(cap, 4);
        th->info = &box_thunk_info;
        th->slot = 0;
        th->payload[0] = *lp;
        th->payload[1] = r[0];
        rts_pop_roots(cap, r);
        return (StgClosure *)th;
    }
    default:
        return *lp;
    }
}

/* The list in box i (a thunk box is evaluated: its update is one of the writes). */
static StgClosure *box_list(Capability *cap, Thread *t, uint32_t i)
{
    StgClosure *b = table_of(t)->payload[i];
    switch (t->kind[i]) {
    case BOX_MUTVAR:
        return rts_read_mut_var((StgMutVar *)UNTAG(b));
    case BOX_SMALL_ARRAY:
        return ((StgSmallMutArrPtrs *)UNTAG(b))->payload[1];
    case BOX_THUNK:
        return rts_eval(cap, b);
    default:
        return b;
    }
}

/* Store the list *lp into box i (its old list is overwritten: the barrier reports it). */
static void box_store(Capability *cap, Thread *t, uint32_t i, StgClosure **lp)
{
    StgMutArrPtrs *tab = table_of(t);
    StgClosure *b = tab->payload[i];
    switch (t->kind[i]) {
    case BOX_MUTVAR: {
        StgMutVar *mv = (StgMutVar *)UNTAG(b);
        if (rng_below(&t->rng, 2)) {
            rts_write_mut_var(cap, mv, *lp);
        } else {
            StgClosure *res;
            ck_assert_int_eq(rts_cas_mut_var(cap, mv, rts_read_mut_var(mv), *lp, &res), 0);
        }
        return;
    }
    case BOX_SMALL_ARRAY:
        rts_write_small_array(cap, (StgSmallMutArrPtrs *)UNTAG(b), 1, *lp);
        return;
    default: {
        /* A new box (a fresh thunk, or the list itself) in the table: an array write. */
        StgClosure *nb = new_box(cap, t, i, t->kind[i], lp);
        rts_write_array(cap, table_of(t), i, nb);
        return;
    }
    }
}

static void busy(Thread *t)
{
    volatile uint64_t x = 0;
    uint64_t n = rng_below(&t->rng, 4000);
    for (uint64_t i = 0; i < n; i++)
        x += i;
}

static void garbage(Capability *cap, Thread *t)
{
    uint64_t n = rng_below(&t->rng, 200);
    for (uint64_t i = 0; i < n; i++)
        (void)rts_new_byte_array(cap, 8 * rng_below(&t->rng, 6));
}

static void check_model(Capability *cap, Thread *t, const char *when)
{
    for (uint32_t i = 0; i < N_BOXES; i++) {
        ListSum s;
        list_sum(box_list(cap, t, i), &s);
        ck_assert_msg(s.len == t->model[i].len && s.sum == t->model[i].sum,
                      "%s: box %u (kind %d) %s: %llu cells, sum %llx; expected %llu, %llx", t->name,
                      i, (int)t->kind[i], when, (unsigned long long)s.len,
                      (unsigned long long)s.sum, (unsigned long long)t->model[i].len,
                      (unsigned long long)t->model[i].sum);
    }
}

static void setup(Capability *cap, Thread *t)
{
    StgClosure **r = rts_push_roots(cap, 2);
    r[0] = (StgClosure *)rts_new_array(cap, N_BOXES, NULL);
    for (uint32_t i = 0; i < N_BOXES; i++) {
        t->kind[i] = (BoxKind)rng_below(&t->rng, N_KINDS);
        r[1] = new_list(cap, t, &t->model[i]);
        StgClosure *b = new_box(cap, t, i, t->kind[i], &r[1]);
        rts_write_array(cap, (StgMutArrPtrs *)r[0], i, b);
    }
    t->table = getStablePtr((StgPtr)r[0]);
    rts_pop_roots(cap, r);
}

/* One mutation: the snapshot hazard between two boxes, or a fresh list into one. */
static void mutate(Capability *cap, Thread *t)
{
    uint32_t i = (uint32_t)rng_below(&t->rng, N_BOXES);
    uint32_t j = (uint32_t)rng_below(&t->rng, N_BOXES);
    StgClosure **r = rts_push_roots(cap, 3);
    switch (rng_below(&t->rng, 6)) {
    case 0:
    case 1: {
        /* Swap two boxes' lists through the stack, with their boxes holding other lists between. */
        r[0] = box_list(cap, t, i);
        r[1] = box_list(cap, t, j);
        ListSum si = t->model[i], sj = t->model[j], tmp;
        r[2] = new_list(cap, t, &tmp);
        box_store(cap, t, i, &r[2]);
        box_store(cap, t, j, &r[2]);
        t->writes += 2;
        busy(t);
        garbage(cap, t);
        if (rng_below(&t->rng, 8) == 0)
            performGC();
        box_store(cap, t, i, &r[1]);
        box_store(cap, t, j, &r[0]);
        t->writes += 2;
        t->model[i] = sj;
        t->model[j] = si;
        break;
    }
    case 2:
        /* A fresh list, the old one dropped. */
        r[0] = new_list(cap, t, &t->model[i]);
        box_store(cap, t, i, &r[0]);
        t->writes++;
        break;
    default: {
        /*
         * Evaluate a box. An unevaluated thunk's side list is read first and kept on
         * the stack only: the update overwrites the thunk's free variables (it reports
         * them), then the side list is stored into another box.
         */
        StgClosure *b = UNTAG(table_of(t)->payload[i]);
        bool thunk = t->kind[i] == BOX_THUNK && b->info == &box_thunk_info;
        ListSum side = t->side[i];
        if (j == i)
            j = (i + 1) % N_BOXES;
        r[2] = thunk ? ((StgThunk *)b)->payload[1] : NULL;
        r[0] = box_list(cap, t, i);
        busy(t);
        garbage(cap, t);
        if (rng_below(&t->rng, 8) == 0)
            performGC();
        t->kind[i] = (BoxKind)rng_below(&t->rng, N_KINDS);
        r[1] = new_box(cap, t, i, t->kind[i], &r[0]);
        rts_write_array(cap, table_of(t), i, r[1]);
        t->writes++;
        if (thunk) {
            box_store(cap, t, j, &r[2]);
            t->model[j] = side;
        }
        break;
    }
    }
    rts_pop_roots(cap, r);
}

static void *thread_main(void *arg)
{
    Thread *t = arg;
    Capability *cap = rts_lock();
    setup(cap, t);
    performMajorGC(); /* everything into the nonmoving heap */
    check_model(cap, t, "after setup");
    for (int round = 0; round < t->rounds; round++) {
        uint64_t cycles = nm_cycles();
        if (!nm_cycle_running()) {
            nm_request_cycle();
            performGC();
        }
        int ops = 20 + (int)rng_below(&t->rng, 200);
        for (int k = 0; k < ops; k++) {
            mutate(cap, t);
            busy(t);
        }
        if (rng_below(&t->rng, 4) == 0)
            check_model(cap, t, "during a cycle");
        performGC(); /* the final pause, if the mark is done */
        if (nm_cycles() != cycles)
            t->cycles_seen++;
        check_model(cap, t, "after a collection");
    }
    performMajorGC();
    check_model(cap, t, "at the end");
    freeStablePtr(t->table);
    rts_unlock(cap);
    return NULL;
}

static const struct {
    const char *opts;
    int threads;
} configs[] = {
    {"-xn -N2", 2},
    {"-xn -N2 -A8k", 2},
    {"-xn -N2 -G3 -A16k", 3},
    {"-xn -N1", 1},
};
#define N_CONFIGS ((int)(sizeof configs / sizeof configs[0]))

static int rounds(void)
{
    const char *s = getenv("HSRTS_STRESS_ITERS");
    return s ? atoi(s) : 150;
}

START_TEST(mutate_while_marking)
{
    const char *opts = configs[_i].opts;
    int n = configs[_i].threads;
    const char *only = getenv("HSRTS_STRESS_ONLY");
    if (only && strcmp(only, opts) != 0)
        return;
    char name[96];
    snprintf(name, sizeof name, "nm_concurrent[%s]", opts);
    uint64_t seed = test_seed(name);
    test_start_rts("check_thr_nonmoving", opts, 1);
    ck_assert(nm_concurrent());
    Thread th[4];
    pthread_t tid[4];
    uint64_t cycles0 = nm_cycles();
    for (int k = 0; k < n; k++) {
        memset(&th[k], 0, sizeof th[k]);
        th[k].name = name;
        th[k].rounds = rounds();
        rng_init(&th[k].rng, seed + (uint64_t)k);
        ck_assert_int_eq(pthread_create(&tid[k], NULL, thread_main, &th[k]), 0);
    }
    uint64_t seen = 0, writes = 0;
    for (int k = 0; k < n; k++) {
        pthread_join(tid[k], NULL);
        seen += th[k].cycles_seen;
        writes += th[k].writes;
    }
    uint64_t cycles = nm_cycles() - cycles0;
    fprintf(stderr,
            "%s: %llu concurrent cycles, %llu ended inside a round, %llu barriered writes\n", name,
            (unsigned long long)cycles, (unsigned long long)seen, (unsigned long long)writes);
    ck_assert_uint_ge(cycles, (uint64_t)rounds() / 4);
    hs_exit();
}
END_TEST

/* --- which CAFs a concurrent cycle reverts ------------------------------------------------
 * Each CAF counts its entries; its value is a list. Reached, at the cycle's start, by:
 *   0 nothing (it is reverted at the cycle's end);
 *   1 only the SRT of an old FUN;
 *   2 only a field of an old constructor, which the program moves into a new object and
 *     overwrites while the mark is held (the barrier reports the static pointer);
 *   3 only the SRT of a static function an old constructor's field names;
 *   4 nothing, but it is first entered during the cycle (kept: the snapshot did not hold it
 *     evaluated), and reverted by the next cycle.
 */
enum { N_CAF_KINDS = 5 };
static uint64_t kind_entries[N_CAF_KINDS];

#define KIND_CAF(k)                                                                       \
    static StgClosure *kind_entry_##k(Capability *cap, StgClosure *self, StgClosure **fv) \
    {                                                                                     \
        (void)self;                                                                       \
        (void)fv;                                                                         \
        kind_entries[k]++;                                                                \
        Thread t;                                                                         \
        memset(&t, 0, sizeof t);                                                          \
        rng_init(&t.rng, 11 + k);                                                         \
        ListSum s;                                                                        \
        return new_list(cap, &t, &s);                                                     \
    }                                                                                     \
    static const StgInfoTable kind_info_##k =                                             \
        HS_THUNK_STATIC_INFO(kind_entry_##k, NULL, "test:kindCAF" #k);                    \
    static StgCAF kind_caf_##k = HS_CAF(&kind_info_##k);
KIND_CAF(0)
KIND_CAF(1)
KIND_CAF(2)
KIND_CAF(3)
KIND_CAF(4)
static StgCAF *const kind_cafs[N_CAF_KINDS] = {&kind_caf_0, &kind_caf_1, &kind_caf_2, &kind_caf_3,
                                               &kind_caf_4};

static const StgClosure *const fun_srt[] = {(const StgClosure *)&kind_caf_1, NULL};
static const StgInfoTable srt_fun_info = {
    .type = FUN, .tag = 1, .ptrs = 0, .nptrs = 1, .name = "test:SrtFun", .srt = fun_srt};
static const StgClosure *const static_fun_srt[] = {(const StgClosure *)&kind_caf_3, NULL};
static const StgInfoTable static_fun_info =
    HS_FUN_STATIC_INFO(1, NULL, static_fun_srt, "test:staticFun");
static const StgClosure static_fun = {.info = &static_fun_info};
static const StgInfoTable holder_info = HS_CONSTR_INFO(1, 1, 0, "test:Holder");

static StgClosure *holder(Capability *cap, const StgClosure *field)
{
    StgClosure *h = (StgClosure *)rts_alloc(cap, 2);
    h->info = &holder_info;
    h->payload[0] = (StgClosure *)field;
    return h;
}

static void whole_cycle(void);

static bool kind_evaluated(int k)
{
    return kind_cafs[k]->info->type == IND_STATIC;
}

START_TEST(cafs_under_concurrent_cycles)
{
    test_start_rts("check_thr_nonmoving", "-xn -N2", 1);
    Capability *cap = rts_lock();
    Thread t;
    memset(&t, 0, sizeof t);
    t.name = "cafs";
    rng_init(&t.rng, test_seed("cafs_under_concurrent_cycles"));
    memset(kind_entries, 0, sizeof kind_entries);
    StgClosure **r = rts_push_roots(cap, 3);
    /* r[0]: the old array; r[1]: the new holder of kind 2; r[2]: ballast */
    r[0] = (StgClosure *)rts_new_array(cap, 3, NULL);
    StgClosure *fun = (StgClosure *)rts_alloc(cap, 2);
    fun->info = &srt_fun_info;
    ((StgWord *)fun->payload)[0] = 0;
    rts_write_array(cap, (StgMutArrPtrs *)r[0], 0, fun);
    rts_write_array(cap, (StgMutArrPtrs *)r[0], 1, holder(cap, (StgClosure *)&kind_caf_2));
    rts_write_array(cap, (StgMutArrPtrs *)r[0], 2, holder(cap, &static_fun));
    for (int k = 0; k < 4; k++)
        rts_eval(cap, (StgClosure *)kind_cafs[k]);
    /* Ballast: old data enough that the mark still runs while kind 2 moves. */
    for (StgWord i = 0; i < 300000; i++) {
        StgClosure *c = (StgClosure *)rts_alloc(cap, 3);
        c->info = &cell_info;
        c->payload[0] = r[2];
        ((StgWord *)c->payload)[1] = i;
        r[2] = TAG_CLOSURE(1, c);
    }
    performMajorGC(); /* everything old; kind 0 is reverted here already (a full collection) */
    ck_assert_msg(!kind_evaluated(0), "a full collection kept an unreachable CAF");
    rts_eval(cap, (StgClosure *)kind_cafs[0]); /* entered again: the cycle must revert it */
    performMajorGC();
    performMajorGC();
    ck_assert(!kind_evaluated(0));
    rts_eval(cap, (StgClosure *)kind_cafs[0]);
    for (int k = 0; k < 4; k++)
        ck_assert_msg(kind_evaluated(k), "CAF %d was reverted before the cycle", k);

    uint64_t c0 = nm_cycles();
    nm_test_hold_mark(true);
    nm_request_cycle();
    performGC(); /* START */
    ck_assert(nm_cycle_running());
    /* Kind 2 moves into a new object; the old field is overwritten before the mark reads it. */
    StgMutArrPtrs *a = (StgMutArrPtrs *)r[0];
    r[1] = holder(cap, UNTAG(a->payload[1])->payload[0]);
    rts_write_array(cap, a, 1, NULL);
    rts_eval(cap, (StgClosure *)kind_cafs[4]);
    for (int i = 0; i < 50; i++)
        busy(&t);
    ck_assert_msg(nm_cycle_running(), "the cycle ended while its mark was held");
    nm_test_hold_mark(false);
    while (nm_cycles() == c0) {
        sched_yield();
        performGC();
    }
    ck_assert_msg(!kind_evaluated(0), "the cycle kept a CAF nothing reached");
    for (int k = 1; k < N_CAF_KINDS; k++)
        ck_assert_msg(kind_evaluated(k), "the cycle reverted CAF %d, which it reached", k);
    whole_cycle();
    ck_assert_msg(!kind_evaluated(4), "the next cycle kept a CAF nothing reached");
    for (int k = 1; k < 4; k++)
        ck_assert_msg(kind_evaluated(k), "a later cycle reverted CAF %d", k);
    performMajorGC();
    for (int k = 1; k < 4; k++) {
        ck_assert_msg(kind_evaluated(k), "a full collection reverted CAF %d", k);
        ck_assert_uint_eq(kind_entries[k], 1);
    }
    ck_assert_uint_eq(kind_entries[0], 3);
    ck_assert_uint_eq(kind_entries[4], 1);
    /* A reverted CAF is entered afresh. */
    rts_eval(cap, (StgClosure *)kind_cafs[0]);
    ck_assert_uint_eq(kind_entries[0], 4);
    ck_assert(UNTAG(r[1])->payload[0] == (StgClosure *)&kind_caf_2);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/* --- weak pointers, finalizers, stable names and CAFs across concurrent cycles ------------------
 */

enum { N_WEAKS = 64 };
static int fin_count[N_WEAKS];

static void count_fin(void *env)
{
    __atomic_fetch_add(&fin_count[(intptr_t)env], 1, __ATOMIC_RELAXED);
}

static uint64_t caf_entries;
static StgClosure *caf_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)self;
    (void)fv;
    caf_entries++;
    Thread t;
    memset(&t, 0, sizeof t);
    rng_init(&t.rng, 7);
    ListSum s;
    return new_list(cap, &t, &s);
}
static const StgInfoTable caf_info = HS_THUNK_STATIC_INFO(caf_entry, NULL, "test:nmCAF");
static StgCAF the_caf = HS_CAF(&caf_info);

/* Start a cycle and let it end (the mark thread works between the collections). */
static void whole_cycle(void)
{
    uint64_t c = nm_cycles();
    nm_request_cycle();
    performGC();
    while (nm_cycles() == c) {
        sched_yield();
        performGC();
    }
}

/*
 * Key i, value i (a list only the weak reaches), weak i, each in an array
 * (old by the time the cycles run). Kinds by i % 4:
 *   0: kept;  1: the key dies before a cycle starts, and during that cycle the
 *   program dereferences the weak (alive until the final pause decides) and
 *   stores the value (the dereference's barrier must report it: nothing else
 *   in the snapshot reaches it);  2: the key dies during a cycle (the
 *   snapshot saw it: it dies at the next one);  3: the key dies and the weak
 *   object too.
 */
START_TEST(weaks_names_cafs)
{
    test_start_rts("check_thr_nonmoving", "-xn -N2", 1);
    Capability *cap = rts_lock();
    Thread t;
    memset(&t, 0, sizeof t);
    t.name = "weaks";
    rng_init(&t.rng, test_seed("weaks_names_cafs"));
    memset(fin_count, 0, sizeof fin_count);
    caf_entries = 0;
    StgClosure **r = rts_push_roots(cap, 7);
    /* r[0] keys, r[1] weaks, r[2] values kept by the program, r[3] stable names, r[4] tmp,
     * r[6] the CAF (cafs_under_concurrent_cycles tests the other ways a CAF is reached) */
    for (int k = 0; k < 4; k++)
        r[k] = (StgClosure *)rts_new_array(cap, N_WEAKS, NULL);
    ListSum vsum[N_WEAKS];
    StgWord sn_int[N_WEAKS];
    for (intptr_t i = 0; i < N_WEAKS; i++) {
        ListSum ks;
        r[4] = new_list(cap, &t, &ks);
        rts_write_array(cap, (StgMutArrPtrs *)r[0], (StgWord)i, r[4]);
        r[5] = new_list(cap, &t, &vsum[i]);
        StgWeak *w =
            rts_mk_weak(cap, ((StgMutArrPtrs *)r[0])->payload[i], r[5], count_fin, (void *)i);
        rts_write_array(cap, (StgMutArrPtrs *)r[1], (StgWord)i, (StgClosure *)w);
        StgStableName *sn = rts_make_stable_name(cap, ((StgMutArrPtrs *)r[0])->payload[i]);
        sn_int[i] = rts_stable_name_to_int(sn);
        rts_write_array(cap, (StgMutArrPtrs *)r[3], (StgWord)i, (StgClosure *)sn);
    }
    r[4] = r[5] = NULL;
    /* Ballast: old data enough that the mark still runs while the values below are taken. */
    for (StgWord k = 0; k < 500000; k++) {
        StgClosure *c = (StgClosure *)rts_alloc(cap, 3);
        c->info = &cell_info;
        c->payload[0] = r[4];
        ((StgWord *)c->payload)[1] = k;
        r[4] = TAG_CLOSURE(1, c);
    }
    r[6] = (StgClosure *)&the_caf;
    StgClosure *cv = rts_eval(cap, (StgClosure *)&the_caf);
    ListSum caf_sum;
    list_sum(cv, &caf_sum);
    performMajorGC();
    performMajorGC();

    /* Kind 1: keys die before the cycle; kind 3 likewise, with their weak objects. */
    for (int i = 0; i < N_WEAKS; i++)
        if (i % 4 == 1 || i % 4 == 3) {
            rts_write_array(cap, (StgMutArrPtrs *)r[0], (StgWord)i, NULL);
            if (i % 4 == 3)
                rts_write_array(cap, (StgMutArrPtrs *)r[1], (StgWord)i, NULL);
        }
    uint64_t c0 = nm_cycles();
    /* Held, the mark does not run dry and ask for its final pause during the loop. */
    nm_test_hold_mark(true);
    nm_request_cycle();
    performGC(); /* START */
    ck_assert(nm_cycle_running());
    for (int i = 0; i < N_WEAKS; i++) {
        StgMutArrPtrs *ws = (StgMutArrPtrs *)r[1];
        if (i % 4 == 1) {
            /* Kept in a new object: promoted during the mark, so never traced by it. */
            StgClosure *v;
            ck_assert(rts_deref_weak(cap, (StgWeak *)ws->payload[i], &v));
            StgMutVar *mv = rts_new_mut_var(cap, v);
            rts_write_array(cap, (StgMutArrPtrs *)r[2], (StgWord)i, (StgClosure *)mv);
        } else if (i % 4 == 2) {
            rts_write_array(cap, (StgMutArrPtrs *)r[0], (StgWord)i, NULL);
        }
        busy(&t);
    }
    ck_assert_msg(nm_cycle_running(), "the cycle ended while its mark was held");
    nm_test_hold_mark(false);
    performGC();
    performGC();
    while (nm_cycles() == c0) {
        sched_yield();
        performGC();
    }
    /* Kind 1 and 3 are dead now (their finalizers ran once), kind 2 not yet. */
    for (int i = 0; i < N_WEAKS; i++)
        ck_assert_msg(fin_count[i] == (i % 4 == 1 || i % 4 == 3),
                      "weak %d: finalizer ran %d times after the first cycle", i, fin_count[i]);
    whole_cycle();
    whole_cycle();
    performMajorGC();

    for (int i = 0; i < N_WEAKS; i++) {
        StgMutArrPtrs *ks = (StgMutArrPtrs *)r[0], *ws = (StgMutArrPtrs *)r[1];
        StgMutArrPtrs *vs = (StgMutArrPtrs *)r[2], *ns = (StgMutArrPtrs *)r[3];
        ck_assert_msg(fin_count[i] == (i % 4 != 0), "weak %d: finalizer ran %d times", i,
                      fin_count[i]);
        ListSum s;
        StgClosure *v;
        switch (i % 4) {
        case 0:
            ck_assert(rts_deref_weak(cap, (StgWeak *)ws->payload[i], &v));
            list_sum(v, &s);
            ck_assert(s.len == vsum[i].len && s.sum == vsum[i].sum);
            /* The key's stable name is the one made before the cycles. */
            ck_assert_uint_eq(rts_stable_name_to_int(rts_make_stable_name(cap, ks->payload[i])),
                              sn_int[i]);
            ck_assert_uint_eq(rts_stable_name_to_int((StgStableName *)ns->payload[i]), sn_int[i]);
            break;
        case 1:
            ck_assert(!rts_deref_weak(cap, (StgWeak *)ws->payload[i], &v));
            list_sum(rts_read_mut_var((StgMutVar *)vs->payload[i]), &s);
            ck_assert_msg(s.len == vsum[i].len && s.sum == vsum[i].sum,
                          "weak %d: the value the program took during the mark was damaged", i);
            break;
        case 2:
            ck_assert(!rts_deref_weak(cap, (StgWeak *)ws->payload[i], &v));
            break;
        default:
            break;
        }
    }
    /* The CAF kept its value (entered once) through every cycle. */
    ListSum cs;
    list_sum(rts_eval(cap, (StgClosure *)&the_caf), &cs);
    ck_assert(cs.len == caf_sum.len && cs.sum == caf_sum.sum);
    ck_assert_uint_eq(caf_entries, 1);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/*
 * Evacuating sparse segments under the concurrent mark (tests/support/evac_sparse.c):
 * a cycle is a concurrent one, and its sweep, and the collection after it (which
 * retires and chooses sources); the minor collections between copy, beside the mark
 * thread when a cycle runs.
 */
static void concurrent_cycle(void)
{
    whole_cycle();
    while (nm_sweeping()) {
        sched_yield();
        performGC();
    }
    performGC();
}

START_TEST(evacuate_sparse_concurrent)
{
    evac_sparse_run("-xn -N2 --nonmoving-evac-occupancy=0.95", concurrent_cycle);
}
END_TEST

START_TEST(evacuate_sparse_concurrent_g3)
{
    evac_sparse_run("-xn -N2 -G3 -A16k --nonmoving-evac-occupancy=0.95", concurrent_cycle);
}
END_TEST

/*
 * Lazy stack marking (Note [Lazy stack marking] in rts/sm/nonmoving_mark.c).
 * DEEP cells, each held only by a root frame of its own, in chunks that are
 * old and clean when a cycle starts, so the start pause does not scan them.
 * During the cycle the thread pops every frame (underflowing into each old
 * chunk in turn) and stores each cell in an array made after the start,
 * which a minor collection promotes black: the mark never traces it, and
 * once that collection has scanned it no remembered set holds it. A cell
 * survives only if its chunk was marked before its frame was popped: with
 * the mark thread held (nm_test_hold_mark) nothing but the thread's own
 * marking of each chunk as it underflows into it can do that; without the
 * hold the mark thread races it for the chunks (that variant is for the
 * race, under TSan: it may pass with the marking removed; the held ones
 * fail). Under -G3 the array would stay in generation 1, which the final
 * pause scans, so the held variants run with two generations. A lost cell fails
 * nm_verify in the final pause (debug ways, -DS) and, after the sweep, the
 * check that every cell is a live slot with its number.
 */
enum { DEEP = 20000 };

static void stack_popped_during_mark(const char *opts, bool hold, int rounds_)
{
    test_start_rts("check_thr_nonmoving", opts, 1);
    ck_assert(nm_concurrent());
    Capability *cap = rts_lock();
    static StgClosure **frames[DEEP];
    for (int round = 0; round < rounds_; round++) {
        for (StgWord i = 0; i < DEEP; i++) {
            frames[i] = rts_push_roots(cap, 1);
            StgClosure *c = (StgClosure *)rts_alloc(cap, 3);
            c->info = &cell_info;
            c->payload[0] = NULL;
            ((StgWord *)c->payload)[1] = i;
            frames[i][0] = TAG_CLOSURE(1, c);
        }
        performMajorGC(); /* cells and chunks into the old generation; chunks clean */
        performMajorGC();
        while (nm_sweeping()) {
            sched_yield();
            performGC();
        }
        nm_test_hold_mark(hold);
        uint64_t c0 = nm_cycles();
        nm_request_cycle();
        performGC(); /* START */
        ck_assert(nm_cycle_running());
        HsStablePtr keep = getStablePtr((StgPtr)rts_new_array(cap, DEEP, NULL));
        for (StgWord k = DEEP; k-- > 0;) {
            StgClosure *v = frames[k][0];
            rts_pop_roots(cap, frames[k]);
            rts_write_array(cap, (StgMutArrPtrs *)deRefStablePtr(keep), k, v);
            if (!hold && k % 1024 == 0)
                sched_yield();
        }
        performGC(); /* promotes the array (black), then scans it as remembered */
        performGC();
        nm_test_hold_mark(false);
        while (nm_cycles() == c0) {
            sched_yield();
            performGC();
        }
        while (nm_sweeping()) {
            sched_yield();
            performGC();
        }
        StgMutArrPtrs *a = (StgMutArrPtrs *)deRefStablePtr(keep);
        for (StgWord k = 0; k < DEEP; k++) {
            StgClosure *c = UNTAG(a->payload[k]);
            ck_assert_msg(c != NULL && nm_is_live_slot(c) && c->info == &cell_info &&
                              ((StgWord *)c->payload)[1] == k,
                          "%s round %d: cell %lu, popped from a stack frame during the mark, did "
                          "not survive the cycle",
                          opts, round, (unsigned long)k);
        }
        freeStablePtr(keep);
    }
    rts_unlock(cap);
    hs_exit();
}

START_TEST(stack_popped_mark_held)
{
    stack_popped_during_mark("-xn -N1 -kc8k", true, 2);
}
END_TEST

START_TEST(stack_popped_mark_racing)
{
    stack_popped_during_mark("-xn -N2 -kc4k", false, rounds() / 15 + 1);
}
END_TEST

/* Two capabilities and a tiny nursery: minor collections between the pops. */
START_TEST(stack_popped_mark_held_a8k)
{
    stack_popped_during_mark("-xn -N2 -A8k -kc8k", true, 2);
}
END_TEST

/* Start the runtime under opts (the concurrent mark) with an empty list for grow_list. */
static HsStablePtr start_with_list(const char *opts, Capability **cap)
{
    test_start_rts("check_thr_nonmoving", opts, 1);
    ck_assert(nm_concurrent());
    *cap = rts_lock();
    return getStablePtr((StgPtr)rts_new_array(*cap, 1, NULL));
}

/* Push k cells onto the list in head's slot 0 (its length n and the sum of its checks grow). */
static void grow_list(Capability *cap, HsStablePtr head, int k, uint64_t *n, uint64_t *sum)
{
    StgClosure **r = rts_push_roots(cap, 1);
    r[0] = ((StgMutArrPtrs *)deRefStablePtr(head))->payload[0];
    for (int i = 0; i < k; i++, (*n)++) {
        StgClosure *c = (StgClosure *)rts_alloc(cap, 3);
        c->info = &cell_info;
        c->payload[0] = r[0];
        ((StgWord *)c->payload)[1] = *n;
        *sum += *n * 2654435761u;
        r[0] = TAG_CLOSURE(1, c);
    }
    rts_write_array(cap, (StgMutArrPtrs *)deRefStablePtr(head), 0, r[0]);
    rts_pop_roots(cap, r);
}

/* The list grow_list built is whole (length and checks); then the runtime ends. */
static void end_with_list(Capability *cap, HsStablePtr head, uint64_t n, uint64_t sum)
{
    ListSum ls;
    list_sum(((StgMutArrPtrs *)deRefStablePtr(head))->payload[0], &ls);
    ck_assert_uint_eq(ls.len, n);
    ck_assert_uint_eq(ls.sum, sum);
    freeStablePtr(head);
    rts_unlock(cap);
    hs_exit();
}

/*
 * Note [Prefaulted megablocks] in rts/sm/mblock.c: while the heap grows,
 * the nonmoving thread populates fresh megablocks between collections and
 * the allocator takes them; what was promoted into them stays intact.
 */
START_TEST(prefaulted_megablocks_used)
{
    Capability *cap;
    HsStablePtr head = start_with_list("-xn -N1", &cap);
    uint64_t n = 0, sum = 0;
    MBlockPrefaultStats st = {0};
    for (int round = 0; round < 2000 && st.taken == 0; round++) {
        grow_list(cap, head, 20000, &n, &sum);
        performGC();
        struct timespec ts = {0, 2000000}; /* the thread populates between collections */
        nanosleep(&ts, NULL);
        sm_lock();
        st = mblock_prefault_stats();
        sm_unlock();
    }
    ck_assert_msg(st.taken > 0 && st.claimed >= st.taken,
                  "no prefaulted megablock was taken (%llu claimed)",
                  (unsigned long long)st.claimed);
    performMajorGC();
    end_with_list(cap, head, n, sum);
}
END_TEST

/*
 * Note [The exit waits for the sweep] in rts/sm/nonmoving_mark.c: a
 * program that ends while a cycle runs has that cycle's final pause in the
 * exit's collection, which hands the sweep to the mark thread; the sweep
 * must end, with its census (-ln), before the event log is closed. Before,
 * the log then had a CONC_SWEEP_BEGIN with no END and no census whenever
 * the sweep outlasted the rest of shut-down (here, a 48 MB list's).
 */
START_TEST(exit_waits_for_the_sweep)
{
    char path[] = "/tmp/hsrts-check-thr-nonmoving-XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    close(fd);
    char opts[128];
    snprintf(opts, sizeof opts, "-xn -N1 -l -ln -ol%s", path);
    Capability *cap;
    HsStablePtr head = start_with_list(opts, &cap);
    uint64_t n = 0, sum = 0;
    grow_list(cap, head, 2000000, &n, &sum);
    performGC(); /* the list into the nonmoving heap */
    while (nm_sweeping() || nm_cycle_running()) {
        sched_yield();
        performGC();
    }
    nm_request_cycle();
    performGC(); /* START: the exit comes while it marks */
    ck_assert(nm_cycle_running());
    end_with_list(cap, head, n, sum);

    size_t len;
    uint8_t *log = eventlog_take_file(path, &len);
    Decoded *d = malloc(sizeof *d);
    eventlog_decode(log, len, d);
    ck_assert(d->ended);
    ck_assert_int_ge(d->n_of[202], 1);            /* a final pause (CONC_SYNC_BEGIN) */
    ck_assert_int_eq(d->n_of[204], d->n_of[201]); /* a sweep per mark */
    ck_assert_msg(d->n_of[205] == d->n_of[204], "%d sweeps began, %d ended", d->n_of[204],
                  d->n_of[205]);
    int last = 0;
    for (int e = 0; e < d->n_census; e++)
        last += d->census[e].sweep == d->n_of[205] - 1;
    ck_assert_msg(last > 0, "no census from the last sweep");
    free(d);
    free(log);
}
END_TEST

/*
 * Note [Asking for the final pause] in rts/sm/nonmoving_mark.c: a cycle
 * whose mark has run dry ends without waiting for the allocation area to
 * fill. Started with a heap to mark, then either (quiet) the program lets
 * go of its capability and sleeps, with -I0 so no idle collection comes:
 * the timer thread runs the final pause; or (allocating) it keeps its
 * capability and allocates a little at a time, far less than the 64 MB
 * allocation area, so no heap check collects: its own nursery refills run
 * it. Either way the cycle must end, its sweep finish and the barrier go
 * off within seconds; before, the first waited for ever, the second for
 * 64 MB of allocation. The list built first must be whole after.
 */
static void cycle_ends_by_itself(bool quiet)
{
    Capability *cap;
    HsStablePtr head = start_with_list("-xn -N1 -I0 -A64m", &cap);
    uint64_t n = 0, sum = 0;
    grow_list(cap, head, 200000, &n, &sum);
    performGC(); /* the list into the nonmoving heap */
    while (nm_sweeping() || nm_cycle_running()) {
        sched_yield();
        performGC();
    }
    RTSStats st;
    getRTSStats(&st);
    uint32_t gcs0 = st.gcs;
    uint64_t c0 = nm_cycles();
    nm_request_cycle();
    performGC(); /* START */
    ck_assert(nm_cycle_running());
    ck_assert(HS_REGS(cap)->barrier != 0);
    if (quiet)
        rts_unlock(cap);
    struct timespec ts = {0, 1000000};
    for (int ms = 0; ms < 20000 && (nm_cycles() == c0 || nm_sweeping()); ms++) {
        if (!quiet)
            grow_list(cap, head, 4, &n, &sum); /* 96 bytes a millisecond */
        nanosleep(&ts, NULL);
    }
    if (quiet)
        cap = rts_lock();
    ck_assert_msg(nm_cycles() > c0, "%s: the cycle did not end in 20 s",
                  quiet ? "quiet" : "allocating");
    ck_assert_msg(!nm_sweeping(), "the sweep did not end");
    ck_assert_msg(HS_REGS(cap)->barrier == 0, "the barrier stayed on");
    getRTSStats(&st);
    /* START, the final pause and perhaps one more; no heap check (64 MB were not allocated). */
    ck_assert_msg(st.gcs - gcs0 <= 3, "%u collections", st.gcs - gcs0);
    end_with_list(cap, head, n, sum);
}

START_TEST(cycle_ends_when_quiet)
{
    cycle_ends_by_itself(true);
}
END_TEST

START_TEST(cycle_ends_while_allocating)
{
    cycle_ends_by_itself(false);
}
END_TEST

/*
 * The pauses' CPU is the collecting thread's, the mark thread's the
 * nonmoving collector's, and what is left the mutator's: with one mutator
 * thread that cannot exceed its elapsed time (but for the timer's ticks).
 * Many small collections while the mark thread runs: the process clock less
 * the mark thread's clock gave them half their CPU, and the mutator up to
 * 1.6x its elapsed time (0.117 s in 0.074 s here).
 */
#ifndef DEBUG
START_TEST(pause_cpu_is_the_collectors)
{
    Capability *cap;
    HsStablePtr head = start_with_list("-xn -N1 -A16k -T", &cap);
    uint64_t n = 0, sum = 0;
    RTSStats st;
    getRTSStats(&st);
    uint32_t gcs0 = st.gcs;
    /* A list that keeps growing: cycles one after another, the mark thread busy. */
    for (int round = 0; round < 2000 || st.gcs - gcs0 < 1500; round++) {
        grow_list(cap, head, 2000, &n, &sum);
        getRTSStats(&st);
        if (round > 20000)
            break;
    }
    ck_assert_uint_ge(st.gcs - gcs0, 1500);
    ck_assert_msg(st.nonmoving_gc_sync_elapsed_ns > 0, "no nonmoving cycle ended");
    Time slack = 5000000 + st.mutator_elapsed_ns / 20; /* the timer thread's ticks */
    ck_assert_msg(st.mutator_cpu_ns <= st.mutator_elapsed_ns + slack,
                  "mutator CPU %.3f s in %.3f s elapsed (GC %.3f s in %.3f s, %u collections)",
                  st.mutator_cpu_ns / 1e9, st.mutator_elapsed_ns / 1e9, st.gc_cpu_ns / 1e9,
                  st.gc_elapsed_ns / 1e9, st.gcs - gcs0);
    ck_assert_msg(st.gc_cpu_ns <= st.gc_elapsed_ns + 50000000 + st.gc_elapsed_ns / 5,
                  "GC CPU %.3f s in %.3f s elapsed", st.gc_cpu_ns / 1e9, st.gc_elapsed_ns / 1e9);
    /* One thread's CPU within the window its elapsed time covers (nm_cycle_times). */
    ck_assert_msg(st.nonmoving_gc_cpu_ns <= st.nonmoving_gc_elapsed_ns + slack,
                  "nonmoving CPU %.3f s in %.3f s elapsed", st.nonmoving_gc_cpu_ns / 1e9,
                  st.nonmoving_gc_elapsed_ns / 1e9);
    end_with_list(cap, head, n, sum);
}
END_TEST
#endif

static Suite *suite(void)
{
    Suite *s = suite_create("thr_nonmoving");
    TCase *tc = tcase_create("concurrent");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, mutate_while_marking, 0, N_CONFIGS);
    tcase_add_test(tc, weaks_names_cafs);
    tcase_add_test(tc, cafs_under_concurrent_cycles);
    tcase_add_test(tc, evacuate_sparse_concurrent);
    tcase_add_test(tc, evacuate_sparse_concurrent_g3);
    tcase_add_test(tc, stack_popped_mark_held);
    tcase_add_test(tc, stack_popped_mark_racing);
    tcase_add_test(tc, stack_popped_mark_held_a8k);
    tcase_add_test(tc, prefaulted_megablocks_used);
    tcase_add_test(tc, exit_waits_for_the_sweep);
    tcase_add_test(tc, cycle_ends_when_quiet);
    tcase_add_test(tc, cycle_ends_while_allocating);
#ifndef DEBUG /* the optimised way: the debug library takes minutes over its 6000 collections */
    tcase_add_test(tc, pause_cpu_is_the_collectors);
#endif
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run(suite());
}
