/* multi.c — see multi.h. */
#include "multi.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "call.h"
#include "exit.h"
#include "fmtutil.h"
#include "gate.h"
#include "intr.h"
#include "log.h"
#include "output.h"
#include "proto.h"
#include "reader.h"
#include "summary.h"
#include "trace.h"

/* The longest wait of the loop: signals are seen at least this often. */
#define MULTI_WAIT_MS 200

/* One JVM's session, seen from here. */
struct jvm {
    struct multi *m;
    pid_t pid;              /* the JVM */
    pid_t child;            /* its session's process; 0 when none was started */
    int fd[2];              /* its stdout (frames) and stderr (lines); -1 at their end */
    proto_rbuf rb;          /* its frames read so far */
    mct_buf line;           /* the part of a stderr line read so far */
    reader rd;              /* its frames to on_call and on_summary */
    call_tab tab;           /* the methods of its calls */
    mct_call call;          /* its last call */
    int rc;                 /* its session's exit status */
    int finals;             /* final summaries it sent (merged) */
};

/* The run of all of them. */
struct multi {
    const struct cli *c;
    struct jvm *jvms;
    size_t n;
    out *out;
    gate *gate;
    sum *merged;            /* --aggregate: the JVMs' final summaries */
    size_t slowest;         /* the most slowest calls a final summary kept */
    long long judged;       /* calls the timing gates judged */
    int gates_judged;       /* the gates have their verdicts */
    int over;               /* a call (or the merged run) over a plain --fail-over-ms */
    int output_broken;
    int rc;                 /* an error of this process (output, gates) */
    char host[256];
};

/* ---- selecting JVMs ---------------------------------------------------- */

static int by_pid(const void *a, const void *b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

    return (x > y) - (x < y);
}

/* Whether pid is a JVM whose owner this user is (or this user is root). */
static int attachable_jvm(pid_t pid)
{
    struct proc_target t;
    mct_err e;

    if (proc_inspect(pid, &t, &e) < 0)
        return 0;
    if (geteuid() != 0 && geteuid() != t.st.euid)
        return 0;
    return proc_is_jvm(&t, &e) == 1;
}

long multi_select(const char *regex, pid_t *pids, size_t cap, mct_err *e)
{
    char anchored[REQ_TEXT_MAX + 8], name[4096];
    struct dirent *d;
    regex_t rx;
    size_t n = 0;
    DIR *dir;
    int rc;

    if (strlen(regex) > REQ_TEXT_MAX)
        return mct_err_set(e, MCT_E_ARG, "--jvms: the regex is longer than %d bytes", REQ_TEXT_MAX);
    snprintf(anchored, sizeof anchored, "^(%s)$", regex);
    rc = regcomp(&rx, anchored, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char why[256];

        regerror(rc, &rx, why, sizeof why);
        return mct_err_set(e, MCT_E_ARG, "--jvms '%.200s' is not a POSIX extended regex: %s", regex, why);
    }
    dir = opendir("/proc");
    if (dir == NULL) {
        regfree(&rx);
        return mct_err_set(e, MCT_E_IO, "cannot list /proc: %s", strerror(errno));
    }
    while ((d = readdir(dir)) != NULL && n <= cap) {
        char *end;
        long v = strtol(d->d_name, &end, 10);

        if (*end != '\0' || v <= 0 || (pid_t)v == getpid())
            continue;
        /* The command line first: reading it is cheaper than the maps. */
        if (proc_java_main((pid_t)v, name, sizeof name) < 0 || regexec(&rx, name, 0, NULL, 0) != 0)
            continue;
        if (attachable_jvm((pid_t)v) && n++ < cap)
            pids[n - 1] = (pid_t)v;
    }
    closedir(dir);
    regfree(&rx);
    if (n > cap)
        return mct_err_set(e, MCT_E_LIMIT, "--jvms '%.200s' matches more than %zu JVMs: narrow it", regex, cap);
    qsort(pids, n, sizeof *pids, by_pid);
    return (long)n;
}

/* ---- the children ------------------------------------------------------ */

