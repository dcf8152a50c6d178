/*
 * Capabilities: the right to run code that touches the heap.
 *
 * A capability owns an allocation area (its nursery chunk), the current
 * thread's registers (HsRegs, first so generated code reaches them with a
 * cast), a remembered set per generation and a pinned-object block. An OS
 * thread holds at most one capability at a time, between rts_lock() and
 * rts_unlock(); without one it must not touch the heap.
 *
 * Locking: caps_lock (capability.c) guards the ownership fields of every
 * capability and the sync state; everything else belongs to
 * the OS thread holding the capability, or to the collector while the
 * world is stopped. A thread always gets back the capability it gave up
 * (rts_yield, rts_suspend/rts_resume, waiting on a blackhole): see the
 * capability rule in include/rts/Safepoints.h.
 */
#ifndef RTS_CAPABILITY_H
#define RTS_CAPABILITY_H

#include <pthread.h>
#include <stdbool.h>

#include "Rts.h"
#include "sm/block.h"

struct nursery_;
struct cstack_;

struct Capability_ {
    HsRegs r; /* must be first: see HS_REGS */
    uint32_t no;
    uint32_t node; /* NUMA node */

    /* Allocation. */
    struct nursery_ *nursery; /* the nursery chunk in use */
    bdescr *current_nursery;  /* the block r.hp points into */
    bdescr *pinned_block;     /* current pinned-object block, or NULL */
    bdescr *pinned_blocks;    /* full pinned blocks since the last GC */

    /* Remembered sets: mut_lists[g] for g in 1..G-1 (see sm/mut_list.h). */
    bdescr **mut_lists;

    /*
     * Roots for the runtime's own code: a pointer it must keep across an
     * allocation that has no frame to live in (pushing a frame can itself
     * collect). The collector updates them like any root.
     */
    StgClosure *scratch[2];

    /* The evaluation stack of the OS thread holding this capability (cstack.h), or NULL. */
    struct cstack_ *cstack;
    /*
     * The depth check of a nested evaluation: a stack pointer below this
     * takes the slow path. The evaluation stack's check mark while the
     * thread runs on it, the top of the address space otherwise (so that
     * the slow path switches stacks). See Note [Evaluation stacks].
     */
    char *eval_mark;

    /* Ownership: guarded by caps_lock in capability.c. */
    bool in_use;
    bool stopped; /* parked at a safepoint while the world is stopped */
    pthread_t owner;
    uint32_t n_waiting;    /* threads waiting for this one (rts_resume, rts_yield) */
    uint64_t acquisitions; /* times taken, so a yielding thread sees another had a turn */
};

/* Capabilities made (n_capabilities) and handed out (enabled_capabilities <= n_capabilities). */
extern Capability **capabilities;
extern uint32_t n_capabilities;
extern uint32_t enabled_capabilities;

#define MAX_N_CAPABILITIES 4096 /* as -N's bound (flags_table.c) */

void cap_init(void);
void cap_exit(void);

/* The capability the calling OS thread holds, or NULL. */
Capability *cap_mine(void);

/*
 * `call` was made with `cap` by a thread that does not hold it (or before
 * hs_init): one line naming the call, exit 1.
 */
RTS_NORETURN void cap_misuse(const char *call, const Capability *cap);

/*
 * Stopping the world for a collection (Note [Stopping the world] in
 * capability.c). cap_stop_the_world: the calling thread holds `leader`;
 * true when every other capability is stopped or free (then the caller
 * collects and calls cap_restart_the_world), false when another thread
 * was already stopping it (the caller was parked meanwhile, and someone
 * else collected). *sync_ns: how long the stopping took.
 */
bool cap_stop_the_world(Capability *leader, int64_t *sync_ns);
void cap_restart_the_world(Capability *leader);
/* A safepoint: park here if the world is being stopped. */
void cap_safepoint(Capability *cap);
/* The owner just stored a new hplim: see whether a stop request raced with it. */
void cap_safepoint_after_refill(Capability *cap);
bool cap_sync_pending(void);
/* Is no capability in use? *activity counts acquisitions, so the idle timer sees a busy spell. */
bool cap_world_is_idle(uint64_t *activity);
/*
 * The idle timer's rts_lock: a capability if every one is still free and
 * nobody has taken one since `activity_seen`; NULL (without waiting) if not.
 */
Capability *cap_lock_if_idle(uint64_t activity_seen);

/* The storage manager's part of setNumCapabilities (sm/storage.c), with the world stopped. */
void sm_add_capabilities(uint32_t from, uint32_t to);

/* Check a capability's invariants (debug and sanity). */
void cap_check(const Capability *cap);
/* Threads waiting in rts_lock for any capability (tests). */
uint32_t cap_n_waiting_any(void);

#endif /* RTS_CAPABILITY_H */
