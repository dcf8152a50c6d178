/*
 * Where the write barriers' slow paths report overwritten values while a
 * capability's barrier word is set. See Note [The barrier word] in
 * barriers.c.
 */
#ifndef RTS_SM_BARRIER_SINK_H
#define RTS_SM_BARRIER_SINK_H

#include "Rts.h"

/* obj's field `field` held `old` (a thunk update: each free variable; a weak dereference: obj is
 * the weak). */
typedef void (*BarrierSink)(Capability *cap, StgClosure *obj, StgClosure **field, StgClosure *old);

/* Install the sink before setting any capability's barrier word; NULL removes it. */
void sm_barrier_set_sink(BarrierSink sink);
/* The sink installed (NULL: none); the concurrent mark chains to it and puts it back. */
BarrierSink sm_barrier_get_sink(void);

/* Report one value to the sink (callers test the barrier word first). */
void sm_barrier_note(Capability *cap, StgClosure *obj, StgClosure **field, StgClosure *old);

#endif /* RTS_SM_BARRIER_SINK_H */
