/*
 * Run a command and print its wall time and peak RSS (for bench/*.sh):
 *     rss <command> [args...]   ->  "wall_s <sec> maxrss_kb <kb>" on stderr
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
    if (argc < 2) {
        fprintf(stderr, "usage: rss command [args...]\n");
        return 2;
    }
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pid_t pid = fork();
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
    fprintf(stderr, "wall_s %.3f maxrss_kb %ld\n", wall, ru.ru_maxrss);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}
