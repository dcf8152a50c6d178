/*
 * In the style of the public OpenSHMEM test suites' shrealloc tests: a
 * block grows and shrinks across loops (8 longs to 64 K longs and back,
 * twice); after each shmem_realloc every PE has it at the same address
 * (each PE sends its pointer to its right neighbour to compare) and the
 * part the old and new sizes share still holds what the left neighbour
 * put there. A second block in between keeps realloc from always growing
 * in place.
 */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), errors = 0;
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    uint64_t *theirs = shmem_malloc(sizeof(uint64_t));
    size_t n = 8, round = 0;
    long *a = shmem_malloc(n * sizeof(long));

    for (int step = 0; step < 48; step++, round++) {
        /* The left neighbour fills our block. */
        long *src = malloc(n * sizeof(long));
        for (size_t j = 0; j < n; j++)
            src[j] = (long)me * 100000000L + (long)round * 100000L + (long)j;
        shmem_long_put(a, src, n, right);
        free(src);
        long *spacer = (step % 3 == 0) ? shmem_malloc(64) : NULL;
        shmem_barrier_all();

        size_t next = (step / 12) % 2 == 0 ? n * 2 : n / 2; /* 12 doublings, then 12 halvings */
        a = shmem_realloc(a, next * sizeof(long));
        if (!a) {
            printf("osh_realloc: PE %d: shmem_realloc to %zu longs failed (%ld)\n", me, next,
                   malloc_error);
            return 1;
        }
        size_t keep = next < n ? next : n;
        for (size_t j = 0; j < keep; j++)
            if (a[j] != (long)left * 100000000L + (long)round * 100000L + (long)j && errors++ < 5)
                printf("osh_realloc: PE %d: step %d [%zu] = %ld\n", me, step, j, a[j]);
        shmem_uint64_p(theirs, (uint64_t)(uintptr_t)a, right);
        shmem_barrier_all();
        if (*theirs != (uint64_t)(uintptr_t)a && errors++ < 5)
            printf("osh_realloc: PE %d: step %d: PE %d has the block at 0x%llx, I at %p\n", me,
                   step, left, (unsigned long long)*theirs, (void *)a);
        shmem_barrier_all();
        shmem_free(spacer);
        n = next;
    }
    shmem_free(a);
    shmem_free(theirs);
    printf("osh_realloc: PE %d: %s\n", me, errors ? "Failed" : "Passed");
    shmem_finalize();
    return errors ? 1 : 0;
}