/* The request a child sends: c's, its calls and summaries written as
 * frames on its stdout (fmt_frames); the gates are judged here, on the
 * merged run: a child only checks them against its JVM's plan (and counts
 * -n by their rule). */
static struct cli child_cli(const struct cli *c, pid_t pid)
{
    struct cli cc = *c;

    cc.pid = pid;
    cc.n_pids = 1;
    cc.jvms = NULL;
    cc.format = CLI_FORMAT_FRAMES;
    cc.format_given = 0;
    cc.output = NULL;
    cc.otlp_endpoint = cc.clickhouse = cc.service = NULL;
    cc.folded_value = OUT_VALUE_WALL;
    cc.gates_plan_only = 1;
    cc.junit = NULL;
    cc.req.fail_over_ms = -1;
    cc.req.min_calls = 0;
    return cc;
}

/* In the child: the session of JVM j; never returns. */
static void child_main(const struct multi *m, const struct jvm *j, const int so[2], const int se[2],
                       multi_open_fn open, pid_t parent)
{
    struct cli cc = child_cli(m->c, j->pid);
    struct proc_target t;
    int rc;

    /* Its own process group: a Ctrl-C reaches this process, which passes
     * it on once, and not every session twice. */
    setpgid(0, 0);
    /* This process gone (killed), the session stops as on a Ctrl-C rather
     * than leave the JVM instrumented until its next call. */
    if (prctl(PR_SET_PDEATHSIG, SIGINT) < 0 || getppid() != parent)
        raise(SIGINT);
    if (dup2(so[1], STDOUT_FILENO) < 0 || dup2(se[1], STDERR_FILENO) < 0)
        _exit(MCT_EXIT_INTERNAL);
    close(so[0]);
    close(so[1]);
    close(se[0]);
    close(se[1]);
    for (size_t i = 0; i < m->n; i++)
        for (int k = 0; k < 2; k++)
            if (m->jvms[i].fd[k] >= 0)
                close(m->jvms[i].fd[k]);
    rc = open(j->pid, &t);
    if (rc == 0)
        rc = trace_run(&cc, &t);
    fflush(stdout);
    _exit(rc);
}

/* Starts JVM j's session; 0, or -1 with e set. */
static int start(struct multi *m, struct jvm *j, multi_open_fn open, mct_err *e)
{
    pid_t parent = getpid();
    int so[2], se[2];

    if (pipe2(so, O_CLOEXEC) < 0)
        return mct_err_set(e, MCT_E_IO, "pipe: %s", strerror(errno));
    if (pipe2(se, O_CLOEXEC) < 0) {
        close(so[0]);
        close(so[1]);
        return mct_err_set(e, MCT_E_IO, "pipe: %s", strerror(errno));
    }
    /* Nothing buffered here may be written again by the child. */
    fflush(stdout);
    fflush(stderr);
    j->child = fork();
    if (j->child == 0)
        child_main(m, j, so, se, open, parent);
    close(so[1]);
    close(se[1]);
    if (j->child < 0) {
        j->child = 0;
        close(so[0]);
        close(se[0]);
        return mct_err_set(e, MCT_E_IO, "fork: %s", strerror(errno));
    }
    j->fd[0] = so[0];
    j->fd[1] = se[0];
    return 0;
}

/* ---- what the children write ------------------------------------------ */

/* The output failed (e): a closed pipe stops every session quietly. */
static void output_failed(struct multi *m, const mct_err *e)
{
    if (m->output_broken)
        return;
    m->output_broken = 1;
    if (errno != EPIPE) {
        log_error("%s", e->msg);
        m->rc = MCT_EXIT_INTERNAL;
    }
    for (size_t i = 0; i < m->n; i++)
        if (m->jvms[i].child > 0)
            kill(m->jvms[i].child, SIGINT);
}

/* A call of a JVM (ctx; the reader gave it to the gates' judge): to the
 * output, tagged; a plain --fail-over-ms judged. */
