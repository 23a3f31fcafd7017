/* verdict.c — see verdict.h. */
#include "verdict.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "exit.h"
#include "gate.h"
#include "junit.h"
#include "log.h"
#include "num.h"

/* The last bytes read for the gate and end lines: a gate line holds one
 * message per failed gate, each under a few KB. */
#define TAIL_BYTES (4u << 20)
/* The first line (start) is short. */
#define HEAD_BYTES 65536u

static void usage(FILE *f)
{
    fputs("usage: mcalltree verdict FILE [--pid PID] [--user USER] [--junit OUT]\n"
          "  exits 0 when FILE, a startup trace's out= file, is a regular file of USER's\n"
          "  (default: the user running this), writable by no one else, whose start line\n"
          "  names PID (when given), and whose last lines are a gate that passed and the\n"
          "  end; 4 when the gate failed, 5 when the file is not to be trusted or not\n"
          "  complete (stderr says which), 1 for a usage error; --junit OUT also writes\n"
          "  each gate's verdict as a JUnit XML test case\n", f);
}

/* Reads len bytes at off into a new NUL-terminated buffer (caller frees);
 * NULL with errno set. */
static char *read_at(int fd, off_t off, size_t len)
{
    char *b = malloc(len + 1);
    size_t got = 0;

    if (b == NULL)
        return NULL;
    while (got < len) {
        ssize_t n = pread(fd, b + got, len - got, off + (off_t)got);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                break;
            free(b);
            return NULL;
        }
        got += (size_t)n;
    }
    b[got] = '\0';
    return b;
}

/* The JSON object of the text line at start (up to '\n' or the end), or
 * NULL when it is not one; a new reference. */
static json_t *line_object(const char *start)
{
    const char *nl = strchr(start, '\n');
    json_t *j = json_loadb(start, nl != NULL ? (size_t)(nl - start) : strlen(start), 0, NULL);

    if (j != NULL && !json_is_object(j)) {
        json_decref(j);
        j = NULL;
    }
    return j;
}

/* Whether j's "type" is type. */
static int is_type(const json_t *j, const char *type)
{
    const char *t = json_string_value(json_object_get(j, "type"));

    return t != NULL && strcmp(t, type) == 0;
}

/* Checks the file's owner and mode (fd opened from path, not through a
 * link); 0, or an exit status said on stderr. */
