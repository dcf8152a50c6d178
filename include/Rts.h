/*
 * hsrts umbrella header for generated code and embedders.
 */
#ifndef HSRTS_RTS_H
#define HSRTS_RTS_H

#include "HsFFI.h"
#include "RtsAPI.h"
#include "rts/Alloc.h"
#include "rts/Barriers.h"
#include "rts/ClosureTypes.h"
#include "rts/Closures.h"
#include "rts/Config.h"
#include "rts/Eval.h"
#include "rts/InfoTables.h"
#include "rts/Regs.h"
#include "rts/Roots.h"
#include "rts/Safepoints.h"
#include "rts/Stable.h"
#include "rts/StgInfo.h"
#include "rts/Trace.h"

/*
 * The ABI check (see HSRTS_ABI_VERSION in rts/Config.h): a reference the
 * linker must resolve in every object compiled against these headers.
 */
#define HSRTS_ABI_SYMBOL_(v) hsrts_abi_##v
#define HSRTS_ABI_SYMBOL(v)  HSRTS_ABI_SYMBOL_(v)
extern RTS_EXPORT const int HSRTS_ABI_SYMBOL(HSRTS_ABI_VERSION);
#if defined(__GNUC__)
__attribute__((used)) static const int *const hsrts_abi_check_ =
    &HSRTS_ABI_SYMBOL(HSRTS_ABI_VERSION);
#endif

/* Exit codes, as GHC's, and hsrts's names for the other two it uses. */
#define EXIT_INTERNAL_ERROR 254
#define EXIT_DEADLOCK       253
#define EXIT_INTERRUPTED    252
#define EXIT_HEAPOVERFLOW   251
#define EXIT_KILLED         250
#define EXIT_STACKOVERFLOW  2 /* the main thread's stack passed -K */
#define EXIT_BADFLAGS       1 /* bad RTS options, or the runtime misused */

#endif /* HSRTS_RTS_H */
