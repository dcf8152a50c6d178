/*
 * hsrts public header: allocation.
 *
 * rts_alloc() is the fast path generated code inlines: for a small object
 * it is one compare and one bump of the capability's Hp. When the current
 * nursery block is full it calls the runtime, which takes the next block or
 * stops to collect. Either way the words come back uninitialised: the caller
 * must write a header (and every pointer field) before its next allocation
 * or safepoint, and must not keep unrooted heap pointers across the call.
 */
#ifndef HSRTS_RTS_ALLOC_H
#define HSRTS_RTS_ALLOC_H

#include "rts/Regs.h"

/* Out-of-line paths (may collect). */
extern RTS_EXPORT StgPtr rts_alloc_slow(Capability *cap, StgWord words);
extern RTS_EXPORT StgPtr rts_alloc_large(Capability *cap, StgWord words);

RTS_INLINE StgPtr rts_alloc(Capability *cap, StgWord words)
{
    /* Any size is right here; the test folds away when `words` is a compile-time constant. */
    if (words < LARGE_OBJECT_THRESHOLD_W) {
        HsRegs *r = HS_REGS(cap);
        StgPtr p = r->hp;
        if (RTS_LIKELY(p + words <= r->hplim)) {
            r->hp = p + words;
            return p;
        }
        return rts_alloc_slow(cap, words);
    }
    return rts_alloc_large(cap, words);
}

/*
 * Constructors of the runtime's own object kinds. Each may collect.
 * Arrays and mutable variables come back clean and fully initialised.
 *
 * Any size is accepted as an argument, a negative Int cast to StgWord
 * included: one that no heap can hold (here and in rts_alloc_large) ends
 * the program with exit status 251 -- GHC's heap-overflow message when the
 * request is at least -M, otherwise one line naming the call and the size.
 * Sizes are never rounded down or wrapped. rts_alloc_large(cap, 0) is a
 * misuse (exit 1): every object has a header word.
 */
extern RTS_EXPORT StgArrBytes *rts_new_byte_array(Capability *cap, StgWord bytes);
/* A pinned byte array: never moves while it is alive. */
extern RTS_EXPORT StgArrBytes *rts_new_pinned_byte_array(Capability *cap, StgWord bytes);
extern RTS_EXPORT StgMutArrPtrs *rts_new_array(Capability *cap, StgWord n, StgClosure *init);
extern RTS_EXPORT StgSmallMutArrPtrs *rts_new_small_array(Capability *cap, StgWord n,
                                                          StgClosure *init);
extern RTS_EXPORT StgMutVar *rts_new_mut_var(Capability *cap, StgClosure *init);

/* Is p (untagged) inside the collected heap? Static closures are not. */
extern RTS_EXPORT int rts_is_heap_alloced(const void *p);

#endif /* HSRTS_RTS_ALLOC_H */
