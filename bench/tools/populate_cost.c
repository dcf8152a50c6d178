/*
 * What memory the heap grows into costs on first use, the question behind
 * os_populate (rts/os/os_mem.c) and Note [Prefaulted megablocks]:
 *
 *     make build/bench/tools/populate_cost
 *     build/bench/tools/populate_cost [MiB]        (default 128)
 *
 * For fresh anonymous memory of MiB, prints the time (ms) of each way to get
 * it ready and of the memset that then writes it, as the collector would:
 *   fault     no preparation: the memset takes every page's fault;
 *   populate  MADV_POPULATE_WRITE by another thread, as the nonmoving
 *             thread does;
 *   touch     the same, then a read of a byte a page by that thread.
 * Where a populated page's first access still traps (a hypervisor with
 * shadow page tables), populate's memset is much slower than touch's.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

enum way { FAULT, POPULATE, TOUCH };

struct job {
    char *p;
    size_t bytes;
    enum way way;
    double ms;
};

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void *prepare(void *arg)
{
    struct job *j = arg;
    double t = now_ms();
    if (j->way != FAULT && madvise(j->p, j->bytes, MADV_POPULATE_WRITE) != 0) {
        perror("populate_cost: madvise(MADV_POPULATE_WRITE)");
        exit(1);
    }
    if (j->way == TOUCH) {
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        for (size_t off = 0; off < j->bytes; off += page)
            (void)*(volatile char *)(j->p + off);
    }
    j->ms = now_ms() - t;
    return NULL;
}

int main(int argc, char *argv[])
{
    long mib = argc > 1 ? atol(argv[1]) : 128;
    if (mib <= 0 || mib > 65536) {
        fprintf(stderr, "populate_cost: MiB must be between 1 and 65536\n");
        return 2;
    }
    static const char *names[] = {"fault", "populate", "touch"};
    for (int w = FAULT; w <= TOUCH; w++) {
        struct job j = {.bytes = (size_t)mib << 20, .way = (enum way)w};
        j.p = mmap(NULL, j.bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (j.p == MAP_FAILED) {
            perror("populate_cost: mmap");
            return 1;
        }
        pthread_t t;
        pthread_create(&t, NULL, prepare, &j);
        pthread_join(t, NULL);
        double t0 = now_ms();
        memset(j.p, 1, j.bytes);
        printf("%-8s prepare %8.1f ms   then memset %8.1f ms\n", names[w], j.ms, now_ms() - t0);
        munmap(j.p, j.bytes);
    }
    return 0;
}
