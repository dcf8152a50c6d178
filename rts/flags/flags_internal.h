/*
 * The flags module's internal interface: the option table, the parser core
 * (which never exits the process) and the helpers the thin process-level
 * wrapper flags_setup() is made of. Nothing outside rts/flags/ and the
 * flags tests includes this header.
 *
 * See Note [One table] in flags_table.c for how a row drives everything.
 */
#ifndef RTS_FLAGS_INTERNAL_H
#define RTS_FLAGS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "flags/flags.h"

/* ---- Ways ------------------------------------------------------------- */

/*
 * The features of a runtime build. A row's `way` is the set of features a
 * flag needs; the runtime in use has FLAGS_WAY_SELF. PROF and TICKY never
 * exist in hsrts: their rows are recognised only to say so.
 */
enum {
    FLAGS_WAY_THREADED = 1u << 0,
    FLAGS_WAY_DEBUG = 1u << 1,
    FLAGS_WAY_PROF = 1u << 2,
    FLAGS_WAY_TICKY = 1u << 3,
};

#if defined(THREADED_RTS) && defined(DEBUG)
#define FLAGS_WAY_SELF (FLAGS_WAY_THREADED | FLAGS_WAY_DEBUG)
#elif defined(THREADED_RTS)
#define FLAGS_WAY_SELF FLAGS_WAY_THREADED
#elif defined(DEBUG)
#define FLAGS_WAY_SELF FLAGS_WAY_DEBUG
#else
#define FLAGS_WAY_SELF 0u
#endif

/* "rts_v", "rts_thr", "rts_debug" or "rts_thr_debug". */
const char *flags_way_name(unsigned way);

/*
 * What the parser needs to know about the process and the machine. The
 * wrapper fills it from the build and the OS (flags_env_current); tests and
 * the fuzzer fill it by hand so that every way and policy can be exercised
 * from one library build.
 */
typedef struct {
    unsigned way;            /* FLAGS_WAY_* of the runtime in use */
    uint32_t n_cpus;         /* for bare -N, -maxN and the SafeOnly -N cap */
    uint64_t phys_mem_bytes; /* for the -K default; 0 = unknown */
    bool setuid;             /* uid != euid or gid != egid */
    bool numa_supported;     /* built with libnuma */
} FlagsEnv;

void flags_env_current(FlagsEnv *env);

/* ---- The table -------------------------------------------------------- */

/* What follows the spelling. */
typedef enum {
    FLAG_ARG_NONE,    /* nothing: -c, --copying-gc */
    FLAG_ARG_SIZE,    /* bytes, k/m/g/t/w/b suffix: -A4m */
    FLAG_ARG_TIME,    /* seconds, fractions allowed: -C0.05 */
    FLAG_ARG_DOUBLE,  /* a plain number: -F1.5 */
    FLAG_ARG_INT,     /* an integer in the row's base: -N4, -xb0x4000 */
    FLAG_ARG_ENUM,    /* one of the row's choices: --io-manager=select */
    FLAG_ARG_MASK,    /* a non-zero decimal bit mask: --numa=3 */
    FLAG_ARG_FILE,    /* a file name or stem: -Sgc.log, -ol<file> */
    FLAG_ARG_LETTERS, /* class letters: -lsg, -DS */
} FlagArgKind;

/* How the argument attaches to the spelling. */
typedef enum {
    FLAG_FORM_BARE,       /* the spelling alone */
    FLAG_FORM_ATTACHED,   /* spelling + value, value required: -A4m */
    FLAG_FORM_OPTIONAL,   /* spelling, or spelling + value: -H, -H64m */
    FLAG_FORM_EQUALS,     /* --name=value, value required */
    FLAG_FORM_OPT_EQUALS, /* --name or --name=value */
} FlagForm;

/* Which type of RtsFlags field a row stores into. */
typedef enum {
    FLAG_FIELD_NONE, /* the row's apply function does the work */
    FLAG_FIELD_U64,
    FLAG_FIELD_U32,
    FLAG_FIELD_UPTR,
    FLAG_FIELD_DOUBLE,
    FLAG_FIELD_BOOL,
    FLAG_FIELD_STR, /* owned, malloc'd */
} FlagFieldType;

/* Under RtsOptsSafeOnly. SAFE_BARE: safe without a value, unsafe with one. */
typedef enum { FLAG_SAFE, FLAG_UNSAFE, FLAG_SAFE_BARE } FlagSafety;

