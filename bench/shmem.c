/*
 * The symmetric heap's benchmark (a benchmark, not a test): one plain
 * OpenSHMEM program, built against hsrts (local backend: build/bench/shmem;
 * MPI backend: build/bench/mpi/shmem) and against Open MPI's own OpenSHMEM
 * (build/bench/oshmem/shmem, with oshcc); bench/shmem_run.sh runs them side
 * by side. Only standard OpenSHMEM calls, so the same source serves all.
 *
 *     shmem churn <iterations> <live blocks>
 *         A ring of live blocks (sizes 16 B to 96 KiB from a fixed
 *         sequence); each iteration frees the oldest and allocates one:
 *         prints "churn_ns <ns per memory call>" (a call is collective and
 *         ends in a barrier), then "barrier_ns <ns per shmem_barrier_all>"
 *         for the same number of calls, the floor of a memory call.
 *     shmem bw <max bytes> <MiB per size>
 *         PE 0 puts to and gets from PE 1, messages of 8 B to <max bytes>
 *         (times 8, then 1 MiB and 4 MiB), about <MiB per size> per size,
 *         the best of 3 tries each: "put <bytes> <MB/s>", "get <bytes>
 *         <MB/s>" and "memcpy <bytes> <MB/s>" (the same copies between
 *         private buffers, for reference).
 *
 * Each mode checks what it moved (the blocks' first bytes, the bytes put
 * and got) and exits 1 on a difference; the last line is "done" (printed
 * before shmem_finalize: see bench/README.md on Open MPI's finalize).
 */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#define REPS 3

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The same pseudo-random sizes on every PE (they must pass the same arguments). */
static size_t next_size(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    size_t r = (size_t)(*s >> 33);
    size_t base = (size_t)16 << (r % 13); /* 16 B .. 64 KiB */
    return base + (r >> 4) % base / 2;
}

static int churn(int me, long iters, long live)
{
    unsigned char **ring = calloc((size_t)live, sizeof *ring);
    uint64_t seed = 42;
    for (long i = 0; i < live; i++) {
        ring[i] = shmem_malloc(next_size(&seed));
        if (!ring[i]) {
            fprintf(stderr, "shmem: shmem_malloc failed filling the ring\n");
            return 1;
        }
        ring[i][0] = (unsigned char)i;
    }
    shmem_barrier_all();
    double t = now();
    for (long i = 0; i < iters; i++) {
        long k = i % live;
        shmem_free(ring[k]);
        ring[k] = shmem_malloc(next_size(&seed));
        if (!ring[k]) {
            fprintf(stderr, "shmem: shmem_malloc failed at iteration %ld\n", i);
            return 1;
        }
        ring[k][0] = (unsigned char)(live + i);
    }
    t = now() - t;
    double b = now();
    for (long i = 0; i < 2 * iters; i++)
        shmem_barrier_all();
    b = now() - b;
    long bad = 0;
    for (long k = 0; k < live; k++) {
        /* Slot k was last written when the ring was filled, or at the last i = k mod live. */
        long last = iters > k ? live + k + live * ((iters - 1 - k) / live) : k;
        bad += ring[k][0] != (unsigned char)last;
        shmem_free(ring[k]);
    }
    if (bad) {
        fprintf(stderr, "shmem: %ld blocks lost their first byte\n", bad);
        return 1;
    }
    if (me == 0) {
        printf("churn_ns %.1f\n", t / (2.0 * (double)iters) * 1e9);
        printf("barrier_ns %.1f\n", b / (2.0 * (double)iters) * 1e9);
    }
    free(ring);
    return 0;
}

static unsigned char pattern(size_t i)
{
    return (unsigned char)(i * 7 + (i >> 10));
}

