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
    char seen[PATH_MAX + 32];
    struct stat a, b;
    int vfd, same;

    snprintf(seen, sizeof seen, "/proc/%d/root%s", (int)t->pid, path);
    vfd = open(seen, O_RDONLY | O_CLOEXEC);
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

/* Copies the file open at in to dir/name; 0 or -1 with errno set. */
static int copy_file(int in, const char *dir, const char *name)
{
    char path[PATH_MAX];
    int out, rc, err;

    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
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
static int copy_jansson(const char *dir, mct_err *e)
{
#ifdef MCT_AGENT_SHARED_JANSSON
    Dl_info info;
    int in, rc;

    if (dladdr((void *)json_object, &info) == 0 || info.dli_fname == NULL)
        return mct_err_set(e, MCT_E_IO, "cannot find the jansson library this program uses");
    in = open(info.dli_fname, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return mct_err_set(e, MCT_E_IO, "cannot read %s: %s", info.dli_fname, strerror(errno));
    rc = copy_file(in, dir, strrchr(info.dli_fname, '/') ? strrchr(info.dli_fname, '/') + 1
                                                          : info.dli_fname);
    close(in);
    if (rc < 0)
        return mct_err_set(e, MCT_E_IO, "cannot copy %s to %s: %s", info.dli_fname, dir,
                           strerror(errno));
#endif
    return 0;
}

int agentlib_prepare(int fd, const char *path, const struct proc_target *t,
                     struct agentlib_use *u, mct_err *e)
{
    int err;

    u->copy[0] = '\0';
    if (target_sees(fd, path, t)) {
        snprintf(u->target_path, sizeof u->target_path, "%s", path);
        return 0;
    }
    if (t->other_mntns && strcmp(t->tmp, "/tmp") == 0)
        return mct_err_set(e, MCT_E_IO, "process %d runs in another mount namespace whose /tmp "
                           "cannot be reached through /proc/%d/root", (int)t->pid, (int)t->pid);
    snprintf(u->copy, sizeof u->copy, "%s/.mcalltree-agent-%d-XXXXXX", t->tmp, (int)t->st.nspid);
    if (mkdtemp(u->copy) == NULL) {
        err = errno;
        u->copy[0] = '\0';
        return mct_err_set(e, MCT_E_IO, "cannot create a directory for the agent library in %s: %s",
                           t->tmp, strerror(err));
    }
    if (copy_file(fd, u->copy, AGENTLIB_NAME) < 0) {
        err = errno;
        agentlib_release(u);
        return mct_err_set(e, MCT_E_IO, "cannot copy the agent library to %s: %s", t->tmp,
                           strerror(err));
    }
    if (copy_jansson(u->copy, e) < 0) {
        agentlib_release(u);
        return -1;
    }
    snprintf(u->target_path, sizeof u->target_path, "/tmp/%s/%s", strrchr(u->copy, '/') + 1,
             AGENTLIB_NAME);
    log_verbose("copied the agent library to %s, which the JVM sees as %s", u->copy,
                u->target_path);
    return 0;
}

void agentlib_release(struct agentlib_use *u)
{
    DIR *d;
    struct dirent *de;

    if (u->copy[0] == '\0')
        return;
    d = opendir(u->copy);
    if (d != NULL) {
        while ((de = readdir(d)) != NULL)
            if (de->d_name[0] != '.' && unlinkat(dirfd(d), de->d_name, 0) < 0)
                log_verbose("cannot remove %s/%s: %s", u->copy, de->d_name, strerror(errno));
        closedir(d);
    }
    if (rmdir(u->copy) < 0)
        log_verbose("cannot remove %s: %s", u->copy, strerror(errno));
    u->copy[0] = '\0';
}
