/*
 * Statistics.
 *
 * Formats: the formatters are fed known numbers and their whole output is
 * compared with GHC's (the observed 9.0.2 lines of the reference, §4) and
 * with hand-written --machine-readable lists, so every width, key and order
 * is checked exactly.
 *
 * Consistency: real runs of the mock mutator under several collector
 * configurations, with a gcDoneHook that sums what every collection
 * reports. The sums must equal the cumulative getRTSStats figures and the
 * -t --machine-readable report (parsed here as a Haskell [(String,String)]),
 * the phases must add up to the total, and allocation must match what a
 * test allocated, within one allocation area.
 *
 * HSRTS_TEST_SEED replays a run.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flags/flags.h"
#include "mutator.h"
#include "sm/storage.h"
#include "stats/stats_internal.h"
#include "test_util.h"

/* ---- helpers ------------------------------------------------------------------- */

/* Run a formatter into a string (caller frees). */
#define CAPTURE(buf, call)                        \
    do {                                          \
        size_t len_;                              \
        FILE *f_ = open_memstream(&(buf), &len_); \
        ck_assert_ptr_nonnull(f_);                \
        call;                                     \
        fclose(f_);                               \
    } while (0)

static void assert_text(const char *got, const char *want)
{
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "---- got:\n%s\n---- want:\n%s\n----\n", got, want);
        ck_abort_msg("output differs (both printed above)");
    }
}

/* Milliseconds as nanoseconds (a constant expression, for initialisers). */
#define ms(m) ((Time)((m)*1e6 + 0.5))

/* ---- formats ------------------------------------------------------------------- */

START_TEST(format_commas)
{
    char b[32];
    ck_assert_str_eq(stats_with_commas(0, b), "0");
    ck_assert_str_eq(stats_with_commas(999, b), "999");
    ck_assert_str_eq(stats_with_commas(1000, b), "1,000");
    ck_assert_str_eq(stats_with_commas(152448, b), "152,448");
    ck_assert_str_eq(stats_with_commas(490610280, b), "490,610,280");
    ck_assert_str_eq(stats_with_commas(UINT64_MAX, b), "18,446,744,073,709,551,615");
}
END_TEST

/* The -S line GHC 9.0.2 printed (reference §4.2). */
START_TEST(format_verbose)
{
    StatsGcLine g = {.d = {.allocated_bytes = 1094976,
                           .copied_bytes = 165752,
                           .live_bytes = 223152,
                           .cpu_ns = ms(0.2),
                           .elapsed_ns = ms(0.3),
                           .gen = 0},
                     .total_cpu_ns = ms(1.2),
                     .total_elapsed_ns = ms(1.4)};
    StatsGcLine g2 = g;
    g2.d.gen = 1;
    g2.faults_during = 3;
    g2.faults_between = 12;
    g2.d.allocated_bytes = 123456789;
    StatsSummary sum = {.exit_allocated_bytes = 0};
    char *out = NULL;
    size_t len;
    FILE *f = open_memstream(&out, &len);
    stats_print_verbose_header(f);
    stats_print_gc_line(f, &g);
    stats_print_gc_line(f, &g2);
    stats_print_verbose_tail(f, &sum);
    fclose(f);
    assert_text(
        out, "    Alloc    Copied     Live     GC     GC      TOT      TOT  Page Flts\n"
             "    bytes     bytes     bytes   user   elap     user     elap\n"
             "  1094976    165752    223152  0.000  0.000    0.001    0.001    0    0  (Gen:  0)\n"
             "123456789    165752    223152  0.000  0.000    0.001    0.001    3   12  (Gen:  1)\n"
             "        0                      0.000  0.000\n\n");
    free(out);
}
END_TEST

static StatsGen ghc_gens[2] = {
    {.collections = 462, .cpu_ns = ms(78), .elapsed_ns = ms(79), .max_pause_ns = ms(0.8)},
    {.collections = 8, .cpu_ns = ms(105), .elapsed_ns = ms(107), .max_pause_ns = ms(53.3)},
};

