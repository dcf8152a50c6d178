/*
 * The job: shmem_init and shmem_finalize, who am I, barriers, ordering,
 * shmem_ptr, global exit, and the legacy names. See shmem_internal.h.
 *
 * Note [Where the symmetric heap lives]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Every PE maps its heap at the same address (HSRTS_SHMEM_BASE, default
 * SHMEM_ENV_DEFAULT_BASE), so a pointer from shmem_malloc means the same
 * block on every PE and needs no translation. The range is claimed from
 * the storage manager's address-space plan (mblock_claim_fixed, Note [The
 * symmetric region] in sm/mblock.h): the symmetric heap is outside the
 * collected heap, never HEAP_ALLOCED, so the collector neither moves nor
 * scans it, whether hs_init ran before shmem_init, after it, or never. If
 * something already occupies the range in some PE, the job stops with a
 * message naming the range and HSRTS_SHMEM_BASE.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Rts.h"
#include "messages.h"
#include "shmem.h"
#include "shmem/shmem_env.h"
#include "shmem/shmem_internal.h"
#include "sm/mblock.h"

ShmemJob shmem_job;

static bool backend_started;

void shmem_require_running(const char *call)
{
    switch (shmem_job.state) {
    case SHMEM_RUNNING:
        return;
    case SHMEM_UNINIT:
        msg_fatal(EXIT_BADFLAGS, "%s: called before shmem_init", call);
    case SHMEM_FINALIZED:
        msg_fatal(EXIT_BADFLAGS, "%s: called after shmem_finalize", call);
    case SHMEM_LEAVING:
        break;
    }
    msg_fatal(EXIT_BADFLAGS, "%s: called while the job is stopping", call);
}

static void vfail(const char *call, const char *fmt, va_list ap)
{
    char text[1024];
    vsnprintf(text, sizeof text, fmt, ap);
    msg_error("%s: %s", call, text);
}

void shmem_fail(const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(call, fmt, ap);
    va_end(ap);
    if (backend_started)
        shmem_job.backend->global_exit(EXIT_BADFLAGS);
    msg_exit(EXIT_BADFLAGS);
}

void shmem_fail_all(int status, const char *call, const char *fmt, ...)
{
    if (shmem_job.me == 0) {
        va_list ap;
        va_start(ap, fmt);
        vfail(call, fmt, ap);
        va_end(ap);
    }
    shmem_job.backend->exit_all(status);
}

void shmem_check_pe(const char *call, int pe)
{
    if (RTS_UNLIKELY(pe < 0 || pe >= shmem_job.n))
        shmem_fail(call, "PE %d does not exist (the job has PEs 0 to %d)", pe, shmem_job.n - 1);
}

uint64_t shmem_sym_offset(const char *call, const char *what, const void *addr, size_t bytes)
{
    uint64_t off = (uintptr_t)addr - shmem_job.base;
    if (RTS_UNLIKELY(off >= shmem_job.heap_bytes || bytes > shmem_job.heap_bytes - off)) {
        if (off < shmem_job.heap_bytes)
            shmem_fail(call, "%s %p + %zu bytes runs past the end of the symmetric heap (%p)", what,
                       addr, bytes, (void *)(shmem_job.base + shmem_job.heap_bytes));
        shmem_fail(call,
                   "%s %p is not in the symmetric heap [%p, %p); only its blocks are symmetric "
                   "(static and global variables are not)",
                   what, addr, (void *)shmem_job.base,
                   (void *)(shmem_job.base + shmem_job.heap_bytes));
    }
    return off;
}

/* ---- start-up ------------------------------------------------------------- */

/* The settings every PE must share, as one allgather record. */
typedef struct {
    uint64_t ok; /* the environment parsed */
    uint64_t heap_bytes;
    uint64_t base;
    uint64_t debug;
} Settings;

static void at_exit(int status, void *arg);

