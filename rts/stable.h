/*
 * Stable pointers and stable names: the tables and what the collector
 * does with them.
 *
 * Invariants: a stable pointer is an index + 1 into the table; a free
 * entry is on the free list and is not a root; a used one is a root (its
 * value may be any closure pointer, tagged or NULL). A stable-name entry holds the object's
 * current address (or NULL once it died) and its STABLE_NAME object (or it
 * is free); the address index is rebuilt after every collection, because
 * collections move the keys. The stable-pointer table is guarded by its own
 * lock, taken by every walk (the collector's and the checker's included):
 * see Note [The stable-pointer lock] in stable.c. The stable-name table is
 * used only with a capability (and by the collector), so the capability
 * guards it.
 */
#ifndef RTS_STABLE_H
#define RTS_STABLE_H

#include "Rts.h"

void stable_init(void);
void stable_exit(void);

/* Collector (sm/roots.c): f(ctx, slot) for every stable pointer in use. */
/* A collector moved objects: f(ctx, slot) rewrites each live name's object and name slots. */
void stable_name_update(void (*f)(void *ctx, StgClosure **slot), void *ctx);
void stable_ptr_visit(void (*f)(void *ctx, StgClosure **slot), void *ctx);
/* Collector, after scavenging and before from-space is freed: update names. */
void stable_name_gc(void);

/* Sanity checker: apply check to every live stable pointer's slot. */
void stable_ptr_check(void (*check)(const char *what, StgClosure *const *slot));

/* Live stable pointers (for tests and the sanity checker). */
StgWord stable_ptr_count(void);
StgWord stable_name_count(void);

#endif /* RTS_STABLE_H */
