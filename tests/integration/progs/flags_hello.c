/*
 * The smallest program for tools/hsrts-link, using only the installed
 * public headers: prints its arguments (RTS ones removed) and returns 0.
 */
#include <stdio.h>

#include "RtsAPI.h"

int hs_program_main(int argc, char *argv[]);

int hs_program_main(int argc, char *argv[])
{
    printf("hello:");
    for (int i = 1; i < argc; i++)
        printf(" [%s]", argv[i]);
    printf("\n");
    return 0;
}
