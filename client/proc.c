/* proc.c — see proc.h. */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"

/* ---- pure parsers ------------------------------------------------------- */

/* The value of the line "key:\t..." of a status text, or NULL. */
static const char *status_value(const char *text, const char *key)
{
    size_t n = strlen(key);

    for (const char *line = text; line != NULL && *line != '\0';) {
        if (strncmp(line, key, n) == 0 && line[n] == ':')
            return line + n + 1;
        line = strchr(line, '\n');
        if (line != NULL)
            line++;
    }
    return NULL;
}

/* Parses the second decimal field of a Uid:/Gid: value (a 32-bit id). */
static int second_id(const char *v, unsigned long *out)
{
    char *end;

    errno = 0;
    strtoul(v, &end, 10);
    if (errno != 0 || end == v)
        return -1;
    v = end;
    *out = strtoul(v, &end, 10);
    if (errno != 0 || end == v || *out > UINT32_MAX)
        return -1;
    return 0;
}

/* Parses the last decimal field of the line that starts at v. */
static int last_field(const char *v, long *out)
{
    const char *eol = strchrnul(v, '\n');
    int found = 0;

    while (v < eol) {
        char *end;
        long x;

        while (v < eol && (*v == ' ' || *v == '\t'))
            v++;
        if (v == eol)
            break;
        errno = 0;
        x = strtol(v, &end, 10);
        if (errno != 0 || end == v || end > eol)
            return -1;
        *out = x;
        found = 1;
        v = end;
    }
    return found ? 0 : -1;
}

/* Whether SIGQUIT is set in the hexadecimal signal mask of a Sig*: value. */
static int mask_has_sigquit(const char *v, int *out)
{
    char *end;
    unsigned long long mask;

    while (*v == ' ' || *v == '\t')
        v++;
    errno = 0;
    mask = strtoull(v, &end, 16);
    if (errno != 0 || end == v)
        return -1;
    *out = (mask >> (SIGQUIT - 1)) & 1;
    return 0;
}

int proc_parse_status(const char *text, struct proc_status *st, mct_err *e)
{
    const char *v;
    unsigned long id;
    long nspid = 0;

    memset(st, 0, sizeof *st);
    if ((v = status_value(text, "Name")) != NULL) {
        size_t n;

        v += strspn(v, " \t");
        n = strcspn(v, "\n");
        snprintf(st->name, sizeof st->name, "%.*s", (int)n, v);
    }
    if ((v = status_value(text, "Uid")) == NULL || second_id(v, &id) < 0)
        return mct_err_set(e, MCT_E_PROTO, "no effective uid in the Uid: line");
    st->euid = (uid_t)id;
    if ((v = status_value(text, "Gid")) == NULL || second_id(v, &id) < 0)
        return mct_err_set(e, MCT_E_PROTO, "no effective gid in the Gid: line");
    st->egid = (gid_t)id;
    /* NStgid: lists the pid in each nested namespace, innermost last; kernels
     * before 4.1 have only Tgid:. */
    v = status_value(text, "NStgid");
    if (v == NULL)
        v = status_value(text, "Tgid");
    if (v == NULL || last_field(v, &nspid) < 0 || nspid <= 0 || nspid > INT_MAX)
        return mct_err_set(e, MCT_E_PROTO, "no pid in the NStgid:/Tgid: line");
    st->nspid = (pid_t)nspid;
    if ((v = status_value(text, "SigCgt")) == NULL || mask_has_sigquit(v, &st->sigquit_caught) < 0)
        return mct_err_set(e, MCT_E_PROTO, "no SigCgt: line");
    if ((v = status_value(text, "SigIgn")) == NULL || mask_has_sigquit(v, &st->sigquit_ignored) < 0)
        return mct_err_set(e, MCT_E_PROTO, "no SigIgn: line");
    return 0;
}

