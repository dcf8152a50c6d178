/*
 * Questions the collector's later phases ask about an object once
 * scavenging has reached its fixed point (weak pointers, stable names).
 */
#ifndef RTS_SM_GC_UTIL_H
#define RTS_SM_GC_UTIL_H

#include <stdbool.h>

#include "Rts.h"

/*
 * Is *p alive after this collection? If so, update *p to the object's new
 * address (keeping the tag) and say true. Static closures and objects of
 * generations not being collected are alive; indirections are followed.
 * NULL counts as alive (there is nothing to lose).
 */
bool gc_is_alive(StgClosure **p);

#endif /* RTS_SM_GC_UTIL_H */
