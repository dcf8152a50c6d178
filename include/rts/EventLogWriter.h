/*
 * hsrts public header: where the event log goes.
 */
#ifndef HSRTS_RTS_EVENTLOGWRITER_H
#define HSRTS_RTS_EVENTLOGWRITER_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    void (*initEventLogWriter)(void);                /* may be NULL */
    bool (*writeEventLog)(void *eventlog, size_t n); /* required; may run on several threads */
    void (*flushEventLog)(void);                     /* may be NULL */
    void (*stopEventLogWriter)(void);                /* may be NULL */
} EventLogWriter;

#endif /* HSRTS_RTS_EVENTLOGWRITER_H */
