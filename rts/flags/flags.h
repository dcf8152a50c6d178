/*
 * The runtime's option values: one structure, read by every subsystem.
 *
 * Units: sizes are bytes, times are seconds (double), counts are plain
 * integers. Subsystems convert to blocks or words themselves. The values are
 * final once flags_setup() returns (derived values and cross-checks applied);
 * nothing writes them afterwards except tests.
 *
 * How the values are filled (the option table, the four sources, the policy)
 * is the flags module's business: see rts/flags/README.md.
 *
 * The char * fields are owned by the structure (malloc'd, freed by
 * flags_free); a defaults hook that sets one must give it a malloc'd string.
 */
#ifndef RTS_FLAGS_H
#define RTS_FLAGS_H

#include <stdbool.h>
#include <stdint.h>

#include "RtsAPI.h"

/* Statistics levels: the last of -T/-t/-s/-S wins (a single slot, as GHC). */
typedef enum {
    STATS_NONE = 0,
    STATS_COLLECT = 1, /* -T */
    STATS_ONELINE = 2, /* -t */
    STATS_SUMMARY = 3, /* -s */
    STATS_VERBOSE = 4  /* -S */
} StatsLevel;

typedef enum { HEAP_PROF_NONE = 0, HEAP_PROF_CLOSURE_TYPE, HEAP_PROF_INFO_TABLE } HeapProfMode;

typedef struct {
    /* Allocation area and generations. */
    uint64_t alloc_area_bytes;           /* -A; default 4 MiB */
    uint64_t large_alloc_lim_bytes;      /* -AL; 0 = same as -A */
    uint64_t nursery_chunk_bytes;        /* -n; 0 = no chunks */
    uint64_t min_old_gen_bytes;          /* -O; default 1 MiB */
    double old_gen_factor;               /* -F; default 2 */
    double return_decay_factor;          /* -Fd; default 4; 0 = never return memory */
    uint32_t generations;                /* -G; default 2 */
    uint64_t heap_size_suggestion_bytes; /* -H<size>; 0 = none */
    bool heap_size_suggestion_auto;      /* bare -H */
    uint64_t max_heap_bytes;             /* -M; 0 = unlimited */
    uint64_t heap_overflow_grace_bytes;  /* -Mgrace=; default 1 MiB */
    double pc_free_heap;                 /* -m; default 3 (%) */

    /* Old-generation collector. */
    bool compact;                             /* -c */
    double compact_threshold;                 /* -c<n>; default 30 (% of -M) */
    bool sweep;                               /* -w (mark-region) */
    bool nonmoving;                           /* --nonmoving-gc, -xn */
    uint32_t nonmoving_dense_allocator_count; /* default 16 */
    double nonmoving_evac_occupancy;          /* --nonmoving-evac-occupancy; default 0.9, 0: off */

    /* Stacks. */
    uint64_t max_stack_bytes;          /* -K; default 80% of physical memory */
    uint64_t init_stack_bytes;         /* -ki / -k; default 1 KiB */
    uint64_t stack_chunk_bytes;        /* -kc; default 32 KiB */
    uint64_t stack_chunk_buffer_bytes; /* -kb; default 1 KiB */
    bool squeeze_update_frames;        /* false under -Z */

    /* Idle GC and sync. */
    bool do_idle_gc;         /* false under -I0 */
    double idle_gc_delay;    /* -I; default 0.3 (threaded), 0 (vanilla) */
    double idle_gc_interval; /* -Iw; default 0 */
    double long_gc_sync;     /* --long-gc-sync=; 0 = off */

    /* OS memory. */
    uint64_t address_space_bytes;          /* -xr; default 1 TiB */
    uintptr_t heap_base;                   /* -xb; 0 = anywhere */
    bool disable_delayed_os_memory_return; /* --disable-delayed-os-memory-return */
    bool huge_pages;                       /* --huge-pages=; default yes */
    bool numa;                             /* --numa[=mask] */
    uint64_t numa_mask;                    /* nodes allowed; all ones by default */
    uint32_t debug_numa_nodes;             /* --debug-numa=<n>; 0 = off */

    uint64_t alloc_limit_grace_bytes; /* -xq; default 100 KiB */
    bool ring_bell;                   /* -B */
} GcFlags;

