/*
 * The option table: every RTS flag, once.
 *
 * Note [One table]
 * ~~~~~~~~~~~~~~~~
 * Each flag is one FlagSpec row: its spelling, how its argument attaches
 * (form) and what it is (kind), the runtime features it needs (way), its
 * class under -rtsopts=some (safety), where in the -? text it goes (group),
 * the RtsFlags field it sets with that field's default, its bounds, and its
 * help line. Everything else is derived from the rows:
 *
 *   - flags_defaults() stores each row's default (rows that share a field
 *     with another, such as -k and -ki or -xn and --nonmoving-gc, leave
 *     owns_default false so a field has exactly one default);
 *   - the parser (flags_parse.c) finds the row of an argument by its
 *     spelling, checks the way and the policy, parses the value by kind,
 *     checks the bounds and stores it (or calls the row's apply function
 *     when a flag means more than "store this value");
 *   - the -? text (flags_usage.c) prints the rows of each group that the
 *     runtime in use supports;
 *   - the unit tests and the fuzz corpus walk the rows (examples, bounds).
 *
 * Adding a flag is adding a row; a flag whose subsystem does not exist yet
 * is still parsed, checked and stored, ready for the subsystem to read.
 */
#include <stddef.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flags/flags_internal.h"
#include "hsrts_config.h"

#define KiB ((uint64_t)1 << 10)
#define MiB ((uint64_t)1 << 20)
#define GiB ((uint64_t)1 << 30)
#define TiB ((uint64_t)1 << 40)

/*
 * Upper bounds are GHC's, flag by flag (its RtsFlags.c prints them in the
 * range error): HS_INT_MAX for -A -AL -n -xq, HS_WORD_MAX for -M -H -O
 * -Mgrace -ki -kc -kb -xr, and UINT32_MAX bytes for an explicit -K. The -K
 * default stops at 2^32 words instead (GHC's #17019). A size no heap can
 * hold is refused when it is used (Note [Impossible sizes] in
 * sm/alloc.c), not here.
 */
#define STACK_MAX_BYTES  ((uint64_t)UINT32_MAX * sizeof(StgWord))
#define MAX_K_BYTES      ((uint64_t)UINT32_MAX)
#define MAX_CAPABILITIES 4096
#define MAX_GENERATIONS  255
#define MAX_NUMA_NODES   16
/* Times are turned into int64 nanoseconds downstream: ~31 years is plenty. */
#define MAX_SECONDS 1e9

/* ---- Field helpers ------------------------------------------------------ */

#define STORE(type, member) .field = FLAG_FIELD_##type, .offset = offsetof(RtsFlags, member)
#define DEF_U(x)            .owns_default = true, .def = {.u = (x)}
#define DEF_D(x)            .owns_default = true, .def = {.d = (x)}
#define DEF_S(x)            .owns_default = true, .def = {.s = (x)}
#define BARE_U(x)           .bare = {.u = (x)}
#define BARE_D(x)           .bare = {.d = (x)}
#define UBOUNDS(lo, hi)     .umin = (lo), .umax = (hi)
#define RANGE(lo, hi)       .min = (lo), .max = (hi)

static const FlagChoice yes_no[] = {
    {"yes", 1, 0, 0},
    {"no", 0, 0, 0},
    {NULL, 0, 0, 0},
};

/*
 * I/O managers by name. select runs only without -threaded and mio only
 * with it; the Windows managers never exist on the platforms hsrts runs
 * on (FLAGS_WAY_WINDOWS is never part of a build). native and posix are
 * GHC's older spellings of auto.
 */
enum { FLAGS_WAY_WINDOWS = 1u << 4 };
static const char *const io_manager_names[] = {"auto", "select", "mio", "winio", "win32-legacy"};
static const FlagChoice io_managers[] = {
    {"auto", 0, 0, 0},
    {"select", 1, 0, FLAGS_WAY_THREADED},
    {"mio", 2, FLAGS_WAY_THREADED, 0},
    {"winio", 3, FLAGS_WAY_WINDOWS, 0},
    {"win32-legacy", 4, FLAGS_WAY_WINDOWS, 0},
    {"native", 0, 0, 0},
    {"posix", 0, 0, 0},
    {NULL, 0, 0, 0},
};

const FlagLetter flags_trace_letters[] = {
    {'s', offsetof(RtsFlags, trace.scheduler), "scheduler events"},
    {'g', offsetof(RtsFlags, trace.gc), "GC and heap events"},
    {'n', offsetof(RtsFlags, trace.nonmoving_gc), "non-moving GC heap census events"},
    {'p', offsetof(RtsFlags, trace.sparks_sampled), "par spark events (sampled)"},
    {'f', offsetof(RtsFlags, trace.sparks_full), "par spark events (full detail)"},
    {'u', offsetof(RtsFlags, trace.user), "user events (emitted from program code)"},
    {'a', SIZE_MAX, "all event classes above"},
    {'t', offsetof(RtsFlags, trace.timestamp), "add time stamps (only useful with -v)"},
    {0, 0, NULL},
};

const FlagLetter flags_debug_letters[] = {
    {'s', offsetof(RtsFlags, debug.scheduler), "scheduler"},
    {'i', offsetof(RtsFlags, debug.interpreter), "interpreter"},
    {'w', offsetof(RtsFlags, debug.weak), "weak"},
    {'G', offsetof(RtsFlags, debug.gccafs), "gccafs"},
    {'g', offsetof(RtsFlags, debug.gc), "gc"},
    {'n', offsetof(RtsFlags, debug.nonmoving_gc), "non-moving gc"},
    {'b', offsetof(RtsFlags, debug.block_alloc), "block"},
    {'S', offsetof(RtsFlags, debug.sanity), "sanity"},
    {'Z', offsetof(RtsFlags, debug.zero_on_gc), "zero freed memory on GC"},
    {'t', offsetof(RtsFlags, debug.stable), "stable"},
    {'p', offsetof(RtsFlags, debug.prof), "prof"},
    {'l', offsetof(RtsFlags, debug.linker), "linker"},
    {'L', offsetof(RtsFlags, debug.linker_verbose), "linker (verbose); implies -Dl"},
    {'a', offsetof(RtsFlags, debug.apply), "apply"},
    {'m', offsetof(RtsFlags, debug.stm), "stm"},
    {'z', offsetof(RtsFlags, debug.squeeze), "stack squeezing"},
    {'c', offsetof(RtsFlags, debug.hpc), "program coverage"},
    {'r', offsetof(RtsFlags, debug.sparks), "sparks"},
    {'C', offsetof(RtsFlags, debug.compact), "compact"},
    {'k', offsetof(RtsFlags, debug.continuation), "continuation"},
    {'o', offsetof(RtsFlags, debug.iomanager), "iomanager"},
    {0, 0, NULL},
};

static bool *letter_field(RtsFlags *f, const FlagLetter *l)
{
    return (bool *)((char *)f + l->offset);
}

/* ---- Computed defaults ---------------------------------------------------- */

