/* mctb.c — the small tools scripts/bench needs, on CLOCK_MONOTONIC (the
 * clock of System.nanoTime in HotSpot on Linux, so that the times line up
 * with the workload's):
 *
 *   mctb now                   prints the time in ns
 *   mctb stamp [-t N] CMD ...  runs CMD and prints each line of its stdout
 *                              and stderr as it arrives, "NS o LINE" or
 *                              "NS e LINE" (lines cut after N bytes, 200 by
 *                              default), after "# start NS PID" and before
 *                              "# exit NS STATUS"; exits with CMD's status
 *                              (128 + signal when killed); SIGINT and SIGTERM
 *                              are passed on to CMD
 *   mctb rss PID MS            prints "NS VMRSS_KB VMHWM_KB" of PID every MS
 *                              ms until PID is gone
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static int usage(void)
{
    fprintf(stderr, "usage: mctb now | mctb stamp [-t N] CMD [ARG...] | mctb rss PID MS\n");
    return 2;
}

/* --- stamp ------------------------------------------------------------------------------ */

static volatile sig_atomic_t child;

static void pass_on(int sig)
{
    if (child > 0)
        kill((pid_t)child, sig);
}

struct stream {
    int fd;
    char tag;
    char *line;       /* the current line's first bytes */
    size_t len, max;  /* kept, and at most kept */
};

/* Takes n bytes read at time t: prints every line they complete. */
static void take(struct stream *s, const char *p, size_t n, unsigned long long t)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (p[i] == '\n') {
            printf("%llu %c %.*s\n", t, s->tag, (int)s->len, s->line);
            s->len = 0;
        } else if (s->len < s->max) {
            s->line[s->len++] = p[i];
        }
    }
    fflush(stdout);
}

static int stamp(int argc, char **argv)
{
    struct stream s[2] = {{.tag = 'o'}, {.tag = 'e'}};
    int out[2], err[2], i, open_fds = 2, status;
    size_t max = 200;
    struct sigaction sa;
    unsigned long long t0;
    pid_t pid;

    if (argc > 1 && strcmp(argv[0], "-t") == 0) {
        max = (size_t)strtoul(argv[1], NULL, 10);
        argc -= 2;
        argv += 2;
    }
    if (argc < 1)
        return usage();
    if (pipe(out) < 0 || pipe(err) < 0) {
        perror("mctb: pipe");
        return 2;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = pass_on;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    t0 = now_ns();
    pid = fork();
    if (pid < 0) {
        perror("mctb: fork");
        return 2;
    }
    if (pid == 0) {
        dup2(out[1], 1);
        dup2(err[1], 2);
        close(out[0]);
        close(out[1]);
        close(err[0]);
        close(err[1]);
        execvp(argv[0], argv);
        fprintf(stderr, "mctb: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    child = pid;
    close(out[1]);
    close(err[1]);
    s[0].fd = out[0];
    s[1].fd = err[0];
    printf("# start %llu %d\n", t0, (int)pid);
    fflush(stdout);
    for (i = 0; i < 2; i++) {
        s[i].max = max;
        s[i].line = malloc(max + 1);
        if (s[i].line == NULL)
            return 2;
    }
    while (open_fds > 0) {
        struct pollfd p[2];
        char buf[65536];

        for (i = 0; i < 2; i++) {
            p[i].fd = s[i].fd;
            p[i].events = POLLIN;
            p[i].revents = 0;
        }
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            perror("mctb: poll");
            return 2;
        }
        for (i = 0; i < 2; i++) {
            ssize_t n;

            if (s[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            n = read(s[i].fd, buf, sizeof buf);
            if (n > 0) {
                take(&s[i], buf, (size_t)n, now_ns());
            } else if (n == 0 || errno != EINTR) {
                if (s[i].len > 0)
                    take(&s[i], "\n", 1, now_ns());
                close(s[i].fd);
                s[i].fd = -1;
                open_fds--;
            }
        }
    }
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            perror("mctb: waitpid");
            return 2;
        }
    }
    status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    printf("# exit %llu %d\n", now_ns(), status);
    fflush(stdout);
    return status;
}

/* --- rss ---------------------------------------------------------------------------------- */

static int rss(int argc, char **argv)
{
    char path[64], line[256];
    long ms;

    if (argc != 2)
        return usage();
    snprintf(path, sizeof path, "/proc/%s/status", argv[0]);
    ms = strtol(argv[1], NULL, 10);
    if (ms <= 0)
        return usage();
    for (;;) {
        FILE *f = fopen(path, "r");
        long vmrss = -1, hwm = -1;
        struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

        if (f == NULL)
            return 0;
        while (fgets(line, sizeof line, f) != NULL) {
            if (strncmp(line, "VmRSS:", 6) == 0)
                vmrss = strtol(line + 6, NULL, 10);
            else if (strncmp(line, "VmHWM:", 6) == 0)
                hwm = strtol(line + 6, NULL, 10);
        }
        fclose(f);
        if (vmrss < 0)
            return 0;  /* a zombie: the process is gone */
        printf("%llu %ld %ld\n", now_ns(), vmrss, hwm);
        fflush(stdout);
        nanosleep(&ts, NULL);
    }
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "now") == 0) {
        printf("%llu\n", now_ns());
        return 0;
    }
    if (argc >= 3 && strcmp(argv[1], "stamp") == 0)
        return stamp(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "rss") == 0)
        return rss(argc - 2, argv + 2);
    return usage();
}
