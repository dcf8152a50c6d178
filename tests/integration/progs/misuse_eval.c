/*
 * Misuse of the evaluation API: each mode makes one mistake a compiler's
 * generated code could make, which the runtime must refuse with one line
 * and exit 1 (rts/README.md, "Exit statuses"). Usage: misuse_eval MODE.
 */
#include <stdio.h>
#include <string.h>

#include "Rts.h"

static const StgInfoTable int_info = HS_CONSTR_INFO(0, 0, 1, "test:Int");
static const StgInfoTable fst_info = HS_SELECTOR_INFO(0, "test:fst");

static StgClosure *null_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)cap;
    (void)self;
    (void)fv;
    return NULL;
}
static const StgInfoTable null_info = HS_THUNK_INFO(null_entry, 0, 1, "test:returnsNull");

static StgClosure *leaky_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)self;
    (void)fv;
    StgClosure *c = (StgClosure *)rts_alloc(cap, 2);
    c->info = &int_info;
    ((StgWord *)c->payload)[0] = 1;
    (void)rts_push_roots(cap, 2); /* never popped */
    return TAG_CLOSURE(1, c);
}
static const StgInfoTable leaky_info = HS_THUNK_INFO(leaky_entry, 0, 1, "test:leavesAFrame");

static StgClosure *exit_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)cap;
    (void)self;
    (void)fv;
    hs_exit();
    return NULL;
}
static const StgInfoTable exit_info = HS_THUNK_INFO(exit_entry, 0, 1, "test:exits");

static StgClosure *mk_thunk(Capability *cap, const StgInfoTable *info)
{
    StgThunk *t = (StgThunk *)rts_alloc(cap, 3);
    t->info = info;
    t->slot = 0;
    return (StgClosure *)t;
}

static StgClosure *mk_int(Capability *cap, StgWord v)
{
    StgClosure *c = (StgClosure *)rts_alloc(cap, 2);
    c->info = &int_info;
    ((StgWord *)c->payload)[0] = v;
    return c; /* untagged on purpose: the runtime must look at it */
}

int main(int argc, char *argv[])
{
    const char *mode = argc > 1 ? argv[1] : "";
    hs_init(&argc, &argv);
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 2);

    if (strcmp(mode, "eval-null") == 0) {
        rts_eval(cap, NULL);
    } else if (strcmp(mode, "entry-returns-null") == 0) {
        rts_eval(cap, mk_thunk(cap, &null_info));
    } else if (strcmp(mode, "entry-leaves-a-frame") == 0) {
        rts_eval(cap, mk_thunk(cap, &leaky_info));
    } else if (strcmp(mode, "apply-non-function") == 0) {
        r[0] = mk_int(cap, 1);
        r[1] = mk_int(cap, 2);
        rts_apply(cap, r[0], 1, &r[1]);
    } else if (strcmp(mode, "select-non-constructor") == 0) {
        r[0] = mk_int(cap, 1);
        StgSelector *s = (StgSelector *)rts_alloc(cap, 3);
        s->info = &fst_info;
        s->slot = 0;
        s->selectee = r[0];
        rts_eval(cap, (StgClosure *)s);
    } else if (strcmp(mode, "update-non-thunk") == 0) {
        r[0] = mk_int(cap, 1);
        r[1] = mk_int(cap, 2);
        rts_update_thunk(cap, r[0], r[1]);
    } else if (strcmp(mode, "eval-without-capability") == 0) {
        r[0] = mk_thunk(cap, &null_info);
        StgClosure *t = r[0];
        rts_pop_roots(cap, r);
        rts_unlock(cap);
        rts_eval(cap, t);
    } else if (strcmp(mode, "resume-without-suspend") == 0) {
        static int fake;
        rts_resume(&fake);
    } else if (strcmp(mode, "resume-bad-token") == 0) {
        static int fake;
        (void)rts_suspend(cap);
        rts_resume(&fake);
    } else if (strcmp(mode, "resume-twice") == 0) {
        void *token = rts_suspend(cap);
        rts_resume(token);
        rts_resume(token);
    } else if (strcmp(mode, "yield-without-capability") == 0) {
        rts_pop_roots(cap, r);
        rts_unlock(cap);
        rts_yield(cap);
    } else if (strcmp(mode, "cas-frozen-array") == 0) {
        StgMutArrPtrs *a = rts_new_array(cap, 4, NULL);
        rts_freeze_array(cap, a);
        StgClosure *res;
        rts_cas_array(cap, a, 0, NULL, NULL, &res);
    } else if (strcmp(mode, "cas-frozen-small-array") == 0) {
        StgSmallMutArrPtrs *a = rts_new_small_array(cap, 4, NULL);
        rts_freeze_small_array(cap, a);
        StgClosure *res;
        rts_cas_small_array(cap, a, 0, NULL, NULL, &res);
    } else if (strcmp(mode, "hs-exit-inside-eval") == 0) {
        rts_eval(cap, mk_thunk(cap, &exit_info));
    } else {
        fprintf(stderr, "misuse_eval: unknown mode '%s'\n", mode);
        return 2;
    }
    fprintf(stderr, "misuse_eval: %s was not refused\n", mode);
    return 0;
}
