/*
 * Put and get: shmem_putmem / shmem_getmem, the sized and the typed forms.
 *
 * Every call checks that the job is running, that the PE exists and that
 * the symmetric range lies in the symmetric heap (a few compares), then
 * copies: straight to or from the other PE's heap when this process maps
 * it (the local backend), else through the backend (MPI). A put returns
 * when the source may be reused; shmem_quiet or a barrier makes it
 * visible to its PE.
 */
#include <string.h>

#include "Rts.h"
#include "messages.h"
#include "shmem.h"
#include "shmem/shmem_internal.h"

/* What every put and get checks first; the bytes to copy (0: nothing to do). */
static size_t rma_bytes(const char *call, size_t nelems, size_t elem, int pe)
{
    if (RTS_UNLIKELY(shmem_job.state != SHMEM_RUNNING))
        shmem_require_running(call);
    shmem_check_pe(call, pe);
    if (RTS_UNLIKELY(nelems > SIZE_MAX / elem))
        shmem_fail(call, "%zu elements of %zu bytes overflow the address space", nelems, elem);
    return nelems * elem;
}

static void put_bytes(const char *call, void *dest, const void *src, size_t nelems, size_t elem,
                      int pe)
{
    ShmemJob *j = &shmem_job;
    size_t bytes = rma_bytes(call, nelems, elem, pe);
    if (bytes == 0)
        return;
    uint64_t off = shmem_sym_offset(call, "dest", dest, bytes);
    if (j->peer)
        memcpy(j->peer[pe] + off, src, bytes);
    else if (pe == j->me)
        memcpy(dest, src, bytes);
    else
        j->backend->put(off, src, bytes, pe);
}

static void get_bytes(const char *call, void *dest, const void *src, size_t nelems, size_t elem,
                      int pe)
{
    ShmemJob *j = &shmem_job;
    size_t bytes = rma_bytes(call, nelems, elem, pe);
    if (bytes == 0)
        return;
    uint64_t off = shmem_sym_offset(call, "source", src, bytes);
    if (j->peer)
        memcpy(dest, j->peer[pe] + off, bytes);
    else if (pe == j->me)
        memcpy(dest, src, bytes);
    else
        j->backend->get(dest, off, bytes, pe);
}

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    put_bytes("shmem_putmem", dest, source, nelems, 1, pe);
}

void shmem_getmem(void *dest, const void *source, size_t nelems, int pe)
{
    get_bytes("shmem_getmem", dest, source, nelems, 1, pe);
}

#define SIZED_RMA(BITS)                                                         \
    void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe) \
    {                                                                           \
        put_bytes("shmem_put" #BITS, dest, source, nelems, BITS / 8, pe);       \
    }                                                                           \
    void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe) \
    {                                                                           \
        get_bytes("shmem_get" #BITS, dest, source, nelems, BITS / 8, pe);       \
    }
SIZED_RMA(8)
SIZED_RMA(16)
SIZED_RMA(32)
SIZED_RMA(64)
SIZED_RMA(128)

#define TYPED_RMA(NAME, TYPE)                                                      \
    void shmem_##NAME##_put(TYPE *dest, const TYPE *source, size_t nelems, int pe) \
    {                                                                              \
        put_bytes("shmem_" #NAME "_put", dest, source, nelems, sizeof(TYPE), pe);  \
    }                                                                              \
    void shmem_##NAME##_get(TYPE *dest, const TYPE *source, size_t nelems, int pe) \
    {                                                                              \
        get_bytes("shmem_" #NAME "_get", dest, source, nelems, sizeof(TYPE), pe);  \
    }                                                                              \
    void shmem_##NAME##_p(TYPE *dest, TYPE value, int pe)                          \
    {                                                                              \
        put_bytes("shmem_" #NAME "_p", dest, &value, 1, sizeof(TYPE), pe);         \
    }                                                                              \
    TYPE shmem_##NAME##_g(const TYPE *source, int pe)                              \
    {                                                                              \
        TYPE value;                                                                \
        get_bytes("shmem_" #NAME "_g", &value, source, 1, sizeof(TYPE), pe);       \
        return value;                                                              \
    }
SHMEM_STANDARD_RMA_TYPES(TYPED_RMA)
