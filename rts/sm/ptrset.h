/*
 * A set of pointers (open addressing, grows by doubling): the sanity
 * checker's remembered objects, the collector's marked static closures.
 */
#ifndef RTS_SM_PTRSET_H
#define RTS_SM_PTRSET_H

#include <stdbool.h>

#include "rts/Config.h"

typedef struct {
    StgWord *slots; /* 0 = empty */
    StgWord cap;    /* a power of two, or 0 */
    StgWord n;
} PtrSet;

/* Add p (non-NULL); true if it was not there. */
bool ptrset_add(PtrSet *s, const void *p);
bool ptrset_has(const PtrSet *s, const void *p);
/* Empty the set, keeping its memory. */
void ptrset_clear(PtrSet *s);
void ptrset_free(PtrSet *s);

#endif /* RTS_SM_PTRSET_H */
