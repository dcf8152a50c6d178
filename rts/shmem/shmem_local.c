/*
 * The local backend: PEs are processes on one machine, started by
 * tools/hsrts-shmemrun (or a program run on its own: a job of one PE).
 * Each PE's heap is a MAP_SHARED mapping of its part of one memfd, at the
 * symmetric address in its own process; every PE also maps all the heaps
 * at some private address (the peer view), so put and get are memcpy and
 * shmem_ptr works for every PE. See shmem_local.h for the file's layout.
 *
 * Note [The local barrier]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * A central counter and a generation word in the shared control area.
 * Each PE increments bar_count; the last to arrive resets it, then bumps
 * bar_gen, then wakes any sleepers. The others wait for bar_gen to move:
 * spinning for at most SPIN_NS (1 µs: a barrier among PEs that each have
 * a core completes within it; no spinning at all when the job has more PEs
 * than the launcher has CPUs, HSRTS_SHMEM_CPUS, since a spinning waiter then
 * only keeps a late PE off its core), then calling sched_yield until YIELD_NS
 * more have passed (when PEs outnumber cores, the late ones get the core
 * at once, without the cost of a futex wake-up and a scheduler round
 * trip; bench/README.md has the numbers), then sleeping on bar_gen with
 * FUTEX_WAIT, so eight PEs on two cores do not burn the cores the late
 * PEs need. The
 * count is reset before the generation moves, so a PE released early that
 * arrives at the next barrier counts towards that one. `sleepers` spares
 * the wake system call when nobody sleeps: a waiter announces itself and
 * then re-checks bar_gen, the last arriver publishes bar_gen and then reads
 * sleepers (all sequentially consistent), so at least one of them sees the
 * other. A sleeper also wakes when the launcher or a PE sets `stop`: a
 * global exit (everyone exits with its status) or a PE that exited before
 * finishing (the barrier could never complete: the job stops with a
 * message instead of hanging). `stop` is not the futex word, so its wake
 * can fall between a waiter's check and its sleep; sleeps are bounded
 * (STOP_CHECK_NS) so such a waiter notices within that. Completions cannot
 * be missed: bar_gen is the futex word.
 */
#include "shmem/shmem_local.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sched.h>
#include <time.h>

#include "Rts.h"
#include "messages.h"
#include "shmem/shmem_internal.h"

_Static_assert(SHMEM_LOCAL_GATHER == SHMEM_GATHER_MAX, "allgather record sizes");

/* Note [The local barrier]: how long a waiter spins, then yields, before it sleeps. */
#define SPIN_NS  1000u
#define YIELD_NS 4000u
/* The longest a sleeping waiter goes without looking at `stop`. */
#define STOP_CHECK_NS 100000000L

static ShmemLocalCtrl *ctrl;
/* More PEs than CPUs this process may use: spinning in a barrier only delays the late PEs. */
static bool oversubscribed;
static uint64_t ctrl_bytes;
static int mem_fd = -1;
static int my_pe;
static unsigned gather_seq;
static uint8_t *view; /* every PE's heap, PE k's at view + k * heap_bytes */
static uint64_t view_bytes;

RTS_NORETURN static void os_failure(const char *what)
{
    msg_sys_error("shmem_init: %s", what);
    msg_exit(EXIT_INTERNAL_ERROR);
}

static void map_ctrl(uint32_t n)
{
    ctrl_bytes = shmem_local_ctrl_bytes(n);
    void *p = mmap(NULL, ctrl_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, mem_fd, 0);
    if (p == MAP_FAILED)
        os_failure("cannot map the PEs' control area");
    ctrl = p;
}

/* A number from the launcher's environment, in [lo, hi]. */
static long launcher_int(const char *name, const char *v, long lo, long hi)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (*v == '\0' || *end || errno || x < lo || x > hi)
        msg_fatal(EXIT_BADFLAGS,
                  "shmem_init: %s=%s: not a number from %ld to %ld (hsrts-shmemrun sets it)", name,
                  v, lo, hi);
    return x;
}

