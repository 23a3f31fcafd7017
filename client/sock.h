/* sock.h — connecting to the UNIX sockets a JVM serves in its /tmp (its
 * attach listener's, the agent's) without believing anything that was not
 * checked. This module alone decides whether such a socket can be trusted,
 * and it decides before a byte is sent: the file, found without following
 * symbolic links, is a socket owned by the JVM's user or root (and the
 * agent's directory a private one of theirs); the connection goes to that
 * very file (through its O_PATH descriptor, so that no name swapped in after
 * the check is followed), with the JVM's identity (proc_become); and the
 * process listening on it (SO_PEERCRED) is the JVM itself, as the JVM's
 * user or root. The errors a user can act on are worded here once. */
#ifndef MCT_SOCK_H
#define MCT_SOCK_H

#include "err.h"
#include "proc.h"

/* Opens the directory name in dirfd (shown as `shown` in messages) that JVM
 * t keeps private for the socket of `what` (the agent): a directory, not a
 * symbolic link, owned by t's user or root, closed to group and others. The
 * fd (O_PATH, close-on-exec, caller closes), or -1 with e set:
 * MCT_E_NOTFOUND when it does not exist, MCT_E_IO naming what is wrong and
 * what to remove. */
int sock_open_private_dir(const struct proc_target *t, int dirfd, const char *name,
                          const char *shown, const char *what, mct_err *e);

/* Recognises, in dirfd, the directory name (shown as `shown`) that a dead
 * agent of another user left for JVM t's pid (SIGKILL, the OOM killer): a
 * private (0700) directory, not a symbolic link, of a uid that may not
 * speak for t, holding nothing but a socket on which nothing listens. It
 * removes it (the socket, then the directory) and
 * returns 1; 0 when there is nothing of the kind (the checks of
 * sock_open_private_dir then say what is wrong), or -1 with e set
 * (MCT_E_IO) when it is such a directory but this user may not remove it,
 * saying how to. */
int sock_clear_dead_dir(const struct proc_target *t, int dirfd, const char *name,
                        const char *shown, mct_err *e);

/* Connects to the socket name in directory dirfd (the file shown as `shown`)
 * that JVM t serves, `what` ("the agent", "the JVM's attach listener")
 * naming it in messages, after the checks above. The fd (close-on-exec), or
 * -1 with e set: MCT_E_NOTFOUND when nothing is there or nothing listens
 * (a stale socket), MCT_E_IO otherwise (permission denied with the advice
 * to run as the JVM's user or root; a socket that is not the JVM's with
 * whom it belongs to and what to remove). */
int sock_connect_at(const struct proc_target *t, int dirfd, const char *name, const char *shown,
                    const char *what, mct_err *e);

#endif