/* The run of GHC 9.0.2 in reference §4.3. */
static StatsSummary ghc_summary(void)
{
    StatsSummary sum = {
        .s = {.allocated_bytes = 490610280,
              .copied_bytes = 232545216,
              .max_live_bytes = 46652544,
              .major_gcs = 8,
              .gcs = 470,
              .max_slop_bytes = 152448,
              .max_mem_in_use_bytes = 92ull << 20,
              .cumulative_live_bytes = 8 * 40000000ull,
              .mutator_cpu_ns = ms(99),
              .mutator_elapsed_ns = ms(103),
              .gc_cpu_ns = ms(183),
              .gc_elapsed_ns = ms(186),
              .cpu_ns = ms(282),
              .elapsed_ns = ms(289)},
        .average_bytes_used = 40000000,
        .alloc_rate = 4965328091,
        .gc_cpu_percent = 183.0 / 282.0,
        .gc_elapsed_percent = 186.0 / 289.0,
        .productivity_cpu_percent = 0.35,
        .productivity_elapsed_percent = 0.356,
        .n_gens = 2,
        .gens = ghc_gens,
    };
    return sum;
}

/*
 * GHC's text, but for the two places hsrts corrects it: the fragmentation
 * unit (MiB since 9.6) and a real %GC figure where 9.x prints 0.0%.
 */
static const char ghc_summary_text[] =
    "     490,610,280 bytes allocated in the heap\n"
    "     232,545,216 bytes copied during GC\n"
    "      46,652,544 bytes maximum residency (8 sample(s))\n"
    "         152,448 bytes maximum slop\n"
    "              92 MiB total memory in use (0 MiB lost due to fragmentation)\n"
    "\n"
    "                                     Tot time (elapsed)  Avg pause  Max pause\n"
    "  Gen  0       462 colls,     0 par    0.078s   0.079s     0.0002s    0.0008s\n"
    "  Gen  1         8 colls,     0 par    0.105s   0.107s     0.0134s    0.0533s\n"
    "\n"
    "  INIT    time    0.000s  (  0.000s elapsed)\n"
    "  MUT     time    0.099s  (  0.103s elapsed)\n"
    "  GC      time    0.183s  (  0.186s elapsed)\n"
    "  EXIT    time    0.000s  (  0.000s elapsed)\n"
    "  Total   time    0.282s  (  0.289s elapsed)\n"
    "\n"
    "  %GC     time      64.9%  (64.4% elapsed)\n"
    "\n"
    "  Alloc rate    4,965,328,091 bytes per MUT second\n"
    "\n"
    "  Productivity  35.0% of total user, 35.6% of total elapsed\n"
    "\n";

START_TEST(format_summary)
{
    StatsSummary sum = ghc_summary();
    char *out = NULL;
    CAPTURE(out, stats_print_summary(f_, &sum));
    assert_text(out, ghc_summary_text);
    free(out);

    /* No major collection: no residency line (GHC's rule). */
    sum.s.major_gcs = 0;
    CAPTURE(out, stats_print_summary(f_, &sum));
    ck_assert_ptr_null(strstr(out, "maximum residency"));
    free(out);
}
END_TEST

START_TEST(format_summary_nonmoving_and_counters)
{
    StatsSummary sum = ghc_summary();
    sum.nonmoving = true;
    sum.internal_counters = true;
    sum.s.nonmoving_gc_sync_elapsed_ns = ms(4);
    sum.s.nonmoving_gc_sync_max_elapsed_ns = ms(1.5);
    sum.s.nonmoving_gc_cpu_ns = ms(30);
    sum.s.nonmoving_gc_elapsed_ns = ms(32);
    sum.s.nonmoving_gc_max_elapsed_ns = ms(9);
    char *out = NULL;
    CAPTURE(out, stats_print_summary(f_, &sum));
    const char *gen_lines =
        "  Gen  1         8 colls,     0 par    0.105s   0.107s     0.0134s    0.0533s\n"
        "  Gen  1         8 syncs,                       0.004s     0.0005s    0.0015s\n"
        "  Gen  1      concurrent,              0.030s   0.032s     0.0040s    0.0090s\n"
        "\n";
    ck_assert_msg(strstr(out, gen_lines), "nonmoving lines wrong:\n%s", out);
    ck_assert_msg(strstr(out, "  GC      time    0.183s  (  0.186s elapsed)\n"
                              "  CONC GC time    0.030s  (  0.032s elapsed)\n"
                              "  EXIT    time"),
                  "CONC GC line wrong:\n%s", out);
    /* GHC prints the message without a newline, at the very end. */
    const char *tail = "of total elapsed\n\nInternal Counters require the threaded RTS";
    size_t lo = strlen(out), lt = strlen(tail);
    ck_assert_msg(lo >= lt && strcmp(out + lo - lt, tail) == 0, "counters line wrong:\n%s", out);
    free(out);
}
END_TEST

