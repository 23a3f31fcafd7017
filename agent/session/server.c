/* server.c — see server.h. */
#include "config.h"

#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "msg.h"
#include "mtime.h"
#include "vm.h"

/* How long a connected peer has to send its request. */
#define REQUEST_TIMEOUT_MS 5000
/* The send timeout of a connection handed to the trace handler. */
#define SEND_TIMEOUT_S 5
/* Connections served at once; more wait in the listen backlog. */
#define MAX_CONNS 64
/* How often a trace waiting for the running session to end asks again. */
#define TRACE_RETRY_MS 20
/* How often the listener checks that its socket file is still there, and
 * calls the session's tick. */
#define TICK_MS 1000

/* A connection being served (the listener thread's only). */
struct conn {
    int fd;                              /* -1: a free entry */
    struct server_peer peer;
    long long deadline;                  /* mct_now_ms() by which it is done with */
    unsigned char hdr[PROTO_HEADER_LEN];
    uint32_t len;                        /* the payload's length, once the header is in */
    char *payload;                       /* len bytes, once the header is in */
    size_t got;                          /* bytes of the frame read so far */
    json_t *req;                         /* a trace waiting for the session to end */
    long long retry_at;                  /* when to ask the trace handler again */
};

static struct {
    pthread_mutex_t lock;           /* the socket file and fresh_fd, between the
                                       listener and server_start/server_stop */
    int running;                    /* the listener thread was started */
    int stopped;                    /* server_stop ran: the socket stays gone */
    int restore_failed;             /* the listener's last try to put it back failed */
    int listen_fd;                  /* handed to the listener thread at its start */
    int fresh_fd;                   /* a socket bound anew, for the listener to adopt */
    dev_t dev;                      /* the socket file bound last */
    ino_t ino;
    int wake_rd, wake_wr;           /* a byte: adopt fresh_fd; closing wake_wr: exit */
    char dir[64];
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    const struct server_session_ops *ops;
} srv = { .lock = PTHREAD_MUTEX_INITIALIZER, .listen_fd = -1, .fresh_fd = -1,
          .wake_rd = -1, .wake_wr = -1 };

static struct conn conns[MAX_CONNS];

void server_set_session_ops(const struct server_session_ops *ops)
{
    __atomic_store_n(&srv.ops, ops, __ATOMIC_RELEASE);
}

static const struct server_session_ops *session_ops(void)
{
    return __atomic_load_n(&srv.ops, __ATOMIC_ACQUIRE);
}

/* ---- replies ------------------------------------------------------------ */

/* Sends an `error` message, ignoring failures: the peer may be gone. The
 * listener's sockets do not block: a reply is small and goes into an empty
 * socket buffer, or the peer is not served. */
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
    msg = msg_error_write(&(struct msg_error){ .code = code, .message = text });
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
    struct msg_hello h = {
        .protocol = PROTO_VERSION,
        .agent_version = PACKAGE_VERSION,
        .pid = getpid(),
        .jvm = { .name = f->name, .vendor = f->vendor, .version = f->version },
        .loads = vm_loads(),
    };

    h.missing = vm_missing_capabilities(&h.n_missing);
    if (ops != NULL && ops->session != NULL)
        return ops->session(&h);
    return msg_hello_write(&h);
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

/* ---- connections -------------------------------------------------------- */

static void conn_close(struct conn *c)
{
    close(c->fd);
    free(c->payload);
    json_decref(c->req);
    memset(c, 0, sizeof *c);
    c->fd = -1;
}

/* The connection was handed over: forgets it without closing it. */
static void conn_release(struct conn *c)
{
    free(c->payload);
    memset(c, 0, sizeof *c);
    c->fd = -1;
}

/* Gives the trace request of c to the trace handler; last: it must take it. */
static void offer_trace(struct conn *c, int last)
{
    const struct server_session_ops *ops = session_ops();
    long long now = mct_now_ms();

    if (ops == NULL || ops->trace == NULL) {
        reply_error(c->fd, PROTO_ERR_INTERNAL, "this agent cannot serve a \"trace\" request");
        conn_close(c);
        return;
    }
    if (ops->trace(c->fd, c->req, &c->peer, last) == SERVER_TAKEN) {
        conn_release(c);
        return;
    }
    if (last) {
        /* A handler that breaks its contract: the request is answered anyway. */
        reply_error(c->fd, PROTO_ERR_INTERNAL, "the agent could not take the trace request");
        conn_close(c);
        return;
    }
    if (c->retry_at == 0)
        c->deadline = now + SERVER_TRACE_WAIT_MS;
    c->retry_at = now + TRACE_RETRY_MS;
}

