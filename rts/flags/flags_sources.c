/*
 * The four sources of options and the -rtsopts policy, then the thin
 * process-level wrapper flags_setup() that prints and exits.
 *
 * Note [Sources and policy]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * Sources are processed lowest precedence first, so a later setting
 * overwrites an earlier one:
 *
 *   1. built-in defaults (the table);
 *   2. RtsConfig.defaultsHook, which writes rts_flags as GHC's hook does;
 *   3. RtsConfig.rts_opts (the link driver's -with-rtsopts), split on
 *      whitespace and always processed at level All: the program's author
 *      chose them;
 *   4. GHCRTS, split on whitespace: skipped silently under IgnoreAll and in
 *      a setuid/setgid process, ignored with a warning under None, else
 *      processed at the policy level (Ignore therefore allows everything
 *      here: only SafeOnly restricts);
 *   5. the command line, split by +RTS/-RTS/--RTS (flags_split_argv): not
 *      split at all under Ignore and IgnoreAll; any RTS argument under None
 *      is refused; else processed at the policy level, lowered to SafeOnly
 *      in a setuid/setgid process.
 *
 * An unsafe option under SafeOnly, or any under None, is a fatal refusal:
 * processing stops at once and no usage text follows (it would not help:
 * the fix is to relink). Every other error is collected; after the last
 * source the errors are printed one per line, then the usage once. --info
 * stops processing at once and wins over earlier errors (as in GHC).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flags/flags_internal.h"
#include "messages.h"

RtsFlags rts_flags;

/* The hook writes the global, as in GHC; run it against *f without
 * disturbing the global the running program may already use. */
static void run_defaults_hook(RtsFlags *f, void (*hook)(void))
{
    RtsFlags saved = rts_flags;
    rts_flags = *f;
    hook();
    *f = rts_flags;
    rts_flags = saved;
}

static void append_rts_args(FlagsRun *run, int n, char *const *args)
{
    char **grown = realloc(run->rts_argv, ((size_t)run->rts_argc + (size_t)n + 1) * sizeof *grown);
    if (grown == NULL)
        abort();
    run->rts_argv = grown;
    for (int i = 0; i < n; i++) {
        grown[run->rts_argc] = strdup(args[i]);
        if (grown[run->rts_argc] == NULL)
            abort();
        run->rts_argc++;
    }
    grown[run->rts_argc] = NULL;
}

static void process_source(FlagsRun *run, FlagsSource src, RtsOptsEnabledEnum level, int n,
                           char *const *args)
{
    FlagsParse *p = &run->parse;
    append_rts_args(run, n, args);
    p->source = src;
    p->level = level;
    flags_process_args(p, n, args);
}

static void process_string(FlagsRun *run, FlagsSource src, RtsOptsEnabledEnum level, const char *s)
{
    int n;
    char **words = flags_split_words(s, &n);
    process_source(run, src, level, n, words);
    flags_free_words(words);
}

static void disabled(FlagsParse *p, FlagsMsgKind kind, const char *what)
{
    const char *advice = flags_advice(p->config);
    flags_msg(p, kind, "%s%s%s", what, *advice ? " " : "", advice);
}

