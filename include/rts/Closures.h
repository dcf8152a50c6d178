/*
 * hsrts public header: the layout of heap objects.
 *
 * Every object is a whole number of words and begins with its info pointer.
 * Sizes below are in words and include the header.
 */
#ifndef HSRTS_RTS_CLOSURES_H
#define HSRTS_RTS_CLOSURES_H

#include "rts/InfoTables.h"

/* A generic object: CONSTR, FUN and static constructors use this layout. */
typedef struct StgClosure_ {
    const StgInfoTable *info;
    struct StgClosure_ *payload[];
} StgClosure;

/*
 * THUNK: header, update slot, payload (pointers first, then nptrs words).
 * The slot is 0 while the thunk is unevaluated and holds the evaluating
 * thread's owner token (an odd word, never a pointer) while it is under
 * evaluation, so a thunk is always at least two words and can be overwritten
 * by an IND in place. The entry code must read the free variables it needs
 * before its first allocation: from then on the collector may turn the thunk
 * into a BLACKHOLE and drop them (as GHC's blackholing does, to avoid space
 * leaks). See include/README.md, "Evaluation".
 */
typedef struct {
    const StgInfoTable *info;
    StgWord slot;
    StgClosure *payload[];
} StgThunk;

/* THUNK_SELECTOR: selects field info->tag of the constructor `selectee`. */
typedef struct {
    const StgInfoTable *info;
    StgWord slot;
    StgClosure *selectee;
} StgSelector;

/* IND: what an updated thunk becomes. IND_STATIC has the same shape. */
typedef struct {
    const StgInfoTable *info;
    StgClosure *indirectee;
} StgInd;

/*
 * THUNK_STATIC: a CAF, a top-level thunk in the program's (writable) data.
 * When first evaluated it is registered with the runtime, blackholed through
 * its slot, and updated in place to IND_STATIC with the value in
 * indirectee; saved_info keeps the original info table. Declare one with
 * HS_CAF(&info). See Note [CAFs and SRTs] in rts/sm/statics.h.
 */
typedef struct {
    const StgInfoTable *info;
    StgWord slot;
    struct StgClosure_ *indirectee;
    const StgInfoTable *saved_info;
} StgCAF;
#define HS_CAF(info_)   \
    {                   \
        .info = (info_) \
    }

/* BLACKHOLE: a thunk under evaluation whose free variables were dropped. */
typedef struct {
    const StgInfoTable *info;
    StgWord owner; /* owner token of the evaluating thread (odd; not a pointer) */
} StgBlackhole;

/* PAP: a FUN applied to fewer arguments than its arity. Payload: pointers. */
typedef struct {
    const StgInfoTable *info;
    StgHalfWord arity;  /* arguments still missing */
    StgHalfWord n_args; /* arguments held */
    StgClosure *fun;
    StgClosure *payload[];
} StgPAP;

/* AP: a suspended application (a thunk): update slot, then fun and args. */
typedef struct {
    const StgInfoTable *info;
    StgWord slot;
    StgHalfWord arity; /* unused; 0 */
    StgHalfWord n_args;
    StgClosure *fun;
    StgClosure *payload[];
} StgAP;

/* ARR_WORDS: raw bytes. */
typedef struct {
    const StgInfoTable *info;
    StgWord bytes;
    StgWord payload[];
} StgArrBytes;

/*
 * MUT_ARR_PTRS_*: `ptrs` elements, then a card table of one byte per 128
 * elements, rounded up to whole words; `size` counts elements plus card words.
 */
typedef struct {
    const StgInfoTable *info;
    StgWord ptrs;
    StgWord size;
    StgClosure *payload[];
} StgMutArrPtrs;

/* SMALL_MUT_ARR_PTRS_*: no card table. */
typedef struct {
    const StgInfoTable *info;
    StgWord ptrs;
    StgClosure *payload[];
} StgSmallMutArrPtrs;

typedef struct {
    const StgInfoTable *info;
    StgClosure *var;
} StgMutVar;

/* C finalizer of a weak pointer. */
typedef void (*HsFinalizer)(void *env);

