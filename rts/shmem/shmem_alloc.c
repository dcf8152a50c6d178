/*
 * The symmetric heap's memory calls: shmem_malloc, shmem_align,
 * shmem_realloc, shmem_free and their legacy names, malloc_error, and the
 * debug mode's argument check. The allocator itself is shmem_heap.c.
 *
 * Each call is collective and ends in shmem_barrier_all, errors included,
 * so the PEs leave it together: a block is usable on every PE on return,
 * and a PE that reallocates (moving its own copy of a block) is done
 * before any other PE can put into the new place.
 *
 * Note [Checking the PEs' arguments]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The seed leaves differing arguments undefined ("subsequent calls may
 * not return the same symmetric heap address"): the allocators of the PEs
 * silently diverge. With SHMEM_DEBUG=1 every memory call, and every
 * shmem_barrier_all and shmem_sync_all, first gathers (call, arguments)
 * from every PE. If they differ, PE 0 prints one line saying what each PE
 * passed (runs of PEs that agree are grouped) and the job stops with
 * status 1; a PE in a barrier while another allocates is caught the same
 * way. Pointers are compared as addresses, which is right because a block
 * has the same address on every PE. After each call the debug mode also
 * runs the allocator's invariant check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Rts.h"
#include "messages.h"
#include "shmem.h"
#include "shmem/shmem_internal.h"

long malloc_error = SHMEM_MALLOC_OK;

typedef enum { OP_MALLOC, OP_ALIGN, OP_REALLOC, OP_FREE, OP_BARRIER, OP_SYNC } Op;

/* What one PE called, for the debug check (SHMEM_GATHER_MAX bytes at most). */
typedef struct {
    uint64_t op;
    uint64_t a, b;
    char name[24];
} CallRec;

_Static_assert(sizeof(CallRec) <= SHMEM_GATHER_MAX, "a call record fits an allgather");

static int describe(char *buf, size_t n, const CallRec *r)
{
    switch ((Op)r->op) {
    case OP_MALLOC:
        return snprintf(buf, n, "%s(%llu)", r->name, (unsigned long long)r->a);
    case OP_ALIGN:
        return snprintf(buf, n, "%s(%llu, %llu)", r->name, (unsigned long long)r->a,
                        (unsigned long long)r->b);
    case OP_REALLOC:
        if (!r->a)
            return snprintf(buf, n, "%s(NULL, %llu)", r->name, (unsigned long long)r->b);
        return snprintf(buf, n, "%s(0x%llx, %llu)", r->name, (unsigned long long)r->a,
                        (unsigned long long)r->b);
    case OP_FREE:
        if (!r->a)
            return snprintf(buf, n, "%s(NULL)", r->name);
        return snprintf(buf, n, "%s(0x%llx)", r->name, (unsigned long long)r->a);
    case OP_BARRIER:
    case OP_SYNC:
        break;
    }
    return snprintf(buf, n, "%s()", r->name);
}

static bool same_call(const CallRec *x, const CallRec *y)
{
    return x->op == y->op && x->a == y->a && x->b == y->b;
}

/* See Note [Checking the PEs' arguments]. */
static void debug_check(const char *name, Op op, uint64_t a, uint64_t b)
{
    ShmemJob *j = &shmem_job;
    CallRec mine = {op, a, b, ""};
    snprintf(mine.name, sizeof mine.name, "%s", name);
    CallRec *all = malloc((size_t)j->n * sizeof *all);
    if (!all)
        msg_fatal(EXIT_INTERNAL_ERROR, "%s: out of memory", name);
    j->backend->allgather(&mine, all, sizeof mine);
    bool same = true;
    for (int pe = 1; pe < j->n; pe++)
        same = same && same_call(&all[pe], &all[0]);
    if (same) {
        free(all);
        return;
    }
    char text[2048], call[128];
    size_t len = 0;
    int groups = 0;
    for (int pe = 0; pe < j->n && len < sizeof text - 64;) {
        int last = pe;
        while (last + 1 < j->n && same_call(&all[last + 1], &all[pe]))
            last++;
        if (++groups > 16) {
            snprintf(text + len, sizeof text - len, "; ...");
            break;
        }
        describe(call, sizeof call, &all[pe]);
        int w = last > pe ? snprintf(text + len, sizeof text - len, "%sPEs %d-%d: %s",
                                     len ? "; " : "", pe, last, call)
                          : snprintf(text + len, sizeof text - len, "%sPE %d: %s", len ? "; " : "",
                                     pe, call);
        len += (size_t)w < sizeof text - len ? (size_t)w : sizeof text - len - 1;
        pe = last + 1;
    }
    char pe0[24];
    snprintf(pe0, sizeof pe0, "%s", all[0].name);
    free(all);
    shmem_fail_all(EXIT_BADFLAGS, pe0,
                   "the PEs made different calls (SHMEM_DEBUG=1 checks every PE passes the same "
                   "arguments): %s",
                   text);
}

void shmem_debug_check_barrier(const char *call)
{
    debug_check(call, strcmp(call, "shmem_sync_all") == 0 ? OP_SYNC : OP_BARRIER, 0, 0);
}

