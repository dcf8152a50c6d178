/*
 * The parser core: one argument at a time, against the table.
 *
 * Nothing here prints or exits. Every problem becomes a message in the
 * FlagsParse (an error, a warning, or a fatal policy refusal that stops
 * processing); flags_setup() prints them. That is what lets the unit tests
 * assert on exact messages and the fuzzer run millions of argument lists in
 * one process.
 *
 * Parsing is strict (as in GHC's 9.14 branch): a number is the whole of
 * its text, so -A4mb, -Abanana, -F2x and -N3.5 are errors naming the flag,
 * never a silent zero or a silently dropped suffix.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flags/flags_internal.h"

/* ---- Messages ----------------------------------------------------------- */

void flags_parse_init(FlagsParse *p, RtsFlags *f, const FlagsEnv *env, const RtsConfig *config)
{
    memset(p, 0, sizeof *p);
    p->flags = f;
    p->env = env;
    p->config = config;
    p->level = RtsOptsAll;
}

void flags_parse_free(FlagsParse *p)
{
    for (size_t i = 0; i < p->n_msgs; i++)
        free(p->msgs[i].text);
    free(p->msgs);
    p->msgs = NULL;
    p->n_msgs = p->cap_msgs = p->n_errors = 0;
}

void flags_msg(FlagsParse *p, FlagsMsgKind kind, const char *fmt, ...)
{
    if (p->n_msgs == p->cap_msgs) {
        size_t cap = p->cap_msgs ? 2 * p->cap_msgs : 8;
        FlagsMsg *m = realloc(p->msgs, cap * sizeof *m);
        if (m == NULL)
            abort(); /* out of memory while parsing flags: nothing sensible left to do */
        p->msgs = m;
        p->cap_msgs = cap;
    }
    va_list ap;
    va_start(ap, fmt);
    char *text = NULL;
    if (vasprintf(&text, fmt, ap) < 0)
        abort();
    va_end(ap);
    /* One message is one line, whatever bytes the user's argument held. */
    for (char *c = text; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    p->msgs[p->n_msgs].kind = kind;
    p->msgs[p->n_msgs].text = text;
    p->n_msgs++;
    if (kind != FLAGS_MSG_WARNING)
        p->n_errors++;
}

/*
 * How to enable options: hsrts's own tools in place of GHC's. A generated
 * main (rts_hs_main) comes from tools/hsrts-link; anything else called
 * hs_init itself and can call hs_init_ghc instead.
 */
const char *flags_advice(const RtsConfig *config)
{
    if (config == NULL || !config->rts_opts_suggestions)
        return "";
    return config->rts_hs_main ? "Link with hsrts-link -rtsopts to enable them."
                               : "Use hs_init_with_rtsopts() or hs_init_ghc() to enable them.";
}

/* ---- Numbers -------------------------------------------------------------- */

/* strtod, but only a finite number that is the whole of its text prefix. */
static bool read_double(const char *text, double *out, const char **end)
{
    if (*text == '\0' || isspace((unsigned char)*text))
        return false;
    char *e;
    errno = 0;
    double d = strtod(text, &e);
    if (e == text || !isfinite(d) || errno == ERANGE)
        return false;
    *out = d;
    *end = e;
    return true;
}

static bool parse_size(FlagsParse *p, const FlagSpec *s, const char *text, uint64_t *out)
{
    double d;
    const char *end;
    if (!read_double(text, &d, &end)) {
        flags_msg(p, FLAGS_MSG_ERROR, "error in RTS option %s: unable to parse number '%s'", p->arg,
                  text);
        return false;
    }
    double mult = 1;
    if (*end != '\0') {
        switch (tolower((unsigned char)*end)) {
        case 't':
            mult *= 1024;
            /* fall through */
        case 'g':
            mult *= 1024;
            /* fall through */
        case 'm':
            mult *= 1024;
            /* fall through */
        case 'k':
            mult *= 1024;
            break;
        case 'w':
            mult = sizeof(StgWord);
            break;
        case 'b':
            break;
        default:
            flags_msg(p, FLAGS_MSG_ERROR, "error in RTS option %s: unknown unit suffix '%c'",
                      p->arg, *end);
            return false;
        }
        if (end[1] != '\0') {
            flags_msg(p, FLAGS_MSG_ERROR,
                      "error in RTS option %s: unexpected '%s' after the unit suffix", p->arg,
                      end + 1);
            return false;
        }
    }
    double bytes = d * mult;
    /* 2^64 is exactly representable; anything at or above it cannot fit. */
    if (bytes < 0 || bytes >= 18446744073709551616.0 || (uint64_t)bytes < s->umin ||
        (uint64_t)bytes > s->umax) {
        flags_msg(p, FLAGS_MSG_ERROR,
                  "error in RTS option %s: size outside allowed range (%" PRIu64 " - %" PRIu64 ")",
                  p->arg, s->umin, s->umax);
        return false;
    }
    *out = (uint64_t)bytes;
    return true;
}

static bool parse_real(FlagsParse *p, const FlagSpec *s, const char *text, double *out)
{
    double d;
    const char *end;
    if (!read_double(text, &d, &end) || *end != '\0') {
        flags_msg(p, FLAGS_MSG_ERROR, "error in RTS option %s: unable to parse number '%s'", p->arg,
                  text);
        return false;
    }
    if (d < s->min || d > s->max) {
        if (s->bad_option) /* GHC's bad_option: -F-1, -Fd-1, -m101 */
            flags_msg(p, FLAGS_MSG_ERROR, "bad RTS option: %s", p->arg);
        else
            flags_msg(p, FLAGS_MSG_ERROR,
                      "error in RTS option %s: value outside allowed range (%g - %g)", p->arg,
                      s->min, s->max);
        return false;
    }
    *out = d;
    return true;
}

/* Unsigned integers only: no sign, no spaces, the row's base. */
static bool parse_uint(FlagsParse *p, const FlagSpec *s, const char *text, uint64_t *out)
{
    int base = s->base == FLAG_BASE_C ? 0 : s->base ? s->base : 10;
    char *end;
    errno = 0;
    unsigned long long v = 0;
    bool ok = isxdigit((unsigned char)*text) != 0;
    if (ok) {
        v = strtoull(text, &end, base);
        ok = end != text && *end == '\0' && errno != ERANGE;
    }
    if (!ok) {
        flags_msg(p, FLAGS_MSG_ERROR, "error in RTS option %s: unable to parse number '%s'", p->arg,
                  text);
        return false;
    }
    if (v < s->umin || v > s->umax) {
        flags_msg(p, FLAGS_MSG_ERROR,
                  "error in RTS option %s: value outside allowed range (%" PRIu64 " - %" PRIu64 ")",
                  p->arg, s->umin, s->umax);
        return false;
    }
    *out = v;
    return true;
}

static bool choice_available(const FlagChoice *c, unsigned way)
{
    return (c->way & ~way) == 0 && (c->not_way & way) == 0;
}

/* "auto select" etc.: the choices this runtime offers, for the messages. */
static void list_choices(const FlagChoice *choices, unsigned way, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const FlagChoice *c = choices; c->name && used < n; c++) {
        if (!choice_available(c, way))
            continue;
        int w = snprintf(buf + used, n - used, "%s%s", used ? " " : "", c->name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static bool parse_choice(FlagsParse *p, const FlagSpec *s, const char *text, uint64_t *out)
{
    char names[128];
    list_choices(s->choices, p->env->way, names, sizeof names);
    for (const FlagChoice *c = s->choices; c->name; c++) {
        if (strcmp(c->name, text) != 0)
            continue;
        if (!choice_available(c, p->env->way)) {
            flags_msg(p, FLAGS_MSG_ERROR,
                      "error in RTS option %s: unavailable choice '%s' in this runtime (the "
                      "choices are: %s)",
                      p->arg, text, names);
            return false;
        }
        *out = c->value;
        return true;
    }
    flags_msg(p, FLAGS_MSG_ERROR,
              "error in RTS option %s: unrecognised choice '%s' (the choices are: %s)", p->arg,
              text, names);
    return false;
}

/* ---- Matching an argument to its row --------------------------------------- */

/*
 * Long options (--name[=value]) match their name exactly. Short options
 * match the longest spelling that is a prefix of the argument; two rows may
 * share a spelling when one is bare and the other takes a value (-c, -c<n>;
 * -h, -h<prof>): an exact match picks the bare row, a longer one the other.
 */
static const FlagSpec *find_row(const char *arg, const char **value, bool *has_equals)
{
    *has_equals = false;
    if (arg[1] == '-') {
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        for (size_t i = 0; i < flags_table_len; i++) {
            const char *name = flags_table[i].name;
            if (name[1] == '-' && strlen(name) == len && strncmp(name, arg, len) == 0) {
                *has_equals = eq != NULL;
                *value = eq ? eq + 1 : arg + len;
                return &flags_table[i];
            }
        }
        return NULL;
    }
    const FlagSpec *best = NULL;
    size_t best_len = 0;
    for (size_t i = 0; i < flags_table_len; i++) {
        const FlagSpec *s = &flags_table[i];
        size_t len = strlen(s->name);
        if (s->name[1] == '-' || strncmp(s->name, arg, len) != 0)
            continue;
        bool exact = arg[len] == '\0';
        bool better = len > best_len || (len == best_len && (exact == (s->form == FLAG_FORM_BARE)));
        if (better) {
            best = s;
            best_len = len;
        }
    }
    if (best)
        *value = arg + best_len;
    return best;
}

/* "the threaded runtime (libhsrts_thr)" and friends. */
static void way_needed_message(FlagsParse *p, unsigned missing, unsigned needed)
{
    if (missing & FLAGS_WAY_PROF) {
        flags_msg(p, FLAGS_MSG_ERROR, "the flag %s requires the program to be built with -prof",
                  p->arg);
        return;
    }
    if (missing & FLAGS_WAY_TICKY) {
        flags_msg(p, FLAGS_MSG_ERROR, "the flag %s requires the program to be built with -ticky",
                  p->arg);
        return;
    }
    unsigned want = (p->env->way | needed) & (FLAGS_WAY_THREADED | FLAGS_WAY_DEBUG);
    const char *what = (needed & FLAGS_WAY_THREADED) && (needed & FLAGS_WAY_DEBUG)
                           ? "threaded debug"
                       : (missing & FLAGS_WAY_THREADED) ? "threaded"
                                                        : "debug";
    flags_msg(p, FLAGS_MSG_ERROR,
              "the flag %s requires the program to be built with the %s runtime (libhsrts%s%s)",
              p->arg, what, (want & FLAGS_WAY_THREADED) ? "_thr" : "",
              (want & FLAGS_WAY_DEBUG) ? "_debug" : "");
}

static void refuse_unsafe(FlagsParse *p)
{
    if (p->env->setuid) {
        flags_msg(p, FLAGS_MSG_FATAL,
                  "Most RTS options are disabled for setuid and setgid programs.");
    } else {
        const char *advice = flags_advice(p->config);
        flags_msg(p, FLAGS_MSG_FATAL, "Most RTS options are disabled.%s%s", *advice ? " " : "",
                  advice);
    }
    p->stop = true;
}

static void store(FlagsParse *p, const FlagSpec *s, const FlagValue *v)
{
    flags_store_field(p->flags, s, v);
}

static bool parse_value(FlagsParse *p, const FlagSpec *s, const char *text, FlagValue *v)
{
    switch (s->kind) {
    case FLAG_ARG_SIZE:
        return parse_size(p, s, text, &v->u);
    case FLAG_ARG_TIME:
    case FLAG_ARG_DOUBLE:
        return parse_real(p, s, text, &v->d);
    case FLAG_ARG_INT:
    case FLAG_ARG_MASK:
        return parse_uint(p, s, text, &v->u);
    case FLAG_ARG_ENUM:
        return parse_choice(p, s, text, &v->u);
    case FLAG_ARG_FILE:
    case FLAG_ARG_LETTERS:
        v->s = text;
        return true;
    case FLAG_ARG_NONE:
        break;
    }
    return true;
}

static void process_one(FlagsParse *p, const char *arg)
{
    p->arg = arg;
    if (arg[0] != '-') {
        flags_msg(p, FLAGS_MSG_ERROR, "unexpected RTS argument: %s", arg);
        return;
    }
    const char *value = NULL;
    bool has_equals = false;
    const FlagSpec *s = find_row(arg, &value, &has_equals);
    if (s == NULL) {
        if (strcmp(arg, "-x") == 0 || strcmp(arg, "-q") == 0)
            flags_msg(p, FLAGS_MSG_ERROR, "incomplete RTS option: %s", arg);
        else
            flags_msg(p, FLAGS_MSG_ERROR, "unknown RTS option: %s", arg);
        return;
    }

    /* A flag of another build is refused before its argument is looked at. */
    unsigned missing = s->way & ~p->env->way;
    if (missing) {
        way_needed_message(p, missing, s->way);
        return;
    }

    bool is_long = s->name[1] == '-';
    bool has_value;
    switch (s->form) {
    case FLAG_FORM_BARE:
        if (*value != '\0' || has_equals) {
            flags_msg(p, FLAGS_MSG_ERROR, "flag %s given an argument when none was expected: %s",
                      s->name, arg);
            return;
        }
        has_value = false;
        break;
    case FLAG_FORM_ATTACHED:
    case FLAG_FORM_EQUALS:
        if (*value == '\0' || (is_long && !has_equals)) {
            flags_msg(p, FLAGS_MSG_ERROR, "error in RTS option %s: missing value (expected %s%s%s)",
                      arg, s->name, is_long ? "=" : "", s->arg_help ? s->arg_help : "<value>");
            return;
        }
        has_value = true;
        break;
    default: /* OPTIONAL, OPT_EQUALS */
        if (is_long && has_equals && *value == '\0') {
            flags_msg(p, FLAGS_MSG_ERROR, "error in RTS option %s: missing value after '='", arg);
            return;
        }
        has_value = *value != '\0';
        break;
    }

    if (p->level == RtsOptsSafeOnly &&
        (s->safety == FLAG_UNSAFE || (s->safety == FLAG_SAFE_BARE && has_value))) {
        refuse_unsafe(p);
        return;
    }

    FlagValue v = s->bare;
    if (has_value && !parse_value(p, s, value, &v))
        return;
    if (s->apply)
        s->apply(p, s, has_value, &v);
    else
        store(p, s, &v);
}

void flags_process_args(FlagsParse *p, int n, char *const *args)
{
    for (int i = 0; i < n && !p->stop; i++)
        process_one(p, args[i]);
    p->arg = NULL;
}

/* ---- Whitespace splitting (rts_opts and GHCRTS) ----------------------------- */

/* Quotes and escapes mean nothing here, as in GHC: words are cut at isspace. */
char **flags_split_words(const char *s, int *n_out)
{
    size_t cap = 4, n = 0;
    char **w = malloc(cap * sizeof *w);
    if (w == NULL)
        abort();
    while (s && *s) {
        while (*s && isspace((unsigned char)*s))
            s++;
        if (*s == '\0')
            break;
        const char *start = s;
        while (*s && !isspace((unsigned char)*s))
            s++;
        if (n + 2 > cap) {
            cap *= 2;
            char **g = realloc(w, cap * sizeof *w);
            if (g == NULL)
                abort();
            w = g;
        }
        w[n] = strndup(start, (size_t)(s - start));
        if (w[n] == NULL)
            abort();
        n++;
    }
    w[n] = NULL;
    *n_out = (int)n;
    return w;
}

void flags_free_words(char **words)
{
    if (words == NULL)
        return;
    for (char **w = words; *w; w++)
        free(*w);
    free(words);
}