static int check_owner(const char *path, int fd, uid_t uid)
{
    struct stat sb, dsb;
    char dir[4096];
    char *slash;

    if (fstat(fd, &sb) < 0) {
        log_error("verdict: %s: %s", path, strerror(errno));
        return MCT_EXIT_INTERNAL;
    }
    if (!S_ISREG(sb.st_mode)) {
        log_error("verdict: %s is not a regular file: not a trace file the agent wrote", path);
        return MCT_EXIT_INTERNAL;
    }
    if (sb.st_uid != uid) {
        log_error("verdict: %s belongs to uid %u, not to uid %u: not the JVM's own file (another user may have "
                  "made it first, and the JVM then ran untraced: its stderr says so); write out= to a directory "
                  "only the JVM's user can write to", path, (unsigned)sb.st_uid, (unsigned)uid);
        return MCT_EXIT_INTERNAL;
    }
    if ((sb.st_mode & (S_IWGRP | S_IWOTH)) != 0 || sb.st_nlink != 1) {
        log_error("verdict: %s is writable by other users, or has other names (links): the agent creates it "
                  "with mode 0600 and one name, so it may have been changed", path);
        return MCT_EXIT_INTERNAL;
    }
    snprintf(dir, sizeof dir, "%s", path);
    slash = strrchr(dir, '/');
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else
        slash[slash == dir ? 1 : 0] = '\0';
    if (stat(dir, &dsb) == 0 && (dsb.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (dsb.st_mode & S_ISVTX) == 0) {
        log_error("verdict: %s's directory %s lets other users replace it (writable, not sticky): use a "
                  "directory only the JVM's user can write to", path, dir);
        return MCT_EXIT_INTERNAL;
    }
    return 0;
}

/* The start line names pid (when pid > 0); 0, or an exit status said. */
static int check_start(const char *path, int fd, long long pid)
{
    char *head = read_at(fd, 0, HEAD_BYTES);
    json_t *start = head != NULL ? line_object(head) : NULL;
    json_int_t got = json_integer_value(json_object_get(start, "pid"));
    int rc = 0;

    if (start == NULL || !is_type(start, "start")) {
        log_error("verdict: %s does not begin with the agent's start line: not a startup trace's file", path);
        rc = MCT_EXIT_INTERNAL;
    } else if (pid > 0 && got != pid) {
        log_error("verdict: %s is the trace of pid %lld, not of pid %lld", path, (long long)got, pid);
        rc = MCT_EXIT_INTERNAL;
    }
    json_decref(start);
    free(head);
    return rc;
}

/* The last two lines: a gate, then the end; 0 when the gate passed, else
 * an exit status said on stderr. *judged: the gate line when it was
 * judged (0 or 4; a new reference), else NULL. */
static int check_tail(const char *path, int fd, json_t **judged)
{
    struct stat sb;
    off_t off;
    char *tail, *end_at, *gate_at;
    json_t *end = NULL, *gline = NULL;
    int rc = MCT_EXIT_INTERNAL;

    if (fstat(fd, &sb) < 0)
        return MCT_EXIT_INTERNAL;
    off = sb.st_size > (off_t)TAIL_BYTES ? sb.st_size - (off_t)TAIL_BYTES : 0;
    tail = read_at(fd, off, (size_t)(sb.st_size - off));
    if (tail == NULL) {
        log_error("verdict: reading %s: %s", path, strerror(errno));
        return MCT_EXIT_INTERNAL;
    }
    end_at = strrchr(tail, '\n');
    if (end_at == NULL || end_at[1] != '\0') {
        log_error("verdict: %s does not end with a whole line: the JVM is still running, or its trace was cut "
                  "short", path);
        goto out;
    }
    *end_at = '\0';
    end_at = strrchr(tail, '\n');
    gate_at = end_at;
    end = line_object(end_at != NULL ? end_at + 1 : tail);
    if (end == NULL || !is_type(end, "end")) {
        log_error("verdict: the last line of %s is not the end line: the JVM is still running, or its trace "
                  "was cut short", path);
        goto out;
    }
    if (gate_at != NULL) {
        *gate_at = '\0';
        gate_at = strrchr(tail, '\n');
        gline = line_object(gate_at != NULL ? gate_at + 1 : tail);
    }
    if (json_is_string(json_object_get(end, "reason")) &&
        strcmp(json_string_value(json_object_get(end, "reason")), "stop") == 0) {
        const char *detail = json_string_value(json_object_get(end, "detail"));

        log_error("verdict: the trace in %s ended before the JVM did (%s): its gate judged part of the run",
                  path, detail != NULL ? detail : "stopped");
        goto out;
    }
    if (gline == NULL || !is_type(gline, "gate")) {
        log_error("verdict: %s has no gate line right before its end: no gate was set (add max-calls=, "
                  "percentile=, fail-over-ms= or budget= to the agent's options), or it was not written", path);
        goto out;
    }
    *judged = json_incref(gline);
    if (json_is_true(json_object_get(gline, "passed"))) {
        rc = 0;
    } else {
        json_t *failures = json_object_get(gline, "failures");
        size_t i;
        json_t *f;

        json_array_foreach(failures, i, f)
            log_error("verdict: %s: %s", path, json_string_value(f) != NULL ? json_string_value(f) : "?");
        if (json_array_size(failures) == 0)
            log_error("verdict: %s: the gate failed", path);
        rc = MCT_EXIT_FAILOVER;
    }
out:
    json_decref(end);
    json_decref(gline);
    free(tail);
    return rc;
}

/* uid of name (a user name or a number); 0, or -1 said on stderr. */
static int user_uid(const char *name, uid_t *uid)
{
    struct passwd *pw = getpwnam(name);
    long long n;

    if (pw != NULL) {
        *uid = pw->pw_uid;
        return 0;
    }
    if (num_int(name, 0, 0x7fffffff, &n) == 0) {
        *uid = (uid_t)n;
        return 0;
    }
    log_error("verdict: --user %s: no such user (give a user name or a uid)", name);
    return -1;
}

/* --junit OUT: the cases of the gate line gline (its "gates"; of an agent
 * that wrote none, one case for them all), or one failed case when the
 * file was not judged (gline NULL, exit status rc); the exit status. */
static int write_junit(const char *out, const char *path, const json_t *gline, int rc)
{
    char suite[4200], why[160];
    json_t *cases = NULL;
    junit *ju = junit_new();
    mct_err e;
    int done = -1;

    snprintf(suite, sizeof suite, "mcalltree verdict %s", path);
    snprintf(why, sizeof why, "not judged: the file is not to be trusted or not complete (exit status %d; "
             "stderr says why)", rc);
    if (gline == NULL) {
        cases = gate_unjudged(why);
    } else if (json_is_array(json_object_get(gline, "gates"))) {
        cases = json_incref(json_object_get(gline, "gates"));
    } else if ((cases = json_array()) != NULL) {
        json_t *failures = json_object_get(gline, "failures");

        json_array_append_new(cases, replies_case_new("the gates", json_is_true(json_object_get(gline, "passed")),
                                                      json_is_array(failures) ? json_incref(failures) : NULL));
    }
    if (ju != NULL && cases != NULL && json_array_size(cases) > 0 && gate_cases_junit(cases, ju, suite) == 0)
        done = junit_write(ju, out, &e);
    else
        mct_err_set(&e, MCT_E_NOMEM, "--junit %s: out of memory", out);
    json_decref(cases);
    junit_free(ju);
    if (done == 0)
        return rc;
    log_error("verdict: %s", e.msg);
    return rc == 0 || rc == MCT_EXIT_FAILOVER ? MCT_EXIT_USAGE : rc;
}

int verdict_main(int argc, char **argv)
{
    const char *path = NULL, *junit_out = NULL;
    json_t *gline = NULL;
    long long pid = 0;
    uid_t uid = geteuid();
    int fd, rc;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return fflush(stdout) == 0 ? MCT_EXIT_OK : MCT_EXIT_INTERNAL;
        } else if (strcmp(argv[i], "--pid") == 0 && i + 1 < argc) {
            if (num_int(argv[++i], 1, 0x7fffffff, &pid) < 0) {
                log_error("verdict: --pid %s: give a process id (a positive integer)", argv[i]);
                return MCT_EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--junit") == 0 && i + 1 < argc) {
            junit_out = argv[++i];
        } else if (strcmp(argv[i], "--user") == 0 && i + 1 < argc) {
            if (user_uid(argv[++i], &uid) < 0)
                return MCT_EXIT_USAGE;
        } else if (argv[i][0] == '-' || path != NULL) {
            log_error("verdict: unexpected argument '%s'; try 'mcalltree verdict --help'", argv[i]);
            return MCT_EXIT_USAGE;
        } else {
            path = argv[i];
        }
    }
    if (path == NULL) {
        log_error("verdict: give the trace file (the agent's out=); try 'mcalltree verdict --help'");
        return MCT_EXIT_USAGE;
    }
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        log_error("verdict: cannot open %s: %s%s", path, strerror(errno),
                  errno == ELOOP ? " (a symbolic link: the agent never writes through one)"
                  : errno == ENOENT ? " (the agent did not create it: the JVM's stderr says why, or it did "
                                      "not load the agent)" : "");
        rc = MCT_EXIT_INTERNAL;
    } else {
        rc = check_owner(path, fd, uid);
        if (rc == 0)
            rc = check_start(path, fd, pid);
        if (rc == 0)
            rc = check_tail(path, fd, &gline);
        close(fd);
    }
    if (junit_out != NULL)
        rc = write_junit(junit_out, path, gline, rc);
    json_decref(gline);
    return rc;
}
