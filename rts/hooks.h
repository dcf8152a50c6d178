/*
 * The RtsConfig the runtime was started with, and the paths that end in one
 * of its hooks (out of heap, out of OS memory, stack overflow).
 *
 * The default hooks are GHC's names, defined weak so a program can also
 * override one by defining a function of the same name.
 */
#ifndef RTS_HOOKS_H
#define RTS_HOOKS_H

#include "RtsAPI.h"

/* The active configuration (a copy of what hs_init_ghc was given). */
extern RtsConfig rts_config;

/* Default hooks (weak). */
void FlagDefaultsHook(void);
void OnExitHook(void);
void StackOverflowHook(W_ stack_size);
void OutOfHeapHook(W_ request_size, W_ heap_size);
void MallocFailHook(W_ request_size, const char *msg);
void LongGCSync(uint32_t this_cap, Time time_ns);
void LongGCSyncEnd(Time time_ns);

/*
 * The heap passed -M: call outOfHeapHook. The default hook prints GHC's
 * message and the process exits 251; a program's own hook may return, and
 * then the program goes on (the caller grants -Mgrace more).
 */
void hooks_heap_overflow(W_ request_bytes, W_ heap_limit_bytes);

/* The OS refused memory: mallocFailHook, exit 254. */
RTS_NORETURN void hooks_os_alloc_failed(W_ request_bytes, const char *msg);

/* malloc for the runtime's own tables: reports failure through the hook. */
void *hooks_malloc(size_t bytes, const char *what);
void *hooks_calloc(size_t n, size_t size, const char *what);
void *hooks_realloc(void *p, size_t bytes, const char *what);

#endif /* RTS_HOOKS_H */
