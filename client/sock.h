/* sock.h — connecting to a UNIX stream socket by path (the JVM's attach
 * socket, the agent's socket), with the errors a user can act on worded once. */
#ifndef MCT_SOCK_H
#define MCT_SOCK_H

#include "err.h"
#include "proc.h"

/* Connects to the socket at path of target t (named `what` in messages:
 * "the attach socket", "the agent"); the fd (close-on-exec), or -1 with e
 * set and errno kept from connect(): ENOENT or ECONNREFUSED when nothing
 * listens there (MCT_E_NOTFOUND), EACCES or EPERM with the advice to run as
 * the JVM's user or root. */
int sock_connect(const char *path, const struct proc_target *t, const char *what, mct_err *e);

#endif
