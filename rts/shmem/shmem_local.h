/*
 * The local backend's shared control area: what the launcher
 * (tools/hsrts-shmemrun.c) and the PEs it starts share, in the first
 * pages of one memfd. The PEs' heaps follow it in the same file:
 *
 *     [control area: shmem_local_ctrl_bytes(n)] [PE 0's heap] [PE 1's heap] ...
 *
 * The launcher creates the file with the control area, and passes it to
 * each PE as HSRTS_SHMEM_FD, with HSRTS_SHMEM_PE and HSRTS_SHMEM_NPES.
 * See Note [The local barrier] in shmem_local.c.
 */
#ifndef RTS_SHMEM_SHMEM_LOCAL_H
#define RTS_SHMEM_SHMEM_LOCAL_H

#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SHMEM_LOCAL_MAGIC   0x6c6f63686d656d73ull /* "smemhcol" */
#define SHMEM_LOCAL_MAX_PES 4096
#define SHMEM_LOCAL_PAGE    4096
#define SHMEM_LOCAL_GATHER  64 /* == SHMEM_GATHER_MAX */

/* What a PE is doing, as the launcher needs to know it. */
enum {
    SHMEM_PE_STARTED = 0, /* running, shmem_init not done */
    SHMEM_PE_RUNNING,     /* between shmem_init and shmem_finalize */
    SHMEM_PE_FINALIZED,   /* shmem_finalize done: may exit */
    SHMEM_PE_GONE,        /* exited without shmem_finalize (set by the launcher) */
};

/* ctrl->stop: why every PE must stop now. */
#define SHMEM_STOP_GLOBAL_EXIT 1u /* exit_status says with what */
#define SHMEM_STOP_PE_GONE     2u /* some PE is SHMEM_PE_GONE */

typedef struct {
    _Atomic uint32_t state;
    uint32_t pad_[15]; /* a cache line of its own */
    /* Allgather records, double-buffered: see shmem_local.c. */
    uint8_t gather[2][SHMEM_LOCAL_GATHER];
} ShmemLocalPe;

/*
 * Invariants: magic and n_pes are written by the launcher before any PE
 * starts and never change; bar_count < n_pes between barriers; bar_gen
 * only grows; stop only gains bits.
 */
typedef struct {
    uint64_t magic;
    uint32_t n_pes;
    uint32_t pad0_[13];
    _Atomic uint32_t bar_count; /* PEs arrived at the current barrier */
    uint32_t pad1_[15];
    _Atomic uint32_t bar_gen;      /* barriers completed: the futex word */
    _Atomic uint32_t sleepers;     /* PEs asleep (or about to be) on bar_gen */
    _Atomic uint32_t stop;         /* SHMEM_STOP_* bits */
    _Atomic int32_t exit_status;   /* valid once stop has SHMEM_STOP_GLOBAL_EXIT */
    _Atomic uint32_t exit_claimed; /* a PE is setting exit_status */
    _Atomic uint32_t reported;     /* someone has printed why the job stops */
    uint32_t pad2_[10];
    ShmemLocalPe pe[];
} ShmemLocalCtrl;

static inline uint64_t shmem_local_ctrl_bytes(uint32_t n_pes)
{
    uint64_t b = sizeof(ShmemLocalCtrl) + (uint64_t)n_pes * sizeof(ShmemLocalPe);
    return (b + SHMEM_LOCAL_PAGE - 1) & ~(uint64_t)(SHMEM_LOCAL_PAGE - 1);
}

/*
 * Wake every PE waiting in a barrier (they re-check stop and the PE
 * states). Not FUTEX_PRIVATE: the word is shared between processes.
 */
static inline void shmem_local_wake_all(ShmemLocalCtrl *c)
{
    syscall(SYS_futex, &c->bar_gen, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

#endif /* RTS_SHMEM_SHMEM_LOCAL_H */
