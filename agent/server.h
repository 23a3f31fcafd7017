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
 * is stopped on its own). */
#ifndef MCT_SERVER_H
#define MCT_SERVER_H

#include <jansson.h>
#include <jni.h>
#include <sys/types.h>

/* Who is on the other end of a connection (from SO_PEERCRED). */
struct server_peer {
    pid_t pid;      /* in the JVM's pid namespace; 0 if outside it */
    uid_t uid;
    gid_t gid;
};

/* What the session module plugs into the listener. Every member may be NULL.
 * The handlers run on the listener thread (a Java thread: vm_jni() works),
 * which serves no other connection until they return: hand long work to
 * another thread. peer is borrowed for the call only. */
struct server_session_ops {
    /* A validated `trace` request. Takes ownership of fd (close it when the
     * session ends) and of req (json_decref it). fd is blocking, close-on-
     * exec, with a 5 s send timeout (SO_SNDTIMEO) the handler may change. */
    void (*trace)(int fd, json_t *req, const struct server_peer *peer);
    /* The "session" object of hello (a new reference, or NULL for null) and
     * the number of classes instrumented now, in *instrumented_classes. May
     * run on the listener thread at any time once registered. */
    json_t *(*session)(long long *instrumented_classes);
};

/* Registers ops (static storage; NULL unregisters). Call before the JVM can
 * load the agent's listener, e.g. from agent.c, or at any time: the pointer
 * is read atomically per connection. */
void server_set_session_ops(const struct server_session_ops *ops);

/* Starts serving; the JVM must be live. Returns 0, also when this copy of
 * the agent serves already; else a PROTO_RC_* code with the reason on the
 * JVM's stderr: PROTO_RC_UNSAFE_DIR when the socket directory exists but is
 * not a 0700 directory of the JVM's euid, PROTO_RC_OTHER_AGENT when another
 * copy of the agent answers on the socket, PROTO_RC_SOCKET or
 * PROTO_RC_JVMTI on system failures. Not thread-safe: the caller serialises
 * (vm.c holds its lock). */
int server_start(JNIEnv *jni);

/* Stops accepting and removes the socket and its directory; idempotent. Does
 * not wait for the listener thread (it exits at its next wake-up). */
void server_stop(void);

#endif
