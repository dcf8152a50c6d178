/*
 * Run a command and report what it cost, for bench/run.sh:
 *
 *     rss <command> [args...]
 *
 * prints on stderr, after the command's own output,
 *
 *     wall_s <s> maxrss_kb <kb> user_s <s> sys_s <s> status <n>
 *
 * Wall time is measured around fork and wait4; peak RSS and CPU times come
 * from the child's rusage. The exit status is the command's (128 + signal
 * when it was killed).
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(struct timeval t)
{
    return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

int main(int argc, char *argv[])
{
    if (argc < 2) {
        fprintf(stderr, "usage: rss command [args...]\n");
        return 2;
    }
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pid_t pid = fork();
    if (pid < 0) {
        perror("rss: fork");
        return 2;
    }
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        perror("rss: exec");
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) {
        perror("rss: wait4");
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double wall = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    fprintf(stderr, "wall_s %.3f maxrss_kb %ld user_s %.3f sys_s %.3f status %d\n", wall,
            ru.ru_maxrss, seconds(ru.ru_utime), seconds(ru.ru_stime), code);
    return code;
}
