/*
 * hsrts public header: closure types.
 *
 * The closure type in an info table tells the collector how to treat an
 * object. The numbering is hsrts's own (it is not GHC's); names follow GHC's
 * so heap profiles read the same. See include/README.md for what each type
 * means to a compiler.
 */
#ifndef HSRTS_RTS_CLOSURETYPES_H
#define HSRTS_RTS_CLOSURETYPES_H

typedef enum {
    INVALID_OBJECT = 0,

    /* Immutable values. Layout: payload[ptrs] then nptrs words. */
    CONSTR,
    FUN,

    /* Suspended computations; every thunk has an update slot (StgThunk). */
    THUNK,
    THUNK_SELECTOR,
    AP,

    /* Partial application of a FUN (variable pointer payload). */
    PAP,

    /* What a thunk becomes. */
    IND,
    BLACKHOLE,

    /* Raw bytes; pinned ones live in pinned blocks and never move. */
    ARR_WORDS,

    /* Mutable (and frozen) pointer arrays; the big ones carry a card table. */
    MUT_ARR_PTRS_CLEAN,
    MUT_ARR_PTRS_DIRTY,
    MUT_ARR_PTRS_FROZEN_CLEAN,
    MUT_ARR_PTRS_FROZEN_DIRTY,
    SMALL_MUT_ARR_PTRS_CLEAN,
    SMALL_MUT_ARR_PTRS_DIRTY,
    SMALL_MUT_ARR_PTRS_FROZEN_CLEAN,
    SMALL_MUT_ARR_PTRS_FROZEN_DIRTY,

    MUT_VAR_CLEAN,
    MUT_VAR_DIRTY,

    WEAK,
    STABLE_NAME,

    /* Threads: a TSO and its chain of STACK chunks. */
    TSO,
    STACK,

    /* Static closures: outside the heap, recognised through the heap map. */
    CONSTR_STATIC,
    FUN_STATIC,
    THUNK_STATIC,
    IND_STATIC,

    /* Stack frames (only ever found inside a STACK). */
    RET_SMALL,       /* size and bitmap in the info table (size <= 64) */
    RET_BIG,         /* size and bitmap array in the info table */
    RET_DYN,         /* size in the frame, every slot a pointer: C roots */
    UPDATE_FRAME,    /* a thunk under evaluation */
    UNDERFLOW_FRAME, /* bottom of a later chunk: link to the older one */
    STOP_FRAME,      /* bottom of a thread's first chunk */

    N_CLOSURE_TYPES
} StgClosureType;

#endif /* HSRTS_RTS_CLOSURETYPES_H */