/* The -t line GHC 9.0.2 printed (reference §4.4). */
START_TEST(format_one_line)
{
    StatsSummary sum = {.s = {.allocated_bytes = 995008,
                              .gcs = 1,
                              .max_live_bytes = 44376,
                              .major_gcs = 1,
                              .max_mem_in_use_bytes = 2u << 20,
                              .mutator_cpu_ns = ms(1),
                              .mutator_elapsed_ns = ms(1.1)},
                        .average_bytes_used = 44376};
    char *out = NULL;
    CAPTURE(out, stats_print_one_line(f_, &sum));
    assert_text(out, "<<ghc: 995008 bytes, 1 GCs, 44376/44376 avg/max bytes residency (1 samples), "
                     "2M in use, 0.000 INIT (0.000 elapsed), 0.001 MUT (0.001 elapsed), 0.000 GC "
                     "(0.000 elapsed) :ghc>>\n");
    free(out);
}
END_TEST

START_TEST(format_machine_readable)
{
    StatsSummary sum = ghc_summary();
    sum.s.init_cpu_ns = 1500;
    sum.s.init_elapsed_ns = 2500;
    sum.exit_cpu_ns = 3000;
    sum.exit_elapsed_ns = 4000;
    sum.s.max_large_objects_bytes = 7;
    sum.s.max_compact_bytes = 0;
    sum.fragmentation_bytes = 1048576;
    char *out = NULL;
    CAPTURE(out, stats_print_machine_readable(f_, &sum));
    assert_text(out, " [(\"bytes allocated\", \"490610280\")\n"
                     " ,(\"num_GCs\", \"470\")\n"
                     " ,(\"average_bytes_used\", \"40000000\")\n"
                     " ,(\"max_bytes_used\", \"46652544\")\n"
                     " ,(\"num_byte_usage_samples\", \"8\")\n"
                     " ,(\"peak_megabytes_allocated\", \"92\")\n"
                     " ,(\"init_cpu_seconds\", \"0.000002\")\n"
                     " ,(\"init_wall_seconds\", \"0.000003\")\n"
                     " ,(\"mut_cpu_seconds\", \"0.099000\")\n"
                     " ,(\"mut_wall_seconds\", \"0.103000\")\n"
                     " ,(\"GC_cpu_seconds\", \"0.183000\")\n"
                     " ,(\"GC_wall_seconds\", \"0.186000\")\n"
                     " ,(\"exit_cpu_seconds\", \"0.000003\")\n"
                     " ,(\"exit_wall_seconds\", \"0.000004\")\n"
                     " ,(\"total_cpu_seconds\", \"0.282000\")\n"
                     " ,(\"total_wall_seconds\", \"0.289000\")\n"
                     " ,(\"major_gcs\", \"8\")\n"
                     " ,(\"allocated_bytes\", \"490610280\")\n"
                     " ,(\"max_live_bytes\", \"46652544\")\n"
                     " ,(\"max_large_objects_bytes\", \"7\")\n"
                     " ,(\"max_compact_bytes\", \"0\")\n"
                     " ,(\"max_slop_bytes\", \"152448\")\n"
                     " ,(\"max_mem_in_use_bytes\", \"96468992\")\n"
                     " ,(\"cumulative_live_bytes\", \"320000000\")\n"
                     " ,(\"copied_bytes\", \"232545216\")\n"
                     " ,(\"par_copied_bytes\", \"0\")\n"
                     " ,(\"cumulative_par_max_copied_bytes\", \"0\")\n"
                     " ,(\"cumulative_par_balanced_copied_bytes\", \"0\")\n"
                     " ,(\"gc_cpu_percent\", \"0.648936\")\n"
                     " ,(\"gc_wall_percent\", \"0.643599\")\n"
                     " ,(\"fragmentation_bytes\", \"1048576\")\n"
                     " ,(\"alloc_rate\", \"4965328091\")\n"
                     " ,(\"productivity_cpu_percent\", \"0.350000\")\n"
                     " ,(\"productivity_wall_percent\", \"0.356000\")\n"
                     " ,(\"gen_0_collections\", \"462\")\n"
                     " ,(\"gen_0_par_collections\", \"0\")\n"
                     " ,(\"gen_0_cpu_seconds\", \"0.078000\")\n"
                     " ,(\"gen_0_wall_seconds\", \"0.079000\")\n"
                     " ,(\"gen_0_max_pause_seconds\", \"0.000800\")\n"
                     " ,(\"gen_0_avg_pause_seconds\", \"0.000171\")\n"
                     " ,(\"gen_1_collections\", \"8\")\n"
                     " ,(\"gen_1_par_collections\", \"0\")\n"
                     " ,(\"gen_1_cpu_seconds\", \"0.105000\")\n"
                     " ,(\"gen_1_wall_seconds\", \"0.107000\")\n"
                     " ,(\"gen_1_max_pause_seconds\", \"0.053300\")\n"
                     " ,(\"gen_1_avg_pause_seconds\", \"0.013375\")\n"
                     " ]\n");
    free(out);

    sum.nonmoving = true;
    sum.s.nonmoving_gc_sync_elapsed_ns = ms(4);
    sum.s.nonmoving_gc_elapsed_ns = ms(32);
    CAPTURE(out, stats_print_machine_readable(f_, &sum));
    ck_assert_msg(strstr(out, " ,(\"gen_1_avg_pause_seconds\", \"0.013375\")\n"
                              " ,(\"nonmoving_sync_wall_seconds\", \"0.004000\")\n"
                              " ,(\"nonmoving_sync_max_pause_seconds\", \"0.000000\")\n"
                              " ,(\"nonmoving_sync_avg_pause_seconds\", \"0.000500\")\n"
                              " ,(\"nonmoving_concurrent_cpu_seconds\", \"0.000000\")\n"
                              " ,(\"nonmoving_concurrent_wall_seconds\", \"0.032000\")\n"
                              " ,(\"nonmoving_concurrent_max_pause_seconds\", \"0.000000\")\n"
                              " ,(\"nonmoving_concurrent_avg_pause_seconds\", \"0.004000\")\n"
                              " ]\n"),
                  "nonmoving keys wrong:\n%s", out);
    free(out);
}
END_TEST

