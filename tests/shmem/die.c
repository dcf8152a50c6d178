/*
 * One PE ends badly while the others wait in a barrier (or compute): the
 * launcher must stop the others and exit non-zero naming the PE.
 *
 *     die <how> <pe>
 *
 * how: segv (killed by SIGSEGV), abort, exit3 (exit(3)), quick_exit0
 * (_exit(0) after shmem_init: no shmem_finalize), global7
 * (shmem_global_exit(7) while the others wait), busy7 (the same while the
 * others compute, outside any shmem call), noinit (exits 0 before
 * shmem_init; the others wait for it in shmem_init).
 */
#include <signal.h>
#include <unistd.h>

#include "shmem_test.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: die <how> <pe>\n");
        return 2;
    }
    const char *how = argv[1];
    int victim = atoi(argv[2]);
    if (!strcmp(how, "noinit") &&
        atoi(getenv("HSRTS_SHMEM_PE") ? getenv("HSRTS_SHMEM_PE") : "0") == victim)
        return 0;
    shmem_init();
    int me = shmem_my_pe();
    shmem_barrier_all();
    if (me == victim) {
        usleep(100000); /* let the others settle into the barrier */
        if (!strcmp(how, "segv"))
            raise(SIGSEGV);
        else if (!strcmp(how, "abort"))
            abort();
        else if (!strcmp(how, "exit3"))
            exit(3);
        else if (!strcmp(how, "quick_exit0"))
            _exit(0);
        else if (!strcmp(how, "global7") || !strcmp(how, "busy7"))
            shmem_global_exit(7);
    } else if (!strcmp(how, "busy7")) {
        for (;;)
            pause(); /* never in a shmem call again: the launcher must stop it */
    }
    shmem_barrier_all();
    printf("PE %d: should not get here\n", me);
    return 0;
}