/*
 * WEAK: the key is not traced; value and finalizer closure are kept alive
 * only while the key is (Foundation II implements the semantics).
 */
typedef struct StgWeak_ {
    const StgInfoTable *info;
    StgClosure *key;
    StgClosure *value;
    StgClosure *finalizer; /* a closure, or NULL */
    struct StgWeak_ *link; /* the collector's weak list; not a traced field */
    HsFinalizer cfinalizer;
    void *cfinalizer_env;
} StgWeak;

typedef struct {
    const StgInfoTable *info;
    StgWord sn; /* index in the stable-name table */
} StgStableName;

/*
 * STACK: one chunk of a thread's stack. Frames are pushed downwards, from
 * stack + stack_size towards stack; sp is the topmost frame. Chunks are
 * never moved by the collector, so C code may hold pointers into its frames.
 */
typedef struct StgStack_ {
    const StgInfoTable *info;
    StgWord stack_size;  /* words in stack[] */
    StgHalfWord dirty;   /* written since the last collection */
    StgHalfWord marking; /* -xn: the cycle that marked it (Note [Lazy stack marking]) */
    StgPtr sp;
    StgWord stack[];
} StgStack;

/* TSO: a thread. Pointer fields first (the info table counts them). */
typedef struct StgTSO_ {
    const StgInfoTable *info;
    struct StgTSO_ *link;       /* traced; reserved for blocking queues */
    struct StgStack_ *stackobj; /* traced; the current (newest) chunk */
    /* Non-pointer fields. */
    struct StgStack_ *spare; /* an emptied chunk kept until the next GC */
    StgWord id;
    StgWord flags;
    StgWord tot_stack_size; /* words, all chunks */
    StgInt64 alloc_limit;
} StgTSO;

#define TSO_DIRTY 1u

/* Frames. */
typedef struct {
    const StgInfoTable *info;
    StgClosure *updatee;
} StgUpdateFrame;

typedef struct {
    const StgInfoTable *info;
    StgStack *next_chunk; /* the older chunk */
} StgUnderflowFrame;

typedef struct {
    const StgInfoTable *info;
} StgStopFrame;

/* RET_DYN: a frame of `size` pointer slots, pushed by the root macros. */
typedef struct {
    const StgInfoTable *info;
    StgWord size;
    StgClosure *slots[];
} StgRetDyn;

/* --- pointer tagging ------------------------------------------------------ */

RTS_INLINE StgClosure *UNTAG(const StgClosure *p)
{
    return (StgClosure *)((StgWord)p & ~TAG_MASK);
}
RTS_INLINE StgWord GET_TAG(const StgClosure *p)
{
    return (StgWord)p & TAG_MASK;
}
RTS_INLINE StgClosure *TAG_CLOSURE(StgWord tag, const StgClosure *p)
{
    return (StgClosure *)((StgWord)p | tag);
}

/* --- sizes ------------------------------------------------------------------ */

#define SIZEOF_W(t) (sizeof(t) / sizeof(StgWord))

/*
 * The size helpers below never wrap: every StgWord argument gives a result
 * at most a little above argument / 8 (rounding up without adding first).
 * The runtime refuses sizes no heap can hold before it uses these.
 */
RTS_INLINE StgWord mut_arr_ptrs_card_words(StgWord ptrs)
{
    StgWord cards = (ptrs >> MUT_ARR_PTRS_CARD_BITS) +
                    ((ptrs & (((StgWord)1 << MUT_ARR_PTRS_CARD_BITS) - 1)) != 0);
    return cards / WORD_SIZE + (cards % WORD_SIZE != 0);
}

RTS_INLINE uint8_t *mut_arr_ptrs_cards(StgMutArrPtrs *a)
{
    return (uint8_t *)&a->payload[a->ptrs];
}

RTS_INLINE StgWord arr_words_size_w(StgWord bytes)
{
    return SIZEOF_W(StgArrBytes) + bytes / WORD_SIZE + (bytes % WORD_SIZE != 0);
}

#endif /* HSRTS_RTS_CLOSURES_H */
