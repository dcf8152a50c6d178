/*
 * Every call's semantics, on every PE: identical addresses, size 0, every
 * malloc_error case, realloc's rules, every alignment, exhaustion, put and
 * get of every standard type (visible after a barrier on the PE they
 * target), the sized and untyped forms, shmem_ptr, ordering, barriers, and
 * the legacy names.
 *
 *     calls <heap bytes> <local|mpi>
 *
 * The heap's size is what the script set SHMEM_SYMMETRIC_HEAP_SIZE to
 * (checked exactly: the whole heap fits one block, one byte more does not).
 */
#include <stdint.h>

#include "shmem_test.h"

static int me, n;
static size_t heap;
static int direct;     /* can the other PEs' heaps be loaded here (the local backend)? */
static int debug_mode; /* SHMEM_DEBUG=1 */
static unsigned long long *table;

/* x must be the same on every PE: each PE puts its x into every PE's table. */
static void same_on_all(const char *what, unsigned long long x)
{
    for (int pe = 0; pe < n; pe++)
        shmem_ulonglong_p(&table[me], x, pe);
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++)
        CHECK(table[pe] == x, "%s: PE %d has 0x%llx, this PE 0x%llx", what, pe, table[pe], x);
    shmem_barrier_all(); /* before the table is written again */
}

static void identity(void)
{
    CHECK(me >= 0 && me < n, "my_pe %d of %d", me, n);
    CHECK(_my_pe() == me && _num_pes() == n, "legacy names: %d of %d", _my_pe(), _num_pes());
    int major = 0, minor = 0;
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_version(&major, &minor);
    shmem_info_get_name(name);
    CHECK(major == 1 && minor == 5, "version %d.%d", major, minor);
    CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0, "name %s", name);
    same_on_all("n_pes", (unsigned long long)n);
}

static void size_zero_and_null(void)
{
    malloc_error = 99;
    CHECK(shmem_malloc(0) == NULL, "shmem_malloc(0) is not NULL");
    CHECK(malloc_error == SHMEM_MALLOC_OK, "shmem_malloc(0): malloc_error %ld", malloc_error);
    malloc_error = 99;
    CHECK(shmalloc(0) == NULL && malloc_error == SHMEM_MALLOC_OK, "shmalloc(0): %ld", malloc_error);
    malloc_error = 99;
    CHECK(shmem_align(64, 0) == NULL && malloc_error == SHMEM_MALLOC_OK, "shmem_align(64, 0): %ld",
          malloc_error);
    malloc_error = 99;
    CHECK(shmem_realloc(NULL, 0) == NULL && malloc_error == SHMEM_MALLOC_OK,
          "shmem_realloc(NULL, 0): %ld", malloc_error);
    malloc_error = 42;
    shmem_free(NULL);
    shfree(NULL);
    CHECK(malloc_error == 42, "shmem_free(NULL) set malloc_error to %ld", malloc_error);
}

static void addresses_and_bad_pointers(void)
{
    char *p = shmem_malloc(1000);
    CHECK(p != NULL && malloc_error == SHMEM_MALLOC_OK, "shmem_malloc(1000): %ld", malloc_error);
    CHECK(((uintptr_t)p & 15) == 0, "%p is not aligned for any use", (void *)p);
    same_on_all("shmem_malloc(1000)", (uintptr_t)p);

    /*
     * malloc(3) returns a different address in each PE: passing it is a
     * mismatch in itself, which the debug mode rightly stops (mismatch.c).
     */
    if (!debug_mode) {
        char *private = malloc(64);
        shmem_free(private);
        CHECK(malloc_error == SHMEM_MALLOC_NOT_IN_SYMM_HEAP, "free(malloc(3) block): %ld",
              malloc_error);
        CHECK(shmem_realloc(private, 64) == NULL && malloc_error == SHMEM_MALLOC_NOT_IN_SYMM_HEAP,
              "realloc(malloc(3) block): %ld", malloc_error);
        free(private);
    }
    shmem_free(p + 16);
    CHECK(malloc_error == SHMEM_MALLOC_NOT_IN_SYMM_HEAP, "free(interior pointer): %ld",
          malloc_error);

    char *q = shmem_malloc(32);
    shmem_free(q);
    CHECK(malloc_error == SHMEM_MALLOC_OK, "free: %ld", malloc_error);
    shmem_free(q);
    CHECK(malloc_error == SHMEM_MALLOC_ALREADY_FREE, "double free: %ld", malloc_error);
    CHECK(shmem_realloc(q, 64) == NULL && malloc_error == SHMEM_MALLOC_ALREADY_FREE,
          "realloc of a freed block: %ld", malloc_error);
    /* p is still whole after all that. */
    memset(p, 7, 1000);
    shmem_free(p);
    CHECK(malloc_error == SHMEM_MALLOC_OK, "free(p): %ld", malloc_error);
}

