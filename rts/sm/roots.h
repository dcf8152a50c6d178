/*
 * The roots of a collection, enumerated in one place.
 *
 * Note [The root visitor]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * Every collector policy (copying today; marking, compacting, nonmoving
 * later) and the sanity checker take the roots through roots_visit: the
 * visitor's `slot` callback gets the address of each root pointer (it may
 * rewrite it: an evacuating visitor stores the new address) and a kind
 * saying where it lives, so a visitor can treat kinds differently:
 *
 *   ROOT_CAPABILITY   a capability's current thread and scratch roots;
 *   ROOT_THREAD       a thread in the thread table (its stacks hang off it);
 *   ROOT_STABLE_PTR   a stable pointer's slot;
 *   ROOT_CAF          the value of a registered CAF, when the collection
 *                     treats CAFs as roots (minor collections, keep_cafs);
 *   ROOT_WEAK         a weak pointer in the weak table. Not a root of
 *                     reachability (Note [Weak pointers] in weak.h): the
 *                     collector's weak phase handles these, the sanity
 *                     checker checks them.
 *
 * The remembered sets are roots of a different shape (objects whose fields
 * are roots): roots_visit_remembered hands the visitor each remembered
 * object of the generations above N. Nothing outside rts/sm evacuates or
 * marks: subsystems that own roots (threads.c, stable.c) only enumerate
 * them for this module.
 */
#ifndef RTS_SM_ROOTS_H
#define RTS_SM_ROOTS_H

#include "capability.h"
#include "sm/block.h"

typedef enum {
    ROOT_CAPABILITY = 1 << 0,
    ROOT_THREAD = 1 << 1,
    ROOT_STABLE_PTR = 1 << 2,
    ROOT_CAF = 1 << 3,
    ROOT_WEAK = 1 << 4,
} RootKind;

#define ROOTS_REACHABILITY (ROOT_CAPABILITY | ROOT_THREAD | ROOT_STABLE_PTR | ROOT_CAF)
#define ROOTS_ALL          (ROOTS_REACHABILITY | ROOT_WEAK)

typedef struct RootVisitor_ {
    void (*slot)(struct RootVisitor_ *v, StgClosure **slot, RootKind kind);
} RootVisitor;

/* Visit the roots of the kinds in `kinds` (a mask of RootKind). */
void roots_visit(RootVisitor *v, unsigned kinds);

/*
 * Visit every remembered object of generations N+1 .. G-1, as saved from
 * the capabilities at the start of a collection (saved[cap][gen]).
 */
void roots_visit_remembered(bdescr ***saved, uint32_t N,
                            void (*object)(void *ctx, StgClosure *q, uint32_t gen), void *ctx);
/* The same, for capability c's sets only (a parallel collection shares them out). */
void roots_visit_remembered_cap(bdescr ***saved, uint32_t c, uint32_t N,
                                void (*object)(void *ctx, StgClosure *q, uint32_t gen), void *ctx);

#endif /* RTS_SM_ROOTS_H */
