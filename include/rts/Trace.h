/*
 * hsrts public header: events a program posts itself, and control of the
 * heap census, for compilers to call from generated code or their runtime
 * library (GHC's traceEvent#, traceMarker#, traceBinaryEvent# and
 * rts/prof/Heap.h).
 *
 * The user events go to the event log when it runs with the `u` class (on
 * by default); otherwise each call returns at once. `cap` is the caller's
 * capability, or NULL from a thread that holds none.
 */
#ifndef HSRTS_RTS_TRACE_H
#define HSRTS_RTS_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "rts/Config.h"

struct Capability_;

/* A text message (EVENT_USER_MSG); longer than 65,000 bytes is cut. */
extern RTS_EXPORT void rts_traceEvent(struct Capability_ *cap, const char *msg);
/* A marker (EVENT_USER_MARKER): a named point in time. */
extern RTS_EXPORT void rts_traceMarker(struct Capability_ *cap, const char *name);
/* Raw bytes (EVENT_USER_BINARY_MSG). */
extern RTS_EXPORT void rts_traceBinaryEvent(struct Capability_ *cap, const uint8_t *bytes,
                                            size_t n);
/* Is the event log running? (GHC's rts_isTracing is whether it can.) */
extern RTS_EXPORT int rts_isTracing(void);

/*
 * Heap profiling (-hT, -hi): ask for a census at the next collection (it is
 * made major); start or stop the automatic censuses every -i seconds
 * (--no-automatic-heap-samples starts with them stopped).
 */
extern RTS_EXPORT void requestHeapCensus(void);
extern RTS_EXPORT void startHeapProfTimer(void);
extern RTS_EXPORT void stopHeapProfTimer(void);

#endif /* HSRTS_RTS_TRACE_H */
