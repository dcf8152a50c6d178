/*
 * Crash reports: a stack trace through libunwind (function names and
 * offsets), printed when the runtime fails an assertion or an internal
 * check (msg_barf) and when the process receives SIGSEGV, SIGBUS, SIGILL or
 * SIGFPE, in the runtime or in compiled code. Without libunwind (configure
 * did not find it) the report says so instead of listing frames.
 */
#ifndef RTS_TRACE_BACKTRACE_H
#define RTS_TRACE_BACKTRACE_H

/*
 * Print "<prog>: stack trace:" and one line per frame on stderr, starting
 * with the caller of the function named `after` (NULL: from here). Uses
 * only a stack buffer and write(2), so it may run in a signal handler.
 */
void trace_backtrace_print(const char *after);

/*
 * Install the handlers for the four signals (on an alternate stack, so a
 * C-stack overflow is reported too). Each prints the signal, the faulting
 * address and the stack trace, then restores the default action and
 * re-raises the signal: the process dies by it, as it would have without
 * the handler. trace_backtrace_uninstall restores what was there before.
 */
void trace_backtrace_install(void);
void trace_backtrace_uninstall(void);

#endif /* RTS_TRACE_BACKTRACE_H */
