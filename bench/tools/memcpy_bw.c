/*
 * The machine's memcpy bandwidth, so that a collector's copy rate (bytes
 * copied per GC second) can be read against what the memory system allows:
 *
 *     memcpy_bw [MiB]        (default 256)
 *
 * Copies one buffer of MiB into another ten times and prints the best rate
 * as "memcpy_gbps <GB/s>" (10^9 bytes per second, counting the bytes copied
 * once, as the collectors count "bytes copied"). Both buffers are touched
 * first, so page faults are not measured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char *argv[])
{
    long mib = argc > 1 ? atol(argv[1]) : 256;
    if (mib <= 0 || mib > 65536) {
        fprintf(stderr, "memcpy_bw: MiB must be between 1 and 65536\n");
        return 2;
    }
    size_t n = (size_t)mib << 20;
    char *src = malloc(n), *dst = malloc(n);
    if (!src || !dst) {
        fprintf(stderr, "memcpy_bw: cannot allocate 2 x %ld MiB\n", mib);
        return 2;
    }
    memset(src, 1, n);
    memset(dst, 2, n);
    double best = 1e30;
    for (int i = 0; i < 10; i++) {
        double t = now();
        memcpy(dst, src, n);
        t = now() - t;
        if (t < best)
            best = t;
        src[i] = dst[n - 1 - (size_t)i]; /* keeps the copies observable */
    }
    printf("memcpy_gbps %.2f\n", (double)n / best / 1e9);
    free(src);
    free(dst);
    return 0;
}
