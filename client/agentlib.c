/* agentlib.c — see agentlib.h. */
#include "config.h"

#include "agentlib.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "log.h"

/* Resolves cand to an absolute path in out; -1 with e naming where cand
 * came from. */
static int resolve(const char *cand, const char *from, char *out, size_t size, mct_err *e)
{
    char abs[PATH_MAX];

    if (realpath(cand, abs) == NULL)
        return mct_err_set(e, MCT_E_NOTFOUND, "agent library %s (%s): %s", cand, from,
                           strerror(errno));
    if (strlen(abs) >= size)
        return mct_err_set(e, MCT_E_ARG, "agent library path %s is too long", abs);
    strcpy(out, abs);
    log_verbose("agent library: %s (%s)", out, from);
    return 0;
}

int agentlib_find(const char *opt, char *out, size_t size, mct_err *e)
{
    const char *env = getenv("MCALLTREE_AGENT");
    char exe[PATH_MAX], built[PATH_MAX + 32];
    ssize_t n;

    if (opt != NULL)
        return resolve(opt, "from --agent", out, size, e);
    if (env != NULL && *env != '\0')
        return resolve(env, "from $MCALLTREE_AGENT", out, size, e);
    n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        snprintf(built, sizeof built, "%s/../agent/" AGENTLIB_NAME, dirname(exe));
        if (access(built, F_OK) == 0)
            return resolve(built, "next to this program", out, size, e);
    }
    if (access(MCT_PKGLIBDIR "/" AGENTLIB_NAME, F_OK) == 0)
        return resolve(MCT_PKGLIBDIR "/" AGENTLIB_NAME, "installed", out, size, e);
    return mct_err_set(e, MCT_E_NOTFOUND, "no agent library at %s nor in the build tree next to "
                       "this program; pass --agent PATH or set MCALLTREE_AGENT",
                       MCT_PKGLIBDIR "/" AGENTLIB_NAME);
}

int agentlib_open(const char *path, mct_err *e)
{
    struct stat st;
    int fd;

    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return mct_err_set(e, MCT_E_IO, "cannot read the agent library %s: %s", path,
                           strerror(errno));
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return mct_err_set(e, MCT_E_ARG, "the agent library %s is not a regular file", path);
    }
    return fd;
}

/* Whether the target, with our current identity, opens the same file at path. */
static int target_sees(int fd, const char *path, const struct proc_target *t)
{
    struct stat a, b;
    int vfd, same;

    vfd = proc_open_in_root(t, path, O_RDONLY);
    if (vfd < 0) {
        log_verbose("the JVM cannot open %s itself (%s)", path, strerror(errno));
        return 0;
    }
    same = fstat(fd, &a) == 0 && fstat(vfd, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
    close(vfd);
    if (!same)
        log_verbose("%s is another file in the JVM's mount namespace", path);
    return same;
}

/* Copies all of in to out from offset 0; 0 or -1 with errno set. */
static int copy_bytes(int in, int out)
{
    char buf[65536];
    off_t off = 0;

    for (;;) {
        ssize_t r = pread(in, buf, sizeof buf, off);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return (int)r;
        off += r;
        for (ssize_t done = 0; done < r;) {
            ssize_t w = write(out, buf + done, (size_t)(r - done));

            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0)
                return -1;
            done += w;
        }
    }
}

/* Copies the file open at in to name in the directory dirfd; 0 or -1 with
 * errno set. */
static int copy_file(int in, int dirfd, const char *name)
{
    int out, rc, err;

    out = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (out < 0)
        return -1;
    rc = copy_bytes(in, out);
    err = errno;
    if (close(out) < 0 && rc == 0)
        return -1;
    errno = err;
    return rc;
}

/* The shared jansson the agent links against, copied next to the agent:
 * the client links the same library, so dladdr finds its file. */
