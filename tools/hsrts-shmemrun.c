/*
 * hsrts-shmemrun: start an OpenSHMEM program as n PEs on this machine (the
 * local backend of rts/shmem; see tools/README.md).
 *
 *     hsrts-shmemrun [--bind-to core|none] -np <n> prog args...      (also -n <n>)
 *
 * Binding: when every PE can have a CPU of its own (n at most the CPUs of
 * the launcher's affinity mask), PE i is bound to the i-th of those CPUs
 * (--bind-to core, the default, as Open MPI's mpirun/oshrun binds small
 * jobs to cores): a PE spinning in a barrier then never shares a core with
 * the PE it waits for. With more PEs than CPUs, or --bind-to none, PEs are
 * not bound.
 *
 * It checks the symmetric heap's settings (SHMEM_SYMMETRIC_HEAP_SIZE, ...)
 * before starting anything, creates the memory the PEs share (a memfd
 * holding the control area; the PEs add their heaps), starts n copies of
 * the program with HSRTS_SHMEM_FD, HSRTS_SHMEM_PE and HSRTS_SHMEM_NPES set,
 * and waits for them:
 *
 *  - all exit with status 0: exit 0;
 *  - a PE calls shmem_global_exit(s), or the runtime stops the job after
 *    printing why: the others leave by themselves (or are stopped after a
 *    grace period) and the launcher exits s, saying nothing more;
 *  - a PE is killed by a signal, exits non-zero, or exits without
 *    shmem_finalize after shmem_init: one line naming the PE, its pid and
 *    what happened, the others are stopped (SIGTERM, then SIGKILL), and the
 *    launcher exits with the PE's status (128 + the signal for a signal);
 *  - a PE exits with status 0 without ever calling shmem_init: the others
 *    are told (a PE waiting in a barrier for it stops the job with a
 *    message) and the launcher goes on waiting.
 *
 * If the launcher dies, the kernel kills the PEs (PR_SET_PDEATHSIG).
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shmem/shmem_env.h"
#include "shmem/shmem_local.h"

#define ME                  "hsrts-shmemrun"
#define GRACE_MS_GLOBAL     500  /* after a global exit, before SIGTERM */
#define GRACE_MS_TERM       2000 /* after SIGTERM, before SIGKILL */
#define EXIT_USAGE          1
#define EXIT_PROGRAM_ABSENT 127

static pid_t *pids; /* 0 once reaped */
static int n_pes;
static volatile sig_atomic_t got_signal;

static void usage(FILE *f)
{
    fprintf(f, "Usage: " ME " [--bind-to core|none] -np <n> <program> [args...]\n"
               "       " ME " [--bind-to core|none] -n <n> <program> [args...]\n"
               "\n"
               "Runs <program> as <n> OpenSHMEM processing elements (PEs) on this machine, each\n"
               "with its symmetric heap in memory shared with the others. The heap's size is\n"
               "SHMEM_SYMMETRIC_HEAP_SIZE (or SHMEM_SYMMETRIC_SIZE): bytes with an optional\n"
               "k, M or G suffix, default 256M. SHMEM_DEBUG=1 checks that every PE passes the\n"
               "same arguments to every collective call. If a PE dies, the others are stopped\n"
               "and " ME " exits with its status (128 + signal for a signal).\n"
               "\n"
               "--bind-to core (the default) binds PE i to the i-th CPU this process may run on\n"
               "when there are at least <n> of them; --bind-to none leaves the PEs unbound.\n");
}

static void die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void die(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, ME ": ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(status);
}

static int parse_count(const char *flag, const char *v)
{
    char *end;
    errno = 0;
    long n = v ? strtol(v, &end, 10) : 0;
    if (!v || *v == '\0' || *end || errno || n < 1 || n > SHMEM_LOCAL_MAX_PES)
        die(EXIT_USAGE, "%s %s: the number of PEs must be from 1 to %d", flag, v ? v : "(missing)",
            SHMEM_LOCAL_MAX_PES);
    return (int)n;
}

