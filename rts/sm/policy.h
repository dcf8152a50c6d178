/*
 * Old-generation policies: how each generation is collected.
 *
 * Note [Generation policies]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * One collector drives every collection (gc.c): it takes the roots
 * (roots.h), scans to a fixed point, runs the weak phase, and finishes.
 * What differs between collectors is per generation, and is a row of this
 * table: how a generation is prepared (its objects become the from-space,
 * or get their marks cleared), where a survivor goes, whether an object
 * is alive afterwards, how pending work is scanned, how the generation is
 * finished, how its objects are walked (heap census, sanity checker), the
 * invariants the sanity checker can check, and the reserve a collection
 * of it needs. The rows are copying (copying.c), mark-region (-w,
 * markregion.c), compacting (-c, compact.c) and nonmoving (-xn,
 * nonmoving.c), the last three on the shared mark of mark.h, none a copy of
 * the scavenger: what tracing does per closure type stays in scan.h. A
 * row may also give its workspace room of its own (todo_full: mark-region
 * promotes into holes, nonmoving into segment slots).
 *
 * Hot paths do not go through the table: evacuation copies inline, and a
 * non-copying destination will be recognised by a block flag on the same
 * test evac already makes (BF_MARKED beside BF_EVACUATED). Function pointers are called
 * once per generation per phase.
 */
#ifndef RTS_SM_POLICY_H
#define RTS_SM_POLICY_H

#include <stdbool.h>

#include "sm/gc_thread.h"

struct generation_;

typedef struct GenPolicy_ {
    const char *name;
    /* Before collecting the generation: its objects become what the collection decides about. */
    void (*prepare)(gc_thread *gct, struct generation_ *gen);
    /* Scan the work pending for the generation (survivors whose fields are not traced yet). */
    bool (*scan)(gc_thread *gct, struct generation_ *gen);
    /*
     * After scanning: q, in a block of this generation that the collection
     * is deciding about, survives at the address returned (tagless), or
     * NULL: it is not (yet) known to be alive.
     */
    StgClosure *(*is_alive)(const bdescr *bd, StgClosure *q);
    /*
     * End of the collection: survivors become the generation's objects;
     * `collected`: the generation was collected (free what died).
     */
    void (*finish)(gc_thread *gct, struct generation_ *gen, bool collected);
    /* Every object of the generation, outside a collection (census, sanity). */
    void (*walk)(struct generation_ *gen, void (*f)(StgClosure *q, void *ctx), void *ctx);
    /* Check the generation's own invariants (the sanity checker; debug way). */
    void (*check)(const struct generation_ *gen);
    /*
     * Blocks a collection of the generation needs beyond the `blocks` it
     * holds (the copy reserve; heap sizing, trigger.c).
     */
    StgWord (*reserve)(const struct generation_ *gen, StgWord blocks);
    /*
     * Optional (NULL: fresh to-space blocks): the workspace of the
     * generation needs room for `size` words; return where to copy, having
     * set ws->todo_free/todo_lim (and todo_bd), or NULL for a fresh block.
     */
    StgPtr (*todo_full)(gc_thread *gct, gen_workspace *ws, StgWord size);
} GenPolicy;

extern const GenPolicy gen_policy_copying;
extern const GenPolicy gen_policy_mark_region; /* -w: markregion.c */
extern const GenPolicy gen_policy_compacting;  /* -c: compact.c */
extern const GenPolicy gen_policy_nonmoving;   /* -xn: nonmoving.c */

/* Pieces of the copying row the other rows share (copying.c). */
void copying_finish_workspace(gc_thread *gct, gen_workspace *ws);
/* End the workspace's block being filled: onto scavd_list, or freed if empty. */
void copying_retire_todo_bd(gen_workspace *ws);
void copying_free_dead_large_objects(struct generation_ *gen);
void copying_walk(struct generation_ *gen, void (*f)(StgClosure *q, void *ctx), void *ctx);
/* The large objects (and pinned blocks) of the generation only. */
void copying_walk_large(struct generation_ *gen, void (*f)(StgClosure *q, void *ctx), void *ctx);
void copying_check(const struct generation_ *gen);

#endif /* RTS_SM_POLICY_H */
