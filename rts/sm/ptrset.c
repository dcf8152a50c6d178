/*
 * A set of pointers. See ptrset.h.
 */
#include "sm/ptrset.h"

#include <stdlib.h>
#include <string.h>

#include "hooks.h"

static StgWord slot_of(const PtrSet *s, StgWord key)
{
    StgWord i = ((key >> 3) * 0x9E3779B97F4A7C15ull) & (s->cap - 1);
    while (s->slots[i] && s->slots[i] != key)
        i = (i + 1) & (s->cap - 1);
    return i;
}

static void grow(PtrSet *s)
{
    StgWord *old = s->slots, old_cap = s->cap;
    s->cap = old_cap ? old_cap * 2 : 256;
    s->slots = hooks_calloc(s->cap, sizeof(StgWord), "pointer set");
    for (StgWord i = 0; i < old_cap; i++)
        if (old[i])
            s->slots[slot_of(s, old[i])] = old[i];
    free(old);
}

bool ptrset_add(PtrSet *s, const void *p)
{
    if ((s->n + 1) * 2 > s->cap)
        grow(s);
    StgWord i = slot_of(s, (StgWord)p);
    if (s->slots[i])
        return false;
    s->slots[i] = (StgWord)p;
    s->n++;
    return true;
}

bool ptrset_has(const PtrSet *s, const void *p)
{
    return s->cap && s->slots[slot_of(s, (StgWord)p)] != 0;
}

void ptrset_clear(PtrSet *s)
{
    if (s->cap)
        memset(s->slots, 0, s->cap * sizeof(StgWord));
    s->n = 0;
}

void ptrset_free(PtrSet *s)
{
    free(s->slots);
    s->slots = NULL;
    s->cap = s->n = 0;
}
