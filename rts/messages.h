/*
 * Messages to the user: errors, warnings, debug output, internal errors.
 *
 * Every error line is "<prog>: <text>" on stderr, GHC's errorBelch format.
 * msg_fatal() is for bad input (a clear one-line error and an exit status);
 * msg_barf() is for broken runtime invariants only (it aborts).
 */
#ifndef RTS_MESSAGES_H
#define RTS_MESSAGES_H

#include <stdarg.h>

#include "rts/Config.h"

#define RTS_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* The program name used as the message prefix (basename of argv[0]). */
void msg_set_prog_name(const char *argv0);
const char *msg_prog_name(void);

/* "<prog>: text\n" on stderr. */
void msg_error(const char *fmt, ...) RTS_PRINTF(1, 2);
void msg_verror(const char *fmt, va_list ap);
/* As msg_error, followed by ": " and strerror(errno). */
void msg_sys_error(const char *fmt, ...) RTS_PRINTF(1, 2);
/* Raw text on stderr, no prefix (debug output, -S lines). */
void msg_debug(const char *fmt, ...) RTS_PRINTF(1, 2);

/* Print "<prog>: text" and exit with `code` (after the runtime's exit hooks). */
RTS_NORETURN void msg_fatal(int code, const char *fmt, ...) RTS_PRINTF(2, 3);

/* An internal error: print, point at the bug tracker, abort(). */
RTS_NORETURN void msg_barf(const char *fmt, ...) RTS_PRINTF(1, 2);
/* What msg_barf adds before aborting (rts/trace installs a stack trace). */
void msg_set_barf_report(void (*report)(void));

/* Internal invariants: checked in the debug way, gone in the others. */
#ifdef DEBUG
#define ASSERT(c)                                                             \
    do {                                                                      \
        if (RTS_UNLIKELY(!(c)))                                               \
            msg_barf("assertion failed: %s (%s:%d)", #c, __FILE__, __LINE__); \
    } while (0)
#else
#define ASSERT(c) ((void)0)
#endif

/*
 * Exit the process with `code`. Runs the hook installed with
 * msg_set_exit_hook first (the startup module flushes statistics there).
 */
RTS_NORETURN void msg_exit(int code);
void msg_set_exit_hook(void (*hook)(int code));
/*
 * Where msg_exit should end the process: `f` runs fn(code) on another
 * stack (the evaluation stacks of cstack.h leave to the thread's own) or
 * returns to let msg_exit do it here.
 */
void msg_set_exit_elsewhere(void (*f)(void (*fn)(int), int code));

#endif /* RTS_MESSAGES_H */
