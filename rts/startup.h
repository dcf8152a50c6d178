/*
 * Start-up and shut-down of the runtime (hs_init_ghc / hs_exit).
 */
#ifndef RTS_STARTUP_H
#define RTS_STARTUP_H

#include <stdbool.h>

/* Between the outermost hs_init and its hs_exit. */
bool startup_running(void);

#endif /* RTS_STARTUP_H */
