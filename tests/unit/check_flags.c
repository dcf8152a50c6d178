/*
 * The option system's tests, driven by the option table wherever they can
 * be: every row's example, way, policy class, default and bounds; then the
 * argument kinds, the cross-checks, the policy levels against each source,
 * precedence, argv splitting, --info and -?, and the exiting wrapper
 * flags_setup() in a child process.
 *
 * Runs the parser core with a hand-made FlagsEnv, so every way is tested
 * from whichever library (v or debug) the test is linked with.
 */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "flags/flags_internal.h"
#include "hsrts_config.h"
#include "test_util.h"

#define KiB      ((uint64_t)1 << 10)
#define MiB      ((uint64_t)1 << 20)
#define GiB      ((uint64_t)1 << 30)
#define ALL_WAYS (FLAGS_WAY_THREADED | FLAGS_WAY_DEBUG)
#define ADVICE   "Use hs_init_with_rtsopts() or hs_init_ghc() to enable them."

/* ---- Helpers ------------------------------------------------------------------ */

static FlagsEnv env_way(unsigned way)
{
    FlagsEnv e = {.way = way, .n_cpus = 4, .phys_mem_bytes = 16 * GiB, .numa_supported = true};
    return e;
}

static RtsConfig conf_level(RtsOptsEnabledEnum level)
{
    RtsConfig c;
    memset(&c, 0, sizeof c);
    c.rts_opts_enabled = level;
    c.rts_opts_suggestions = true;
    return c;
}

/* "prog +RTS <args> -RTS" with the given args; the run must be freed. */
static void run_cmd(FlagsRun *run, const FlagsEnv *env, const RtsConfig *conf, const char *ghcrts,
                    int n, const char *const *args)
{
    char *argv[64];
    int argc = 0;
    argv[argc++] = (char *)"prog";
    argv[argc++] = (char *)"+RTS";
    for (int i = 0; i < n && argc < 62; i++)
        argv[argc++] = (char *)args[i];
    argv[argc] = NULL;
    flags_run(run, argc, argv, conf, ghcrts, env);
}

/* All messages, one per line (kind letter first: E, W or F). */
static const char *msgs(const FlagsRun *run)
{
    static char buf[8192];
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < run->parse.n_msgs && used < sizeof buf; i++) {
        const FlagsMsg *m = &run->parse.msgs[i];
        char k = m->kind == FLAGS_MSG_ERROR ? 'E' : m->kind == FLAGS_MSG_WARNING ? 'W' : 'F';
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%c: %s", used ? "\n" : "", k,
                                 m->text);
    }
    return buf;
}

/* Run one argument at level All in every way; returns the run (to free). */
static FlagsOutcome run1(FlagsRun *run, const char *arg)
{
    FlagsEnv env = env_way(ALL_WAYS);
    RtsConfig conf = conf_level(RtsOptsAll);
    run_cmd(run, &env, &conf, NULL, 1, &arg);
    return run->outcome;
}

/* Expect exactly one message for arg (in every way, level All). */
static void expect_msg(const char *arg, const char *expected)
{
    FlagsRun run;
    run1(&run, arg);
    ck_assert_msg(strcmp(msgs(&run), expected) == 0, "%s: got '%s', want '%s'", arg, msgs(&run),
                  expected);
    flags_run_free(&run);
}

static void expect_ok(const char *arg)
{
    FlagsRun run;
    FlagsOutcome o = run1(&run, arg);
    ck_assert_msg(o == FLAGS_CONTINUE && run.parse.n_msgs == 0, "%s: outcome %d, messages '%s'",
                  arg, o, msgs(&run));
    flags_run_free(&run);
}

static void *field_of(RtsFlags *f, const FlagSpec *s)
{
    return (char *)f + s->offset;
}

static uint64_t field_u(RtsFlags *f, const FlagSpec *s)
{
    void *p = field_of(f, s);
    switch (s->field) {
    case FLAG_FIELD_U64:
        return *(uint64_t *)p;
    case FLAG_FIELD_U32:
        return *(uint32_t *)p;
    case FLAG_FIELD_UPTR:
        return *(uintptr_t *)p;
    case FLAG_FIELD_BOOL:
        return *(bool *)p;
    default:
        return 0;
    }
}

static bool is_prof_or_ticky(const FlagSpec *s)
{
    return (s->way & (FLAGS_WAY_PROF | FLAGS_WAY_TICKY)) != 0;
}

/* ---- Every row ------------------------------------------------------------------- */

/* Each row's example is accepted where the row's way exists. */
START_TEST(row_example_accepted)
{
    const FlagSpec *s = &flags_table[_i];
    ck_assert_ptr_nonnull(s->example);
    ck_assert_ptr_nonnull(s->help);
    ck_assert_msg(strncmp(s->example, s->name, strlen(s->name)) == 0, "%s: example %s", s->name,
                  s->example);
    FlagsRun run;
    FlagsOutcome o = run1(&run, s->example);
    if (is_prof_or_ticky(s)) {
        ck_assert_int_eq(o, FLAGS_STOP_USAGE);
        ck_assert_ptr_nonnull(strstr(msgs(&run), "requires the program to be built with -"));
    } else if (strcmp(s->name, "-?") == 0) {
        ck_assert_int_eq(o, FLAGS_STOP_USAGE);
        ck_assert_int_eq(run.parse.n_msgs, 0);
    } else if (strcmp(s->name, "--info") == 0) {
        ck_assert_int_eq(o, FLAGS_STOP_INFO);
    } else if (strcmp(s->name, "-xt") == 0) {
        ck_assert_str_eq(msgs(&run), "E: The -xt option has been removed (#16795)");
    } else if (strcmp(s->name, "-h") == 0 && s->form == FLAG_FORM_BARE) {
        ck_assert_str_eq(msgs(&run), "W: -h is deprecated, use -hT instead.");
        ck_assert_int_eq(o, FLAGS_CONTINUE);
    } else {
        ck_assert_msg(o == FLAGS_CONTINUE && run.parse.n_msgs == 0, "%s: %d '%s'", s->example, o,
                      msgs(&run));
    }
    flags_run_free(&run);
}
END_TEST

/* A flag of another way is refused with a message naming that way. */
START_TEST(row_way_refused)
{
    const FlagSpec *s = &flags_table[_i];
    if (s->way == 0)
        return;
    FlagsEnv env = env_way(0);
    RtsConfig conf = conf_level(RtsOptsAll);
    FlagsRun run;
    run_cmd(&run, &env, &conf, NULL, 1, &s->example);
    char want[256];
    const char *tail = (s->way & FLAGS_WAY_PROF)    ? "-prof"
                       : (s->way & FLAGS_WAY_TICKY) ? "-ticky"
                       : s->way == ALL_WAYS ? "the threaded debug runtime (libhsrts_thr_debug)"
                       : s->way == FLAGS_WAY_THREADED ? "the threaded runtime (libhsrts_thr)"
                                                      : "the debug runtime (libhsrts_debug)";
    snprintf(want, sizeof want, "E: the flag %s requires the program to be built with %s",
             s->example, tail);
    ck_assert_str_eq(msgs(&run), want);
    ck_assert_int_eq(run.outcome, FLAGS_STOP_USAGE);
    flags_run_free(&run);
}
END_TEST

/* Under -rtsopts=some, the table's class decides; unsafe stops at once. */
START_TEST(row_safety_class)
{
    const FlagSpec *s = &flags_table[_i];
    if (is_prof_or_ticky(s))
        return;
    FlagsEnv env = env_way(ALL_WAYS);
    RtsConfig conf = conf_level(RtsOptsSafeOnly);
    FlagsRun run;
    run_cmd(&run, &env, &conf, NULL, 1, &s->example);
    bool has_value = strlen(s->example) > strlen(s->name);
    bool unsafe = s->safety == FLAG_UNSAFE || (s->safety == FLAG_SAFE_BARE && has_value);
    if (unsafe) {
        ck_assert_int_eq(run.outcome, FLAGS_STOP_FATAL);
        ck_assert_str_eq(msgs(&run), "F: Most RTS options are disabled. " ADVICE);
    } else {
        ck_assert_msg(run.outcome != FLAGS_STOP_FATAL, "%s refused: %s", s->example, msgs(&run));
    }
    flags_run_free(&run);
}
END_TEST

/* Every row that owns a default puts it in its field. */
START_TEST(row_default)
{
    const FlagSpec *s = &flags_table[_i];
    if (!s->owns_default)
        return;
    FlagsEnv env = env_way(0);
    RtsFlags f;
    flags_defaults(&f, &env);
    if (s->field == FLAG_FIELD_DOUBLE)
        ck_assert_double_eq(*(double *)field_of(&f, s), s->def.d);
    else if (s->field == FLAG_FIELD_STR && s->def.s)
        ck_assert_str_eq(*(char **)field_of(&f, s), s->def.s);
    else if (s->field == FLAG_FIELD_STR)
        ck_assert_ptr_null(*(char **)field_of(&f, s));
    else
        ck_assert_uint_eq(field_u(&f, s), s->def.u);
    flags_release(&f);
}
END_TEST