static int on_call(void *ctx, const call_tab *tab, const mct_call *c)
{
    struct jvm *j = ctx;
    struct multi *m = j->m;
    mct_err e;

    out_set_pid(m->out, j->pid);
    if (!m->output_broken && out_call(m->out, tab, c, &e) < 0)
        output_failed(m, &e);
    if (!gate_judges(m->c, c))
        return 0;
    m->judged++;
    if (m->c->req.fail_over_ms >= 0 && m->c->req.percentile == 0 &&
        (double)c->nodes[0].total_ns > m->c->req.fail_over_ms * 1e6) {
        if (!m->over)
            log_error("JVM pid %d: call #%llu took %.3f ms, over --fail-over-ms %g (exit status 4)", (int)j->pid,
                      (unsigned long long)c->seq, (double)c->nodes[0].total_ns / 1e6, m->c->req.fail_over_ms);
        m->over = 1;
    }
    return 0;
}

/* A summary of a JVM (ctx): its final one is merged (the merge is what is
 * printed); an interval's does not come (--interval needs one JVM). */
static int on_summary(void *ctx, const sum *summary, const struct sum_info *info)
{
    struct jvm *j = ctx;
    struct multi *m = j->m;
    size_t k = info->slowest;
    mct_err e;

    if (!info->final)
        return 0;
    if (sum_merge(m->merged, summary, &e) < 0) {
        log_error("JVM pid %d: merging its summary: %s", (int)j->pid, e.msg);
        m->rc = MCT_EXIT_INTERNAL;
        return 0;
    }
    j->finals++;
    m->slowest = k > m->slowest ? k : m->slowest;
    return 0;
}

/* What a child's frames may hold. */
static const struct reader_cb from_child = {
    .on_call = on_call,
    .on_summary = on_summary,
};

/* Stops reading fd k of JVM j. */
static void end_fd(struct jvm *j, int k)
{
    close(j->fd[k]);
    j->fd[k] = -1;
}

/* Reads JVM j's frames and hands each to its reader; at their end (or a
 * frame that cannot be read) stops reading them. */
static void drain_frames(struct multi *m, struct jvm *j)
{
    const unsigned char *payload;
    uint32_t len;
    mct_err end, e;
    int got = proto_rbuf_fill(&j->rb, j->fd[0], PROTO_REPLY, &end), n;

    if (got < 0)
        goto failed;
    while ((n = proto_rbuf_next(&j->rb, PROTO_REPLY, &payload, &len, &e)) > 0) {
        if (reader_is_compact(payload, len)) {
            n = reader_compact(&j->rd, payload, len, &e);
        } else if (reader_is_summary(payload, len)) {
            n = reader_summary_text(&j->rd, payload, len, &e);
        } else {
            json_t *msg = proto_parse((const char *)payload, len, PROTO_REPLY, &e);

            n = msg == NULL ? -1 : reader_json(&j->rd, msg, &e);
            json_decref(msg);
        }
        if (n < 0)
            break;
    }
    if (n < 0 || (got == 0 && end.code == MCT_E_CUT)) {
        end = n < 0 ? e : end;
        goto failed;
    }
    if (got == 0)
        end_fd(j, 0);
    return;
failed:
    log_error("JVM pid %d: its session's output cannot be read: %s", (int)j->pid, end.msg);
    m->rc = MCT_EXIT_INTERNAL;
    end_fd(j, 0);
}

/* Reads JVM j's messages and writes each whole line on stderr, named by
 * the JVM ("mcalltree: " is theirs); at their end stops reading them. */
