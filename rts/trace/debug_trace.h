/*
 * Debug traces (-D<classes>, debug way only, as GHC): one line on stderr
 * per traced event, each starting with its subsystem ("sched: ",
 * "prof: "...). Which classes print what is listed in rts/trace/README.md.
 *
 *     DEBUG_TRACE(scheduler, "sched: cap %u: running thread %lu", cap->no, id);
 *
 * The class is a field of DebugFlags (rts/flags/flags.h). When it is off
 * the cost is one load and one well-predicted branch; in the other ways
 * the macro is nothing at all and its arguments are not evaluated.
 */
#ifndef RTS_TRACE_DEBUG_TRACE_H
#define RTS_TRACE_DEBUG_TRACE_H

#include "flags/flags.h"
#include "messages.h"

#ifdef DEBUG
#define DEBUG_TRACE(cls, ...)                  \
    do {                                       \
        if (RTS_UNLIKELY(rts_flags.debug.cls)) \
            trace_debug_line(__VA_ARGS__);     \
    } while (0)
#else
#define DEBUG_TRACE(cls, ...) ((void)0)
#endif

/* One line on stderr: the text and a newline, written at once. */
void trace_debug_line(const char *fmt, ...) RTS_PRINTF(1, 2);

#endif /* RTS_TRACE_DEBUG_TRACE_H */
