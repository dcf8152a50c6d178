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

/* Entry code of a THUNK (or AP): compute the value. See include/README.md. */
typedef struct StgClosure_ *(*StgEntry)(struct Capability_ *cap, struct StgClosure_ *self);

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
    StgEntry entry;   /* THUNK, AP, THUNK_STATIC: computes the value */
    const char *name; /* "pkg:Module.Con" for constructors; a description otherwise */
    const void *srt;  /* static reference table (static closures reachable from code) */
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
#define HS_FUN_INFO(arity_, ptrs_, nptrs_, name_)                                         \
    {                                                                                     \
        .type = FUN, .tag = (arity_), .ptrs = (ptrs_), .nptrs = (nptrs_), .name = (name_) \
    }
#define HS_THUNK_INFO(entry_, ptrs_, nptrs_, name_)                                           \
    {                                                                                         \
        .type = THUNK, .ptrs = (ptrs_), .nptrs = (nptrs_), .entry = (entry_), .name = (name_) \
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