static void alignments(void)
{
    static const size_t bad[] = {0, 3, 48, 1000, 4095};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        malloc_error = 0;
        CHECK(shmem_align(bad[i], 64) == NULL && malloc_error == SHMEM_MALLOC_NOT_ALIGNED,
              "shmem_align(%zu, 64): malloc_error %ld", bad[i], malloc_error);
    }
    for (size_t a = 1; a <= heap / 4; a *= 2) {
        char *p = shmem_align(a, 100);
        CHECK(p && ((uintptr_t)p % a) == 0, "shmem_align(%zu, 100) = %p", a, (void *)p);
        same_on_all("shmem_align", (uintptr_t)p);
        shmem_free(p);
    }
}

static void too_big_and_exhaustion(void)
{
    char *p = shmem_malloc(heap + 1);
    CHECK(p == NULL && malloc_error == SHMEM_MALLOC_BAD_SIZE, "shmem_malloc(heap + 1): %ld",
          malloc_error);
    CHECK(shmem_align(16, heap + 1) == NULL && malloc_error == SHMEM_MALLOC_BAD_SIZE,
          "shmem_align(16, heap + 1): %ld", malloc_error);

    /* Fill the heap with eighths until it says no. */
    char *blocks[16];
    int k = 0;
    while (k < 16 && (blocks[k] = shmem_malloc(heap / 8)) != NULL)
        k++;
    CHECK(k >= 6 && k < 8, "%d eighths of the heap fit (the table and p take some)", k);
    CHECK(malloc_error == SHMEM_MALLOC_FAIL, "exhausted: malloc_error %ld", malloc_error);
    CHECK(shmem_align(64, heap / 8) == NULL && malloc_error == SHMEM_MALLOC_MEMALIGN_FAILED,
          "exhausted shmem_align: %ld", malloc_error);
    for (size_t i = 0; i < heap / 8; i++)
        blocks[0][i] = (char)test_byte(1, me, i);
    char *r = shmem_realloc(blocks[0], heap / 4);
    CHECK(r == NULL && malloc_error == SHMEM_MALLOC_REALLOC_FAILED, "exhausted realloc: %ld",
          malloc_error);
    CHECK(shmem_realloc(blocks[0], heap + 1) == NULL && malloc_error == SHMEM_MALLOC_BAD_SIZE,
          "realloc(heap + 1): %ld", malloc_error);
    size_t bad = 0;
    for (size_t i = 0; i < heap / 8; i++)
        bad += blocks[0][i] != (char)test_byte(1, me, i);
    CHECK(bad == 0, "%zu bytes of the block changed by a failed realloc", bad);
    while (k > 0)
        shmem_free(blocks[--k]);
    CHECK(malloc_error == SHMEM_MALLOC_OK, "free: %ld", malloc_error);
    p = shmem_malloc(heap / 2);
    CHECK(p != NULL, "half the heap after freeing everything");
    shmem_free(p);
}

static void realloc_rules(void)
{
    int right = (me + 1) % n, left = (me + n - 1) % n;
    unsigned char *r = shmem_realloc(NULL, 100);
    CHECK(r && malloc_error == SHMEM_MALLOC_OK, "realloc(NULL, 100) acts as malloc: %ld",
          malloc_error);
    /* Contents written by the left neighbour survive a move. */
    unsigned char buf[100];
    for (int i = 0; i < 100; i++)
        buf[i] = test_byte(2, me, (size_t)i);
    shmem_putmem(r, buf, 100, right);
    unsigned char *block = shmem_malloc(64); /* so r cannot grow in place */
    shmem_barrier_all();
    unsigned char *r2 = shmem_realloc(r, 5000);
    CHECK(r2 && r2 != r, "realloc(r, 5000) moved: %p -> %p", (void *)r, (void *)r2);
    same_on_all("realloc", (uintptr_t)r2);
    size_t bad = 0;
    for (int i = 0; i < 100; i++)
        bad += r2[i] != test_byte(2, left, (size_t)i);
    CHECK(bad == 0, "%zu bytes lost in the move", bad);
    unsigned char *r3 = shmem_realloc(r2, 40); /* shrinks in place */
    CHECK(r3 == r2, "shrinking moved the block");
    for (int i = 0; i < 40; i++)
        bad += r3[i] != test_byte(2, left, (size_t)i);
    CHECK(bad == 0, "%zu bytes lost shrinking", bad);
    CHECK(shmem_realloc(r3, 0) == NULL && malloc_error == SHMEM_MALLOC_OK, "realloc(p, 0): %ld",
          malloc_error);
    shmem_free(r3);
    CHECK(malloc_error == SHMEM_MALLOC_ALREADY_FREE, "realloc(p, 0) did not free p: %ld",
          malloc_error);
    shmem_free(block);
}