/* A whole, validated request arrived on c: answers it, or hands it over. */
static void dispatch(struct conn *c, json_t *req)
{
    const struct server_session_ops *ops = session_ops();
    struct timeval snd = { .tv_sec = SEND_TIMEOUT_S };
    const char *type = proto_type(req);
    int flags;

    if (strcmp(type, "trace") == 0) {
        /* What server.h promises the handler: a blocking socket. */
        flags = fcntl(c->fd, F_GETFL);
        if (flags < 0 || fcntl(c->fd, F_SETFL, flags & ~O_NONBLOCK) < 0 ||
            setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &snd, sizeof snd) < 0) {
            vm_log("setting up a session's connection: %s; connection dropped", strerror(errno));
            json_decref(req);
            conn_close(c);
            return;
        }
        c->req = req;
        offer_trace(c, 0);
        return;
    }
    if (strcmp(type, "hello") == 0)
        reply_hello(c->fd, ops);
    else if (strcmp(type, "stop") == 0)
        reply_error(c->fd, PROTO_ERR_BAD_REQUEST,
                    "no session runs on this connection: a session is stopped on its own connection");
    else
        reply_error(c->fd, PROTO_ERR_INTERNAL, "this agent cannot serve a \"%s\" request", type);
    json_decref(req);
    conn_close(c);
}

/* Answers a request that could not be read (e set) and closes c. */
static void refuse(struct conn *c, const mct_err *e)
{
    vm_debug("bad request from pid %ld: %s", (long)c->peer.pid, e->msg);
    reply_error(c->fd, PROTO_ERR_PROTOCOL, "%s", e->msg);
    conn_close(c);
}

/* Reads what c's peer sent, without blocking: the header, then exactly the
 * payload it announces (what follows belongs to a session). */
static void conn_read(struct conn *c)
{
    mct_err e;

    for (;;) {
        size_t want = c->got < PROTO_HEADER_LEN ? PROTO_HEADER_LEN - c->got
                                                : PROTO_HEADER_LEN + c->len - c->got;
        void *dst = c->got < PROTO_HEADER_LEN ? (void *)(c->hdr + c->got)
                                              : (void *)(c->payload + (c->got - PROTO_HEADER_LEN));
        ssize_t r = read(c->fd, dst, want);
        json_t *req;

        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                vm_debug("reading a request: %s", strerror(errno));
                conn_close(c);
            }
            return;
        }
        if (r == 0) {
            /* As proto_read says it: a peer that sent nothing just leaves. */
            if (c->got == 0) {
                conn_close(c);
                return;
            }
            if (c->got < PROTO_HEADER_LEN)
                mct_err_set(&e, MCT_E_PROTO, "truncated header: %zu of %d bytes", c->got, PROTO_HEADER_LEN);
            else
                mct_err_set(&e, MCT_E_PROTO, "truncated payload: %zu of %u bytes",
                            c->got - PROTO_HEADER_LEN, c->len);
            refuse(c, &e);
            return;
        }
        c->got += (size_t)r;
        if (c->got == PROTO_HEADER_LEN && c->payload == NULL) {
            if (proto_header_decode(c->hdr, PROTO_REQUEST, &c->len, &e) < 0) {
                refuse(c, &e);
                return;
            }
            c->payload = malloc(c->len);
            if (c->payload == NULL) {
                reply_error(c->fd, PROTO_ERR_INTERNAL, "no memory for a request of %u bytes", c->len);
                conn_close(c);
                return;
            }
        }
        if (c->payload != NULL && c->got == PROTO_HEADER_LEN + c->len) {
            req = proto_parse(c->payload, c->len, PROTO_REQUEST, &e);
            free(c->payload);
            c->payload = NULL;
            if (req == NULL)
                refuse(c, &e);
            else
                dispatch(c, req);
            return;
        }
    }
}

/* Whether accept's error is one that passes (a peer gave up, a signal). */
static int transient_accept_error(int err)
{
    return err == EINTR || err == ECONNABORTED || err == EAGAIN || err == EWOULDBLOCK ||
           err == EPROTO;
}

/* Accepts a connection into the free entry c and checks its peer. */
static void conn_accept(int lfd, struct conn *c)
{
    struct ucred cred;
    socklen_t len = sizeof cred;
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

    if (fd < 0) {
        if (!transient_accept_error(errno)) {
            /* Out of descriptors or memory: back off instead of spinning. */
            vm_log("listener: accept: %s", strerror(errno));
            usleep(100 * 1000);
        }
        return;
    }
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
        vm_log("SO_PEERCRED: %s; connection dropped", strerror(errno));
        close(fd);
        return;
    }
    if (cred.uid != geteuid() && cred.uid != 0) {
        vm_debug("refused a peer of uid %u (pid %ld)", (unsigned)cred.uid, (long)cred.pid);
        reply_error(fd, PROTO_ERR_DENIED,
                    "uid %u may not use the mcalltree agent of this JVM: only its user "
                    "(uid %u) and root may", (unsigned)cred.uid, (unsigned)geteuid());
        close(fd);
        return;
    }
    c->fd = fd;
    c->peer = (struct server_peer){ .pid = cred.pid, .uid = cred.uid, .gid = cred.gid };
    c->deadline = mct_now_ms() + REQUEST_TIMEOUT_MS;
}

