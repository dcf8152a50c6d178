/*
 * How a program ends when evaluation or memory goes wrong: <<loop>>, heap
 * overflow (the default hook, and a program's own that lets it go on with
 * -Mgrace more), stack overflow, an OS refusal seen by a custom
 * mallocFailHook, shutdownHaskellAndExit. Usage: lazy_exits MODE [+RTS ...].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Rts.h"

static const StgInfoTable cons_info = HS_CONSTR_INFO(1, 2, 0, "test:Cons");
static const StgInfoTable nil_info = {.type = CONSTR_STATIC, .name = "test:Nil"};
static const StgClosure nil_closure = {.info = &nil_info};

static StgClosure *loop_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)fv;
    return rts_eval(cap, self);
}
static const StgInfoTable loop_info = HS_THUNK_INFO(loop_entry, 0, 1, "test:loop");

static int overflows;
static void my_heap_hook(W_ request, W_ heap)
{
    (void)request;
    overflows++;
    fprintf(stderr, "hook: heap overflow %d at a limit of %lu bytes\n", overflows,
            (unsigned long)heap);
}

static void my_malloc_hook(W_ request, const char *msg)
{
    fprintf(stderr, "custom malloc hook: %lu bytes (%s)\n", (unsigned long)request, msg);
}

/* Cons cells onto *list until `stop` says so. */
static void grow(Capability *cap, StgClosure **list, int (*stop)(void))
{
    while (!stop()) {
        StgClosure *c = (StgClosure *)rts_alloc(cap, 3);
        c->info = &cons_info;
        c->payload[0] = TAG_CLOSURE(1, &nil_closure);
        c->payload[1] = *list;
        *list = TAG_CLOSURE(2, c);
    }
}

static int never(void)
{
    return 0;
}
static int two_overflows(void)
{
    return overflows >= 2;
}

static StgWord depth(Capability *cap, StgWord d)
{
    if (d == (StgWord)-1)
        return 0;
    StgClosure **r = rts_push_roots(cap, 8);
    StgWord x = depth(cap, d + 1);
    rts_pop_roots(cap, r);
    return x;
}

/* up k = 1 + up (k - 1), up 0 = Int 0: nested (non-tail) evaluation, k deep. */
static const StgInfoTable int_info = HS_CONSTR_INFO(0, 0, 1, "test:Int");
static StgClosure *up_entry(Capability *cap, StgClosure *self, StgClosure **fv);
static const StgInfoTable up_info = HS_THUNK_INFO(up_entry, 0, 1, "test:up");

static StgClosure *mk_up(Capability *cap, StgWord k)
{
    StgThunk *t = (StgThunk *)rts_alloc(cap, 3);
    t->info = &up_info;
    t->slot = 0;
    ((StgWord *)t->payload)[0] = k;
    return (StgClosure *)t;
}

static StgClosure *up_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)fv;
    StgWord k = ((StgWord *)((StgThunk *)self)->payload)[0];
    StgWord v = k == 0 ? 0 : ((StgWord *)UNTAG(rts_eval(cap, mk_up(cap, k - 1)))->payload)[0] + 1;
    StgClosure *c = (StgClosure *)rts_alloc(cap, 2);
    c->info = &int_info;
    ((StgWord *)c->payload)[0] = v;
    return TAG_CLOSURE(1, c);
}

int main(int argc, char *argv[])
{
    const char *mode = argc > 1 ? argv[1] : "";
    RtsConfig cfg = defaultRtsConfig;
    cfg.rts_opts_enabled = RtsOptsAll;
    if (strcmp(mode, "heap-custom") == 0)
        cfg.outOfHeapHook = my_heap_hook;
    if (strcmp(mode, "malloc-custom") == 0)
        cfg.mallocFailHook = my_malloc_hook;
    hs_init_ghc(&argc, &argv, cfg);
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 1);
    r[0] = TAG_CLOSURE(1, &nil_closure);

    if (strcmp(mode, "loop") == 0) {
        StgThunk *t = (StgThunk *)rts_alloc(cap, 3);
        t->info = &loop_info;
        t->slot = 0;
        rts_eval(cap, (StgClosure *)t);
    } else if (strcmp(mode, "heap") == 0 || strcmp(mode, "malloc-custom") == 0) {
        grow(cap, &r[0], never);
    } else if (strcmp(mode, "heap-custom") == 0) {
        grow(cap, &r[0], two_overflows);
        printf("survived %d heap overflows\n", overflows);
    } else if (strcmp(mode, "stack") == 0) {
        depth(cap, 0);
    } else if (strcmp(mode, "deep") == 0 && argc > 2) {
        StgWord n = (StgWord)strtoull(argv[2], NULL, 10);
        r[0] = mk_up(cap, n);
        StgClosure *v = rts_eval(cap, r[0]);
        printf("depth %lu\n", (unsigned long)((StgWord *)UNTAG(v)->payload)[0]);
    } else if (strcmp(mode, "shutdown") == 0 || strcmp(mode, "shutdown-fast") == 0) {
        printf("shutting down\n");
        shutdownHaskellAndExit(3, strcmp(mode, "shutdown-fast") == 0);
    } else {
        fprintf(stderr, "lazy_exits: unknown mode '%s'\n", mode);
        return 2;
    }
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
    return 0;
}
