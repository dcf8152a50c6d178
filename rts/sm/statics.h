/*
 * Static closures and CAFs as the collector sees them.
 *
 * Note [CAFs and SRTs]
 * ~~~~~~~~~~~~~~~~~~~~~
 * Static closures live outside the heap (HEAP_ALLOCED is false for them)
 * and never move. Only a CAF (THUNK_STATIC) ever comes to point into the
 * heap: when first evaluated it is registered here, and once updated it is
 * an IND_STATIC whose indirectee is a heap value.
 *
 * Which CAFs are still needed is decided at each major collection by
 * following static reference tables: every info table's `srt` lists the
 * static closures its code may use (NULL-terminated), and the collector
 * marks, transitively, every static closure reached from a live heap
 * object's fields or SRT, a stack frame's slots or SRT, or a root; a static
 * constructor's fields and a static function's or CAF's SRT are followed in
 * turn. A registered CAF that was not reached is reverted to its unevaluated
 * state (so re-entering it recomputes rather than crashes) and its value
 * becomes garbage, unless keep_cafs is set (RtsConfig or setKeepCAFs), in
 * which case every registered CAF is a root for ever. Minor collections
 * treat every evaluated registered CAF's value as a root of the oldest
 * generation. Marks are kept in a table, not in the closures, so static
 * closures may be read-only except CAFs. Under the concurrent nonmoving
 * mark: Note [CAFs under the concurrent mark] below.
 */
#ifndef RTS_SM_STATICS_H
#define RTS_SM_STATICS_H

#include <stdbool.h>

#include "Rts.h"

struct gc_thread_;

void statics_init(bool keep_cafs);
void statics_exit(void);

/* A CAF is being entered for the first time: register it. */
void statics_new_caf(StgCAF *caf);

/* --- during a collection ---------------------------------------------------- */

/* Start of a collection of 0..N; `major`: trace static closures. */
void statics_gc_start(struct gc_thread_ *gct, bool major);
/*
 * The values of the registered CAFs as roots: every one in a minor
 * collection (and with keep_cafs), none in a major one (it keeps only the
 * CAFs it reaches). f(ctx, slot) for each.
 */
void statics_visit_caf_roots(void (*f)(void *ctx, StgClosure **slot), void *ctx);
/* Mark a static closure reached from the heap or a root (major GCs). */
void statics_mark(struct gc_thread_ *gct, const StgClosure *q);
void statics_mark_srt(struct gc_thread_ *gct, const StgClosure *const *srt);
/* Follow marked statics; true if there was work (scav_loop calls it). */
bool statics_scavenge(struct gc_thread_ *gct);
/* A further GC thread joins the collection (after statics_gc_start). */
void statics_gc_thread_start(struct gc_thread_ *gct);
/* Are static closures waiting to be scanned (any thread may take them)? */
bool statics_work_pending(void);
/* Contention on the shared mark set (--internal-counters). */
uint64_t statics_lock_spins(void), statics_lock_yields(void);
/* End of a major collection: revert the CAFs nobody reached. */
void statics_gc_end(struct gc_thread_ *gct);

/*
 * Note [CAFs under the concurrent mark]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A concurrent nonmoving cycle (Note [The concurrent mark] in
 * nonmoving_mark.c) decides which CAFs to revert at its final pause, from
 * the snapshot its start pause took, as a major collection decides from the
 * heap it traces. Two marks feed the decision:
 *  - the pauses, start, during and final alike: statics_cycle_start makes
 *    every pause until statics_cycle_end mark into one set (what they
 *    scavenge, its SRTs and static fields, as a major collection does), so
 *    whatever the program made or promoted since the start is covered; the
 *    registered CAFs' values stay roots in every pause (their segments'
 *    slots are marked as usual; a CAF reverted at the end leaves its value
 *    to the next cycle);
 *  - the mark thread, for the snapshot's old objects and stack chunks: it
 *    notes every static closure their fields and SRTs name, and those it
 *    names in turn (statics_refs), in a set of its own (the pauses write
 *    this one beside it), and a barrier reports an overwritten static
 *    pointer as it reports a heap one.
 * A CAF in neither set was unreachable at the start and is reverted;
 * CAFs entered since the start are kept. statics_cycle_wanted is false
 * when there is nothing to revert (keep_cafs, or no CAF registered at the
 * start), and then the mark thread and the barrier note nothing.
 */
void statics_cycle_start(void);
bool statics_cycle_wanted(void);
void statics_cycle_end(bool (*also_marked)(const StgClosure *q));
/* f(ctx, s) for each static closure s that static closure q names: SRT, fields. */
void statics_refs(const StgClosure *q, const StgInfoTable *info,
                  void (*f)(void *ctx, const StgClosure *s), void *ctx);
#ifdef DEBUG
/* Was q reverted by the collection in progress? (nm_verify) */
bool statics_reverted_now(const StgClosure *q);
#endif

/*
 * Locking: the CAF table is changed by the thread that enters a CAF (holding
 * a capability) and by the collector (the world stopped); caf_lock in
 * statics.c keeps threads entering different CAFs at once apart. The marked set and work list
 * belong to the collection in progress, shared by its GC threads under a spin lock when it is
 * parallel (statics.c).
 */

/* Registered CAFs (for the sanity checker). */
uint32_t statics_caf_count(void);
StgCAF *statics_caf(uint32_t i);

#endif /* RTS_SM_STATICS_H */
