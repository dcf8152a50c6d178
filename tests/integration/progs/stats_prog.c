/*
 * A program for the statistics tests (tests/integration/t_stats.sh). Every
 * RTS option is allowed. Usage: stats_prog MODE [N]
 *
 *   alloc N         allocate N two-field cells, keeping the last 1000, with
 *                   a major collection every N/4; prints "done" on stdout
 *   gcs N           N explicit collections and nothing else
 *   heap-overflow   keep everything until -M is exceeded (exit 251)
 *   stack-overflow  push root frames until -K is exceeded (exit 2)
 *   exit N          shutdownHaskellAndExit(N, 0) while holding the
 *                   capability; "fast-exit N" the same with fastExit = 1
 *   faults          a collection, major page faults, another collection;
 *                   prints the major faults it saw itself (getrusage), on
 *                   stdout, for the -S page-fault column
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "Rts.h"

static const StgInfoTable cell_info = HS_CONSTR_INFO(0, 2, 0, "test:Cell");
static const StgInfoTable nil_info = {.type = CONSTR_STATIC, .name = "test:Nil"};
static const StgClosure nil = {.info = &nil_info};

/* A cell whose tail is roots[slot]; becomes roots[slot]. */
static void cons(Capability *cap, StgClosure **roots, int slot)
{
    StgClosure *c = (StgClosure *)rts_alloc(cap, 3);
    c->info = &cell_info;
    c->payload[0] = (StgClosure *)&nil;
    c->payload[1] = roots[slot];
    roots[slot] = c;
}

static void alloc_mode(Capability *cap, StgClosure **roots, long n)
{
    long major_every = n / 4 > 0 ? n / 4 : 1;
    for (long i = 0; i < n; i++) {
        if (i % 1000 == 0)
            roots[0] = (StgClosure *)&nil;
        cons(cap, roots, 0);
        if (i % major_every == major_every - 1)
            performMajorGC();
    }
    printf("done\n");
}

static long major_faults(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_majflt;
}

/*
 * Major faults need pages that are not in memory: a file written here,
 * dropped from the page cache, then read through a mapping. On file
 * systems that cannot drop it (tmpfs) the faults stay minor and the
 * program says it saw none.
 */
static long cause_major_faults(void)
{
    const char *path = "stats_prog.faults.tmp";
    size_t len = 4 << 20;
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return 0;
    unlink(path);
    char *buf = calloc(1, 65536);
    for (size_t off = 0; off < len; off += 65536)
        if (write(fd, buf, 65536) != 65536)
            break;
    free(buf);
    fsync(fd);
    posix_fadvise(fd, 0, (off_t)len, POSIX_FADV_DONTNEED);
    long before = major_faults();
    volatile char *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
        for (size_t off = 0; off < len; off += 4096)
            (void)p[off];
        munmap((void *)p, len);
    }
    close(fd);
    return major_faults() - before;
}

int main(int argc, char *argv[])
{
    hs_init_with_rtsopts(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "";
    long n = argc > 2 ? atol(argv[2]) : 0;
    Capability *cap = rts_lock();
    StgClosure **roots = rts_push_roots(cap, 1);
    roots[0] = (StgClosure *)&nil;

    if (strcmp(mode, "alloc") == 0) {
        alloc_mode(cap, roots, n);
    } else if (strcmp(mode, "gcs") == 0) {
        for (long i = 0; i < n; i++)
            performGC();
    } else if (strcmp(mode, "heap-overflow") == 0) {
        for (;;)
            cons(cap, roots, 0);
    } else if (strcmp(mode, "stack-overflow") == 0) {
        for (;;)
            rts_push_roots(cap, 64);
    } else if (strcmp(mode, "exit") == 0 || strcmp(mode, "fast-exit") == 0) {
        printf("exiting\n");
        shutdownHaskellAndExit((int)n, mode[0] == 'f');
    } else if (strcmp(mode, "faults") == 0) {
        performGC();
        long faults = cause_major_faults();
        performGC();
        printf("major faults between the collections: %ld\n", faults);
    } else {
        fprintf(stderr, "stats_prog: unknown mode '%s'\n", mode);
        return 2;
    }
    fflush(stdout);
    rts_pop_roots(cap, roots);
    rts_unlock(cap);
    hs_exit();
    return 0;
}
