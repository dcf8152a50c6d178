/*
 * hsrts's OpenSHMEM: the symmetric heap and the calls that reach it.
 *
 * A subset of OpenSHMEM 1.5 (the memory-management calls, job set-up,
 * barriers, ordering, and put/get), plus the legacy SGI/Cray names. A
 * program runs as several processing elements (PEs): processes on one
 * machine started by `hsrts-shmemrun -np <n> prog args...` (the local
 * backend, libhsrts), or MPI ranks started by `mpirun` (libhsrts_mpi).
 * Run on its own, a program is a job of one PE. rts/shmem/README.md
 * describes the implementation; every call below that takes a symmetric
 * address accepts only addresses in the symmetric heap (blocks from
 * shmem_malloc and friends): static and global variables are not
 * symmetric here.
 *
 * The memory calls are collective: every PE calls them in the same order
 * with the same arguments, and each ends in shmem_barrier_all, so a block
 * has the same address on every PE and is usable everywhere on return.
 * With SHMEM_DEBUG=1 every PE checks that the others passed the same
 * arguments and the job stops with a message naming what each PE passed.
 * The heap's size is fixed at start-up by SHMEM_SYMMETRIC_HEAP_SIZE (or
 * SHMEM_SYMMETRIC_SIZE), in bytes with an optional k, M or G suffix
 * (default 256M).
 */
#ifndef HSRTS_SHMEM_H
#define HSRTS_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#include "rts/Config.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SHMEM_MAJOR_VERSION  1
#define SHMEM_MINOR_VERSION  5
#define SHMEM_MAX_NAME_LEN   256
#define SHMEM_VENDOR_STRING  "hsrts"
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN  SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

/*
 * malloc_error after a memory call: SHMEM_MALLOC_OK when it succeeded (a
 * size of 0 is not an error: the call returns NULL and leaves OK), else
 * why it failed. The values are those of the OpenSHMEM reference
 * implementation's mpp/shmem.h.
 */
#define SHMEM_MALLOC_OK                (0L)
#define SHMEM_MALLOC_BAD_SIZE          (-1L)  /* larger than the whole symmetric heap */
#define SHMEM_MALLOC_FAIL              (-2L)  /* shmem_malloc: no free space large enough */
#define SHMEM_MALLOC_NOT_IN_SYMM_HEAP  (-3L)  /* not a block of the symmetric heap */
#define SHMEM_MALLOC_ALREADY_FREE      (-4L)  /* in free space: freed already */
#define SHMEM_MALLOC_NOT_ALIGNED       (-5L)  /* alignment 0 or not a power of two */
#define SHMEM_MALLOC_MEMALIGN_FAILED   (-11L) /* shmem_align: no free space large enough */
#define SHMEM_MALLOC_REALLOC_FAILED    (-12L) /* shmem_realloc: no space; block unchanged */
#define _SHMEM_MALLOC_OK               SHMEM_MALLOC_OK
#define _SHMEM_MALLOC_BAD_SIZE         SHMEM_MALLOC_BAD_SIZE
#define _SHMEM_MALLOC_FAIL             SHMEM_MALLOC_FAIL
#define _SHMEM_MALLOC_NOT_IN_SYMM_HEAP SHMEM_MALLOC_NOT_IN_SYMM_HEAP
#define _SHMEM_MALLOC_ALREADY_FREE     SHMEM_MALLOC_ALREADY_FREE
#define _SHMEM_MALLOC_NOT_ALIGNED      SHMEM_MALLOC_NOT_ALIGNED
#define _SHMEM_MALLOC_MEMALIGN_FAILED  SHMEM_MALLOC_MEMALIGN_FAILED
#define _SHMEM_MALLOC_REALLOC_FAILED   SHMEM_MALLOC_REALLOC_FAILED

extern RTS_EXPORT long malloc_error;

/* ---- the job -------------------------------------------------------------- */

/* Join the job and map the symmetric heap; collective. Called once. */
RTS_EXPORT void shmem_init(void);
/* Leave the job (collective); called implicitly when the program exits with status 0. */
RTS_EXPORT void shmem_finalize(void);
RTS_EXPORT int shmem_my_pe(void);
RTS_EXPORT int shmem_n_pes(void);
/* End every PE of the job with `status`. */
RTS_NORETURN RTS_EXPORT void shmem_global_exit(int status);
RTS_EXPORT void shmem_info_get_version(int *major, int *minor);
RTS_EXPORT void shmem_info_get_name(char *name);

/* ---- synchronisation and ordering ----------------------------------------- */

/* Wait for every PE, after completing this PE's puts (shmem_quiet). */
RTS_EXPORT void shmem_barrier_all(void);
/* Wait for every PE; outstanding puts need not be complete. */
RTS_EXPORT void shmem_sync_all(void);
/* Complete every put this PE issued. */
RTS_EXPORT void shmem_quiet(void);
/* Puts to each PE arrive in the order they were issued. */
RTS_EXPORT void shmem_fence(void);

