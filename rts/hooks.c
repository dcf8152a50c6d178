/*
 * Default hooks and the paths that call them. See hooks.h.
 */
#include "hooks.h"

#include <stdio.h>
#include <stdlib.h>

#include "Rts.h"
#include "flags/flags.h"
#include "messages.h"

RtsConfig rts_config;

const RtsConfig defaultRtsConfig = {
    .rts_opts_enabled = RtsOptsSafeOnly,
    .rts_opts_suggestions = HS_BOOL_TRUE,
    .rts_opts = NULL,
    .rts_hs_main = HS_BOOL_FALSE,
    .keep_cafs = HS_BOOL_FALSE,
    .eventlog_writer = NULL,
    .defaultsHook = FlagDefaultsHook,
    .onExitHook = OnExitHook,
    .stackOverflowHook = StackOverflowHook,
    .outOfHeapHook = OutOfHeapHook,
    .mallocFailHook = MallocFailHook,
    .gcDoneHook = NULL,
    .longGCSync = LongGCSync,
    .longGCSyncEnd = LongGCSyncEnd,
};

#define WEAK_HOOK __attribute__((weak, visibility("default")))

WEAK_HOOK void FlagDefaultsHook(void) {}

WEAK_HOOK void OnExitHook(void) {}

WEAK_HOOK void StackOverflowHook(W_ stack_size)
{
    msg_error("Stack space overflow: current size %lu bytes.", (unsigned long)stack_size);
    if (rts_config.rts_opts_suggestions) {
        if (rts_config.rts_opts_enabled == RtsOptsAll)
            msg_error("Use `+RTS -Ksize -RTS' to increase it.");
        else
            msg_error("Relink with -rtsopts and use `+RTS -Ksize -RTS' to increase it.");
    }
}

WEAK_HOOK void OutOfHeapHook(W_ request_size, W_ heap_size)
{
    (void)request_size;
    if (heap_size > 0) {
        msg_error("Heap exhausted;");
        msg_error("Current maximum heap size is %lu bytes (%lu MB).", (unsigned long)heap_size,
                  (unsigned long)(heap_size / (1024 * 1024)));
        if (rts_config.rts_opts_suggestions) {
            if (rts_config.rts_opts_enabled == RtsOptsAll)
                msg_error("Use `+RTS -M<size>' to increase it.");
            else
                msg_error("Relink with -rtsopts and use `+RTS -M<size>' to increase it.");
        }
    } else {
        msg_error("out of memory");
    }
}

WEAK_HOOK void MallocFailHook(W_ request_size, const char *msg)
{
    fprintf(stderr, "malloc: failed on request for %lu bytes; message: %s\n",
            (unsigned long)request_size, msg);
}

WEAK_HOOK void LongGCSync(uint32_t this_cap, Time time_ns)
{
    (void)time_ns;
    fprintf(stderr, "Warning: slow GC sync: still waiting for cap %u\n", this_cap);
}

WEAK_HOOK void LongGCSyncEnd(Time time_ns)
{
    fprintf(stderr, "Warning: waited %luus for GC sync\n", (unsigned long)(time_ns / 1000));
}

void hooks_heap_overflow(W_ request_bytes, W_ heap_limit_bytes)
{
    void (*hook)(W_, W_) = rts_config.outOfHeapHook ? rts_config.outOfHeapHook : OutOfHeapHook;
    hook(request_bytes, heap_limit_bytes);
    if (hook == OutOfHeapHook)
        msg_exit(EXIT_HEAPOVERFLOW);
}

void hooks_os_alloc_failed(W_ request_bytes, const char *msg)
{
    void (*hook)(W_, const char *) =
        rts_config.mallocFailHook ? rts_config.mallocFailHook : MallocFailHook;
    hook(request_bytes, msg);
    msg_exit(EXIT_INTERNAL_ERROR);
}

void *hooks_malloc(size_t bytes, const char *what)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        hooks_os_alloc_failed(bytes, what);
    return p;
}

void *hooks_calloc(size_t n, size_t size, const char *what)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        hooks_os_alloc_failed(n * size, what);
    return p;
}

void *hooks_realloc(void *p, size_t bytes, const char *what)
{
    void *q = realloc(p, bytes ? bytes : 1);
    if (!q)
        hooks_os_alloc_failed(bytes, what);
    return q;
}
