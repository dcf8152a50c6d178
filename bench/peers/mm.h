/*
 * Memory management for the C peers of the benchmarks. Each C peer
 * is compiled once per allocator, chosen with one macro:
 *
 *   MM_MALLOC  malloc/free (glibc, or jemalloc when linked with -ljemalloc)
 *   MM_BOEHM   Boehm GC: mm_free does nothing, the collector reclaims
 *   MM_ARENA   a bump arena that never frees: the mutator's floor. Workloads
 *              whose garbage dies in bulk (a tree after its check, a list
 *              after its sum) mark the arena and release back to the mark,
 *              as a region-based program would; the others only grow.
 *
 * mm_alloc is for objects that hold pointers, mm_alloc_atomic for objects
 * that hold none (Boehm does not scan those, as its users would choose).
 * Under Boehm, mm_report prints the collector's own statistics on stderr in
 * the runner's "bench-stats:" line; with BENCH_PAUSES=<file> it also writes
 * one pause per line (seconds), for the pause-distribution plot.
 */
#ifndef BENCH_PEERS_MM_H
#define BENCH_PEERS_MM_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(MM_BOEHM)
#include <gc/gc.h>
#include <time.h>

static double mm_gc_time, mm_gc_max_pause, mm_gc_start;
static size_t mm_gc_max_live;
static unsigned long mm_gcs;
static FILE *mm_pauses;

static double mm_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/*
 * Called with the allocation lock held, so only the unsynchronized getters
 * may be used. The heap in use after a collection (heap minus free minus
 * unmapped) stands for the live data: Boehm sweeps lazily, so it is an upper
 * bound.
 */
static void mm_on_gc_event(GC_EventType e)
{
    if (e == GC_EVENT_START) {
        mm_gc_start = mm_now();
    } else if (e == GC_EVENT_END) {
        double p = mm_now() - mm_gc_start;
        mm_gc_time += p;
        if (p > mm_gc_max_pause)
            mm_gc_max_pause = p;
        mm_gcs++;
        size_t used = GC_get_heap_size() - GC_get_free_bytes();
        if (used > mm_gc_max_live)
            mm_gc_max_live = used;
        if (mm_pauses)
            fprintf(mm_pauses, "%.6f\n", p);
    }
}

static void mm_init(void)
{
    GC_INIT();
    GC_set_on_collection_event(mm_on_gc_event);
    const char *f = getenv("BENCH_PAUSES");
    if (f && *f)
        mm_pauses = fopen(f, "w");
}

static void mm_report(void)
{
    if (mm_pauses)
        fclose(mm_pauses);
    fprintf(stderr,
            "bench-stats: gcs %lu gc_s %.6f copied_bytes 0 max_live_bytes %zu max_pause_s %.6f\n",
            mm_gcs, mm_gc_time, mm_gc_max_live, mm_gc_max_pause);
}

static inline void *mm_alloc(size_t n)
{
    return GC_MALLOC(n);
}
static inline void *mm_alloc_atomic(size_t n)
{
    return GC_MALLOC_ATOMIC(n);
}
static inline void mm_free(void *p)
{
    (void)p;
}
typedef int mm_mark_t;
static inline mm_mark_t mm_mark(void)
{
    return 0;
}
static inline void mm_release(mm_mark_t m)
{
    (void)m;
}

#elif defined(MM_ARENA)
#include <sys/mman.h>

/* The reservation is address space only; pages are touched as used. */
#define MM_ARENA_BYTES ((size_t)64 << 30)
static char *mm_base, *mm_top;

static void mm_init(void)
{
    void *p = mmap(NULL, MM_ARENA_BYTES, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        perror("arena: mmap");
        exit(2);
    }
    mm_base = mm_top = p;
}

static void mm_report(void) {}

static inline void *mm_alloc(size_t n)
{
    void *p = mm_top;
    mm_top += (n + 7) & ~(size_t)7;
    if ((size_t)(mm_top - mm_base) > MM_ARENA_BYTES) {
        fprintf(stderr, "arena: out of its %zu-byte reservation\n", MM_ARENA_BYTES);
        exit(2);
    }
    return p;
}
static inline void *mm_alloc_atomic(size_t n)
{
    return mm_alloc(n);
}
static inline void mm_free(void *p)
{
    (void)p;
}
typedef char *mm_mark_t;
static inline mm_mark_t mm_mark(void)
{
    return mm_top;
}
static inline void mm_release(mm_mark_t m)
{
    mm_top = m;
}

#elif defined(MM_MALLOC)
static void mm_init(void) {}
static void mm_report(void) {}

static inline void *mm_alloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "malloc: out of memory\n");
        exit(2);
    }
    return p;
}
static inline void *mm_alloc_atomic(size_t n)
{
    return mm_alloc(n);
}
static inline void mm_free(void *p)
{
    free(p);
}
typedef int mm_mark_t;
static inline mm_mark_t mm_mark(void)
{
    return 0;
}
static inline void mm_release(mm_mark_t m)
{
    (void)m;
}

#else
#error "define one of MM_MALLOC, MM_BOEHM, MM_ARENA"
#endif

/* Whether mm_free returns memory (malloc) or is a no-op (GC, arena). */
#if defined(MM_MALLOC)
#define MM_FREES 1
#else
#define MM_FREES 0
#endif

#endif /* BENCH_PEERS_MM_H */