/* Agree on the settings: a bad or differing environment stops every PE the same way. */
static void agree_on_settings(ShmemJob *j)
{
    ShmemEnv env;
    char why[512] = "";
    Settings mine = {0};
    mine.ok = shmem_env_read(&env, NULL, why, sizeof why);
    if (mine.ok)
        mine = (Settings){1, env.heap_bytes, env.base, env.debug};
    Settings *all = calloc((size_t)j->n, sizeof *all);
    if (!all)
        msg_fatal(EXIT_INTERNAL_ERROR, "shmem_init: out of memory");
    j->backend->allgather(&mine, all, sizeof mine);
    int first_bad = -1;
    for (int pe = 0; pe < j->n && first_bad < 0; pe++)
        if (!all[pe].ok)
            first_bad = pe;
    if (first_bad >= 0) {
        /* The first PE that could not read its settings says why. */
        if (j->me == first_bad)
            msg_error("shmem_init: %s", why);
        free(all);
        j->backend->exit_all(EXIT_BADFLAGS);
    }
    for (int pe = 1; pe < j->n; pe++) {
        if (memcmp(&all[pe], &all[0], sizeof all[0]) != 0) {
            Settings a = all[0], b = all[pe];
            free(all);
            shmem_fail_all(EXIT_BADFLAGS, "shmem_init",
                           "the PEs' settings differ: PE 0 has a heap of %llu bytes at 0x%llx%s, "
                           "PE %d of %llu bytes at 0x%llx%s (SHMEM_SYMMETRIC_HEAP_SIZE, "
                           "HSRTS_SHMEM_BASE and SHMEM_DEBUG must be the same everywhere)",
                           (unsigned long long)a.heap_bytes, (unsigned long long)a.base,
                           a.debug ? " in debug mode" : "", pe, (unsigned long long)b.heap_bytes,
                           (unsigned long long)b.base, b.debug ? " in debug mode" : "");
        }
    }
    free(all);
    j->heap_bytes = env.heap_bytes;
    j->base = env.base;
    j->debug = env.debug;
    j->claim_bytes = (j->heap_bytes + MBLOCK_SIZE - 1) & ~(uint64_t)MBLOCK_MASK;
}

/* Claim the heap's address range in every PE, or stop them all. */
static void claim_range(ShmemJob *j)
{
    uint64_t ok = mblock_claim_fixed(j->base, j->claim_bytes), *all = calloc((size_t)j->n, 8);
    if (!all)
        msg_fatal(EXIT_INTERNAL_ERROR, "shmem_init: out of memory");
    j->backend->allgather(&ok, all, sizeof ok);
    for (int pe = 0; pe < j->n; pe++) {
        if (all[pe])
            continue;
        if (j->me == pe)
            msg_error("shmem_init: cannot place the symmetric heap at [0x%llx, 0x%llx): something "
                      "is mapped there in PE %d; set HSRTS_SHMEM_BASE to a free range",
                      (unsigned long long)j->base, (unsigned long long)(j->base + j->claim_bytes),
                      pe);
        free(all);
        if (ok)
            mblock_unclaim_fixed();
        j->backend->exit_all(EXIT_INTERNAL_ERROR);
    }
    free(all);
}

void shmem_init(void)
{
    ShmemJob *j = &shmem_job;
    if (j->state == SHMEM_RUNNING)
        shmem_fail("shmem_init", "called twice (the job is already running)");
    if (j->state != SHMEM_UNINIT)
        msg_fatal(EXIT_BADFLAGS, "shmem_init: called after shmem_finalize (a job starts once)");
    j->backend = shmem_backend_default();
    j->backend->start(j);
    backend_started = true;
    agree_on_settings(j);
    claim_range(j);
    j->backend->map_heap(j);
    shmem_heap_init(&j->heap, j->base, j->heap_bytes);
    j->state = SHMEM_RUNNING;
    static bool registered;
    if (!registered)
        on_exit(at_exit, NULL);
    registered = true;
    j->backend->barrier();
}