/* Numeric rows: the bounds are accepted, one step beyond is refused. */
START_TEST(row_bounds)
{
    const FlagSpec *s = &flags_table[_i];
    if (s->way & ~(unsigned)ALL_WAYS || s->form == FLAG_FORM_BARE)
        return;
    char arg[128], want[256];
    const char *eq = s->name[1] == '-' ? "=" : "";
    if (s->kind == FLAG_ARG_SIZE || s->kind == FLAG_ARG_INT || s->kind == FLAG_ARG_MASK) {
        bool exact = s->umax < ((uint64_t)1 << 53) || s->kind != FLAG_ARG_SIZE;
        const char *fmt = s->base == 16 ? "%s%s%" PRIx64 : "%s%s%" PRIu64;
        snprintf(arg, sizeof arg, fmt, s->name, eq, s->umin);
        FlagsRun run;
        run1(&run, arg);
        /* (a bound may still fail a cross-check, such as -kc8 against -kb) */
        ck_assert_msg(strstr(msgs(&run), "error in RTS option") == NULL, "%s: %s", arg, msgs(&run));
        if (s->field != FLAG_FIELD_NONE && !s->apply)
            ck_assert_uint_eq(field_u(&run.flags, s), s->umin);
        flags_run_free(&run);
        if (exact) {
            snprintf(arg, sizeof arg, fmt, s->name, eq, s->umax);
            run1(&run, arg);
            ck_assert_msg(strstr(msgs(&run), "error in RTS option") == NULL, "%s: %s", arg,
                          msgs(&run));
            flags_run_free(&run);
        }
        const char *what = s->kind == FLAG_ARG_SIZE ? "size" : "value";
        if (s->bad_value) /* GHC's own line for this flag (bad value for -N) */
            snprintf(want, sizeof want, "E: %s%%.0s", s->bad_value);
        else
            snprintf(want, sizeof want,
                     "E: error in RTS option %%s: %s outside allowed range (%" PRIu64 " - %" PRIu64
                     ")",
                     what, s->umin, s->umax);
        if (s->umin > 0) {
            snprintf(arg, sizeof arg, fmt, s->name, eq, s->umin - 1);
            char w[300];
            snprintf(w, sizeof w, want, arg);
            expect_msg(arg, w);
        }
        if (s->umax < UINT64_MAX && exact) {
            snprintf(arg, sizeof arg, fmt, s->name, eq, s->umax + 1);
            char w[300];
            snprintf(w, sizeof w, want, arg);
            expect_msg(arg, w);
        } else if (!exact) {
            snprintf(arg, sizeof arg, "%s%s1e30", s->name, eq);
            char w[300];
            snprintf(w, sizeof w, want, arg);
            expect_msg(arg, w);
        }
    } else if (s->kind == FLAG_ARG_TIME || s->kind == FLAG_ARG_DOUBLE) {
        snprintf(arg, sizeof arg, "%s%s%.17g", s->name, eq, s->min);
        expect_ok(arg);
        snprintf(arg, sizeof arg, "%s%s%.17g", s->name, eq, s->max);
        expect_ok(arg);
        /* GHC's bad_option rows say only that the option is bad. */
        const char *range_fmt =
            s->bad_option ? "E: bad RTS option: %s"
                          : "E: error in RTS option %s: value outside allowed range (%g - %g)";
        snprintf(arg, sizeof arg, "%s%s%.17g", s->name, eq, s->max * 2 + 1);
        snprintf(want, sizeof want, range_fmt, arg, s->min, s->max);
        expect_msg(arg, want);
        snprintf(arg, sizeof arg, "%s%s-1", s->name, eq);
        snprintf(want, sizeof want, range_fmt, arg, s->min, s->max);
        expect_msg(arg, want);
    } else {
        return;
    }
    /* Garbage is never a silent zero. */
    if (s->kind != FLAG_ARG_FILE && s->kind != FLAG_ARG_LETTERS && s->kind != FLAG_ARG_ENUM) {
        /* (no spelling continues with z, so this is the row's own argument) */
        snprintf(arg, sizeof arg, "%s%szzz", s->name, eq);
        snprintf(want, sizeof want, "E: error in RTS option %s: unable to parse number 'zzz'", arg);
        expect_msg(arg, want);
    }
}
END_TEST

/* Bare rows refuse a value, and the -? text lists every listed row. */
START_TEST(row_bare_refuses_value)
{
    const FlagSpec *s = &flags_table[_i];
    if (s->form != FLAG_FORM_BARE || is_prof_or_ticky(s))
        return;
    char arg[128], want[300];
    bool is_long = s->name[1] == '-';
    snprintf(arg, sizeof arg, "%s%s", s->name, is_long ? "=1" : "7");
    /* -c7 and -h7 are the other row of the same spelling. */
    if (strcmp(s->name, "-c") == 0 || strcmp(s->name, "-h") == 0)
        return;
    snprintf(want, sizeof want, "E: flag %s given an argument when none was expected: %s", s->name,
             arg);
    expect_msg(arg, want);
}
END_TEST

static void collect_line(void *ctx, const char *line)
{
    FILE *f = ctx;
    fprintf(f, "%s\n", line);
}

static char *usage_text(unsigned way)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    flags_usage(way, collect_line, f);
    fclose(f);
    return buf;
}

START_TEST(row_in_usage)
{
    const FlagSpec *s = &flags_table[_i];
    char *all = usage_text(ALL_WAYS), *vanilla = usage_text(0);
    /* The label, then the help on the same line or (long labels) the next. */
    char label[128], line[140];
    snprintf(label, sizeof label, "  %s%s%s", s->name,
             s->name[1] == '-' && s->form == FLAG_FORM_EQUALS ? "=" : "",
             s->arg_help ? s->arg_help : "");
    snprintf(line, sizeof line, "\n%s%c", label, strlen(label) >= 12 ? '\n' : ' ');
    if (s->group == FLAG_GROUP_HIDDEN) {
        /* -h and -c share spellings with listed rows. */
        if (strcmp(s->name, "-h") != 0)
            ck_assert_msg(strstr(all, line) == NULL, "%s listed", s->name);
    } else {
        ck_assert_msg(strstr(all, line) != NULL, "%s not listed", s->name);
        if (s->way & FLAGS_WAY_THREADED)
            ck_assert_msg(strstr(vanilla, line) == NULL, "%s listed in vanilla", s->name);
    }
    free(all);
    free(vanilla);
}
END_TEST

/* ---- Argument kinds ---------------------------------------------------------------- */

START_TEST(kind_size_suffixes)
{
    static const struct {
        const char *arg;
        uint64_t bytes;
    } cases[] = {
        {"-A8192", 8192},     {"-A16k", 16 * KiB}, {"-A16K", 16 * KiB},   {"-A3m", 3 * MiB},
        {"-A3M", 3 * MiB},    {"-A1g", GiB},       {"-A1G", GiB},         {"-A1t", GiB * 1024},
        {"-A1T", GiB * 1024}, {"-A8192b", 8192},   {"-A8192B", 8192},     {"-A1.5m", 3 * MiB / 2},
        {"-A1e6", 1000000},   {"-A0x1p20", MiB},   {"-A2048w", 16 * KiB}, {"-A2048W", 16 * KiB},
        {"-A16.9k", 17305},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        FlagsRun run;
        run1(&run, cases[i].arg);
        ck_assert_msg(run.parse.n_msgs == 0, "%s: %s", cases[i].arg, msgs(&run));
        ck_assert_uint_eq(run.flags.gc.alloc_area_bytes, cases[i].bytes);
        flags_run_free(&run);
    }
}
END_TEST

START_TEST(kind_size_strict)
{
    expect_msg("-A4mb", "E: error in RTS option -A4mb: unexpected 'b' after the unit suffix");
    expect_msg("-Abanana", "E: error in RTS option -Abanana: unable to parse number 'banana'");
    expect_msg("-A4x", "E: error in RTS option -A4x: unknown unit suffix 'x'");
    expect_msg("-A", "E: error in RTS option -A: missing value (expected -A<size>)");
    expect_msg("-A 4m", "E: error in RTS option -A 4m: unable to parse number ' 4m'");
    expect_msg("-Ainf", "E: error in RTS option -Ainf: unable to parse number 'inf'");
    expect_msg("-Anan", "E: error in RTS option -Anan: unable to parse number 'nan'");
    expect_msg("-A-1m", "E: error in RTS option -A-1m: size outside allowed range (8192 - "
                        "9223372036854775807)");
    expect_msg("-A1e400", "E: error in RTS option -A1e400: unable to parse number '1e400'");
    expect_msg("-xr1e30", "E: error in RTS option -xr1e30: size outside allowed range (1048576 - "
                          "18446744073709551615)");
    expect_msg("-A4k", "E: error in RTS option -A4k: size outside allowed range (8192 - "
                       "9223372036854775807)");
}
END_TEST

/*
 * The size ranges GHC's RtsFlags.c prints, written out here rather than read
 * from the table, and GHC's bad_option for -F, -Fd and -m.
 */
START_TEST(ghc_ranges_and_bad_options)
{
    static const struct {
        const char *arg, *range;
    } ranges[] = {
        {"-M1", "4096 - 18446744073709551615"},
        {"-H1", "4096 - 18446744073709551615"},
        {"-O1", "4096 - 18446744073709551615"},
        {"-Mgrace=1", "4096 - 18446744073709551615"},
        {"-ki1", "8 - 18446744073709551615"},
        {"-k1", "8 - 18446744073709551615"},
        {"-kc1", "8 - 18446744073709551615"},
        {"-kb1", "8 - 18446744073709551615"},
        {"-K5g", "0 - 4294967295"},
        {"-A1", "8192 - 9223372036854775807"},
        {"-AL1", "8192 - 9223372036854775807"},
        {"-n1", "8192 - 9223372036854775807"},
        {"-xq1", "4096 - 9223372036854775807"},
        {"-xr1", "1048576 - 18446744073709551615"},
    };
    char want[200];
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        snprintf(want, sizeof want, "E: error in RTS option %s: size outside allowed range (%s)",
                 ranges[i].arg, ranges[i].range);
        expect_msg(ranges[i].arg, want);
    }
    FlagsRun run;
    run1(&run, "-M1e19");
    ck_assert_uint_eq(run.flags.gc.max_heap_bytes, (uint64_t)1e19);
    flags_run_free(&run);
    run1(&run, "-kc1e19");
    ck_assert_uint_eq(run.flags.gc.stack_chunk_bytes, (uint64_t)1e19);
    flags_run_free(&run);
    run1(&run, "-K4294967295");
    ck_assert_uint_eq(run.flags.gc.max_stack_bytes, 4294967295u);
    flags_run_free(&run);
    const char *bad[] = {"-F-1", "-F-0.5", "-Fd-1", "-m101", "-m-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(want, sizeof want, "E: bad RTS option: %s", bad[i]);
        expect_msg(bad[i], want);
    }
    expect_msg("-xt", "E: The -xt option has been removed (#16795)");
    expect_msg("-xtfoo", "E: The -xt option has been removed (#16795)");
}
END_TEST

