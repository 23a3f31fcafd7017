/* sock.c — see sock.h. */
#include "sock.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int sock_connect(const char *path, const struct proc_target *t, const char *what, mct_err *e)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int fd, err;

    if (strlen(path) >= sizeof sa.sun_path) {
        errno = ENAMETOOLONG;
        return mct_err_set(e, MCT_E_IO, "the path of %s, %s, is too long", what, path);
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return mct_err_set(e, MCT_E_IO, "socket: %s", strerror(errno));
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
        return fd;
    err = errno;
    close(fd);
    if (err == ENOENT || err == ECONNREFUSED)
        mct_err_set(e, MCT_E_NOTFOUND, "nothing answers on %s at %s", what, path);
    else if (err == EACCES || err == EPERM)
        mct_err_set(e, MCT_E_IO, "permission denied on %s: run mcalltree as the JVM's user (uid %u) "
                    "or as root", path, (unsigned)t->st.euid);
    else
        mct_err_set(e, MCT_E_IO, "cannot connect to %s at %s: %s", what, path, strerror(err));
    errno = err;
    return -1;
}
