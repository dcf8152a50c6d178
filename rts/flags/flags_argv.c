/*
 * The program's argument vectors: splitting the command line into program
 * and RTS arguments, and GHC's argv API (getProgArgv and friends).
 *
 * State: three copies owned here, installed by flags_setup() and freed by
 * flags_free(): the full argv as the process received it, the program's
 * argv (RTS arguments removed) and the RTS arguments of every source in
 * order (rts_opts, GHCRTS, command line), which statistics files print in
 * their header. Each is NULL-terminated. They are written only during
 * start-up and by the set* functions, which, as in GHC, are not
 * thread-safe.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "RtsAPI.h"
#include "flags/flags_internal.h"
#include "messages.h"

static int full_argc;
static char **full_argv;
static int prog_argc;
static char **prog_argv;
static int rts_argc;
static char **rts_argv;
/* The message prefix must outlive every argv copy, so it has its own. */
static char prog_name_buf[256];

static void set_prog_name(const char *argv0)
{
    snprintf(prog_name_buf, sizeof prog_name_buf, "%s", argv0 ? argv0 : "");
    msg_set_prog_name(prog_name_buf);
}

void flags_split_argv(int argc, char *const argv[], int *p_argc, char **prog, int *r_argc,
                      char **rts)
{
    int np = 0, nr = 0, i = 1;
    bool in_rts = false;
    if (argc > 0)
        prog[np++] = argv[0];
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--RTS") == 0) {
            i++; /* dropped; everything after it is the program's */
            break;
        }
        if (strcmp(a, "--") == 0)
            break; /* kept, with everything after it */
        if (strcmp(a, "+RTS") == 0)
            in_rts = true;
        else if (strcmp(a, "-RTS") == 0)
            in_rts = false;
        else if (in_rts)
            rts[nr++] = argv[i];
        else
            prog[np++] = argv[i];
    }
    for (; i < argc; i++)
        prog[np++] = argv[i];
    prog[np] = NULL;
    rts[nr] = NULL;
    *p_argc = np;
    *r_argc = nr;
}

static char **copy_argv(int argc, char *const argv[])
{
    char **copy = calloc((size_t)argc + 1, sizeof *copy);
    if (copy == NULL)
        abort();
    for (int i = 0; i < argc; i++) {
        copy[i] = strdup(argv[i] ? argv[i] : "");
        if (copy[i] == NULL)
            abort();
    }
    return copy;
}

static void free_argv(int argc, char **argv)
{
    if (argv == NULL)
        return;
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    free(argv);
}

void flags_argv_install(int f_argc, char *const f_argv[], int p_argc, char *const p_argv[],
                        int r_argc, char **r_argv_owned)
{
    setFullProgArgv(f_argc, (char **)f_argv);
    setProgArgv(p_argc, (char **)p_argv);
    free_argv(rts_argc, rts_argv);
    rts_argc = r_argc;
    rts_argv = r_argv_owned;
}

void flags_argv_free(void)
{
    freeFullProgArgv();
    free_argv(prog_argc, prog_argv);
    prog_argv = NULL;
    prog_argc = 0;
    free_argv(rts_argc, rts_argv);
    rts_argv = NULL;
    rts_argc = 0;
}

void flags_rts_args(int *argc, char ***argv)
{
    *argc = rts_argc;
    *argv = rts_argv;
}

/* ---- GHC's public argv API ------------------------------------------------- */

void getProgArgv(int *argc, char **argv[])
{
    if (argc)
        *argc = prog_argc;
    if (argv)
        *argv = prog_argv;
}

/* Also renames the program, as GHC's does (withProgName relies on it). */
void setProgArgv(int argc, char *argv[])
{
    char **copy = copy_argv(argc, argv);
    free_argv(prog_argc, prog_argv);
    prog_argc = argc;
    prog_argv = copy;
    if (argc > 0)
        set_prog_name(prog_argv[0]);
}

void getFullProgArgv(int *argc, char **argv[])
{
    if (argc)
        *argc = full_argc;
    if (argv)
        *argv = full_argv;
}

void setFullProgArgv(int argc, char *argv[])
{
    char **copy = copy_argv(argc, argv);
    free_argv(full_argc, full_argv);
    full_argc = argc;
    full_argv = copy;
}

void freeFullProgArgv(void)
{
    free_argv(full_argc, full_argv);
    full_argc = 0;
    full_argv = NULL;
}