/* Deadlines: a request not read in time is refused, a waiting trace is
 * offered again; returns the next deadline of all (or `next` if sooner). */
static long long conn_timers(long long now, long long next)
{
    mct_err e;
    int i;

    for (i = 0; i < MAX_CONNS; i++) {
        struct conn *c = &conns[i];

        if (c->fd < 0)
            continue;
        if (c->req != NULL) {
            if (now >= c->deadline)
                offer_trace(c, 1);
            else if (now >= c->retry_at)
                offer_trace(c, 0);
        } else if (now >= c->deadline) {
            mct_err_set(&e, MCT_E_IO, "timed out after %d ms waiting for a message", REQUEST_TIMEOUT_MS);
            refuse(c, &e);
        }
        if (c->fd < 0)
            continue;
        if (c->req != NULL && c->retry_at < next)
            next = c->retry_at;
        if (c->deadline < next)
            next = c->deadline;
    }
    return next;
}

/* With every entry taken and a peer waiting to be accepted: the entry of
 * the connection that has sent the least of its request for the longest
 * (accepted first), refused to make room, or -1 when every entry holds a
 * request already read (a trace waiting for the session to end). A client's
 * request comes whole right after its connect and is served in the pass
 * that reads it, so only connections that send nothing or dribble are
 * pushed out: a crowd of them cannot keep --info waiting for their 5 s. */
static int make_room(void)
{
    mct_err e;
    int i, oldest = -1;

    for (i = 0; i < MAX_CONNS; i++)
        if (conns[i].fd >= 0 && conns[i].req == NULL &&
            (oldest < 0 || conns[i].deadline < conns[oldest].deadline))
            oldest = i;
    if (oldest < 0)
        return -1;
    mct_err_set(&e, MCT_E_IO, "closed unfinished after %d other connections: send the "
                "request right after connecting", MAX_CONNS);
    refuse(&conns[oldest], &e);
    return oldest;
}

/* ---- the listener thread ------------------------------------------------ */

static int restore_socket(void);

/* Every tick: the socket file is put back if a /tmp cleaner took it
 * (once per loss: a failure is logged, then left to the next load). */
static void check_socket(void)
{
    pthread_mutex_lock(&srv.lock);
    if (!srv.restore_failed)
        srv.restore_failed = restore_socket() != 0;
    pthread_mutex_unlock(&srv.lock);
}

/* The listening socket to poll: a fresh one (from restore_socket) replaces
 * lfd, which is closed. */
static int adopt_fresh(int lfd)
{
    pthread_mutex_lock(&srv.lock);
    if (srv.fresh_fd >= 0) {
        close(lfd);
        lfd = srv.fresh_fd;
        srv.fresh_fd = -1;
    }
    pthread_mutex_unlock(&srv.lock);
    return lfd;
}