/* ---- the symmetric heap --------------------------------------------------- */

RTS_EXPORT void *shmem_malloc(size_t size);
RTS_EXPORT void *shmem_align(size_t alignment, size_t size);
RTS_EXPORT void *shmem_realloc(void *ptr, size_t size);
RTS_EXPORT void shmem_free(void *ptr);

/* Where PE pe's copy of `dest` can be loaded and stored here, or NULL if it cannot. */
RTS_EXPORT void *shmem_ptr(const void *dest, int pe);
RTS_EXPORT int shmem_pe_accessible(int pe);
RTS_EXPORT int shmem_addr_accessible(const void *addr, int pe);

/* ---- put and get ---------------------------------------------------------- */

/* Copy nelems bytes / elements to (put) or from (get) PE pe's copy of a symmetric object. */
RTS_EXPORT void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
RTS_EXPORT void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);

/*
 * The standard RMA types of OpenSHMEM 1.5: for each TYPENAME/TYPE,
 *   void shmem_TYPENAME_put(TYPE *dest, const TYPE *source, size_t nelems, int pe);
 *   void shmem_TYPENAME_get(TYPE *dest, const TYPE *source, size_t nelems, int pe);
 *   void shmem_TYPENAME_p(TYPE *dest, TYPE value, int pe);
 *   TYPE shmem_TYPENAME_g(const TYPE *source, int pe);
 */
#define SHMEM_STANDARD_RMA_TYPES(X)  \
    X(float, float)                  \
    X(double, double)                \
    X(longdouble, long double)       \
    X(char, char)                    \
    X(schar, signed char)            \
    X(short, short)                  \
    X(int, int)                      \
    X(long, long)                    \
    X(longlong, long long)           \
    X(uchar, unsigned char)          \
    X(ushort, unsigned short)        \
    X(uint, unsigned int)            \
    X(ulong, unsigned long)          \
    X(ulonglong, unsigned long long) \
    X(int8, int8_t)                  \
    X(int16, int16_t)                \
    X(int32, int32_t)                \
    X(int64, int64_t)                \
    X(uint8, uint8_t)                \
    X(uint16, uint16_t)              \
    X(uint32, uint32_t)              \
    X(uint64, uint64_t)              \
    X(size, size_t)                  \
    X(ptrdiff, ptrdiff_t)

#define SHMEM_DECLARE_RMA_(NAME, TYPE)                                                         \
    RTS_EXPORT void shmem_##NAME##_put(TYPE *dest, const TYPE *source, size_t nelems, int pe); \
    RTS_EXPORT void shmem_##NAME##_get(TYPE *dest, const TYPE *source, size_t nelems, int pe); \
    RTS_EXPORT void shmem_##NAME##_p(TYPE *dest, TYPE value, int pe);                          \
    RTS_EXPORT TYPE shmem_##NAME##_g(const TYPE *source, int pe);
SHMEM_STANDARD_RMA_TYPES(SHMEM_DECLARE_RMA_)
#undef SHMEM_DECLARE_RMA_

/* Elements of 8, 16, 32, 64 and 128 bits. */
RTS_EXPORT void shmem_put8(void *dest, const void *source, size_t nelems, int pe);
RTS_EXPORT void shmem_put16(void *dest, const void *source, size_t nelems, int pe);
RTS_EXPORT void shmem_put32(void *dest, const void *source, size_t nelems, int pe);
RTS_EXPORT void shmem_put64(void *dest, const void *source, size_t nelems, int pe);
RTS_EXPORT void shmem_put128(void *dest, const void *source, size_t nelems, int pe);
RTS_EXPORT void shmem_get8(void *dest, const void *source, size_t nelems, int pe);
RTS_EXPORT void shmem_get16(void *dest, const void *source, size_t nelems, int pe);
RTS_EXPORT void shmem_get32(void *dest, const void *source, size_t nelems, int pe);
RTS_EXPORT void shmem_get64(void *dest, const void *source, size_t nelems, int pe);
RTS_EXPORT void shmem_get128(void *dest, const void *source, size_t nelems, int pe);

/* ---- legacy names (SGI, Cray, OpenSHMEM 1.0-1.2) -------------------------- */

/* shmem_init; npes must be 0 (or the job's size). */
RTS_EXPORT void start_pes(int npes);
RTS_EXPORT int _my_pe(void);
RTS_EXPORT int _num_pes(void);
RTS_EXPORT void *shmalloc(size_t size);
RTS_EXPORT void shfree(void *ptr);
RTS_EXPORT void *shrealloc(void *ptr, size_t size);
RTS_EXPORT void *shmemalign(size_t alignment, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* HSRTS_SHMEM_H */
