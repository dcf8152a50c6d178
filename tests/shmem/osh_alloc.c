/*
 * In the style of the public OpenSHMEM test suites' shmalloc tests: the
 * legacy interface (start_pes, _my_pe, shmalloc, shfree, <mpp/shmem.h>),
 * blocks of many sizes allocated, filled by the left neighbour with puts,
 * checked after a barrier, freed in a different order than allocated, and
 * no shmem_finalize (the library finalizes at exit).
 */
#include <mpp/shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define NBLOCKS 24

int main(void)
{
    long *blocks[NBLOCKS];
    size_t sizes[NBLOCKS];
    int me, npes, i, errors = 0;
    size_t j;

    start_pes(0);
    me = _my_pe();
    npes = _num_pes();

    for (i = 0; i < NBLOCKS; i++) {
        long *source;
        sizes[i] = ((size_t)1 << (i % 12)) + (size_t)i; /* 2 .. 2 K + 23 longs */
        blocks[i] = (long *)shmalloc(sizes[i] * sizeof(long));
        if (blocks[i] == NULL) {
            printf("osh_alloc: PE %d: shmalloc(%zu) failed (malloc_error %ld)\n", me,
                   sizes[i] * sizeof(long), malloc_error);
            return 1;
        }
        source = (long *)malloc(sizes[i] * sizeof(long));
        for (j = 0; j < sizes[i]; j++)
            source[j] = (long)me * 1000000 + (long)i * 1000 + (long)j;
        shmem_long_put(blocks[i], source, sizes[i], (me + 1) % npes);
        free(source);
    }
    shmem_barrier_all();

    for (i = 0; i < NBLOCKS; i++) {
        int from = (me + npes - 1) % npes;
        for (j = 0; j < sizes[i]; j++) {
            if (blocks[i][j] != (long)from * 1000000 + (long)i * 1000 + (long)j) {
                if (errors++ < 5)
                    printf("osh_alloc: PE %d: block %d [%zu] = %ld\n", me, i, j, blocks[i][j]);
            }
        }
    }
    /* Free the odd blocks first, then the even ones. */
    for (i = 1; i < NBLOCKS; i += 2)
        shfree(blocks[i]);
    for (i = 0; i < NBLOCKS; i += 2)
        shfree(blocks[i]);
    if (malloc_error != SHMEM_MALLOC_OK)
        errors++;

    printf("osh_alloc: PE %d: %s\n", me, errors ? "Failed" : "Passed");
    return errors ? 1 : 0;
}