START_TEST(kind_int)
{
    expect_msg("-G3.5", "E: error in RTS option -G3.5: unable to parse number '3.5'");
    expect_msg("-G+3", "E: error in RTS option -G+3: unable to parse number '+3'");
    expect_msg("-G-3", "E: error in RTS option -G-3: unable to parse number '-3'");
    expect_msg("-G2k", "E: error in RTS option -G2k: unable to parse number '2k'");
    expect_msg("-G0x2", "E: error in RTS option -G0x2: unable to parse number '0x2'");
    expect_msg("-G99999999999999999999999",
               "E: error in RTS option -G99999999999999999999999: unable to parse number "
               "'99999999999999999999999'");
    FlagsRun run;
    run1(&run, "-xb0x4000");
    ck_assert_uint_eq(run.flags.gc.heap_base, 0x4000);
    flags_run_free(&run);
    run1(&run, "-xb4096");
    ck_assert_uint_eq(run.flags.gc.heap_base, 4096);
    flags_run_free(&run);
    run1(&run, "-xm7fffffff");
    ck_assert_uint_eq(run.flags.misc.linker_mmap_base, 0x7fffffff);
    flags_run_free(&run);
    run1(&run, "-xm");
    ck_assert_uint_eq(run.flags.misc.linker_mmap_base, 0);
    flags_run_free(&run);
    run1(&run, "-G3");
    ck_assert_uint_eq(run.flags.gc.generations, 3);
    flags_run_free(&run);
}
END_TEST

START_TEST(kind_double_and_time)
{
    FlagsRun run;
    run1(&run, "-F1.25");
    ck_assert_double_eq(run.flags.gc.old_gen_factor, 1.25);
    flags_run_free(&run);
    run1(&run, "-c45");
    ck_assert_double_eq(run.flags.gc.compact_threshold, 45);
    ck_assert(!run.flags.gc.compact);
    flags_run_free(&run);
    run1(&run, "-c");
    ck_assert(run.flags.gc.compact);
    flags_run_free(&run);
    expect_msg("-F", "E: error in RTS option -F: missing value (expected -F<n>)");
    expect_msg("-F2x", "E: error in RTS option -F2x: unable to parse number '2x'");
    expect_msg("-m", "E: error in RTS option -m: missing value (expected -m<n>)");
    expect_msg("-C0.1s", "E: error in RTS option -C0.1s: unable to parse number '0.1s'");
    expect_msg("-Fnan", "E: error in RTS option -Fnan: unable to parse number 'nan'");
    run1(&run, "-C");
    ck_assert_double_eq(run.flags.misc.ctxt_switch_time, 0);
    flags_run_free(&run);
    run1(&run, "-i");
    ck_assert_double_eq(run.flags.prof.heap_prof_interval, 0.1);
    flags_run_free(&run);
    run1(&run, "--long-gc-sync");
    ck_assert_double_eq(run.flags.gc.long_gc_sync, 0.001);
    flags_run_free(&run);
    run1(&run, "--long-gc-sync=0.5");
    ck_assert_double_eq(run.flags.gc.long_gc_sync, 0.5);
    flags_run_free(&run);
    expect_msg("--long-gc-sync=",
               "E: error in RTS option --long-gc-sync=: missing value after '='");
    expect_msg("--eventlog-flush-interval",
               "E: error in RTS option --eventlog-flush-interval: missing value (expected "
               "--eventlog-flush-interval=<secs>)");
}
END_TEST

START_TEST(kind_enum)
{
    FlagsRun run;
    run1(&run, "--install-signal-handlers=no");
    ck_assert(!run.flags.misc.install_signal_handlers);
    flags_run_free(&run);
    run1(&run, "--read-tix-file=yes");
    ck_assert(run.flags.misc.read_tix_file);
    flags_run_free(&run);
    run1(&run, "--huge-pages=no");
    ck_assert(!run.flags.gc.huge_pages);
    flags_run_free(&run);
    run1(&run, "-T"); /* any other flag: the default */
    ck_assert(run.flags.gc.huge_pages);
    flags_run_free(&run);
    expect_msg("--huge-pages=2m",
               "E: error in RTS option --huge-pages=2m: unrecognised choice '2m' (the choices are: "
               "yes no)");
    expect_msg("--install-signal-handlers=maybe",
               "E: error in RTS option --install-signal-handlers=maybe: unrecognised choice "
               "'maybe' (the choices are: yes no)");
    /* I/O managers depend on the way. */
    FlagsEnv v = env_way(0), thr = env_way(FLAGS_WAY_THREADED);
    RtsConfig conf = conf_level(RtsOptsAll);
    const char *mio = "--io-manager=mio", *sel = "--io-manager=select",
               *nat = "--io-manager=native";
    run_cmd(&run, &v, &conf, NULL, 1, &mio);
    ck_assert_str_eq(msgs(&run), "E: error in RTS option --io-manager=mio: unavailable choice "
                                 "'mio' in this runtime (the choices are: auto select native "
                                 "posix)");
    flags_run_free(&run);
    run_cmd(&run, &thr, &conf, NULL, 1, &mio);
    ck_assert_str_eq(run.flags.misc.io_manager, "mio");
    flags_run_free(&run);
    run_cmd(&run, &thr, &conf, NULL, 1, &sel);
    ck_assert_str_eq(msgs(&run), "E: error in RTS option --io-manager=select: unavailable "
                                 "choice 'select' in this runtime (the choices are: auto mio "
                                 "native posix)");
    flags_run_free(&run);
    run_cmd(&run, &v, &conf, NULL, 1, &nat);
    ck_assert_str_eq(run.flags.misc.io_manager, "auto");
    flags_run_free(&run);
    expect_msg("--io-manager=winio", "E: error in RTS option --io-manager=winio: unavailable "
                                     "choice 'winio' in this runtime (the choices are: auto mio "
                                     "native posix)");
}
END_TEST

START_TEST(kind_file)
{
    FlagsRun run;
    const char *args[] = {"-Sfirst.log", "-sgc.log"};
    FlagsEnv env = env_way(0);
    RtsConfig conf = conf_level(RtsOptsAll);
    run_cmd(&run, &env, &conf, NULL, 2, args);
    ck_assert_int_eq(run.flags.stats.level, STATS_SUMMARY);
    ck_assert_str_eq(run.flags.stats.file, "gc.log");
    flags_run_free(&run);
    run1(&run, "-Sstderr");
    ck_assert_int_eq(run.flags.stats.level, STATS_VERBOSE);
    ck_assert_ptr_null(run.flags.stats.file);
    flags_run_free(&run);
    run1(&run, "-t");
    ck_assert_int_eq(run.flags.stats.level, STATS_ONELINE);
    ck_assert_ptr_null(run.flags.stats.file);
    flags_run_free(&run);
    run1(&run, "-pomystem");
    ck_assert_str_eq(run.flags.prof.hp_stem, "mystem");
    flags_run_free(&run);
    run1(&run, "-olx.eventlog");
    ck_assert_str_eq(run.flags.trace.eventlog_file, "x.eventlog");
    flags_run_free(&run);
    expect_msg("-ol", "E: error in RTS option -ol: missing value (expected -ol<file>)");
    expect_msg("-po", "E: error in RTS option -po: missing value (expected -po<file>)");
    /* The statistics level is one slot: the last flag wins. */
    const char *st[] = {"-s", "-T"};
    run_cmd(&run, &env, &conf, NULL, 2, st);
    ck_assert_int_eq(run.flags.stats.level, STATS_COLLECT);
    flags_run_free(&run);
}
END_TEST

START_TEST(kind_trace_letters)
{
    FlagsRun run;
    run1(&run, "-l");
    TraceFlags *t = &run.flags.trace;
    ck_assert(t->eventlog && t->scheduler && t->gc && t->sparks_sampled && t->user);
    ck_assert(!t->nonmoving_gc && !t->sparks_full && !t->timestamp);
    ck_assert_int_eq(run.flags.stats.level, STATS_COLLECT); /* g needs GC statistics */
    flags_run_free(&run);
    run1(&run, "-l-ag");
    t = &run.flags.trace;
    ck_assert(t->gc && !t->scheduler && !t->sparks_sampled && !t->user && !t->nonmoving_gc);
    flags_run_free(&run);
    run1(&run, "-l-g");
    ck_assert(!run.flags.trace.gc && run.flags.trace.scheduler);
    ck_assert_int_eq(run.flags.stats.level, STATS_NONE);
    flags_run_free(&run);
    run1(&run, "-lan");
    t = &run.flags.trace;
    ck_assert(t->nonmoving_gc && t->sparks_full && !t->timestamp);
    flags_run_free(&run);
    run1(&run, "-vt");
    ck_assert(run.flags.trace.trace_stderr && run.flags.trace.timestamp);
    ck_assert(!run.flags.trace.eventlog);
    flags_run_free(&run);
    expect_msg("-lz", "E: error in RTS option -lz: unknown event class 'z' (the classes are: s g "
                      "n p f u a t)");
    expect_msg("-lT", "E: error in RTS option -lT: event class 'T' requires the program to be "
                      "built with -ticky");
}
END_TEST

