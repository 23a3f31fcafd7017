/* proc.h — what /proc tells about the target process: its effective ids,
 * its pid in its own pid namespace, whether it handles SIGQUIT, its mount
 * namespace, its root and /tmp (resolved inside that root, never against
 * ours), whether it runs a JVM; and taking its identity for a while when
 * mcalltree runs as root. */
#ifndef MCT_PROC_H
#define MCT_PROC_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "err.h"

/* The fields of /proc/PID/status that attaching needs. */
struct proc_status {
    char name[64];          /* Name: (the command, at most 15 characters) */
    uid_t euid;             /* second field of Uid: */
    gid_t egid;             /* second field of Gid: */
    pid_t nspid;            /* last field of NStgid: (Tgid: on old kernels) */
    int sigquit_caught;     /* SIGQUIT set in SigCgt: */
    int sigquit_ignored;    /* SIGQUIT set in SigIgn: */
};

/* Parses the text of /proc/PID/status; 0 or -1 with e set (MCT_E_PROTO)
 * naming the missing or malformed line. */
int proc_parse_status(const char *text, struct proc_status *st, mct_err *e);

/* Whether one line of /proc/PID/maps maps libjvm.so. */
int proc_maps_line_is_libjvm(const char *line);

/* The last setting of the boolean JVM flag name (-XX:+name = 1, -XX:-name =
 * 0) in a NUL-separated command line of n bytes, or -1 if it is absent. */
int proc_cmdline_flag(const char *cmdline, size_t n, const char *name);

/* What a java command line of n bytes (NUL-separated) runs, as `jps -l`
 * names it: the jar after -jar, the module/class after -m, else the first
 * word after the options (their values skipped), copied into buf (cap
 * bytes, cut); 0, or -1 when there is none. */
int proc_cmdline_main(const char *cmdline, size_t n, char *buf, size_t cap);

/* proc_cmdline_main of process pid's command line; 0 or -1. */
int proc_java_main(pid_t pid, char *buf, size_t cap);

/* Whether a target's mount namespace is ours; UNKNOWN when /proc/PID/ns/mnt
 * cannot be read (another user's process, or one that is not dumpable). */
enum proc_mntns { PROC_MNTNS_OURS, PROC_MNTNS_OTHER, PROC_MNTNS_UNKNOWN };

/* A target process as this process can reach it. The descriptors are
 * O_PATH and close-on-exec, opened by proc_inspect and kept for the rest of
 * the run (the client inspects one target per run). */
struct proc_target {
    pid_t pid;              /* as the caller sees it */
    struct proc_status st;
    enum proc_mntns mntns;  /* whether its mount namespace is ours */
    int rootfd;             /* its root directory, -1 when it cannot be reached */
    int tmpfd;              /* its /tmp resolved inside its root, -1 when it cannot be */
    mct_err tmp_err;        /* why tmpfd is -1 */
    char tmp[64];           /* its /tmp as messages name it: /tmp when its mount
                               namespace and root are ours, else /proc/PID/root/tmp */
};

/* Reads what attaching needs about pid; -1 with e set: MCT_E_NOTFOUND
 * when there is no such process, MCT_E_IO otherwise. Failing to reach the
 * target's /tmp is not an error yet: proc_tmp reports it when it is needed. */
int proc_inspect(pid_t pid, struct proc_target *t, mct_err *e);

/* The target's /tmp: a directory fd (O_PATH, borrowed from t) resolved
 * inside the target's root, so that a symbolic link there never leads into
 * our file system; -1 with e set (MCT_E_IO, the reason) when it could not
 * be resolved. Use it with the *at() calls, or as /proc/self/fd/N/NAME. */
int proc_tmp(const struct proc_target *t, mct_err *e);

/* Opens the absolute path as the target would see it, every symbolic link
 * resolved inside its root (openat2 RESOLVE_IN_ROOT; without openat2, any
 * symbolic link is refused with ELOOP). The fd (close-on-exec, caller
 * closes) or -1 with errno set. */
int proc_open_in_root(const struct proc_target *t, const char *path, int flags);

/* 1 if the target maps libjvm.so, 0 if not, -1 with e set when its maps
 * cannot be read. */
int proc_is_jvm(const struct proc_target *t, mct_err *e);

/* The last setting of JVM flag name on the target's command line (see
 * proc_cmdline_flag), -1 when absent or unreadable. */
int proc_jvm_flag(const struct proc_target *t, const char *name);

/* Whether the target still exists. */
int proc_alive(const struct proc_target *t);

/* Saved identity of this process while it acts as the target's user. */
struct proc_creds {
    int switched;
    uid_t euid;
    gid_t egid;
    int ngroups;
    gid_t *groups;          /* our supplementary groups; owned, freed by proc_restore */
};

/* When running as root and the target is not root, drops our supplementary
 * groups and takes the target's effective gid then uid (files created belong
 * to the target's user, and no permission of root's groups is left);
 * otherwise does nothing. 0 or -1 with e set. Undo with proc_restore. */
int proc_become(const struct proc_target *t, struct proc_creds *saved, mct_err *e);

/* Returns to the identity saved by proc_become (groups included). */
void proc_restore(struct proc_creds *saved);

#endif
