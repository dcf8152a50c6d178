/*
 * The symmetric heap inside one process (a job of one PE): its settings
 * from the environment, and its place beside the collected heap. With
 * shmem_init first, hs_init's reservation ends where the symmetric heap
 * begins; with hs_init first and a reservation covering the symmetric
 * address, the reservation gives up its top; either way symmetric blocks
 * are not HEAP_ALLOCED and keep their contents across collections of a
 * mutating heap (checked by the sanity checker in the debug way). The
 * multi-PE behaviour is tests/integration/t_shmem.sh's.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mutator.h"
#include "shmem.h"
#include "shmem/shmem_env.h"
#include "sm/mblock.h"
#include "test_util.h"

/* ---- settings ------------------------------------------------------------- */

START_TEST(parse_sizes)
{
    static const struct {
        const char *s;
        uint64_t bytes;
    } good[] = {{"0", 0},
                {"123", 123},
                {"64k", 64 << 10},
                {"64K", 64 << 10},
                {"3m", 3 << 20},
                {"512M", (uint64_t)512 << 20},
                {"2G", (uint64_t)2 << 30},
                {"5g", (uint64_t)5 << 30},
                {"17179869183G", (uint64_t)17179869183 << 30}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint64_t b = 1;
        ck_assert_msg(shmem_env_parse_size(good[i].s, &b), "'%s' is a size", good[i].s);
        ck_assert_uint_eq(b, good[i].bytes);
    }
    static const char *const bad[] = {"",
                                      "banana",
                                      "1.5G",
                                      "-1",
                                      "1MB",
                                      "1 M",
                                      " 1",
                                      "M",
                                      "0x10",
                                      "1T",
                                      "18446744073709551616",
                                      "17179869184G"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t b;
        ck_assert_msg(!shmem_env_parse_size(bad[i], &b), "'%s' is not a size", bad[i]);
    }
}
END_TEST

/* A fake environment for shmem_env_read. */
static const char *fake[8][2];
static const char *fake_get(const char *name)
{
    for (int i = 0; i < 8 && fake[i][0]; i++)
        if (!strcmp(fake[i][0], name))
            return fake[i][1];
    return NULL;
}

static bool read_with(const char *n1, const char *v1, const char *n2, const char *v2, ShmemEnv *e,
                      char *why)
{
    memset(fake, 0, sizeof fake);
    fake[0][0] = n1, fake[0][1] = v1;
    fake[1][0] = n2, fake[1][1] = v2;
    return shmem_env_read(e, fake_get, why, 512);
}

