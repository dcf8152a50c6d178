/*
 * Crash reports. See backtrace.h.
 *
 * Note [Crash handlers]
 * ~~~~~~~~~~~~~~~~~~~~~
 * A handler for SIGSEGV, SIGBUS, SIGILL and SIGFPE prints what happened
 * and the stack of the faulting thread, then puts back the action that was
 * installed before hs_init (normally the default) and lets the signal
 * happen again: a fault raised by the hardware re-executes the faulting
 * instruction when the handler returns, and a signal sent by kill() or
 * raise() is raised again. So the process ends exactly as it would have
 * without hsrts (killed by the signal, status 128+n in a shell, a core
 * dump where enabled), and a handler the program or a sanitizer installed
 * first still runs. The handlers run on an alternate stack so that a
 * fault caused by running out of C stack can be reported too.
 * --install-signal-handlers=no installs nothing, as GHC's flag leaves the
 * program's signals alone.
 *
 * The report uses no heap: snprintf into a stack buffer, write(2) to
 * stderr, and libunwind's local unwinder, which reads the unwind tables
 * and symbol tables of the loaded objects (static functions included, as
 * long as the binary is not stripped).
 */
#include "trace/backtrace.h"

#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hsrts_config.h"
#include "messages.h"

#ifdef HAVE_LIBUNWIND
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#endif

#define MAX_FRAMES 64

static void out(const char *fmt, ...) RTS_PRINTF(1, 2);
static void out(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    while (len > 0) {
        ssize_t w = write(STDERR_FILENO, line, len);
        if (w <= 0)
            return;
        len -= (size_t)w;
    }
}

#ifdef HAVE_LIBUNWIND
/*
 * The frames outside the reporting code: in a signal handler, those beyond
 * the kernel's signal frame; otherwise those beyond the frame of the
 * function named `after` (all of them if it is not on the stack). Counting
 * frames instead would depend on what the compiler inlined.
 */
static void print_frames(const char *after, bool from_signal)
{
    unw_context_t ctx;
    unw_cursor_t cur, start;
    if (unw_getcontext(&ctx) != 0 || unw_init_local(&cur, &ctx) != 0) {
        out("    (libunwind could not read this thread's stack)\n");
        return;
    }
    start = cur;
    bool found = false;
    for (int i = 0; i < MAX_FRAMES; i++) {
        char name[256];
        unw_word_t off;
        /* libunwind marks the interrupted frame (the one after the trampoline). */
        if (from_signal && unw_is_signal_frame(&cur) > 0) {
            found = true;
            break;
        }
        bool named = !from_signal && after &&
                     unw_get_proc_name(&cur, name, sizeof name, &off) == 0 &&
                     strcmp(name, after) == 0;
        if (unw_step(&cur) <= 0)
            break;
        if (named) {
            found = true;
            break;
        }
    }
    if (!found)
        cur = start;
    for (int n = 0; n < MAX_FRAMES; n++) {
        unw_word_t ip = 0, off = 0;
        char name[256];
        unw_get_reg(&cur, UNW_REG_IP, &ip);
        if (ip == 0)
            break;
        if (unw_get_proc_name(&cur, name, sizeof name, &off) == 0)
            out("    #%-2d 0x%016lx in %s+0x%lx\n", n, (unsigned long)ip, name, (unsigned long)off);
        else
            out("    #%-2d 0x%016lx in ??\n", n, (unsigned long)ip);
        if (unw_step(&cur) <= 0)
            break;
    }
}
#endif

static void print_trace(const char *after, bool from_signal)
{
    out("%s: stack trace:\n", msg_prog_name());
#ifdef HAVE_LIBUNWIND
    print_frames(after, from_signal);
#else
    (void)after;
    (void)from_signal;
    out("    (unavailable: hsrts was built without libunwind)\n");
#endif
}

void trace_backtrace_print(const char *after)
{
    print_trace(after, false);
}

/* --- the handlers ----------------------------------------------------------------- */

static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};
#define N_CRASH_SIGNALS (sizeof crash_signals / sizeof crash_signals[0])

static struct sigaction saved[N_CRASH_SIGNALS];
static bool installed;
static void *alt_stack;
static stack_t saved_alt;

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV:
        return "SIGSEGV (invalid memory access)";
    case SIGBUS:
        return "SIGBUS (bus error)";
    case SIGILL:
        return "SIGILL (illegal instruction)";
    case SIGFPE:
        return "SIGFPE (arithmetic exception)";
    default:
        return "a fatal signal";
    }
}

static void on_crash(int sig, siginfo_t *info, void *uctx)
{
    (void)uctx;
    out("%s: fatal error: %s at address %p\n", msg_prog_name(), signal_name(sig),
        info ? info->si_addr : NULL);
    print_trace(NULL, true);
    /* See Note [Crash handlers]: let the signal happen again under the old action. */
    for (size_t i = 0; i < N_CRASH_SIGNALS; i++)
        if (crash_signals[i] == sig)
            sigaction(sig, &saved[i], NULL);
    if (info == NULL || info->si_code <= 0)
        raise(sig);
}

void trace_backtrace_install(void)
{
    if (installed)
        return;
    size_t size = SIGSTKSZ < 65536 ? 65536 : SIGSTKSZ;
    alt_stack = malloc(size);
    if (alt_stack) {
        stack_t ss = {.ss_sp = alt_stack, .ss_size = size, .ss_flags = 0};
        if (sigaltstack(&ss, &saved_alt) != 0) {
            free(alt_stack);
            alt_stack = NULL;
        }
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_crash;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_CRASH_SIGNALS; i++)
        sigaction(crash_signals[i], &sa, &saved[i]);
    installed = true;
}

void trace_backtrace_uninstall(void)
{
    if (!installed)
        return;
    for (size_t i = 0; i < N_CRASH_SIGNALS; i++)
        sigaction(crash_signals[i], &saved[i], NULL);
    if (alt_stack) {
        stack_t off = {.ss_flags = SS_DISABLE};
        sigaltstack(saved_alt.ss_sp ? &saved_alt : &off, NULL);
        free(alt_stack);
        alt_stack = NULL;
    }
    installed = false;
}