/* The header line GHC wrote for `./main_rtsopts 1000 "it's" +RTS -sstats.txt -A2m`. */
START_TEST(format_command_line)
{
    char *prog[] = {"./main_rtsopts", "1000", "it's", NULL};
    char *rts[] = {"-sstats.txt", "-A2m", NULL};
    char *out = NULL;
    CAPTURE(out, stats_print_command_line(f_, 3, prog, 2, rts));
    assert_text(out, "'./main_rtsopts' '1000' 'it'\\''s' +RTS '-sstats.txt' '-A2m' \n");
    free(out);
    CAPTURE(out, stats_print_command_line(f_, 1, prog, 0, rts));
    assert_text(out, "'./main_rtsopts' +RTS \n");
    free(out);
}
END_TEST

/* ---- a parser for -t --machine-readable ---------------------------------------- */

#define MR_MAX 256

typedef struct {
    int n;
    char key[MR_MAX][64];
    char val[MR_MAX][64];
} MrList;

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

/* A Haskell string literal (the escapes Show produces for these texts). */
static const char *parse_string(const char *p, char *out, size_t cap)
{
    if (*p != '"')
        return NULL;
    size_t n = 0;
    for (p++; *p && *p != '"'; p++) {
        if (*p == '\\') {
            p++;
            if (*p != '"' && *p != '\\')
                return NULL;
        }
        if (n + 1 >= cap)
            return NULL;
        out[n++] = *p;
    }
    if (*p != '"')
        return NULL;
    out[n] = '\0';
    return p + 1;
}

