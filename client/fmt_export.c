/* fmt_export.c — -f otlp and -f rows: each call through an export sink
 * (client/expsink.h) to a file (-o, or stdout) or, with --otlp-endpoint or
 * --clickhouse, to the server. A sink is opened at a JVM's first call, once
 * the session's facts (the agent's hello: the JVM's name and version) are
 * in; the wrap form writes several JVMs' calls, each JVM its own sink, so
 * that a resource (service, host, pid, runtime) is one JVM's. At the end
 * each sink says on stderr what it sent, rejected and dropped. With
 * --aggregate, -f otlp sends each summary as OTLP metrics (a histogram
 * point per node) through a sink of its own, to URL/v1/metrics. */
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "expsink.h"
#include "log.h"
#include "proc.h"

/* JVMs of one output (the wrap form's); more are refused, said once. */
#define EXPORT_JVMS 64

struct jvm_sink {
    long long pid;                  /* 0: objects of no one JVM (several JVMs' merged summary) */
    expsink *sink;                  /* its calls, opened at the first; or NULL */
    expsink *metrics;               /* -f otlp: its summaries, opened at the first; or NULL */
    char session[320];              /* rows: host:pid:start */
    char main[256];                 /* what the JVM runs (jps -l), the default service */
};

struct export_state {
    enum expsink_kind kind;
    char host[256];
    char vm_name[128], vm_version[64];
    struct jvm_sink jvm[EXPORT_JVMS];
    size_t n;
    int said_full;
};

static int no_memory(void)
{
    errno = ENOMEM;
    return -1;
}

static int export_begin(out *o, enum expsink_kind kind)
{
    struct export_state *st = calloc(1, sizeof *st);

    if (st == NULL)
        return no_memory();
    st->kind = kind;
    if (gethostname(st->host, sizeof st->host - 1) != 0)
        strcpy(st->host, "localhost");
    o->state = st;
    return 0;
}

static int otlp_begin(out *o)
{
    return export_begin(o, EXPSINK_TRACES);
}

static int rows_begin(out *o)
{
    return export_begin(o, EXPSINK_ROWS);
}

/* The hello's JVM: its name and version for the resource. */
static void export_fact(out *o, const char *key, const json_t *value)
{
    struct export_state *st = o->state;
    const json_t *jvm = json_object_get(value, "jvm");
    const char *name = json_string_value(json_object_get(jvm, "name"));
    const char *version = json_string_value(json_object_get(jvm, "version"));

    if (strcmp(key, "hello") != 0)
        return;
    if (name != NULL)
        snprintf(st->vm_name, sizeof st->vm_name, "%s", name);
    if (version != NULL)
        snprintf(st->vm_version, sizeof st->vm_version, "%s", version);
}

/* The JVM whose objects come now (its entry made at its first), or NULL
 * with e set (MCT_E_LIMIT: too many, said once). */
static struct jvm_sink *jvm_of(out *o, mct_err *e)
{
    struct export_state *st = o->state;
    long long pid = o->pid > 0 ? o->pid : o->export.pid;
    struct jvm_sink *j;

    for (size_t i = 0; i < st->n; i++)
        if (st->jvm[i].pid == pid)
            return &st->jvm[i];
    if (st->n == EXPORT_JVMS) {
        if (!st->said_full++)
            log_error("-f %s: more than %d JVMs in one run; the calls of the others are not exported",
                      st->kind == EXPSINK_TRACES ? "otlp" : "rows", EXPORT_JVMS);
        mct_err_set(e, MCT_E_LIMIT, "too many JVMs");
        return NULL;
    }
    j = &st->jvm[st->n++];
    j->pid = pid;
    snprintf(j->session, sizeof j->session, "%s:%lld:%lld", st->host, pid, (long long)time(NULL));
    if (o->export.service == NULL && (pid <= 0 || proc_java_main((pid_t)pid, j->main, sizeof j->main) < 0))
        snprintf(j->main, sizeof j->main, "java");
    return j;
}

/* JVM j's sink of kind (the output's, or its metrics), opened at its
 * first use; NULL with e set. */
static expsink *sink_of(out *o, struct jvm_sink *j, enum expsink_kind kind, mct_err *e)
{
    struct export_state *st = o->state;
    expsink **slot = kind == EXPSINK_METRICS ? &j->metrics : &j->sink;
    struct expsink_opts so = {0};

    if (*slot != NULL)
        return *slot;
    so.kind = kind;
    so.url = o->export.url;
    so.f = o->f;
    so.res.service = o->export.service != NULL ? o->export.service : j->main;
    so.res.host = st->host;
    so.res.pid = j->pid;
    so.res.runtime_name = st->vm_name[0] != '\0' ? st->vm_name : NULL;
    so.res.runtime_version = st->vm_version[0] != '\0' ? st->vm_version : NULL;
    so.src.host = st->host;
    so.src.pid = j->pid;
    so.src.session = j->session;
    *slot = expsink_open(&so, e);
    return *slot;
}

/* A failure e of writing to a sink, as the output's errno; 0 for a JVM
 * past the limit (said once). */
static int sink_failed(const out *o, const mct_err *e)
{
    if (e->code == MCT_E_LIMIT)
        return 0;
    log_error("-f %s: %s", o->fmt == &fmt_otlp ? "otlp" : "rows", e->msg);
    errno = e->code == MCT_E_NOMEM ? ENOMEM : EIO;
    return -1;
}

static int export_call(out *o, const call_tab *t, const mct_call *c)
{
    mct_err e;
    struct jvm_sink *j = jvm_of(o, &e);
    expsink *s = j != NULL ? sink_of(o, j, ((struct export_state *)o->state)->kind, &e) : NULL;

    if (s == NULL)
        return sink_failed(o, &e);
    if (expsink_call(s, t, c, NULL, &e) < 0) {
        errno = e.code == MCT_E_NOMEM ? ENOMEM : EIO;
        return -1;
    }
    return 0;
}

/* -f otlp --aggregate: each summary as metrics, a point per node. */
static int otlp_summary(out *o, const sum *summary, int final)
{
    mct_err e;
    struct jvm_sink *j = jvm_of(o, &e);
    expsink *s = j != NULL ? sink_of(o, j, EXPSINK_METRICS, &e) : NULL;

    if (s == NULL || expsink_summary(s, summary, final, &e) < 0)
        return sink_failed(o, &e);
    return 0;
}

/* Closes every sink; each says what it sent (a server's) on stderr. */
static int export_end(out *o)
{
    struct export_state *st = o->state;
    char line[512];
    int rc = 0;
    mct_err e;

    for (size_t i = 0; i < 2 * st->n; i++) {
        const struct jvm_sink *j = &st->jvm[i / 2];
        expsink *s = i % 2 == 0 ? j->sink : j->metrics;

        if (s == NULL)
            continue;
        if (expsink_close(s, NULL, line, sizeof line, &e) < 0) {
            log_error("-f %s: %s", st->kind == EXPSINK_TRACES ? "otlp" : "rows", e.msg);
            rc = -1;
        } else if (line[0] != '\0') {
            if (j->pid > 0 && (st->n > 1 || o->pid > 0))
                log_error("JVM pid %lld: %s", j->pid, line);
            else
                log_error("%s", line);
        }
    }
    free(st);
    o->state = NULL;
    return rc;
}

const struct out_format fmt_otlp = {
    .begin = otlp_begin,
    .call = export_call,
    .summary = otlp_summary,
    .end = export_end,
    .fact = export_fact,
};

const struct out_format fmt_rows = {
    .begin = rows_begin,
    .call = export_call,
    .end = export_end,
    .fact = export_fact,
};