/* put, get, p and g of one type: every value lands on the PE it was sent to. */
#define TEST_TYPE(NAME, TYPE)                                                                    \
    {                                                                                            \
        int right = (me + 1) % n, left = (me + n - 1) % n;                                       \
        TYPE *a = shmem_malloc((size_t)n * 4 * sizeof(TYPE));                                    \
        TYPE *b = shmem_malloc((size_t)n * sizeof(TYPE));                                        \
        TYPE src[4], dst[32 * 4];                                                                \
        for (int k = 0; k < 4; k++)                                                              \
            src[k] = (TYPE)(me * 10 + k + 1);                                                    \
        shmem_##NAME##_put(&a[me * 4], src, 4, right);                                           \
        shmem_##NAME##_p(&b[me], (TYPE)(me + 100), left);                                        \
        shmem_barrier_all();                                                                     \
        for (int k = 0; k < 4; k++)                                                              \
            CHECK(a[left * 4 + k] == (TYPE)(left * 10 + k + 1), "shmem_" #NAME "_put: [%d]", k); \
        CHECK(b[right] == (TYPE)(right + 100), "shmem_" #NAME "_p");                             \
        for (int pe = 0; pe < n; pe++)                                                           \
            CHECK(shmem_##NAME##_g(&b[(pe + 1) % n], pe) == (TYPE)((pe + 1) % n + 100),          \
                  "shmem_" #NAME "_g from PE %d", pe);                                           \
        shmem_##NAME##_get(dst, &a[left * 4], 4, me);                                            \
        shmem_##NAME##_get(dst + 4, &a[me * 4], 4, right);                                       \
        for (int k = 0; k < 4; k++)                                                              \
            CHECK(dst[k] == (TYPE)(left * 10 + k + 1) && dst[4 + k] == (TYPE)(me * 10 + k + 1),  \
                  "shmem_" #NAME "_get: [%d]", k);                                               \
        shmem_barrier_all();                                                                     \
        shmem_free(b);                                                                           \
        shmem_free(a);                                                                           \
    }

static void typed_rma(void)
{
    SHMEM_STANDARD_RMA_TYPES(TEST_TYPE)
}

static void bulk_rma(void)
{
    int right = (me + 1) % n, left = (me + n - 1) % n;
    const size_t len = 1 << 20;
    unsigned char *sym = shmem_malloc(len), *src = malloc(len), *back = malloc(len);
    for (size_t i = 0; i < len; i++)
        src[i] = test_byte(3, me, i);
    shmem_putmem(sym, src, len, right);
    shmem_barrier_all();
    size_t bad = 0;
    for (size_t i = 0; i < len; i++)
        bad += sym[i] != test_byte(3, left, i);
    CHECK(bad == 0, "shmem_putmem of 1 MiB: %zu bytes wrong", bad);
    shmem_getmem(back, sym, len, right);
    CHECK(memcmp(back, src, len) == 0, "shmem_getmem of 1 MiB from the right");
    shmem_barrier_all();

    /* The sized forms: element counts, not bytes. */
    uint64_t v[4] = {me + 1u, me + 2u, me + 3u, me + 4u}, w[4];
    shmem_put8(sym, v, 32, right);
    shmem_put16(sym + 64, v, 16, right);
    shmem_put32(sym + 128, v, 8, right);
    shmem_put64(sym + 192, v, 4, right);
    shmem_put128(sym + 256, v, 2, right);
    shmem_barrier_all();
    for (int k = 0; k < 5; k++) {
        memcpy(w, sym + 64 * k, 32);
        CHECK(w[0] == left + 1u && w[3] == left + 4u, "shmem_put%d", 8 << k);
        memset(w, 0, 32);
        if (k == 0)
            shmem_get8(w, sym + 64 * k, 32, right);
        else if (k == 1)
            shmem_get16(w, sym + 64 * k, 16, right);
        else if (k == 2)
            shmem_get32(w, sym + 64 * k, 8, right);
        else if (k == 3)
            shmem_get64(w, sym + 64 * k, 4, right);
        else
            shmem_get128(w, sym + 64 * k, 2, right);
        CHECK(w[0] == me + 1u && w[3] == me + 4u, "shmem_get%d", 8 << k);
    }
    shmem_barrier_all();
    shmem_free(sym);
    free(src);
    free(back);
}

static void pointers_and_ordering(void)
{
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int *x = shmem_malloc((size_t)(n + 3) * sizeof(int));
    memset(x, 0, (size_t)(n + 3) * sizeof(int));
    shmem_barrier_all();
    CHECK(shmem_ptr(x, me) == x, "shmem_ptr to myself is not the address itself");
    int local_var = 0;
    CHECK(shmem_ptr(&local_var, right) == NULL, "shmem_ptr of a private address");
    CHECK(shmem_addr_accessible(x, right) && !shmem_addr_accessible(&local_var, right),
          "shmem_addr_accessible");
    CHECK(shmem_pe_accessible(right) && !shmem_pe_accessible(n) && !shmem_pe_accessible(-1),
          "shmem_pe_accessible");
    int *rx = shmem_ptr(x, right);
    if (direct) {
        CHECK(rx != NULL, "shmem_ptr to PE %d is NULL on the local backend", right);
        if (rx)
            rx[3 + me] = me + 500;
        shmem_barrier_all();
        CHECK(x[3 + left] == left + 500, "a store through shmem_ptr: %d", x[3 + left]);
    } else {
        CHECK(n == 1 || rx == NULL, "shmem_ptr to another PE over MPI");
    }
    shmem_barrier_all();

    /* Data, fence, flag: after quiet and a barrier both are there. */
    shmem_int_p(&x[0], me + 1000, right);
    shmem_fence();
    shmem_int_p(&x[1], me + 2000, right);
    shmem_quiet();
    shmem_sync_all();
    CHECK(x[0] == left + 1000 && x[1] == left + 2000, "fence/quiet: %d %d", x[0], x[1]);
    shmem_barrier_all();

    /* Many barriers: PE 0 sets a counter everywhere, everyone sees it, again. */
    for (int i = 1; i <= 300; i++) {
        if (me == 0)
            for (int pe = 0; pe < n; pe++)
                shmem_int_p(&x[2], i, pe);
        shmem_barrier_all();
        if (x[2] != i) {
            CHECK(x[2] == i, "barrier %d: the counter is %d", i, x[2]);
            break;
        }
        shmem_barrier_all();
    }
    shmem_free(x);
}

static void legacy_names(void)
{
    long *a = shmalloc(8 * sizeof(long));
    CHECK(a != NULL && malloc_error == SHMEM_MALLOC_OK, "shmalloc");
    long *b = shmemalign(256, 8 * sizeof(long));
    CHECK(b && ((uintptr_t)b & 255) == 0, "shmemalign");
    a[0] = me;
    a = shrealloc(a, 64 * sizeof(long));
    CHECK(a && a[0] == me, "shrealloc");
    same_on_all("legacy", (uintptr_t)a ^ (uintptr_t)b);
    shfree(b);
    shfree(a);
    CHECK(malloc_error == SHMEM_MALLOC_OK, "shfree");
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: calls <heap bytes> <local|mpi>\n");
        return 2;
    }
    heap = strtoull(argv[1], NULL, 0);
    direct = strcmp(argv[2], "local") == 0;
    debug_mode = getenv("SHMEM_DEBUG") && strcmp(getenv("SHMEM_DEBUG"), "1") == 0;
    shmem_init();
    me = shmem_my_pe();
    n = shmem_n_pes();
    test_start("calls");
    table = shmem_malloc((size_t)n * sizeof *table);
    identity();
    size_zero_and_null();
    addresses_and_bad_pointers();
    alignments();
    too_big_and_exhaustion();
    realloc_rules();
    typed_rma();
    bulk_rma();
    pointers_and_ordering();
    legacy_names();
    shmem_free(table);
    shmem_finalize();
    return test_finish();
}