static void drain_messages(struct multi *m, struct jvm *j)
{
    mct_buf *b = &j->line;
    uint8_t *room = buf_take(b, 4096);
    ssize_t n;
    size_t start = 0;

    if (room == NULL) {
        log_error("JVM pid %d: out of memory reading its messages", (int)j->pid);
        m->rc = MCT_EXIT_INTERNAL;
        buf_reset(b);
        return;
    }
    n = read(j->fd[1], room, 4096);
    b->len -= 4096 - (n > 0 ? (size_t)n : 0);
    if (n < 0 && errno == EINTR)
        return;
    if (n <= 0) {
        end_fd(j, 1);
        return;
    }
    for (size_t i = b->len - (size_t)n; i < b->len; i++) {
        char *line = (char *)b->data + start;

        if (b->data[i] != '\n')
            continue;
        b->data[i] = '\0';
        fu_clean(line);
        fprintf(stderr, "mcalltree: JVM pid %d: %s\n", (int)j->pid,
                strncmp(line, "mcalltree: ", 11) == 0 ? line + 11 : line);
        start = i + 1;
    }
    memmove(b->data, b->data + start, b->len - start);
    b->len -= start;
}

/* ---- the loop ----------------------------------------------------------- */

/* Passes a stop asked for (SIGINT, SIGTERM) on to every session left. */
static void pass_signal(struct multi *m)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->jvms[i].child > 0 && (m->jvms[i].fd[0] >= 0 || m->jvms[i].fd[1] >= 0))
            kill(m->jvms[i].child, SIGINT);
}

/* Polls every session's pipes until all have ended; their statuses into
 * the jvms. */