/* -K: 80% of physical memory, 8 MiB when unknown, capped (see above). */
static void default_max_stack(RtsFlags *f, const FlagsEnv *env)
{
    uint64_t k = env->phys_mem_bytes / 10 * 8;
    if (k == 0)
        k = 8 * MiB;
    else if (k > STACK_MAX_BYTES)
        k = STACK_MAX_BYTES;
    f->gc.max_stack_bytes = k;
}

/* Idle GC is on (0.3 s) only in the threaded runtime. */
static void default_idle_gc(RtsFlags *f, const FlagsEnv *env)
{
    bool threaded = (env->way & FLAGS_WAY_THREADED) != 0;
    f->gc.do_idle_gc = threaded;
    f->gc.idle_gc_delay = threaded ? 0.3 : 0.0;
}

static void default_numa(RtsFlags *f, const FlagsEnv *env)
{
    f->gc.numa = false;
    f->gc.numa_mask = ~(uint64_t)0;
}

static void default_parallel_gc(RtsFlags *f, const FlagsEnv *env)
{
    f->par.parallel_gc = true;
    f->par.parallel_gc_gen = 0;
}

/* The -qb generation itself is derived from -A in flags_normalise. */
static void default_load_balance(RtsFlags *f, const FlagsEnv *env)
{
    f->par.load_balance = true;
    f->par.load_balance_set = false;
    f->par.load_balance_gen = 1;
}

/* PIC-only platforms link position-independent code whatever -xp says. */
static void default_linker_pic(RtsFlags *f, const FlagsEnv *env)
{
#if defined(__aarch64__) || defined(__APPLE__)
    f->misc.linker_always_pic = true;
#else
    f->misc.linker_always_pic = false;
#endif
}

/* ---- Apply functions: flags that mean more than "store this value" -------- */

static void apply_usage(FlagsParse *p, const FlagSpec *s, bool has, const FlagValue *v)
{
    p->want_usage = true;
}

/* --info stops everything at once (later arguments are not examined). */
static void apply_info(FlagsParse *p, const FlagSpec *s, bool has, const FlagValue *v)
{
    p->want_info = true;
    p->stop = true;
}

static void apply_ignored(FlagsParse *p, const FlagSpec *s, bool has, const FlagValue *v) {}

/* GHC 9.12's words, whatever follows -xt. */
static void apply_removed(FlagsParse *p, const FlagSpec *s, bool has, const FlagValue *v)
{
    flags_msg(p, FLAGS_MSG_ERROR, "The %s option has been removed (#16795)", s->name);
}

/* -T -t -s -S share one level (the last wins) and one file. */
static void apply_stats(FlagsParse *p, const FlagSpec *s, bool has, const FlagValue *v)
{
    StatsFlags *st = &p->flags->stats;
    switch (s->name[1]) {
    case 'T':
        st->level = STATS_COLLECT;
        return;
    case 't':
        st->level = STATS_ONELINE;
        break;
    case 's':
        st->level = STATS_SUMMARY;
        break;
    default:
        st->level = STATS_VERBOSE;
        break;
    }
    free(st->file);
    st->file = NULL;
    if (has && strcmp(v->s, "stderr") != 0)
        st->file = strdup(v->s);
}

/* -H: a size, or alone for "the heap size at the previous GC". */
static void apply_heap_suggestion(FlagsParse *p, const FlagSpec *s, bool has, const FlagValue *v)
{
    p->flags->gc.heap_size_suggestion_auto = !has;
    p->flags->gc.heap_size_suggestion_bytes = has ? v->u : 0;
}

/* -I: idle GC delay; -I0 turns idle GC off, a bare -I restores the default. */
static void apply_idle_gc(FlagsParse *p, const FlagSpec *s, bool has, const FlagValue *v)
{
    if (!has) {
        default_idle_gc(p->flags, p->env);
        return;
    }
    p->flags->gc.do_idle_gc = v->d > 0;
    p->flags->gc.idle_gc_delay = v->d;
}

static void apply_numa(FlagsParse *p, const FlagSpec *s, bool has, const FlagValue *v)
{
    if (!p->env->numa_supported) {
        flags_msg(p, FLAGS_MSG_ERROR, "%s: this hsrts was built without NUMA support (libnuma)",
                  p->arg);
        return;
    }
    p->flags->gc.numa = true;
    p->flags->gc.numa_mask = has ? v->u : ~(uint64_t)0;
}

/* Fake NUMA nodes for testing the NUMA paths on any machine. */
static void apply_debug_numa(FlagsParse *p, const FlagSpec *s, bool has, const FlagValue *v)
{
    p->flags->gc.numa = true;
    p->flags->gc.debug_numa_nodes = (uint32_t)v->u;
    p->flags->gc.numa_mask = ((uint64_t)1 << v->u) - 1;
}

static void apply_n(FlagsParse *p, const FlagSpec *s, bool has, const FlagValue *v)
{
    uint64_t n = has ? v->u : (p->env->n_cpus ? p->env->n_cpus : 1);
    if (p->level == RtsOptsSafeOnly && n > p->env->n_cpus && p->env->n_cpus > 0) {
        const char *advice = flags_advice(p->config);
        flags_msg(p, FLAGS_MSG_FATAL, "Using large values for -N is not allowed by default.%s%s",
                  *advice ? " " : "", advice);
        p->stop = true;
        return;
    }
    p->flags->par.n_capabilities = (uint32_t)n;
    p->flags->par.max_n = false;
}

static void apply_max_n(FlagsParse *p, const FlagSpec *s, bool has, const FlagValue *v)
{
    uint64_t cpus = p->env->n_cpus ? p->env->n_cpus : 1;
    uint64_t n = has && v->u < cpus ? v->u : cpus;
    p->flags->par.n_capabilities = (uint32_t)n;
    p->flags->par.max_n = true;
}

static void apply_parallel_gc(FlagsParse *p, const FlagSpec *s, bool has, const FlagValue *v)
{
    p->flags->par.parallel_gc = has;
    if (has)
        p->flags->par.parallel_gc_gen = (uint32_t)v->u;
}

static void apply_load_balance(FlagsParse *p, const FlagSpec *s, bool has, const FlagValue *v)
{
    p->flags->par.load_balance = has;
    p->flags->par.load_balance_set = true;
    if (has)
        p->flags->par.load_balance_gen = (uint32_t)v->u;
}

static void apply_heap_prof(FlagsParse *p, const FlagSpec *s, bool has, const FlagValue *v)
{
    if (strcmp(s->name, "-hi") == 0) {
        p->flags->prof.heap_prof = HEAP_PROF_INFO_TABLE;
        return;
    }
    if (strcmp(s->name, "-h") == 0)
        flags_msg(p, FLAGS_MSG_WARNING, "-h is deprecated, use -hT instead.");
    p->flags->prof.heap_prof = HEAP_PROF_CLOSURE_TYPE;
}

static void apply_io_manager(FlagsParse *p, const FlagSpec *s, bool has, const FlagValue *v)
{
    free(p->flags->misc.io_manager);
    p->flags->misc.io_manager = strdup(io_manager_names[v->u]);
}

