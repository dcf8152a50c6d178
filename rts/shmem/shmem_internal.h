/*
 * The symmetric heap's job state and the interface its backends implement.
 * Internal to rts/shmem (and tools/hsrts-shmemrun.c, which includes only
 * shmem_local.h and shmem_env.h).
 *
 * One job per process, set up by shmem_init and torn down by
 * shmem_finalize (or at exit). OpenSHMEM's default thread level is
 * SHMEM_THREAD_SINGLE: no lock guards any of this.
 */
#ifndef RTS_SHMEM_SHMEM_INTERNAL_H
#define RTS_SHMEM_SHMEM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rts/Config.h"
#include "shmem/shmem_heap.h"

/* The largest record one PE contributes to an allgather. */
#define SHMEM_GATHER_MAX 64

typedef struct ShmemBackend ShmemBackend;

typedef enum {
    SHMEM_UNINIT = 0, /* before shmem_init */
    SHMEM_RUNNING,    /* between shmem_init and shmem_finalize */
    SHMEM_FINALIZED,  /* after shmem_finalize: no call may follow */
    SHMEM_LEAVING,    /* exiting on a global exit or a fatal error: do nothing more */
} ShmemState;

/*
 * Invariants while RUNNING: 0 <= me < n; the heap's bytes are
 * [base, base + heap_bytes) at the same base in every PE; peer is NULL or
 * peer[pe] is where PE pe's heap is mapped in this process (peer[me] == base).
 */
typedef struct {
    ShmemState state;
    const ShmemBackend *backend;
    int me, n;
    uintptr_t base;
    uint64_t heap_bytes;
    uint64_t claim_bytes; /* heap_bytes rounded up to megablocks: the claimed range */
    uint8_t **peer;
    bool debug; /* SHMEM_DEBUG=1: compare every memory call's arguments across PEs */
    ShmemHeap heap;
} ShmemJob;

extern ShmemJob shmem_job;

/*
 * A backend: how PEs find each other, synchronise and reach each other's
 * heaps. The core (shmem_core.c, shmem_alloc.c, shmem_rma.c) is the same
 * for all; put and get go straight to memory when peer is set and only
 * call the backend otherwise.
 */
struct ShmemBackend {
    const char *name;
    /* Join the job: set me and n. barrier and allgather work from here on. */
    void (*start)(ShmemJob *j);
    /*
     * [base, base + claim_bytes) is reserved (inaccessible) in this
     * process: make its first heap_bytes this PE's heap, and set peer if
     * the other PEs' heaps can be mapped here.
     */
    void (*map_heap)(ShmemJob *j);
    void (*barrier)(void);
    /* Every PE contributes `bytes` (<= SHMEM_GATHER_MAX); all[pe * bytes ...] on return. */
    void (*allgather)(const void *mine, void *all, size_t bytes);
    /* Copy to / from PE pe's heap at offset off (only when peer is NULL). */
    void (*put)(uint64_t off, const void *src, size_t bytes, int pe);
    void (*get)(void *dst, uint64_t off, size_t bytes, int pe);
    void (*quiet)(void);
    void (*fence)(void);
    /* This PE ends the whole job with `status` (shmem_global_exit). */
    RTS_NORETURN void (*global_exit)(int status);
    /* Every PE calls it with the same status: the job stops after a collective error. */
    RTS_NORETURN void (*exit_all)(int status);
    /* After the last barrier of shmem_finalize: unmap, leave the job. */
    void (*finish)(ShmemJob *j);
    /* The process is exiting with a non-zero status without shmem_finalize. */
    void (*abandon)(int status);
};

/* The backend this library was built with (shmem_backend_default.c or mpi/shmem_mpi.c). */
const ShmemBackend *shmem_backend_default(void);
extern const ShmemBackend shmem_local_backend;

/* Fail if the job is not running: "<prog>: <call>: called before shmem_init" etc. */
void shmem_require_running(const char *call);

/* This PE misused the API: "<prog>: <call>: <what>", then the job stops with status 1. */
RTS_NORETURN void shmem_fail(const char *call, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Every PE found the same error (they all call this with the same
 * arguments): PE 0 prints "<prog>: <call>: <what>", the job stops with
 * `status`.
 */
RTS_NORETURN void shmem_fail_all(int status, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The symmetric heap's bytes at [addr, addr+bytes) as an offset; fails the call if outside. */
uint64_t shmem_sym_offset(const char *call, const char *what, const void *addr, size_t bytes);
/* Fail the call unless 0 <= pe < n. */
void shmem_check_pe(const char *call, int pe);

/*
 * Debug mode: check that every PE is making this barrier call too, not
 * some other collective call (shmem_alloc.c).
 */
void shmem_debug_check_barrier(const char *call);

#endif /* RTS_SHMEM_SHMEM_INTERNAL_H */
