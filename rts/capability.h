/*
 * Capabilities: the right to run code that touches the heap.
 *
 * A capability owns an allocation area (its nursery chunk), the current
 * thread's registers (HsRegs, first so generated code reaches them with a
 * cast), a remembered set per generation and a pinned-object block. An OS
 * thread holds at most one capability at a time, between rts_lock() and
 * rts_unlock(); without one it must not touch the heap.
 *
 * Locking: `lock` guards the ownership fields; everything else belongs to
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

    /* Ownership: guarded by `lock`. */
    pthread_mutex_t lock;
    pthread_cond_t released; /* broadcast whenever in_use becomes false */
    bool in_use;
    pthread_t owner;
    uint32_t n_waiting;    /* threads waiting in acquire (or rts_yield) */
    uint64_t acquisitions; /* times taken, so a yielding thread sees another had a turn */
};

extern Capability **capabilities;
extern uint32_t n_capabilities;

void cap_init(void);
void cap_exit(void);

/* The capability the calling OS thread holds, or NULL. */
Capability *cap_mine(void);

/*
 * `call` was made with `cap` by a thread that does not hold it (or before
 * hs_init): one line naming the call, exit 1.
 */
RTS_NORETURN void cap_misuse(const char *call, const Capability *cap);

/* Check a capability's invariants (debug and sanity). */
void cap_check(const Capability *cap);

#endif /* RTS_CAPABILITY_H */