/* Is `prog` something execvp can run? (So a typo fails once, not n times.) */
static bool runnable(const char *prog)
{
    if (strchr(prog, '/'))
        return access(prog, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    char buf[4096];
    for (const char *p = path;; p = strchr(p, ':') + 1) {
        size_t len = strchr(p, ':') ? (size_t)(strchr(p, ':') - p) : strlen(p);
        snprintf(buf, sizeof buf, "%.*s/%s", (int)len, len ? p : ".", prog);
        struct stat st;
        if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
            return true;
        if (!strchr(p, ':'))
            return false;
    }
}

static void on_signal(int sig)
{
    got_signal = sig;
    for (int i = 0; i < n_pes; i++)
        if (pids[i] > 0)
            kill(pids[i], sig);
}

static long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

static int pe_of(pid_t pid)
{
    for (int i = 0; i < n_pes; i++)
        if (pids[i] == pid)
            return i;
    return -1;
}

static int n_running(void)
{
    int k = 0;
    for (int i = 0; i < n_pes; i++)
        k += pids[i] > 0;
    return k;
}

/* Reap whatever has exited within `ms` (0: wait for one exit). */
static pid_t reap(int *status, long ms)
{
    long until = now_ms() + ms;
    for (;;) {
        pid_t p = waitpid(-1, status, ms ? WNOHANG : 0);
        if (p > 0 || (p < 0 && errno != EINTR))
            return p;
        if (ms && (p == 0 || errno == EINTR)) {
            if (now_ms() >= until)
                return 0;
            struct timespec t = {0, 5 * 1000000L};
            nanosleep(&t, NULL);
        }
    }
}

/* Stop every PE still running: wait `grace` ms for them, then SIGTERM, then SIGKILL. */
static void stop_all(long grace)
{
    int st;
    for (int round = 0; round < 3 && n_running(); round++) {
        if (round == 1 || round == 2)
            for (int i = 0; i < n_pes; i++)
                if (pids[i] > 0)
                    kill(pids[i], round == 1 ? SIGTERM : SIGKILL);
        long until = now_ms() + (round == 0 ? grace : GRACE_MS_TERM);
        while (n_running()) {
            long left = until - now_ms();
            if (left <= 0 && round < 2)
                break;
            pid_t p = reap(&st, round < 2 ? left : 0);
            if (p <= 0)
                continue;
            int pe = pe_of(p);
            if (pe >= 0)
                pids[pe] = 0;
        }
    }
}

static void describe(char *buf, size_t n, int pe, pid_t pid, int st, bool finalized_missing)
{
    if (WIFSIGNALED(st))
        snprintf(buf, n, "PE %d (pid %d) was killed by signal %d (%s)", pe, (int)pid, WTERMSIG(st),
                 strsignal(WTERMSIG(st)));
    else if (finalized_missing)
        snprintf(buf, n, "PE %d (pid %d) exited with status 0 without calling shmem_finalize", pe,
                 (int)pid);
    else
        snprintf(buf, n, "PE %d (pid %d) exited with status %d", pe, (int)pid, WEXITSTATUS(st));
}

/*
 * With binding, the CPUs PE i may use: the i-th CPU of the launcher's mask.
 * false: no binding (not asked for, or fewer CPUs than PEs).
 */
static bool cpu_for_pe(const cpu_set_t *allowed, int n, int pe, cpu_set_t *one)
{
    if (CPU_COUNT(allowed) < n)
        return false;
    int seen = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, allowed) && seen++ == pe) {
            CPU_ZERO(one);
            CPU_SET(cpu, one);
            return true;
        }
    return false;
}