static void local_start(ShmemJob *j)
{
    const char *sfd = getenv("HSRTS_SHMEM_FD");
    const char *spe = getenv("HSRTS_SHMEM_PE");
    const char *sn = getenv("HSRTS_SHMEM_NPES");
    if (!sfd && !spe && !sn) {
        /* On its own: a job of one PE, with a control area of its own. */
        mem_fd = memfd_create("hsrts-shmem", MFD_CLOEXEC);
        if (mem_fd < 0)
            os_failure("cannot create the symmetric heap's memory");
        if (ftruncate(mem_fd, (off_t)shmem_local_ctrl_bytes(1)) != 0)
            os_failure("cannot size the symmetric heap's memory");
        map_ctrl(1);
        ctrl->magic = SHMEM_LOCAL_MAGIC;
        ctrl->n_pes = 1;
        j->me = 0;
        j->n = 1;
    } else {
        if (!sfd || !spe || !sn)
            msg_fatal(EXIT_BADFLAGS,
                      "shmem_init: HSRTS_SHMEM_FD, HSRTS_SHMEM_PE and HSRTS_SHMEM_NPES are set "
                      "together, by hsrts-shmemrun (only %s%s%s%s%s is set)",
                      sfd ? "HSRTS_SHMEM_FD" : "", sfd && (spe || sn) ? " and " : "",
                      spe ? "HSRTS_SHMEM_PE" : "", spe && sn ? " and " : "",
                      sn ? "HSRTS_SHMEM_NPES" : "");
        long n = launcher_int("HSRTS_SHMEM_NPES", sn, 1, SHMEM_LOCAL_MAX_PES);
        long pe = launcher_int("HSRTS_SHMEM_PE", spe, 0, n - 1);
        mem_fd = (int)launcher_int("HSRTS_SHMEM_FD", sfd, 0, 1 << 30);
        struct stat st;
        if (fstat(mem_fd, &st) != 0 || (uint64_t)st.st_size < shmem_local_ctrl_bytes((uint32_t)n))
            msg_fatal(EXIT_BADFLAGS,
                      "shmem_init: HSRTS_SHMEM_FD=%s is not the launcher's memory (start the PEs "
                      "with hsrts-shmemrun)",
                      sfd);
        fcntl(mem_fd, F_SETFD, FD_CLOEXEC); /* not for the programs a PE runs */
        map_ctrl((uint32_t)n);
        if (ctrl->magic != SHMEM_LOCAL_MAGIC || ctrl->n_pes != (uint32_t)n)
            msg_fatal(EXIT_BADFLAGS,
                      "shmem_init: HSRTS_SHMEM_FD=%s is not the launcher's memory (start the PEs "
                      "with hsrts-shmemrun)",
                      sfd);
        j->me = (int)pe;
        j->n = (int)n;
    }
    my_pe = j->me;
    /* The launcher's CPU count: a PE's own mask may be one CPU (hsrts-shmemrun --bind-to). */
    const char *scpus = getenv("HSRTS_SHMEM_CPUS");
    long cpus = scpus ? atol(scpus) : 0;
    oversubscribed = cpus > 0 && j->n > cpus;
    atomic_store(&ctrl->pe[my_pe].state, SHMEM_PE_RUNNING);
}

