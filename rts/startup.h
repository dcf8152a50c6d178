/*
 * Start-up and shut-down of the runtime (hs_init_ghc / hs_exit).
 */
#ifndef RTS_STARTUP_H
#define RTS_STARTUP_H

#include <stdbool.h>

#include "rts/Config.h"

/* Between the outermost hs_init and its hs_exit. */
bool startup_running(void);
/* After the last hs_exit (the runtime cannot start again). */
bool startup_shut_down(void);

/*
 * Note [Calls outside hs_init .. hs_exit]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Every public entry point that touches the runtime's state (the heap,
 * the tables, the statistics, the flags in force) starts with
 * startup_require_running(name): called before hs_init or after the last
 * hs_exit it prints "<prog>: <name>: the runtime is not running (call
 * hs_init first)" and exits 1, as rts_lock does, instead of handing out
 * state that the next hs_init would hand out again (a stable pointer) or
 * reading freed memory. Only out-of-line entry points check: the inline
 * fast paths (rts_alloc, the write barriers, the root frames) stay one
 * compare long, and a capability can only come from rts_lock, which checks.
 * Calls that touch no runtime state work at any time: rts_isThreaded,
 * rts_isDebugged, the argv API, hs_lock_stable_ptr_table and
 * hs_unlock_stable_ptr_table, hs_thread_done (nothing to give back), and
 * shutdownHaskellAndExit (it exits); hs_init* and hs_exit say themselves
 * what is wrong. setKeepCAFs alone may come before hs_init, as in GHC (it
 * only sets a flag, which hs_init keeps), but not after the last hs_exit.
 */
RTS_NORETURN void startup_not_running(const char *call);

static inline void startup_require_running(const char *call)
{
    if (RTS_UNLIKELY(!startup_running()))
        startup_not_running(call);
}

#endif /* RTS_STARTUP_H */
