/*
 * hsrts public header: the Haskell 2010 foreign function interface.
 */
#ifndef HSRTS_HSFFI_H
#define HSRTS_HSFFI_H

#include <float.h>
#include <stdint.h>

#include "rts/Config.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t HsChar;
typedef StgInt HsInt;
typedef int8_t HsInt8;
typedef int16_t HsInt16;
typedef int32_t HsInt32;
typedef int64_t HsInt64;
typedef StgWord HsWord;
typedef uint8_t HsWord8;
typedef uint16_t HsWord16;
typedef uint32_t HsWord32;
typedef uint64_t HsWord64;
typedef float HsFloat;
typedef double HsDouble;
typedef StgInt HsBool;
typedef void *HsPtr;
typedef void (*HsFunPtr)(void);
typedef void *HsStablePtr;

#define HS_CHAR_MIN          0
#define HS_CHAR_MAX          0x10FFFF
#define HS_BOOL_FALSE        0
#define HS_BOOL_TRUE         1
#define HS_BOOL_MIN          HS_BOOL_FALSE
#define HS_BOOL_MAX          HS_BOOL_TRUE
#define HS_INT_MIN           INTPTR_MIN
#define HS_INT_MAX           INTPTR_MAX
#define HS_WORD_MAX          UINTPTR_MAX
#define HS_INT8_MIN          INT8_MIN
#define HS_INT8_MAX          INT8_MAX
#define HS_INT16_MIN         INT16_MIN
#define HS_INT16_MAX         INT16_MAX
#define HS_INT32_MIN         INT32_MIN
#define HS_INT32_MAX         INT32_MAX
#define HS_INT64_MIN         INT64_MIN
#define HS_INT64_MAX         INT64_MAX
#define HS_WORD8_MAX         UINT8_MAX
#define HS_WORD16_MAX        UINT16_MAX
#define HS_WORD32_MAX        UINT32_MAX
#define HS_WORD64_MAX        UINT64_MAX
#define HS_FLOAT_RADIX       FLT_RADIX
#define HS_FLOAT_ROUNDS      FLT_ROUNDS
#define HS_FLOAT_EPSILON     FLT_EPSILON
#define HS_FLOAT_DIG         FLT_DIG
#define HS_FLOAT_MANT_DIG    FLT_MANT_DIG
#define HS_FLOAT_MIN         FLT_MIN
#define HS_FLOAT_MIN_EXP     FLT_MIN_EXP
#define HS_FLOAT_MIN_10_EXP  FLT_MIN_10_EXP
#define HS_FLOAT_MAX         FLT_MAX
#define HS_FLOAT_MAX_EXP     FLT_MAX_EXP
#define HS_FLOAT_MAX_10_EXP  FLT_MAX_10_EXP
#define HS_DOUBLE_RADIX      DBL_RADIX
#define HS_DOUBLE_ROUNDS     DBL_ROUNDS
#define HS_DOUBLE_EPSILON    DBL_EPSILON
#define HS_DOUBLE_DIG        DBL_DIG
#define HS_DOUBLE_MANT_DIG   DBL_MANT_DIG
#define HS_DOUBLE_MIN        DBL_MIN
#define HS_DOUBLE_MIN_EXP    DBL_MIN_EXP
#define HS_DOUBLE_MIN_10_EXP DBL_MIN_10_EXP
#define HS_DOUBLE_MAX        DBL_MAX
#define HS_DOUBLE_MAX_EXP    DBL_MAX_EXP
#define HS_DOUBLE_MAX_10_EXP DBL_MAX_10_EXP

extern RTS_EXPORT void hs_init(int *argc, char **argv[]);
extern RTS_EXPORT void hs_exit(void);
extern RTS_EXPORT void hs_exit_nowait(void);
extern RTS_EXPORT void hs_thread_done(void);
extern RTS_EXPORT void hs_perform_gc(void);

/*
 * Freeing a stable pointer needs no capability. The stable-pointer table has
 * a lock, taken by every call that walks or changes the table, the
 * collector's walk included; a program may hold it itself to free many
 * stable pointers with hs_free_stable_ptr_unsafe, which expects it held.
 * Do not allocate or call into the runtime while holding it.
 */
extern RTS_EXPORT void hs_free_stable_ptr(HsStablePtr sp);
extern RTS_EXPORT void hs_free_stable_ptr_unsafe(HsStablePtr sp);
extern RTS_EXPORT void hs_lock_stable_ptr_table(void);
extern RTS_EXPORT void hs_unlock_stable_ptr_table(void);
extern RTS_EXPORT void hs_lock_stable_tables(void);   /* deprecated synonym */
extern RTS_EXPORT void hs_unlock_stable_tables(void); /* deprecated synonym */

#ifdef __cplusplus
}
#endif

#endif /* HSRTS_HSFFI_H */
