/*
 * A sparse nonmoving heap on purpose, evacuated (Note [Evacuating sparse
 * segments] in rts/sm/nonmoving_evac.c): shared by check_nonmoving (the vanilla
 * way's stop-the-world mark) and check_thr_nonmoving (the concurrent mark).
 */
#ifndef TESTS_EVAC_SPARSE_H
#define TESTS_EVAC_SPARSE_H

/*
 * Start the runtime with `opts`, fragment the nonmoving heap, let minor
 * collections and `cycle` (what a major collection is: performMajorGC, or a
 * whole concurrent cycle) evacuate it, check the result, shut down.
 */
void evac_sparse_run(const char *opts, void (*cycle)(void));

#endif
