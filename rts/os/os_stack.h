/*
 * C stacks the runtime owns: reserving them, running a function on one,
 * and catching the fault of running off the end of one.
 *
 * The only place that switches the machine's stack pointer (STYLE.md item
 * 9). See Note [Evaluation stacks] in ../cstack.h for what they are for.
 */
#ifndef RTS_OS_STACK_H
#define RTS_OS_STACK_H

#include <stdbool.h>
#include <stddef.h>

#include "rts/Config.h"

/*
 * A reserved C stack: [lo, hi) is usable and grows down from hi; the
 * `guard` bytes below lo are inaccessible, so running past lo faults.
 * Pages are committed by the OS as they are first touched.
 */
typedef struct {
    char *lo;
    char *hi;
    size_t guard;
    /* While a function runs on it: the caller's stack pointer (and, for ASan, its stack). */
    char *caller_sp;
    const void *caller_bottom;
    size_t caller_size;
} OsStack;

/*
 * Reserve a stack of at least `bytes` usable bytes (rounded up to pages).
 * When the OS refuses that much address space, smaller reservations are
 * tried down to `min_bytes`. false if even that fails.
 */
bool os_stack_reserve(OsStack *s, size_t bytes, size_t min_bytes);
void os_stack_release(OsStack *s);

/* The pages of [lo, hi) are not needed any more (they read as zero again). */
void os_stack_discard(char *lo, char *hi);

/*
 * Call fn(arg) with the stack pointer at the top of s and return its
 * result. Unwinders (gdb, libunwind) follow the call back to the caller's
 * stack. Sanitizers and valgrind are told about the switch.
 */
void *os_run_on_stack(OsStack *s, void *(*fn)(void *), void *arg);

/*
 * From code running on s (inside os_run_on_stack): call fn(arg), which must
 * not return, back on the caller's stack below the caller's frames. For
 * ending the process (exit handlers, sanitizers' leak checks) from a stack
 * that is no longer the thread's own.
 */
RTS_NORETURN void os_leave_stack(OsStack *s, void (*fn)(void *), void *arg);

/* An approximation of the calling function's stack pointer. */
#define OS_STACK_POINTER() ((char *)__builtin_frame_address(0))

/*
 * Faults. os_fault_install() makes SIGSEGV and SIGBUS go to `handler` on an
 * alternate signal stack (given to each thread by os_fault_thread_init()).
 * The handler gets the faulting address; if it returns, the signal's
 * previous disposition applies (the default: the process dies of it).
 */
typedef void (*OsFaultHandler)(void *addr);
void os_fault_install(OsFaultHandler handler);
void os_fault_uninstall(void);
/* Give the calling thread an alternate signal stack if it has none. */
void os_fault_thread_init(void);
/* Take back the alternate signal stack os_fault_thread_init gave this thread. */
void os_fault_thread_exit(void);

#endif /* RTS_OS_STACK_H */
