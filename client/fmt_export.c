/* fmt_export.c — -f otlp and -f rows: each call through an export sink
 * (client/expsink.h) to a file (-o, or stdout) or, with --otlp-endpoint or
 * --clickhouse, to the server. A sink is opened at a JVM's first call, once
 * the session's facts (the agent's hello: the JVM's name and version) are
 * in; the wrap form writes several JVMs' calls, each JVM its own sink, so
 * that a resource (service, host, pid, runtime) is one JVM's. At the end
 * each sink says on stderr what it sent, rejected and dropped. */
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
    long long pid;
    expsink *sink;
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

/* The sink of the JVM whose calls come now, opened at its first call. */
static expsink *sink_of(out *o, mct_err *e)
{
    struct export_state *st = o->state;
    long long pid = o->pid > 0 ? o->pid : o->export.pid;
    struct expsink_opts so = {0};
    struct jvm_sink *j;

    for (size_t i = 0; i < st->n; i++)
        if (st->jvm[i].pid == pid)
            return st->jvm[i].sink;
    if (st->n == EXPORT_JVMS) {
        if (!st->said_full++)
            log_error("-f %s: more than %d JVMs in one run; the calls of the others are not exported",
                      st->kind == EXPSINK_TRACES ? "otlp" : "rows", EXPORT_JVMS);
        mct_err_set(e, MCT_E_LIMIT, "too many JVMs");
        return NULL;
    }
    j = &st->jvm[st->n];
    j->pid = pid;
    snprintf(j->session, sizeof j->session, "%s:%lld:%lld", st->host, pid, (long long)time(NULL));
    so.kind = st->kind;
    so.url = o->export.url;
    so.f = o->f;
    if (o->export.service == NULL && proc_java_main((pid_t)pid, j->main, sizeof j->main) < 0)
        snprintf(j->main, sizeof j->main, "java");
    so.res.service = o->export.service != NULL ? o->export.service : j->main;
    so.res.host = st->host;
    so.res.pid = pid;
    so.res.runtime_name = st->vm_name[0] != '\0' ? st->vm_name : NULL;
    so.res.runtime_version = st->vm_version[0] != '\0' ? st->vm_version : NULL;
    so.src.host = st->host;
    so.src.pid = pid;
    so.src.session = j->session;
    j->sink = expsink_open(&so, e);
    if (j->sink == NULL)
        return NULL;
    st->n++;
    return j->sink;
}

static int export_call(out *o, const call_tab *t, const mct_call *c)
{
    mct_err e;
    expsink *s = sink_of(o, &e);

    if (s == NULL) {
        if (e.code == MCT_E_LIMIT)
            return 0;
        log_error("-f %s: %s", o->fmt == &fmt_otlp ? "otlp" : "rows", e.msg);
        errno = e.code == MCT_E_NOMEM ? ENOMEM : EIO;
        return -1;
    }
    if (expsink_call(s, t, c, NULL, &e) < 0) {
        errno = e.code == MCT_E_NOMEM ? ENOMEM : EIO;
        return -1;
    }
    return 0;
}

/* Closes every sink; each says what it sent (a server's) on stderr. */
static int export_end(out *o)
{
    struct export_state *st = o->state;
    char line[512];
    int rc = 0;
    mct_err e;

    for (size_t i = 0; i < st->n; i++) {
        if (expsink_close(st->jvm[i].sink, NULL, line, sizeof line, &e) < 0) {
            log_error("-f %s: %s", st->kind == EXPSINK_TRACES ? "otlp" : "rows", e.msg);
            rc = -1;
        } else if (line[0] != '\0') {
            if (st->n > 1 || o->pid > 0)
                log_error("JVM pid %lld: %s", st->jvm[i].pid, line);
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
    .end = export_end,
    .fact = export_fact,
};

const struct out_format fmt_rows = {
    .begin = rows_begin,
    .call = export_call,
    .end = export_end,
    .fact = export_fact,
};
