/*
 * In the style of the public OpenSHMEM test suites' shmemalign tests:
 * shmem_align with every power of two from 1 byte to 2 MiB (up to a page
 * and well beyond), a few blocks at each so they are not all at one
 * lucky place; each block is aligned, at the same address on every PE,
 * and holds what the right neighbour put into it with shmem_getmem
 * checking it back.
 */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), errors = 0;
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    uint64_t *theirs = shmem_malloc(sizeof(uint64_t));
    unsigned char src[300], back[300];

    for (size_t align = 1; align <= ((size_t)2 << 20); align *= 2) {
        void *blocks[3];
        for (int k = 0; k < 3; k++) {
            size_t size = 100 + 97 * (size_t)k;
            unsigned char *p = shmem_align(align, size);
            blocks[k] = p;
            if (!p || (uintptr_t)p % align != 0) {
                printf("osh_align: PE %d: shmem_align(%zu, %zu) = %p (%ld)\n", me, align, size,
                       (void *)p, malloc_error);
                errors++;
                continue;
            }
            for (size_t j = 0; j < size; j++)
                src[j] = (unsigned char)(me * 31 + k * 7 + j);
            shmem_putmem(p, src, size, right);
            shmem_uint64_p(theirs, (uint64_t)(uintptr_t)p, right);
            shmem_barrier_all();
            if (*theirs != (uint64_t)(uintptr_t)p && errors++ < 5)
                printf("osh_align: PE %d: align %zu: PE %d's block is at 0x%llx, mine at %p\n", me,
                       align, left, (unsigned long long)*theirs, (void *)p);
            for (size_t j = 0; j < size; j++)
                if (p[j] != (unsigned char)(left * 31 + k * 7 + j) && errors++ < 5)
                    printf("osh_align: PE %d: align %zu [%zu] = %d\n", me, align, j, p[j]);
            shmem_getmem(back, p, size, left);
            for (size_t j = 0; j < size; j++)
                if (back[j] != (unsigned char)(((left + npes - 1) % npes) * 31 + k * 7 + j) &&
                    errors++ < 5)
                    printf("osh_align: PE %d: align %zu: get [%zu] = %d\n", me, align, j, back[j]);
            shmem_barrier_all();
        }
        for (int k = 0; k < 3; k++)
            shmem_free(blocks[k]);
    }
    shmem_free(theirs);
    memset(back, 0, sizeof back);
    printf("osh_align: PE %d: %s\n", me, errors ? "Failed" : "Passed");
    shmem_finalize();
    return errors ? 1 : 0;
}
