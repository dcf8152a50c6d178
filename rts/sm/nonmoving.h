/*
 * The nonmoving old generation (--nonmoving-gc, -xn): segments of
 * one-size slots, an epoch byte per slot, marked by the shared
 * stop-the-world mark (mark.h) and swept segment by segment. See Note
 * [Nonmoving segments] in nonmoving.c.
 */
#ifndef RTS_SM_NONMOVING_H
#define RTS_SM_NONMOVING_H

#include <stdbool.h>

#include "sm/gc_thread.h"

/* Blocks per segment (a block group; 32 KiB, as GHC's segments). */
#define NM_SEGMENT_BLOCKS 8

/*
 * A segment's header, at the start of its block group; slots follow the
 * epoch bytes. Invariants (checked by nm_check): every block of the group
 * carries BF_NONMOVING and the generation's gen/gen_no/dest_no; between
 * collections BF_EVACUATED and not BF_MARKED, during a major collection
 * BF_MARKED and not BF_EVACUATED; the segment is on exactly one list of its
 * size class (the current one, active or filled) and on the generation's
 * block list (through its head descriptor's link); `live` counts the slots
 * whose epoch byte is the current epoch; no slot below `next_free` is free.
 * Guarded by the world being stopped (every change happens in a collection).
 */
typedef struct NmSegment_ {
    struct NmSegment_ *link; /* the size class's list this segment is on */
    uint32_t cls;            /* size class */
    uint32_t slot_words;     /* words per slot */
    uint32_t n_slots;
    uint32_t next_free; /* allocation cursor: slots below it are taken */
    uint32_t live;      /* slots holding the current epoch */
    uint32_t slot_inv;  /* ceil(2^32 / slot_words): slot_index without a division */
    StgPtr slots;       /* slot 0 */
    uint8_t mark[];     /* per slot: the epoch of its last mark or allocation (0: never) */
} NmSegment;

/* Start-up / shut-down of the nonmoving heap (storage.c; only under -xn). */
void nm_init(void);
void nm_exit(void);

/* The mark of a major collection reached q (in a segment): false if it was already marked. */
bool nm_mark(StgClosure *q, bdescr *bd);
/* After a mark-stack overflow: scan every marked slot again (mark.c). */
void nm_rescan(gc_thread *gct, uint32_t gen_no,
               void (*scan)(gc_thread *gct, StgClosure *q, uint32_t gen_no));
/* A nonmoving major collection is marking (mark.c's stack serves it). */
extern bool nm_marking;

/* Size classes (tests and statistics). */
uint32_t nm_n_classes(void);
uint32_t nm_class_of(StgWord words);   /* the class an object of `words` words goes into */
uint32_t nm_class_words(uint32_t cls); /* its slot size */

/* Occupancy of one size class (its segments' live slots out of their slots). */
typedef struct {
    StgWord slot_words;
    StgWord segments;
    StgWord slots;
    StgWord live_slots;
} NmClassCensus;
void nm_class_census(uint32_t cls, NmClassCensus *out);
/* Live slots / slots over every class; 1.0 when the heap is empty. */
double nm_occupancy(void);
/*
 * The occupancy the sweeps of the run left, weighted by slots (live slots
 * summed over every sweep / slots summed likewise); -1: no sweep yet. Kept
 * after shut-down, for the -s summary.
 */
double nm_mean_sweep_occupancy(void);
/* Is q a live slot of the nonmoving heap (tests)? */
bool nm_is_live_slot(const StgClosure *q);

#endif /* RTS_SM_NONMOVING_H */
