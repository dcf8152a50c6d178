/*
 * PEs that pass different arguments to a collective call, for the debug
 * mode (SHMEM_DEBUG=1) to catch: the job stops with status 1 and one line
 * saying what each PE passed.
 *
 *     mismatch <case>
 *
 * Cases: size (the last PE asks for a different size), align, realloc
 * (different sizes), free (the last PE frees another block), call (PE 0
 * frees while the others allocate), barrier (the last PE is in a barrier
 * while the others allocate), private (everyone frees its own malloc(3)
 * block: different addresses).
 */
#include "shmem_test.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: mismatch <case>\n");
        return 2;
    }
    const char *c = argv[1];
    shmem_init();
    int me = shmem_my_pe(), last = shmem_n_pes() - 1;
    char *a = shmem_malloc(64), *b = shmem_malloc(128);
    printf("PE %d: reached the call\n", me);
    fflush(stdout);
    if (!strcmp(c, "size"))
        shmem_malloc(me == last ? 200 : 100);
    else if (!strcmp(c, "align"))
        shmem_align(me == last ? 128 : 64, 100);
    else if (!strcmp(c, "realloc"))
        shmem_realloc(a, me == last ? 300 : 100);
    else if (!strcmp(c, "free"))
        shmem_free(me == last ? b : a);
    else if (!strcmp(c, "call"))
        me == 0 ? shmem_free(a) : (void)shmem_malloc(64);
    else if (!strcmp(c, "barrier"))
        me == last ? shmem_barrier_all() : (void)shmem_malloc(64);
    else if (!strcmp(c, "private"))
        shmem_free(malloc(16));
    else
        return 2;
    printf("PE %d: passed the call\n", me);
    return 0;
}
