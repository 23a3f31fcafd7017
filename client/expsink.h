/* expsink.h — where `-f otlp` and `-f rows` put the calls: a file (one
 * OTLP request a line, each call its own and flushed, the form the
 * Collector's otlpjsonfile receiver reads; or the rows, a line each), or a
 * server through the export queue (export.h) in batches: OTLP/HTTP at
 * URL/v1/traces (--otlp-endpoint URL; with --aggregate the summaries as
 * metrics at URL/v1/metrics), ClickHouse's HTTP interface
 * (--clickhouse URL: the rows are inserted into mcalltree.nodes unless the
 * URL gives its own query=). The output formats call expsink_call for each
 * call and expsink_close at the end; the encoders are protocol/otlp.c and
 * protocol/rows.c. */
#ifndef MCT_EXPSINK_H
#define MCT_EXPSINK_H

#include <stdio.h>

#include "call.h"
#include "err.h"
#include "export.h"
#include "otlp.h"
#include "rows.h"

/* What a sink takes: calls as OTLP traces, calls as rows, or summaries as
 * OTLP metrics (URL/v1/metrics). */
enum expsink_kind { EXPSINK_TRACES, EXPSINK_ROWS, EXPSINK_METRICS };

/* A sink's options; borrowed by expsink_open (strings copied where kept). */
struct expsink_opts {
    enum expsink_kind kind;
    const char *url;                /* the server, or NULL: write to f */
    FILE *f;                        /* the file, borrowed until expsink_close */
    struct otlp_resource res;       /* traces, metrics: the resource */
    struct rows_src src;            /* rows: where the calls come from */
    size_t batch_bytes;             /* a batch is queued past this size [262144] */
    struct export_opts queue;       /* the queue's options (its url is set here) */
};

typedef struct expsink expsink;

/* A sink, or NULL with e set (a bad URL, out of memory, the queue's
 * thread). Close it with expsink_close. */
expsink *expsink_open(const struct expsink_opts *o, mct_err *e);

/* Adds call c (methods in t; it passed call_check), under the W3C context
 * parent (traces; NULL: a trace of its own). Never waits on the network.
 * 0, or -1 with e set (out of memory, the file could not be written). */
int expsink_call(expsink *s, const call_tab *t, const mct_call *c, const struct otlp_parent *parent, mct_err *e);

/* Adds summary (final: the run's last) to a
 * metrics sink: one request of a point per node (otlp_summary_metrics),
 * sent or written at once. Never waits on the network. 0, or -1 with e
 * set (out of memory, the file could not be written). */
int expsink_summary(expsink *s, const sum *summary, int final, mct_err *e);

/* Sends or writes what is left, stops the queue (export_stop's bound),
 * frees s; the queue's counters into st (NULL: not wanted; zero when the
 * sink wrote to a file) and the end-of-run line for stderr into line (n
 * bytes; "" for a file). 0, or -1 with e set (the file's last write). */
int expsink_close(expsink *s, struct export_stats *st, char *line, size_t n, mct_err *e);

#endif