/* Table-driven over the -D letters. */
START_TEST(kind_debug_letters)
{
    for (const FlagLetter *l = flags_debug_letters; l->letter; l++) {
        char arg[8] = {'-', 'D', l->letter, 0};
        FlagsRun run;
        run1(&run, arg);
        /* Nothing, or (a subsystem hsrts lacks) one warning saying it traces nothing. */
        bool quiet = run.parse.n_msgs == 0;
        bool warned = run.parse.n_msgs == 1 && run.parse.msgs[0].kind == FLAGS_MSG_WARNING &&
                      strstr(run.parse.msgs[0].text, "traces nothing: hsrts") != NULL;
        ck_assert_msg(quiet || warned, "%s: %s", arg, msgs(&run));
        ck_assert_msg(*(bool *)((char *)&run.flags + l->offset), "%s did not set its class", arg);
        flags_run_free(&run);
    }
    /* The classes that print lines are quiet; the ones of absent subsystems say so. */
    expect_msg("-DsgbSpwtGaZ", "");
    expect_msg("-Dim",
               "W: warning: debug class 'i' (interpreter) of -Dim traces nothing: hsrts has "
               "no bytecode interpreter\nW: warning: debug class 'm' (stm) of -Dim traces "
               "nothing: hsrts has no software transactional memory");
    FlagsRun run;
    run1(&run, "-DL");
    ck_assert(run.flags.debug.linker && run.flags.debug.linker_verbose);
    flags_run_free(&run);
    run1(&run, "-DSgb");
    ck_assert(run.flags.debug.sanity && run.flags.debug.gc && run.flags.debug.block_alloc);
    ck_assert(!run.flags.debug.scheduler);
    flags_run_free(&run);
    expect_msg("-DSx", "E: error in RTS option -DSx: unknown debug class 'x' (see -? for the "
                       "classes)");
    expect_msg("-D", "E: error in RTS option -D: missing value (expected -D<classes>)");
}
END_TEST

START_TEST(kind_unknown_and_unexpected)
{
    expect_msg("-foo", "E: unknown RTS option: -foo");
    expect_msg("--foo", "E: unknown RTS option: --foo");
    expect_msg("--numax", "E: unknown RTS option: --numax");
    expect_msg("-x", "E: incomplete RTS option: -x");
    expect_msg("-q", "E: incomplete RTS option: -q");
    expect_msg("-xz", "E: unknown RTS option: -xz");
    expect_msg("-qz", "E: unknown RTS option: -qz");
    expect_msg("-ox", "E: unknown RTS option: -ox");
    expect_msg("foo", "E: unexpected RTS argument: foo");
    expect_msg("", "E: unexpected RTS argument: ");
    expect_msg("-", "E: unknown RTS option: -");
    /* A message stays one line whatever the argument holds. */
    expect_msg("-foo\nbar\x7f", "E: unknown RTS option: -foo?bar?");
    expect_msg("-hTx", "E: flag -hT given an argument when none was expected: -hTx");
    expect_msg("-Mgrace", "E: error in RTS option -Mgrace: unable to parse number 'grace'");
    expect_msg("-ki", "E: error in RTS option -ki: missing value (expected -ki<size>)");
}
END_TEST

START_TEST(kind_special_values)
{
    FlagsRun run;
    run1(&run, "-H");
    ck_assert(run.flags.gc.heap_size_suggestion_auto);
    ck_assert_uint_eq(run.flags.gc.heap_size_suggestion_bytes, 0);
    flags_run_free(&run);
    run1(&run, "-H64m");
    ck_assert(!run.flags.gc.heap_size_suggestion_auto);
    ck_assert_uint_eq(run.flags.gc.heap_size_suggestion_bytes, 64 * MiB);
    flags_run_free(&run);
    run1(&run, "-k8k");
    ck_assert_uint_eq(run.flags.gc.init_stack_bytes, 8 * KiB);
    flags_run_free(&run);
    run1(&run, "-xn");
    ck_assert(run.flags.gc.nonmoving);
    flags_run_free(&run);
    run1(&run, "-Z");
    ck_assert(!run.flags.gc.squeeze_update_frames);
    flags_run_free(&run);
    run1(&run, "-hi");
    ck_assert_int_eq(run.flags.prof.heap_prof, HEAP_PROF_INFO_TABLE);
    flags_run_free(&run);
    run1(&run, "-h");
    ck_assert_int_eq(run.flags.prof.heap_prof, HEAP_PROF_CLOSURE_TYPE);
    flags_run_free(&run);
    run1(&run, "-N");
    ck_assert_uint_eq(run.flags.par.n_capabilities, 4);
    flags_run_free(&run);
    run1(&run, "-maxN8");
    ck_assert_uint_eq(run.flags.par.n_capabilities, 4);
    ck_assert(run.flags.par.max_n);
    flags_run_free(&run);
    run1(&run, "-maxN2");
    ck_assert_uint_eq(run.flags.par.n_capabilities, 2);
    flags_run_free(&run);
    run1(&run, "-qg");
    ck_assert(!run.flags.par.parallel_gc);
    flags_run_free(&run);
    run1(&run, "-qg2");
    ck_assert(run.flags.par.parallel_gc);
    ck_assert_uint_eq(run.flags.par.parallel_gc_gen, 2);
    flags_run_free(&run);
    run1(&run, "-g1");
    ck_assert(!run.flags.par.parallel_gc);
    flags_run_free(&run);
    run1(&run, "--numa");
    ck_assert(run.flags.gc.numa);
    ck_assert_uint_eq(run.flags.gc.numa_mask, UINT64_MAX);
    flags_run_free(&run);
    run1(&run, "--numa=5");
    ck_assert_uint_eq(run.flags.gc.numa_mask, 5);
    flags_run_free(&run);
    expect_msg("--numa=0", "E: error in RTS option --numa=0: value outside allowed range (1 - "
                           "18446744073709551615)");
    run1(&run, "--debug-numa=3");
    ck_assert(run.flags.gc.numa);
    ck_assert_uint_eq(run.flags.gc.debug_numa_nodes, 3);
    ck_assert_uint_eq(run.flags.gc.numa_mask, 7);
    flags_run_free(&run);
    FlagsEnv env = env_way(FLAGS_WAY_THREADED);
    env.numa_supported = false;
    RtsConfig conf = conf_level(RtsOptsAll);
    const char *numa = "--numa";
    run_cmd(&run, &env, &conf, NULL, 1, &numa);
    ck_assert_str_eq(msgs(&run), "E: --numa: this hsrts was built without NUMA support (libnuma)");
    flags_run_free(&run);
    /* -I: 0 turns idle GC off; alone it is the way's default. */
    run1(&run, "-I0");
    ck_assert(!run.flags.gc.do_idle_gc);
    flags_run_free(&run);
    run1(&run, "-I2");
    ck_assert(run.flags.gc.do_idle_gc);
    ck_assert_double_eq(run.flags.gc.idle_gc_delay, 2);
    flags_run_free(&run);
    run1(&run, "-I");
    ck_assert(run.flags.gc.do_idle_gc);
    ck_assert_double_eq(run.flags.gc.idle_gc_delay, 0.3);
    flags_run_free(&run);
}
END_TEST

/* ---- Defaults that depend on the machine --------------------------------------------- */

START_TEST(defaults_machine)
{
    RtsFlags f;
    FlagsEnv env = env_way(0);
    env.phys_mem_bytes = 0;
    flags_defaults(&f, &env);
    ck_assert_uint_eq(f.gc.max_stack_bytes, 8 * MiB);
    ck_assert(!f.gc.do_idle_gc);
    ck_assert_double_eq(f.gc.idle_gc_delay, 0);
    ck_assert_str_eq(f.misc.io_manager, "auto");
    ck_assert(f.par.parallel_gc && f.par.load_balance && !f.par.load_balance_set);
    ck_assert_uint_eq(f.gc.numa_mask, UINT64_MAX);
    flags_release(&f);
    env.phys_mem_bytes = 10 * GiB;
    env.way = FLAGS_WAY_THREADED;
    flags_defaults(&f, &env);
    ck_assert_uint_eq(f.gc.max_stack_bytes, 8 * GiB);
    ck_assert(f.gc.do_idle_gc);
    ck_assert_double_eq(f.gc.idle_gc_delay, 0.3);
    flags_release(&f);
    env.phys_mem_bytes = 1000 * GiB;
    flags_defaults(&f, &env);
    ck_assert_uint_eq(f.gc.max_stack_bytes, (uint64_t)UINT32_MAX * 8);
    flags_release(&f);
}
END_TEST

/* ---- Cross-checks (normalisation) ------------------------------------------------------ */

static void run_list(FlagsRun *run, unsigned way, int n, const char *const *args)
{
    FlagsEnv env = env_way(way);
    RtsConfig conf = conf_level(RtsOptsAll);
    run_cmd(run, &env, &conf, NULL, n, args);
}

#define RUN(run, way, ...)                                       \
    do {                                                         \
        const char *a_[] = {__VA_ARGS__};                        \
        run_list(run, way, (int)(sizeof a_ / sizeof a_[0]), a_); \
    } while (0)

