/* main.c — the mcalltree command: parses the command line, checks the
 * target, makes sure the agent serves in it, and runs the request. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "conn.h"
#include "exit.h"
#include "log.h"
#include "proc.h"
#include "proto.h"

/* How long the agent has to give the first answer to a trace request. */
#define TRACE_FIRST_REPLY_TIMEOUT_MS 60000

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

/* The exit status for an `error` reply's code. */
static int exit_for_code(const char *code)
{
    switch (proto_code_from_name(code)) {
    case PROTO_ERR_BUSY:
    case PROTO_ERR_CLASS_NOT_LOADED:
    case PROTO_ERR_METHOD_NOT_FOUND:
    case PROTO_ERR_BAD_REGEX:
    case PROTO_ERR_NOTHING_INSTRUMENTABLE:
    case PROTO_ERR_UNSUPPORTED:
        return MCT_EXIT_REFUSED;
    case PROTO_ERR_DENIED:
        return MCT_EXIT_ATTACH;
    default:
        return MCT_EXIT_INTERNAL;
    }
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
    if (json_dumpf(hello, stdout, JSON_COMPACT) < 0 || putchar('\n') == EOF) {
        json_decref(hello);
        log_error("cannot write to stdout");
        return MCT_EXIT_INTERNAL;
    }
    json_decref(hello);
    return finish_stdout();
}

/* A trace: sends the request and reports the agent's answer. */
static int run_trace(const struct cli *c, const struct proc_target *t)
{
    json_t *hello, *req, *reply;
    const char *type;
    int code, fd, absent;
    mct_err e;

    hello = conn_ensure_agent(t, c->agent, &code, &e);
    if (hello == NULL) {
        log_error("%s", e.msg);
        return code;
    }
    json_decref(hello);
    fd = conn_open(t, &absent, &e);
    if (fd < 0) {
        log_error("%s", e.msg);
        return MCT_EXIT_ATTACH;
    }
    req = conn_trace_request_new(c);
    if (req == NULL) {
        close(fd);
        log_error("cannot build the trace request");
        return MCT_EXIT_INTERNAL;
    }
    log_verbose("asking for a trace of %s.%s%s, %d levels, classes matching %s", c->class_name,
                c->method, c->desc, c->depth, c->regex);
    reply = conn_exchange(fd, req, TRACE_FIRST_REPLY_TIMEOUT_MS, &e);
    json_decref(req);
    close(fd);
    if (reply == NULL) {
        log_error("no answer to the trace request: %s", e.msg);
        return MCT_EXIT_INTERNAL;
    }
    type = proto_type(reply);
    if (strcmp(type, "error") == 0) {
        const char *err_code = json_string_value(json_object_get(reply, "code"));

        log_error("the JVM refused the trace (%s): %s", err_code,
                  json_string_value(json_object_get(reply, "message")));
        code = exit_for_code(err_code);
    } else {
        log_error("the agent answered with a \"%s\" message, which this mcalltree cannot "
                  "show yet", type);
        code = MCT_EXIT_INTERNAL;
    }
    json_decref(reply);
    return code;
}

int main(int argc, char **argv)
{
    struct proc_target t;
    struct cli c;
    mct_err e;
    int rc;

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
    log_set_verbose(c.verbose);
    rc = open_target(c.pid, &t);
    if (rc != 0)
        return rc;
    return c.mode == CLI_INFO ? run_info(&c, &t) : run_trace(&c, &t);
}
