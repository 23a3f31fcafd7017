/* session.h — one tracing session at a time. A `trace` request starts a
 * session thread that plans, numbers and instruments the methods, answers
 * with the plan, then builds a tree for every completed call of the entry
 * method and writes it to the client, until the count is reached, the client
 * says stop or goes away, or an error. Every end restores the classes to
 * their original bytes. A second client meanwhile gets `busy`. */
#ifndef MCT_SESSION_H
#define MCT_SESSION_H

/* Plugs the session into the listener (server_set_session_ops). */
void session_register(void);

/* The JVM is dying: tell a running session's client, once. */
void session_vm_death(void);

#endif
