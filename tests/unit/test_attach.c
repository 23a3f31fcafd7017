/* test_attach.c — the attach reply of every JDK generation, and the /proc
 * parsers, on canned text. */
#include "check.h"

#include "attach.h"
#include "proc.h"

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
}

int main(void)
{
    test_load_replies();
    test_status();
    test_maps_and_cmdline();
    return check_status();
}
