/*
 * libFuzzer harness for the whole argument path: defaults, the defaults
 * hook, rts_opts, GHCRTS, the command line (with +RTS/-RTS/--RTS
 * splitting), normalisation, then what flags_setup would print (--info,
 * the usage) and the argv API it would install. Everything goes through
 * the non-exiting core (flags_run), so one process runs millions of inputs.
 *
 * Input layout:
 *   byte 0: bits 0-1 way (threaded, debug), bit 2 setuid, bit 3 NUMA
 *           support, bits 4-6 policy level (mod 5), bit 7 unknown memory
 *   byte 1: bits 0-2 CPU count - 1, bit 3 rts_hs_main, bit 4 rts_opts
 *           given, bit 5 GHCRTS set, bit 6 no suggestions, bit 7 hook
 *   then NUL-separated strings: rts_opts, GHCRTS, argv[1], argv[2], ...
 *
 * Besides crashes and sanitizer reports, the harness traps when a run that
 * succeeded breaks an invariant the cross-checks promise.
 *
 * Built with -DFLAGS_FUZZ_SEEDGEN instead, this file is the seed corpus
 * generator: one input per table row (its example, in every source) and
 * a libFuzzer dictionary of every spelling.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flags/flags_internal.h"

#define MAX_ARGS 64

#ifndef FLAGS_FUZZ_SEEDGEN

static FILE *sink;

static void to_sink(void *ctx, const char *line)
{
    fputs(line, sink);
    fputc('\n', sink);
}

static void hook(void)
{
    rts_flags.gc.generations = 3;
    rts_flags.gc.alloc_area_bytes = 1 << 20;
}

#define REQUIRE(c)                                         \
    do {                                                   \
        if (!(c)) {                                        \
            fprintf(stderr, "invariant broken: %s\n", #c); \
            __builtin_trap();                              \
        }                                                  \
    } while (0)

static void check_invariants(const FlagsRun *run, int argc)
{
    const RtsFlags *f = &run->flags;
    REQUIRE(run->parse.n_errors == 0);
    REQUIRE(f->gc.stack_chunk_buffer_bytes <= f->gc.stack_chunk_bytes / 2);
    REQUIRE(f->gc.max_heap_bytes == 0 || f->gc.alloc_area_bytes <= f->gc.max_heap_bytes);
    REQUIRE(f->gc.max_heap_bytes == 0 || f->gc.heap_size_suggestion_bytes <= f->gc.max_heap_bytes);
    REQUIRE(!(f->gc.nonmoving && (f->gc.generations == 1 || f->gc.compact)));
    REQUIRE(f->gc.generations >= 1);
    REQUIRE(f->gc.alloc_area_bytes < (16u << 20) || f->gc.nursery_chunk_bytes == (4u << 20));
    REQUIRE(f->gc.large_alloc_lim_bytes != 0);
    REQUIRE(f->misc.tick_interval >= 0);
    REQUIRE(f->misc.tick_interval == 0 || f->misc.ctxt_switch_time == 0 ||
            f->misc.tick_interval <= f->misc.ctxt_switch_time);
    REQUIRE(f->par.n_capabilities >= 1);
    REQUIRE(f->misc.io_manager != NULL);
    REQUIRE(run->prog_argc <= (argc > 0 ? argc : 0));
    REQUIRE(run->prog_argv[run->prog_argc] == NULL);
    REQUIRE(run->rts_argv == NULL || run->rts_argv[run->rts_argc] == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    if (sink == NULL)
        sink = fopen("/dev/null", "w");
    uint8_t c0 = data[0], c1 = data[1];
    FlagsEnv env = {
        .way = c0 & 3u,
        .n_cpus = 1u + (c1 & 7u),
        .phys_mem_bytes = (c0 & 0x80) ? 0 : (uint64_t)8 << 30,
        .setuid = (c0 & 4) != 0,
        .numa_supported = (c0 & 8) != 0,
    };
    RtsConfig conf;
    memset(&conf, 0, sizeof conf);
    conf.rts_opts_enabled = (RtsOptsEnabledEnum)(((c0 >> 4) & 7u) % 5);
    conf.rts_hs_main = (c1 & 8) != 0;
    conf.rts_opts_suggestions = (c1 & 0x40) == 0;
    conf.defaultsHook = (c1 & 0x80) ? hook : NULL;

    /* The strings, NUL-separated; the copy guarantees a final NUL. */
    char *buf = malloc(size - 2 + 1);
    memcpy(buf, data + 2, size - 2);
    buf[size - 2] = '\0';
    char *strings[MAX_ARGS + 2];
    int n = 0;
    for (char *p = buf; n < MAX_ARGS + 2 && p <= buf + (size - 2); p += strlen(p) + 1)
        strings[n++] = p;
    const char *rts_opts = n > 0 ? strings[0] : "";
    const char *ghcrts = n > 1 ? strings[1] : "";
    conf.rts_opts = (c1 & 0x10) ? rts_opts : NULL;
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = (char *)"fuzz";
    for (int i = 2; i < n && argc < MAX_ARGS; i++)
        argv[argc++] = strings[i];
    argv[argc] = NULL;

    FlagsRun run;
    flags_run(&run, argc, argv, &conf, (c1 & 0x20) ? ghcrts : NULL, &env);
    switch (run.outcome) {
    case FLAGS_STOP_INFO:
        flags_info(sink, &conf, &run.flags, env.way);
        break;
    case FLAGS_STOP_USAGE:
        flags_usage(env.way, to_sink, NULL);
        break;
    case FLAGS_STOP_FATAL:
        break;
    case FLAGS_CONTINUE:
        check_invariants(&run, argc);
        /* What flags_setup installs, then frees at exit. */
        flags_argv_install(argc, argv, run.prog_argc, run.prog_argv, run.rts_argc, run.rts_argv);
        run.rts_argv = NULL;
        run.rts_argc = 0;
        int pc;
        char **pv;
        getProgArgv(&pc, &pv);
        REQUIRE(pc == 0 || pv[pc] == NULL);
        flags_argv_free();
        break;
    }
    for (size_t i = 0; i < run.parse.n_msgs; i++)
        REQUIRE(strchr(run.parse.msgs[i].text, '\n') == NULL);
    flags_run_free(&run);
    free(buf);
    return 0;
}

