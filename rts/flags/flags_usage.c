/*
 * The -? text, generated from the table: the fixed header about +RTS, the
 * rows of each group (in group order, only the rows the runtime in use
 * supports), then the fixed closing lines. The layout is GHC's: a flag
 * column of ten characters, longer spellings on a line of their own.
 */
#include <stdio.h>
#include <string.h>

#include "flags/flags_internal.h"
#include "messages.h"

#define HELP_COLUMN 12

static const char *const header[] = {
    "",
    "Usage: <prog> <args> [+RTS <rtsopts> | -RTS <args>] ... --RTS <args>",
    "",
    "   +RTS    Indicates run time system options follow",
    "   -RTS    Indicates program arguments follow",
    "  --RTS    Indicates that ALL subsequent arguments will be given to the",
    "           program (including any of these RTS flags)",
    "",
    "The following run time system options may be available (note that some",
    "of these may not be usable unless this program was linked with",
    "hsrts-link -rtsopts):",
    NULL,
};

static const char *const footer[] = {
    "",
    "RTS options may also be specified using the GHCRTS environment variable.",
    "",
    "Other RTS options may be available for programs linked with a different",
    "runtime (hsrts-link -threaded, -debug); rts/flags/README.md has details.",
    "",
    NULL,
};

/* Emit text's lines ('\n'-separated), the first after prefix. */
static void emit_help(FlagsLineFn emit, void *ctx, const char *prefix, const char *text)
{
    char line[256];
    bool first = true;
    while (text) {
        const char *nl = strchr(text, '\n');
        int len = nl ? (int)(nl - text) : (int)strlen(text);
        snprintf(line, sizeof line, "%-*s%.*s", HELP_COLUMN, first ? prefix : "", len, text);
        emit(ctx, line);
        first = false;
        text = nl ? nl + 1 : NULL;
    }
}

static void emit_row(const FlagSpec *s, FlagsLineFn emit, void *ctx)
{
    char label[96];
    bool is_long = s->name[1] == '-';
    snprintf(label, sizeof label, "  %s%s%s", s->name,
             is_long && s->form == FLAG_FORM_EQUALS ? "=" : "", s->arg_help ? s->arg_help : "");
    if (strlen(label) >= HELP_COLUMN) {
        emit(ctx, label);
        emit_help(emit, ctx, "", s->help);
    } else {
        emit_help(emit, ctx, label, s->help);
    }
}

static void emit_letters(const FlagLetter *letters, unsigned way, bool debug_classes,
                         FlagsLineFn emit, void *ctx)
{
    char line[128];
    for (const FlagLetter *l = letters; l->letter; l++) {
        if (!debug_classes && l->letter == 't' && !(way & FLAGS_WAY_DEBUG))
            continue; /* timestamps only matter for -v */
        if (debug_classes)
            snprintf(line, sizeof line, "     -D%c   DEBUG: %s", l->letter, l->help);
        else
            snprintf(line, sizeof line, "                %c    %s", l->letter, l->help);
        emit(ctx, line);
    }
}

void flags_usage(unsigned way, FlagsLineFn emit, void *ctx)
{
    for (const char *const *l = header; *l; l++)
        emit(ctx, *l);
    for (int g = 0; g < FLAG_GROUP_HIDDEN; g++) {
        bool any = false;
        for (size_t i = 0; i < flags_table_len; i++) {
            const FlagSpec *s = &flags_table[i];
            if ((int)s->group != g || (s->way & ~way) != 0)
                continue;
            if (!any)
                emit(ctx, "");
            any = true;
            emit_row(s, emit, ctx);
            if (strcmp(s->name, "-l") == 0) {
                emit(ctx, "             where [flags] can contain:");
                emit_letters(flags_trace_letters, way, false, emit, ctx);
                emit(ctx, "               -x    disable an event class, for any flag above");
                emit(ctx, "             the initial enabled event classes are 'sgpu'");
            } else if (strcmp(s->name, "-D") == 0) {
                emit_letters(flags_debug_letters, way, true, emit, ctx);
            }
        }
    }
    for (const char *const *l = footer; *l; l++)
        emit(ctx, *l);
}

static void line_to_stderr(void *ctx, const char *line)
{
    (void)ctx;
    msg_error("%s", line);
}

/* For an option refused after flags_setup (the stats file that cannot be opened). */
void flags_usage_to_stderr(void)
{
    FlagsEnv env;
    flags_env_current(&env);
    flags_usage(env.way, line_to_stderr, NULL);
}
