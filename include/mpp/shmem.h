/*
 * The SGI/Cray include path of OpenSHMEM (the seed's `#include
 * <mpp/shmem.h>`): the same declarations as <shmem.h>.
 */
#ifndef HSRTS_MPP_SHMEM_H
#define HSRTS_MPP_SHMEM_H

#include "../shmem.h"

#endif /* HSRTS_MPP_SHMEM_H */
