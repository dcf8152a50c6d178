/*
 * The MPI backend (libhsrts_mpi; ./configure --with-mpi): PEs are the
 * ranks of MPI_COMM_WORLD, started by mpirun, on one machine or many.
 *
 * Each rank maps its heap privately at the symmetric address and exposes
 * it as an MPI-3 RMA window. The window is locked for shared passive-target
 * access to every rank once, at start-up (MPI_Win_lock_all), and stays so:
 *  - put:     MPI_Put, then MPI_Win_flush_local (OpenSHMEM's put returns
 *             when the source buffer may be reused); a small put is
 *             copied into a ring first and not flushed (see mpi_put);
 *  - get:     MPI_Get, then MPI_Win_flush (the data must have arrived);
 *  - quiet:   MPI_Win_flush_all (every put complete at its target);
 *  - fence:   the same (MPI orders nothing weaker per target);
 *  - barrier: flush, MPI_Win_sync, MPI_Barrier, MPI_Win_sync: the syncs
 *             order this rank's own loads and stores of its window
 *             against what the others put into it, as MPI-3's memory
 *             model asks of a passive-target epoch.
 * A put to this PE's own heap is a memcpy (shmem_rma.c). shmem_ptr gives
 * NULL for other PEs: their memory cannot be loaded here.
 *
 * If the program initialised MPI itself, the backend uses it and leaves
 * MPI_Finalize to the program; otherwise it initialises and finalizes MPI.
 */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "Rts.h"
#include "messages.h"
#include "shmem/shmem_internal.h"

static MPI_Comm comm = MPI_COMM_NULL;
static MPI_Win win = MPI_WIN_NULL;
static bool we_initialised;

RTS_NORETURN static void mpi_failed(const char *call, int rc)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    msg_error("shmem: %s failed: %.*s", call, len, text);
    MPI_Abort(MPI_COMM_WORLD, EXIT_INTERNAL_ERROR);
    exit(EXIT_INTERNAL_ERROR);
}

#define MPI_CHECK(call)                       \
    do {                                      \
        int rc_ = (call);                     \
        if (RTS_UNLIKELY(rc_ != MPI_SUCCESS)) \
            mpi_failed(#call, rc_);           \
    } while (0)

static void mpi_start(ShmemJob *j)
{
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited) {
        int provided;
        MPI_CHECK(MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided));
        we_initialised = true;
    }
    MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    /* Errors come back to us as codes, and mpi_failed reports them in one line. */
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_CHECK(MPI_Comm_rank(comm, &j->me));
    MPI_CHECK(MPI_Comm_size(comm, &j->n));
}