/* Groups of the -? text, in the order they are printed. */
typedef enum {
    FLAG_GROUP_INFO,
    FLAG_GROUP_COLLECTOR,
    FLAG_GROUP_STACK,
    FLAG_GROUP_HEAP,
    FLAG_GROUP_STATS,
    FLAG_GROUP_MISC_GC,
    FLAG_GROUP_PROF,
    FLAG_GROUP_TRACE,
    FLAG_GROUP_TIMER,
    FLAG_GROUP_PAR,
    FLAG_GROUP_SYSTEM,
    FLAG_GROUP_DEBUG,
    FLAG_GROUP_HIDDEN, /* recognised, never listed (other builds, legacy) */
    FLAG_GROUP_COUNT
} FlagGroup;

/* A parsed value, or a default. */
typedef struct {
    uint64_t u;    /* SIZE, INT, MASK, ENUM (the choice's value), BOOL */
    double d;      /* TIME, DOUBLE */
    const char *s; /* FILE, LETTERS (points into the argument) */
} FlagValue;

typedef struct {
    const char *name;
    uint64_t value;
    unsigned way;     /* the choice needs these ways */
    unsigned not_way; /* the choice does not exist in these ways */
} FlagChoice;

/* FlagSpec.base for integers written in C's way: 0x hex, 0 octal, else decimal. */
#define FLAG_BASE_C 1

struct FlagsParse;
struct FlagSpec;
typedef void (*FlagApplyFn)(struct FlagsParse *p, const struct FlagSpec *spec, bool has_value,
                            const FlagValue *v);
typedef void (*FlagDefaultFn)(RtsFlags *f, const FlagsEnv *env);

/* One row of the table: one flag. See Note [One table]. */
typedef struct FlagSpec {
    const char *name; /* spelling, dashes included: "-A", "--numa" */
    FlagForm form;
    FlagArgKind kind;
    unsigned way;      /* FLAGS_WAY_* the flag needs; 0 = any */
    FlagSafety safety; /* class under RtsOptsSafeOnly */
    FlagGroup group;
    FlagFieldType field;           /* where a plain value is stored */
    size_t offset;                 /* offsetof(RtsFlags, ...) */
    bool owns_default;             /* this row (not an alias) sets the field's default */
    FlagValue def;                 /* the default */
    FlagDefaultFn compute_default; /* a default that depends on the machine */
    FlagValue bare;                /* stored when an optional value is absent */
    double min, max;               /* TIME, DOUBLE and INT bounds (inclusive) */
    bool bad_option;               /* out of bounds is GHC's "bad RTS option: <arg>" */
    uint64_t umin, umax;           /* SIZE (bytes), INT and MASK bounds (inclusive) */
    int base;                      /* INT: strtoull base (10 unless given) */
    const FlagChoice *choices;     /* ENUM: terminated by a NULL name */
    FlagApplyFn apply;             /* special semantics; NULL = store into the field */
    const char *arg_help;          /* "<size>" in the usage text */
    const char *help;              /* usage text; '\n' starts a continuation line */
    const char *example;           /* a valid use, for tests and the fuzz corpus */
} FlagSpec;

/* Store v into the field row s owns (freeing a string it replaces). */
void flags_store_field(RtsFlags *f, const FlagSpec *s, const FlagValue *v);

extern const FlagSpec flags_table[];
extern const size_t flags_table_len;

/* A class letter of -l/-v or -D: the bool it sets. */
typedef struct {
    char letter;
    size_t offset; /* offsetof(RtsFlags, ...) of a bool; SIZE_MAX = special */
    const char *help;
} FlagLetter;

extern const FlagLetter flags_trace_letters[]; /* -l and -v; ends with letter 0 */
extern const FlagLetter flags_debug_letters[]; /* -D; ends with letter 0 */

/* Built-in defaults into *f (which is overwritten, not released). */
void flags_defaults(RtsFlags *f, const FlagsEnv *env);
/* Free the owned strings of *f and clear them. */
void flags_release(RtsFlags *f);
/* Deep copy (the strings are duplicated). */
void flags_copy(RtsFlags *dst, const RtsFlags *src);

/* ---- Messages and the parser state ------------------------------------ */

