/*
 * hsrts public header: info tables.
 *
 * Every heap object starts with one header word, a pointer to its info table.
 * Info tables live in static (or otherwise never-freed, never-heap) memory
 * and must be word-aligned: the collector marks forwarding pointers in the
 * header's low bit.
 */
#ifndef HSRTS_RTS_INFOTABLES_H
#define HSRTS_RTS_INFOTABLES_H

#include "rts/ClosureTypes.h"
#include "rts/Config.h"

struct Capability_;
struct StgClosure_;

/*
 * Entry code of a THUNK (or THUNK_STATIC): compute and return the value.
 * `fv` holds rooted copies of the thunk's pointer free variables
 * (payload[0 .. ptrs-1]); they stay valid, and are updated, across
 * collections until the entry returns, and the entry may overwrite them
 * (set one to NULL to let it die early). `self` is valid only until the
 * first allocation: read non-pointer free variables from it before
 * allocating. See include/README.md, "Evaluation".
 */
typedef struct StgClosure_ *(*StgEntry)(struct Capability_ *cap, struct StgClosure_ *self,
                                        struct StgClosure_ **fv);

/*
 * Entry code of a FUN: apply it to exactly info->tag (its arity) arguments.
 * `fv` holds rooted copies of the function's pointer free variables (NULL
 * if it has none) and `args` the rooted arguments; both stay valid across
 * collections until the entry returns. `self`, as for thunks, only until
 * the first allocation.
 */
typedef struct StgClosure_ *(*StgFunEntry)(struct Capability_ *cap, struct StgClosure_ *self,
                                           struct StgClosure_ **fv, struct StgClosure_ **args);

/* Bitmap of a RET_BIG frame: bit i of the words is 1 when slot i is a pointer. */
typedef struct {
    StgWord size; /* in slots */
    StgWord bitmap[];
} StgLargeBitmap;

typedef struct StgInfoTable_ {
    uint16_t type;  /* StgClosureType */
    uint16_t flags; /* reserved; 0 */
    /* CONSTR: constructor tag; FUN: arity; THUNK_SELECTOR: field index. */
    uint32_t tag;
    /*
     * Fixed-size types (CONSTR, FUN, THUNK, TSO, static closures): number of
     * pointer words, which come first in the payload. RET_SMALL: frame size.
     */
    uint32_t ptrs;
    uint32_t nptrs; /* fixed-size types: non-pointer words after the pointers */
    union {
        StgWord small;               /* RET_SMALL: bit i set = slot i is a pointer */
        const StgLargeBitmap *large; /* RET_BIG */
    } bitmap;
    union {
        StgEntry thunk;  /* THUNK, THUNK_STATIC */
        StgFunEntry fun; /* FUN, FUN_STATIC */
    } entry;
    const char *name; /* "pkg:Module.Con" for constructors; a description otherwise */
    /*
     * Static reference table: the static closures this code (a THUNK, FUN,
     * their static forms, or a stack frame's continuation) may refer to,
     * ending with NULL; NULL for none. The collector follows SRTs to decide
     * which CAFs are still reachable. See Note [CAFs and SRTs] in
     * rts/sm/statics.h.
     */
    const struct StgClosure_ *const *srt;
} StgInfoTable;

/*
 * Convenience initialisers for compilers and tests that emit info tables
 * from C. Example: static const StgInfoTable node_info =
 *     HS_CONSTR_INFO(1, 2, 0, "main:Main.Node");
 */
#define HS_CONSTR_INFO(tag_, ptrs_, nptrs_, name_)                                         \
    {                                                                                      \
        .type = CONSTR, .tag = (tag_), .ptrs = (ptrs_), .nptrs = (nptrs_), .name = (name_) \
    }
#define HS_FUN_INFO(arity_, entry_, ptrs_, nptrs_, name_)                 \
    {                                                                     \
        .type = FUN, .tag = (arity_), .ptrs = (ptrs_), .nptrs = (nptrs_), \
        .entry = {.fun = (entry_)}, .name = (name_)                       \
    }
#define HS_THUNK_INFO(entry_, ptrs_, nptrs_, name_)                                      \
    {                                                                                    \
        .type = THUNK, .ptrs = (ptrs_), .nptrs = (nptrs_), .entry = {.thunk = (entry_)}, \
        .name = (name_)                                                                  \
    }
/* A CAF's info table: entry computes the value; srt lists the statics it uses. */
#define HS_THUNK_STATIC_INFO(entry_, srt_, name_)                                          \
    {                                                                                      \
        .type = THUNK_STATIC, .entry = {.thunk = (entry_)}, .name = (name_), .srt = (srt_) \
    }
#define HS_FUN_STATIC_INFO(arity_, entry_, srt_, name_)                                   \
    {                                                                                     \
        .type = FUN_STATIC, .tag = (arity_), .entry = {.fun = (entry_)}, .name = (name_), \
        .srt = (srt_)                                                                     \
    }
#define HS_SELECTOR_INFO(field_, name_)                          \
    {                                                            \
        .type = THUNK_SELECTOR, .tag = (field_), .name = (name_) \
    }
#define HS_RET_SMALL_INFO(size_, bitmap_, name_)                                            \
    {                                                                                       \
        .type = RET_SMALL, .ptrs = (size_), .bitmap = {.small = (bitmap_)}, .name = (name_) \
    }

#endif /* HSRTS_RTS_INFOTABLES_H */
