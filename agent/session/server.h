/* server.h — the agent's front door: one Java daemon thread ("mcalltree
 * listener") serving the UNIX stream socket /tmp/.mcalltree-<pid>/agent.sock
 * (pid = the JVM's getpid(), directory mode 0700, owned by the JVM's user).
 * Nothing listens on TCP.
 *
 * Each connection carries one request (see protocol/PROTOCOL.md). The
 * listener checks the peer (SO_PEERCRED: the JVM's euid or root, else a
 * `denied` error), reads and validates the request, answers `hello` itself,
 * hands `trace` to the session module through struct server_session_ops,
 * and answers a `stop` on its own connection with `bad_request` (a session
 * is stopped on its own).
 *
 * It serves many connections at once from one poll loop: requests are read
 * without blocking, each connection within its own deadline (5 s from its
 * accept), so that a silent, slow or waiting peer never delays another's
 * hello. The listener also puts its socket back when a /tmp cleaner removed
 * it or its directory (checked every second, and at every load). */
#ifndef MCT_SERVER_H
#define MCT_SERVER_H

#include <jansson.h>
#include <jni.h>
#include <sys/types.h>

#include "msg.h"

/* Who is on the other end of a connection (from SO_PEERCRED). */
struct server_peer {
    pid_t pid;      /* in the JVM's pid namespace; 0 if outside it */
    uid_t uid;
    gid_t gid;
};

/* What the trace handler did with a request. */
enum server_verdict {
    SERVER_TAKEN,   /* it owns the connection and the request now */
    SERVER_LATER    /* ask again soon: the running session is ending */
};

/* What the session module plugs into the listener. Every member may be NULL.
 * The handlers run on the listener thread (a Java thread: vm_jni() works),
 * which serves every other connection: they must not block. peer is
 * borrowed for the call only. */
struct server_session_ops {
    /* A validated `trace` request on connection fd (blocking, close-on-exec,
     * with a 5 s send timeout (SO_SNDTIMEO) the handler may change). Either
     * takes ownership of fd (close it when done) and req (json_decref it) and
     * returns SERVER_TAKEN, or, unless last is set, returns SERVER_LATER and
     * leaves both to the listener, which asks again every few ms for up to
     * SERVER_TRACE_WAIT_MS (dropping the request if the peer hangs up),
     * then once more with last set. */
    enum server_verdict (*trace)(int fd, json_t *req, const struct server_peer *peer, int last);
    /* Completes hello with the running session (none: has_session 0) and
     * the number of classes instrumented now, and writes it
     * (msg_hello_write) while the session's strings it borrows are sure to
     * live; a new reference, or NULL when out of memory. May run on the
     * listener thread at any time once registered. */
    json_t *(*session)(struct msg_hello *hello);
    /* Housekeeping, called on the listener thread about once a second. */
    void (*tick)(void);
};

/* How long a `trace` may wait for the running session to end. */
#define SERVER_TRACE_WAIT_MS 5000

/* Registers ops (static storage; NULL unregisters). Call before the JVM can
 * load the agent's listener, e.g. from agent.c, or at any time: the pointer
 * is read atomically per request. */
void server_set_session_ops(const struct server_session_ops *ops);

/* Starts serving; the JVM must be live. When this copy of the agent serves
 * already, puts its socket back if it is gone (with its directory) and
 * returns 0. Else 0, or a PROTO_RC_* code with the reason on the JVM's
 * stderr: PROTO_RC_UNSAFE_DIR when the socket directory exists but is not a
 * 0700 directory of the JVM's euid, PROTO_RC_OTHER_AGENT when another copy
 * of the agent answers on the socket, PROTO_RC_SOCKET or PROTO_RC_JVMTI on
 * system failures. Not thread-safe: the caller serialises (vm.c holds its
 * lock). */
int server_start(JNIEnv *jni);

/* Stops accepting and removes the socket and its directory; idempotent. Does
 * not wait for the listener thread (it exits at its next wake-up). */
void server_stop(void);

#endif
