/* sock.c — see sock.h. */
#include "sock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "proto.h"

/* Whether a file of uid may speak for JVM t: its user, or root. */
static int trusted_uid(const struct proc_target *t, uid_t uid)
{
    return uid == t->st.euid || uid == 0;
}

/* The error for the file at shown (st), which is not the file of type
 * (S_IFDIR, S_IFSOCK) that JVM t would have made. */
static int untrusted(const struct proc_target *t, const struct stat *st, const char *shown,
                     mode_t type, const char *what, mct_err *e)
{
    const char *kind = type == S_IFDIR ? "a directory" : "a socket";

    if (S_ISLNK(st->st_mode))
        return mct_err_set(e, MCT_E_IO, "remove %s: it is a symbolic link, not %s; someone may "
                           "be impersonating %s", shown, kind, what);
    if ((st->st_mode & S_IFMT) != type)
        return mct_err_set(e, MCT_E_IO, "remove %s: it is not %s; someone may be impersonating %s",
                           shown, kind, what);
    if (!trusted_uid(t, st->st_uid))
        return mct_err_set(e, MCT_E_IO, "remove %s: it belongs to uid %u, not to the JVM's user "
                           "(uid %u); someone may be impersonating %s", shown,
                           (unsigned)st->st_uid, (unsigned)t->st.euid, what);
    return mct_err_set(e, MCT_E_IO, "remove %s: it has mode %04o, it is not a private (0700) "
                       "directory of the JVM's user; someone may be impersonating %s", shown,
                       (unsigned)(st->st_mode & 07777), what);
}

int sock_open_private_dir(const struct proc_target *t, int dirfd, const char *name,
                          const char *shown, const char *what, mct_err *e)
{
    struct stat st;
    int fd;

    fd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;

        if (err == ENOENT)
            return mct_err_set(e, MCT_E_NOTFOUND, "no %s", shown);
        if ((err == ELOOP || err == ENOTDIR) && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
            return untrusted(t, &st, shown, S_IFDIR, what, e);
        return mct_err_set(e, MCT_E_IO, "cannot open %s: %s", shown, strerror(err));
    }
    if (fstat(fd, &st) < 0) {
        int err = errno;

        close(fd);
        return mct_err_set(e, MCT_E_IO, "cannot check %s: %s", shown, strerror(err));
    }
    if (!S_ISDIR(st.st_mode) || !trusted_uid(t, st.st_uid) || (st.st_mode & 077) != 0) {
        close(fd);
        return untrusted(t, &st, shown, S_IFDIR, what, e);
    }
    return fd;
}

/* Whether the socket name in directory dfd has no listener: a connect to
 * it is refused. Only a connect, nothing sent: a listener, whoever it is,
 * learns nothing but that someone looked. */
static int nobody_listens(int dfd, const char *name)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int fd, sfd, rc, err;

    sfd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (sfd < 0)
        return 0;
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        close(sfd);
        return 0;
    }
    snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d", sfd);
    rc = connect(fd, (struct sockaddr *)&sa, sizeof sa);
    err = errno;
    close(fd);
    close(sfd);
    return rc < 0 && err == ECONNREFUSED;
}

/* Whether directory dfd holds nothing but a socket `sock` owned by uid
 * on which nothing listens, or nothing at all: *has_sock says which. */
