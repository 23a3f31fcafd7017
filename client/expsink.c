/* expsink.c — see expsink.h. */
#include "expsink.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define DEF_BATCH ((size_t)256 << 10)
#define CH_INSERT "query=INSERT%20INTO%20mcalltree.nodes%20FORMAT%20JSONEachRow"

struct expsink {
    struct expsink_opts o;
    exporter *x;                    /* NULL: writing to o.f */
    mct_buf batch;
    uint64_t items;                 /* in batch */
    uint64_t key[2];                /* the span ids' key (otlp.h) */
};

/* The URL the sink POSTs to (caller frees), or NULL when out of memory. */
static char *post_url(const struct expsink_opts *o)
{
    const char *u = o->url;
    size_t n = strlen(u);
    char *s = NULL;

    if (o->kind != EXPSINK_ROWS) {
        while (n > 0 && u[n - 1] == '/')
            n--;
        if (asprintf(&s, "%.*s/v1/%s", (int)n, u, o->kind == EXPSINK_TRACES ? "traces" : "metrics") < 0)
            return NULL;
    } else if (strstr(u, "query=") != NULL) {
        s = strdup(u);
    } else if (asprintf(&s, "%s%s%s", u, strchr(u, '?') ? "&" : n > 0 && u[n - 1] == '/' ? "?" : "/?", CH_INSERT) < 0) {
        return NULL;
    }
    return s;
}

expsink *expsink_open(const struct expsink_opts *o, mct_err *e)
{
    expsink *s = calloc(1, sizeof *s);

    if (s == NULL) {
        mct_err_set(e, MCT_E_NOMEM, "out of memory opening an export");
        return NULL;
    }
    s->o = *o;
    if (s->o.batch_bytes == 0)
        s->o.batch_bytes = DEF_BATCH;
    buf_init(&s->batch);
    /* Ids must not repeat across sessions: a random key (otlp.h). */
    if (getrandom(s->key, sizeof s->key, 0) != (ssize_t)sizeof s->key) {
        s->key[0] = (uint64_t)time(NULL);
        s->key[1] = (uint64_t)getpid();
    }
    if (o->url != NULL) {
        struct export_opts q = o->queue;
        char *url = post_url(o);

        if (url == NULL) {
            mct_err_set(e, MCT_E_NOMEM, "out of memory opening an export");
            free(s);
            return NULL;
        }
        q.url = url;
        if (q.partial_items == NULL && o->kind != EXPSINK_ROWS)
            q.partial_items = o->kind == EXPSINK_TRACES ? "rejectedSpans" : "rejectedDataPoints";
        s->x = export_start(&q, e);
        free(url);
        if (s->x == NULL) {
            free(s);
            return NULL;
        }
    }
    return s;
}

/* Queues or writes the batch; 0, or -1 with e set (the file). */
static int flush(expsink *s, mct_err *e)
{
    int rc = 0;

    if (s->batch.len == 0)
        return 0;
    /* A metrics batch is one whole request already. */
    if (s->o.kind == EXPSINK_TRACES)
        otlp_traces_end(&s->batch);
    if (s->o.kind != EXPSINK_ROWS && s->x == NULL)
        buf_ch(&s->batch, '\n');
    if (buf_failed(&s->batch)) {
        rc = mct_err_set(e, MCT_E_NOMEM, "out of memory encoding a call");
    } else if (s->x != NULL) {
        export_push(s->x, s->batch.data, s->batch.len, s->items);   /* a drop is counted there */
    } else if (fwrite(s->batch.data, 1, s->batch.len, s->o.f) != s->batch.len || fflush(s->o.f) != 0) {
        rc = mct_err_set(e, MCT_E_IO, "cannot write the output: %s", strerror(errno));
    }
    buf_reset(&s->batch);
    s->items = 0;
    return rc;
}

int expsink_call(expsink *s, const call_tab *t, const mct_call *c, const struct otlp_parent *parent, mct_err *e)
{
    long n;

    if (s->o.kind == EXPSINK_TRACES) {
        if (s->batch.len == 0)
            otlp_traces_begin(&s->batch, &s->o.res);
        n = otlp_trace_spans(&s->batch, t, c, s->key, parent, s->items == 0);
    } else {
        n = rows_call(&s->batch, &s->o.src, t, c);
    }
    if (n < 0) {
        buf_reset(&s->batch);
        s->items = 0;
        return mct_err_set(e, MCT_E_NOMEM, "out of memory encoding a call");
    }
    s->items += (uint64_t)n;
    /* A file gets each call at once, as the other formats do. */
    return s->x == NULL || s->batch.len >= s->o.batch_bytes ? flush(s, e) : 0;
}

int expsink_summary(expsink *s, const sum *summary, int final, mct_err *e)
{
    long n = otlp_summary_metrics(&s->batch, &s->o.res, summary, final, e);

    if (n < 0) {
        buf_reset(&s->batch);
        return -1;
    }
    s->items = (uint64_t)n;
    return flush(s, e);
}

int expsink_close(expsink *s, struct export_stats *st, char *line, size_t n, mct_err *e)
{
    struct export_stats got = {0};
    int rc = flush(s, e);

    if (n > 0)
        line[0] = '\0';
    if (s->x != NULL) {
        static const char *const names[][2] = {
            [EXPSINK_TRACES] = { "otlp", "spans" },
            [EXPSINK_ROWS] = { "clickhouse", "rows" },
            [EXPSINK_METRICS] = { "otlp metrics", "points" },
        };

        export_stop(s->x, &got);
        export_describe(&got, names[s->o.kind][0], names[s->o.kind][1], line, n);
    }
    if (st != NULL)
        *st = got;
    buf_free(&s->batch);
    free(s);
    return rc;
}