/* [(String,String)]; NULL on any syntax error, else the text after ']'. */
static const char *parse_mr(const char *p, MrList *l)
{
    l->n = 0;
    p = skip_ws(p);
    if (*p++ != '[')
        return NULL;
    p = skip_ws(p);
    if (*p == ']')
        return p + 1;
    for (;;) {
        if (l->n == MR_MAX)
            return NULL;
        p = skip_ws(p);
        if (*p++ != '(')
            return NULL;
        p = parse_string(skip_ws(p), l->key[l->n], sizeof l->key[0]);
        if (!p)
            return NULL;
        p = skip_ws(p);
        if (*p++ != ',')
            return NULL;
        p = parse_string(skip_ws(p), l->val[l->n], sizeof l->val[0]);
        if (!p)
            return NULL;
        p = skip_ws(p);
        if (*p++ != ')')
            return NULL;
        l->n++;
        p = skip_ws(p);
        if (*p == ']')
            return p + 1;
        if (*p++ != ',')
            return NULL;
    }
}

static const char *mr_get(const MrList *l, const char *key)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->key[i], key) == 0)
            return l->val[i];
    ck_abort_msg("machine-readable output lacks key %s", key);
    return NULL;
}

static double mr_num(const MrList *l, const char *key)
{
    return strtod(mr_get(l, key), NULL);
}

static bool is_float_key(const char *key)
{
    size_t n = strlen(key);
    return (n > 8 && strcmp(key + n - 8, "_seconds") == 0) ||
           (n > 8 && strcmp(key + n - 8, "_percent") == 0);
}

/* GHC's keys in GHC's order for the vanilla way (reference §4.4). */
static const char *const mr_keys[] = {
    "bytes allocated",
    "num_GCs",
    "average_bytes_used",
    "max_bytes_used",
    "num_byte_usage_samples",
    "peak_megabytes_allocated",
    "init_cpu_seconds",
    "init_wall_seconds",
    "mut_cpu_seconds",
    "mut_wall_seconds",
    "GC_cpu_seconds",
    "GC_wall_seconds",
    "exit_cpu_seconds",
    "exit_wall_seconds",
    "total_cpu_seconds",
    "total_wall_seconds",
    "major_gcs",
    "allocated_bytes",
    "max_live_bytes",
    "max_large_objects_bytes",
    "max_compact_bytes",
    "max_slop_bytes",
    "max_mem_in_use_bytes",
    "cumulative_live_bytes",
    "copied_bytes",
    "par_copied_bytes",
    "cumulative_par_max_copied_bytes",
    "cumulative_par_balanced_copied_bytes",
    "gc_cpu_percent",
    "gc_wall_percent",
    "fragmentation_bytes",
    "alloc_rate",
    "productivity_cpu_percent",
    "productivity_wall_percent",
};
static const char *const mr_gen_keys[] = {"collections",  "par_collections",   "cpu_seconds",
                                          "wall_seconds", "max_pause_seconds", "avg_pause_seconds"};

/* Keys, order, and every value a number of the key's kind. */
static void check_mr_shape(const MrList *l, uint32_t n_gens)
{
    int n_fixed = (int)(sizeof mr_keys / sizeof mr_keys[0]);
    ck_assert_int_eq(l->n, n_fixed + 6 * (int)n_gens);
    for (int i = 0; i < l->n; i++) {
        char want[64];
        if (i < n_fixed)
            snprintf(want, sizeof want, "%s", mr_keys[i]);
        else
            snprintf(want, sizeof want, "gen_%d_%s", (i - n_fixed) / 6,
                     mr_gen_keys[(i - n_fixed) % 6]);
        ck_assert_str_eq(l->key[i], want);
        const char *v = l->val[i];
        char *end;
        if (is_float_key(want)) {
            strtod(v, &end);
            ck_assert_msg(*v && *end == '\0' && strchr(v, '.'), "%s: \"%s\" is not %%f", want, v);
        } else {
            ck_assert_msg(strspn(v, "0123456789") == strlen(v) && *v,
                          "%s: \"%s\" is not an integer", want, v);
        }
    }
}