static void JNICALL listener(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    struct pollfd pfd[2 + MAX_CONNS];
    int at[MAX_CONNS];      /* the conns entry of pfd[2 + k] */
    int lfd = srv.listen_fd, wfd = srv.wake_rd, i;
    long long next_tick = mct_now_ms() + TICK_MS;

    for (i = 0; i < MAX_CONNS; i++)
        conns[i].fd = -1;
    for (;;) {
        long long now = mct_now_ms(), next;
        int n = 2, free_at = -1, k, rc;
        char b[16];
        ssize_t r;

        /* Only here, between polls: a socket adopted between a poll and
         * the accept it announced would be accepted on with nothing queued. */
        lfd = adopt_fresh(lfd);
        next = conn_timers(now, next_tick);
        for (i = 0; i < MAX_CONNS; i++) {
            if (conns[i].fd < 0) {
                if (free_at < 0)
                    free_at = i;
                continue;
            }
            /* A waiting trace is only watched for its peer hanging up. */
            pfd[n] = (struct pollfd){ .fd = conns[i].fd,
                                      .events = conns[i].req != NULL ? POLLRDHUP : POLLIN };
            at[n - 2] = i;
            n++;
        }
        pfd[0] = (struct pollfd){ .fd = wfd, .events = POLLIN };
        /* With every entry taken, a new peer replaces the oldest unfinished
         * request (make_room). */
        pfd[1] = (struct pollfd){ .fd = lfd, .events = POLLIN };
        rc = poll(pfd, (nfds_t)n, next > now ? (int)(next - now) : 0);
        if (rc < 0) {
            if (errno == EINTR)
                continue;
            vm_log("listener: poll: %s; stopped", strerror(errno));
            break;
        }
        if (pfd[0].revents != 0) {
            r = read(wfd, b, sizeof b);
            if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
                break;
        }
        for (k = 2; k < n; k++) {
            struct conn *c = &conns[at[k - 2]];

            if (pfd[k].revents == 0 || c->fd != pfd[k].fd)
                continue;
            if (c->req != NULL)
                conn_close(c);
            else
                conn_read(c);
        }
        if ((pfd[1].revents & POLLIN) && (free_at >= 0 || (free_at = make_room()) >= 0))
            conn_accept(lfd, &conns[free_at]);
        if (mct_now_ms() >= next_tick) {
            const struct server_session_ops *ops = session_ops();

            check_socket();
            if (ops != NULL && ops->tick != NULL)
                ops->tick();
            next_tick = mct_now_ms() + TICK_MS;
        }
    }
    for (i = 0; i < MAX_CONNS; i++)
        if (conns[i].fd >= 0)
            conn_close(&conns[i]);
    pthread_mutex_lock(&srv.lock);
    if (srv.fresh_fd >= 0)
        close(srv.fresh_fd);
    srv.fresh_fd = -1;
    pthread_mutex_unlock(&srv.lock);
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

/* Binds and listens on srv.path, noting which file it is; the fd or -1. */
static int open_listener(void)
{
    struct sockaddr_un sa;
    struct stat st;
    int fd;

    /* Non-blocking: a connection poll announced may be gone by the accept
     * (its peer gave up), and the listener must never wait in accept. */
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
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
    if (chmod(srv.path, 0600) < 0 || listen(fd, 16) < 0 || lstat(srv.path, &st) < 0) {
        vm_log("setting up %s: %s; not serving", srv.path, strerror(errno));
        close(fd);
        unlink(srv.path);
        return -1;
    }
    srv.dev = st.st_dev;
    srv.ino = st.st_ino;
    return fd;
}

/* Whether the file at srv.path is the socket bound last (lock held). */
static int socket_present(void)
{
    struct stat st;

    return lstat(srv.path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == srv.dev &&
           st.st_ino == srv.ino;
}

/* When the socket file is gone (a /tmp cleaner removed it or its
 * directory), binds a new one, which srv.fresh_fd hands to the listener.
 * Lock held. 0 or a PROTO_RC_* code, as server_start. */
static int restore_socket(void)
{
    int rc, fd;

    if (srv.stopped || socket_present())
        return 0;
    rc = make_dir();
    if (rc == 0)
        rc = clear_old_socket();
    if (rc != 0)
        return rc;
    fd = open_listener();
    if (fd < 0)
        return PROTO_RC_SOCKET;
    if (srv.fresh_fd >= 0)
        close(srv.fresh_fd);
    srv.fresh_fd = fd;
    vm_debug("%s was removed; listening on it again", srv.path);
    return 0;
}

int server_start(JNIEnv *jni)
{
    int wake[2], rc, kick;
    mct_err e;

    if (srv.running) {
        pthread_mutex_lock(&srv.lock);
        rc = restore_socket();
        srv.restore_failed = rc != 0;
        kick = srv.fresh_fd >= 0;
        pthread_mutex_unlock(&srv.lock);
        if (kick && write(srv.wake_wr, "r", 1) < 0 && errno != EAGAIN)
            vm_log("waking the listener: %s", strerror(errno));
        return rc;
    }
    snprintf(srv.dir, sizeof srv.dir, PROTO_SOCKET_DIR_FMT, "/tmp", (long)getpid());
    snprintf(srv.path, sizeof srv.path, "%s/%s", srv.dir, PROTO_SOCKET_NAME);
    rc = make_dir();
    if (rc != 0)
        return rc;
    rc = clear_old_socket();
    if (rc != 0)
        return rc;
    if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) < 0) {
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
    pthread_mutex_lock(&srv.lock);
    srv.stopped = 1;
    /* Only our own socket: another copy of the agent may serve there now. */
    if (socket_present() && unlink(srv.path) < 0)
        vm_log("cannot remove %s: %s", srv.path, strerror(errno));
    pthread_mutex_unlock(&srv.lock);
    if (rmdir(srv.dir) < 0 && errno != ENOENT && errno != ENOTEMPTY)
        vm_log("cannot remove %s: %s", srv.dir, strerror(errno));
}