static int dead_content(int dfd, uid_t uid, const char *sock, int *has_sock)
{
    struct stat st;
    struct dirent *d;
    DIR *dir;
    int fd, ok = 1;

    *has_sock = 0;
    if ((fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
        (dir = fdopendir(fd)) == NULL) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    while (ok && (d = readdir(dir)) != NULL) {
        if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
            continue;
        ok = strcmp(d->d_name, sock) == 0 && fstatat(dfd, sock, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
             S_ISSOCK(st.st_mode) && st.st_uid == uid && nobody_listens(dfd, sock);
        *has_sock = 1;
    }
    closedir(dir);
    return ok;
}

int sock_clear_dead_dir(const struct proc_target *t, int dirfd, const char *name,
                        const char *shown, mct_err *e)
{
    struct stat st;
    int dfd, has_sock;

    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
        trusted_uid(t, st.st_uid) || (st.st_mode & 07777) != 0700)
        return 0;
    dfd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return 0;
    /* Only what a killed agent leaves: its socket. An empty directory of
     * another user is not recognised (the checks then refuse it). */
    if (!dead_content(dfd, st.st_uid, PROTO_SOCKET_NAME, &has_sock) || !has_sock) {
        close(dfd);
        return 0;
    }
    if (unlinkat(dfd, PROTO_SOCKET_NAME, 0) < 0 ||
        unlinkat(dirfd, name, AT_REMOVEDIR) < 0) {
        int err = errno;

        close(dfd);
        return mct_err_set(e, MCT_E_IO, "%s was left by an agent of uid %u that is gone (nothing "
                           "listens on it), and this user cannot remove it (%s): remove it as root "
                           "(rm -r %s) and try again", shown, (unsigned)st.st_uid, strerror(err),
                           shown);
    }
    close(dfd);
    return 1;
}

/* Checks that the process listening at the other end of fd is JVM t. */
static int check_peer(const struct proc_target *t, int fd, const char *shown, const char *what,
                      mct_err *e)
{
    struct ucred cred;
    socklen_t len = sizeof cred;

    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
        return mct_err_set(e, MCT_E_IO, "cannot tell who serves %s: SO_PEERCRED: %s", shown,
                           strerror(errno));
    if (cred.pid != t->pid || !trusted_uid(t, cred.uid))
        return mct_err_set(e, MCT_E_IO, "remove %s: it is served by process %d (uid %u), not by "
                           "JVM %d (uid %u) itself; someone may be impersonating %s", shown,
                           (int)cred.pid, (unsigned)cred.uid, (int)t->pid, (unsigned)t->st.euid,
                           what);
    return 0;
}

/* The error for errno err met when doing `action` ("open", "connect to")
 * on the socket of `what` at shown. */
static int reach_error(const struct proc_target *t, int err, const char *action, const char *shown,
                       const char *what, mct_err *e)
{
    if (err == ENOENT || err == ECONNREFUSED)
        return mct_err_set(e, MCT_E_NOTFOUND, "nothing answers on %s at %s", what, shown);
    if (err == EACCES || err == EPERM)
        return mct_err_set(e, MCT_E_IO, "permission denied on %s: run mcalltree as the JVM's user "
                           "(uid %u) or as root", shown, (unsigned)t->st.euid);
    return mct_err_set(e, MCT_E_IO, "cannot %s %s at %s: %s", action, what, shown, strerror(err));
}

/* Connects fd to the socket sfd (an O_PATH descriptor of the very file that
 * was checked) through /proc/self/fd/N, which leads to that inode whatever
 * its name holds by now, with t's identity, so that the socket's own mode
 * applies as it does to the JVM's user. 0, or -1 with errno set (e set
 * when the identity could not be taken). */
static int connect_as_jvm(const struct proc_target *t, int fd, int sfd, mct_err *e)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    struct proc_creds creds;
    int rc, err;

    snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d", sfd);
    if (proc_become(t, &creds, e) < 0) {
        errno = 0;
        return -1;
    }
    rc = connect(fd, (struct sockaddr *)&sa, sizeof sa);
    err = errno;
    proc_restore(&creds);
    errno = err;
    return rc;
}

int sock_connect_at(const struct proc_target *t, int dirfd, const char *name, const char *shown,
                    const char *what, mct_err *e)
{
    struct stat st;
    int sfd, fd, err;

    /* O_PATH | O_NOFOLLOW: a symbolic link is opened itself, and fstat says so. */
    sfd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (sfd < 0)
        return reach_error(t, errno, "open", shown, what, e);
    if (fstat(sfd, &st) < 0) {
        err = errno;
        close(sfd);
        return mct_err_set(e, MCT_E_IO, "cannot check %s: %s", shown, strerror(err));
    }
    if (!S_ISSOCK(st.st_mode) || !trusted_uid(t, st.st_uid)) {
        close(sfd);
        return untrusted(t, &st, shown, S_IFSOCK, what, e);
    }
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        err = errno;
        close(sfd);
        return mct_err_set(e, MCT_E_IO, "socket: %s", strerror(err));
    }
    if (connect_as_jvm(t, fd, sfd, e) == 0) {
        close(sfd);
        if (check_peer(t, fd, shown, what, e) == 0)
            return fd;
        close(fd);
        return -1;
    }
    err = errno;
    close(sfd);
    close(fd);
    if (err == 0)
        return -1;      /* e says why the JVM's identity could not be taken */
    reach_error(t, err, "connect to", shown, what, e);
    errno = err;
    return -1;
}
