/*
 * An integration-test program for the option system, linked by
 * tools/hsrts-link: it prints what the program was given (argv, the argv
 * API) and a few option values the runtime settled on, then returns 3 so
 * the tests can tell that hs_program_main ran and its result came back.
 */
#include <inttypes.h>
#include <stdio.h>

#include "RtsAPI.h"
#include "flags/flags.h"

static void print_args(const char *what, int argc, char **argv)
{
    /* argv[0] is a path that depends on where the test runs: skip it. */
    printf("%s:", what);
    for (int i = 1; i < argc; i++)
        printf(" [%s]", argv[i]);
    printf("%s\n", argv[argc] == NULL ? "" : " NOT-NULL-TERMINATED");
}

int hs_program_main(int argc, char *argv[]);

int hs_program_main(int argc, char *argv[])
{
    int n;
    char **v;
    print_args("argv", argc, argv);
    getProgArgv(&n, &v);
    print_args("prog", n, v);
    getFullProgArgv(&n, &v);
    print_args("full", n, v);
    printf("A=%" PRIu64 " G=%" PRIu32 " stats=%d sanity=%d\n", rts_flags.gc.alloc_area_bytes,
           rts_flags.gc.generations, (int)rts_flags.stats.level, (int)rts_flags.debug.sanity);
    fflush(stdout);
    return 3;
}
