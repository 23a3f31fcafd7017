/* test_attach.c — the attach reply of every JDK generation, and the /proc
 * parsers, on canned text; what the client believes of a socket in a
 * JVM's /tmp (sock.h) and of paths in its root, on sockets and links made
 * here; and the cleaning of the JVM's text for the terminal. */
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attach.h"
#include "fmtutil.h"
#include "proc.h"
#include "sock.h"

/* Parses a canned reply; the result of attach_parse_load_reply. */
static int reply(const char *text, struct attach_reply *r)
{
    mct_err e;

    return attach_parse_load_reply(text, strlen(text), r, &e);
}

static void test_load_replies(void)
{
    struct attach_reply r;

    /* JDK 8: status, then the bare return code. */
    CHECK_INT(reply("0\n0\n", &r), 0);
    CHECK_INT(r.outcome, ATTACH_LOADED);
    CHECK_INT(r.agent_rc, 0);
    CHECK_INT(reply("0\n103\n", &r), 0);
    CHECK_INT(r.outcome, ATTACH_AGENT_FAILED);
    CHECK_INT(r.agent_rc, 103);
    /* JDK 8 could not load the library: -1 and nothing else. */
    CHECK_INT(reply("-1\n", &r), 0);
    CHECK_INT(r.outcome, ATTACH_NOT_LOADED);
    CHECK_INT(r.status, -1);

    /* JDK 9 to 20. */
    CHECK_INT(reply("0\nreturn code: 0\n", &r), 0);
    CHECK_INT(r.outcome, ATTACH_LOADED);
    CHECK_INT(reply("0\nreturn code: 105\n", &r), 0);
    CHECK_INT(r.outcome, ATTACH_AGENT_FAILED);
    CHECK_INT(r.agent_rc, 105);
    CHECK_INT(reply("0\nreturn code: -1\n", &r), 0);
    CHECK_INT(r.outcome, ATTACH_AGENT_FAILED);
    CHECK_INT(r.agent_rc, -1);
    CHECK_INT(reply("-1\n/tmp/x.so was not loaded.\n/tmp/x.so: invalid ELF header\n", &r), 0);
    CHECK_INT(r.outcome, ATTACH_NOT_LOADED);
    CHECK_STR(r.message, "/tmp/x.so was not loaded.; /tmp/x.so: invalid ELF header");
    CHECK_INT(reply("-1\nDynamic agent loading is not enabled. Use -XX:+EnableDynamicAgentLoading "
                    "to launch target VM.\n", &r), 0);
    CHECK_INT(r.outcome, ATTACH_DYNLOAD_DISABLED);
    CHECK_INT(reply("-1\nCould not find agent library x.so in absolute path, with error: x.so: "
                    "cannot open shared object file\n", &r), 0);
    CHECK_INT(r.outcome, ATTACH_NOT_LOADED);

    /* JDK 21 and later: status 0, then the code or the message. */
    CHECK_INT(reply("0\nreturn code: 0\n", &r), 0);
    CHECK_INT(r.outcome, ATTACH_LOADED);
    CHECK_INT(reply("0\n/tmp/x.so was not loaded.\n/tmp/x.so: cannot open shared object file: "
                    "No such file or directory\n", &r), 0);
    CHECK_INT(r.outcome, ATTACH_NOT_LOADED);
    CHECK(strstr(r.message, "No such file or directory") != NULL);
    CHECK_INT(reply("0\nDynamic agent loading is not enabled. Use -XX:+EnableDynamicAgentLoading "
                    "to launch target VM.\n", &r), 0);
    CHECK_INT(r.outcome, ATTACH_DYNLOAD_DISABLED);
    CHECK_INT(reply("0\nsomething new went wrong\n", &r), 0);
    CHECK_INT(r.outcome, ATTACH_REFUSED);
    CHECK_STR(r.message, "something new went wrong");
    /* No final newline. */
    CHECK_INT(reply("0\nreturn code: 7", &r), 0);
    CHECK_INT(r.agent_rc, 7);
    CHECK_INT(reply("-1\nbusy", &r), 0);
    CHECK_INT(r.outcome, ATTACH_REFUSED);

    /* Not a reply. */
    CHECK_INT(reply("", &r), -1);
    CHECK_INT(reply("hello\n", &r), -1);
    CHECK_INT(reply("\n0\n", &r), -1);
    CHECK_INT(reply("0\n", &r), -1);
    CHECK_INT(reply("99999999999999\n", &r), -1);
    CHECK_INT(reply("0\nreturn code: x\n", &r), 0);
    CHECK_INT(r.outcome, ATTACH_REFUSED);
}

