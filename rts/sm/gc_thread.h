/*
 * The collector's per-thread state: one workspace per generation, holding
 * the to-space blocks being filled and scanned (block-structured Cheney).
 *
 * Note [To-space blocks]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * A workspace copies objects into todo_bd, bumping todo_free up to
 * todo_lim. A block's u.scan is how far it has been scavenged. When
 * todo_bd fills it is retired: to scavd_list if fully scanned, to todo_q if
 * it still holds unscanned objects, or left to the scanner if it is the
 * block being scanned right now (gct->scan_bd), which moves it to
 * scavd_list when done. Large objects reached in this GC wait on todo_large
 * to be scavenged, then go to large_done. The collection is over when no
 * workspace has unscanned words or large objects left. Every to-space block
 * has BF_EVACUATED, so evacuate() leaves the objects in it alone.
 *
 * Each GC thread has its own gc_thread and workspaces (gc_par.h). In a
 * parallel collection todo_q and todo_large are the unit of work sharing:
 * the owner pushes and pops them, and other threads steal from them, all
 * under the owner's todo_lock; todo_bd and the scanner's block are the
 * owner's alone. See Note [Work stealing and termination] in gc_par.c.
 */
#ifndef RTS_SM_GC_THREAD_H
#define RTS_SM_GC_THREAD_H

#include <stdbool.h>

#include "sm/storage.h"

/* Generations a collector supports (-G is at most 255). */
#define GC_MAX_GENERATIONS 256

/*
 * A run of equal free slots a generation without to-space blocks gives
 * promotion, one per size class: [bump, lim), each slot `step` words, the
 * epoch byte of bump's slot at `mark`. See Note [Promotion into runs] in
 * nonmoving.c.
 */
typedef struct {
    StgPtr bump, lim;
    uint8_t *mark;
    StgWord step;
} SlotRun;

typedef struct {
    generation *gen;
    /*
     * Slot runs (NULL: none; reset at every collection): a size in words
     * picks runs[run_of_size[size]]; a slot taken gets run_mark.
     */
    SlotRun *runs;
    const uint16_t *run_of_size;
    uint8_t run_mark;
    bdescr *todo_bd;
    StgPtr todo_free;
    StgPtr todo_lim;
    bdescr *todo_q;     /* full blocks with unscanned objects (link) */
    bdescr *scavd_list; /* finished blocks (link) */
    bdescr *todo_large; /* large objects to scavenge (link) */
    bdescr *large_done; /* large objects reached in this GC (link) */
} gen_workspace;

/* A test-and-test-and-set lock for short critical sections; counts its contention. */
typedef struct {
    int locked;
    uint64_t spins;  /* times the lock was found held */
    uint64_t yields; /* times the waiter gave up its core */
} GcSpinLock;

typedef struct gc_thread_ {
    Capability *cap;      /* where remembered-set entries go (one per GC thread) */
    uint32_t index;       /* 0: the leader (the thread that stopped the world) */
    bool parallel;        /* this collection has more than one GC thread */
    uint32_t evac_gen_no; /* copy to at least this generation */
    bool eager_promotion; /* promote to evac_gen_no rather than fail */
    bool failed_to_evac;  /* the object being scavenged still points young */
    bool mark_statics;    /* a major GC: static closures reached are marked */
    bool nm_grey;         /* pointers into nonmoving segments are marked (nm_segments_marked) */
    bool nm_fwd; /* pointers to duplicated nonmoving objects are redirected (nm_forwarding) */
    uint32_t selector_depth; /* nested selector thunks being evaluated */
    bdescr *scan_bd;         /* block being scavenged, or NULL */
    uint64_t copied_words;   /* words copied in this GC (counted per to-space block) */
    uint64_t any_work, scav_find_work;
    uint64_t cards_scanned; /* card-marked array cards scanned in this GC */

    /* Parallel collections (gc_par.c). */
    GcSpinLock todo_lock; /* guards every workspace's todo_q and todo_large */
    uint32_t n_todo;      /* blocks and large objects on them (read racily by thieves) */
    bdescr *spare_blocks; /* single blocks taken from the allocator in a batch */
    uint32_t n_spare_blocks;
    const StgClosure *last_static; /* Note [CAFs and SRTs]: the last static closure marked */
    uint64_t copied_this_gc;       /* words copied by this thread, for the work balance */
    uint64_t busy_ns;              /* per collection: time spent working (not waiting) */
    /* Counters over the run (--internal-counters). */
    uint64_t copy_races;          /* forwarding CAS lost: another thread copied the object first */
    uint64_t steals;              /* blocks or large objects taken from another thread */
    uint64_t alloc_block_batches; /* trips to the block allocator for to-space */
    uint64_t idle_spins, idle_yields; /* looking for work to steal */
    uint64_t par_collections;         /* parallel collections taken part in */
    uint64_t total_copied_words;
    uint64_t total_busy_ns;
    uint64_t max_n_todo;                  /* the longest the queues grew */
    gen_workspace ws[GC_MAX_GENERATIONS]; /* [n_generations] in use */
} gc_thread;

/*
 * The collector's state is passed explicitly, as `gct`, to every function
 * of a collection (STYLE.md: no hidden globals on hot paths): each GC
 * thread of the parallel collector has its own. In a register it costs
 * nothing; a global pointer would have to be reloaded after every store
 * under -fno-strict-aliasing.
 */

/* Retire ws->todo_bd and start a fresh block with room for `size` words. */
StgPtr gc_todo_block_full(gc_thread *gct, gen_workspace *ws, StgWord size);

/* The spin lock (gc_par.c): the fast path is one atomic exchange. */
void gc_spin_lock_slow(GcSpinLock *l);
RTS_INLINE void gc_spin_lock(GcSpinLock *l)
{
    if (RTS_UNLIKELY(__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE)))
        gc_spin_lock_slow(l);
}
RTS_INLINE void gc_spin_unlock(GcSpinLock *l)
{
    __atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

/* A slot from the workspace's slot runs; the policy opens the next run when one is used up. */
RTS_INLINE StgPtr gc_alloc_slot(gc_thread *gct, gen_workspace *ws, StgWord size)
{
    SlotRun *r = &ws->runs[ws->run_of_size[size]];
    StgPtr to = r->bump;
    if (RTS_UNLIKELY(to == r->lim))
        return gc_todo_block_full(gct, ws, size);
    r->bump = to + r->step;
    *r->mark++ = ws->run_mark;
    gct->copied_words += size;
#ifdef DEBUG
    /* The words the object does not use are zero (nothing reads them; a debugger does). */
    for (StgWord i = size; i < r->step; i++)
        to[i] = 0;
#endif
    return to;
}

RTS_INLINE StgPtr gc_alloc_for_copy(gc_thread *gct, StgWord size, uint32_t gen_no)
{
    gen_workspace *ws = &gct->ws[gen_no];
    StgPtr to = ws->todo_free;
    if (RTS_UNLIKELY(to + size > ws->todo_lim)) {
        if (ws->runs)
            return gc_alloc_slot(gct, ws, size);
        to = gc_todo_block_full(gct, ws, size);
    }
    ws->todo_free = to + size;
    __builtin_prefetch(to + 64, 1); /* the to-space line after next: its store misses overlap */
    return to;
}

#endif /* RTS_SM_GC_THREAD_H */
