/* attach.c — see attach.h. */
#include "attach.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "intr.h"
#include "log.h"
#include "mtime.h"
#include "sock.h"

/* How long the JVM has to run Agent_OnAttach and reply. */
#define REPLY_TIMEOUT_MS 30000
/* Longest reply kept; a `load` reply is a few lines. */
#define REPLY_MAX 65536
/* HotSpot's limit on each argument of a request. */
#define ARG_MAX_LEN 1024

/* ---- the reply ---------------------------------------------------------- */

/* Parses a whole line "<int>" (optionally signed); 0 or -1. */
static int parse_int_line(const char *s, size_t n, int *out)
{
    char buf[16], *end;
    long v;

    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (buf[0] != '-' && (buf[0] < '0' || buf[0] > '9'))
        return -1;
    errno = 0;
    v = strtol(buf, &end, 10);
    if (errno != 0 || *end != '\0' || v < INT_MIN || v > INT_MAX)
        return -1;
    *out = (int)v;
    return 0;
}

/* Copies the text of n bytes to out, lines joined by "; ", trimmed. */
static void join_lines(const char *s, size_t n, char *out, size_t size)
{
    size_t o = 0;

    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        n--;
    for (size_t i = 0; i < n && o + 3 < size; i++) {
        if (s[i] == '\n') {
            out[o++] = ';';
            out[o++] = ' ';
        } else if (s[i] != '\r') {
            out[o++] = s[i] == '\0' ? ' ' : s[i];
        }
    }
    out[o] = '\0';
}

int attach_parse_load_reply(const char *buf, size_t n, struct attach_reply *r, mct_err *e)
{
    const char *nl = memchr(buf, '\n', n);
    size_t first = nl != NULL ? (size_t)(nl - buf) : n;
    const char *rest = nl != NULL ? nl + 1 : buf + n;
    size_t rest_len = (size_t)(buf + n - rest);
    const char *rest_nl = memchr(rest, '\n', rest_len);
    size_t line2 = rest_nl != NULL ? (size_t)(rest_nl - rest) : rest_len;
    static const char rc_prefix[] = "return code: ";
    int rc;

    memset(r, 0, sizeof *r);
    if (n == 0)
        return mct_err_set(e, MCT_E_PROTO, "the JVM closed the attach connection without a reply");
    if (parse_int_line(buf, first, &r->status) < 0)
        return mct_err_set(e, MCT_E_PROTO, "the attach reply does not start with a status line");
    join_lines(rest, rest_len, r->message, sizeof r->message);
    /* JDK 9 and later: "return code: N" after the status. */
    if (line2 > sizeof rc_prefix - 1 && memcmp(rest, rc_prefix, sizeof rc_prefix - 1) == 0 &&
        parse_int_line(rest + sizeof rc_prefix - 1, line2 - (sizeof rc_prefix - 1), &rc) == 0) {
        r->agent_rc = rc;
        r->outcome = rc == 0 ? ATTACH_LOADED : ATTACH_AGENT_FAILED;
        return 0;
    }
    /* JDK 8: the bare return code after status 0. */
    if (r->status == 0 && parse_int_line(rest, line2, &rc) == 0) {
        r->agent_rc = rc;
        r->outcome = rc == 0 ? ATTACH_LOADED : ATTACH_AGENT_FAILED;
        return 0;
    }
    if (strstr(r->message, "Dynamic agent loading is not enabled") != NULL) {
        r->outcome = ATTACH_DYNLOAD_DISABLED;
        return 0;
    }
    /* "<path> was not loaded.\n<dlerror>" (JDK 9+), status -1 without text
     * (JDK 8), or a text with status 0 (JDK 21+). */
    if (strstr(r->message, "was not loaded") != NULL ||
        strstr(r->message, "Could not find agent library") != NULL ||
        (r->status != 0 && r->message[0] == '\0')) {
        r->outcome = ATTACH_NOT_LOADED;
        return 0;
    }
    if (r->message[0] == '\0')
        return mct_err_set(e, MCT_E_PROTO, "the attach reply has status %d and no text",
                           r->status);
    r->outcome = ATTACH_REFUSED;
    return 0;
}

