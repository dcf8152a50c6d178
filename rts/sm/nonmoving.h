/*
 * The nonmoving old generation (--nonmoving-gc, -xn): segments of
 * one-size slots, an epoch byte per slot, marked by the shared
 * stop-the-world mark (mark.h) in the vanilla way and concurrently in the
 * threaded way (nonmoving_mark.c), and swept segment by segment. See Notes
 * [Nonmoving segments] in nonmoving.c and [The concurrent mark] in
 * nonmoving_mark.c.
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
 * carries BF_NONMOVING | BF_EVACUATED (always: a collection that marks
 * the generation says so in gct->nm_grey) and the generation's
 * gen/gen_no/dest_no; the segment is on exactly one list of its
 * size class (the current one, active, filled or unswept) or on the dead
 * list, as `state` says, and on the generation's block list (through its
 * head descriptor's link and u.back); `live` counts the slots whose epoch
 * byte is the current epoch (not kept while a concurrent mark runs, nor
 * in a segment not swept yet); no slot below `next_free` is free; an
 * evacuation source (`evac` set) is on its class's sources list, or on the
 * dead list, never where promotion takes slots. Guarded
 * by the world being stopped (changes happen in collections), except: the
 * epoch bytes, which the concurrent mark's thread sets (atomically); and,
 * after a concurrent cycle, the lists, `live` and `next_free`, which the
 * sweep's thread changes holding sweep_lock (Note [The concurrent sweep]).
 */
typedef struct NmSegment_ {
    struct NmSegment_ *link; /* the size class's list this segment is on */
    uint32_t cls;            /* size class */
    uint32_t slot_words;     /* words per slot */
    uint32_t n_slots;
    uint32_t next_free; /* allocation cursor: slots below it are taken */
    uint32_t live;      /* slots holding the current epoch */
    uint32_t slot_inv;  /* ceil(2^32 / slot_words): slot_index without a division */
    uint16_t state;     /* NM_SEG_IN_USE or NM_SEG_DEAD */
    /* An evacuation source: its index + 1 among the sources, 0: none (Note [Evacuating sparse
     * segments]). Written in pauses only; read by the mark thread (atomic). */
    uint16_t evac;
    uint32_t sweeps; /* the sweep it was last swept by (or made in): older = not swept yet */
    StgPtr slots;    /* slot 0 */
    uint8_t mark[];  /* per slot: the epoch of its last mark or allocation (0: never) */
} NmSegment;

enum {
    NM_SEG_IN_USE, /* a class's current, active or filled segment, or not swept yet (on an
                      unswept list: Note [The concurrent sweep]) */
    NM_SEG_DEAD,   /* swept with nothing live: to be freed or reused */
};

/* Start-up / shut-down of the nonmoving heap (storage.c; only under -xn). */
void nm_init(void);
void nm_exit(void);

/* The mark of a major collection reached q (in a segment): false if it was already marked. */
bool nm_mark(StgClosure *q, bdescr *bd);
/* The mark thread reached q (in a segment; Note [Tracing beside a collection]): true if it marked
 * it now. */
bool nm_mark_concurrent(StgClosure *q, bdescr *bd);
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
    StgWord filled; /* of them, with no free slot (after a sweep) */
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
/*
 * The same as each mark began (slots holding an object, live or not yet
 * known dead, summed over every mark / slots summed likewise): the share of
 * the segments' memory that free slots left unused at the heap's fullest;
 * -1: no mark found any segment.
 */
double nm_mean_start_occupancy(void);
/* Its sums so far (tests). */
void nm_start_census(uint64_t *used, uint64_t *slots);
/* Is q a live slot of the nonmoving heap (tests)? */
bool nm_is_live_slot(const StgClosure *q);

/* --- evacuating sparse segments (Note [Evacuating sparse segments] in nonmoving_evac.c) --- */

