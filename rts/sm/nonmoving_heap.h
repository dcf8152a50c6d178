/*
 * The nonmoving heap's state shared by its files (nonmoving.c: segments,
 * promotion, sweep; nonmoving_evac.c: evacuating sparse segments). Not a
 * public header: nothing outside rts/sm/nonmoving*.c includes it.
 */
#ifndef HSRTS_SM_NONMOVING_HEAP_H
#define HSRTS_SM_NONMOVING_HEAP_H

#include <pthread.h>

#include "messages.h"
#include "sm/block.h"
#include "sm/nonmoving.h"

typedef struct {
    /*
     * The open run is runs[class] (Note [Promotion into runs]): the slots
     * from `scan` to its bump were promoted and not scanned yet; `first`
     * is the epoch byte of the run's first slot. lim NULL: no run open.
     */
    StgPtr scan;
    uint8_t *first;
    NmSegment *current; /* where promotion allocates (NULL: take one) */
    NmSegment *active;  /* some slot free (as the last sweep left them) */
    NmSegment *filled;  /* no slot free */
    NmSegment *sources; /* evacuation sources (Note [Evacuating sparse segments]) */
    /* Marked by the last cycle, not swept yet: its active, filled and sources lists as they
     * were then (Note [The concurrent sweep]). */
    NmSegment *unswept[3];
    NmClassCensus census;
    /* Slots promoted into this class (written by collections only): over the run, and at the
     * last choice of sources, with the free slots that choice left outside the sources (Note
     * [Only the holes promotion leaves]). */
    uint64_t promoted_slots, promoted_at_choice;
    StgWord holes_at_choice;
} NmAlloc;

extern uint32_t nm_class_count;
extern NmAlloc *nm_allocs;              /* [nm_class_count] */
extern uint8_t nm_epoch, nm_prev_epoch; /* marks of this cycle and the last */
extern pthread_mutex_t nm_sweep_lock;   /* Note [The concurrent sweep] in nonmoving.c */

RTS_INLINE NmSegment *segment_of_bd(const bdescr *bd)
{
    if (bd->blocks == 0)
        bd = bd->link; /* a later block of the group: its descriptor links to the head */
    return (NmSegment *)bd->start;
}

RTS_INLINE NmSegment *segment_of(const StgClosure *q)
{
    return segment_of_bd(Bdescr(q));
}

/*
 * The slot q is in: its word offset times slot_inv, the top 32 bits. Exact:
 * for an offset n = k * w + r (r < w, n < 2^12 words in a segment) the
 * product is n / w plus less than n / 2^32 < 1 / w, which cannot carry
 * k + r / w past k + 1. A division here was 8% of a promoting run.
 */
RTS_INLINE uint32_t slot_index(const NmSegment *s, const StgClosure *q)
{
    uint64_t n = (uint64_t)((const StgWord *)q - s->slots);
    uint32_t i = (uint32_t)((n * s->slot_inv) >> 32);
    ASSERT(i == n / s->slot_words);
    return i;
}
_Static_assert((uint64_t)NM_SEGMENT_BLOCKS *BLOCK_SIZE_W < ((uint64_t)1 << 20),
               "slot_index's multiply is exact for offsets below 2^20 words");

RTS_INLINE StgPtr slot_addr(const NmSegment *s, uint32_t i)
{
    return s->slots + (StgWord)i * s->slot_words;
}

/* A slot's epoch byte, which the mark thread may be setting (Note [Tracing beside a collection]).
 */
RTS_INLINE uint8_t mark_byte(const NmSegment *s, uint32_t i)
{
    return __atomic_load_n(&s->mark[i], __ATOMIC_RELAXED);
}

/* Between the pauses of a concurrent cycle the previous epoch's slots may be alive too. */
RTS_INLINE bool slot_in_use(uint8_t b)
{
    return b == nm_epoch || (nm_marking && b == nm_prev_epoch);
}

/* nonmoving_evac.c, for nonmoving.c (Note [Evacuating sparse segments]). */
void nm_evac_drop_source(NmSegment *s);        /* s stops being a source (a pause) */
void nm_evac_after_sweep(void);                /* retire drained sources, choose new ones */
void nm_evac_reset(void);                      /* forget every source (nm_init, nm_exit) */
void nm_evac_check_source(const NmSegment *s); /* -DS */

#endif