/* ---- waking the attach listener ----------------------------------------- */

/* Whether a socket is at name in the JVM's /tmp (dirfd). Whose it is,
 * sock_connect_at checks; a symbolic link there is not one. */
static int is_socket(int dirfd, const char *name)
{
    struct stat st;

    return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISSOCK(st.st_mode);
}

/* The file that tells the JVM's SIGQUIT handler to start the attach
 * listener. */
struct trigger {
    int dirfd;              /* the directory it is in (owned) */
    int created;            /* 1: made by this client, which removes it */
    char name[32];
    char shown[PATH_MAX];   /* its path, for messages */
};

/* A trigger that was there already (st): usable when it is a regular file
 * of the JVM's user or root, as HotSpot wants; 0, or -1 with e set. */
static int reuse_trigger(const struct proc_target *t, const struct trigger *tr,
                         const struct stat *st, mct_err *e)
{
    if (!S_ISREG(st->st_mode))
        return mct_err_set(e, MCT_E_IO, "remove %s: it is not a regular file, so it cannot start "
                           "the attach listener of JVM %d (someone may be blocking the attach)",
                           tr->shown, (int)t->pid);
    if (st->st_uid != t->st.euid && st->st_uid != 0)
        return mct_err_set(e, MCT_E_IO, "remove %s: it belongs to uid %u, not to the JVM's user "
                           "(uid %u) or root, so JVM %d ignores it (someone may be blocking the "
                           "attach)", tr->shown, (unsigned)st->st_uid, (unsigned)t->st.euid,
                           (int)t->pid);
    return 0;
}

/* Creates the trigger in dirfd (shown as dir), taking ownership of dirfd.
 * Never opens what is there already (a FIFO would block, another user's
 * file would be ignored by the JVM): a file found instead is reused or
 * refused. 0; -1 with errno set and dirfd closed when the directory does not
 * take it; -2 with e set and dirfd closed when a file there is unusable. */
static int create_trigger_in(const struct proc_target *t, int dirfd, const char *dir,
                             struct trigger *tr, mct_err *e)
{
    struct stat st;
    int fd, err;