/*
 * -l and -v: each use starts again from the default classes (s g p u),
 * then applies the letters left to right; "-x" turns class x off.
 */
static void apply_trace_classes(FlagsParse *p, const char *letters)
{
    TraceFlags *t = &p->flags->trace;
    t->scheduler = t->gc = t->sparks_sampled = t->user = true;
    t->nonmoving_gc = t->sparks_full = false;
    bool on = true;
    for (const char *c = letters; *c; c++) {
        if (*c == '-') {
            on = false;
            continue;
        }
        const FlagLetter *l = flags_trace_letters;
        while (l->letter && l->letter != *c)
            l++;
        if (l->letter == 0) {
            if (*c == 'T')
                flags_msg(p, FLAGS_MSG_ERROR,
                          "error in RTS option %s: event class 'T' requires the program to be "
                          "built with -ticky",
                          p->arg);
            else
                flags_msg(p, FLAGS_MSG_ERROR,
                          "error in RTS option %s: unknown event class '%c' (the classes are: "
                          "s g n p f u a t)",
                          p->arg, *c);
            return;
        }
        if (l->offset == SIZE_MAX) { /* 'a' */
            for (const FlagLetter *k = flags_trace_letters; k->letter; k++)
                if (k->offset != SIZE_MAX && k->letter != 't')
                    *letter_field(p->flags, k) = on;
        } else {
            *letter_field(p->flags, l) = on;
        }
        on = true;
    }
}

static void apply_eventlog(FlagsParse *p, const FlagSpec *s, bool has, const FlagValue *v)
{
    p->flags->trace.eventlog = true;
    apply_trace_classes(p, has ? v->s : "");
}

static void apply_trace_stderr(FlagsParse *p, const FlagSpec *s, bool has, const FlagValue *v)
{
    p->flags->trace.trace_stderr = true;
    apply_trace_classes(p, has ? v->s : "");
}

/*
 * -D classes whose subsystem hsrts does not have: accepted (they are GHC's),
 * with a warning, since they will never print anything.
 */
static const struct {
    char letter;
    const char *why;
} debug_absent[] = {
    {'i', "hsrts has no bytecode interpreter"},
    {'l', "hsrts has no runtime linker"},
    {'L', "hsrts has no runtime linker"},
    {'m', "hsrts has no software transactional memory"},
    {'z', "hsrts never squeezes update frames (tail calls leave none to squeeze)"},
    {'c', "hsrts has no program coverage (hpc) support"},
    {'r', "hsrts has no sparks"},
    {'C', "hsrts has no compact regions"},
    {'k', "hsrts has no delimited continuations"},
    {'o', "hsrts has no I/O manager"},
    {0, NULL},
};

static void apply_debug_classes(FlagsParse *p, const FlagSpec *s, bool has, const FlagValue *v)
{
    for (const char *c = v->s; *c; c++) {
        const FlagLetter *l = flags_debug_letters;
        while (l->letter && l->letter != *c)
            l++;
        if (l->letter == 0) {
            flags_msg(p, FLAGS_MSG_ERROR,
                      "error in RTS option %s: unknown debug class '%c' (see -? for the classes)",
                      p->arg, *c);
            return;
        }
        *letter_field(p->flags, l) = true;
        if (*c == 'L')
            p->flags->debug.linker = true;
        for (size_t i = 0; debug_absent[i].letter; i++)
            if (debug_absent[i].letter == *c)
                flags_msg(p, FLAGS_MSG_WARNING,
                          "warning: debug class '%c' (%s) of %s traces nothing: %s", *c, l->help,
                          p->arg, debug_absent[i].why);
    }
}

/* ---- The table ------------------------------------------------------------ */

