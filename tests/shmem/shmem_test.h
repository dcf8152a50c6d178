/*
 * Shared by the multi-PE test programs (tests/shmem/, run by
 * tests/integration/t_shmem.sh on both backends): CHECK records a failed
 * check with the PE and the line; test_finish prints "<test>: PE <k>: <n>
 * checks passed" on every PE that passed them all, and makes every PE
 * with a failure exit 1, so the launcher (or mpirun) fails the job.
 */
#ifndef HSRTS_TESTS_SHMEM_TEST_H
#define HSRTS_TESTS_SHMEM_TEST_H

#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *test_name = "?";
static int test_checks, test_failures, test_pe = -1;

#define CHECK(cond, ...)                                                                          \
    do {                                                                                          \
        test_checks++;                                                                            \
        if (!(cond)) {                                                                            \
            test_failures++;                                                                      \
            fprintf(stderr, "%s: PE %d: %s:%d: check failed: %s: ", test_name, test_pe, __FILE__, \
                    __LINE__, #cond);                                                             \
            fprintf(stderr, __VA_ARGS__);                                                         \
            fputc('\n', stderr);                                                                  \
        }                                                                                         \
    } while (0)

static inline void test_start(const char *name)
{
    test_name = name;
    test_pe = shmem_my_pe();
}

static inline int test_finish(void)
{
    fflush(stderr);
    if (test_failures) {
        printf("%s: PE %d: %d of %d checks failed\n", test_name, test_pe, test_failures,
               test_checks);
        fflush(stdout);
        exit(1);
    }
    printf("%s: PE %d: %d checks passed\n", test_name, test_pe, test_checks);
    return 0;
}

/* A byte pattern that differs per (block, PE, index). */
static inline unsigned char test_byte(unsigned long tag, int pe, size_t i)
{
    return (unsigned char)(tag * 131u + (unsigned)pe * 17u + i * 7u + (i >> 9));
}

#endif /* HSRTS_TESTS_SHMEM_TEST_H */
