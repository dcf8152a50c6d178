/*
 * Calls the API refuses: each must print one line "<prog>: <call>: <what>"
 * and exit with status 1, never crash or hang.
 *
 *     misuse before <call>     the call before shmem_init
 *     misuse after <call>      the call after shmem_finalize
 *     misuse list              the calls known to the two cases above
 *     misuse <case>            pe_range, not_symmetric, past_end, get_private,
 *                              init_twice, start_pes_count, finalize_twice
 */
#include <stdint.h>

#include "shmem_test.h"

static long sym_long;

static void call(const char *name)
{
    static long dst[4], src[4];
    long *p = &sym_long;
#define IS(x) (strcmp(name, x) == 0)
    if (IS("shmem_my_pe"))
        shmem_my_pe();
    else if (IS("shmem_n_pes"))
        shmem_n_pes();
    else if (IS("_my_pe"))
        _my_pe();
    else if (IS("_num_pes"))
        _num_pes();
    else if (IS("shmem_finalize"))
        shmem_finalize();
    else if (IS("shmem_global_exit"))
        shmem_global_exit(0);
    else if (IS("shmem_barrier_all"))
        shmem_barrier_all();
    else if (IS("shmem_sync_all"))
        shmem_sync_all();
    else if (IS("shmem_quiet"))
        shmem_quiet();
    else if (IS("shmem_fence"))
        shmem_fence();
    else if (IS("shmem_malloc"))
        shmem_malloc(8);
    else if (IS("shmalloc"))
        shmalloc(8);
    else if (IS("shmem_align"))
        shmem_align(64, 8);
    else if (IS("shmemalign"))
        shmemalign(64, 8);
    else if (IS("shmem_realloc"))
        shmem_realloc(NULL, 8);
    else if (IS("shrealloc"))
        shrealloc(NULL, 8);
    else if (IS("shmem_free"))
        shmem_free(NULL);
    else if (IS("shfree"))
        shfree(NULL);
    else if (IS("shmem_ptr"))
        shmem_ptr(p, 0);
    else if (IS("shmem_pe_accessible"))
        shmem_pe_accessible(0);
    else if (IS("shmem_addr_accessible"))
        shmem_addr_accessible(p, 0);
    else if (IS("shmem_putmem"))
        shmem_putmem(p, src, 8, 0);
    else if (IS("shmem_getmem"))
        shmem_getmem(dst, p, 8, 0);
    else if (IS("shmem_put64"))
        shmem_put64(p, src, 1, 0);
    else if (IS("shmem_get32"))
        shmem_get32(dst, p, 2, 0);
    else if (IS("shmem_long_put"))
        shmem_long_put(p, src, 1, 0);
    else if (IS("shmem_double_get"))
        shmem_double_get((double *)dst, (double *)p, 1, 0);
    else if (IS("shmem_int_p"))
        shmem_int_p((int *)p, 1, 0);
    else if (IS("shmem_char_g"))
        shmem_char_g((char *)p, 0);
    else
        fprintf(stderr, "misuse: unknown call %s\n", name), exit(2);
#undef IS
}

static const char *const calls[] = {
    "shmem_my_pe",       "shmem_n_pes",         "_my_pe",
    "_num_pes",          "shmem_finalize",      "shmem_global_exit",
    "shmem_barrier_all", "shmem_sync_all",      "shmem_quiet",
    "shmem_fence",       "shmem_malloc",        "shmalloc",
    "shmem_align",       "shmemalign",          "shmem_realloc",
    "shrealloc",         "shmem_free",          "shfree",
    "shmem_ptr",         "shmem_pe_accessible", "shmem_addr_accessible",
    "shmem_putmem",      "shmem_getmem",        "shmem_put64",
    "shmem_get32",       "shmem_long_put",      "shmem_double_get",
    "shmem_int_p",       "shmem_char_g"};

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "list")) {
        for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
            printf("%s\n", calls[i]);
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "before")) {
        call(argv[2]);
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "after")) {
        shmem_init();
        shmem_finalize();
        call(argv[2]);
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: misuse before|after <call> | list | <case>\n");
        return 2;
    }
    const char *c = argv[1];
    if (!strcmp(c, "start_pes_count")) {
        start_pes(1000);
        return 0;
    }
    shmem_init();
    long *sym = shmem_malloc(4 * sizeof(long)), local[4] = {0};
    int n = shmem_n_pes();
    if (!strcmp(c, "pe_range"))
        shmem_long_p(sym, 1, n);
    else if (!strcmp(c, "pe_negative"))
        shmem_long_get(local, sym, 1, -1);
    else if (!strcmp(c, "not_symmetric"))
        shmem_long_put(local, sym, 1, 0);
    else if (!strcmp(c, "past_end"))
        shmem_putmem(sym, local, SIZE_MAX / 2, 0);
    else if (!strcmp(c, "get_private"))
        shmem_long_g(&sym_long, 0);
    else if (!strcmp(c, "init_twice"))
        shmem_init();
    else if (!strcmp(c, "finalize_twice")) {
        shmem_finalize();
        shmem_finalize();
    } else
        return 2;
    return 0;
}