static void loop(struct multi *m)
{
    struct pollfd p[2 * CLI_PIDS_MAX];   /* m->n is at most CLI_PIDS_MAX */
    int signals = 0;

    for (;;) {
        size_t np = 0;
        mct_err e;

        if (intr_count() != signals) {
            signals = intr_count();
            pass_signal(m);
        }
        for (size_t i = 0; i < m->n; i++)
            for (int k = 0; k < 2; k++)
                if (m->jvms[i].fd[k] >= 0)
                    p[np++] = (struct pollfd){ .fd = m->jvms[i].fd[k], .events = POLLIN };
        if (np == 0)
            break;
        if (!m->output_broken && out_flush(m->out, &e) < 0)
            output_failed(m, &e);
        if (poll(p, np, MULTI_WAIT_MS) < 0 && errno != EINTR) {
            log_error("poll: %s", strerror(errno));
            m->rc = MCT_EXIT_INTERNAL;
            pass_signal(m);
            break;
        }
        for (size_t q = 0; q < np; q++) {
            if (!(p[q].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            for (size_t i = 0; i < m->n; i++)
                for (int k = 0; k < 2; k++)
                    if (m->jvms[i].fd[k] == p[q].fd && k == 0)
                        drain_frames(m, &m->jvms[i]);
                    else if (m->jvms[i].fd[k] == p[q].fd)
                        drain_messages(m, &m->jvms[i]);
        }
    }
    for (size_t i = 0; i < m->n; i++) {
        struct jvm *j = &m->jvms[i];
        int status;

        if (j->child <= 0)
            continue;
        while (waitpid(j->child, &status, 0) < 0 && errno == EINTR)
            ;
        j->rc = WIFEXITED(status) ? WEXITSTATUS(status) : MCT_EXIT_INTERNAL;
        if (WIFSIGNALED(status))
            log_error("JVM pid %d: its session's process was killed by signal %d", (int)j->pid,
                      WTERMSIG(status));
    }
}

/* ---- the end ------------------------------------------------------------ */

static const char *exit_meaning(int rc)
{
    switch (rc) {
    case MCT_EXIT_USAGE: return "a usage error";
    case MCT_EXIT_ATTACH: return "cannot attach or connect";
    case MCT_EXIT_REFUSED: return "the JVM refused the request";
    case MCT_EXIT_FAILOVER: return "a gate failed";
    default: return "an internal or protocol error, or the JVM ended";
    }
}

/* --aggregate: prints the merged summary, judges the gates on it; 1 when a
 * gate failed, 0, or -1 (said). */
static int finish_aggregate(struct multi *m)
{
    sum *s;
    mct_err e;
    int verdict = 0;
    size_t finals = 0;

    for (size_t i = 0; i < m->n; i++)
        finals += (size_t)m->jvms[i].finals;
    if (finals == 0) {
        log_error("no JVM sent its final summary: nothing to merge");
        return m->gate != NULL || m->c->req.fail_over_ms >= 0 ? 1 : 0;
    }
    sum_slowest_limit(m->merged, m->slowest);
    s = m->merged;
    out_set_pid(m->out, 0);
    if (!m->output_broken && out_summary(m->out, s, 1, &e) < 0)
        output_failed(m, &e);
    if (m->gate != NULL && (verdict = gate_check(m->gate, s, stderr, &e)) < 0)
        log_error("judging the gates: %s", e.msg);
    m->gates_judged = verdict >= 0;
    if (verdict >= 0 && m->c->req.fail_over_ms >= 0 && m->c->req.percentile == 0 && sum_root(s) != NULL) {
        struct sum_view v;
        double ms;

        sum_node_view(s, sum_root(s), &v);
        ms = (double)v.entry_max_ns / 1e6;

        if (ms > m->c->req.fail_over_ms) {
            log_error("the slowest call of the %zu JVMs took %.3f ms, over --fail-over-ms %g (exit status 4)",
                      finals, ms, m->c->req.fail_over_ms);
            verdict = 1;
        }
    }
    /* The judge keeps the merged summary for the gates' verdicts (--junit). */
    if (m->gate != NULL) {
        replies_final(gate_judge(m->gate), s);
        m->merged = NULL;
    }
    return verdict;
}

/* The calls' gates at the end; 1 when one failed, 0, or -1 (said). */
static int finish_calls(struct multi *m)
{
    mct_err e;
    int verdict = 0;

    if (m->gate != NULL && (verdict = gate_finish(m->gate, stderr, &e)) < 0)
        log_error("judging the gates: %s", e.msg);
    m->gates_judged = verdict >= 0;
    if (verdict == 0 && m->gate == NULL && m->c->req.fail_over_ms >= 0 && m->judged == 0) {
        log_error("--fail-over-ms %g: no call to judge in any JVM (exit status 4)", m->c->req.fail_over_ms);
        verdict = 1;
    }
    return verdict < 0 ? -1 : verdict || m->over;
}

/* The exit status: each JVM's failure said, the first one's status; else
 * the gates' verdict on the merged run. */
static int finish(struct multi *m)
{
    int verdict = m->c->req.aggregate ? finish_aggregate(m) : finish_calls(m);
    int rc = MCT_EXIT_OK;
    size_t failed = 0;

    for (size_t i = 0; i < m->n; i++) {
        const struct jvm *j = &m->jvms[i];

        if (j->rc == MCT_EXIT_OK)
            continue;
        if (failed++ == 0)
            rc = j->rc;
        log_error("JVM pid %d: its session failed (exit status %d: %s)%s", (int)j->pid, j->rc, exit_meaning(j->rc),
                  m->c->req.aggregate ? "; the summary is of the other JVMs" : "");
    }
    if (failed > 0)
        log_error("%zu of %zu JVMs failed; the exit status is the first one's (in the order given)", failed,
                  m->n);
    if (m->rc != MCT_EXIT_OK)
        return m->rc;
    if (verdict < 0)
        return MCT_EXIT_INTERNAL;
    if (rc != MCT_EXIT_OK)
        return rc;
    return verdict > 0 ? MCT_EXIT_FAILOVER : MCT_EXIT_OK;
}

/* The JVMs of c: its pids, or those --jvms selects; their number, or 0
 * after saying why, *code the exit status. */
static size_t targets(const struct cli *c, pid_t *pids, int *code)
{
    long n;
    mct_err e;

    if (c->jvms == NULL) {
        memcpy(pids, c->pids, c->n_pids * sizeof *pids);
        return c->n_pids;
    }
    n = multi_select(c->jvms, pids, CLI_PIDS_MAX, &e);
    if (n < 0) {
        log_error("%s", e.msg);
        *code = e.code == MCT_E_ARG || e.code == MCT_E_LIMIT ? MCT_EXIT_USAGE : MCT_EXIT_INTERNAL;
        return 0;
    }
    *code = MCT_EXIT_ATTACH;
    if (n == 0)
        log_error("--jvms '%.200s' matches no JVM this user may attach to (jps -l names them: the main class, "
                  "or the jar)", c->jvms);
    for (long i = 0; i < n; i++)
        log_verbose("--jvms: pid %d", (int)pids[i]);
    return (size_t)n;
}

/* The merged run's gate verdicts, or one failed case when they were not
 * judged, for the page and --junit; the exit status. */
static int report_gates(const struct multi *m, int code)
{
    const struct cli *c = m->c;
    char suite[3200];
    mct_err e;

    snprintf(suite, sizeof suite, "mcalltree %s.%s%s (%zu JVMs)", c->req.cls, c->req.method, req_desc(&c->req),
             m->n);
    if (gate_report(m->gate, m->gates_judged, "not judged: no JVM sent what the gates judge (stderr says why)",
                    m->out, c->junit, suite, &e) < 0) {
        log_error("%s", e.msg);
        if (code != MCT_EXIT_OK && code != MCT_EXIT_FAILOVER)
            return code;
        return e.code == MCT_E_NOMEM ? MCT_EXIT_INTERNAL : MCT_EXIT_USAGE;
    }
    return code;
}

int multi_run(const struct cli *c, multi_open_fn open)
{
    struct multi m = { .c = c, .rc = MCT_EXIT_OK };
    pid_t pids[CLI_PIDS_MAX];
    int code;
    mct_err e;

    m.n = targets(c, pids, &code);
    if (m.n == 0)
        return code;
    m.out = out_open(c->format, c->output, c->slow_ms, &e);
    if (m.out == NULL) {
        log_error("%s", e.msg);
        return MCT_EXIT_USAGE;
    }
    out_export_options(m.out, c, 0);
    out_set_host(m.out, gethostname(m.host, sizeof m.host - 1) == 0 ? m.host : "localhost");
    m.out->value = c->folded_value;
    m.jvms = calloc(m.n, sizeof *m.jvms);
    if (m.jvms == NULL || (gate_wanted(c) && (m.gate = gate_new(c, &e)) == NULL) ||
        (c->req.aggregate && (m.merged = sum_new(SUM_SLOWEST_MAX, &e)) == NULL)) {
        log_error("out of memory");
        m.rc = MCT_EXIT_INTERNAL;
    }
    for (size_t i = 0; m.jvms != NULL && i < m.n; i++) {
        struct jvm *j = &m.jvms[i];

        *j = (struct jvm){ .m = &m, .pid = pids[i], .fd = { -1, -1 } };
        /* Per call, the reader hands every call to the gates' judge; the
         * merged summary is judged at the end. */
        reader_init(&j->rd, &j->tab, &j->call, m.gate != NULL && !c->req.aggregate ? gate_judge(m.gate) : NULL,
                    &from_child, j);
    }
    for (size_t i = 0; i < m.n && m.rc == MCT_EXIT_OK; i++) {
        if (start(&m, &m.jvms[i], open, &e) < 0) {
            log_error("JVM pid %d: cannot start its session: %s", (int)pids[i], e.msg);
            m.jvms[i].rc = MCT_EXIT_INTERNAL;
        }
    }
    if (m.rc == MCT_EXIT_OK)
        loop(&m);
    code = finish(&m);
    if (m.gate != NULL && (c->junit != NULL || c->format == CLI_FORMAT_HTML))
        code = report_gates(&m, code);
    if (out_close(m.out, &e) < 0 && !m.output_broken) {
        log_error("%s", e.msg);
        if (code == MCT_EXIT_OK || code == MCT_EXIT_FAILOVER)
            code = MCT_EXIT_INTERNAL;
    }
    for (size_t i = 0; m.jvms != NULL && i < m.n; i++) {
        proto_rbuf_free(&m.jvms[i].rb);
        buf_free(&m.jvms[i].line);
        call_tab_free(&m.jvms[i].tab);
        call_free(&m.jvms[i].call);
    }
    free(m.jvms);
    sum_free(m.merged);
    gate_free(m.gate);
    return code;
}