static int copy_jansson(const struct agentlib_use *u, mct_err *e)
{
#ifdef MCT_AGENT_SHARED_JANSSON
    Dl_info info;
    int in, rc;

    if (dladdr((void *)json_object, &info) == 0 || info.dli_fname == NULL)
        return mct_err_set(e, MCT_E_IO, "cannot find the jansson library this program uses");
    in = open(info.dli_fname, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return mct_err_set(e, MCT_E_IO, "cannot read %s: %s", info.dli_fname, strerror(errno));
    rc = copy_file(in, u->copyfd, strrchr(info.dli_fname, '/') ? strrchr(info.dli_fname, '/') + 1
                                                              : info.dli_fname);
    close(in);
    if (rc < 0)
        return mct_err_set(e, MCT_E_IO, "cannot copy %s to %s: %s", info.dli_fname, u->copy,
                           strerror(errno));
#endif
    return 0;
}

/* Creates the private directory of the copies in the target's /tmp; 0 or
 * -1 with e set. */
static int make_copy_dir(const struct proc_target *t, struct agentlib_use *u, mct_err *e)
{
    char tmpl[96];
    int err;

    /* mkdtemp through our descriptor of the target's /tmp: the kernel
     * resolves /proc/self/fd/N to that directory, wherever it is. */
    snprintf(tmpl, sizeof tmpl, "/proc/self/fd/%d/.mcalltree-agent-%d-XXXXXX", u->tmpfd,
             (int)t->st.nspid);
    if (mkdtemp(tmpl) == NULL)
        return mct_err_set(e, MCT_E_IO, "cannot create a directory for the agent library in %s: %s",
                           t->tmp, strerror(errno));
    snprintf(u->copy_name, sizeof u->copy_name, "%s", strrchr(tmpl, '/') + 1);
    snprintf(u->copy, sizeof u->copy, "%s/%s", t->tmp, u->copy_name);
    u->copyfd = openat(u->tmpfd, u->copy_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (u->copyfd < 0) {
        err = errno;
        agentlib_release(u);
        return mct_err_set(e, MCT_E_IO, "cannot open %s: %s", u->copy, strerror(err));
    }
    return 0;
}

int agentlib_prepare(int fd, const char *path, const struct proc_target *t,
                     struct agentlib_use *u, mct_err *e)
{
    int err;

    u->copy[0] = '\0';
    u->copyfd = -1;
    if (target_sees(fd, path, t)) {
        snprintf(u->target_path, sizeof u->target_path, "%s", path);
        return 0;
    }
    u->tmpfd = proc_tmp(t, e);
    if (u->tmpfd < 0)
        return -1;
    if (make_copy_dir(t, u, e) < 0)
        return -1;
    if (copy_file(fd, u->copyfd, AGENTLIB_NAME) < 0) {
        err = errno;
        agentlib_release(u);
        return mct_err_set(e, MCT_E_IO, "cannot copy the agent library to %s: %s", t->tmp,
                           strerror(err));
    }
    if (copy_jansson(u, e) < 0) {
        agentlib_release(u);
        return -1;
    }
    snprintf(u->target_path, sizeof u->target_path, "/tmp/%s/%s", u->copy_name, AGENTLIB_NAME);
    log_verbose("copied the agent library to %s, which the JVM sees as %s", u->copy,
                u->target_path);
    return 0;
}

void agentlib_release(struct agentlib_use *u)
{
    DIR *d;
    struct dirent *de;
    int fd;

    if (u->copy[0] == '\0')
        return;
    fd = u->copyfd >= 0 ? openat(u->copyfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    d = fd >= 0 ? fdopendir(fd) : NULL;
    if (d != NULL) {
        while ((de = readdir(d)) != NULL)
            if (de->d_name[0] != '.' && unlinkat(dirfd(d), de->d_name, 0) < 0)
                log_verbose("cannot remove %s/%s: %s", u->copy, de->d_name, strerror(errno));
        closedir(d);
    } else if (fd >= 0) {
        close(fd);
    }
    if (unlinkat(u->tmpfd, u->copy_name, AT_REMOVEDIR) < 0)
        log_verbose("cannot remove %s: %s", u->copy, strerror(errno));
    if (u->copyfd >= 0)
        close(u->copyfd);
    u->copyfd = -1;
    u->copy[0] = '\0';
}