typedef struct {
    uint32_t n_capabilities;              /* -N; default 1 */
    bool max_n;                           /* -maxN given */
    bool parallel_gc;                     /* false under bare -qg or -g1 */
    uint32_t parallel_gc_gen;             /* -qg<n>; default 0 */
    bool load_balance;                    /* false under bare -qb */
    uint32_t load_balance_gen;            /* -qb<n>; default derived from -A */
    bool load_balance_set;                /* -qb given (else derived) */
    uint32_t gc_threads;                  /* -qn; 0 = same as -N */
    uint32_t idle_skip;                   /* -qi */
    uint64_t parallel_gc_threshold_bytes; /* --parallel-gc-threshold=; 0 = always parallel */
    bool set_affinity;                    /* -qa */
    bool no_migrate;                      /* -qm */
    uint32_t max_local_sparks;            /* -e; default 4096 */
} ParFlags;

typedef struct {
    StatsLevel level;       /* -T -t -s -S */
    char *file;             /* NULL = stderr */
    bool machine_readable;  /* --machine-readable */
    bool internal_counters; /* --internal-counters */
} StatsFlags;

typedef struct {
    double tick_interval;         /* -V; default 0.01 */
    double ctxt_switch_time;      /* -C; default 0.02 */
    bool install_signal_handlers; /* default true */
    bool install_seh_handlers;    /* parsed only; Windows */
    bool generate_crash_dumps;    /* parsed only; Windows */
    bool generate_stack_traces;   /* default true */
    char *io_manager;             /* --io-manager=; "auto" by default */
    bool linker_always_pic;       /* -xp */
    uintptr_t linker_mmap_base;   /* -xm */
    bool optimistic_linking;      /* --optimistic-linking */
    bool read_tix_file;           /* --read-tix-file=; default true */
    bool write_tix_file;          /* --write-tix-file=; default true */
} MiscFlags;

typedef struct {
    HeapProfMode heap_prof;      /* -hT, -hi (-h = -hT with a warning) */
    double heap_prof_interval;   /* -i; default 0.1 */
    char *hp_stem;               /* -po; NULL = program name */
    uint32_t label_length;       /* -L; longest heap-profile label; 0 = no limit */
    bool automatic_heap_samples; /* false under --no-automatic-heap-samples */
} ProfFlags;

/* Eventlog classes (-l letters). */
typedef struct {
    bool eventlog;         /* -l given */
    bool scheduler;        /* s */
    bool gc;               /* g */
    bool nonmoving_gc;     /* n */
    bool sparks_sampled;   /* p */
    bool sparks_full;      /* f */
    bool user;             /* u */
    bool timestamp;        /* t */
    char *eventlog_file;   /* -ol; NULL = <prog>.eventlog */
    double flush_interval; /* --eventlog-flush-interval=; 0 = off */
    bool null_writer;      /* --null-eventlog-writer */
    bool trace_stderr;     /* -v */
} TraceFlags;

/* -D classes (debug way only). */
typedef struct {
    bool scheduler;      /* s */
    bool interpreter;    /* i */
    bool weak;           /* w */
    bool gccafs;         /* G */
    bool gc;             /* g */
    bool nonmoving_gc;   /* n */
    bool block_alloc;    /* b */
    bool sanity;         /* S */
    bool zero_on_gc;     /* Z */
    bool stable;         /* t */
    bool prof;           /* p */
    bool linker;         /* l */
    bool linker_verbose; /* L */
    bool apply;          /* a */
    bool stm;            /* m */
    bool squeeze;        /* z */
    bool hpc;            /* c */
    bool sparks;         /* r */
    bool compact;        /* C */
    bool continuation;   /* k */
    bool iomanager;      /* o */
} DebugFlags;

typedef struct {
    GcFlags gc;
    ParFlags par;
    StatsFlags stats;
    MiscFlags misc;
    ProfFlags prof;
    TraceFlags trace;
    DebugFlags debug;
} RtsFlags;

extern RtsFlags rts_flags;

/* Built-in defaults (no sources). */
void flags_init_defaults(void);

/*
 * Fill rts_flags from every source, in order: defaults, config->defaultsHook,
 * config->rts_opts, GHCRTS, then the command line (removing RTS arguments
 * from argc/argv). Applies derived values and cross-checks. Bad input is
 * reported (one line each, then the usage) and the process exits 1; --info
 * prints and exits 0.
 */
void flags_setup(int *argc, char ***argv, const RtsConfig *config);

/*
 * The RTS arguments of every source, in processing order (rts_opts, GHCRTS,
 * command line): statistics files print them in their header. NULL-terminated,
 * owned by the flags module.
 */
void flags_rts_args(int *argc, char ***argv);

/*
 * The -? text on stderr, each line prefixed as an error: for a subsystem
 * that refuses an option's value after flags_setup (a stats file that
 * cannot be opened), which then exits 1 as flags_setup would.
 */
void flags_usage_to_stderr(void);

/* Free the argv copies and the strings of rts_flags (at hs_exit). */
void flags_free(void);

#endif /* RTS_FLAGS_H */