START_TEST(cross_stack_chunk_buffer)
{
    FlagsRun run;
    RUN(&run, 0, "-kc8k", "-kb4k");
    ck_assert_int_eq(run.outcome, FLAGS_CONTINUE);
    flags_run_free(&run);
    RUN(&run, 0, "-kc8k", "-kb4097");
    ck_assert_str_eq(msgs(&run), "E: stack chunk buffer size (-kb) must be at most half the "
                                 "stack chunk size (-kc): 4097 > 8192 / 2");
    ck_assert_int_eq(run.outcome, FLAGS_STOP_USAGE);
    flags_run_free(&run);
}
END_TEST

START_TEST(cross_heap_sizes)
{
    FlagsRun run;
    RUN(&run, 0, "-M32m", "-H64m");
    ck_assert_str_eq(msgs(&run), "W: Maximum heap size (-M) is smaller than suggested heap size "
                                 "(-H); setting the maximum heap size to 67108864 bytes");
    ck_assert_uint_eq(run.flags.gc.max_heap_bytes, 64 * MiB);
    ck_assert_int_eq(run.outcome, FLAGS_CONTINUE);
    flags_run_free(&run);
    RUN(&run, 0, "-M2m", "-A8m");
    ck_assert_str_eq(msgs(&run),
                     "W: maximum heap size (-M) is smaller than minimum alloc area size (-A)");
    ck_assert_uint_eq(run.flags.gc.alloc_area_bytes, 2 * MiB);
    ck_assert_uint_eq(run.flags.gc.large_alloc_lim_bytes, 2 * MiB);
    flags_run_free(&run);
    RUN(&run, 0, "-M4k");
    ck_assert_str_eq(msgs(&run), "E: maximum heap size (-M) of 4096 bytes is too small for any "
                                 "allocation area (-A, at least 8192 bytes)");
    ck_assert_int_eq(run.outcome, FLAGS_STOP_USAGE);
    flags_run_free(&run);
    RUN(&run, 0, "-M0x1p40");
    ck_assert_int_eq(run.outcome, FLAGS_CONTINUE);
    ck_assert_uint_eq(run.flags.gc.max_heap_bytes, (uint64_t)1 << 40);
    flags_run_free(&run);
}
END_TEST

START_TEST(cross_nursery_chunks_and_balance)
{
    FlagsRun run;
    RUN(&run, FLAGS_WAY_THREADED, "-A16m");
    ck_assert_uint_eq(run.flags.gc.nursery_chunk_bytes, 4 * MiB);
    ck_assert_uint_eq(run.flags.par.load_balance_gen, 1);
    flags_run_free(&run);
    RUN(&run, FLAGS_WAY_THREADED, "-A16383k", "-n1m");
    ck_assert_uint_eq(run.flags.gc.nursery_chunk_bytes, MiB);
    flags_run_free(&run);
    RUN(&run, FLAGS_WAY_THREADED, "-n1m", "-A64m");
    ck_assert_uint_eq(run.flags.gc.nursery_chunk_bytes, 4 * MiB);
    ck_assert_uint_eq(run.flags.par.load_balance_gen, 0);
    flags_run_free(&run);
    RUN(&run, FLAGS_WAY_THREADED, "-A32767k");
    ck_assert_uint_eq(run.flags.par.load_balance_gen, 1);
    flags_run_free(&run);
    RUN(&run, FLAGS_WAY_THREADED, "-A64m", "-qb2");
    ck_assert_uint_eq(run.flags.par.load_balance_gen, 2);
    ck_assert(run.flags.par.load_balance);
    flags_run_free(&run);
    RUN(&run, FLAGS_WAY_THREADED, "-qb");
    ck_assert(!run.flags.par.load_balance);
    flags_run_free(&run);
    RUN(&run, 0, "-A4m");
    ck_assert_uint_eq(run.flags.gc.large_alloc_lim_bytes, 4 * MiB);
    flags_run_free(&run);
    RUN(&run, 0, "-AL64m");
    ck_assert_uint_eq(run.flags.gc.large_alloc_lim_bytes, 64 * MiB);
    flags_run_free(&run);
}
END_TEST

START_TEST(cross_collectors)
{
    FlagsRun run;
    RUN(&run, 0, "--nonmoving-gc", "-G1");
    ck_assert_str_eq(msgs(&run), "E: the non-moving collector (--nonmoving-gc, -xn) needs at "
                                 "least two generations: it cannot be used with -G1");
    ck_assert_int_eq(run.outcome, FLAGS_STOP_USAGE);
    flags_run_free(&run);
    RUN(&run, 0, "-G1", "-xn");
    ck_assert_int_eq(run.outcome, FLAGS_STOP_USAGE);
    flags_run_free(&run);
    RUN(&run, 0, "-xn", "-c");
    ck_assert_str_eq(msgs(&run), "E: the non-moving collector (--nonmoving-gc, -xn) cannot be "
                                 "used together with the compacting collector (-c)");
    ck_assert_int_eq(run.outcome, FLAGS_STOP_USAGE);
    flags_run_free(&run);
    RUN(&run, 0, "-xn", "-w");
    ck_assert_str_eq(msgs(&run), "E: the mark-region collector (-w) cannot be used together with "
                                 "the non-moving collector (--nonmoving-gc, -xn)");
    ck_assert_int_eq(run.outcome, FLAGS_STOP_USAGE);
    flags_run_free(&run);
    RUN(&run, 0, "--nonmoving-gc", "--copying-gc", "-c");
    ck_assert_str_eq(msgs(&run), "");
    ck_assert_int_eq(run.outcome, FLAGS_CONTINUE);
    ck_assert(!run.flags.gc.nonmoving);
    flags_run_free(&run);
    RUN(&run, 0, "--nonmoving-dense-allocator-count=0");
    ck_assert_int_eq(run.outcome, FLAGS_STOP_USAGE);
    flags_run_free(&run);
    RUN(&run, 0, "-xn", "--nonmoving-dense-allocator-count=2");
    ck_assert_int_eq(run.outcome, FLAGS_CONTINUE);
    ck_assert_uint_eq(run.flags.gc.nonmoving_dense_allocator_count, 2);
    flags_run_free(&run);
    RUN(&run, 0, "-xn", "-G1", "--copying-gc");
    ck_assert_int_eq(run.outcome, FLAGS_CONTINUE);
    flags_run_free(&run);
    RUN(&run, 0, "-xn", "-G3", "-c40");
    ck_assert_int_eq(run.outcome, FLAGS_CONTINUE);
    flags_run_free(&run);
    RUN(&run, 0, "-w", "-hT");
    ck_assert_str_eq(msgs(&run), "E: the mark-region collector (-w) cannot be used with heap "
                                 "profiling (-hT, -hi)");
    flags_run_free(&run);
    RUN(&run, FLAGS_WAY_THREADED, "-N2", "-qn3");
    ck_assert_str_eq(msgs(&run), "E: the number of GC threads (-qn3) must not exceed the number "
                                 "of capabilities (-N2)");
    flags_run_free(&run);
    RUN(&run, FLAGS_WAY_THREADED, "-N3", "-qn3");
    ck_assert_int_eq(run.outcome, FLAGS_CONTINUE);
    flags_run_free(&run);
}
END_TEST

START_TEST(cross_tick_interval)
{
    FlagsRun run;
    RUN(&run, 0, "-V0", "-C0.5", "-i2");
    ck_assert_double_eq(run.flags.misc.tick_interval, 0);
    ck_assert_double_eq(run.flags.misc.ctxt_switch_time, 0);
    ck_assert_double_eq(run.flags.prof.heap_prof_interval, 0);
    ck_assert(!run.flags.gc.do_idle_gc);
    flags_run_free(&run);
    RUN(&run, 0, "-C0.005");
    ck_assert_double_eq(run.flags.misc.tick_interval, 0.005);
    flags_run_free(&run);
    RUN(&run, 0, "-i0.002", "-C0.005");
    ck_assert_double_eq(run.flags.misc.tick_interval, 0.002);
    flags_run_free(&run);
    RUN(&run, FLAGS_WAY_THREADED, "-I0.001");
    ck_assert_double_eq(run.flags.misc.tick_interval, 0.001);
    flags_run_free(&run);
    RUN(&run, 0, "-V0.5", "-C0", "-i0");
    ck_assert_double_eq(run.flags.misc.tick_interval, 0.5);
    flags_run_free(&run);
    RUN(&run, 0, "-V0.05");
    ck_assert_double_eq(run.flags.misc.tick_interval, 0.02); /* -C's default */
    flags_run_free(&run);
}
END_TEST

/* ---- Policy x source ------------------------------------------------------------------- */

typedef enum { APPLIED, NOT_APPLIED, REFUSED } Effect;

static const char *const level_names[] = {"None", "Ignore", "IgnoreAll", "SafeOnly", "All"};

/* What an option does at each level, from each source (the reference's §1.4). */
static const struct {
    FlagsSource src;
    bool unsafe;
    Effect effect[5]; /* by RtsOptsEnabledEnum */
} policy_matrix[] = {
    {FLAGS_SRC_RTS_OPTS, false, {APPLIED, APPLIED, APPLIED, APPLIED, APPLIED}},
    {FLAGS_SRC_RTS_OPTS, true, {APPLIED, APPLIED, APPLIED, APPLIED, APPLIED}},
    {FLAGS_SRC_GHCRTS, false, {NOT_APPLIED, APPLIED, NOT_APPLIED, APPLIED, APPLIED}},
    {FLAGS_SRC_GHCRTS, true, {NOT_APPLIED, APPLIED, NOT_APPLIED, REFUSED, APPLIED}},
    {FLAGS_SRC_CMDLINE, false, {REFUSED, NOT_APPLIED, NOT_APPLIED, APPLIED, APPLIED}},
    {FLAGS_SRC_CMDLINE, true, {REFUSED, NOT_APPLIED, NOT_APPLIED, REFUSED, APPLIED}},
};

