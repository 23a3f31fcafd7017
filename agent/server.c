/* server.c — see server.h. */
#include "config.h"

#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "proto.h"
#include "vm.h"

/* How long a connected peer has to send its request. */
#define REQUEST_TIMEOUT_MS 5000
/* How long a write to a peer may block. */
#define SEND_TIMEOUT_S 5

static struct {
    int running;                    /* the listener thread was started */
    int listen_fd;                  /* owned by the listener thread once running */
    int wake_rd, wake_wr;           /* closing wake_wr wakes the listener to exit */
    char dir[64];
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    const struct server_session_ops *ops;
} srv = { .listen_fd = -1, .wake_rd = -1, .wake_wr = -1 };

void server_set_session_ops(const struct server_session_ops *ops)
{
    __atomic_store_n(&srv.ops, ops, __ATOMIC_RELEASE);
}

/* ---- one connection ----------------------------------------------------- */

/* Sends an `error` message, ignoring failures: the peer may be gone. */
static void reply_error(int fd, enum proto_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void reply_error(int fd, enum proto_code code, const char *fmt, ...)
{
    char text[1024];
    json_t *msg;
    va_list ap;
    mct_err e;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    msg = proto_error_new(code, "%s", text);
    if (msg == NULL)
        return;
    if (proto_write(fd, msg, &e) < 0)
        vm_debug("could not send an error reply: %s", e.msg);
    json_decref(msg);
}

/* The agent's hello; NULL when out of memory. */
static json_t *hello_new(const struct server_session_ops *ops)
{
    const struct vm_facts *f = vm_facts();
    json_t *session = NULL, *missing;
    long long instrumented = 0;
    const char *const *names;
    size_t n;

    missing = json_array();
    if (missing == NULL)
        return NULL;
    names = vm_missing_capabilities(&n);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(missing, json_string(names[i]));
    if (ops != NULL && ops->session != NULL)
        session = ops->session(&instrumented);
    return json_pack("{s:s, s:i, s:s, s:I, s:{s:s, s:s, s:s}, s:o, s:I, s:i, s:o}",
                     "type", "hello",
                     "protocol", PROTO_VERSION,
                     "agent_version", PACKAGE_VERSION,
                     "pid", (json_int_t)getpid(),
                     "jvm", "name", f->name, "vendor", f->vendor, "version", f->version,
                     "session", session != NULL ? session : json_null(),
                     "instrumented_classes", (json_int_t)instrumented,
                     "loads", vm_loads(),
                     "missing_capabilities", missing);
}

static void reply_hello(int fd, const struct server_session_ops *ops)
{
    json_t *msg = hello_new(ops);
    mct_err e;

    if (msg == NULL) {
        reply_error(fd, PROTO_ERR_INTERNAL, "cannot build the hello reply");
        return;
    }
    if (proto_write(fd, msg, &e) < 0)
        vm_debug("could not send hello: %s", e.msg);
    json_decref(msg);
}

/* Serves the connection fd and closes it (or hands it to the session). */
static void serve(int fd)
{
    const struct server_session_ops *ops = __atomic_load_n(&srv.ops, __ATOMIC_ACQUIRE);
    struct timeval snd = { .tv_sec = SEND_TIMEOUT_S };
    struct ucred cred;
    socklen_t len = sizeof cred;
    struct server_peer peer;
    const char *type;
    json_t *req;
    mct_err e;

    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
        vm_log("SO_PEERCRED: %s; connection dropped", strerror(errno));
        close(fd);
        return;
    }
    if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &snd, sizeof snd) < 0)
        vm_debug("SO_SNDTIMEO: %s", strerror(errno));
    peer.pid = cred.pid;
    peer.uid = cred.uid;
    peer.gid = cred.gid;
    if (cred.uid != geteuid() && cred.uid != 0) {
        vm_debug("refused a peer of uid %u (pid %ld)", (unsigned)cred.uid, (long)cred.pid);
        reply_error(fd, PROTO_ERR_DENIED,
                    "uid %u may not use the mcalltree agent of this JVM: only its user "
                    "(uid %u) and root may", (unsigned)cred.uid, (unsigned)geteuid());
        close(fd);
        return;
    }
    req = proto_read(fd, PROTO_REQUEST, REQUEST_TIMEOUT_MS, &e);
    if (req == NULL) {
        if (e.code != MCT_E_EOF) {
            vm_debug("bad request from pid %ld: %s", (long)cred.pid, e.msg);
            reply_error(fd, PROTO_ERR_PROTOCOL, "%s", e.msg);
        }
        close(fd);
        return;
    }
    type = proto_type(req);
    if (strcmp(type, "trace") == 0 && ops != NULL && ops->trace != NULL) {
        ops->trace(fd, req, &peer);
        return;
    }
    if (strcmp(type, "hello") == 0)
        reply_hello(fd, ops);
    else if (strcmp(type, "stop") == 0)
        reply_error(fd, PROTO_ERR_BAD_REQUEST,
                    "no session runs on this connection: a session is stopped on its own connection");
    else
        reply_error(fd, PROTO_ERR_INTERNAL, "this agent cannot serve a \"%s\" request", type);
    json_decref(req);
    close(fd);
}