START_TEST(parser_rejects_bad_lists)
{
    MrList l;
    ck_assert_ptr_nonnull(parse_mr(" [(\"a\", \"1\")\n ,(\"b \", \"2.5\")\n ]\n", &l));
    ck_assert_int_eq(l.n, 2);
    ck_assert_str_eq(l.key[1], "b ");
    ck_assert_ptr_null(parse_mr("[(\"a\", \"1\")", &l));
    ck_assert_ptr_null(parse_mr("[(\"a\" \"1\")]", &l));
    ck_assert_ptr_null(parse_mr("[(\"a\", 1)]", &l));
    ck_assert_ptr_null(parse_mr("[(\"a\", \"1\"),]", &l));
}
END_TEST

/* ---- real runs ------------------------------------------------------------------- */

/* What every collection reported through the gcDoneHook. */
static struct {
    uint64_t n, majors, copied, allocated, max_major_live, sum_major_live, max_mem, bad_threads;
    uint64_t per_gen[8];
    Time cpu, elapsed;
    GCDetails last;
} seen;
static uint32_t oldest;

static void on_gc_done(const GCDetails *d)
{
    seen.n++;
    seen.copied += d->copied_bytes;
    seen.allocated += d->allocated_bytes;
    seen.cpu += d->cpu_ns;
    seen.elapsed += d->elapsed_ns;
    if (d->gen < 8)
        seen.per_gen[d->gen]++;
    if (d->gen == oldest) {
        seen.majors++;
        seen.sum_major_live += d->live_bytes;
        if (d->live_bytes > seen.max_major_live)
            seen.max_major_live = d->live_bytes;
    }
    if (d->mem_in_use_bytes > seen.max_mem)
        seen.max_mem = d->mem_in_use_bytes;
    if (d->threads != 1 || d->par_max_copied_bytes || d->par_balanced_copied_bytes)
        seen.bad_threads++;
    seen.last = *d;
}