static void run_from(FlagsRun *run, FlagsSource src, RtsOptsEnabledEnum level, const char *opt,
                     bool setuid, bool hs_main)
{
    FlagsEnv env = env_way(0);
    env.setuid = setuid;
    RtsConfig conf = conf_level(level);
    conf.rts_hs_main = hs_main;
    char *argv[] = {(char *)"prog", (char *)"+RTS", (char *)opt,
                    (char *)"-RTS", (char *)"arg",  NULL};
    if (src == FLAGS_SRC_RTS_OPTS) {
        conf.rts_opts = opt;
        flags_run(run, 1, argv, &conf, NULL, &env);
    } else if (src == FLAGS_SRC_GHCRTS) {
        flags_run(run, 1, argv, &conf, opt, &env);
    } else {
        flags_run(run, 5, argv, &conf, NULL, &env);
    }
}

START_TEST(policy_level_by_source)
{
    size_t row = (size_t)_i / 5;
    RtsOptsEnabledEnum level = (RtsOptsEnabledEnum)(_i % 5);
    FlagsSource src = policy_matrix[row].src;
    bool unsafe = policy_matrix[row].unsafe;
    Effect want = policy_matrix[row].effect[level];
    FlagsRun run;
    run_from(&run, src, level, unsafe ? "-A8m" : "-T", false, false);
    bool applied =
        unsafe ? run.flags.gc.alloc_area_bytes == 8 * MiB : run.flags.stats.level == STATS_COLLECT;
    const char *what = src == FLAGS_SRC_RTS_OPTS ? "rts_opts"
                       : src == FLAGS_SRC_GHCRTS ? "GHCRTS"
                                                 : "command line";
    switch (want) {
    case APPLIED:
        ck_assert_msg(applied && run.outcome == FLAGS_CONTINUE && run.parse.n_msgs == 0,
                      "%s %s at %s: not applied (%s)", what, unsafe ? "-A8m" : "-T",
                      level_names[level], msgs(&run));
        break;
    case NOT_APPLIED:
        ck_assert_msg(!applied && run.outcome == FLAGS_CONTINUE, "%s at %s: applied", what,
                      level_names[level]);
        if (src == FLAGS_SRC_GHCRTS && level == RtsOptsNone)
            ck_assert_str_eq(msgs(&run), "W: Warning: Ignoring GHCRTS variable as RTS options are "
                                         "disabled. " ADVICE);
        else
            ck_assert_int_eq(run.parse.n_msgs, 0);
        if (src == FLAGS_SRC_CMDLINE) { /* left to the program, +RTS and all */
            ck_assert_int_eq(run.prog_argc, 5);
            ck_assert_str_eq(run.prog_argv[1], "+RTS");
        }
        break;
    case REFUSED:
        ck_assert_msg(!applied && run.outcome == FLAGS_STOP_FATAL, "%s at %s: not refused", what,
                      level_names[level]);
        ck_assert_str_eq(msgs(&run), level == RtsOptsNone
                                         ? "F: RTS options are disabled. " ADVICE
                                         : "F: Most RTS options are disabled. " ADVICE);
        break;
    }
    flags_run_free(&run);
}
END_TEST

START_TEST(policy_setuid)
{
    FlagsRun run;
    /* GHCRTS is ignored, silently, whatever the level. */
    run_from(&run, FLAGS_SRC_GHCRTS, RtsOptsAll, "-T", true, false);
    ck_assert_int_eq(run.flags.stats.level, STATS_NONE);
    ck_assert_int_eq(run.parse.n_msgs, 0);
    flags_run_free(&run);
    /* The command line is lowered to the safe options. */
    run_from(&run, FLAGS_SRC_CMDLINE, RtsOptsAll, "-T", true, false);
    ck_assert_int_eq(run.flags.stats.level, STATS_COLLECT);
    flags_run_free(&run);
    run_from(&run, FLAGS_SRC_CMDLINE, RtsOptsAll, "-A8m", true, false);
    ck_assert_int_eq(run.outcome, FLAGS_STOP_FATAL);
    ck_assert_str_eq(msgs(&run), "F: Most RTS options are disabled for setuid and setgid "
                                 "programs.");
    flags_run_free(&run);
    /* The program's own rts_opts still apply. */
    run_from(&run, FLAGS_SRC_RTS_OPTS, RtsOptsAll, "-A8m", true, false);
    ck_assert_uint_eq(run.flags.gc.alloc_area_bytes, 8 * MiB);
    flags_run_free(&run);
}
END_TEST

START_TEST(policy_advice)
{
    FlagsRun run;
    run_from(&run, FLAGS_SRC_CMDLINE, RtsOptsSafeOnly, "-A8m", false, true);
    ck_assert_str_eq(msgs(&run), "F: Most RTS options are disabled. Link with hsrts-link "
                                 "-rtsopts to enable them.");
    flags_run_free(&run);
    run_from(&run, FLAGS_SRC_CMDLINE, RtsOptsNone, "-T", false, true);
    ck_assert_str_eq(msgs(&run), "F: RTS options are disabled. Link with hsrts-link -rtsopts to "
                                 "enable them.");
    flags_run_free(&run);
    /* No suggestions: no advice. */
    FlagsEnv env = env_way(0);
    RtsConfig conf = conf_level(RtsOptsSafeOnly);
    conf.rts_opts_suggestions = false;
    const char *a = "-A8m";
    run_cmd(&run, &env, &conf, NULL, 1, &a);
    ck_assert_str_eq(msgs(&run), "F: Most RTS options are disabled.");
    flags_run_free(&run);
    /* -N above the processor count is refused under SafeOnly only. */
    env = env_way(FLAGS_WAY_THREADED);
    conf.rts_opts_suggestions = true;
    const char *n8 = "-N8", *n4 = "-N4";
    run_cmd(&run, &env, &conf, NULL, 1, &n8);
    ck_assert_str_eq(msgs(&run), "F: Using large values for -N is not allowed by default. " ADVICE);
    ck_assert_int_eq(run.outcome, FLAGS_STOP_FATAL);
    flags_run_free(&run);
    run_cmd(&run, &env, &conf, NULL, 1, &n4);
    ck_assert_uint_eq(run.flags.par.n_capabilities, 4);
    flags_run_free(&run);
    conf.rts_opts_enabled = RtsOptsAll;
    run_cmd(&run, &env, &conf, NULL, 1, &n8);
    ck_assert_uint_eq(run.flags.par.n_capabilities, 8);
    flags_run_free(&run);
}
END_TEST

/* A refusal stops at once: later options are not examined. */
START_TEST(policy_refusal_stops)
{
    FlagsEnv env = env_way(0);
    RtsConfig conf = conf_level(RtsOptsSafeOnly);
    const char *args[] = {"-Abad", "-M8m", "-xz"};
    FlagsRun run;
    run_cmd(&run, &env, &conf, NULL, 3, args);
    ck_assert_str_eq(msgs(&run), "F: Most RTS options are disabled. " ADVICE);
    flags_run_free(&run);
    const char *args2[] = {"-xz", "-M8m", "-xy"};
    run_cmd(&run, &env, &conf, NULL, 3, args2);
    ck_assert_str_eq(msgs(&run), "E: unknown RTS option: -xz\nF: Most RTS options are "
                                 "disabled. " ADVICE);
    ck_assert_int_eq(run.outcome, FLAGS_STOP_FATAL);
    flags_run_free(&run);
}
END_TEST

/* ---- Precedence ------------------------------------------------------------------------ */

static void hook_a1m(void)
{
    rts_flags.gc.alloc_area_bytes = 1 * MiB;
    rts_flags.gc.generations = 5;
}

START_TEST(precedence_of_sources)
{
    FlagsEnv env = env_way(0);
    RtsConfig conf = conf_level(RtsOptsAll);
    conf.defaultsHook = hook_a1m;
    char *argv[] = {(char *)"prog", (char *)"+RTS", (char *)"-A5m", NULL};
    FlagsRun run;
    uint64_t before = rts_flags.gc.alloc_area_bytes;

    flags_run(&run, 1, argv, &conf, NULL, &env);
    ck_assert_uint_eq(run.flags.gc.alloc_area_bytes, 1 * MiB);
    ck_assert_uint_eq(run.flags.gc.generations, 5);
    ck_assert_uint_eq(rts_flags.gc.alloc_area_bytes, before); /* the global is untouched */
    flags_run_free(&run);

    conf.rts_opts = "-A2m";
    flags_run(&run, 1, argv, &conf, NULL, &env);
    ck_assert_uint_eq(run.flags.gc.alloc_area_bytes, 2 * MiB);
    ck_assert_uint_eq(run.flags.gc.generations, 5);
    flags_run_free(&run);

    flags_run(&run, 1, argv, &conf, " -A3m\t-G3 ", &env);
    ck_assert_uint_eq(run.flags.gc.alloc_area_bytes, 3 * MiB);
    ck_assert_uint_eq(run.flags.gc.generations, 3);
    flags_run_free(&run);

    flags_run(&run, 3, argv, &conf, "-A3m -G3", &env);
    ck_assert_uint_eq(run.flags.gc.alloc_area_bytes, 5 * MiB);
    ck_assert_uint_eq(run.flags.gc.generations, 3);
    /* Every source's arguments, in processing order. */
    ck_assert_int_eq(run.rts_argc, 4);
    ck_assert_str_eq(run.rts_argv[0], "-A2m");
    ck_assert_str_eq(run.rts_argv[1], "-A3m");
    ck_assert_str_eq(run.rts_argv[2], "-G3");
    ck_assert_str_eq(run.rts_argv[3], "-A5m");
    ck_assert_ptr_null(run.rts_argv[4]);
    flags_run_free(&run);
}
END_TEST

