/*
 * +RTS --info: what runtime this program uses, as a Haskell
 * [(String, String)] on stdout, one pair per line, in GHC's key order.
 *
 * Note [--info keys]
 * ~~~~~~~~~~~~~~~~~~
 * Tools parse this list by key, so hsrts keeps GHC's keys and order and
 * reports its own values. Two deliberate differences:
 *   - ("GHC RTS", "YES") stays first: it means "this runtime answers --info
 *     in GHC's format", which is what tools probe it for;
 *   - "GHC version" becomes "hsrts version": claiming a GHC version would
 *     make tools assume GHC-only features.
 * Unlike GHC, values are escaped as Haskell string literals, so that a
 * -with-rtsopts string containing a quote or a backslash still parses.
 * The target is the host: hsrts does not cross-compile.
 */
#include <stdio.h>
#include <string.h>

#include "flags/flags_internal.h"
#include "hsrts_config.h"

static void put_string(FILE *out, const char *s)
{
    fputc('"', out);
    bool after_numeric_escape = false;
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        /* "\12" followed by a digit would read as one longer escape. */
        if (after_numeric_escape && *c >= '0' && *c <= '9')
            fputs("\\&", out);
        after_numeric_escape = false;
        if (*c == '"' || *c == '\\') {
            fputc('\\', out);
            fputc(*c, out);
        } else if (*c == '\n') {
            fputs("\\n", out);
        } else if (*c == '\t') {
            fputs("\\t", out);
        } else if (*c < 0x20 || *c == 0x7f) {
            fprintf(out, "\\%u", (unsigned)*c);
            after_numeric_escape = true;
        } else {
            fputc(*c, out);
        }
    }
    fputc('"', out);
}

static void put_pair(FILE *out, bool first, const char *key, const char *value)
{
    fputs(first ? " [(" : " ,(", out);
    put_string(out, key);
    fputs(", ", out);
    put_string(out, value);
    fputs(")\n", out);
}

/* The I/O manager "auto" resolves to, or the one chosen. */
static const char *io_manager_default(const RtsFlags *f, unsigned way)
{
    if (f && f->misc.io_manager && strcmp(f->misc.io_manager, "auto") != 0)
        return f->misc.io_manager;
    return (way & FLAGS_WAY_THREADED) ? "mio" : "select";
}

void flags_info(FILE *out, const RtsConfig *config, const RtsFlags *f, unsigned way)
{
    const char *with_rtsopts = config && config->rts_opts ? config->rts_opts : "";
    const struct {
        const char *key, *value;
    } pairs[] = {
        {"GHC RTS", "YES"},
        {"hsrts version", HSRTS_VERSION},
        {"RTS way", flags_way_name(way)},
        {"Build platform", HSRTS_BUILD_PLATFORM},
        {"Build architecture", HSRTS_BUILD_CPU},
        {"Build OS", HSRTS_BUILD_OS},
        {"Build vendor", HSRTS_BUILD_VENDOR},
        {"Host platform", HSRTS_HOST_PLATFORM},
        {"Host architecture", HSRTS_HOST_CPU},
        {"Host OS", HSRTS_HOST_OS},
        {"Host vendor", HSRTS_HOST_VENDOR},
        {"Target platform", HSRTS_HOST_PLATFORM},
        {"Target architecture", HSRTS_HOST_CPU},
        {"Target OS", HSRTS_HOST_OS},
        {"Target vendor", HSRTS_HOST_VENDOR},
        {"Word size", sizeof(void *) == 8 ? "64" : "32"},
        {"Compiler unregisterised", "NO"},
        {"Tables next to code", "NO"},
        {"Flag -with-rtsopts", with_rtsopts},
        {"I/O manager default", io_manager_default(f, way)},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        put_pair(out, i == 0, pairs[i].key, pairs[i].value);
    fputs(" ]\n", out);
}
