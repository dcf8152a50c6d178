/*
 * The public API misused: every call before hs_init or after the last
 * hs_exit, and bad or double-freed stable pointers. Each must end the
 * program with one line and exit 1 (Note [Calls outside hs_init .. hs_exit]
 * in rts/startup.h).
 *
 * Usage: api_misuse before CALL     the call before hs_init
 *        api_misuse after CALL      the call after hs_init ... hs_exit
 *        api_misuse stable CASE     stable-pointer misuse while running
 *        api_misuse list            the CALL names, one a line
 * Prints "<CALL> returned" on stdout if a call comes back.
 */
#include <stdio.h>
#include <string.h>

#include "Rts.h"

static const StgInfoTable box_info = HS_CONSTR_INFO(0, 1, 0, "test:Box");
static const StgInfoTable thunk_info = HS_THUNK_INFO(NULL, 0, 0, "test:thunk");
static const StgInfoTable box_static_info = {.type = CONSTR_STATIC, .name = "test:BoxStatic"};
static const StgClosure box_static = {.info = &box_static_info};

/* What a call may be given: objects made while the runtime ran (stale after hs_exit). */
static struct {
    Capability *cap;
    StgClosure *box, *thunk;
    StgMutArrPtrs *arr;
    StgSmallMutArrPtrs *sarr;
    StgMutVar *mv;
    StgWeak *weak;
    HsStablePtr sp;
} o;

static void make_objects(void)
{
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 1);
    StgClosure *b = (StgClosure *)rts_alloc(cap, 2);
    b->info = &box_info;
    b->payload[0] = NULL;
    r[0] = b;
    o.sp = getStablePtr((StgPtr)b);
    o.arr = rts_new_array(cap, 4, NULL);
    o.sarr = rts_new_small_array(cap, 4, NULL);
    o.mv = rts_new_mut_var(cap, NULL);
    o.weak = rts_mk_weak(cap, r[0], NULL, NULL, NULL);
    StgThunk *t = (StgThunk *)rts_alloc(cap, 2);
    t->info = &thunk_info;
    t->slot = 0;
    o.thunk = (StgClosure *)t;
    o.box = r[0];
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    o.cap = cap;
}

static void call(const char *name)
{
    RTSStats stats;
#define IS(n) (strcmp(name, n) == 0)
    if (IS("getStablePtr"))
        getStablePtr((StgPtr)o.box);
    else if (IS("deRefStablePtr"))
        deRefStablePtr(o.sp ? o.sp : (HsStablePtr)1);
    else if (IS("freeStablePtr"))
        freeStablePtr(o.sp ? o.sp : (HsStablePtr)1);
    else if (IS("hs_free_stable_ptr"))
        hs_free_stable_ptr(o.sp ? o.sp : (HsStablePtr)1);
    else if (IS("hs_free_stable_ptr_unsafe"))
        hs_free_stable_ptr_unsafe(o.sp ? o.sp : (HsStablePtr)1);
    else if (IS("rts_make_stable_name"))
        rts_make_stable_name(o.cap, o.box);
    else if (IS("rts_mk_weak"))
        rts_mk_weak(o.cap, o.box, NULL, NULL, NULL);
    else if (IS("rts_deref_weak")) {
        StgClosure *v;
        rts_deref_weak(o.cap, o.weak, &v);
    } else if (IS("rts_finalize_weak"))
        rts_finalize_weak(o.cap, o.weak);
    else if (IS("rts_eval"))
        rts_eval(o.cap, (StgClosure *)&box_static); /* a heap object would be unmapped after exit */
    else if (IS("rts_apply"))
        rts_apply(o.cap, (StgClosure *)&box_static, 0, NULL);
    else if (IS("rts_mk_ap"))
        rts_mk_ap(o.cap, (StgClosure *)&box_static, 0, NULL);
    else if (IS("rts_yield"))
        rts_yield(o.cap);
    else if (IS("rts_suspend"))
        rts_suspend(o.cap);
    else if (IS("rts_resume"))
        rts_resume(&o);
    else if (IS("rts_cas_mut_var")) {
        StgClosure *res;
        rts_cas_mut_var(o.cap, o.mv, NULL, NULL, &res);
    } else if (IS("rts_cas_array")) {
        StgClosure *res;
        rts_cas_array(o.cap, o.arr, 0, NULL, NULL, &res);
    } else if (IS("rts_cas_small_array")) {
        StgClosure *res;
        rts_cas_small_array(o.cap, o.sarr, 0, NULL, NULL, &res);
    } else if (IS("rts_write_barrier_slow"))
        rts_write_barrier_slow(o.cap, (StgClosure *)o.mv, &o.mv->var, NULL);
    else if (IS("rts_push_roots_slow"))
        rts_push_roots_slow(o.cap, 1);
    else if (IS("rts_stack_underflow"))
        rts_stack_underflow(o.cap);
    else if (IS("rts_bad_pop"))
        rts_bad_pop(o.cap, NULL);
    else if (IS("performGC"))
        performGC();
    else if (IS("performMajorGC"))
        performMajorGC();
    else if (IS("hs_perform_gc"))
        hs_perform_gc();
    else if (IS("getRTSStats"))
        getRTSStats(&stats);
    else if (IS("getRTSStatsEnabled"))
        getRTSStatsEnabled();
    else if (IS("getAllocations"))
        getAllocations();
    else if (IS("revertCAFs"))
        revertCAFs();
    else if (IS("setKeepCAFs"))
        setKeepCAFs();
    else if (IS("rts_new_byte_array"))
        rts_new_byte_array(o.cap, 16);
    else if (IS("rts_new_pinned_byte_array"))
        rts_new_pinned_byte_array(o.cap, 16);
    else if (IS("rts_new_array"))
        rts_new_array(o.cap, 4, NULL);
    else if (IS("rts_new_small_array"))
        rts_new_small_array(o.cap, 4, NULL);
    else if (IS("rts_new_mut_var"))
        rts_new_mut_var(o.cap, NULL);
    else if (IS("rts_alloc_slow"))
        rts_alloc_slow(o.cap, 2);
    else if (IS("rts_alloc_large"))
        rts_alloc_large(o.cap, 1000);
    else if (IS("rts_is_heap_alloced"))
        rts_is_heap_alloced(o.box);
    else if (IS("rts_dirty_mut_var"))
        rts_dirty_mut_var(o.cap, o.mv);
    else if (IS("rts_dirty_mut_arr"))
        rts_dirty_mut_arr(o.cap, o.arr);
    else if (IS("rts_dirty_small_mut_arr"))
        rts_dirty_small_mut_arr(o.cap, o.sarr);
    else if (IS("rts_freeze_array"))
        rts_freeze_array(o.cap, o.arr);
    else if (IS("rts_thaw_array"))
        rts_thaw_array(o.cap, o.arr);
    else if (IS("rts_freeze_small_array"))
        rts_freeze_small_array(o.cap, o.sarr);
    else if (IS("rts_thaw_small_array"))
        rts_thaw_small_array(o.cap, o.sarr);
    else if (IS("rts_update_thunk"))
        rts_update_thunk(o.cap, o.thunk, o.box);
    else if (IS("rts_lock"))
        rts_lock();
    else {
        fprintf(stderr, "api_misuse: unknown call %s\n", name);
        return;
    }
#undef IS
    printf("%s returned\n", name);
}