/* Errors from every source are collected, in order, with the usage once. */
START_TEST(errors_collected_across_sources)
{
    FlagsEnv env = env_way(0);
    RtsConfig conf = conf_level(RtsOptsAll);
    conf.rts_opts = "-Gx";
    char *argv[] = {(char *)"prog", (char *)"+RTS", (char *)"-foo", (char *)"bar", NULL};
    FlagsRun run;
    flags_run(&run, 4, argv, &conf, "+RTS -A1m", &env);
    ck_assert_str_eq(msgs(&run), "E: error in RTS option -Gx: unable to parse number 'x'\n"
                                 "E: unexpected RTS argument: +RTS\n"
                                 "E: unknown RTS option: -foo\n"
                                 "E: unexpected RTS argument: bar");
    ck_assert_int_eq(run.outcome, FLAGS_STOP_USAGE);
    ck_assert_uint_eq(run.flags.gc.alloc_area_bytes, MiB);
    flags_run_free(&run);
}
END_TEST

START_TEST(info_and_usage_outcomes)
{
    FlagsRun run;
    RUN(&run, 0, "-Abad", "--info", "-xz");
    ck_assert_int_eq(run.outcome, FLAGS_STOP_INFO);
    ck_assert_str_eq(msgs(&run), "E: error in RTS option -Abad: unable to parse number 'bad'");
    flags_run_free(&run);
    RUN(&run, 0, "-?", "-xz");
    ck_assert_int_eq(run.outcome, FLAGS_STOP_USAGE);
    ck_assert_str_eq(msgs(&run), "E: unknown RTS option: -xz");
    flags_run_free(&run);
    RUN(&run, 0, "-?");
    ck_assert_int_eq(run.outcome, FLAGS_STOP_USAGE);
    ck_assert_int_eq(run.parse.n_msgs, 0);
    flags_run_free(&run);
}
END_TEST

/* ---- argv splitting -------------------------------------------------------------------- */

static const char *joined(int n, char **v)
{
    static char buf[512];
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++)
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s", i ? " " : "", v[i]);
    return buf;
}

static const struct {
    const char *in, *prog, *rts;
} split_cases[] = {
    {"p a +RTS -A1m -RTS b +RTS -H -RTS c", "p a b c", "-A1m -H"},
    {"p 5 -- +RTS -S", "p 5 -- +RTS -S", ""},
    {"p 5 --RTS +RTS -S", "p 5 +RTS -S", ""},
    {"p a -RTS b", "p a b", ""},
    {"p a +RTS -A1m -s", "p a", "-A1m -s"},
    {"p +RTS -A1m -- x -A2m", "p -- x -A2m", "-A1m"},
    {"p +RTS --RTS -RTS", "p -RTS", ""},
    {"p +RTS +RTS -T -RTS -RTS x", "p x", "-T"},
    {"p", "p", ""},
};

START_TEST(argv_split)
{
    int n;
    char **in = flags_split_words(split_cases[_i].in, &n);
    char *prog[32], *rts[32];
    int np, nr;
    flags_split_argv(n, in, &np, prog, &nr, rts);
    ck_assert_str_eq(joined(np, prog), split_cases[_i].prog);
    ck_assert_str_eq(joined(nr, rts), split_cases[_i].rts);
    ck_assert_ptr_null(prog[np]);
    ck_assert_ptr_null(rts[nr]);
    flags_free_words(in);
}
END_TEST

START_TEST(argv_empty)
{
    FlagsEnv env = env_way(0);
    RtsConfig conf = conf_level(RtsOptsAll);
    FlagsRun run;
    flags_run(&run, 0, NULL, &conf, NULL, &env);
    ck_assert_int_eq(run.prog_argc, 0);
    ck_assert_int_eq(run.outcome, FLAGS_CONTINUE);
    flags_run_free(&run);
}
END_TEST

START_TEST(argv_api)
{
    char *full[] = {(char *)"/bin/prog", (char *)"+RTS", (char *)"-T", (char *)"x", NULL};
    char *prog[] = {(char *)"/bin/prog", (char *)"x", NULL};
    char **rts = calloc(2, sizeof *rts);
    rts[0] = strdup("-T");
    flags_argv_install(4, full, 2, prog, 1, rts);
    int argc;
    char **argv;
    getProgArgv(&argc, &argv);
    ck_assert_str_eq(joined(argc, argv), "/bin/prog x");
    ck_assert_ptr_ne(argv, prog); /* a copy */
    ck_assert_ptr_null(argv[argc]);
    getFullProgArgv(&argc, &argv);
    ck_assert_str_eq(joined(argc, argv), "/bin/prog +RTS -T x");
    flags_rts_args(&argc, &argv);
    ck_assert_str_eq(joined(argc, argv), "-T");
    char *renamed[] = {(char *)"other", NULL};
    setProgArgv(1, renamed);
    getProgArgv(&argc, &argv);
    ck_assert_str_eq(joined(argc, argv), "other");
    freeFullProgArgv();
    getFullProgArgv(&argc, &argv);
    ck_assert_int_eq(argc, 0);
    ck_assert_ptr_null(argv);
    flags_argv_free();
    getProgArgv(&argc, &argv);
    ck_assert_int_eq(argc, 0);
}
END_TEST

/* ---- --info ---------------------------------------------------------------------------- */

/* A small reader for Haskell's [(String, String)]: returns the pair count or -1. */
static const char *hs_string(const char *p, char *out, size_t n)
{
    if (*p++ != '"')
        return NULL;
    size_t k = 0;
    while (*p && *p != '"') {
        char c = *p++;
        if (c == '\\') {
            c = *p++;
            if (c == 'n')
                c = '\n';
            else if (c == 't')
                c = '\t';
            else if (c == '&')
                continue;
            else if (c >= '0' && c <= '9') {
                unsigned v = (unsigned)(c - '0');
                while (*p >= '0' && *p <= '9')
                    v = v * 10 + (unsigned)(*p++ - '0');
                c = (char)v;
            } else if (c != '"' && c != '\\')
                return NULL;
        } else if ((unsigned char)c < 0x20) {
            return NULL;
        }
        if (k + 1 < n)
            out[k++] = c;
    }
    out[k] = '\0';
    return *p == '"' ? p + 1 : NULL;
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\n')
        p++;
    return p;
}

static int hs_pairs(const char *p, char keys[][64], char values[][256], int max)
{
    int n = 0;
    p = skip_ws(p);
    if (*p++ != '[')
        return -1;
    for (;;) {
        p = skip_ws(p);
        if (*p == ']' && n == 0)
            break;
        if (*p++ != '(' || n >= max)
            return -1;
        if ((p = hs_string(skip_ws(p), keys[n], 64)) == NULL)
            return -1;
        p = skip_ws(p);
        if (*p++ != ',')
            return -1;
        if ((p = hs_string(skip_ws(p), values[n], 256)) == NULL)
            return -1;
        p = skip_ws(p);
        if (*p++ != ')')
            return -1;
        n++;
        p = skip_ws(p);
        if (*p == ']')
            break;
        if (*p++ != ',')
            return -1;
    }
    return *skip_ws(p + 1) == '\0' ? n : -1;
}

static char *info_text(const RtsConfig *conf, unsigned way)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    FlagsEnv env = env_way(way);
    RtsFlags flags;
    flags_defaults(&flags, &env);
    flags_info(f, conf, &flags, way);
    flags_release(&flags);
    fclose(f);
    return buf;
}

START_TEST(info_format)
{
    static const char *const keys[] = {
        "GHC RTS",
        "hsrts version",
        "RTS way",
        "Build platform",
        "Build architecture",
        "Build OS",
        "Build vendor",
        "Host platform",
        "Host architecture",
        "Host OS",
        "Host vendor",
        "Target platform",
        "Target architecture",
        "Target OS",
        "Target vendor",
        "Word size",
        "Compiler unregisterised",
        "Tables next to code",
        "Flag -with-rtsopts",
        "I/O manager default",
    };
    static const char *const ways[] = {"rts_v", "rts_thr", "rts_debug", "rts_thr_debug"};
    RtsConfig conf = conf_level(RtsOptsAll);
    conf.rts_opts = "-s \"q\"\\ \x01"
                    "9\t";
    for (unsigned way = 0; way < 4; way++) {
        char *text = info_text(&conf, way);
        const char *first = " [(\"GHC RTS\", \"YES\")\n ,(\"hsrts version\", ";
        ck_assert_msg(strncmp(text, first, strlen(first)) == 0, "%s", text);
        char k[32][64], v[32][256];
        int n = hs_pairs(text, k, v, 32);
        ck_assert_msg(n == (int)(sizeof keys / sizeof keys[0]), "parsed %d pairs from\n%s", n,
                      text);
        for (int i = 0; i < n; i++)
            ck_assert_str_eq(k[i], keys[i]);
        ck_assert_str_eq(v[0], "YES");
        ck_assert_str_eq(v[1], HSRTS_VERSION);
        ck_assert_str_eq(v[2], ways[way]);
        ck_assert_str_eq(v[7], HSRTS_HOST_PLATFORM);
        ck_assert_str_eq(v[15], "64");
        ck_assert_str_eq(v[18], conf.rts_opts);
        ck_assert_str_eq(v[19], way & FLAGS_WAY_THREADED ? "mio" : "select");
        ck_assert_ptr_nonnull(strstr(text, "\n ]\n"));
        free(text);
    }
    conf.rts_opts = NULL;
    char *text = info_text(&conf, 0);
    ck_assert_ptr_nonnull(strstr(text, " ,(\"Flag -with-rtsopts\", \"\")\n"));
    free(text);
}
END_TEST

