/* session.h — one tracing session at a time. A `trace` request starts a
 * session thread that plans, numbers and instruments the methods, answers
 * with the plan, then builds a tree for every completed call of the entry
 * method and writes it to the client, until the count is reached, the client
 * says stop or goes away, or an error. Every end restores the classes to
 * their original bytes. A second client meanwhile gets `busy`. */
#ifndef MCT_SESSION_H
#define MCT_SESSION_H

#include <jansson.h>

/* Plugs the session into the listener (server_set_session_ops). */
void session_register(void);

/* A session for a client inside the agent (agent/startup.c): fd (owned
 * from now on) is its end of a connection, req (stolen) a `trace` request,
 * as the listener would hand them over; errors go to fd, as to a client.
 * When req waits, the entry class is watched before this returns, so that
 * none of its calls is missed however soon it loads. On a Java thread. */
void session_start_local(int fd, json_t *req);

/* The reason of a `stop` that ends a session as the JVM exits: the calls
 * completed by then are sent before its `end`, not discarded. */
#define SESSION_STOP_JVM_EXIT "jvm_exit"

/* The JVM is dying: tell a running session's client, once. */
void session_vm_death(void);

#endif