static const char *const calls[] = {
    "getStablePtr",
    "deRefStablePtr",
    "freeStablePtr",
    "hs_free_stable_ptr",
    "hs_free_stable_ptr_unsafe",
    "rts_make_stable_name",
    "rts_mk_weak",
    "rts_deref_weak",
    "rts_finalize_weak",
    "rts_eval",
    "rts_apply",
    "rts_mk_ap",
    "rts_yield",
    "rts_suspend",
    "rts_resume",
    "rts_cas_mut_var",
    "rts_cas_array",
    "rts_cas_small_array",
    "rts_write_barrier_slow",
    "rts_push_roots_slow",
    "rts_stack_underflow",
    "rts_bad_pop",
    "performGC",
    "performMajorGC",
    "hs_perform_gc",
    "getRTSStats",
    "getRTSStatsEnabled",
    "getAllocations",
    "revertCAFs",
    "setKeepCAFs",
    "rts_new_byte_array",
    "rts_new_pinned_byte_array",
    "rts_new_array",
    "rts_new_small_array",
    "rts_new_mut_var",
    "rts_alloc_slow",
    "rts_alloc_large",
    "rts_is_heap_alloced",
    "rts_dirty_mut_var",
    "rts_dirty_mut_arr",
    "rts_dirty_small_mut_arr",
    "rts_freeze_array",
    "rts_thaw_array",
    "rts_freeze_small_array",
    "rts_thaw_small_array",
    "rts_update_thunk",
    "rts_lock",
};

int main(int argc, char *argv[])
{
    const char *mode = argc > 1 ? argv[1] : "";
    const char *what = argc > 2 ? argv[2] : "";
    if (strcmp(mode, "list") == 0) {
        for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
            puts(calls[i]);
        return 0;
    }
    if (strcmp(mode, "before") == 0) {
        call(what);
        return 0;
    }
    hs_init(&argc, &argv);
    if (strcmp(mode, "after") == 0) {
        make_objects();
        hs_exit();
        call(what);
        return 0;
    }
    if (strcmp(mode, "stable") == 0) {
        Capability *cap = rts_lock();
        HsStablePtr sp = getStablePtr(NULL);
        printf("%p\n", sp);
        fflush(stdout);
        if (strcmp(what, "double-free") == 0) {
            hs_free_stable_ptr(sp);
            hs_free_stable_ptr(sp);
        } else if (strcmp(what, "double-freeStablePtr") == 0) {
            freeStablePtr(sp);
            freeStablePtr(sp);
        } else if (strcmp(what, "deref-freed") == 0) {
            hs_free_stable_ptr(sp);
            deRefStablePtr(sp);
        } else if (strcmp(what, "free-bogus") == 0) {
            hs_free_stable_ptr((HsStablePtr)((StgWord)sp + 1000));
        } else if (strcmp(what, "deref-null") == 0) {
            deRefStablePtr(NULL);
        } else if (strcmp(what, "free-null") == 0) {
            hs_free_stable_ptr(NULL); /* nothing, as in GHC */
            freeStablePtr(NULL);
            if (deRefStablePtr(sp) != NULL)
                return 3;
            printf("freeing NULL did nothing\n");
            rts_unlock(cap);
            hs_exit();
            return 0;
        } else if (strcmp(what, "update-non-thunk") == 0) {
            StgClosure *b = (StgClosure *)rts_alloc(cap, 2);
            b->info = &box_info;
            b->payload[0] = NULL;
            rts_update_thunk(cap, b, NULL);
        } else {
            fprintf(stderr, "api_misuse: unknown case %s\n", what);
            return 2;
        }
        printf("%s was not refused\n", what);
        return 0;
    }
    fprintf(stderr, "api_misuse: unknown mode %s\n", mode);
    return 2;
}