#else /* FLAGS_FUZZ_SEEDGEN */

static void write_seed(const char *dir, int *count, uint8_t c0, uint8_t c1, const char *rts_opts,
                       const char *ghcrts, const char *const *args, int nargs)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/seed-%04d", dir, (*count)++);
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        perror(path);
        exit(1);
    }
    fputc(c0, f);
    fputc(c1, f);
    fwrite(rts_opts, 1, strlen(rts_opts) + 1, f);
    fwrite(ghcrts, 1, strlen(ghcrts) + 1, f);
    for (int i = 0; i < nargs; i++)
        fwrite(args[i], 1, strlen(args[i]) + (i + 1 < nargs), f);
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s <corpus dir> <dictionary file>\n", argv[0]);
        return 2;
    }
    const uint8_t all_ways = 3, level_all = 4 << 4, level_some = 3 << 4;
    int count = 0;
    for (size_t i = 0; i < flags_table_len; i++) {
        const FlagSpec *s = &flags_table[i];
        const char *cmd[] = {"a", "+RTS", s->example, "-RTS", "b"};
        write_seed(argv[1], &count, all_ways | level_all | 8, 3, "", "", cmd, 5);
        write_seed(argv[1], &count, level_some, 0x20 | 1, "", s->example, cmd, 1);
        write_seed(argv[1], &count, 0, 0x10 | 0x08, s->example, "", cmd + 1, 2);
    }
    const char *mixed[] = {"+RTS",  "-A32m", "-kc8k", "-kb4k", "-RTS", "x",
                           "--RTS", "+RTS",  "-M1m",  "--",    "-H"};
    write_seed(argv[1], &count, all_ways | level_all, 0x30 | 0x80, "-G1 -xn", "-M4k -A8m", mixed,
               11);
    FILE *dict = fopen(argv[2], "w");
    if (dict == NULL) {
        perror(argv[2]);
        return 1;
    }
    const char *extra[] = {"+RTS", "-RTS", "--RTS", "--",     "stderr", "k",  "m",
                           "g",    "t",    "w",     "b",      "=",      "0x", "1e3",
                           "yes",  "no",   "auto",  "select", "mio"};
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
        fprintf(dict, "\"%s\"\n", extra[i]);
    for (size_t i = 0; i < flags_table_len; i++)
        fprintf(dict, "\"%s\"\n", flags_table[i].name);
    fclose(dict);
    printf("fuzz_flags: %d seeds in %s, dictionary %s\n", count, argv[1], argv[2]);
    return 0;
}

#endif