/* Keep the compiler from dropping copies whose result nobody reads. */
static void clobber(void *p)
{
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

static int bandwidth(int me, int npes, long max, long mib)
{
    if (npes < 2) {
        fprintf(stderr, "shmem: bw needs 2 PEs or more\n");
        return 1;
    }
    unsigned char *sym = shmem_malloc((size_t)max);
    unsigned char *src = malloc((size_t)max), *dst = malloc((size_t)max);
    int *status = shmem_malloc(sizeof(int));
    if (!sym || !src || !dst || !status) {
        fprintf(stderr, "shmem: cannot allocate 2 x %ld bytes\n", max);
        return 1;
    }
    for (long i = 0; i < max; i++)
        src[i] = pattern((size_t)i);
    memset(dst, 0, (size_t)max);
    memset(sym, 0, (size_t)max);
    *status = 0;
    shmem_barrier_all();
    size_t sizes[16];
    int n_sizes = 0;
    for (size_t s = 8; s <= (size_t)max && s <= (256 << 10); s *= 8)
        sizes[n_sizes++] = s;
    for (size_t s = 1 << 20; s <= (size_t)max; s *= 4)
        sizes[n_sizes++] = s;
    for (int k = 0; k < n_sizes; k++) {
        size_t size = sizes[k];
        long iters = (long)(((size_t)mib << 20) / size);
        if (iters > 200000)
            iters = 200000;
        if (iters < 10)
            iters = 10;
        /* Best of REPS for each, interleaved, against a shared machine's noise. */
        double tp = 1e30, tg = 1e30, tm = 1e30;
        for (int rep = 0; rep < REPS; rep++) {
            if (me == 0) {
                double t = now();
                for (long i = 0; i < iters; i++)
                    shmem_putmem(sym, src, size, 1);
                shmem_quiet();
                t = now() - t;
                tp = t < tp ? t : tp;
            }
            shmem_barrier_all();
            if (me == 1 && memcmp(sym, src, size) != 0)
                *status = 1, fprintf(stderr, "shmem: PE 1 did not get the %zu bytes put\n", size);
            shmem_barrier_all();
            if (me == 0) {
                double t = now();
                for (long i = 0; i < iters; i++) {
                    shmem_getmem(dst, sym, size, 1);
                    clobber(dst);
                }
                t = now() - t;
                tg = t < tg ? t : tg;
                if (memcmp(dst, src, size) != 0)
                    *status = 1, fprintf(stderr, "shmem: PE 0 got wrong bytes (%zu)\n", size);
                memset(dst, 0, size);
                t = now();
                for (long i = 0; i < iters; i++) {
                    memcpy(dst, src, size);
                    clobber(dst);
                }
                t = now() - t;
                tm = t < tm ? t : tm;
            }
            shmem_barrier_all();
        }
        if (me == 0) {
            double bytes = (double)size * (double)iters;
            printf("put %zu %.1f\n", size, bytes / tp / 1e6);
            printf("get %zu %.1f\n", size, bytes / tg / 1e6);
            printf("memcpy %zu %.1f\n", size, bytes / tm / 1e6);
        }
        shmem_barrier_all();
    }
    int bad = *status;
    shmem_barrier_all();
    shmem_free(status);
    shmem_free(sym);
    free(src);
    free(dst);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "churn") != 0 && strcmp(argv[1], "bw") != 0)) {
        fprintf(stderr, "usage: shmem churn <iterations> <live blocks>\n"
                        "       shmem bw <max bytes> <MiB per size>\n");
        return 2;
    }
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), rc;
    if (!strcmp(argv[1], "churn"))
        rc = churn(me, bench_arg(argc, argv, 2, 0, 1, 1L << 30, "iterations"),
                   bench_arg(argc, argv, 3, 0, 1, 4096, "live blocks"));
    else
        rc = bandwidth(me, npes, bench_arg(argc, argv, 2, 0, 8, 1L << 30, "max bytes"),
                       bench_arg(argc, argv, 3, 0, 1, 1 << 20, "MiB per size"));
    if (rc)
        return rc;
    if (me == 0)
        printf("done\n");
    fflush(stdout);
    shmem_finalize();
    return 0;
}
