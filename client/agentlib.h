/* agentlib.h — finding libmcalltree.so and making it loadable by the target:
 * the JVM resolves the path in its own mount namespace with its own user, so
 * when it would not find or read the same file there, a private copy goes
 * into the target's /tmp for the time of the load. */
#ifndef MCT_AGENTLIB_H
#define MCT_AGENTLIB_H

#include <limits.h>
#include <stddef.h>

#include "err.h"
#include "proc.h"

#define AGENTLIB_NAME "libmcalltree.so"

/* Puts the absolute path of the agent library in out: opt (--agent), else
 * $MCALLTREE_AGENT, else <dir of this program>/../agent/libmcalltree.so (a
 * build tree), else MCT_PKGLIBDIR/libmcalltree.so (installed). -1 with e set
 * naming what was tried. */
int agentlib_find(const char *opt, char *out, size_t size, mct_err *e);

/* The library as the target will load it. */
struct agentlib_use {
    char target_path[PATH_MAX];     /* the path to give the JVM */
    char copy[PATH_MAX];            /* the private directory holding the copy (and the
                                       libraries it needs) as messages name it, "" if none */
    char copy_name[64];             /* its name in the target's /tmp */
    int tmpfd;                      /* the target's /tmp (borrowed from the proc_target) */
    int copyfd;                     /* the directory (O_PATH, owned), -1 if none */
};

/* Opens the library at path for reading, with the caller's identity (before
 * proc_become); the fd, or -1 with e set. */
int agentlib_open(const char *path, mct_err *e);

/* Fills *u so that the target can load the library open at fd (found at
 * path): path itself when the target sees the same file there (resolved
 * inside its root) and can read it, else a private copy in a directory of
 * its /tmp (reached with proc_tmp, never through our own file system), next
 * to a copy of the shared libraries the agent needs beyond libc (its
 * RUNPATH is $ORIGIN), for a container whose file system lacks them. Run
 * with the target's identity. 0 or -1 with e set. */
int agentlib_prepare(int fd, const char *path, const struct proc_target *t,
                     struct agentlib_use *u, mct_err *e);

/* Removes the copies and their directory, if any (the JVM keeps its
 * mappings). */
void agentlib_release(struct agentlib_use *u);

#endif