void start_pes(int npes)
{
    shmem_init();
    if (npes != 0 && npes != shmem_job.n)
        shmem_fail_all(EXIT_BADFLAGS, "start_pes",
                       "asked for %d PEs, but the job has %d (pass 0: the launcher decides)", npes,
                       shmem_job.n);
}

/* ---- shut-down ------------------------------------------------------------ */

void shmem_finalize(void)
{
    shmem_require_running("shmem_finalize");
    ShmemJob *j = &shmem_job;
    j->backend->quiet();
    j->backend->barrier();
    j->backend->finish(j);
    backend_started = false;
    mblock_unclaim_fixed();
    shmem_heap_exit(&j->heap);
    j->state = SHMEM_FINALIZED;
}

/*
 * OpenSHMEM finalizes a job whose program returns from main without
 * calling shmem_finalize. A PE that exits with an error does not: it
 * would wait in a barrier for PEs that go on; its backend stops the job.
 */
static void at_exit(int status, void *arg)
{
    (void)arg;
    if (shmem_job.state != SHMEM_RUNNING)
        return;
    if (status == 0) {
        shmem_finalize();
    } else {
        shmem_job.state = SHMEM_LEAVING;
        shmem_job.backend->abandon(status);
    }
}

void shmem_global_exit(int status)
{
    shmem_require_running("shmem_global_exit");
    shmem_job.backend->global_exit(status);
}

/* ---- who, and synchronisation --------------------------------------------- */

int shmem_my_pe(void)
{
    shmem_require_running("shmem_my_pe");
    return shmem_job.me;
}

int shmem_n_pes(void)
{
    shmem_require_running("shmem_n_pes");
    return shmem_job.n;
}

int _my_pe(void)
{
    shmem_require_running("_my_pe");
    return shmem_job.me;
}

int _num_pes(void)
{
    shmem_require_running("_num_pes");
    return shmem_job.n;
}

void shmem_info_get_version(int *major, int *minor)
{
    *major = SHMEM_MAJOR_VERSION;
    *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name)
{
    snprintf(name, SHMEM_MAX_NAME_LEN, "%s", SHMEM_VENDOR_STRING);
}

void shmem_barrier_all(void)
{
    shmem_require_running("shmem_barrier_all");
    if (shmem_job.debug)
        shmem_debug_check_barrier("shmem_barrier_all");
    shmem_job.backend->quiet();
    shmem_job.backend->barrier();
}

void shmem_sync_all(void)
{
    shmem_require_running("shmem_sync_all");
    if (shmem_job.debug)
        shmem_debug_check_barrier("shmem_sync_all");
    shmem_job.backend->barrier();
}

void shmem_quiet(void)
{
    shmem_require_running("shmem_quiet");
    shmem_job.backend->quiet();
}

void shmem_fence(void)
{
    shmem_require_running("shmem_fence");
    shmem_job.backend->fence();
}

/* ---- direct access -------------------------------------------------------- */

void *shmem_ptr(const void *dest, int pe)
{
    shmem_require_running("shmem_ptr");
    shmem_check_pe("shmem_ptr", pe);
    uint64_t off = (uintptr_t)dest - shmem_job.base;
    if (off >= shmem_job.heap_bytes)
        return NULL; /* not symmetric: OpenSHMEM's answer is NULL */
    if (pe == shmem_job.me)
        return (void *)dest;
    return shmem_job.peer ? shmem_job.peer[pe] + off : NULL;
}

int shmem_pe_accessible(int pe)
{
    shmem_require_running("shmem_pe_accessible");
    return pe >= 0 && pe < shmem_job.n;
}

int shmem_addr_accessible(const void *addr, int pe)
{
    shmem_require_running("shmem_addr_accessible");
    return pe >= 0 && pe < shmem_job.n && (uintptr_t)addr - shmem_job.base < shmem_job.heap_bytes;
}