static void mpi_map_heap(ShmemJob *j)
{
    void *p = mmap((void *)j->base, j->heap_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p != (void *)j->base) {
        msg_sys_error("shmem_init: cannot map the symmetric heap");
        MPI_Abort(MPI_COMM_WORLD, EXIT_INTERNAL_ERROR);
    }
    j->peer = NULL;
    /*
     * A job of one rank reaches nothing remote (its puts to itself are
     * memcpy), and Open MPI 4.1's default one-sided component fails to
     * create a window in a single-rank job: so it has none.
     */
    if (j->n == 1)
        return;
    MPI_CHECK(MPI_Win_create(p, (MPI_Aint)j->heap_bytes, 1, MPI_INFO_NULL, comm, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
}

/*
 * Small puts are copied into a ring and left in flight: OpenSHMEM's put
 * returns when its source may be reused, and MPI_Put may read its origin
 * buffer until a flush, so without the ring every small put would wait for
 * a flush. The ring is reused after a flush: quiet's, or a local one when
 * it fills up.
 */
#define RING_BYTES ((size_t)1 << 20)
#define RING_PUT   ((size_t)4096) /* puts up to this size go through the ring */
static uint8_t ring[RING_BYTES] __attribute__((aligned(64)));
static size_t ring_used;

static void mpi_quiet(void)
{
    if (win != MPI_WIN_NULL)
        MPI_CHECK(MPI_Win_flush_all(win));
    ring_used = 0;
}

static void mpi_barrier(void)
{
    if (win != MPI_WIN_NULL)
        MPI_CHECK(MPI_Win_sync(win));
    MPI_CHECK(MPI_Barrier(comm));
    if (win != MPI_WIN_NULL)
        MPI_CHECK(MPI_Win_sync(win));
}

static void mpi_allgather(const void *mine, void *all, size_t bytes)
{
    MPI_CHECK(MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, comm));
}

/* MPI counts are ints: copy in pieces of at most 1 GiB. */
#define PIECE ((size_t)1 << 30)

static void mpi_put(uint64_t off, const void *src, size_t bytes, int pe)
{
    if (bytes <= RING_PUT) {
        if (ring_used + bytes > RING_BYTES) {
            MPI_CHECK(MPI_Win_flush_local_all(win));
            ring_used = 0;
        }
        uint8_t *copy = ring + ring_used;
        memcpy(copy, src, bytes);
        ring_used += (bytes + 63) & ~(size_t)63;
        MPI_CHECK(
            MPI_Put(copy, (int)bytes, MPI_BYTE, pe, (MPI_Aint)off, (int)bytes, MPI_BYTE, win));
        return;
    }
    for (size_t done = 0; done < bytes; done += PIECE) {
        int n = (int)(bytes - done < PIECE ? bytes - done : PIECE);
        MPI_CHECK(MPI_Put((const char *)src + done, n, MPI_BYTE, pe, (MPI_Aint)(off + done), n,
                          MPI_BYTE, win));
    }
    MPI_CHECK(MPI_Win_flush_local(pe, win));
}

static void mpi_get(void *dst, uint64_t off, size_t bytes, int pe)
{
    for (size_t done = 0; done < bytes; done += PIECE) {
        int n = (int)(bytes - done < PIECE ? bytes - done : PIECE);
        MPI_CHECK(
            MPI_Get((char *)dst + done, n, MPI_BYTE, pe, (MPI_Aint)(off + done), n, MPI_BYTE, win));
    }
    MPI_CHECK(MPI_Win_flush(pe, win));
}

RTS_NORETURN static void mpi_global_exit(int status)
{
    shmem_job.state = SHMEM_LEAVING;
    fflush(NULL);
    MPI_Abort(MPI_COMM_WORLD, status);
    exit(status);
}

/* Every rank stops together: the message (from rank 0) is out before anyone exits. */
RTS_NORETURN static void mpi_exit_all(int status)
{
    shmem_job.state = SHMEM_LEAVING;
    fflush(NULL);
    MPI_Barrier(comm);
    if (win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(win);
        MPI_Win_free(&win);
    }
    if (we_initialised)
        MPI_Finalize();
    exit(status);
}

static void mpi_finish(ShmemJob *j)
{
    if (win != MPI_WIN_NULL) {
        MPI_CHECK(MPI_Win_unlock_all(win));
        MPI_CHECK(MPI_Win_free(&win));
    }
    MPI_CHECK(MPI_Comm_free(&comm));
    if (we_initialised)
        MPI_Finalize();
    j->peer = NULL;
}

static void mpi_abandon(int status)
{
    (void)status; /* mpirun sees a rank exit without MPI_Finalize and stops the job */
}

static const ShmemBackend mpi_backend = {
    .name = "mpi",
    .start = mpi_start,
    .map_heap = mpi_map_heap,
    .barrier = mpi_barrier,
    .allgather = mpi_allgather,
    .put = mpi_put,
    .get = mpi_get,
    .quiet = mpi_quiet,
    .fence = mpi_quiet,
    .global_exit = mpi_global_exit,
    .exit_all = mpi_exit_all,
    .finish = mpi_finish,
    .abandon = mpi_abandon,
};

const ShmemBackend *shmem_backend_default(void)
{
    return &mpi_backend;
}