/* ---- the listener thread ------------------------------------------------ */

/* Whether accept's error is one that passes (a peer gave up, a signal). */
static int transient_accept_error(int err)
{
    return err == EINTR || err == ECONNABORTED || err == EAGAIN || err == EWOULDBLOCK ||
           err == EPROTO;
}

static void JNICALL listener(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    int lfd = srv.listen_fd, wfd = srv.wake_rd;

    for (;;) {
        struct pollfd pfd[2] = { { .fd = lfd, .events = POLLIN }, { .fd = wfd, .events = POLLIN } };
        int fd;

        if (poll(pfd, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            vm_log("listener: poll: %s; stopped", strerror(errno));
            break;
        }
        if (pfd[1].revents != 0)
            break;
        if (!(pfd[0].revents & POLLIN))
            continue;
        fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (!transient_accept_error(errno)) {
                /* Out of descriptors or memory: back off instead of spinning. */
                vm_log("listener: accept: %s", strerror(errno));
                usleep(100 * 1000);
            }
            continue;
        }
        serve(fd);
    }
    close(lfd);
    close(wfd);
    vm_debug("listener stopped");
}

/* ---- start and stop ----------------------------------------------------- */

/* Creates the socket directory, or checks that the existing one is ours and
 * private. 0 or a PROTO_RC_* code. */
static int make_dir(void)
{
    struct stat st;

    if (mkdir(srv.dir, 0700) == 0) {
        /* The umask may have taken bits away; the mode must be exactly 0700. */
        if (chmod(srv.dir, 0700) < 0) {
            vm_log("chmod %s: %s; not serving", srv.dir, strerror(errno));
            return PROTO_RC_SOCKET;
        }
        return 0;
    }
    if (errno != EEXIST) {
        vm_log("cannot create %s: %s; not serving", srv.dir, strerror(errno));
        return PROTO_RC_SOCKET;
    }
    if (lstat(srv.dir, &st) < 0) {
        vm_log("cannot check %s: %s; not serving", srv.dir, strerror(errno));
        return PROTO_RC_SOCKET;
    }
    if (!S_ISDIR(st.st_mode)) {
        vm_log("refusing to serve: %s exists and is not a directory (a symbolic link?); "
               "remove it and attach again", srv.dir);
        return PROTO_RC_UNSAFE_DIR;
    }
    if (st.st_uid != geteuid()) {
        vm_log("refusing to serve: %s belongs to uid %u, not to this JVM's user (uid %u); "
               "remove it and attach again", srv.dir, (unsigned)st.st_uid, (unsigned)geteuid());
        return PROTO_RC_UNSAFE_DIR;
    }
    if ((st.st_mode & 077) != 0) {
        vm_log("refusing to serve: %s has mode %04o, others may enter it; "
               "remove it and attach again", srv.dir, (unsigned)(st.st_mode & 07777));
        return PROTO_RC_UNSAFE_DIR;
    }
    return 0;
}

static void fill_addr(struct sockaddr_un *sa)
{
    memset(sa, 0, sizeof *sa);
    sa->sun_family = AF_UNIX;
    memcpy(sa->sun_path, srv.path, strlen(srv.path) + 1);
}