START_TEST(usage_format)
{
    char *v = usage_text(0), *dbg = usage_text(FLAGS_WAY_DEBUG);
    ck_assert_str_eq(strncmp(v,
                             "\nUsage: <prog> <args> [+RTS <rtsopts> | -RTS <args>] ... --RTS "
                             "<args>\n",
                             70) == 0
                         ? "ok"
                         : v,
                     "ok");
    ck_assert_ptr_nonnull(strstr(v, "\n  -A<size>  Sets the minimum allocation area size"));
    ck_assert_ptr_nonnull(strstr(v, "\n  --nonmoving-gc\n            Selects the non-moving"));
    ck_assert_ptr_null(strstr(v, "\n  -D<classes>"));
    ck_assert_ptr_null(strstr(v, "\n  -v[flags]"));
    ck_assert_ptr_null(strstr(v, "add time stamps"));
    ck_assert_ptr_nonnull(strstr(dbg, "\n  -D<classes>"));
    ck_assert_ptr_nonnull(strstr(dbg, "\n     -DS   DEBUG: sanity\n"));
    ck_assert_ptr_nonnull(strstr(dbg, "add time stamps"));
    /* Lines fit a terminal. */
    for (char *line = v; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        size_t len = strchr(line, '\n') ? (size_t)(strchr(line, '\n') - line) : strlen(line);
        ck_assert_msg(len <= 90, "long usage line: %.*s", (int)len, line);
    }
    free(v);
    free(dbg);
}
END_TEST

/* ---- The exiting wrapper, in a child process --------------------------------------------- */

typedef struct {
    int status;
    char out[16384], err[16384];
} Child;

static void read_all(int fd, char *buf, size_t n)
{
    size_t used = 0;
    ssize_t r;
    while (used + 1 < n && (r = read(fd, buf + used, n - 1 - used)) > 0)
        used += (size_t)r;
    buf[used] = '\0';
}

/* Run flags_setup in a child; on success it prints the program's argv. */
static void run_setup(Child *c, const RtsConfig *conf, const char *ghcrts, char *const *args)
{
    int out[2], err[2];
    ck_assert_int_eq(pipe(out), 0);
    ck_assert_int_eq(pipe(err), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(out[1], 1);
        dup2(err[1], 2);
        close(out[0]);
        close(err[0]);
        if (ghcrts)
            setenv("GHCRTS", ghcrts, 1);
        else
            unsetenv("GHCRTS");
        int argc = 0;
        char *argv[32];
        while (args[argc]) {
            argv[argc] = args[argc];
            argc++;
        }
        argv[argc] = NULL;
        char **argvp = argv;
        flags_setup(&argc, &argvp, conf);
        printf("argc=%d:", argc);
        for (int i = 0; i < argc; i++)
            printf(" %s", argvp[i]);
        printf("%s\n", argvp[argc] == NULL ? "" : " (not NULL-terminated)");
        printf("A=%" PRIu64 "\n", rts_flags.gc.alloc_area_bytes);
        fflush(stdout);
        _exit(0);
    }
    close(out[1]);
    close(err[1]);
    /* Small outputs: read stderr after stdout is closed. */
    read_all(out[0], c->out, sizeof c->out);
    read_all(err[0], c->err, sizeof c->err);
    close(out[0]);
    close(err[0]);
    int st;
    waitpid(pid, &st, 0);
    c->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

START_TEST(setup_success_rewrites_argv)
{
    static Child c;
    RtsConfig conf = conf_level(RtsOptsAll);
    char *args[] = {
        (char *)"./dir/prog", (char *)"a", (char *)"+RTS", (char *)"-A8m", (char *)"-RTS",
        (char *)"b",          NULL};
    run_setup(&c, &conf, "-A2m", args);
    ck_assert_int_eq(c.status, 0);
    ck_assert_str_eq(c.out, "argc=3: ./dir/prog a b\nA=8388608\n");
    ck_assert_str_eq(c.err, "");
}
END_TEST

START_TEST(setup_errors_then_usage)
{
    static Child c;
    RtsConfig conf = conf_level(RtsOptsAll);
    char *args[] = {(char *)"./dir/prog", (char *)"+RTS", (char *)"-Abanana", (char *)"foo", NULL};
    run_setup(&c, &conf, NULL, args);
    ck_assert_int_eq(c.status, 1);
    ck_assert_str_eq(c.out, "");
    const char *want = "prog: error in RTS option -Abanana: unable to parse number 'banana'\n"
                       "prog: unexpected RTS argument: foo\n"
                       "prog: \n"
                       "prog: Usage: <prog> <args> [+RTS <rtsopts> | -RTS <args>] ... --RTS "
                       "<args>\n";
    ck_assert_msg(strncmp(c.err, want, strlen(want)) == 0, "stderr:\n%s", c.err);
    /* The usage comes once. */
    ck_assert_ptr_null(strstr(c.err + strlen(want), "Usage:"));
}
END_TEST

START_TEST(setup_info_and_help)
{
    static Child c;
    RtsConfig conf = conf_level(RtsOptsSafeOnly);
    conf.rts_opts = "-A16m";
    char *info[] = {(char *)"prog", (char *)"+RTS", (char *)"--info", NULL};
    run_setup(&c, &conf, NULL, info);
    ck_assert_int_eq(c.status, 0);
    ck_assert_str_eq(c.err, "");
    ck_assert_ptr_nonnull(strstr(c.out, " ,(\"Flag -with-rtsopts\", \"-A16m\")\n"));
    char *help[] = {(char *)"prog", (char *)"+RTS", (char *)"-?", NULL};
    run_setup(&c, &conf, NULL, help);
    ck_assert_int_eq(c.status, 1);
    ck_assert_str_eq(c.out, "");
    ck_assert_ptr_nonnull(strstr(c.err, "prog:   -A<size>  Sets the minimum allocation area"));
    char *refused[] = {(char *)"prog", (char *)"+RTS", (char *)"-M1g", NULL};
    run_setup(&c, &conf, NULL, refused);
    ck_assert_int_eq(c.status, 1);
    ck_assert_str_eq(c.err, "prog: Most RTS options are disabled. " ADVICE "\n");
    conf.rts_opts_enabled = RtsOptsNone;
    run_setup(&c, &conf, "-T", info);
    ck_assert_int_eq(c.status, 1);
    ck_assert_str_eq(c.err, "prog: Warning: Ignoring GHCRTS variable as RTS options are "
                            "disabled. " ADVICE "\nprog: RTS options are disabled. " ADVICE "\n");
}
END_TEST

/* ---- Suite -------------------------------------------------------------------------- */

static Suite *flags_suite(void)
{
    Suite *s = suite_create("flags");
    int rows = (int)flags_table_len;

    TCase *tc = tcase_create("table");
    tcase_add_loop_test(tc, row_example_accepted, 0, rows);
    tcase_add_loop_test(tc, row_way_refused, 0, rows);
    tcase_add_loop_test(tc, row_safety_class, 0, rows);
    tcase_add_loop_test(tc, row_default, 0, rows);
    tcase_add_loop_test(tc, row_bounds, 0, rows);
    tcase_add_loop_test(tc, row_bare_refuses_value, 0, rows);
    tcase_add_loop_test(tc, row_in_usage, 0, rows);
    suite_add_tcase(s, tc);

    tc = tcase_create("kinds");
    tcase_add_test(tc, kind_size_suffixes);
    tcase_add_test(tc, kind_size_strict);
    tcase_add_test(tc, kind_int);
    tcase_add_test(tc, ghc_ranges_and_bad_options);
    tcase_add_test(tc, kind_double_and_time);
    tcase_add_test(tc, kind_enum);
    tcase_add_test(tc, kind_file);
    tcase_add_test(tc, kind_trace_letters);
    tcase_add_test(tc, kind_debug_letters);
    tcase_add_test(tc, kind_unknown_and_unexpected);
    tcase_add_test(tc, kind_special_values);
    tcase_add_test(tc, defaults_machine);
    suite_add_tcase(s, tc);

    tc = tcase_create("cross-checks");
    tcase_add_test(tc, cross_stack_chunk_buffer);
    tcase_add_test(tc, cross_heap_sizes);
    tcase_add_test(tc, cross_nursery_chunks_and_balance);
    tcase_add_test(tc, cross_collectors);
    tcase_add_test(tc, cross_tick_interval);
    suite_add_tcase(s, tc);

    tc = tcase_create("policy");
    tcase_add_loop_test(tc, policy_level_by_source, 0,
                        (int)(sizeof policy_matrix / sizeof policy_matrix[0]) * 5);
    tcase_add_test(tc, policy_setuid);
    tcase_add_test(tc, policy_advice);
    tcase_add_test(tc, policy_refusal_stops);
    tcase_add_test(tc, precedence_of_sources);
    tcase_add_test(tc, errors_collected_across_sources);
    tcase_add_test(tc, info_and_usage_outcomes);
    suite_add_tcase(s, tc);

    tc = tcase_create("argv");
    tcase_add_loop_test(tc, argv_split, 0, (int)(sizeof split_cases / sizeof split_cases[0]));
    tcase_add_test(tc, argv_empty);
    tcase_add_test(tc, argv_api);
    suite_add_tcase(s, tc);

    tc = tcase_create("output");
    tcase_add_test(tc, info_format);
    tcase_add_test(tc, usage_format);
    tcase_add_test(tc, setup_success_rewrites_argv);
    tcase_add_test(tc, setup_errors_then_usage);
    tcase_add_test(tc, setup_info_and_help);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run(flags_suite());
}
