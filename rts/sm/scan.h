/*
 * What tracing does with each closure type: its scan class, written once
 * (STYLE.md: "what tracing does per closure type is written once").
 *
 * layout.h says where an object's pointer fields are; this file says which
 * of them a collector follows and what else it must do. The scavenger, the
 * sanity checker and every later marker take their rules from scan_info();
 * a rule such as "a thunk under evaluation has dead free variables" lives
 * here only (Note [Blackholed free variables]), and a marker that needs
 * another rule (a snapshot-at-the-beginning mark must keep what the
 * snapshot saw) asks for it with a flag instead of copying the switch.
 *
 * Note [Blackholed free variables]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A THUNK, AP or THUNK_SELECTOR whose update slot is set is under
 * evaluation: its entry code holds rooted copies of the free variables it
 * needs (Note [The evaluation protocol] in ../eval.c), so the thunk's own
 * fields are dead, and the copying collector turns it into a two-word
 * BLACKHOLE. Following them would keep consumed data alive (the space leak
 * blackholing exists to prevent). Its static reference table still counts.
 * A snapshot-at-the-beginning marker passes SCAN_KEEP_BLACKHOLED: what the
 * snapshot saw must be marked even if the thunk was entered after it.
 */
#ifndef RTS_SM_SCAN_H
#define RTS_SM_SCAN_H

#include "sm/layout.h"

typedef enum {
    SCAN_NONE,    /* no pointer fields to follow */
    SCAN_FIELDS,  /* follow the run of fields [ptr_off, ptr_off + n_ptrs) */
    SCAN_CODE,    /* FUN, THUNK, AP, THUNK_SELECTOR: the fields, and the SRT */
    SCAN_MUTABLE, /* MUT_VAR, SMALL_MUT_ARR_PTRS: the fields, not eagerly promoted; clean/dirty
                     after */
    SCAN_CARDS,   /* MUT_ARR_PTRS: the fields card by card; clean/dirty cards after */
    SCAN_WEAK,    /* WEAK: not followed by tracing; the weak phase (Note [Weak pointers]) */
    SCAN_TSO,   /* TSO: link and stackobj, not eagerly promoted; the spare chunk dies; dirty flag */
    SCAN_STACK, /* STACK: the pointer slots of every frame (layout_frame), and frames' SRTs */
} ScanClass;

typedef struct {
    ScanClass cls;
    uint32_t ptr_off; /* words from the header to the first field followed */
    uint32_t n_ptrs;  /* fields followed (0 for a thunk under evaluation: see the Note) */
    StgWord size;     /* object size in words */
    const StgClosure *const *srt; /* SCAN_CODE: the static reference table, or NULL */
} ScanInfo;

/* Flags for scan_info. */
#define SCAN_KEEP_BLACKHOLED 1u /* follow a thunk under evaluation's fields too */

/*
 * The scan class of a heap object (not a frame; the caller has checked the
 * info table). size 0 for an unknown type, as layout_of.
 */
RTS_INLINE ScanInfo scan_info(const StgClosure *q, const StgInfoTable *info, unsigned flags)
{
    uint32_t type = info->type;
    if (RTS_LIKELY(type == CONSTR))
        return (ScanInfo){SCAN_FIELDS, 1, info->ptrs, 1 + (StgWord)info->ptrs + info->nptrs, NULL};
    Layout l = layout_of(q, info);
    ScanInfo s = {SCAN_FIELDS, l.ptr_off, l.n_ptrs, l.size, NULL};
    switch (type) {
    case FUN:
        s.cls = SCAN_CODE;
        s.srt = info->srt;
        break;
    case THUNK:
    case AP:
    case THUNK_SELECTOR:
        s.cls = SCAN_CODE;
        s.srt = info->srt;
        /* See Note [Blackholed free variables]. */
        /* The flag first: a concurrent marker must not read the slot an update writes. */
        if (!(flags & SCAN_KEEP_BLACKHOLED) && (((const StgThunk *)q)->slot & 1))
            s.n_ptrs = 0;
        break;
    case MUT_VAR_CLEAN:
    case MUT_VAR_DIRTY:
    case SMALL_MUT_ARR_PTRS_CLEAN:
    case SMALL_MUT_ARR_PTRS_DIRTY:
    case SMALL_MUT_ARR_PTRS_FROZEN_CLEAN:
    case SMALL_MUT_ARR_PTRS_FROZEN_DIRTY:
        s.cls = SCAN_MUTABLE;
        break;
    case MUT_ARR_PTRS_CLEAN:
    case MUT_ARR_PTRS_DIRTY:
    case MUT_ARR_PTRS_FROZEN_CLEAN:
    case MUT_ARR_PTRS_FROZEN_DIRTY:
        s.cls = SCAN_CARDS;
        break;
    case WEAK:
        s.cls = SCAN_WEAK;
        break;
    case TSO:
        s.cls = SCAN_TSO;
        break;
    case STACK:
        s.cls = SCAN_STACK;
        break;
    default:
        if (s.n_ptrs == 0)
            s.cls = SCAN_NONE;
        break;
    }
    return s;
}

#endif /* RTS_SM_SCAN_H */