/* Deals with a socket file left at srv.path: a dead agent's is removed, a
 * live one means another copy of the agent serves. 0 or a PROTO_RC_* code. */
static int clear_old_socket(void)
{
    struct sockaddr_un sa;
    struct stat st;
    int fd, rc;

    if (lstat(srv.path, &st) < 0) {
        if (errno == ENOENT)
            return 0;
        vm_log("cannot check %s: %s; not serving", srv.path, strerror(errno));
        return PROTO_RC_SOCKET;
    }
    if (S_ISSOCK(st.st_mode)) {
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            vm_log("socket: %s; not serving", strerror(errno));
            return PROTO_RC_SOCKET;
        }
        fill_addr(&sa);
        rc = connect(fd, (struct sockaddr *)&sa, sizeof sa);
        close(fd);
        if (rc == 0) {
            vm_log("another copy of the mcalltree agent already serves this JVM at %s",
                   srv.path);
            return PROTO_RC_OTHER_AGENT;
        }
        if (errno != ECONNREFUSED) {
            vm_log("cannot probe %s: %s; not serving", srv.path, strerror(errno));
            return PROTO_RC_SOCKET;
        }
    }
    if (unlink(srv.path) < 0 && errno != ENOENT) {
        vm_log("cannot remove the stale %s: %s; not serving", srv.path, strerror(errno));
        return PROTO_RC_SOCKET;
    }
    return 0;
}

/* Binds and listens on srv.path; the fd or -1. */
static int open_listener(void)
{
    struct sockaddr_un sa;
    int fd;

    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        vm_log("socket: %s; not serving", strerror(errno));
        return -1;
    }
    fill_addr(&sa);
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        vm_log("bind %s: %s; not serving", srv.path, strerror(errno));
        close(fd);
        return -1;
    }
    if (chmod(srv.path, 0600) < 0 || listen(fd, 16) < 0) {
        vm_log("setting up %s: %s; not serving", srv.path, strerror(errno));
        close(fd);
        unlink(srv.path);
        return -1;
    }
    return fd;
}

int server_start(JNIEnv *jni)
{
    int wake[2], rc;
    mct_err e;

    if (srv.running)
        return 0;
    snprintf(srv.dir, sizeof srv.dir, PROTO_SOCKET_DIR_FMT, "/tmp", (long)getpid());
    snprintf(srv.path, sizeof srv.path, "%s/%s", srv.dir, PROTO_SOCKET_NAME);
    rc = make_dir();
    if (rc != 0)
        return rc;
    rc = clear_old_socket();
    if (rc != 0)
        return rc;
    if (pipe2(wake, O_CLOEXEC) < 0) {
        vm_log("pipe: %s; not serving", strerror(errno));
        return PROTO_RC_SOCKET;
    }
    srv.listen_fd = open_listener();
    if (srv.listen_fd < 0) {
        close(wake[0]);
        close(wake[1]);
        rmdir(srv.dir);
        return PROTO_RC_SOCKET;
    }
    srv.wake_rd = wake[0];
    srv.wake_wr = wake[1];
    if (vm_start_thread(jni, "mcalltree listener", listener, NULL, &e) < 0) {
        vm_log("%s; not serving", e.msg);
        close(srv.listen_fd);
        close(wake[0]);
        close(wake[1]);
        srv.listen_fd = srv.wake_rd = srv.wake_wr = -1;
        unlink(srv.path);
        rmdir(srv.dir);
        return PROTO_RC_JVMTI;
    }
    srv.running = 1;
    vm_debug("listening on %s", srv.path);
    return 0;
}

void server_stop(void)
{
    if (!srv.running || srv.wake_wr < 0)
        return;
    close(srv.wake_wr);
    srv.wake_wr = -1;
    if (unlink(srv.path) < 0 && errno != ENOENT)
        vm_log("cannot remove %s: %s", srv.path, strerror(errno));
    if (rmdir(srv.dir) < 0 && errno != ENOENT)
        vm_log("cannot remove %s: %s", srv.dir, strerror(errno));
}