const FlagSpec flags_table[] = {
    /* One row per flag reads as a table; keep the formatter away. */
    /* clang-format off */
    /* Information. */
    {.name = "-?", .form = FLAG_FORM_BARE, .safety = FLAG_SAFE, .group = FLAG_GROUP_INFO,
     .apply = apply_usage, .example = "-?",
     .help = "Prints this message and exits; the program is not executed"},
    {.name = "--info", .form = FLAG_FORM_BARE, .safety = FLAG_SAFE, .group = FLAG_GROUP_INFO,
     .apply = apply_info, .example = "--info",
     .help = "Print information about the RTS used by this program"},

    /* Which collector manages the oldest generation. */
    {.name = "--nonmoving-gc", .form = FLAG_FORM_BARE, .safety = FLAG_SAFE,
     .group = FLAG_GROUP_COLLECTOR, STORE(BOOL, gc.nonmoving), DEF_U(0), BARE_U(1),
     .example = "--nonmoving-gc",
     .help = "Selects the non-moving mark-and-sweep garbage collector to\n"
             "manage the oldest generation."},
    {.name = "--copying-gc", .form = FLAG_FORM_BARE, .safety = FLAG_SAFE,
     .group = FLAG_GROUP_COLLECTOR, STORE(BOOL, gc.nonmoving), BARE_U(0),
     .example = "--copying-gc",
     .help = "Selects the copying garbage collector to manage all generations."},
    {.name = "-xn", .form = FLAG_FORM_BARE, .safety = FLAG_SAFE, .group = FLAG_GROUP_COLLECTOR,
     STORE(BOOL, gc.nonmoving), BARE_U(1), .example = "-xn",
     .help = "Use the non-moving collector for the old generation (as --nonmoving-gc)"},
    {.name = "--nonmoving-dense-allocator-count", .form = FLAG_FORM_EQUALS, .kind = FLAG_ARG_INT,
     .safety = FLAG_SAFE, .group = FLAG_GROUP_COLLECTOR,
     STORE(U32, gc.nonmoving_dense_allocator_count), DEF_U(16), UBOUNDS(1, 65535),
     .arg_help = "<count>", .example = "--nonmoving-dense-allocator-count=32",
     .help = "The number of dense allocators of the non-moving collector\n"
             "(default: 16)"},
    {.name = "--nonmoving-evac-occupancy", .form = FLAG_FORM_EQUALS, .kind = FLAG_ARG_DOUBLE,
     .safety = FLAG_SAFE, .group = FLAG_GROUP_COLLECTOR,
     STORE(DOUBLE, gc.nonmoving_evac_occupancy), DEF_D(0.9), RANGE(0, 1),
     .arg_help = "<fraction>", .example = "--nonmoving-evac-occupancy=0.8",
     .help = "Copy the immutable objects of sparse non-moving segments into\n"
             "denser ones, where promotion left free slots unused, until each\n"
             "size class is this full (default: 0.9; 0: never)"},
    {.name = "-c", .form = FLAG_FORM_BARE, .safety = FLAG_UNSAFE, .group = FLAG_GROUP_COLLECTOR,
     STORE(BOOL, gc.compact), DEF_U(0), BARE_U(1), .example = "-c",
     .help = "Use in-place compaction for all oldest generation collections\n"
             "(the default is to use copying)"},
    {.name = "-c", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_DOUBLE, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_COLLECTOR, STORE(DOUBLE, gc.compact_threshold), DEF_D(30.0),
     RANGE(0, 100), .arg_help = "<n>", .example = "-c50",
     .help = "Use in-place compaction instead of copying in the oldest generation\n"
             "when live data is at least <n>% of the maximum heap size set with\n"
             "-M (default: 30%)"},
    {.name = "-w", .form = FLAG_FORM_BARE, .safety = FLAG_UNSAFE, .group = FLAG_GROUP_COLLECTOR,
     STORE(BOOL, gc.sweep), DEF_U(0), BARE_U(1), .example = "-w",
     .help = "Use mark-region for the oldest generation (experimental)"},

    /* Thread stacks. */
    {.name = "-K", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_SIZE, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_STACK, STORE(U64, gc.max_stack_bytes),
     .compute_default = default_max_stack, UBOUNDS(0, MAX_K_BYTES), .arg_help = "<size>",
     .example = "-K64m",
     .help = "Sets the maximum stack size (default: 80% of physical memory)\n"
             "e.g.: -K32k -K512k -K8M (0 = no limit)"},
    {.name = "-ki", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_SIZE, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_STACK, STORE(U64, gc.init_stack_bytes), DEF_U(1 * KiB),
     UBOUNDS(8, UINT64_MAX), .arg_help = "<size>", .example = "-ki4k",
     .help = "Sets the initial thread stack size (default 1k)  e.g.: -ki4k -ki2m"},
    {.name = "-k", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_SIZE, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_HIDDEN, STORE(U64, gc.init_stack_bytes), UBOUNDS(8, UINT64_MAX),
     .arg_help = "<size>", .example = "-k4k", .help = "Old spelling of -ki"},
    {.name = "-kc", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_SIZE, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_STACK, STORE(U64, gc.stack_chunk_bytes), DEF_U(32 * KiB),
     UBOUNDS(8, UINT64_MAX), .arg_help = "<size>", .example = "-kc64k",
     .help = "Sets the stack chunk size (default 32k)"},
    {.name = "-kb", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_SIZE, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_STACK, STORE(U64, gc.stack_chunk_buffer_bytes), DEF_U(1 * KiB),
     UBOUNDS(8, UINT64_MAX), .arg_help = "<size>", .example = "-kb2k",
     .help = "Sets the stack chunk buffer size (default 1k, at most half of -kc)"},

    /* Heap sizing. */
    {.name = "-A", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_SIZE, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_HEAP, STORE(U64, gc.alloc_area_bytes), DEF_U(4 * MiB),
     UBOUNDS(8 * KiB, INT64_MAX), .arg_help = "<size>", .example = "-A8m",
     .help = "Sets the minimum allocation area size (default 4m) e.g.: -A20m -A10k"},
    {.name = "-AL", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_SIZE, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_HEAP, STORE(U64, gc.large_alloc_lim_bytes), DEF_U(0),
     UBOUNDS(8 * KiB, INT64_MAX), .arg_help = "<size>", .example = "-AL16m",
     .help = "Sets the amount of large-object memory that can be allocated\n"
             "before a GC is triggered (default: the value of -A)"},
    {.name = "-F", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_DOUBLE, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_HEAP, STORE(DOUBLE, gc.old_gen_factor), DEF_D(2.0), RANGE(0, 1e6),
     .bad_option = true, .arg_help = "<n>", .example = "-F1.5",
     .help = "Sets the collecting threshold for old generations as a factor of\n"
             "the live data in that generation the last time it was collected\n"
             "(default: 2.0)"},
    {.name = "-Fd", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_DOUBLE, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_HEAP, STORE(DOUBLE, gc.return_decay_factor), DEF_D(4.0), RANGE(0, 1e6),
     .bad_option = true, .arg_help = "<n>", .example = "-Fd2",
     .help = "The inverse rate at which unused memory is returned to the OS\n"
             "(default: 4.0, 0 = never return memory)"},
    {.name = "-n", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_SIZE, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_HEAP, STORE(U64, gc.nursery_chunk_bytes), DEF_U(0),
     UBOUNDS(8 * KiB, INT64_MAX), .arg_help = "<size>", .example = "-n2m",
     .help = "Allocation area chunk size (default: none; 4m when -A is 16m or more)"},
    {.name = "-O", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_SIZE, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_HEAP, STORE(U64, gc.min_old_gen_bytes), DEF_U(1 * MiB),
     UBOUNDS(4 * KiB, UINT64_MAX), .arg_help = "<size>", .example = "-O2m",
     .help = "Sets the minimum size of the old generation (default 1M)"},
    {.name = "-M", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_SIZE, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_HEAP, STORE(U64, gc.max_heap_bytes), DEF_U(0),
     UBOUNDS(4 * KiB, UINT64_MAX), .arg_help = "<size>", .example = "-M256m",
     .help = "Sets the maximum heap size (default unlimited)  e.g.: -M256k -M1G"},
    {.name = "-Mgrace=", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_SIZE, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_HEAP, STORE(U64, gc.heap_overflow_grace_bytes), DEF_U(1 * MiB),
     UBOUNDS(4 * KiB, UINT64_MAX), .arg_help = "<size>", .example = "-Mgrace=2m",
     .help = "The amount of allocation after the program receives a\n"
             "HeapOverflow exception before the exception is thrown again (default 1M)"},
    {.name = "-H", .form = FLAG_FORM_OPTIONAL, .kind = FLAG_ARG_SIZE, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_HEAP, STORE(U64, gc.heap_size_suggestion_bytes), DEF_U(0),
     UBOUNDS(4 * KiB, UINT64_MAX), .apply = apply_heap_suggestion, .arg_help = "[<size>]",
     .example = "-H64m",
     .help = "Sets the suggested heap size (default 0M; alone: the heap size at\n"
             "the previous GC)  e.g.: -H24m  -H1G"},
    {.name = "-xb", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_INT, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_HEAP, STORE(UPTR, gc.heap_base), DEF_U(0), UBOUNDS(0, UINTPTR_MAX),
     .base = FLAG_BASE_C, .arg_help = "<addr>", .example = "-xb0x200000000",
     .help = "Sets the address from which a suitable start for the heap memory\n"
             "will be searched from (decimal, or 0x hexadecimal)"},
    {.name = "-m", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_DOUBLE, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_HEAP, STORE(DOUBLE, gc.pc_free_heap), DEF_D(3.0), RANGE(0, 100),
     .bad_option = true, .arg_help = "<n>", .example = "-m5",
     .help = "Minimum % of heap which must be available (default 3%)"},
    {.name = "-G", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_INT, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_HEAP, STORE(U32, gc.generations), DEF_U(2), UBOUNDS(1, MAX_GENERATIONS),
     .arg_help = "<n>", .example = "-G3", .help = "Number of generations (default: 2)"},
    {.name = "-xq", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_SIZE, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_HEAP, STORE(U64, gc.alloc_limit_grace_bytes), DEF_U(100 * KiB),
     UBOUNDS(4 * KiB, INT64_MAX), .arg_help = "<size>", .example = "-xq200k",
     .help = "The allocation limit given to a thread after it receives an\n"
             "AllocationLimitExceeded exception (default: 100k)"},
    {.name = "-xr", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_SIZE, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_HEAP, STORE(U64, gc.address_space_bytes), DEF_U(1 * TiB),
     UBOUNDS(1 * MiB, UINT64_MAX), .arg_help = "<size>", .example = "-xr64g",
     .help = "The size of the virtual address space reserved for the heap\n"
             "(default: 1T)"},
    {.name = "--disable-delayed-os-memory-return", .form = FLAG_FORM_BARE, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_HEAP, STORE(BOOL, gc.disable_delayed_os_memory_return), DEF_U(0),
     BARE_U(1), .example = "--disable-delayed-os-memory-return",
     .help = "Return memory to the OS with MADV_DONTNEED instead of MADV_FREE,\n"
             "so that tools such as top see it at once (a little slower)"},
    {.name = "--huge-pages", .form = FLAG_FORM_EQUALS, .kind = FLAG_ARG_ENUM,
     .safety = FLAG_UNSAFE, .group = FLAG_GROUP_HEAP, STORE(BOOL, gc.huge_pages), DEF_U(1),
     .choices = yes_no, .arg_help = "<yes|no>", .example = "--huge-pages=no",
     .help = "Back the heap with transparent huge pages where the OS has them\n"
             "(default: yes; an hsrts option)"},

    /* Statistics. */
    {.name = "-T", .form = FLAG_FORM_BARE, .safety = FLAG_SAFE, .group = FLAG_GROUP_STATS,
     .apply = apply_stats, .example = "-T",
     .help = "Collect GC statistics (useful for in-program statistics access)"},
    {.name = "-t", .form = FLAG_FORM_OPTIONAL, .kind = FLAG_ARG_FILE, .safety = FLAG_SAFE_BARE,
     .group = FLAG_GROUP_STATS, .apply = apply_stats, .arg_help = "[<file>]",
     .example = "-tgc.log", .help = "One-line GC statistics (if <file> omitted, uses stderr)"},
    {.name = "-s", .form = FLAG_FORM_OPTIONAL, .kind = FLAG_ARG_FILE, .safety = FLAG_SAFE_BARE,
     .group = FLAG_GROUP_STATS, .apply = apply_stats, .arg_help = "[<file>]",
     .example = "-sgc.log", .help = "Summary  GC statistics (if <file> omitted, uses stderr)"},
    {.name = "-S", .form = FLAG_FORM_OPTIONAL, .kind = FLAG_ARG_FILE, .safety = FLAG_SAFE_BARE,
     .group = FLAG_GROUP_STATS, .apply = apply_stats, .arg_help = "[<file>]",
     .example = "-Sgc.log", .help = "Detailed GC statistics (if <file> omitted, uses stderr)"},
    {.name = "--machine-readable", .form = FLAG_FORM_BARE, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_STATS, STORE(BOOL, stats.machine_readable), DEF_U(0), BARE_U(1),
     .example = "--machine-readable",
     .help = "Print the -t statistics as a Haskell [(String, String)] list"},
    {.name = "--internal-counters", .form = FLAG_FORM_BARE, .safety = FLAG_SAFE,
     .group = FLAG_GROUP_STATS, STORE(BOOL, stats.internal_counters), DEF_U(0), BARE_U(1),
     .example = "--internal-counters",
     .help = "Add internal counters to the -s summary (threaded runtime)"},

    /* Odds and ends of the collector. */
    {.name = "-Z", .form = FLAG_FORM_BARE, .safety = FLAG_UNSAFE, .group = FLAG_GROUP_MISC_GC,
     STORE(BOOL, gc.squeeze_update_frames), DEF_U(1), BARE_U(0), .example = "-Z",
     .help = "Don't squeeze out update frames on context switch\n"
             "(hsrts: no effect; tail calls never leave frames to squeeze)"},
    {.name = "-B", .form = FLAG_FORM_BARE, .safety = FLAG_UNSAFE, .group = FLAG_GROUP_MISC_GC,
     STORE(BOOL, gc.ring_bell), DEF_U(0), BARE_U(1), .example = "-B",
     .help = "Sound the bell at the start of each garbage collection"},
    {.name = "-I", .form = FLAG_FORM_OPTIONAL, .kind = FLAG_ARG_TIME, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_MISC_GC, .compute_default = default_idle_gc, RANGE(0, MAX_SECONDS),
     .apply = apply_idle_gc, .arg_help = "<sec>", .example = "-I0.5",
     .help = "Perform full GC after <sec> idle time (default: 0.3 threaded,\n"
             "off otherwise; 0 == off)"},
    {.name = "-Iw", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_TIME, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_MISC_GC, STORE(DOUBLE, gc.idle_gc_interval), DEF_D(0.0),
     RANGE(0, MAX_SECONDS), .arg_help = "<sec>", .example = "-Iw60",
     .help = "Minimum wait between idle GCs (default: 0)"},
    {.name = "--long-gc-sync", .form = FLAG_FORM_OPT_EQUALS, .kind = FLAG_ARG_TIME,
     .safety = FLAG_SAFE, .group = FLAG_GROUP_MISC_GC, STORE(DOUBLE, gc.long_gc_sync), DEF_D(0.0),
     BARE_D(0.001), RANGE(0, MAX_SECONDS), .arg_help = "[=<secs>]",
     .example = "--long-gc-sync=0.01",
     .help = "Warn when a GC sync takes longer than <secs> (alone: 1ms;\n"
             "default: off)"},

    /* Heap profiling. */
    {.name = "-h", .form = FLAG_FORM_BARE, .safety = FLAG_UNSAFE, .group = FLAG_GROUP_PROF,
     .apply = apply_heap_prof, .example = "-h",
     .help = "Heap residency profile (deprecated spelling of -hT)"},
    {.name = "-hT", .form = FLAG_FORM_BARE, .safety = FLAG_UNSAFE, .group = FLAG_GROUP_PROF,
     .apply = apply_heap_prof, .example = "-hT",
     .help = "Produce a heap profile grouped by closure type (<program>.hp)"},
    {.name = "-hi", .form = FLAG_FORM_BARE, .safety = FLAG_UNSAFE, .group = FLAG_GROUP_PROF,
     .apply = apply_heap_prof, .example = "-hi",
     .help = "Produce a heap profile grouped by info table address"},
    {.name = "-h", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_FILE, .way = FLAGS_WAY_PROF,
     .safety = FLAG_SAFE, .group = FLAG_GROUP_HIDDEN, .example = "-hc",
     .help = "Cost-centre heap profiles"},
    {.name = "-i", .form = FLAG_FORM_OPTIONAL, .kind = FLAG_ARG_TIME, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_PROF, STORE(DOUBLE, prof.heap_prof_interval), DEF_D(0.1), BARE_D(0.1),
     RANGE(0, MAX_SECONDS), .arg_help = "<sec>", .example = "-i0.5",
     .help = "Time between heap profile samples (seconds, default: 0.1)"},
    {.name = "-po", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_FILE, .safety = FLAG_SAFE,
     .group = FLAG_GROUP_PROF, STORE(STR, prof.hp_stem), DEF_S(NULL), .arg_help = "<file>",
     .example = "-pofoo",
     .help = "Override profiling output file name prefix (program name by default)"},
    {.name = "--no-automatic-heap-samples", .form = FLAG_FORM_BARE, .safety = FLAG_SAFE,
     .group = FLAG_GROUP_PROF, STORE(BOOL, prof.automatic_heap_samples), DEF_U(1), BARE_U(0),
     .example = "--no-automatic-heap-samples",
     .help = "Do not start the heap profile interval timer on start-up,\n"
             "the program asks for samples itself"},
    {.name = "-p", .form = FLAG_FORM_OPTIONAL, .kind = FLAG_ARG_FILE, .way = FLAGS_WAY_PROF,
     .safety = FLAG_SAFE, .group = FLAG_GROUP_HIDDEN, .example = "-p",
     .help = "Time/allocation profile"},
    {.name = "-P", .form = FLAG_FORM_OPTIONAL, .kind = FLAG_ARG_FILE, .way = FLAGS_WAY_PROF,
     .safety = FLAG_SAFE, .group = FLAG_GROUP_HIDDEN, .example = "-P",
     .help = "More detailed time/allocation profile"},
    {.name = "-R", .form = FLAG_FORM_OPTIONAL, .kind = FLAG_ARG_FILE, .way = FLAGS_WAY_PROF,
     .safety = FLAG_SAFE, .group = FLAG_GROUP_HIDDEN, .example = "-R8",
     .help = "Maximum retainer set size"},
    {.name = "-L", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_INT, .safety = FLAG_SAFE,
     .group = FLAG_GROUP_PROF, STORE(U32, prof.label_length), DEF_U(0), UBOUNDS(1, 4096),
     .arg_help = "<chars>", .example = "-L40",
     .help = "Maximum length of a band's label in a heap profile (default: no limit)"},
    {.name = "-xc", .form = FLAG_FORM_BARE, .way = FLAGS_WAY_PROF, .safety = FLAG_SAFE,
     .group = FLAG_GROUP_HIDDEN, .example = "-xc",
     .help = "Show current cost centre stack on raising an exception"},
    {.name = "--no-automatic-time-samples", .form = FLAG_FORM_BARE, .way = FLAGS_WAY_PROF,
     .safety = FLAG_SAFE, .group = FLAG_GROUP_HIDDEN, .example = "--no-automatic-time-samples",
     .help = "Do not start time profiling on start-up"},
    {.name = "--automatic-era-increment", .form = FLAG_FORM_BARE, .way = FLAGS_WAY_PROF,
     .safety = FLAG_SAFE, .group = FLAG_GROUP_HIDDEN, .example = "--automatic-era-increment",
     .help = "Increase the profiling era on every major GC"},

    /* The event log and tracing. */
    {.name = "-ol", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_FILE, .safety = FLAG_SAFE,
     .group = FLAG_GROUP_TRACE, STORE(STR, trace.eventlog_file), DEF_S(NULL), .arg_help = "<file>",
     .example = "-olrun.eventlog",
     .help = "Send binary eventlog to <file> (default: <program>.eventlog)"},
    {.name = "-l", .form = FLAG_FORM_OPTIONAL, .kind = FLAG_ARG_LETTERS, .safety = FLAG_SAFE,
     .group = FLAG_GROUP_TRACE, .apply = apply_eventlog, .arg_help = "[flags]", .example = "-l-ag",
     .help = "Log events to a file (classes below)"},
    {.name = "-v", .form = FLAG_FORM_OPTIONAL, .kind = FLAG_ARG_LETTERS, .way = FLAGS_WAY_DEBUG,
     .safety = FLAG_SAFE, .group = FLAG_GROUP_TRACE, .apply = apply_trace_stderr,
     .arg_help = "[flags]", .example = "-vst", .help = "Log events to stderr"},
    {.name = "--eventlog-flush-interval", .form = FLAG_FORM_EQUALS, .kind = FLAG_ARG_TIME,
     .safety = FLAG_SAFE, .group = FLAG_GROUP_TRACE, STORE(DOUBLE, trace.flush_interval),
     DEF_D(0.0), RANGE(0, MAX_SECONDS), .arg_help = "<secs>",
     .example = "--eventlog-flush-interval=1",
     .help = "Periodically flush the eventlog at the specified interval."},
    {.name = "--null-eventlog-writer", .form = FLAG_FORM_BARE, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_TRACE, STORE(BOOL, trace.null_writer), DEF_U(0), BARE_U(1),
     .example = "--null-eventlog-writer",
     .help = "Send events to a writer that discards them (with -l)"},

    /* The timer. */
    {.name = "-C", .form = FLAG_FORM_OPTIONAL, .kind = FLAG_ARG_TIME, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_TIMER, STORE(DOUBLE, misc.ctxt_switch_time), DEF_D(0.02), BARE_D(0.0),
     RANGE(0, MAX_SECONDS), .arg_help = "<secs>", .example = "-C0.05",
     .help = "Context-switch interval in seconds.\n"
             "0 or no argument means switch as often as possible.\n"
             "Default: 0.02 sec."},
    {.name = "-V", .form = FLAG_FORM_OPTIONAL, .kind = FLAG_ARG_TIME, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_TIMER, STORE(DOUBLE, misc.tick_interval), DEF_D(0.01), BARE_D(0.0),
     RANGE(0, MAX_SECONDS), .arg_help = "<secs>", .example = "-V0.02",
     .help = "Master tick interval in seconds (0 == disable timer).\n"
             "This sets the resolution for -C and the heap profile timer -i,\n"
             "and is the frequency of time profile samples.\n"
             "Default: 0.01 sec."},

    /* Parallelism (threaded runtime). */
    {.name = "-N", .form = FLAG_FORM_OPTIONAL, .kind = FLAG_ARG_INT, .way = FLAGS_WAY_THREADED,
     .safety = FLAG_SAFE, .group = FLAG_GROUP_PAR, STORE(U32, par.n_capabilities), DEF_U(1),
     UBOUNDS(1, MAX_CAPABILITIES), .bad_value = "bad value for -N", .apply = apply_n,
     .arg_help = "[<n>]", .example = "-N2",
     .help = "Use <n> processors (default: 1, -N alone determines\n"
             "the number of processors to use automatically)"},
    {.name = "-maxN", .form = FLAG_FORM_OPTIONAL, .kind = FLAG_ARG_INT, .way = FLAGS_WAY_THREADED,
     .safety = FLAG_SAFE, .group = FLAG_GROUP_PAR, UBOUNDS(1, MAX_CAPABILITIES),
     .bad_value = "bad value for -maxN", .apply = apply_max_n, .arg_help = "[<n>]", .example = "-maxN4",
     .help = "Use up to <n> processors automatically"},
    {.name = "-qg", .form = FLAG_FORM_OPTIONAL, .kind = FLAG_ARG_INT, .way = FLAGS_WAY_THREADED,
     .safety = FLAG_UNSAFE, .group = FLAG_GROUP_PAR, .compute_default = default_parallel_gc,
     UBOUNDS(0, MAX_GENERATIONS), .apply = apply_parallel_gc, .arg_help = "[<n>]",
     .example = "-qg1",
     .help = "Use parallel GC only for generations >= <n>\n"
             "(default: 0, -qg alone turns off parallel GC)"},
    {.name = "-qb", .form = FLAG_FORM_OPTIONAL, .kind = FLAG_ARG_INT, .way = FLAGS_WAY_THREADED,
     .safety = FLAG_UNSAFE, .group = FLAG_GROUP_PAR, .compute_default = default_load_balance,
     UBOUNDS(0, MAX_GENERATIONS), .apply = apply_load_balance, .arg_help = "[<n>]",
     .example = "-qb0",
     .help = "Use load-balancing in the parallel GC only for generations >= <n>\n"
             "(default: 1 for -A < 32M, 0 otherwise;\n"
             "-qb alone turns off load-balancing)"},
    {.name = "-qn", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_INT, .way = FLAGS_WAY_THREADED,
     .safety = FLAG_UNSAFE, .group = FLAG_GROUP_PAR, STORE(U32, par.gc_threads), DEF_U(0),
     UBOUNDS(1, MAX_CAPABILITIES), .bad_value = "-qn must be 1 or greater", .arg_help = "<n>",
     .example = "-qn1",
     .help = "Use <n> threads for parallel GC (defaults to value of -N)"},
    {.name = "-qa", .form = FLAG_FORM_BARE, .way = FLAGS_WAY_THREADED, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_PAR, STORE(BOOL, par.set_affinity), DEF_U(0), BARE_U(1), .example = "-qa",
     .help = "Use the OS to set thread affinity (experimental)"},
    {.name = "-qm", .form = FLAG_FORM_BARE, .way = FLAGS_WAY_THREADED, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_PAR, STORE(BOOL, par.no_migrate), DEF_U(0), BARE_U(1), .example = "-qm",
     .help = "Don't automatically migrate threads between CPUs"},
    {.name = "--parallel-gc-threshold", .form = FLAG_FORM_EQUALS, .kind = FLAG_ARG_SIZE,
     .way = FLAGS_WAY_THREADED, .safety = FLAG_UNSAFE, .group = FLAG_GROUP_PAR,
     STORE(U64, par.parallel_gc_threshold_bytes), DEF_U(2 * MiB), UBOUNDS(0, INT64_MAX),
     .arg_help = "<size>", .example = "--parallel-gc-threshold=8m",
     .help = "Collect on one thread when the last collection of the same\n"
             "generations copied less than <size> (default 2m; 0: every\n"
             "collection -qg allows is parallel)"},
    {.name = "-qi", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_INT, .way = FLAGS_WAY_THREADED,
     .safety = FLAG_UNSAFE, .group = FLAG_GROUP_PAR, STORE(U32, par.idle_skip), DEF_U(0),
     UBOUNDS(0, UINT32_MAX), .arg_help = "<n>", .example = "-qi4",
     .help = "If a processor has been idle for the last <n> GCs, do not\n"
             "wake it up for a non-load-balancing parallel GC.\n"
             "(0 disables,  default: 0)"},
    {.name = "-qw", .form = FLAG_FORM_BARE, .way = FLAGS_WAY_THREADED, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_HIDDEN, .apply = apply_ignored, .example = "-qw",
     .help = "Ignored (kept for compatibility)"},
    {.name = "-g1", .form = FLAG_FORM_BARE, .way = FLAGS_WAY_THREADED, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_HIDDEN, STORE(BOOL, par.parallel_gc), BARE_U(0), .example = "-g1",
     .help = "Old spelling of -qg alone"},
    {.name = "-e", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_INT, .way = FLAGS_WAY_THREADED,
     .safety = FLAG_UNSAFE, .group = FLAG_GROUP_PAR, STORE(U32, par.max_local_sparks), DEF_U(4096),
     UBOUNDS(1, UINT32_MAX), .bad_value = "bad value for -e", .arg_help = "<n>",
     .example = "-e8192",
     .help = "Maximum number of outstanding local sparks (default: 4096)"},
    {.name = "--numa", .form = FLAG_FORM_OPT_EQUALS, .kind = FLAG_ARG_MASK,
     .way = FLAGS_WAY_THREADED, .safety = FLAG_SAFE, .group = FLAG_GROUP_PAR,
     .compute_default = default_numa, UBOUNDS(1, UINT64_MAX), .apply = apply_numa,
     .arg_help = "[=<node_mask>]", .example = "--numa=3",
     .help = "Use NUMA, nodes given by <node_mask> (default: off)"},
    {.name = "--debug-numa", .form = FLAG_FORM_EQUALS, .kind = FLAG_ARG_INT,
     .way = FLAGS_WAY_THREADED | FLAGS_WAY_DEBUG, .safety = FLAG_SAFE, .group = FLAG_GROUP_PAR,
     STORE(U32, gc.debug_numa_nodes), DEF_U(0), UBOUNDS(1, MAX_NUMA_NODES),
     .apply = apply_debug_numa, .arg_help = "<num_nodes>", .example = "--debug-numa=2",
     .help = "Pretend NUMA: like --numa, but with fake nodes"},

    /* The process and the OS. */
    {.name = "--install-signal-handlers", .form = FLAG_FORM_EQUALS, .kind = FLAG_ARG_ENUM,
     .safety = FLAG_UNSAFE, .group = FLAG_GROUP_SYSTEM, STORE(BOOL, misc.install_signal_handlers),
     DEF_U(1), .choices = yes_no, .arg_help = "<yes|no>",
     .example = "--install-signal-handlers=no", .help = "Install signal handlers (default: yes)"},
    {.name = "--install-seh-handlers", .form = FLAG_FORM_EQUALS, .kind = FLAG_ARG_ENUM,
     .safety = FLAG_UNSAFE, .group = FLAG_GROUP_HIDDEN, STORE(BOOL, misc.install_seh_handlers),
     DEF_U(1), .choices = yes_no, .arg_help = "<yes|no>", .example = "--install-seh-handlers=no",
     .help = "Install Windows exception handlers (Windows only)"},
    {.name = "--generate-crash-dumps", .form = FLAG_FORM_BARE, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_HIDDEN, STORE(BOOL, misc.generate_crash_dumps), DEF_U(0), BARE_U(1),
     .example = "--generate-crash-dumps",
     .help = "Write a crash dump on an unhandled exception (Windows only)"},
    {.name = "--generate-stack-traces", .form = FLAG_FORM_EQUALS, .kind = FLAG_ARG_ENUM,
     .safety = FLAG_UNSAFE, .group = FLAG_GROUP_HIDDEN, STORE(BOOL, misc.generate_stack_traces),
     DEF_U(1), .choices = yes_no, .arg_help = "<yes|no>", .example = "--generate-stack-traces=no",
     .help = "Print a stack trace on a crash (Windows only)"},
    {.name = "--io-manager", .form = FLAG_FORM_EQUALS, .kind = FLAG_ARG_ENUM,
     .safety = FLAG_UNSAFE, .group = FLAG_GROUP_SYSTEM, STORE(STR, misc.io_manager), DEF_S("auto"),
     .choices = io_managers, .apply = apply_io_manager, .arg_help = "<name>",
     .example = "--io-manager=auto",
     .help = "The I/O manager to use.\n"
             "Options available: auto select (non-threaded), auto mio (threaded)"},
    {.name = "-xp", .form = FLAG_FORM_BARE, .safety = FLAG_UNSAFE, .group = FLAG_GROUP_SYSTEM,
     STORE(BOOL, misc.linker_always_pic), .compute_default = default_linker_pic, BARE_U(1),
     .example = "-xp",
     .help = "Assume that all object files were compiled with -fPIC\n"
             "-fexternal-dynamic-refs and load them anywhere in the address space"},
    {.name = "-xm", .form = FLAG_FORM_OPTIONAL, .kind = FLAG_ARG_INT, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_SYSTEM, STORE(UPTR, misc.linker_mmap_base), DEF_U(0), BARE_U(0),
     UBOUNDS(0, 0x80000000u), .base = 16, .arg_help = "<address>", .example = "-xm20000000",
     .help = "Base address to mmap memory in the GHCi linker\n"
             "(hex; must be <= 80000000)"},
    {.name = "--optimistic-linking", .form = FLAG_FORM_BARE, .safety = FLAG_UNSAFE,
     .group = FLAG_GROUP_SYSTEM, STORE(BOOL, misc.optimistic_linking), DEF_U(0), BARE_U(1),
     .example = "--optimistic-linking",
     .help = "Let the runtime linker carry on past unresolved symbols"},
    {.name = "--read-tix-file", .form = FLAG_FORM_EQUALS, .kind = FLAG_ARG_ENUM,
     .safety = FLAG_UNSAFE, .group = FLAG_GROUP_SYSTEM, STORE(BOOL, misc.read_tix_file), DEF_U(1),
     .choices = yes_no, .arg_help = "<yes|no>", .example = "--read-tix-file=no",
     .help = "Whether to initialize HPC datastructures from <program>.tix\n"
             "at the start of execution. (default: yes)"},
    {.name = "--write-tix-file", .form = FLAG_FORM_EQUALS, .kind = FLAG_ARG_ENUM,
     .safety = FLAG_UNSAFE, .group = FLAG_GROUP_SYSTEM, STORE(BOOL, misc.write_tix_file), DEF_U(1),
     .choices = yes_no, .arg_help = "<yes|no>", .example = "--write-tix-file=no",
     .help = "Whether to write <program>.tix at the end of execution.\n"
             "(default: yes)"},
    {.name = "-xt", .form = FLAG_FORM_OPTIONAL, .kind = FLAG_ARG_FILE, .safety = FLAG_SAFE,
     .group = FLAG_GROUP_HIDDEN, .apply = apply_removed, .example = "-xt", .help = "Removed"},
    {.name = "-r", .form = FLAG_FORM_OPTIONAL, .kind = FLAG_ARG_FILE, .way = FLAGS_WAY_TICKY,
     .safety = FLAG_SAFE_BARE, .group = FLAG_GROUP_HIDDEN, .example = "-r",
     .help = "Produce ticky-ticky statistics"},

    /* Debugging (debug runtime). */
    {.name = "-D", .form = FLAG_FORM_ATTACHED, .kind = FLAG_ARG_LETTERS, .way = FLAGS_WAY_DEBUG,
     .safety = FLAG_SAFE, .group = FLAG_GROUP_DEBUG, .apply = apply_debug_classes,
     .arg_help = "<classes>", .example = "-DS", .help = "Turn on debug classes:"},
    /* clang-format on */
};

