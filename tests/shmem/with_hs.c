/*
 * hsrts's collected heap and the symmetric heap in one program, on every
 * PE, started in either order: symmetric blocks are not in the collected
 * heap (rts_is_heap_alloced), and what the left neighbour put into one
 * survives many collections of a heap full of garbage.
 *
 *     with_hs hs-first|shmem-first [+RTS ... -RTS]
 */
#include <Rts.h>

#include "shmem_test.h"

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "hs-first") && strcmp(argv[1], "shmem-first"))) {
        fprintf(stderr, "usage: with_hs hs-first|shmem-first [+RTS ... -RTS]\n");
        return 2;
    }
    int hs_first = !strcmp(argv[1], "hs-first");
    if (hs_first)
        hs_init_with_rtsopts(&argc, &argv);
    shmem_init();
    if (!hs_first)
        hs_init_with_rtsopts(&argc, &argv);
    test_start("with_hs");
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;

    const size_t len = 64 << 10;
    unsigned char *sym = shmem_malloc(len), *src = malloc(len);
    CHECK(sym && !rts_is_heap_alloced(sym) && !rts_is_heap_alloced(sym + len - 1),
          "the symmetric block %p is in the collected heap", (void *)sym);
    for (size_t i = 0; i < len; i++)
        src[i] = test_byte(5, me, i);
    shmem_putmem(sym, src, len, right);

    /* About 50 MB of garbage: many minor collections, then a major one. */
    Capability *cap = rts_lock();
    StgArrBytes *last = NULL;
    for (int i = 0; i < 100000; i++)
        last = rts_new_byte_array(cap, 512);
    CHECK(rts_is_heap_alloced(last), "a byte array is not in the collected heap");
    rts_unlock(cap);
    performMajorGC();

    shmem_barrier_all();
    size_t bad = 0;
    for (size_t i = 0; i < len; i++)
        bad += sym[i] != test_byte(5, left, i);
    CHECK(bad == 0, "%zu symmetric bytes changed across the collections", bad);
    shmem_free(sym);
    free(src);
    if (hs_first) {
        shmem_finalize();
        hs_exit();
    } else {
        hs_exit();
        shmem_finalize();
    }
    return test_finish();
}