typedef enum {
    FLAGS_MSG_ERROR,   /* collected; the usage follows, exit 1 */
    FLAGS_MSG_WARNING, /* printed; the program continues */
    FLAGS_MSG_FATAL,   /* a policy refusal: printed, exit 1, no usage */
} FlagsMsgKind;

typedef struct {
    FlagsMsgKind kind;
    char *text; /* one line, no program-name prefix, no newline */
} FlagsMsg;

/* How processing ended, i.e. what the process-level wrapper does next. */
typedef enum {
    FLAGS_CONTINUE,   /* start the program */
    FLAGS_STOP_USAGE, /* errors or -?: messages, usage on stderr, exit 1 */
    FLAGS_STOP_FATAL, /* a refusal: messages, exit 1 */
    FLAGS_STOP_INFO,  /* --info: messages, info on stdout, exit 0 */
} FlagsOutcome;

/* Where an argument list came from (decides the policy level applied). */
typedef enum {
    FLAGS_SRC_RTS_OPTS, /* RtsConfig.rts_opts, the -with-rtsopts string */
    FLAGS_SRC_GHCRTS,
    FLAGS_SRC_CMDLINE,
} FlagsSource;

/* The state of one processing run: the flags being built and the report. */
typedef struct FlagsParse {
    RtsFlags *flags;
    const FlagsEnv *env;
    RtsOptsEnabledEnum level; /* the level of the list being processed */
    FlagsSource source;
    const RtsConfig *config;
    FlagsMsg *msgs;
    size_t n_msgs, cap_msgs;
    size_t n_errors;
    bool want_usage; /* -? seen */
    bool stop;       /* a fatal refusal or --info: process nothing more */
    bool want_info;
    const char *arg; /* the argument being processed (for messages) */
} FlagsParse;

void flags_parse_init(FlagsParse *p, RtsFlags *f, const FlagsEnv *env, const RtsConfig *config);
void flags_parse_free(FlagsParse *p);
void flags_msg(FlagsParse *p, FlagsMsgKind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The policy's advice sentence ("Link with hsrts-link -rtsopts ..."), or "". */
const char *flags_advice(const RtsConfig *config);

/*
 * Process one argument list at the parser's current level and source.
 * Stops early on a fatal refusal or --info (p->stop).
 */
void flags_process_args(FlagsParse *p, int n, char *const *args);

/* Derived values and cross-checks (§2.4 of the reference). */
void flags_normalise(FlagsParse *p);

/* Split a string on whitespace into a malloc'd, NULL-terminated word array. */
char **flags_split_words(const char *s, int *n_out);
void flags_free_words(char **words);

/* ---- The whole argument path, without exiting ------------------------- */

/*
 * Everything flags_setup() does except printing and exiting: defaults, the
 * defaults hook, rts_opts, GHCRTS (ghcrts, NULL when unset), the command
 * line, normalisation. argv is not modified.
 */
typedef struct {
    RtsFlags flags;
    FlagsParse parse;
    FlagsOutcome outcome;
    int prog_argc;
    char **prog_argv; /* NULL-terminated; points at argv's strings */
    int rts_argc;
    char **rts_argv; /* NULL-terminated; owned copies, in source order */
} FlagsRun;

void flags_run(FlagsRun *run, int argc, char *const argv[], const RtsConfig *config,
               const char *ghcrts, const FlagsEnv *env);
void flags_run_free(FlagsRun *run);

/*
 * Split argv (argv[0] stays with the program) into program and RTS
 * arguments as in §1.3: +RTS, -RTS, --RTS, "--". prog receives at least
 * argc+1 slots, rts at least argc+1; both end with NULL.
 */
void flags_split_argv(int argc, char *const argv[], int *prog_argc, char **prog, int *rts_argc,
                      char **rts);

/* ---- Output ----------------------------------------------------------- */

/* The -? text for a runtime of the given way: one line per call of emit. */
typedef void (*FlagsLineFn)(void *ctx, const char *line);
void flags_usage(unsigned way, FlagsLineFn emit, void *ctx);

/* The --info list, written to out. */
void flags_info(FILE *out, const RtsConfig *config, const RtsFlags *f, unsigned way);

/* The argv module's state, installed by flags_setup. */
void flags_argv_install(int full_argc, char *const full_argv[], int prog_argc,
                        char *const prog_argv[], int rts_argc, char **rts_argv_owned);
void flags_argv_free(void);

#endif /* RTS_FLAGS_INTERNAL_H */