/*
 * A segment block's nm_segment word (block.h). NM_SEG_SOURCE is set in every
 * block of a segment while its `evac` names a source (Note [Evacuating
 * sparse segments]): a collection forwarding pointers tests the descriptor
 * it has read already (for the block flags) instead of the segment's header,
 * a cache miss per pointer into the nonmoving heap (80% of nm_forward_slot's
 * samples, 5.7% of mapchurn's under thr -xn, went to that one load).
 */
#define NM_SEG_BLOCK  1u
#define NM_SEG_SOURCE 2u

RTS_INLINE bool nm_block_in_source(const bdescr *bd)
{
    return (__atomic_load_n(&bd->nm_segment, __ATOMIC_ACQUIRE) & NM_SEG_SOURCE) != 0;
}

/* Some old copy has a new one: pointers met are redirected (atomic; written in pauses). */
extern bool nm_forwarding;
/* q (untagged, in a segment: bd is its descriptor) was duplicated: its newest copy, else NULL. */
StgClosure *nm_forwardee_source(const StgClosure *q, const bdescr *bd); /* bd is a source's */
RTS_INLINE StgClosure *nm_forwardee(const StgClosure *q, const bdescr *bd)
{
    return RTS_LIKELY(!nm_block_in_source(bd)) ? NULL : nm_forwardee_source(q, bd);
}
/* The same, to the end of a chain of copies (out of line: evac_heap's case). */
StgClosure *nm_forward_slot(const StgClosure *q, const bdescr *bd);
/* p (tagged or not, anywhere) with every old copy on the way replaced by its newest copy. */
StgClosure *nm_forward(StgClosure *p);
/* A minor collection, after prepare: duplicate some live objects of the sources (budgeted). */
void nm_evac_copy(gc_thread *gct);
/* Tests and statistics: segments that are sources now, objects duplicated over the run. */
uint32_t nm_evac_sources(void);
/* Words the old copies of the sources copied out hold, freed by the next cycle (heap sizing). */
StgWord nm_evac_source_words(void);
uint64_t nm_evac_copied(void);

/* --- the concurrent mark (threaded way; nonmoving_mark.c, Note [The concurrent mark]) --- */

typedef enum {
    NM_PAUSE_NONE,   /* not a pause of a concurrent cycle (or the vanilla way's mark) */
    NM_PAUSE_START,  /* takes the snapshot, starts the mark */
    NM_PAUSE_DURING, /* a minor collection while the mark runs */
    NM_PAUSE_FINAL,  /* finishes the mark, the weak phase, the sweep */
    NM_PAUSE_FULL,   /* a whole cycle in one pause (forced major collections) */
} NmPause;
/* The pause in progress (set by gc.c, world stopped). */
extern NmPause nm_pause;

bool nm_concurrent(void);    /* this runtime marks the nonmoving heap concurrently */
bool nm_cycle_running(void); /* between a START pause and its FINAL */
uint64_t nm_cycles(void);    /* concurrent cycles completed */
/* Around a pause (world stopped): hand the capabilities' update remembered sets to the mark
 * (which goes on beside a minor collection), and let it go on after the pause;
 * nm_stop_mark_thread: a pause that needs it stopped (start, final, full; nm_pause_begin). */
void nm_pause_mark_thread(void);
void nm_stop_mark_thread(void);
void nm_resume_mark_thread(void);
/* After a collection (not the exit's): the thread populates the megablocks the heap is about to
 * take fresh, off the pauses (Note [Prefaulted megablocks] in mblock.c). */
void nm_ask_prefault(void);
/* The mark had run dry when this pause began (the capabilities' unflushed remembered sets
 * aside, which the final pause marks itself): the FINAL may run. */
bool nm_nothing_left(void);
/* Now (any thread): a cycle is running and its mark has run dry, so a collection would be its
 * final pause (Note [Asking for the final pause] in nonmoving_mark.c). */