START_TEST(read_settings)
{
    ShmemEnv e;
    char why[512];
    ck_assert(read_with(NULL, NULL, NULL, NULL, &e, why));
    ck_assert_uint_eq(e.heap_bytes, SHMEM_ENV_DEFAULT_HEAP);
    ck_assert_uint_eq(e.base, SHMEM_ENV_DEFAULT_BASE);
    ck_assert(!e.debug);
    ck_assert(read_with("SHMEM_SYMMETRIC_SIZE", "1000", "SHMEM_DEBUG", "1", &e, why));
    ck_assert_uint_eq(e.heap_bytes, 4096); /* rounded up to a page */
    ck_assert(e.debug);
    ck_assert(
        read_with("SHMEM_SYMMETRIC_HEAP_SIZE", "1M", "SHMEM_SYMMETRIC_SIZE", "1024k", &e, why));
    ck_assert_uint_eq(e.heap_bytes, 1 << 20);
    ck_assert(read_with("HSRTS_SHMEM_BASE", "0x500000000000", NULL, NULL, &e, why));
    ck_assert_uint_eq(e.base, 0x500000000000);

    static const struct {
        const char *n1, *v1, *n2, *v2, *says;
    } bad[] = {
        {"SHMEM_SYMMETRIC_HEAP_SIZE", "banana", NULL, NULL,
         "SHMEM_SYMMETRIC_HEAP_SIZE=banana: not a size (a whole number of bytes with an optional "
         "k, M or G suffix)"},
        {"SHMEM_SYMMETRIC_SIZE", "0", NULL, NULL,
         "SHMEM_SYMMETRIC_SIZE=0: the symmetric heap needs at least 1 byte"},
        {"SHMEM_SYMMETRIC_HEAP_SIZE", "2048G", NULL, NULL,
         "SHMEM_SYMMETRIC_HEAP_SIZE=2048G: larger than the largest symmetric heap, 1024G"},
        {"SHMEM_SYMMETRIC_HEAP_SIZE", "1M", "SHMEM_SYMMETRIC_SIZE", "2M",
         "SHMEM_SYMMETRIC_HEAP_SIZE=1M and SHMEM_SYMMETRIC_SIZE=2M disagree; set one of them"},
        {"SHMEM_DEBUG", "yes", NULL, NULL,
         "SHMEM_DEBUG=yes: want 0 (off) or 1 (check every call's arguments)"},
        {"HSRTS_SHMEM_BASE", "here", NULL, NULL, "HSRTS_SHMEM_BASE=here: not an address"},
        {"HSRTS_SHMEM_BASE", "0x123456", NULL, NULL,
         "HSRTS_SHMEM_BASE=0x123456: not a non-zero multiple of 1 MiB"},
        {"HSRTS_SHMEM_BASE", "0", NULL, NULL,
         "HSRTS_SHMEM_BASE=0: not a non-zero multiple of 1 MiB"},
        {"HSRTS_SHMEM_BASE", "0x7ffff0000000", "SHMEM_SYMMETRIC_SIZE", "1G",
         "a symmetric heap of 1073741824 bytes at 0x7ffff0000000 would pass the end of the "
         "address space (0x800000000000); lower HSRTS_SHMEM_BASE or the heap size"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why[0] = '\0';
        ck_assert_msg(!read_with(bad[i].n1, bad[i].v1, bad[i].n2, bad[i].v2, &e, why),
                      "%s=%s accepted", bad[i].n1, bad[i].v1);
        ck_assert_str_eq(why, bad[i].says);
    }
}
END_TEST

/* ---- beside the collected heap -------------------------------------------- */

#define SYM_BYTES (256 << 10)

static void fill(unsigned char *p, unsigned char seed)
{
    for (size_t i = 0; i < SYM_BYTES; i++)
        p[i] = (unsigned char)(seed + i * 13 + (i >> 10));
}

static void check_fill(const unsigned char *p, unsigned char seed)
{
    for (size_t i = 0; i < SYM_BYTES; i++)
        if (p[i] != (unsigned char)(seed + i * 13 + (i >> 10)))
            ck_abort_msg("symmetric byte %zu changed", i);
}

/* Mutate and collect (the debug way checks the heap after every collection). */
static void churn_heap(unsigned char *sym)
{
    ck_assert_msg(!HEAP_ALLOCED(sym) && !HEAP_ALLOCED(sym + SYM_BYTES - 1),
                  "a symmetric block is inside the collected heap");
    Capability *cap = rts_lock();
    Mutator m;
    mutator_init(&m, cap, test_seed("check_shmem churn_heap"));
    for (int i = 0; i < 30; i++) {
        mutator_step(&m, 200);
        if (i % 10 == 0)
            performMajorGC();
    }
    performMajorGC();
    mutator_clear(&m);
    mutator_done(&m);
    rts_unlock(cap);
    ck_assert_uint_gt(mutator_checked_gcs(), 0);
}

START_TEST(shmem_then_hs)
{
    shmem_init();
    unsigned char *sym = shmem_malloc(SYM_BYTES);
    ck_assert_ptr_nonnull(sym);
    fill(sym, 1);
    test_start_rts("check_shmem", "-A64k", 1);
    /* The heap's reservation was placed below the symmetric heap, a guard unit apart (a
     * megablock, or a huge page: Note [Huge pages]). */
    ck_assert_uint_eq(mblock_heap_base + mblock_heap_size,
                      SHMEM_ENV_DEFAULT_BASE - (uint64_t)mblock_commit_unit() * MBLOCK_SIZE);
    churn_heap(sym);
    check_fill(sym, 1);
    hs_exit();
    check_fill(sym, 1);
    shmem_free(sym);
    shmem_finalize();
}
END_TEST

START_TEST(hs_then_shmem)
{
    test_start_rts("check_shmem", "-A64k", 1);
    shmem_init();
    unsigned char *sym = shmem_malloc(SYM_BYTES);
    fill(sym, 2);
    churn_heap(sym);
    check_fill(sym, 2);
    shmem_free(sym);
    shmem_finalize();
    hs_exit();
}
END_TEST

/* A reservation covering the symmetric address gives up its unused top. */
START_TEST(carved_from_the_reservation)
{
    const uintptr_t hint = SHMEM_ENV_DEFAULT_BASE - ((uintptr_t)1 << 40);
    test_start_rts("check_shmem", "-A64k -xb0x3f0000000000 -xr2T", 1);
    ck_assert_uint_eq(hint, 0x3f0000000000);
    if (mblock_heap_base != hint)
        ck_abort_msg("the OS placed the reservation at %p, not at -xb", (void *)mblock_heap_base);
    ck_assert(HEAP_ALLOCED(SHMEM_ENV_DEFAULT_BASE));
    shmem_init();
    ck_assert_uint_eq(mblock_heap_base, hint);
    ck_assert_uint_eq(mblock_heap_base + mblock_heap_size, SHMEM_ENV_DEFAULT_BASE);
    unsigned char *sym = shmem_malloc(SYM_BYTES);
    fill(sym, 3);
    churn_heap(sym);
    check_fill(sym, 3);
    shmem_finalize();
    hs_exit();
}
END_TEST

/* Something else mapped at the symmetric address: one line and status 254. */
START_TEST(address_taken)
{
    void *want = (void *)0x500000000000;
    void *p =
        mmap(want, 1 << 20, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    ck_assert_ptr_eq(p, want);
    setenv("HSRTS_SHMEM_BASE", "0x500000000000", 1);
    shmem_init();
}
END_TEST

START_TEST(bad_heap_size)
{
    setenv("SHMEM_SYMMETRIC_HEAP_SIZE", "banana", 1);
    shmem_init();
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("shmem");
    TCase *env = tcase_create("settings");
    tcase_add_test(env, parse_sizes);
    tcase_add_test(env, read_settings);
    suite_add_tcase(s, env);
    TCase *place = tcase_create("place");
    tcase_set_timeout(place, 60);
    tcase_add_test(place, shmem_then_hs);
    tcase_add_test(place, hs_then_shmem);
    tcase_add_test(place, carved_from_the_reservation);
    tcase_add_exit_test(place, address_taken, 254);
    tcase_add_exit_test(place, bad_heap_size, 1);
    suite_add_tcase(s, place);
    return s;
}

int main(void)
{
    unsetenv("HSRTS_SHMEM_FD");
    unsetenv("HSRTS_SHMEM_PE");
    unsetenv("HSRTS_SHMEM_NPES");
    unsetenv("SHMEM_SYMMETRIC_HEAP_SIZE");
    unsetenv("SHMEM_SYMMETRIC_SIZE");
    unsetenv("HSRTS_SHMEM_BASE");
    unsetenv("SHMEM_DEBUG");
    return test_run(suite());
}
