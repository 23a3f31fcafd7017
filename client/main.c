/* main.c — the mcalltree command: parses the command line, checks the
 * target, makes sure the agent serves in it, and runs the request. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "conn.h"
#include "diff.h"
#include "exit.h"
#include "fmtutil.h"
#include "intr.h"
#include "log.h"
#include "merge.h"
#include "multi.h"
#include "proc.h"
#include "proto.h"
#include "trace.h"
#include "verdict.h"
#include "wrap.h"

/* Flushes stdout; the exit status for whether everything reached it. */
static int finish_stdout(void)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        log_error("cannot write to stdout");
        return MCT_EXIT_INTERNAL;
    }
    return MCT_EXIT_OK;
}

/* Checks that pid is a JVM this user may attach to; 0 or an exit status. */
static int open_target(pid_t pid, struct proc_target *t)
{
    mct_err e;
    int rc;

    if (proc_inspect(pid, t, &e) < 0) {
        if (e.code == MCT_E_NOTFOUND)
            log_error("no such process: %d (give the pid of a running JVM; jps lists them)",
                      (int)pid);
        else
            log_error("%s", e.msg);
        return MCT_EXIT_ATTACH;
    }
    if (geteuid() != 0 && geteuid() != t->st.euid) {
        log_error("process %d belongs to uid %u: run mcalltree as that user or as root",
                  (int)pid, (unsigned)t->st.euid);
        return MCT_EXIT_ATTACH;
    }
    rc = proc_is_jvm(t, &e);
    if (rc < 0) {
        log_error("%s", e.msg);
        return MCT_EXIT_ATTACH;
    }
    if (rc == 0) {
        log_error("process %d (%s) is not a Java VM: it has no libjvm.so mapped; give the pid "
                  "of a HotSpot JVM (jps lists them)", (int)pid, t->st.name);
        return MCT_EXIT_ATTACH;
    }
    return 0;
}

/* mcalltree --info: prints the agent's hello as one JSON object. */
static int run_info(const struct cli *c, const struct proc_target *t)
{
    json_t *hello;
    mct_err e;
    int code;

    hello = conn_ensure_agent(t, c->agent, &code, &e);
    if (hello == NULL) {
        log_error("%s", e.msg);
        return code;
    }
    if (fu_json_dump(stdout, hello, JSON_COMPACT) < 0 || putchar('\n') == EOF) {
        json_decref(hello);
        log_error("cannot write to stdout");
        return MCT_EXIT_INTERNAL;
    }
    json_decref(hello);
    return finish_stdout();
}

int main(int argc, char **argv)
{
    struct proc_target t;
    struct cli c;
    mct_err e;
    int rc;

    /* `mcalltree diff` and `mcalltree merge` have their own options
     * (client/diff.c, client/merge.c). */
    if (argc > 1 && strcmp(argv[1], "diff") == 0)
        return diff_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "verdict") == 0)
        return verdict_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "merge") == 0)
        return merge_main(argc - 1, argv + 1);
    if (cli_parse(argc, argv, &c, &e) < 0) {
        fprintf(stderr, "mcalltree: %s; try 'mcalltree --help'\n", e.msg);
        return MCT_EXIT_USAGE;
    }
    if (c.mode == CLI_HELP) {
        cli_usage(stdout);
        return finish_stdout();
    }
    if (c.mode == CLI_VERSION) {
        puts("mcalltree " PACKAGE_VERSION);
        return finish_stdout();
    }
    log_set_verbose(c.req.verbose);
    if (c.mode == CLI_WRAP)
        return wrap_run(&c);
    if (intr_catch(&e) < 0) {
        log_error("%s", e.msg);
        return MCT_EXIT_INTERNAL;
    }
    if (c.n_pids > 1 || c.jvms != NULL)
        return multi_run(&c, open_target);
    rc = open_target(c.pid, &t);
    if (rc != 0)
        return rc;
    return c.mode == CLI_INFO ? run_info(&c, &t) : trace_run(&c, &t);
}
