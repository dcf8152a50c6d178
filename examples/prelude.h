/*
 * What a compiler's C backend would emit once per program for the types the
 * examples share: Int (boxed), lists, pairs, and their info tables.
 *
 *     data Int = I# Int#
 *     data [a] = [] | a : [a]          -- tags: [] = 1, (:) = 2
 *     data (a, b) = (a, b)             -- tag 1
 */
#ifndef EXAMPLES_PRELUDE_H
#define EXAMPLES_PRELUDE_H

#include <Rts.h>

static const StgInfoTable int_info = HS_CONSTR_INFO(0, 0, 1, "base:GHC.Types.I#");
static const StgInfoTable cons_info = HS_CONSTR_INFO(1, 2, 0, "ghc-prim:GHC.Types.:");
static const StgInfoTable nil_info = {.type = CONSTR_STATIC, .name = "ghc-prim:GHC.Types.[]"};
static const StgInfoTable pair_info = HS_CONSTR_INFO(0, 2, 0, "ghc-prim:GHC.Tuple.(,)");
static const StgClosure nil_closure = {.info = &nil_info};

#define NIL        TAG_CLOSURE(1, &nil_closure)
#define IS_CONS(p) (GET_TAG(p) == 2)
#define HEAD(p)    (UNTAG(p)->payload[0])
#define TAIL(p)    (UNTAG(p)->payload[1])

/* The word inside a boxed Int (an evaluated, tagged pointer). */
static inline StgInt int_val(StgClosure *p)
{
    return ((StgInt *)UNTAG(p)->payload)[0];
}

static inline StgClosure *mk_int(Capability *cap, StgInt n)
{
    StgClosure *c = (StgClosure *)rts_alloc(cap, 2);
    c->info = &int_info;
    ((StgInt *)c->payload)[0] = n;
    return TAG_CLOSURE(1, c);
}

/* x : xs, with x and xs rooted by the caller in r[0] and r[1]. */
static inline StgClosure *mk_cons(Capability *cap, StgClosure **r)
{
    StgClosure *c = (StgClosure *)rts_alloc(cap, 3);
    c->info = &cons_info;
    c->payload[0] = r[0];
    c->payload[1] = r[1];
    return TAG_CLOSURE(2, c);
}

#endif /* EXAMPLES_PRELUDE_H */
