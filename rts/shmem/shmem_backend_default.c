/*
 * libhsrts's backend: local processes. The MPI variant of the library
 * (libhsrts_mpi) replaces this file with mpi/shmem_mpi.c.
 */
#include "shmem/shmem_internal.h"

const ShmemBackend *shmem_backend_default(void)
{
    return &shmem_local_backend;
}