static const char status_jvm[] =
    "Name:\tjava\n"
    "Umask:\t0022\n"
    "State:\tS (sleeping)\n"
    "Tgid:\t4242\n"
    "Ngid:\t0\n"
    "Pid:\t4242\n"
    "PPid:\t1\n"
    "Uid:\t1000\t1001\t1002\t1003\n"
    "Gid:\t100\t101\t102\t103\n"
    "NStgid:\t4242\t7\n"
    "NSpid:\t4242\t7\n"
    "SigQ:\t0/96365\n"
    "SigPnd:\t0000000000000000\n"
    "SigBlk:\t0000000000000000\n"
    "SigIgn:\t0000000000000000\n"
    "SigCgt:\t0000000181005ccf\n";

static void test_status(void)
{
    struct proc_status st;
    mct_err e;

    CHECK_INT(proc_parse_status(status_jvm, &st, &e), 0);
    CHECK_STR(st.name, "java");
    CHECK_INT(st.euid, 1001);
    CHECK_INT(st.egid, 101);
    CHECK_INT(st.nspid, 7);
    CHECK_INT(st.sigquit_caught, 1);
    CHECK_INT(st.sigquit_ignored, 0);

    /* A process that ignores SIGQUIT and does not catch it; an old kernel
     * without NStgid. */
    CHECK_INT(proc_parse_status("Name:\tsleep\nTgid:\t55\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n"
                                "SigIgn:\t0000000000000004\nSigCgt:\t0000000000000000\n",
                                &st, &e), 0);
    CHECK_STR(st.name, "sleep");
    CHECK_INT(st.nspid, 55);
    CHECK_INT(st.sigquit_caught, 0);
    CHECK_INT(st.sigquit_ignored, 1);

    CHECK_INT(proc_parse_status("Name:\tx\nTgid:\t5\nGid:\t0\t0\nSigIgn:\t0\nSigCgt:\t0\n",
                                &st, &e), -1);
    CHECK(strstr(e.msg, "Uid") != NULL);
    CHECK_INT(proc_parse_status("Uid:\t1\nGid:\t0\t0\nTgid:\t5\nSigIgn:\t0\nSigCgt:\t0\n",
                                &st, &e), -1);
    CHECK_INT(proc_parse_status("Uid:\t1\t1\nGid:\t0\t0\nSigIgn:\t0\nSigCgt:\t0\n", &st, &e), -1);
    CHECK(strstr(e.msg, "NStgid") != NULL);
    CHECK_INT(proc_parse_status("Uid:\t1\t1\nGid:\t0\t0\nNStgid:\t9\nSigIgn:\t0\n", &st, &e), -1);
    CHECK(strstr(e.msg, "SigCgt") != NULL);
    CHECK_INT(proc_parse_status("Uid:\t1\t1\nGid:\t0\t0\nNStgid:\tx\nSigIgn:\t0\nSigCgt:\t0\n",
                                &st, &e), -1);
    /* Out of range: a uid past 32 bits would wrap to root, a pid past int. */
    CHECK_INT(proc_parse_status("Uid:\t1\t4294967296\nGid:\t0\t0\nNStgid:\t9\nSigIgn:\t0\n"
                                "SigCgt:\t0\n", &st, &e), -1);
    CHECK_INT(proc_parse_status("Uid:\t1\t1\nGid:\t0\t0\nNStgid:\t4222222222222220\nSigIgn:\t0\n"
                                "SigCgt:\t0\n", &st, &e), -1);
}