void flags_run(FlagsRun *run, int argc, char *const argv[], const RtsConfig *config,
               const char *ghcrts, const FlagsEnv *env)
{
    memset(run, 0, sizeof *run);
    flags_defaults(&run->flags, env);
    if (config && config->defaultsHook)
        run_defaults_hook(&run->flags, config->defaultsHook);

    FlagsParse *p = &run->parse;
    flags_parse_init(p, &run->flags, env, config);
    RtsOptsEnabledEnum policy = config ? config->rts_opts_enabled : RtsOptsSafeOnly;

    /* The program argv is at most argv itself. */
    run->prog_argv = calloc((size_t)(argc > 0 ? argc : 0) + 1, sizeof *run->prog_argv);
    char **cmdline = calloc((size_t)(argc > 0 ? argc : 0) + 1, sizeof *cmdline);
    if (run->prog_argv == NULL || cmdline == NULL)
        abort();
    int n_cmdline = 0;
    if (policy == RtsOptsIgnore || policy == RtsOptsIgnoreAll) {
        for (int i = 0; i < argc; i++)
            run->prog_argv[i] = argv[i];
        run->prog_argc = argc > 0 ? argc : 0;
    } else {
        flags_split_argv(argc, argv, &run->prog_argc, run->prog_argv, &n_cmdline, cmdline);
    }

    if (config && config->rts_opts)
        process_string(run, FLAGS_SRC_RTS_OPTS, RtsOptsAll, config->rts_opts);

    if (!p->stop && ghcrts && policy != RtsOptsIgnoreAll && !env->setuid) {
        if (policy == RtsOptsNone)
            disabled(p, FLAGS_MSG_WARNING,
                     "Warning: Ignoring GHCRTS variable as RTS options are disabled.");
        else
            process_string(run, FLAGS_SRC_GHCRTS, policy, ghcrts);
    }

    if (!p->stop && n_cmdline > 0) {
        if (policy == RtsOptsNone) {
            disabled(p, FLAGS_MSG_FATAL, "RTS options are disabled.");
            p->stop = true;
        } else {
            RtsOptsEnabledEnum level =
                env->setuid && policy == RtsOptsAll ? RtsOptsSafeOnly : policy;
            process_source(run, FLAGS_SRC_CMDLINE, level, n_cmdline, cmdline);
        }
    }
    free(cmdline);

    bool fatal = false;
    for (size_t i = 0; i < p->n_msgs; i++)
        fatal |= p->msgs[i].kind == FLAGS_MSG_FATAL;
    if (fatal) {
        run->outcome = FLAGS_STOP_FATAL;
        return;
    }
    if (p->want_info) {
        run->outcome = FLAGS_STOP_INFO;
        return;
    }
    if (p->n_errors == 0 && !p->want_usage)
        flags_normalise(p);
    run->outcome = p->n_errors || p->want_usage ? FLAGS_STOP_USAGE : FLAGS_CONTINUE;
}

void flags_run_free(FlagsRun *run)
{
    flags_release(&run->flags);
    flags_parse_free(&run->parse);
    free(run->prog_argv);
    if (run->rts_argv) {
        for (int i = 0; i < run->rts_argc; i++)
            free(run->rts_argv[i]);
        free(run->rts_argv);
    }
    memset(run, 0, sizeof *run);
}

/* ---- The process-level wrapper ------------------------------------------------ */

void flags_init_defaults(void)
{
    FlagsEnv env;
    flags_env_current(&env);
    flags_release(&rts_flags);
    flags_defaults(&rts_flags, &env);
}

static void usage_line_to_stderr(void *ctx, const char *line)
{
    msg_error("%s", line);
}

void flags_setup(int *argc, char ***argv, const RtsConfig *config)
{
    static char unknown[] = "<unknown>";
    static char *unknown_argv[] = {unknown, NULL};
    int my_argc = 1;
    char **my_argv = unknown_argv;
    if (argc == NULL || argv == NULL || *argv == NULL || *argc < 1) {
        argc = &my_argc;
        argv = &my_argv;
    }
    msg_set_prog_name((*argv)[0]);

    FlagsEnv env;
    flags_env_current(&env);
    /* The fields of GHC's defaultRtsConfig that matter here. */
    RtsConfig conf = {.rts_opts_enabled = RtsOptsSafeOnly, .rts_opts_suggestions = true};
    if (config)
        conf = *config;
    FlagsRun run;
    flags_run(&run, *argc, *argv, &conf, getenv("GHCRTS"), &env);

    for (size_t i = 0; i < run.parse.n_msgs; i++)
        msg_error("%s", run.parse.msgs[i].text);
    switch (run.outcome) {
    case FLAGS_STOP_INFO:
        flags_info(stdout, &conf, &run.flags, env.way);
        fflush(stdout);
        msg_exit(0);
    case FLAGS_STOP_USAGE:
        flags_usage(env.way, usage_line_to_stderr, NULL);
        msg_exit(1);
    case FLAGS_STOP_FATAL:
        msg_exit(1);
    case FLAGS_CONTINUE:
        break;
    }

    /* Keep whatever the program set before (rts_flags is zero at first). */
    flags_release(&rts_flags);
    rts_flags = run.flags;
    memset(&run.flags, 0, sizeof run.flags);

    /* The full argv is recorded before argv is rewritten in place. */
    flags_argv_install(*argc, *argv, run.prog_argc, run.prog_argv, run.rts_argc, run.rts_argv);
    run.rts_argv = NULL;
    run.rts_argc = 0;
    for (int i = 0; i < run.prog_argc; i++)
        (*argv)[i] = run.prog_argv[i];
    (*argv)[run.prog_argc] = NULL;
    *argc = run.prog_argc;
    flags_run_free(&run);
}

void flags_free(void)
{
    flags_release(&rts_flags);
    flags_argv_free();
}