const size_t flags_table_len = sizeof flags_table / sizeof flags_table[0];

/* ---- Defaults and ownership ------------------------------------------------ */

void flags_store_field(RtsFlags *f, const FlagSpec *s, const FlagValue *v)
{
    void *field = (char *)f + s->offset;
    switch (s->field) {
    case FLAG_FIELD_U64:
        *(uint64_t *)field = v->u;
        break;
    case FLAG_FIELD_U32:
        *(uint32_t *)field = (uint32_t)v->u;
        break;
    case FLAG_FIELD_UPTR:
        *(uintptr_t *)field = (uintptr_t)v->u;
        break;
    case FLAG_FIELD_DOUBLE:
        *(double *)field = v->d;
        break;
    case FLAG_FIELD_BOOL:
        *(bool *)field = v->u != 0;
        break;
    case FLAG_FIELD_STR:
        free(*(char **)field);
        *(char **)field = v->s ? strdup(v->s) : NULL;
        break;
    case FLAG_FIELD_NONE:
        break;
    }
}

void flags_defaults(RtsFlags *f, const FlagsEnv *env)
{
    memset(f, 0, sizeof *f);
    for (size_t i = 0; i < flags_table_len; i++) {
        const FlagSpec *s = &flags_table[i];
        if (s->compute_default)
            s->compute_default(f, env);
        if (!s->owns_default)
            continue;
        flags_store_field(f, s, &s->def);
    }
}

