/*
 * Threads: a TSO and its chain of STACK chunks, and the thread table.
 *
 * Every OS thread that has called rts_lock() owns one Haskell-style thread
 * (TSO) until hs_thread_done() or hs_exit(); the thread table holds them,
 * and is a root of every collection. A TSO moves like any small object;
 * stack chunks are large objects and never move.
 *
 * Note [Active stacks]
 * ~~~~~~~~~~~~~~~~~~~~~
 * C code writes heap pointers into its frames without a barrier, so the
 * chunk a thread is running on must be scanned by every collection. A chunk
 * becomes active when its thread takes a capability or switches chunks
 * (overflow or underflow); activation marks it dirty and, if it is in an
 * old generation, records it on the remembered set. The collector keeps
 * the chunks that are still active dirty and remembered (scav.c), so an
 * active chunk is always dirty. A chunk that is not active is only written
 * by the collector.
 */
#ifndef RTS_THREADS_H
#define RTS_THREADS_H

#include "capability.h"

void threads_init(void);
void threads_exit(void);

/* Give the calling OS thread's TSO to cap (creating it on first use). */
void threads_attach(Capability *cap);
/* The capability is being released: its thread is no longer running. */
void threads_detach(Capability *cap);
/* The calling OS thread is done with the runtime: forget its TSO. */
void threads_forget_mine(void);

/* Collector: evacuate every TSO in the thread table. */
void threads_evacuate_roots(void);

/* Mark a chunk dirty and remember it. See Note [Active stacks]. */
void threads_stack_activate(Capability *cap, StgStack *s);

/* Live threads (for the sanity checker). */
uint32_t threads_count(void);
StgTSO *threads_get(uint32_t i);

#endif /* RTS_THREADS_H */
