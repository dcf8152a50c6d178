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
#include "rts/Stable.h"
#include "rts/StgInfo.h"
#include "rts/Trace.h"

/* Exit codes, as GHC's, and hsrts's names for the other two it uses. */
#define EXIT_INTERNAL_ERROR 254
#define EXIT_DEADLOCK       253
#define EXIT_INTERRUPTED    252
#define EXIT_HEAPOVERFLOW   251
#define EXIT_KILLED         250
#define EXIT_STACKOVERFLOW  2 /* the main thread's stack passed -K */
#define EXIT_BADFLAGS       1 /* bad RTS options, or the runtime misused */

#endif /* HSRTS_RTS_H */
