/*
 * Where the statistics go (../shared/reference/ghc-rts-interfaces.md §4.1):
 * stderr when -t/-s/-S name no file or the file "stderr", else the named
 * file, truncated, whose first line is the command line that ran the
 * program, so a file found later says which run it describes.
 */
#include <stdio.h>
#include <string.h>

#include "flags/flags.h"
#include "messages.h"
#include "stats/stats_internal.h"

FILE *stats_out;

/* 'it'\''s': single quotes, a quote inside closed, escaped and reopened. */
static void print_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    }
    fputs("' ", f);
}

void stats_print_command_line(FILE *f, int prog_argc, char *const *prog_argv, int rts_argc,
                              char *const *rts_argv)
{
    for (int i = 0; i < prog_argc; i++)
        print_quoted(f, prog_argv[i]);
    fputs("+RTS ", f);
    for (int i = 0; i < rts_argc; i++)
        print_quoted(f, rts_argv[i]);
    fputc('\n', f);
}

void stats_output_open(void)
{
    const StatsFlags *fl = &rts_flags.stats;
    stats_out = NULL;
    if (fl->file == NULL || strcmp(fl->file, "stderr") == 0) {
        if (fl->level >= STATS_ONELINE)
            stats_out = stderr;
        return;
    }
    /*
     * A file named by -t/-s/-S is created even when a later -T lowered the
     * level to "collect only", as in GHC (it opens the file while parsing).
     */
    FILE *f = fopen(fl->file, "w+");
    if (f == NULL) {
        /* GHC's errorBelch text ends with its own newline: a blank line follows. */
        msg_error("Can't open stats file %s\n", fl->file);
        flags_usage_to_stderr();
        msg_exit(1);
    }
    int prog_argc, rts_argc;
    char **prog_argv, **rts_argv;
    getProgArgv(&prog_argc, &prog_argv);
    flags_rts_args(&rts_argc, &rts_argv);
    stats_print_command_line(f, prog_argc, prog_argv, rts_argc, rts_argv);
    fflush(f);
    stats_out = f;
}

void stats_output_close(void)
{
    if (stats_out && stats_out != stderr)
        fclose(stats_out);
    stats_out = NULL;
}