/* hs_init_ghc with the hook and `opts` (split on spaces) after +RTS. */
static void start_with_hook(const char *opts)
{
    static char *argv_store[64];
    static char buf[1024];
    int argc = 0;
    argv_store[argc++] = "check_stats";
    argv_store[argc++] = "+RTS";
    snprintf(buf, sizeof buf, "%s", opts);
    for (char *tok = strtok(buf, " "); tok && argc < 60; tok = strtok(NULL, " "))
        argv_store[argc++] = tok;
    argv_store[argc++] = "-RTS";
    argv_store[argc] = NULL;
    char **argv = argv_store;
    RtsConfig cfg = defaultRtsConfig;
    cfg.rts_opts_enabled = RtsOptsAll;
    cfg.gcDoneHook = on_gc_done;
    memset(&seen, 0, sizeof seen);
    hs_init_ghc(&argc, &argv, cfg);
    oldest = rts_flags.gc.generations - 1;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot read %s", path);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* The cumulative figures agree with the sum of the collections' own. */
static void check_against_hook(const RTSStats *s)
{
    ck_assert_uint_eq(s->gcs, seen.n);
    ck_assert_uint_eq(s->copied_bytes, seen.copied);
    ck_assert_uint_eq(s->allocated_bytes, seen.allocated);
    ck_assert_uint_eq(s->major_gcs, seen.majors);
    ck_assert_uint_eq(s->major_gcs, generations[oldest].collections);
    /* Every collection collects generation 0; the collector counts per generation collected. */
    ck_assert_uint_eq(s->gcs, generations[0].collections);
    ck_assert_uint_ge(s->max_live_bytes, seen.max_major_live);
    ck_assert_uint_eq(s->max_live_bytes, seen.max_major_live);
    ck_assert_uint_eq(s->cumulative_live_bytes, seen.sum_major_live);
    ck_assert_uint_ge(s->max_mem_in_use_bytes, seen.max_mem);
    ck_assert_int_eq(s->gc_cpu_ns, seen.cpu);
    ck_assert_int_eq(s->gc_elapsed_ns, seen.elapsed);
    ck_assert_uint_eq(seen.bad_threads, 0);
    ck_assert_int_eq(s->par_copied_bytes, 0);
    ck_assert_msg(memcmp(&s->gc, &seen.last, sizeof s->gc) == 0,
                  "RTSStats.gc is not the last collection's GCDetails");
}

static const char *const configs[] = {
    "-G1", "-G2", "-G3 -A32k", "-A64k -n8k", "-G3 -A64k -AL32k", "-H16m -A64k",
};
#define N_CONFIGS ((int)(sizeof configs / sizeof configs[0]))

START_TEST(consistency)
{
    char name[128], path[64], opts[256];
    snprintf(name, sizeof name, "stats[%s]", configs[_i]);
    snprintf(path, sizeof path, "/tmp/check_stats_%d.txt", (int)getpid());
    snprintf(opts, sizeof opts, "%s -t%s --machine-readable", configs[_i], path);
    uint64_t seed = test_seed(name);
    start_with_hook(opts);
    ck_assert(getRTSStatsEnabled());

    Capability *cap = rts_lock();
    Mutator m;
    mutator_init(&m, cap, seed);
    for (int it = 0; it < 200; it++) {
        mutator_step(&m, 50 + (int)rng_below(&m.rng, 100));
        if (it % 50 == 49)
            performMajorGC();
        else if (it % 10 == 9)
            performGC();
        if (it % 25 == 0) {
            RTSStats s;
            getRTSStats(&s);
            check_against_hook(&s);
            ck_assert_int_ge(s.mutator_cpu_ns, 0);
            ck_assert_int_ge(s.cpu_ns, s.gc_cpu_ns);
            ck_assert_uint_eq(getAllocations(), s.allocated_bytes);
        }
    }
    RTSStats s;
    getRTSStats(&s);
    check_against_hook(&s);
    ck_assert_uint_gt(s.major_gcs, 0);
    if (oldest > 0)
        ck_assert_uint_gt(s.gcs, s.major_gcs);
    mutator_done(&m);
    rts_unlock(cap);
    hs_exit();

    /* The final collection reported to the hook like every other. */
    ck_assert_uint_eq(seen.n, s.gcs + 1);
    char *text = read_file(path);
    unlink(path);
    /* A stats file starts with the command line. */
    ck_assert_msg(strncmp(text, "'check_stats' +RTS ", 19) == 0, "header: %.80s", text);
    const char *list = strchr(text, '\n');
    ck_assert_ptr_nonnull(list);
    MrList l;
    const char *end = parse_mr(list + 1, &l);
    ck_assert_msg(end != NULL, "not a [(String,String)]:\n%s", list + 1);
    ck_assert_str_eq(skip_ws(end), "");
    uint32_t n_gens = oldest + 1;
    check_mr_shape(&l, n_gens);

    ck_assert_uint_eq((uint64_t)mr_num(&l, "num_GCs"), seen.n);
    ck_assert_uint_eq((uint64_t)mr_num(&l, "copied_bytes"), seen.copied);
    ck_assert_uint_eq((uint64_t)mr_num(&l, "bytes allocated"), seen.allocated);
    ck_assert_uint_eq((uint64_t)mr_num(&l, "allocated_bytes"), seen.allocated);
    ck_assert_uint_eq((uint64_t)mr_num(&l, "major_gcs"), seen.majors);
    ck_assert_uint_eq((uint64_t)mr_num(&l, "num_byte_usage_samples"), seen.majors);
    ck_assert_uint_eq((uint64_t)mr_num(&l, "max_live_bytes"), seen.max_major_live);
    ck_assert_uint_eq((uint64_t)mr_num(&l, "cumulative_live_bytes"), seen.sum_major_live);
    ck_assert_uint_eq((uint64_t)mr_num(&l, "average_bytes_used"),
                      seen.sum_major_live / seen.majors);
    uint64_t gen_sum = 0;
    for (uint32_t g = 0; g < n_gens; g++) {
        char key[64];
        snprintf(key, sizeof key, "gen_%u_collections", g);
        ck_assert_uint_eq((uint64_t)mr_num(&l, key), seen.per_gen[g]);
        gen_sum += (uint64_t)mr_num(&l, key);
    }
    ck_assert_uint_eq(gen_sum, seen.n);
    snprintf(opts, sizeof opts, "gen_%u_collections", oldest);
    ck_assert_uint_eq((uint64_t)mr_num(&l, opts), seen.majors);

    /* INIT + MUT + GC + EXIT = Total, to the rounding of five %f values. */
    const char *const phases[2][5] = {{"init_cpu_seconds", "mut_cpu_seconds", "GC_cpu_seconds",
                                       "exit_cpu_seconds", "total_cpu_seconds"},
                                      {"init_wall_seconds", "mut_wall_seconds", "GC_wall_seconds",
                                       "exit_wall_seconds", "total_wall_seconds"}};
    for (int k = 0; k < 2; k++) {
        double parts = 0;
        for (int i = 0; i < 4; i++) {
            ck_assert_double_ge(mr_num(&l, phases[k][i]), 0.0);
            parts += mr_num(&l, phases[k][i]);
        }
        ck_assert_msg(fabs(parts - mr_num(&l, phases[k][4])) <= 3e-6,
                      "%s: phases add up to %f, total %f", phases[k][4], parts,
                      mr_num(&l, phases[k][4]));
    }
    ck_assert_msg(fabs(mr_num(&l, "GC_cpu_seconds") - (double)seen.cpu / 1e9) <= 1e-6,
                  "GC CPU time is not the sum of the collections'");
    double gc_frac = mr_num(&l, "GC_cpu_seconds") / mr_num(&l, "total_cpu_seconds");
    ck_assert_msg(fabs(mr_num(&l, "gc_cpu_percent") - gc_frac) <= 1e-3,
                  "gc_cpu_percent %f is not GC / total = %f", mr_num(&l, "gc_cpu_percent"),
                  gc_frac);
}
END_TEST

/*
 * Allocation: objects of known sizes through the fast path and as large
 * objects; the statistics must count them, and at most one allocation
 * area more (what else the runtime allocated).
 */
START_TEST(allocation_counted)
{
    start_with_hook("-T -A64k");
    Capability *cap = rts_lock();
    static const StgInfoTable pair_info = HS_CONSTR_INFO(0, 2, 0, "test:Pair");
    performGC();
    RTSStats before, after;
    getRTSStats(&before);

    uint64_t words = 0;
    for (int i = 0; i < 200000; i++) {
        StgWord n = 3 + (StgWord)(i % 7); /* 3..9 words */
        StgClosure *p = (StgClosure *)rts_alloc(cap, n);
        p->info = &pair_info;
        p->payload[0] = p->payload[1] = NULL;
        words += n;
    }
    uint64_t bytes = words * sizeof(StgWord);
    for (int i = 0; i < 300; i++) {
        StgArrBytes *a = rts_new_byte_array(cap, 20000);
        bytes +=
            (sizeof(StgArrBytes) + 20000 + sizeof(StgWord) - 1) / sizeof(StgWord) * sizeof(StgWord);
        (void)a;
    }
    performGC();
    getRTSStats(&after);
    check_against_hook(&after);
    uint64_t counted = after.allocated_bytes - before.allocated_bytes;
    fprintf(stderr, "allocation: test allocated %llu bytes, statistics counted %llu\n",
            (unsigned long long)bytes, (unsigned long long)counted);
    ck_assert_msg(counted >= bytes && counted <= bytes + rts_flags.gc.alloc_area_bytes,
                  "allocated %llu bytes, statistics counted %llu", (unsigned long long)bytes,
                  (unsigned long long)counted);
    ck_assert_uint_gt(after.gcs - before.gcs, bytes / rts_flags.gc.alloc_area_bytes / 2);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("stats");
    TCase *fmt = tcase_create("formats");
    tcase_add_test(fmt, format_commas);
    tcase_add_test(fmt, format_verbose);
    tcase_add_test(fmt, format_summary);
    tcase_add_test(fmt, format_summary_nonmoving_and_counters);
    tcase_add_test(fmt, format_one_line);
    tcase_add_test(fmt, format_machine_readable);
    tcase_add_test(fmt, format_command_line);
    tcase_add_test(fmt, parser_rejects_bad_lists);
    suite_add_tcase(s, fmt);
    TCase *run = tcase_create("runs");
    tcase_set_timeout(run, 600);
    tcase_add_loop_test(run, consistency, 0, N_CONFIGS);
    tcase_add_test(run, allocation_counted);
    suite_add_tcase(s, run);
    return test_run(s);
}
