/*
 * The timer thread: one OS thread that wakes every -V seconds and runs
 * what depends on time. Today that is the idle collection (-I, -Iw) and
 * the collections asked for while every capability is free (gc_want): see
 * Note [Idle collections] in timer.c.
 */
#ifndef RTS_TIMER_H
#define RTS_TIMER_H

#include <stdint.h>

/* Start the timer if anything needs it (-V > 0, and idle GC on or the concurrent nonmoving
 * collector: Note [Idle collections]); stop it and wait. */
void timer_start(void);
void timer_stop(void);

/* Idle collections so far (for tests and -D traces). */
uint64_t timer_idle_gcs(void);

#endif /* RTS_TIMER_H */
