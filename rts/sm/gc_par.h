/*
 * Parallel collection: GC threads, the plan of a collection (how many
 * threads, whether they share work), work sharing and termination.
 * Notes [Who collects], [Parallel only when it pays] and [Work stealing
 * and termination] in gc_par.c.
 */
#ifndef RTS_SM_GC_PAR_H
#define RTS_SM_GC_PAR_H

#include <stdbool.h>
#include <stdio.h>

#include "sm/gc_thread.h"

/* What one collection does: decided by gc_par_plan before it starts. */
typedef struct {
    uint32_t n_threads;      /* GC threads taking part, the leader included (>= 1) */
    bool balance;            /* threads steal each other's work (-qb) */
    uint64_t estimate_words; /* the work rule's estimate (Note [Parallel only when it pays]) */
} GcParPlan;

void gc_par_init(void);
void gc_par_exit(void);

/* gc_thread i (0: the leader's); valid for i < gc_par_n_slots(). */
gc_thread *gc_par_thread(uint32_t i);
uint32_t gc_par_n_slots(void);
/* setNumCapabilities, the world stopped: room for capabilities up to `to`. */
void gc_par_add_capabilities(uint32_t to);

/* Decide the collection of generations 0..N (the world is stopped). */
GcParPlan gc_par_plan(uint32_t N);

/*
 * Run the collection's scavenging on plan->n_threads threads: the workers
 * are woken and each calls body(gct) then gc_par_scavenge; the leader
 * (gc_par_thread(0)) does the same on the calling thread. Returns when
 * every thread has finished (no work is left anywhere).
 */
void gc_par_run(const GcParPlan *plan, void (*body)(gc_thread *gct));

/* Scavenge until this thread, or (balancing) every thread, has no work left. */
void gc_par_scavenge(gc_thread *gct);

/* After a parallel collection: hand the workers' to-space and spare blocks to the leader. */
void gc_par_fold(uint32_t n_threads);

/* Per-thread to-space blocks, taken from the block allocator in batches. */
bdescr *gc_par_take_block(gc_thread *gct);

/* The work rule learns what a collection of 0..N copied. */
void gc_par_record(uint32_t N, uint64_t copied_words);

/*
 * The --internal-counters table of the threaded -s report, in GHC's
 * column widths (4, -30, 14, 14): spin locks, work-finding counters and
 * one row per GC thread.
 */
void gc_par_print_counters(FILE *f);

/* Counters for --internal-counters. */
uint64_t gc_par_workers_started(void);
uint64_t gc_par_spin_count(void), gc_par_yield_count(void);
uint64_t evac_large_lock_spins(void), evac_large_lock_yields(void);

/* Work queues: the owner's todo_lock when the collection is parallel. */
RTS_INLINE void gc_push_todo(gc_thread *gct, gen_workspace *ws, bdescr *bd)
{
#ifdef THREADED_RTS
    if (gct->parallel) {
        gc_spin_lock(&gct->todo_lock);
        bd->link = ws->todo_q;
        ws->todo_q = bd;
        __atomic_store_n(&gct->n_todo, gct->n_todo + 1, __ATOMIC_RELAXED);
        gc_spin_unlock(&gct->todo_lock);
        return;
    }
#endif
    bd->link = ws->todo_q;
    ws->todo_q = bd;
}

RTS_INLINE void gc_push_large(gc_thread *gct, gen_workspace *ws, bdescr *bd)
{
#ifdef THREADED_RTS
    if (gct->parallel) {
        gc_spin_lock(&gct->todo_lock);
        bd->link = ws->todo_large;
        ws->todo_large = bd;
        __atomic_store_n(&gct->n_todo, gct->n_todo + 1, __ATOMIC_RELAXED);
        gc_spin_unlock(&gct->todo_lock);
        return;
    }
#endif
    bd->link = ws->todo_large;
    ws->todo_large = bd;
}

/* Pop from *list (todo_q or todo_large of gct's workspace), or NULL. */
RTS_INLINE bdescr *gc_pop(gc_thread *gct, bdescr **list)
{
    bdescr *bd;
#ifdef THREADED_RTS
    if (gct->parallel) {
        if (__atomic_load_n(&gct->n_todo, __ATOMIC_RELAXED) == 0) /* a peek; the lock decides */
            return NULL;
        gc_spin_lock(&gct->todo_lock);
        bd = *list;
        if (bd) {
            *list = bd->link;
            __atomic_store_n(&gct->n_todo, gct->n_todo - 1, __ATOMIC_RELAXED);
        }
        gc_spin_unlock(&gct->todo_lock);
        return bd;
    }
#endif
    bd = *list;
    if (bd)
        *list = bd->link;
    return bd;
}

#endif /* RTS_SM_GC_PAR_H */
