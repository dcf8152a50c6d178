/*
 * Bad input the runtime must refuse with a clear one-line error and a
 * non-zero exit, never a crash or silent corruption. Usage: bad_input MODE.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "Rts.h"

/* An info table whose closure type no collector knows. */
static const StgInfoTable bogus_info = {.type = 200, .ptrs = 1, .name = "bogus"};
static const StgInfoTable pair_info = HS_CONSTR_INFO(0, 2, 0, "test:Pair");

static Capability *other_cap;
static void *unlock_other(void *arg)
{
    (void)arg;
    rts_unlock(other_cap);
    return NULL;
}

int main(int argc, char *argv[])
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "exit-without-init") == 0) {
        hs_exit();
        return 0;
    }
    if (strcmp(mode, "lock-without-init") == 0) {
        rts_lock();
        return 0;
    }
    hs_init(&argc, &argv);
    Capability *cap = rts_lock();
    StgClosure **r = rts_push_roots(cap, 2);

    if (strcmp(mode, "bad-info") == 0) {
        StgClosure *p = (StgClosure *)rts_alloc(cap, 2);
        p->info = &bogus_info;
        p->payload[0] = NULL;
        r[0] = p;
        performGC();
    } else if (strcmp(mode, "bad-info-nested") == 0) {
        /* The bad object is only reachable from a good one. */
        StgClosure *p = (StgClosure *)rts_alloc(cap, 3);
        p->info = &pair_info;
        p->payload[0] = p->payload[1] = NULL;
        r[0] = p;
        StgClosure *q = (StgClosure *)rts_alloc(cap, 2);
        q->info = &bogus_info;
        q->payload[0] = NULL;
        r[0]->payload[1] = q;
        performMajorGC();
    } else if (strcmp(mode, "huge-alloc") == 0) {
        rts_alloc(cap, (StgWord)1 << 50);
    } else if (strcmp(mode, "huge-array") == 0) {
        rts_new_array(cap, (StgWord)1 << 45, NULL);
    } else if (strcmp(mode, "unlock-twice") == 0) {
        rts_pop_roots(cap, r);
        rts_unlock(cap);
        rts_unlock(cap);
    } else if (strcmp(mode, "unlock-other-thread") == 0) {
        other_cap = cap;
        pthread_t t;
        pthread_create(&t, NULL, unlock_other, NULL);
        pthread_join(t, NULL);
    } else if (strcmp(mode, "lock-twice") == 0) {
        rts_lock();
    } else if (strcmp(mode, "bad-pop") == 0) {
        StgClosure **inner = rts_push_roots(cap, 1);
        (void)inner;
        rts_pop_roots(cap, r); /* not the topmost frame */
    } else {
        fprintf(stderr, "bad_input: unknown mode '%s'\n", mode);
        return 2;
    }
    fprintf(stderr, "bad_input: %s was not refused\n", mode);
    return 0;
}