int main(int argc, char **argv)
{
    int n = 0, i = 1;
    bool bind_cores = true;
    while (i < argc && argv[i][0] == '-') {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "-np") || !strcmp(a, "-n") || !strcmp(a, "--np")) {
            n = parse_count(a, i + 1 < argc ? argv[i + 1] : NULL);
            i += 2;
        } else if (!strcmp(a, "--bind-to")) {
            const char *v = i + 1 < argc ? argv[i + 1] : NULL;
            if (!v || (strcmp(v, "core") != 0 && strcmp(v, "none") != 0))
                die(EXIT_USAGE, "--bind-to takes core or none, not '%s'", v ? v : "");
            bind_cores = !strcmp(v, "core");
            i += 2;
        } else if (!strcmp(a, "--")) {
            i++;
            break;
        } else {
            die(EXIT_USAGE, "unknown option '%s' (try " ME " --help)", a);
        }
    }
    if (n == 0)
        die(EXIT_USAGE, "say how many PEs with -np <n> (try " ME " --help)");
    if (i >= argc)
        die(EXIT_USAGE, "no program to run (try " ME " --help)");
    char **prog = &argv[i];
    if (!runnable(prog[0]))
        die(EXIT_PROGRAM_ABSENT, "%s: no such program, or it is not executable", prog[0]);

    /* Bad settings fail here once, not in every PE. */
    ShmemEnv env;
    char why[512];
    if (!shmem_env_read(&env, NULL, why, sizeof why))
        die(EXIT_USAGE, "%s", why);

    uint64_t ctrl_bytes = shmem_local_ctrl_bytes((uint32_t)n);
    int fd = memfd_create("hsrts-shmem", 0); /* inherited by the PEs */
    if (fd < 0 || ftruncate(fd, (off_t)ctrl_bytes) != 0)
        die(254, "cannot create the PEs' shared memory: %s", strerror(errno));
    ShmemLocalCtrl *ctrl = mmap(NULL, ctrl_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ctrl == MAP_FAILED)
        die(254, "cannot map the PEs' shared memory: %s", strerror(errno));
    ctrl->magic = SHMEM_LOCAL_MAGIC;
    ctrl->n_pes = (uint32_t)n;

    pids = calloc((size_t)n, sizeof *pids);
    if (!pids)
        die(254, "out of memory");
    n_pes = n;
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        bind_cores = false;

    pid_t parent = getpid();
    char sfd[16], spe[16], sn[16], scpus[16];
    snprintf(scpus, sizeof scpus, "%d",
             CPU_COUNT(&allowed) > 0 ? CPU_COUNT(&allowed) : (int)sysconf(_SC_NPROCESSORS_ONLN));
    snprintf(sfd, sizeof sfd, "%d", fd);
    snprintf(sn, sizeof sn, "%d", n);
    fflush(NULL);
    for (int pe = 0; pe < n; pe++) {
        pid_t p = fork();
        if (p < 0) {
            fprintf(stderr, ME ": cannot start PE %d: %s\n", pe, strerror(errno));
            stop_all(0);
            return 254;
        }
        if (p == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent)
                _exit(EXIT_USAGE);
            signal(SIGINT, SIG_DFL);
            signal(SIGTERM, SIG_DFL);
            signal(SIGHUP, SIG_DFL);
            snprintf(spe, sizeof spe, "%d", pe);
            setenv("HSRTS_SHMEM_FD", sfd, 1);
            setenv("HSRTS_SHMEM_PE", spe, 1);
            setenv("HSRTS_SHMEM_NPES", sn, 1);
            setenv("HSRTS_SHMEM_CPUS", scpus, 1); /* more PEs than CPUs: barriers do not spin */
            cpu_set_t one;
            if (bind_cores && cpu_for_pe(&allowed, n, pe, &one))
                (void)sched_setaffinity(0, sizeof one, &one); /* best effort, as mpirun's */
            execvp(prog[0], prog);
            fprintf(stderr, ME ": PE %d: cannot run %s: %s\n", pe, prog[0], strerror(errno));
            _exit(EXIT_PROGRAM_ABSENT);
        }
        pids[pe] = p;
    }

    int result = 0;
    while (n_running()) {
        int st;
        pid_t p = reap(&st, 0);
        if (p < 0)
            break;
        int pe = pe_of(p);
        if (pe < 0)
            continue;
        pids[pe] = 0;
        uint32_t state = atomic_load(&ctrl->pe[pe].state);
        bool ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
        if (state != SHMEM_PE_FINALIZED) {
            atomic_store(&ctrl->pe[pe].state, SHMEM_PE_GONE);
            if (ok && state == SHMEM_PE_STARTED) {
                atomic_fetch_or(&ctrl->stop, SHMEM_STOP_PE_GONE);
                shmem_local_wake_all(ctrl);
            }
        }
        if (got_signal) {
            stop_all(0);
            result = 128 + got_signal;
            break;
        }
        if (atomic_load(&ctrl->stop) & SHMEM_STOP_GLOBAL_EXIT) {
            /* The job was stopped on purpose; whoever stopped it said why. */
            result = atomic_load(&ctrl->exit_status);
            stop_all(GRACE_MS_GLOBAL);
            break;
        }
        bool no_finalize = ok && state == SHMEM_PE_RUNNING;
        if (ok && !no_finalize)
            continue;
        char what[256];
        describe(what, sizeof what, pe, p, st, no_finalize);
        int others = n_running();
        if (others)
            fprintf(stderr, ME ": %s; stopping the other %d PE%s\n", what, others,
                    others == 1 ? "" : "s");
        else
            fprintf(stderr, ME ": %s\n", what);
        result = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : no_finalize ? 1 : WEXITSTATUS(st);
        stop_all(0);
        break;
    }
    if (got_signal && !result)
        result = 128 + got_signal;
    return result;
}
