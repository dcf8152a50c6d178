/*
 * Sizes through every entry point of the allocation API: a size that can
 * never be met must end the program with one clear line (or GHC's heap
 * overflow under -M) and exit 251, never come back as a smaller object; a
 * size that fits must give an object of exactly that size.
 *
 * Usage: alloc_sizes ENTRY N [+RTS ...]   (N in any base strtoull accepts)
 * ENTRY: byte-array pinned-byte-array array small-array alloc-large
 *        alloc-slow alloc
 * On success prints "ok ENTRY N" after checking the object across a major
 * collection (the alloc entries need N >= 2: the words become a byte array).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Rts.h"

static int fail(const char *what, StgWord got, StgWord want)
{
    fprintf(stderr, "alloc_sizes: %s is %lu, want %lu\n", what, (unsigned long)got,
            (unsigned long)want);
    return 3;
}

/* Words of a MUT_ARR_PTRS card table for n elements: one byte per 128, in words. */
static StgWord card_words(StgWord n)
{
    StgWord cards = n / 128 + (n % 128 != 0);
    return cards / 8 + (cards % 8 != 0);
}

int main(int argc, char *argv[])
{
    hs_init_with_rtsopts(&argc, &argv);
    if (argc != 3) {
        fprintf(stderr, "usage: alloc_sizes ENTRY N\n");
        return 2;
    }
    const char *entry = argv[1];
    errno = 0;
    char *end;
    StgWord n = strtoull(argv[2], &end, 0);
    if (errno || *end) {
        fprintf(stderr, "alloc_sizes: bad number %s\n", argv[2]);
        return 2;
    }
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 1);
    int rc = 0;
    if (strcmp(entry, "byte-array") == 0 || strcmp(entry, "pinned-byte-array") == 0) {
        bool pinned = entry[0] == 'p';
        StgArrBytes *a = pinned ? rts_new_pinned_byte_array(cap, n) : rts_new_byte_array(cap, n);
        if (n > 0)
            ((uint8_t *)a->payload)[n - 1] = 0x5a; /* the last byte is ours */
        r[0] = (StgClosure *)a;
        performMajorGC();
        a = (StgArrBytes *)r[0];
        if (a->bytes != n)
            rc = fail("bytes", a->bytes, n);
        else if (n > 0 && ((uint8_t *)a->payload)[n - 1] != 0x5a)
            rc = fail("the last byte", ((uint8_t *)a->payload)[n - 1], 0x5a);
    } else if (strcmp(entry, "array") == 0) {
        StgMutArrPtrs *a = rts_new_array(cap, n, NULL);
        r[0] = (StgClosure *)a;
        if (n > 0)
            rts_write_array(cap, a, n - 1, (StgClosure *)a);
        performMajorGC();
        a = (StgMutArrPtrs *)r[0];
        if (a->ptrs != n)
            rc = fail("ptrs", a->ptrs, n);
        else if (a->size != n + card_words(n))
            rc = fail("size", a->size, n + card_words(n));
        else if (n > 0 && a->payload[n - 1] != (StgClosure *)a)
            rc = fail("the last element", (StgWord)a->payload[n - 1], (StgWord)a);
    } else if (strcmp(entry, "small-array") == 0) {
        StgSmallMutArrPtrs *a = rts_new_small_array(cap, n, NULL);
        r[0] = (StgClosure *)a;
        if (n > 0)
            rts_write_small_array(cap, a, n - 1, (StgClosure *)a);
        performMajorGC();
        a = (StgSmallMutArrPtrs *)r[0];
        if (a->ptrs != n)
            rc = fail("ptrs", a->ptrs, n);
        else if (n > 0 && a->payload[n - 1] != (StgClosure *)a)
            rc = fail("the last element", (StgWord)a->payload[n - 1], (StgWord)a);
    } else if (strcmp(entry, "alloc-large") == 0 || strcmp(entry, "alloc-slow") == 0 ||
               strcmp(entry, "alloc") == 0) {
        StgPtr p = strcmp(entry, "alloc") == 0        ? rts_alloc(cap, n)
                   : strcmp(entry, "alloc-slow") == 0 ? rts_alloc_slow(cap, n)
                                                      : rts_alloc_large(cap, n);
        /* Make the n words a byte array, so that the heap stays walkable. */
        StgArrBytes *a = (StgArrBytes *)p;
        a->info = &stg_ARR_WORDS_info;
        a->bytes = (n - 2) * sizeof(StgWord);
        r[0] = (StgClosure *)a;
        performMajorGC();
        a = (StgArrBytes *)r[0];
        if (arr_words_size_w(a->bytes) != n)
            rc = fail("the object's words", arr_words_size_w(a->bytes), n);
    } else {
        fprintf(stderr, "alloc_sizes: unknown entry %s\n", entry);
        return 2;
    }
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    if (rc == 0)
        printf("ok %s %lu\n", entry, (unsigned long)n);
    hs_exit();
    return rc;
}