int proc_maps_line_is_libjvm(const char *line)
{
    const char *p = strstr(line, "/libjvm.so");

    return p != NULL && (p[10] == '\0' || p[10] == '\n' || p[10] == ' ');
}

int proc_cmdline_flag(const char *cmdline, size_t n, const char *name)
{
    const char *p = cmdline, *end = cmdline + n;
    size_t name_len = strlen(name);
    int value = -1;

    while (p < end) {
        const char *nul = memchr(p, '\0', (size_t)(end - p));
        size_t len = nul != NULL ? (size_t)(nul - p) : (size_t)(end - p);

        if (len == 5 + name_len && strncmp(p, "-XX:", 4) == 0 && (p[4] == '+' || p[4] == '-') &&
            memcmp(p + 5, name, name_len) == 0)
            value = p[4] == '+';
        p += len + 1;
    }
    return value;
}

/* Whether java's option opt takes the next word as its value. */
static int takes_value(const char *opt)
{
    static const char *const with_value[] = { "-cp", "-classpath", "--class-path", "-p", "--module-path",
                                              "--add-modules", "--add-opens", "--add-exports", "--add-reads",
                                              "--limit-modules", "--upgrade-module-path", "--patch-module",
                                              "--source", "--enable-native-access" };

    for (size_t i = 0; i < sizeof with_value / sizeof with_value[0]; i++)
        if (strcmp(opt, with_value[i]) == 0)
            return 1;
    return 0;
}

int proc_cmdline_main(const char *cmdline, size_t n, char *buf, size_t cap)
{
    const char *p = cmdline, *end = cmdline + n;
    int first = 1, next_is_main = 0;

    while (p < end) {
        const char *nul = memchr(p, '\0', (size_t)(end - p));
        size_t len = nul != NULL ? (size_t)(nul - p) : (size_t)(end - p);
        char word[4096];

        snprintf(word, sizeof word, "%.*s", (int)len, p);
        p += len + 1;
        if (first) {                /* the program itself */
            first = 0;
            continue;
        }
        if (next_is_main || word[0] != '-') {
            if (word[0] == '\0')
                return -1;
            snprintf(buf, cap, "%s", word);
            return 0;
        }
        if (strcmp(word, "-jar") == 0 || strcmp(word, "-m") == 0 || strcmp(word, "--module") == 0) {
            next_is_main = 1;
        } else if (takes_value(word) && p < end) {
            const char *v = memchr(p, '\0', (size_t)(end - p));

            p = v != NULL ? v + 1 : end;
        }
    }
    return -1;
}

/* ---- reading /proc ------------------------------------------------------ */

/* Reads at most cap - 1 bytes of path into buf, NUL-terminated; the length,
 * or -1 with errno set. */
