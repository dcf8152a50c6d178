/*
 * hsrts public header: where the event log goes, and starting or stopping
 * it from the program (GHC's rts/EventLogWriter.h).
 *
 * With +RTS -l the runtime writes the event log through
 * RtsConfig.eventlog_writer (FileEventLogWriter when that is NULL:
 * <prog>.eventlog, or the -ol file); --null-eventlog-writer discards it.
 * A program may instead start logging itself with startEventLogging.
 */
#ifndef HSRTS_RTS_EVENTLOGWRITER_H
#define HSRTS_RTS_EVENTLOGWRITER_H

#include <stdbool.h>
#include <stddef.h>

#include "rts/Config.h"

struct Capability_;

typedef struct {
    void (*initEventLogWriter)(void);                /* may be NULL */
    bool (*writeEventLog)(void *eventlog, size_t n); /* required; may run on several threads */
    void (*flushEventLog)(void);                     /* may be NULL */
    void (*stopEventLogWriter)(void);                /* may be NULL */
} EventLogWriter;

/* <prog>.eventlog (or the -ol file), and a writer that drops everything. */
extern RTS_EXPORT const EventLogWriter FileEventLogWriter;
extern RTS_EXPORT const EventLogWriter NullEventLogWriter;

enum EventLogStatus {
    EVENTLOG_NOT_SUPPORTED, /* never, in hsrts: every way can log */
    EVENTLOG_NOT_CONFIGURED,
    EVENTLOG_RUNNING,
};

extern RTS_EXPORT enum EventLogStatus eventLogStatus(void);
/*
 * Start writing events (the header and start-up events first) to `writer`
 * with the classes -l selected (GHC's defaults s g p u without -l). False
 * if the event log is already running or the runtime is not.
 */
extern RTS_EXPORT bool startEventLogging(const EventLogWriter *writer);
/* Write what is buffered and the end marker, then stop the writer. */
extern RTS_EXPORT void endEventLogging(void);
/* Hand every buffered event to the writer (the argument is ignored: all are flushed). */
extern RTS_EXPORT void flushEventLog(struct Capability_ **cap);

#endif /* HSRTS_RTS_EVENTLOGWRITER_H */
