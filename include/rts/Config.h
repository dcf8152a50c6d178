/*
 * hsrts public header: machine words and the fixed geometry of the heap.
 *
 * These constants are part of the ABI: generated code bakes them in (the
 * large-object threshold decides which allocation path a compiler emits, the
 * card size decides how it marks array writes).
 */
#ifndef HSRTS_RTS_CONFIG_H
#define HSRTS_RTS_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#if UINTPTR_MAX != 0xffffffffffffffffu
#error "hsrts supports 64-bit targets only"
#endif

typedef uintptr_t StgWord;
typedef intptr_t StgInt;
typedef uint32_t StgHalfWord;
typedef uint64_t StgWord64;
typedef int64_t StgInt64;
typedef StgWord *StgPtr;
typedef StgWord W_;

#define WORD_SIZE       8
#define WORD_SIZE_SHIFT 3

/* Blocks are the unit of heap management, megablocks the unit of OS memory. */
#define BLOCK_SHIFT  12
#define BLOCK_SIZE   ((StgWord)1 << BLOCK_SHIFT)
#define BLOCK_SIZE_W (BLOCK_SIZE / WORD_SIZE)
#define BLOCK_MASK   (BLOCK_SIZE - 1)

#define MBLOCK_SHIFT 20
#define MBLOCK_SIZE  ((StgWord)1 << MBLOCK_SHIFT)
#define MBLOCK_MASK  (MBLOCK_SIZE - 1)

/*
 * Objects of at least this many bytes get a block group of their own and
 * are never copied (8/10 of a block, as GHC chooses).
 */
#define LARGE_OBJECT_THRESHOLD   ((BLOCK_SIZE * 8) / 10)
#define LARGE_OBJECT_THRESHOLD_W (LARGE_OBJECT_THRESHOLD / WORD_SIZE)

/* One card covers 2^7 = 128 elements of a MUT_ARR_PTRS. */
#define MUT_ARR_PTRS_CARD_BITS 7

/* Pointer tags live in the low bits freed by word alignment. */
#define TAG_BITS 3
#define TAG_MASK ((StgWord)((1 << TAG_BITS) - 1))

/*
 * The version of the compiled-code ABI: the object layouts, HsRegs, and
 * what the inline functions of these headers do. Every translation unit
 * that includes Rts.h refers to the symbol hsrts_abi_<version> (Rts.h), so
 * an object compiled against another version fails to link, naming it,
 * instead of corrupting the heap.
 */
#define HSRTS_ABI_VERSION 2

#if defined(__GNUC__)
#define RTS_LIKELY(c)   __builtin_expect(!!(c), 1)
#define RTS_UNLIKELY(c) __builtin_expect(!!(c), 0)
#define RTS_NORETURN    __attribute__((noreturn))
#define RTS_INLINE      static inline __attribute__((always_inline))
#define RTS_EXPORT      __attribute__((visibility("default")))
#else
#define RTS_LIKELY(c)   (c)
#define RTS_UNLIKELY(c) (c)
#define RTS_NORETURN
#define RTS_INLINE static inline
#define RTS_EXPORT
#endif

#endif /* HSRTS_RTS_CONFIG_H */
