/*
 * Messages to the user. See messages.h.
 */
#include "messages.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsrts_config.h"
#include "os/os_proc.h"

/* Until hs_init names it, the program is called what the OS calls it. */
static const char *prog_name;
static void (*exit_hook)(int code);
static void (*barf_report)(void);

void msg_set_barf_report(void (*report)(void))
{
    barf_report = report;
}

void msg_set_prog_name(const char *argv0)
{
    if (argv0 == NULL || argv0[0] == '\0') {
        prog_name = "<unknown>";
        return;
    }
    const char *slash = strrchr(argv0, '/');
    prog_name = slash ? slash + 1 : argv0;
}

const char *msg_prog_name(void)
{
    if (prog_name == NULL) {
        const char *os_name = os_program_name();
        prog_name = os_name && *os_name ? os_name : "<unknown>";
    }
    return prog_name;
}

void msg_verror(const char *fmt, va_list ap)
{
    fflush(stdout);
    fprintf(stderr, "%s: ", msg_prog_name());
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    fflush(stderr);
}

void msg_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    msg_verror(fmt, ap);
    va_end(ap);
}

void msg_sys_error(const char *fmt, ...)
{
    int saved = errno;
    va_list ap;
    va_start(ap, fmt);
    fflush(stdout);
    fprintf(stderr, "%s: ", msg_prog_name());
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, ": %s\n", strerror(saved));
    fflush(stderr);
    va_end(ap);
}

void msg_debug(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
}

void msg_set_exit_hook(void (*hook)(int code))
{
    exit_hook = hook;
}

static void (*exit_elsewhere)(void (*fn)(int), int code);

void msg_set_exit_elsewhere(void (*f)(void (*fn)(int), int code))
{
    exit_elsewhere = f;
}

static RTS_NORETURN void exit_here(int code)
{
    void (*hook)(int) = exit_hook;
    exit_hook = NULL; /* a hook that fails must not loop back here */
    if (hook)
        hook(code);
    fflush(stdout);
    fflush(stderr);
    exit(code);
}

void msg_exit(int code)
{
    void (*f)(void (*)(int), int) = exit_elsewhere;
    exit_elsewhere = NULL;
    if (f)
        f(exit_here, code); /* returns only if it has nowhere else to go */
    exit_here(code);
}

void msg_fatal(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    msg_verror(fmt, ap);
    va_end(ap);
    msg_exit(code);
}

void msg_barf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fflush(stdout);
    fprintf(stderr, "%s: internal error: ", msg_prog_name());
    vfprintf(stderr, fmt, ap);
    fprintf(stderr,
            "\n    (hsrts version %s for %s)\n"
            "    Please report this as an hsrts bug.\n",
            HSRTS_VERSION, HSRTS_HOST_PLATFORM);
    fflush(stderr);
    va_end(ap);
    if (barf_report)
        barf_report();
    abort();
}
