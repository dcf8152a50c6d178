/*
 * The symmetric heap's settings from the environment: its size
 * (SHMEM_SYMMETRIC_HEAP_SIZE, the seed's name, or SHMEM_SYMMETRIC_SIZE, the
 * OpenSHMEM specification's), its address (HSRTS_SHMEM_BASE) and the debug
 * mode (SHMEM_DEBUG). Pure parsing, no messages and no exits: the runtime
 * (shmem_init) and the launcher (tools/hsrts-shmemrun.c, which checks the
 * settings before starting any PE) each report a failure their own way.
 */
#ifndef RTS_SHMEM_SHMEM_ENV_H
#define RTS_SHMEM_SHMEM_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SHMEM_ENV_DEFAULT_HEAP ((uint64_t)256 << 20)
#define SHMEM_ENV_MAX_HEAP     ((uint64_t)1 << 40)
#define SHMEM_ENV_PAGE         ((uint64_t)4096)
/*
 * 64 TiB: on x86-64 and 48-bit arm64 Linux, below where position-independent
 * executables, brk and mmap put anything (0x555…, 0x7f…, 0xaaa…, 0xfff…),
 * and above anything a program maps by address in practice.
 */
#define SHMEM_ENV_DEFAULT_BASE ((uint64_t)0x400000000000)
/* The top of the user address space on 47-bit x86-64 (the smallest we run on). */
#define SHMEM_ENV_ADDR_LIMIT ((uint64_t)0x800000000000)

typedef struct {
    uint64_t heap_bytes;   /* the heap's size, rounded up to a page */
    uint64_t heap_asked;   /* as given (0: the default) */
    const char *heap_from; /* the variable it came from, or NULL for the default */
    uint64_t base;         /* where the heap starts in every PE */
    bool debug;            /* SHMEM_DEBUG=1 */
} ShmemEnv;

/*
 * Parse "<digits>[kKmMgG]" (powers of 1024). false if it is not a size or
 * overflows 64 bits.
 */
bool shmem_env_parse_size(const char *s, uint64_t *bytes);

/*
 * Read the settings from `getenv`-like `get` (NULL: the process's
 * environment). On a bad value return false with the reason in `why`, one
 * line naming the variable and its value.
 */
bool shmem_env_read(ShmemEnv *e, const char *(*get)(const char *name), char *why, size_t n);

#endif /* RTS_SHMEM_SHMEM_ENV_H */