/* Every memory call ends here: the debug check of the heap, then the barrier. */
static void end_call(void)
{
    ShmemJob *j = &shmem_job;
    if (j->debug) {
        const char *why = shmem_heap_check(&j->heap);
        if (why)
            msg_barf("the symmetric heap's bookkeeping is broken: %s", why);
    }
    j->backend->quiet();
    j->backend->barrier();
}

static long error_code(ShmemHeapStatus st, long no_space)
{
    switch (st) {
    case SHMEM_HEAP_OK:
        return SHMEM_MALLOC_OK;
    case SHMEM_HEAP_TOO_BIG:
        return SHMEM_MALLOC_BAD_SIZE;
    case SHMEM_HEAP_NO_SPACE:
        return no_space;
    case SHMEM_HEAP_BAD_ALIGN:
        return SHMEM_MALLOC_NOT_ALIGNED;
    case SHMEM_HEAP_OUTSIDE:
    case SHMEM_HEAP_NOT_A_BLOCK:
        return SHMEM_MALLOC_NOT_IN_SYMM_HEAP;
    case SHMEM_HEAP_ALREADY_FREE:
        return SHMEM_MALLOC_ALREADY_FREE;
    }
    return SHMEM_MALLOC_FAIL;
}

static void *do_alloc(uint64_t size, uint64_t align, long no_space)
{
    ShmemJob *j = &shmem_job;
    if (size == 0) {
        malloc_error = SHMEM_MALLOC_OK; /* NULL, and not an error */
        return NULL;
    }
    uint64_t off;
    ShmemHeapStatus st = shmem_heap_alloc(&j->heap, size, align, &off);
    malloc_error = error_code(st, no_space);
    return st == SHMEM_HEAP_OK ? (void *)(j->base + off) : NULL;
}

static void do_free(void *ptr)
{
    if (!ptr)
        return; /* "nothing happens" */
    ShmemHeapStatus st = shmem_heap_free(&shmem_job.heap, (uintptr_t)ptr - shmem_job.base);
    malloc_error = error_code(st, SHMEM_MALLOC_FAIL);
}

static void *sym_malloc(const char *name, size_t size)
{
    shmem_require_running(name);
    if (shmem_job.debug)
        debug_check(name, OP_MALLOC, size, 0);
    void *p = do_alloc(size, 1, SHMEM_MALLOC_FAIL);
    end_call();
    return p;
}

static void *sym_align(const char *name, size_t alignment, size_t size)
{
    shmem_require_running(name);
    if (shmem_job.debug)
        debug_check(name, OP_ALIGN, alignment, size);
    void *p = NULL;
    if (alignment == 0 || (alignment & (alignment - 1)) != 0)
        malloc_error = SHMEM_MALLOC_NOT_ALIGNED;
    else
        p = do_alloc(size, alignment, SHMEM_MALLOC_MEMALIGN_FAILED);
    end_call();
    return p;
}

static void sym_free(const char *name, void *ptr)
{
    shmem_require_running(name);
    if (shmem_job.debug)
        debug_check(name, OP_FREE, (uintptr_t)ptr, 0);
    do_free(ptr);
    end_call();
}

static void *sym_realloc(const char *name, void *ptr, size_t size)
{
    shmem_require_running(name);
    ShmemJob *j = &shmem_job;
    if (j->debug)
        debug_check(name, OP_REALLOC, (uintptr_t)ptr, size);
    void *p = NULL;
    if (!ptr) {
        p = do_alloc(size, 1, SHMEM_MALLOC_FAIL); /* as shmem_malloc */
    } else if (size == 0) {
        do_free(ptr); /* frees; its errors are free's */
    } else {
        uint64_t off = (uintptr_t)ptr - j->base, new_off, copy;
        ShmemHeapStatus st = shmem_heap_realloc(&j->heap, off, size, &new_off, &copy);
        malloc_error = error_code(st, SHMEM_MALLOC_REALLOC_FAILED);
        if (st == SHMEM_HEAP_OK) {
            /* Each PE moves its own copy; the barrier below keeps puts out until all have. */
            if (new_off != off)
                memmove((void *)(j->base + new_off), ptr, copy);
            p = (void *)(j->base + new_off);
        }
    }
    end_call();
    return p;
}

void *shmem_malloc(size_t size)
{
    return sym_malloc("shmem_malloc", size);
}

void *shmalloc(size_t size)
{
    return sym_malloc("shmalloc", size);
}

void *shmem_align(size_t alignment, size_t size)
{
    return sym_align("shmem_align", alignment, size);
}

void *shmemalign(size_t alignment, size_t size)
{
    return sym_align("shmemalign", alignment, size);
}

void *shmem_realloc(void *ptr, size_t size)
{
    return sym_realloc("shmem_realloc", ptr, size);
}

void *shrealloc(void *ptr, size_t size)
{
    return sym_realloc("shrealloc", ptr, size);
}

void shmem_free(void *ptr)
{
    sym_free("shmem_free", ptr);
}

void shfree(void *ptr)
{
    sym_free("shfree", ptr);
}