    tr->dirfd = dirfd;
    tr->created = 0;
    snprintf(tr->name, sizeof tr->name, ".attach_pid%d", (int)t->st.nspid);
    snprintf(tr->shown, sizeof tr->shown, "%s/%s", dir, tr->name);
    if (dirfd < 0)
        return -1;
    fd = openat(dirfd, tr->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
                0660);
    if (fd >= 0) {
        close(fd);
        tr->created = 1;
        return 0;
    }
    err = errno;
    if (err == EEXIST && fstatat(dirfd, tr->name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (reuse_trigger(t, tr, &st, e) == 0)
            return 0;
        close(dirfd);
        return -2;
    }
    close(dirfd);
    errno = err;
    return -1;
}

/* Creates the trigger: in the JVM's working directory (/proc/PID/cwd leads
 * there in any mount namespace), else in its /tmp. HotSpot looks in the
 * second only when the first has none, so an unusable file in the first
 * ends the attempt. Run with the JVM's identity: the JVM ignores a trigger
 * of another user. 0 or -1 with e set. */
static int create_trigger(const struct proc_target *t, int tmpfd, struct trigger *tr, mct_err *e)
{
    char cwd[64];
    int rc;

    snprintf(cwd, sizeof cwd, "/proc/%d/cwd", (int)t->pid);
    rc = create_trigger_in(t, open(cwd, O_PATH | O_DIRECTORY | O_CLOEXEC), cwd, tr, e);
    if (rc == -1)
        rc = create_trigger_in(t, fcntl(tmpfd, F_DUPFD_CLOEXEC, 0), t->tmp, tr, e);
    if (rc == -1)
        return mct_err_set(e, MCT_E_IO, "cannot create the attach trigger %s: %s", tr->shown,
                           strerror(errno));
    return rc < 0 ? -1 : 0;
}

/* Polls for the socket name in tmpfd (shown as sock) with growing sleeps,
 * re-sending SIGQUIT once at half time; 0 when it appeared, -1 with e set. */
static int wait_for_socket(const struct proc_target *t, int tmpfd, const char *name,
                           const char *sock, mct_err *e)
{
    long long start = mct_now_ms();
    int delay = 10, resent = 0;

    while (!is_socket(tmpfd, name)) {
        long long waited = mct_now_ms() - start;

        if (!proc_alive(t))
            return mct_err_set(e, MCT_E_NOTFOUND, "process %d exited while attaching",
                               (int)t->pid);
        if (waited >= ATTACH_WAIT_MS)
            return mct_err_set(e, MCT_E_IO,
                               "JVM %d did not open its attach socket %s within %d s: it may "
                               "run with -XX:+DisableAttachMechanism (set on its command line "
                               "or in JAVA_TOOL_OPTIONS), or a /tmp cleaner may have deleted "
                               "the socket (restart the JVM then)",
                               (int)t->pid, sock, ATTACH_WAIT_MS / 1000);
        if (!resent && waited >= ATTACH_WAIT_MS / 2) {
            log_verbose("no attach socket after %lld ms; sending SIGQUIT again", waited);
            if (kill(t->pid, SIGQUIT) < 0 && errno != ESRCH)
                return mct_err_set(e, MCT_E_IO, "kill(%d, SIGQUIT): %s", (int)t->pid,
                                   strerror(errno));
            resent = 1;
        }
        if (intr_sleep_ms(delay, e) < 0)
            return mct_err_wrap(e, "waiting for the attach socket of JVM %d", (int)t->pid);
        delay = delay < 250 ? delay * 2 : 500;
    }
    log_verbose("attach socket %s appeared after %lld ms", sock, mct_now_ms() - start);
    return 0;
}

/* Starts the JVM's attach listener so that its socket name appears in
 * tmpfd (shown as sock); 0 or -1 with e. */
static int wake_listener(const struct proc_target *t, int tmpfd, const char *name,
                         const char *sock, mct_err *e)
{
    struct trigger trigger;
    int rc;

    if (proc_jvm_flag(t, "DisableAttachMechanism") == 1)
        return mct_err_set(e, MCT_E_UNSUPPORTED,
                           "JVM %d was started with -XX:+DisableAttachMechanism, so nothing can "
                           "attach to it; restart it without that flag", (int)t->pid);
    /* SIGQUIT kills a process that does not handle it. A JVM with -Xrs
     * ignores it but opens its attach socket at startup instead; without the
     * socket (a /tmp cleaner) nothing can wake it. */
    if (!t->st.sigquit_caught || t->st.sigquit_ignored)
        return mct_err_set(e, MCT_E_UNSUPPORTED,
                           "process %d (%s) has no attach socket %s and does not handle "
                           "SIGQUIT, so its attach listener cannot be started: it runs with "
                           "-Xrs and its socket was deleted (by a /tmp cleaner?), or it is not "
                           "a HotSpot JVM; restart the JVM", (int)t->pid, t->st.name, sock);
    if (create_trigger(t, tmpfd, &trigger, e) < 0)
        return -1;
    log_verbose("%s %s; sending SIGQUIT to %d", trigger.created ? "created" : "reusing",
                trigger.shown, (int)t->pid);
    if (kill(t->pid, SIGQUIT) < 0) {
        rc = mct_err_set(e, MCT_E_IO, "kill(%d, SIGQUIT): %s", (int)t->pid, strerror(errno));
    } else {
        rc = wait_for_socket(t, tmpfd, name, sock, e);
    }
    if (trigger.created && unlinkat(trigger.dirfd, trigger.name, 0) < 0 && errno != ENOENT)
        log_verbose("cannot remove %s: %s", trigger.shown, strerror(errno));
    close(trigger.dirfd);
    return rc;
}

/* ---- the request -------------------------------------------------------- */

static int send_all(int fd, const char *buf, size_t n, mct_err *e)
{
    while (n > 0) {
        ssize_t w = send(fd, buf, n, MSG_NOSIGNAL);

        if (w < 0) {
            if (errno == EINTR)
                continue;
            return mct_err_set(e, MCT_E_IO, "sending the attach request: %s", strerror(errno));
        }
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Reads until EOF (at most REPLY_MAX bytes, within REPLY_TIMEOUT_MS). */
static ssize_t read_reply(int fd, char *buf, size_t cap, mct_err *e)
{
    long long deadline = mct_now_ms() + REPLY_TIMEOUT_MS;
    size_t len = 0;

    while (len < cap) {
        long long left = deadline - mct_now_ms();
        ssize_t r;
        int rc;

        rc = intr_wait_readable(fd, left > 0 ? (int)left : 0, e);
        if (rc < 0)
            return mct_err_wrap(e, "waiting for the JVM's answer to the load request");
        if (rc == 0)
            return mct_err_set(e, MCT_E_IO, "the JVM did not answer the load request within "
                               "%d s", REPLY_TIMEOUT_MS / 1000);
        r = read(fd, buf + len, cap - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return mct_err_set(e, MCT_E_IO, "reading the attach reply: %s", strerror(errno));
        if (r == 0)
            break;
        len += (size_t)r;
    }
    return (ssize_t)len;
}

/* Builds the protocol-1 request "1\0load\0<path>\0true\0<options>\0". */
static int build_request(const char *path, const char *options, char *buf, size_t cap,
                         size_t *len, mct_err *e)
{
    const char *const parts[] = { "1", "load", path, "true", options };
    size_t n = 0;

    if (strlen(path) > ARG_MAX_LEN || strlen(options) > ARG_MAX_LEN)
        return mct_err_set(e, MCT_E_ARG, "the agent path or options exceed %d bytes, the JVM's "
                           "limit", ARG_MAX_LEN);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        size_t k = strlen(parts[i]) + 1;

        if (n + k > cap)
            return mct_err_set(e, MCT_E_ARG, "attach request too long");
        memcpy(buf + n, parts[i], k);
        n += k;
    }
    *len = n;
    return 0;
}

int attach_load(const struct proc_target *t, const char *path, const char *options,
                struct attach_reply *r, mct_err *e)
{
    char name[32], sock[PATH_MAX], req[3 * ARG_MAX_LEN + 64], *reply;
    size_t req_len = 0;
    ssize_t n;
    int tmpfd, fd, rc;

    if (build_request(path, options, req, sizeof req, &req_len, e) < 0)
        return -1;
    tmpfd = proc_tmp(t, e);
    if (tmpfd < 0)
        return -1;
    snprintf(name, sizeof name, ".java_pid%d", (int)t->st.nspid);
    snprintf(sock, sizeof sock, "%s/%s", t->tmp, name);
    if (is_socket(tmpfd, name))
        log_verbose("attach listener of JVM %d is up at %s", (int)t->pid, sock);
    else if (wake_listener(t, tmpfd, name, sock, e) < 0)
        return -1;
    /* The request names the agent library: only the JVM may read it. */
    fd = sock_connect_at(t, tmpfd, name, sock, "the JVM's attach listener", e);
    if (fd < 0)
        return -1;
    log_verbose("asking JVM %d to load %s", (int)t->pid, path);
    reply = malloc(REPLY_MAX);
    if (reply == NULL) {
        close(fd);
        return mct_err_set(e, MCT_E_NOMEM, "out of memory");
    }
    rc = -1;
    if (send_all(fd, req, req_len, e) == 0 && (n = read_reply(fd, reply, REPLY_MAX, e)) >= 0) {
        rc = attach_parse_load_reply(reply, (size_t)n, r, e);
        if (rc < 0 && n == 0)
            mct_err_set(e, MCT_E_IO, "JVM %d closed the attach connection without a reply: it "
                        "answers only its own user (uid %u, gid %u) and root", (int)t->pid,
                        (unsigned)t->st.euid, (unsigned)t->st.egid);
    }
    free(reply);
    close(fd);
    return rc;
}