/* ---- the barrier (Note [The local barrier]) ------------------------------- */

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void cpu_relax(void)
{
#if defined(__x86_64__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

RTS_NORETURN static void local_global_exit(int status);

/* Someone set stop: leave as the job leaves. */
static void obey_stop(uint32_t stop)
{
    if (stop & SHMEM_STOP_GLOBAL_EXIT) {
        shmem_job.state = SHMEM_LEAVING;
        fflush(NULL);
        exit(atomic_load(&ctrl->exit_status));
    }
    for (uint32_t pe = 0; pe < ctrl->n_pes; pe++) {
        if (atomic_load(&ctrl->pe[pe].state) != SHMEM_PE_GONE)
            continue;
        if (atomic_exchange(&ctrl->reported, 1) == 0)
            msg_error("shmem: PE %u exited without calling shmem_finalize, so no barrier can "
                      "complete; stopping the job",
                      pe);
        local_global_exit(EXIT_BADFLAGS);
    }
}

static void local_barrier(void)
{
    uint32_t n = ctrl->n_pes;
    uint32_t gen = atomic_load(&ctrl->bar_gen);
    if (atomic_fetch_add(&ctrl->bar_count, 1) == n - 1) {
        atomic_store(&ctrl->bar_count, 0);
        atomic_fetch_add(&ctrl->bar_gen, 1);
        if (atomic_load(&ctrl->sleepers))
            shmem_local_wake_all(ctrl);
        return;
    }
    const struct timespec stop_check = {0, STOP_CHECK_NS};
    uint64_t start = now_ns();
    for (unsigned i = 1; !oversubscribed; i++) {
        if (atomic_load_explicit(&ctrl->bar_gen, memory_order_acquire) != gen)
            return;
        cpu_relax();
        if (i % 16 == 0 && now_ns() - start > SPIN_NS)
            break;
    }
    while (now_ns() - start < SPIN_NS + YIELD_NS) {
        if (atomic_load_explicit(&ctrl->bar_gen, memory_order_acquire) != gen)
            return;
        sched_yield();
    }
    for (;;) {
        atomic_fetch_add(&ctrl->sleepers, 1);
        if (atomic_load(&ctrl->bar_gen) == gen && !atomic_load(&ctrl->stop))
            syscall(SYS_futex, &ctrl->bar_gen, FUTEX_WAIT, gen, &stop_check, NULL, 0);
        atomic_fetch_sub(&ctrl->sleepers, 1);
        if (atomic_load(&ctrl->bar_gen) != gen)
            return;
        uint32_t stop = atomic_load(&ctrl->stop);
        if (stop)
            obey_stop(stop);
    }
}

/*
 * Records are double-buffered by call number: the record of call k is
 * overwritten by call k+2, whose barrier no PE passes before every PE has
 * left call k+1, and so finished reading call k's records.
 */
static void local_allgather(const void *mine, void *all, size_t bytes)
{
    unsigned b = gather_seq++ & 1;
    memcpy(ctrl->pe[my_pe].gather[b], mine, bytes);
    local_barrier();
    for (uint32_t pe = 0; pe < ctrl->n_pes; pe++)
        memcpy((uint8_t *)all + pe * bytes, ctrl->pe[pe].gather[b], bytes);
}

/* ---- the heaps ------------------------------------------------------------ */

static void local_map_heap(ShmemJob *j)
{
    uint64_t total = ctrl_bytes + (uint64_t)j->n * j->heap_bytes;
    struct stat st;
    /* Every PE extends the file to the same size (agreed in shmem_init): never shrinks it. */
    if (fstat(mem_fd, &st) != 0 ||
        ((uint64_t)st.st_size < total && ftruncate(mem_fd, (off_t)total)))
        os_failure("cannot size the symmetric heaps' memory");
    void *p = mmap((void *)j->base, j->heap_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                   mem_fd, (off_t)(ctrl_bytes + (uint64_t)j->me * j->heap_bytes));
    if (p != (void *)j->base)
        os_failure("cannot map the symmetric heap");
    j->peer = malloc((size_t)j->n * sizeof *j->peer);
    if (!j->peer)
        os_failure("out of memory");
    if (j->n > 1) {
        view_bytes = (uint64_t)j->n * j->heap_bytes;
        view =
            mmap(NULL, view_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, mem_fd, (off_t)ctrl_bytes);
        if (view == MAP_FAILED)
            os_failure("cannot map the other PEs' symmetric heaps");
        for (int pe = 0; pe < j->n; pe++)
            j->peer[pe] = view + (uint64_t)pe * j->heap_bytes;
    }
    j->peer[j->me] = (uint8_t *)j->base;
}

static void local_put(uint64_t off, const void *src, size_t bytes, int pe)
{
    memcpy(shmem_job.peer[pe] + off, src, bytes);
}

static void local_get(void *dst, uint64_t off, size_t bytes, int pe)
{
    memcpy(dst, shmem_job.peer[pe] + off, bytes);
}

/* Stores to shared memory are complete once issued; order them. */
static void local_quiet(void)
{
    atomic_thread_fence(memory_order_seq_cst);
}

static void local_fence(void)
{
    atomic_thread_fence(memory_order_seq_cst);
}

static void local_global_exit(int status)
{
    shmem_job.state = SHMEM_LEAVING;
    fflush(NULL);
    /* The first PE to stop the job decides its status, and publishes it before the stop bit. */
    if (ctrl && atomic_exchange(&ctrl->exit_claimed, 1) == 0) {
        atomic_store(&ctrl->exit_status, status);
        atomic_fetch_or(&ctrl->stop, SHMEM_STOP_GLOBAL_EXIT);
        shmem_local_wake_all(ctrl);
    }
    exit(status);
}

static void local_finish(ShmemJob *j)
{
    atomic_store(&ctrl->pe[my_pe].state, SHMEM_PE_FINALIZED);
    if (view)
        munmap(view, view_bytes);
    view = NULL;
    free(j->peer);
    j->peer = NULL;
    munmap(ctrl, ctrl_bytes);
    ctrl = NULL;
    close(mem_fd);
    mem_fd = -1;
}

static void local_abandon(int status)
{
    (void)status; /* the launcher sees the exit status and stops the job */
}

const ShmemBackend shmem_local_backend = {
    .name = "local",
    .start = local_start,
    .map_heap = local_map_heap,
    .barrier = local_barrier,
    .allgather = local_allgather,
    .put = local_put,
    .get = local_get,
    .quiet = local_quiet,
    .fence = local_fence,
    .global_exit = local_global_exit,
    .exit_all = local_global_exit,
    .finish = local_finish,
    .abandon = local_abandon,
};
