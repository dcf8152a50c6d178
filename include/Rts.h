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
#include "rts/InfoTables.h"
#include "rts/Regs.h"
#include "rts/Roots.h"
#include "rts/StgInfo.h"

/* Exit codes, as GHC's. */
#define EXIT_INTERNAL_ERROR 254
#define EXIT_DEADLOCK       253
#define EXIT_INTERRUPTED    252
#define EXIT_HEAPOVERFLOW   251
#define EXIT_KILLED         250

#endif /* HSRTS_RTS_H */