bool nm_final_due(void);
/*
 * Wait until the running cycle's mark thread has nothing left (the caller
 * holds no capability): the exit's collection is then a short final pause.
 */
void nm_wait_mark_dry(void);
/*
 * After the exit's collection (the caller holds no capability): when an
 * event log or a -t/-s/-S report will show it, wait until the sweep still
 * running has ended, and populate nothing more (Note [The exit waits for
 * the sweep] in nonmoving_mark.c).
 */
void nm_wait_sweep_at_exit(void);
/* Mark everything left, in the pause (forced collections). */
void nm_drain_in_pause(void);
void nm_pause_begin(NmPause pause);
void nm_pause_end(void);
/* A pause's part of the generation's scan. */
bool nm_pause_scan(gc_thread *gct, uint32_t gen_no);
/* evac_large's case in a start pause: a large object of the nonmoving generation is greyed. */
void nm_grey_large(gc_thread *gct, bdescr *bd);
/* START, before the roots: the thread table's TSOs in segments, marked and scanned (Note
 * [Greying without reading] in nonmoving_mark.c). */
void nm_start_threads(gc_thread *gct);
/* mark_object's nonmoving case under the concurrent mark: grey q. */
void nm_grey(gc_thread *gct, StgClosure *q, bdescr *bd);
/* Note [Lazy stack marking] in nonmoving_mark.c: a pause that greys scanned s; a mutator is about
 * to run on s (threads_stack_activate). */
void nm_stack_scanned(StgStack *s);
void nm_stack_before_run(Capability *cap, StgStack *s);
/* Tests: while held, the mark thread traces nothing (pauses go on; no final pause comes). */
void nm_test_hold_mark(bool hold);
/*
 * Words promoted between the last cycle's start and final pauses (heap sizing: Note [Starting
 * a concurrent cycle early] in trigger.c).
 */
StgWord nm_cycle_promoted_words(void);
/* Words promoted since the running or last cycle's start pause (promoted black). */
StgWord nm_black_words(void);
/* At a FINAL pause: the nonmoving thread's CPU and time since the last one (nm_cycle_times). */
void nm_cycle_times(int64_t *cpu_ns, int64_t *elapsed_ns);
/* The same for the window still open (getRTSStats, -s): since the last FINAL, changing nothing. */
void nm_unfinished_times(int64_t *cpu_ns, int64_t *elapsed_ns);
/* The CPU time the mark thread has used (the statistics leave it out of the pauses'). */
int64_t nm_mark_thread_cpu_ns(void);
/* Shut-down: stop the mark thread, free its state. */
void nm_mark_exit(void);
/* weak.c: a weak's value or finalizer p is left to the final pause (a START pause, p old). */
bool nm_weak_field_deferred(const StgClosure *p);
/* The final pause, before the sweep: drop the dead from the generation's remembered sets. */
void nm_filter_remembered(void);
/* The final pause, after the weak phase: revert the CAFs the cycle did not reach (statics.h). */
void nm_cafs_cycle_end(void);
/* Tests: the next collection outside a cycle starts one (a START pause). */
void nm_request_cycle(void);
bool nm_take_cycle_request(void);
/* Debug ways: every object reachable from the roots is marked (barfs if not). */
void nm_verify(void);

/* The concurrent sweep (Note [The concurrent sweep] in nonmoving.c). */
bool nm_sweeping(void);     /* a cycle's segments are not all swept yet */
bool nm_sweep_batch(void);  /* the mark thread sweeps some; false when none is left */
void nm_finish_sweep(void); /* a pause sweeps what is left (world stopped) */

/* nonmoving.c's side of the cycle. */
void nm_new_epoch(void);                  /* START: a new epoch; marking until the sweep */
void nm_set_segments_marked(bool marked); /* this collection marks what reaches segments, or not */
bool nm_segments_marked(void);
bool nm_slot_marked(const StgClosure *q, const bdescr *bd);

#endif /* RTS_SM_NONMOVING_H */
