/*
 * The symmetric heap's settings from the environment. See shmem_env.h.
 */
#include "shmem/shmem_env.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool shmem_env_parse_size(const char *s, uint64_t *bytes)
{
    if (!s || *s < '0' || *s > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE)
        return false;
    unsigned shift = 0;
    switch (*end) {
    case '\0':
        break;
    case 'k':
    case 'K':
        shift = 10;
        break;
    case 'm':
    case 'M':
        shift = 20;
        break;
    case 'g':
    case 'G':
        shift = 30;
        break;
    default:
        return false;
    }
    if (*end && end[1] != '\0')
        return false;
    if (shift && v > (UINT64_MAX >> shift))
        return false;
    *bytes = (uint64_t)v << shift;
    return true;
}

static const char *from_environ(const char *name)
{
    return getenv(name);
}

static const char *SIZE_HELP = "a whole number of bytes with an optional k, M or G suffix";

static bool read_size(const char *name, const char *v, uint64_t *bytes, char *why, size_t n)
{
    if (!shmem_env_parse_size(v, bytes)) {
        snprintf(why, n, "%s=%s: not a size (%s)", name, v, SIZE_HELP);
        return false;
    }
    if (*bytes == 0) {
        snprintf(why, n, "%s=%s: the symmetric heap needs at least 1 byte", name, v);
        return false;
    }
    if (*bytes > SHMEM_ENV_MAX_HEAP) {
        snprintf(why, n, "%s=%s: larger than the largest symmetric heap, %lluG", name, v,
                 (unsigned long long)(SHMEM_ENV_MAX_HEAP >> 30));
        return false;
    }
    return true;
}

bool shmem_env_read(ShmemEnv *e, const char *(*get)(const char *name), char *why, size_t n)
{
    if (!get)
        get = from_environ;
    memset(e, 0, sizeof *e);
    e->heap_bytes = SHMEM_ENV_DEFAULT_HEAP;
    e->base = SHMEM_ENV_DEFAULT_BASE;

    static const char *names[] = {"SHMEM_SYMMETRIC_HEAP_SIZE", "SHMEM_SYMMETRIC_SIZE"};
    for (int i = 0; i < 2; i++) {
        const char *v = get(names[i]);
        if (!v)
            continue;
        uint64_t bytes;
        if (!read_size(names[i], v, &bytes, why, n))
            return false;
        if (e->heap_from && bytes != e->heap_asked) {
            snprintf(why, n, "%s=%s and %s=%s disagree; set one of them", e->heap_from,
                     get(e->heap_from), names[i], v);
            return false;
        }
        e->heap_asked = bytes;
        e->heap_from = names[i];
    }
    if (e->heap_from)
        e->heap_bytes = (e->heap_asked + SHMEM_ENV_PAGE - 1) & ~(SHMEM_ENV_PAGE - 1);

    const char *v = get("SHMEM_DEBUG");
    if (v) {
        if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0) {
            snprintf(why, n, "SHMEM_DEBUG=%s: want 0 (off) or 1 (check every call's arguments)", v);
            return false;
        }
        e->debug = v[0] == '1';
    }

    v = get("HSRTS_SHMEM_BASE");
    if (v) {
        char *end;
        errno = 0;
        unsigned long long b = strtoull(v, &end, 0);
        if (*v < '0' || *v > '9' || *end || errno == ERANGE) {
            snprintf(why, n, "HSRTS_SHMEM_BASE=%s: not an address", v);
            return false;
        }
        if (b == 0 || b % ((uint64_t)1 << 20) != 0) {
            snprintf(why, n, "HSRTS_SHMEM_BASE=%s: not a non-zero multiple of 1 MiB", v);
            return false;
        }
        e->base = b;
    }
    /* The claim is whole megablocks. */
    uint64_t reserve = (e->heap_bytes + ((uint64_t)1 << 20) - 1) & ~(((uint64_t)1 << 20) - 1);
    if (e->base >= SHMEM_ENV_ADDR_LIMIT || SHMEM_ENV_ADDR_LIMIT - e->base < reserve) {
        snprintf(why, n,
                 "a symmetric heap of %llu bytes at 0x%llx would pass the end of the "
                 "address space (0x%llx); lower HSRTS_SHMEM_BASE or the heap size",
                 (unsigned long long)e->heap_bytes, (unsigned long long)e->base,
                 (unsigned long long)SHMEM_ENV_ADDR_LIMIT);
        return false;
    }
    return true;
}
