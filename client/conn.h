/* conn.h — talking to the agent inside the target JVM: its socket (see
 * protocol/PROTOCOL.md), one request per connection, and making sure an
 * agent serves, loading it through the attach protocol when none answers. */
#ifndef MCT_CONN_H
#define MCT_CONN_H

#include <jansson.h>

#include "cli.h"
#include "err.h"
#include "proc.h"

/* How long the agent has to answer hello. */
#define CONN_HELLO_TIMEOUT_MS 10000

/* Connects to the agent socket of t once sock.h found it, its directory and
 * the process serving it to be the JVM's (nothing is sent before); the fd,
 * or -1 with e set. *absent is set to 1 when no agent listens there (no
 * directory, no socket, or a dead one). */
int conn_open(const struct proc_target *t, int *absent, mct_err *e);

/* Makes sure an agent speaking our protocol serves in t: asks for hello,
 * and when nothing answers loads the agent library (agent_opt, or the
 * default of agentlib_find) and asks again. Returns the agent's hello
 * (caller decrefs), or NULL with e set to a message for the user and
 * *exit_code to the mct_exit status: MCT_EXIT_OK when a signal ended a wait
 * (e->code MCT_E_INTR). */
json_t *conn_ensure_agent(const struct proc_target *t, const char *agent_opt, int *exit_code,
                          mct_err *e);

/* The `trace` request for the command line c (caller decrefs), or NULL. */
json_t *conn_trace_request_new(const struct cli *c);

#endif