/* Every char * of RtsFlags, for release and copy. */
static char **owned_strings(RtsFlags *f, size_t i)
{
    char **all[] = {&f->stats.file, &f->misc.io_manager, &f->prof.hp_stem, &f->trace.eventlog_file};
    return i < sizeof all / sizeof all[0] ? all[i] : NULL;
}

void flags_release(RtsFlags *f)
{
    char **s;
    for (size_t i = 0; (s = owned_strings(f, i)) != NULL; i++) {
        free(*s);
        *s = NULL;
    }
}

void flags_copy(RtsFlags *dst, const RtsFlags *src)
{
    *dst = *src;
    char **s;
    for (size_t i = 0; (s = owned_strings(dst, i)) != NULL; i++)
        if (*s)
            *s = strdup(*s);
}

/* ---- The runtime in use ---------------------------------------------------- */

const char *flags_way_name(unsigned way)
{
    switch (way & (FLAGS_WAY_THREADED | FLAGS_WAY_DEBUG)) {
    case FLAGS_WAY_THREADED:
        return "rts_thr";
    case FLAGS_WAY_DEBUG:
        return "rts_debug";
    case FLAGS_WAY_THREADED | FLAGS_WAY_DEBUG:
        return "rts_thr_debug";
    default:
        return "rts_v";
    }
}

void flags_env_current(FlagsEnv *env)
{
    memset(env, 0, sizeof *env);
    env->way = FLAGS_WAY_SELF;
    /* Bare -N and -maxN count the CPUs this process may run on (its affinity mask), as GHC. */
    cpu_set_t allowed;
    long n = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : 0;
    if (n <= 0)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    env->n_cpus = n > 0 ? (uint32_t)n : 1;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    env->phys_mem_bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
    env->setuid = getuid() != geteuid() || getgid() != getegid();
#if defined(HAVE_LIBNUMA)
    env->numa_supported = true;
#endif
}