/* A process in 2000 groups (a Groups: line of about 14 KiB, before NStgid:
 * and SigCgt:) is inspected whole. Needs root for setgroups. */
static void test_many_groups(void)
{
    static gid_t groups[2000];
    pid_t child;
    int status;

    if (geteuid() != 0) {
        fprintf(stderr, "test_many_groups: skipped (needs root)\n");
        return;
    }
    child = fork();
    if (child == 0) {
        struct proc_target t;
        mct_err e;

        for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
            groups[i] = (gid_t)(1000000 + i);
        if (setgroups(sizeof groups / sizeof groups[0], groups) < 0) {
            perror("setgroups");
            _exit(1);
        }
        if (proc_inspect(getpid(), &t, &e) < 0) {
            fprintf(stderr, "proc_inspect: %s\n", e.msg);
            _exit(1);
        }
        _exit(t.st.euid == 0 && t.st.nspid == getpid() ? 0 : 1);
    }
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A process whose mount namespace cannot be inspected (another user's, not
 * dumpable) is not taken to share ours: its /tmp is unreachable, and the
 * error says why, rather than our / standing in for its root. Needs root to
 * play both users. */
static void test_unknown_mntns(void)
{
    int ready[2], status;
    pid_t target, inspector;
    char c;

    if (geteuid() != 0) {
        fprintf(stderr, "test_unknown_mntns: skipped (needs root)\n");
        return;
    }
    CHECK(pipe(ready) == 0);
    target = fork();
    if (target == 0) {
        alarm(20);
        if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0 ||
            prctl(PR_SET_DUMPABLE, 0) < 0)
            _exit(1);
        c = 'r';
        if (write(ready[1], &c, 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    close(ready[1]);
    CHECK(read(ready[0], &c, 1) == 1);
    close(ready[0]);
    inspector = fork();
    if (inspector == 0) {
        struct proc_target t;
        mct_err e;

        if (setgroups(0, NULL) < 0 || setgid(65533) < 0 || setuid(65533) < 0)
            _exit(2);
        if (proc_inspect(target, &t, &e) < 0) {
            fprintf(stderr, "proc_inspect: %s\n", e.msg);
            _exit(3);
        }
        if (proc_tmp(&t, &e) >= 0) {
            fprintf(stderr, "the /tmp of a process of unknown mount namespace was reached: %s\n",
                    t.tmp);
            _exit(4);
        }
        if (strstr(e.msg, "its mount namespace cannot be inspected") == NULL ||
            strstr(e.msg, "run mcalltree as root or as the process's user") == NULL) {
            fprintf(stderr, "got: %s\n", e.msg);
            _exit(5);
        }
        _exit(0);
    }
    CHECK(waitpid(inspector, &status, 0) == inspector && WIFEXITED(status) &&
          WEXITSTATUS(status) == 0);
    kill(target, SIGKILL);
    waitpid(target, NULL, 0);
}

/* getgroups is wrapped at link time: when fail_getgroups is N > 0, the
 * Nth call from now (1: proc_become's count, 2: its read) fails with EINVAL. */
int __real_getgroups(int size, gid_t list[]);
int __wrap_getgroups(int size, gid_t list[]);
static int fail_getgroups, getgroups_calls;

int __wrap_getgroups(int size, gid_t list[])
{
    if (fail_getgroups > 0 && ++getgroups_calls == fail_getgroups) {
        errno = EINVAL;
        return -1;
    }
    return __real_getgroups(size, list);
}

/* When our groups cannot be read, proc_become says why (errno), and stays
 * who it is. Needs root (it switches only from root). */
static void test_become_groups(void)
{
    struct proc_target t;
    struct proc_creds creds;
    mct_err e;

    if (geteuid() != 0) {
        fprintf(stderr, "test_become_groups: skipped (needs root)\n");
        return;
    }
    memset(&t, 0, sizeof t);
    t.st.euid = 65534;
    t.st.egid = 65534;
    for (fail_getgroups = 1; fail_getgroups <= 2; fail_getgroups++) {
        getgroups_calls = 0;
        if (proc_become(&t, &creds, &e) == 0) {
            proc_restore(&creds);
            CHECK(!"proc_become succeeded although getgroups failed");
            continue;
        }
        CHECK_INT(e.code, MCT_E_IO);
        CHECK_STR(e.msg, "cannot read our supplementary groups: Invalid argument");
        CHECK_INT(geteuid(), 0);
    }
    fail_getgroups = 0;
    CHECK_INT(proc_become(&t, &creds, &e), 0);
    CHECK_INT(geteuid(), 65534);
    proc_restore(&creds);
    CHECK_INT(geteuid(), 0);
}

static void test_maps_and_cmdline(void)
{
    static const char cmd[] = "java\0-XX:+DisableAttachMechanism\0-cp\0x\0Main";
    static const char cmd2[] = "java\0-XX:+DisableAttachMechanism\0-XX:-DisableAttachMechanism\0";
    static const char cmd3[] = "java\0-XX:+DisableAttachMechanismX\0-XX:+Disable\0";

    CHECK(proc_maps_line_is_libjvm("7f00-7f10 r-xp 00000000 08:01 123 "
                                   "/usr/lib/jvm/java-17/lib/server/libjvm.so\n"));
    CHECK(proc_maps_line_is_libjvm("7f00-7f10 r-xp 00000000 08:01 123 /opt/libjvm.so (deleted)"));
    CHECK(!proc_maps_line_is_libjvm("7f00-7f10 r-xp 00000000 08:01 123 /usr/lib/libjvm.so.bak\n"));
    CHECK(!proc_maps_line_is_libjvm("7f00-7f10 r-xp 00000000 08:01 123 /usr/bin/sleep\n"));

    CHECK_INT(proc_cmdline_flag(cmd, sizeof cmd - 1, "DisableAttachMechanism"), 1);
    CHECK_INT(proc_cmdline_flag(cmd2, sizeof cmd2 - 1, "DisableAttachMechanism"), 0);
    CHECK_INT(proc_cmdline_flag(cmd3, sizeof cmd3 - 1, "DisableAttachMechanism"), -1);
    CHECK_INT(proc_cmdline_flag("", 0, "DisableAttachMechanism"), -1);

    /* what a java command line runs, as jps -l names it */
    {
        static const char c1[] = "java\0-Xmx1g\0-cp\0a.jar:b\0com.shop.Main\0arg";
        static const char c2[] = "/usr/bin/java\0-Dx=y\0-jar\0/opt/shop.jar\0--port\0 8080";
        static const char c3[] = "java\0--module-path\0mods\0-m\0shop/com.shop.Main";
        static const char c4[] = "java\0-version";
        char m[64];

        CHECK_INT(proc_cmdline_main(c1, sizeof c1 - 1, m, sizeof m), 0);
        CHECK_STR(m, "com.shop.Main");
        CHECK_INT(proc_cmdline_main(c2, sizeof c2 - 1, m, sizeof m), 0);
        CHECK_STR(m, "/opt/shop.jar");
        CHECK_INT(proc_cmdline_main(c3, sizeof c3 - 1, m, sizeof m), 0);
        CHECK_STR(m, "shop/com.shop.Main");
        CHECK_INT(proc_cmdline_main(c4, sizeof c4 - 1, m, sizeof m), -1);
    }
}

/* A socket listening at name in the directory dirfd; its fd. */
static int listen_at(int dirfd, const char *name)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d/%s", dirfd, name);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 4) < 0) {
        perror("listen_at");
        exit(1);
    }
    return fd;
}

/* Whether e is an MCT_E_IO error whose message has text. */
static int says(const mct_err *e, const char *text)
{
    if (e->code == MCT_E_IO && strstr(e->msg, text) != NULL)
        return 1;
    fprintf(stderr, "got: %s\n", e->msg);
    return 0;
}

/* The agent's directory: absent, private, open to others, a link, another
 * user's. */
static void test_private_dir(struct proc_target *t, int top)
{
    mct_err e;
    int fd;

    CHECK_INT(sock_open_private_dir(t, top, "d", "T/d", "the agent", &e), -1);
    CHECK_INT(e.code, MCT_E_NOTFOUND);
    CHECK(mkdirat(top, "d", 0700) == 0);
    fd = sock_open_private_dir(t, top, "d", "T/d", "the agent", &e);
    CHECK(fd >= 0);
    close(fd);
    CHECK(fchmodat(top, "d", 0750, 0) == 0);
    CHECK_INT(sock_open_private_dir(t, top, "d", "T/d", "the agent", &e), -1);
    CHECK(says(&e, "remove T/d: it has mode 0750, it is not a private (0700) directory"));
    CHECK(fchmodat(top, "d", 0700, 0) == 0);
    CHECK(symlinkat("d", top, "l") == 0);
    CHECK_INT(sock_open_private_dir(t, top, "l", "T/l", "the agent", &e), -1);
    CHECK(says(&e, "remove T/l: it is a symbolic link, not a directory; someone may be "
                   "impersonating the agent"));
    if (geteuid() == 0) {
        CHECK(fchownat(top, "d", 65534, 65534, 0) == 0);
        CHECK_INT(sock_open_private_dir(t, top, "d", "T/d", "the agent", &e), -1);
        CHECK(says(&e, "remove T/d: it belongs to uid 65534, not to the JVM's user (uid 0)"));
        CHECK(fchownat(top, "d", 0, 0, 0) == 0);
    } else {
        uid_t jvm = t->st.euid;
        char want[128];

        t->st.euid = jvm + 1;
        snprintf(want, sizeof want, "remove T/d: it belongs to uid %u, not to the JVM's user "
                 "(uid %u)", (unsigned)jvm, (unsigned)jvm + 1);
        CHECK_INT(sock_open_private_dir(t, top, "d", "T/d", "the agent", &e), -1);
        CHECK(says(&e, want));
        t->st.euid = jvm;
    }
}

/* The link is built with --wrap=fstat,fstatat: once armed, the first call
 * that finds a socket (the client's check) swaps the socket's name, in
 * swap_dir, for a symbolic link to another socket, as a process racing the
 * check would. */
int __real_fstat(int fd, struct stat *st);
int __real_fstatat(int dirfd, const char *name, struct stat *st, int flags);
int __wrap_fstat(int fd, struct stat *st);
int __wrap_fstatat(int dirfd, const char *name, struct stat *st, int flags);
static int swap_dir = -1, swapped;

static void swap_after_check(const struct stat *st)
{
    if (swap_dir < 0 || !S_ISSOCK(st->st_mode))
        return;
    if (renameat(swap_dir, "w", swap_dir, "w.checked") == 0 && symlinkat("other", swap_dir, "w") == 0)
        swapped = 1;
    swap_dir = -1;
}

int __wrap_fstat(int fd, struct stat *st)
{
    int rc = __real_fstat(fd, st);

    if (rc == 0)
        swap_after_check(st);
    return rc;
}

int __wrap_fstatat(int dirfd, const char *name, struct stat *st, int flags)
{
    int rc = __real_fstatat(dirfd, name, st, flags);

    if (rc == 0)
        swap_after_check(st);
    return rc;
}

/* Whether listening socket lfd has a connection waiting. */
static int has_pending(int lfd)
{
    int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

/* The socket is swapped for a link to another one right after the check:
 * the connection still reaches the socket that was checked. */
static void test_swap(struct proc_target *t, int dir)
{
    int checked, other, fd;
    mct_err e;

    checked = listen_at(dir, "w");
    other = listen_at(dir, "other");
    fcntl(checked, F_SETFL, O_NONBLOCK);
    fcntl(other, F_SETFL, O_NONBLOCK);
    swapped = 0;
    swap_dir = dir;
    fd = sock_connect_at(t, dir, "w", "T/d/w", "the agent", &e);
    swap_dir = -1;
    CHECK(swapped);
    CHECK(fd >= 0);
    CHECK(has_pending(checked));
    CHECK(!has_pending(other));
    if (fd >= 0)
        close(fd);
    close(checked);
    close(other);
    for (const char *const *f = (const char *const[]){"w", "w.checked", "other", NULL}; *f; f++)
        unlinkat(dir, *f, 0);
}

/* Sockets in the directory: the JVM's (this process plays it), a stale one,
 * a file, a link, one served by another process, which gets nothing. */
static void test_sockets(struct proc_target *t, int dir)
{
    int lfd, fd, ready[2], got[2];
    char c, want[160];
    pid_t child;
    ssize_t n;
    mct_err e;

    lfd = listen_at(dir, "s");
    fd = sock_connect_at(t, dir, "s", "T/d/s", "the agent", &e);
    CHECK(fd >= 0);
    close(fd);
    CHECK_INT(sock_connect_at(t, dir, "none", "T/d/none", "the agent", &e), -1);
    CHECK_INT(e.code, MCT_E_NOTFOUND);
    close(listen_at(dir, "stale"));
    CHECK_INT(sock_connect_at(t, dir, "stale", "T/d/stale", "the agent", &e), -1);
    CHECK_INT(e.code, MCT_E_NOTFOUND);
    close(openat(dir, "f", O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
    CHECK_INT(sock_connect_at(t, dir, "f", "T/d/f", "the agent", &e), -1);
    CHECK(says(&e, "remove T/d/f: it is not a socket"));
    CHECK(symlinkat("s", dir, "ls") == 0);
    CHECK_INT(sock_connect_at(t, dir, "ls", "T/d/ls", "the agent", &e), -1);
    CHECK(says(&e, "remove T/d/ls: it is a symbolic link, not a socket"));

    CHECK(pipe(ready) == 0 && pipe(got) == 0);
    child = fork();
    if (child == 0) {
        int cl, conn;

        /* Ends the child should the client never connect (accept would wait for ever). */
        alarm(10);
        cl = listen_at(dir, "c");
        n = write(ready[1], "r", 1);
        conn = accept(cl, NULL, NULL);
        n = conn >= 0 ? read(conn, want, sizeof want) : -1;
        c = n == 0 ? '0' : 'x';
        n = write(got[1], &c, 1);
        _exit(0);
    }
    /* Only the child writes: a child that dies makes the reads below return 0. */
    close(ready[1]);
    close(got[1]);
    CHECK(read(ready[0], &c, 1) == 1);
    CHECK_INT(sock_connect_at(t, dir, "c", "T/d/c", "the JVM's attach listener", &e), -1);
    snprintf(want, sizeof want, "remove T/d/c: it is served by process %d (uid %u), not by JVM "
             "%d (uid %u) itself; someone may be impersonating the JVM's attach listener",
             (int)child, (unsigned)geteuid(), (int)getpid(), (unsigned)t->st.euid);
    CHECK(says(&e, want));
    CHECK(read(got[0], &c, 1) == 1 && c == '0');    /* the impostor read nothing */
    waitpid(child, NULL, 0);
    close(ready[0]);
    close(got[0]);
    close(lfd);
    for (const char *const *f = (const char *const[]){"s", "stale", "f", "ls", "c", NULL}; *f; f++)
        unlinkat(dir, *f, 0);
}

static void test_trust(void)
{
    char tmpl[] = "/tmp/mct-unit-XXXXXX";
    struct proc_target t;
    mct_err e;
    int top, dir;

    CHECK(mkdtemp(tmpl) != NULL);
    top = open(tmpl, O_PATH | O_DIRECTORY | O_CLOEXEC);
    CHECK(top >= 0);
    memset(&t, 0, sizeof t);
    t.pid = getpid();
    t.st.euid = geteuid();
    t.rootfd = -1;
    t.tmpfd = top;
    test_private_dir(&t, top);
    dir = sock_open_private_dir(&t, top, "d", "T/d", "the agent", &e);
    CHECK(dir >= 0);
    test_sockets(&t, dir);
    test_swap(&t, dir);
    close(dir);
    unlinkat(top, "l", 0);
    unlinkat(top, "d", AT_REMOVEDIR);
    close(top);
    CHECK(rmdir(tmpl) == 0);
}

/* Makes openat2 fail with ENOSYS in this process, as on Linux before 5.6. */
static int hide_openat2(void)
{
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = sizeof filter / sizeof filter[0], .filter = filter};

    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
           prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0 ? 0 : -1;
}

/* Without openat2, the walk refuses every link and "..", and finds the rest. */
static void check_walk(const struct proc_target *t, const struct stat *want)
{
    struct stat got;
    int fd;

    CHECK_INT(proc_open_in_root(t, "/tmp", O_PATH | O_DIRECTORY), -1);
    CHECK_INT(errno, ELOOP);
    CHECK_INT(proc_open_in_root(t, "/real/../real", O_PATH | O_DIRECTORY), -1);
    CHECK_INT(errno, EXDEV);
    CHECK_INT(proc_open_in_root(t, "/up/real", O_PATH | O_DIRECTORY), -1);
    fd = proc_open_in_root(t, "//real/", O_PATH | O_DIRECTORY);
    CHECK(fd >= 0 && fstat(fd, &got) == 0 && got.st_ino == want->st_ino);
    close(fd);
    fd = proc_open_in_root(t, "/real/f", O_RDONLY);
    CHECK(fd >= 0 && fstat(fd, &got) == 0 && S_ISREG(got.st_mode));
    close(fd);
    CHECK_INT(proc_open_in_root(t, "/tmp/f", O_RDONLY), -1);
    CHECK_INT(errno, ELOOP);
}

/* Paths in the target's root: absolute links and ".." stay inside it. */
static void test_in_root(void)
{
    char tmpl[] = "/tmp/mct-root-XXXXXX";
    struct proc_target t;
    struct stat want, got;
    pid_t child;
    int fd, status;

    CHECK(mkdtemp(tmpl) != NULL);
    memset(&t, 0, sizeof t);
    t.rootfd = open(tmpl, O_PATH | O_DIRECTORY | O_CLOEXEC);
    CHECK(t.rootfd >= 0);
    CHECK(mkdirat(t.rootfd, "real", 0700) == 0);
    CHECK(fstatat(t.rootfd, "real", &want, 0) == 0);
    CHECK(symlinkat("/real", t.rootfd, "tmp") == 0);
    close(openat(t.rootfd, "real/f", O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
    CHECK(symlinkat("../../../../..", t.rootfd, "up") == 0);
    fd = proc_open_in_root(&t, "/tmp", O_PATH | O_DIRECTORY);
    CHECK(fd >= 0 && fstat(fd, &got) == 0 && got.st_ino == want.st_ino);
    close(fd);
    fd = proc_open_in_root(&t, "/up/up/real", O_PATH | O_DIRECTORY);
    CHECK(fd >= 0 && fstat(fd, &got) == 0 && got.st_ino == want.st_ino);
    close(fd);
    CHECK_INT(proc_open_in_root(&t, "/up/etc", O_PATH), -1);
    child = fork();
    if (child == 0) {
        if (hide_openat2() < 0) {
            perror("seccomp");
            _exit(1);
        }
        check_walk(&t, &want);
        _exit(check_failures != 0);
    }
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    unlinkat(t.rootfd, "up", 0);
    unlinkat(t.rootfd, "tmp", 0);
    unlinkat(t.rootfd, "real/f", 0);
    unlinkat(t.rootfd, "real", AT_REMOVEDIR);
    close(t.rootfd);
    CHECK(rmdir(tmpl) == 0);
}

static void test_clean(void)
{
    char s[] = "a\x1b[31mb\x07" "c\xc2\x9b" "d\xc3\xa9" "e\x7f\xff\xe0\x80\x9b" "f\xf0\x9f\x98\x80";
    char cut[] = "x\xe2\x82";

    fu_clean(s);
    CHECK_STR(s, "a?[31mb?c?d\xc3\xa9" "e?????f\xf0\x9f\x98\x80");
    fu_clean(cut);
    CHECK_STR(cut, "x??");
}

int main(void)
{
    test_load_replies();
    test_status();
    test_many_groups();
    test_unknown_mntns();
    test_become_groups();
    test_maps_and_cmdline();
    test_trust();
    test_in_root();
    test_clean();
    return check_status();
}
