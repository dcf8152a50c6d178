/*
 * Scavenging: evacuate everything the objects in to-space, in large
 * objects reached this GC, and on remembered sets point to.
 */
#ifndef RTS_SM_SCAV_H
#define RTS_SM_SCAV_H

#include "sm/gc_thread.h"

/*
 * Scavenge the remembered sets of generations above N (saved[cap][g] as
 * taken from the capabilities at the start of the collection), freeing
 * them; entries that still point young are re-recorded. With n_threads GC
 * threads, gct takes its share of the capabilities.
 */
void scav_mut_lists(gc_thread *gct, bdescr ***saved, uint32_t N, uint32_t n_threads);

/* Scavenge until every generation's pending work is done (its policy's scan). */
void scav_loop(gc_thread *gct);

/* The copying policy's scan: the workspace's unscanned blocks and large objects. */
bool scav_workspace(gc_thread *gct, gen_workspace *ws);
/*
 * Scavenge one object of generation gen_no in place (a marked or promoted
 * object outside to-space); remember it if it still points younger. Returns its size.
 */
StgWord scav_one(gc_thread *gct, StgClosure *q, uint32_t gen_no);
/* scav_one on each object starting a `step`-word slot of [from, to) (nonmoving segments). */
/* scav_one on each object of [p, lim), one after another; returns where the last one ends. */
StgPtr scav_objects(gc_thread *gct, StgPtr p, StgPtr lim, uint32_t gen_no);
void scav_slots(gc_thread *gct, StgPtr from, StgPtr to, StgWord step, uint32_t gen_no);

/* Work stolen from another GC thread (gc_par.c). */
void scav_stolen_block(gc_thread *gct, bdescr *bd);
void scav_stolen_large(gc_thread *gct, bdescr *bd);

/* Counter since start-up: array cards scanned (summed over GC threads after each collection). */
extern uint64_t scav_cards_scanned;

/* Is this STACK chunk the current chunk of some capability's thread? */
bool scav_stack_is_active(const StgStack *s);

#endif /* RTS_SM_SCAV_H */