static ssize_t read_small_file(const char *path, char *buf, size_t cap)
{
    size_t len = 0;
    int fd;

    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    while (len < cap - 1) {
        ssize_t r = read(fd, buf + len, cap - 1 - len);

        if (r < 0) {
            if (errno == EINTR)
                continue;
            int saved = errno;
            close(fd);
            errno = saved;
            return -1;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    buf[len] = '\0';
    return (ssize_t)len;
}

/* Whether pid's mount namespace is ours; *err gets readlink's errno when
 * that cannot be told. */
static enum proc_mntns mount_ns(pid_t pid, int *err)
{
    char mine[64], theirs[64], path[64];
    ssize_t a, b;

    snprintf(path, sizeof path, "/proc/%d/ns/mnt", (int)pid);
    a = readlink("/proc/self/ns/mnt", mine, sizeof mine - 1);
    b = a < 0 ? -1 : readlink(path, theirs, sizeof theirs - 1);
    if (a < 0 || b < 0) {
        *err = errno;
        return PROC_MNTNS_UNKNOWN;
    }
    return a != b || memcmp(mine, theirs, (size_t)a) != 0 ? PROC_MNTNS_OTHER : PROC_MNTNS_OURS;
}

/* ---- the target's file system ------------------------------------------ */

/* Opens path component by component from rootfd, refusing symbolic links
 * (ELOOP) and ".." (EXDEV): the fallback for kernels without openat2. */
static int walk_in_root(int rootfd, const char *path, int flags)
{
    char comp[NAME_MAX + 1], self[64];
    int dir = rootfd;

    for (;;) {
        struct stat st;
        size_t n;
        int fd, last, err;

        path += strspn(path, "/");
        n = strcspn(path, "/");
        last = path[n + strspn(path + n, "/")] == '\0';
        if (n == 0 || n > NAME_MAX || (n == 2 && memcmp(path, "..", 2) == 0)) {
            err = n == 0 ? ENOENT : n > NAME_MAX ? ENAMETOOLONG : EXDEV;
            fd = -1;
        } else {
            memcpy(comp, path, n);
            comp[n] = '\0';
            /* O_PATH | O_NOFOLLOW opens a symbolic link itself: fstat tells. */
            fd = openat(dir, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
            err = fd < 0 ? errno : fstat(fd, &st) < 0 ? errno : S_ISLNK(st.st_mode) ? ELOOP
                : !S_ISDIR(st.st_mode) && (!last || (flags & O_DIRECTORY)) ? ENOTDIR : 0;
        }
        if (dir != rootfd)
            close(dir);
        if (err != 0) {
            if (fd >= 0)
                close(fd);
            errno = err;
            return -1;
        }
        if (!last) {
            dir = fd;
            path += n;
            continue;
        }
        if (flags & O_PATH)
            return fd;
        /* Reopens the very file found, not whatever the name holds by now. */
        snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
        dir = open(self, flags | O_CLOEXEC);
        err = errno;
        close(fd);
        errno = err;
        return dir;
    }
}

/* Opens path below rootfd as if rootfd were "/". */
static int open_in_root(int rootfd, const char *path, int flags)
{
    struct open_how how = {
        .flags = (unsigned long long)(flags | O_CLOEXEC),
        .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
    };
    long fd = syscall(SYS_openat2, rootfd, path, &how, sizeof how);

    /* ENOSYS before Linux 5.6; EPERM from seccomp filters that predate it. */
    if (fd < 0 && (errno == ENOSYS || errno == EPERM))
        return walk_in_root(rootfd, path, flags);
    return (int)fd;
}

int proc_open_in_root(const struct proc_target *t, const char *path, int flags)
{
    if (t->rootfd < 0) {
        errno = EACCES;
        return -1;
    }
    return open_in_root(t->rootfd, path, flags);
}

/* Opens the root directory of t: /proc/PID/root, or ours when that cannot
 * be opened (a JVM that is not dumpable) but its mount namespace is known to
 * be ours (ns_err: why it could not be told). Sets t->tmp_err when there is
 * none. */
static void open_root(struct proc_target *t, int ns_err)
{
    char path[64];
    int err;

    snprintf(path, sizeof path, "/proc/%d/root", (int)t->pid);
    t->rootfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (t->rootfd >= 0)
        return;
    err = errno;
    if (t->mntns == PROC_MNTNS_OURS && (err == EACCES || err == EPERM)) {
        log_verbose("cannot open %s (%s); using our root, its mount namespace is ours", path,
                    strerror(err));
        t->rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (t->rootfd >= 0)
            return;
        err = errno;
    }
    if (t->mntns == PROC_MNTNS_UNKNOWN)
        mct_err_set(&t->tmp_err, MCT_E_IO, "cannot reach the file system of process %d through "
                    "%s (%s), and its mount namespace cannot be inspected (/proc/%d/ns/mnt: %s); "
                    "run mcalltree as root%s", (int)t->pid, path, strerror(err), (int)t->pid,
                    strerror(ns_err), geteuid() == t->st.euid ? "" : " or as the process's user");
    else
        mct_err_set(&t->tmp_err, MCT_E_IO, "cannot reach the file system of process %d through "
                    "%s: %s%s", (int)t->pid, path, strerror(err),
                    err == EACCES || err == EPERM ? "; run mcalltree as root" : "");
}

/* Resolves t's /tmp inside its root into t->tmpfd, or sets t->tmp_err. */
static void open_tmp(struct proc_target *t)
{
    struct stat ours, theirs;

    if (t->rootfd < 0)
        return;
    if (t->mntns == PROC_MNTNS_OURS && stat("/", &ours) == 0 && fstat(t->rootfd, &theirs) == 0 &&
        ours.st_dev == theirs.st_dev && ours.st_ino == theirs.st_ino)
        snprintf(t->tmp, sizeof t->tmp, "/tmp");
    else
        snprintf(t->tmp, sizeof t->tmp, "/proc/%d/root/tmp", (int)t->pid);
    t->tmpfd = open_in_root(t->rootfd, "/tmp", O_PATH | O_DIRECTORY);
    if (t->tmpfd >= 0)
        return;
    if (errno == ELOOP)
        mct_err_set(&t->tmp_err, MCT_E_IO, "the /tmp of process %d is a symbolic link, which "
                    "this kernel (without openat2) cannot resolve inside the process's root; "
                    "make its /tmp a directory", (int)t->pid);
    else
        mct_err_set(&t->tmp_err, MCT_E_IO, "cannot open the /tmp of process %d (%s, resolved "
                    "inside its root): %s", (int)t->pid, t->tmp, strerror(errno));
}

int proc_tmp(const struct proc_target *t, mct_err *e)
{
    if (t->tmpfd < 0) {
        *e = t->tmp_err;
        return -1;
    }
    return t->tmpfd;
}

int proc_inspect(pid_t pid, struct proc_target *t, mct_err *e)
{
    /* Groups: comes before NStgid: and SigCgt:, and a user in hundreds of
     * groups makes it kilobytes long; NGROUPS_MAX is 65536, but 64 KiB holds
     * thousands of groups. */
    static char text[64 * 1024];
    char path[64];
    int ns_err = 0;

    memset(t, 0, sizeof *t);
    t->pid = pid;
    t->rootfd = t->tmpfd = -1;
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    if (read_small_file(path, text, sizeof text) < 0) {
        if (errno == ENOENT || errno == ESRCH)
            return mct_err_set(e, MCT_E_NOTFOUND, "no such process: %d", (int)pid);
        return mct_err_set(e, MCT_E_IO, "cannot read %s: %s", path, strerror(errno));
    }
    if (proc_parse_status(text, &t->st, e) < 0)
        return mct_err_wrap(e, "%s", path);
    t->mntns = mount_ns(pid, &ns_err);
    snprintf(t->tmp, sizeof t->tmp, "/proc/%d/root/tmp", (int)pid);
    open_root(t, ns_err);
    open_tmp(t);
    log_verbose("process %d (%s): uid %u, gid %u, pid %d in its namespace, %s mount "
                "namespace, its /tmp is %s%s", (int)pid, t->st.name, (unsigned)t->st.euid,
                (unsigned)t->st.egid, (int)t->st.nspid,
                t->mntns == PROC_MNTNS_OURS ? "our" : t->mntns == PROC_MNTNS_OTHER ? "another"
                                                                                 : "an unknown",
                t->tmp, t->tmpfd < 0 ? " (unreachable)" : "");
    return 0;
}

int proc_is_jvm(const struct proc_target *t, mct_err *e)
{
    char path[64], *line = NULL;
    size_t cap = 0;
    FILE *f;
    int found = 0;

    snprintf(path, sizeof path, "/proc/%d/maps", (int)t->pid);
    f = fopen(path, "re");
    if (f == NULL)
        return mct_err_set(e, MCT_E_IO, "cannot read %s: %s", path, strerror(errno));
    while (!found && getline(&line, &cap, f) > 0)
        found = proc_maps_line_is_libjvm(line);
    free(line);
    fclose(f);
    return found;
}

int proc_jvm_flag(const struct proc_target *t, const char *name)
{
    static char cmdline[256 * 1024];
    char path[64];
    ssize_t n;

    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)t->pid);
    n = read_small_file(path, cmdline, sizeof cmdline);
    if (n < 0)
        return -1;
    return proc_cmdline_flag(cmdline, (size_t)n, name);
}

int proc_alive(const struct proc_target *t)
{
    char path[64], buf[512];
    const char *paren;
    ssize_t n;
    int fd;

    if (kill(t->pid, 0) < 0 && errno != EPERM)
        return 0;
    /* An exited JVM its parent has not reaped yet is a zombie: gone. */
    snprintf(path, sizeof path, "/proc/%d/stat", (int)t->pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 1;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 1;
    buf[n] = '\0';
    paren = strrchr(buf, ')');
    return !(paren != NULL && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X'));
}

/* ---- identity ----------------------------------------------------------- */

int proc_become(const struct proc_target *t, struct proc_creds *saved, mct_err *e)
{
    static int said;
    int n;

    memset(saved, 0, sizeof *saved);
    saved->euid = geteuid();
    saved->egid = getegid();
    if (saved->euid != 0 || t->st.euid == 0)
        return 0;
    n = getgroups(0, NULL);
    if (n < 0)
        return mct_err_set(e, MCT_E_IO, "cannot read our supplementary groups: %s",
                           strerror(errno));
    saved->groups = malloc((size_t)(n > 0 ? n : 1) * sizeof *saved->groups);
    if (saved->groups == NULL)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory for our %d supplementary groups", n);
    saved->ngroups = getgroups(n, saved->groups);
    if (saved->ngroups < 0) {
        int saved_errno = errno;

        free(saved->groups);
        return mct_err_set(e, MCT_E_IO, "cannot read our supplementary groups: %s",
                           strerror(saved_errno));
    }
    /* Root's groups would open directories the JVM's user cannot write. */
    if (setgroups(0, NULL) < 0) {
        int saved_errno = errno;

        free(saved->groups);
        return mct_err_set(e, MCT_E_IO, "setgroups: %s", strerror(saved_errno));
    }
    if (setegid(t->st.egid) < 0 || seteuid(t->st.euid) < 0) {
        int saved_errno = errno;

        /* Cannot go back: never go on with a half identity. */
        if (setegid(saved->egid) < 0 || setgroups((size_t)saved->ngroups, saved->groups) < 0)
            abort();
        free(saved->groups);
        return mct_err_set(e, MCT_E_IO, "acting as uid %u, gid %u: %s", (unsigned)t->st.euid,
                           (unsigned)t->st.egid, strerror(saved_errno));
    }
    saved->switched = 1;
    /* A run switches for every connection: say it once. */
    if (!said++)
        log_verbose("acting as uid %u, gid %u, no supplementary groups (the JVM's user)",
                    (unsigned)t->st.euid, (unsigned)t->st.egid);
    return 0;
}

void proc_restore(struct proc_creds *saved)
{
    if (!saved->switched)
        return;
    /* Failing to become root again would leave us half switched; stop. */
    if (seteuid(saved->euid) < 0 || setegid(saved->egid) < 0 ||
        setgroups((size_t)saved->ngroups, saved->groups) < 0)
        abort();
    free(saved->groups);
    saved->groups = NULL;
    saved->switched = 0;
}

int proc_java_main(pid_t pid, char *buf, size_t cap)
{
    char path[64], text[16384];
    ssize_t n;

    snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)pid);
    n = read_small_file(path, text, sizeof text);
    return n <= 0 ? -1 : proc_cmdline_main(text, (size_t)n, buf, cap);
}
