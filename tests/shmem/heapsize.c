/*
 * SHMEM_SYMMETRIC_HEAP_SIZE (or SHMEM_SYMMETRIC_SIZE) is honoured exactly:
 * on an empty heap one block of the whole size fits, one byte more is
 * SHMEM_MALLOC_BAD_SIZE, and a full heap gives NULL with
 * SHMEM_MALLOC_FAIL, not a crash.
 *
 *     heapsize <expected heap bytes>
 */
#include <stdint.h>

#include "shmem_test.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: heapsize <expected heap bytes>\n");
        return 2;
    }
    size_t heap = strtoull(argv[1], NULL, 0);
    shmem_init();
    test_start("heapsize");

    char *all = shmem_malloc(heap);
    CHECK(all != NULL && malloc_error == SHMEM_MALLOC_OK, "the whole heap (%zu bytes): %ld", heap,
          malloc_error);
    if (all) {
        /* Both ends of it are really there (writing all of a large heap would be slow). */
        size_t edge = heap < (64 << 10) ? heap : (64 << 10);
        memset(all, 0x5a, edge);
        memset(all + heap - edge, 0xa5, edge);
        CHECK(shmem_addr_accessible(all + heap - 1, shmem_my_pe()), "its last byte");
        CHECK(!shmem_addr_accessible(all + heap, shmem_my_pe()), "the byte after the heap");
    }
    CHECK(shmem_malloc(16) == NULL && malloc_error == SHMEM_MALLOC_FAIL, "full heap: %ld",
          malloc_error);
    shmem_free(all);
    CHECK(shmem_malloc(heap + 1) == NULL && malloc_error == SHMEM_MALLOC_BAD_SIZE,
          "one byte more than the heap: %ld", malloc_error);
    char *a = shmem_malloc(heap / 2), *b = shmem_malloc(heap / 2);
    CHECK(a && b && b == a + heap / 2, "two halves: %p %p", (void *)a, (void *)b);
    CHECK(shmem_align(16, 16) == NULL && malloc_error == SHMEM_MALLOC_MEMALIGN_FAILED,
          "full heap, shmem_align: %ld", malloc_error);
    shmem_free(a);
    shmem_free(b);
    return test_finish();
}
