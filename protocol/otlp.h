/* otlp.h — calls and histograms in OpenTelemetry's OTLP/HTTP JSON encoding
 * (opentelemetry-proto's JSON mapping: ids in lowercase hex, 64-bit
 * integers and times as decimal strings, times in Unix nanoseconds), for
 * `-f otlp` and `--otlp-endpoint` (POSTed to URL/v1/traces, /v1/metrics).
 * Pure functions: they append text to a buffer and never do I/O.
 *
 * Traces: each call is one trace, one span per node of the call. A batch
 * is one ExportTraceServiceRequest: otlp_traces_begin (the resource and
 * scope), otlp_trace_spans for each call, otlp_traces_end. A span is named
 * "Class.method"; its attributes are code.namespace, code.function,
 * mcalltree.desc and the node's figures (mcalltree.calls, .self_ns,
 * .min_ns, .max_ns, .throws, .truncated): a node merges every call of one
 * method under one parent. The root also carries thread.id, thread.name,
 * mcalltree.seq, mcalltree.warmup and, when the call threw, exception.type
 * and the status ERROR with the exception's class as its message.
 *
 * Span times are a layout, not measured times, as in the chrome format:
 * the root starts at the call's start_ns and lasts its total_ns; a node's
 * children are laid out one after another from their parent's start, in
 * order, each as long as its total, clamped to the parent's end.
 *
 * Ids: the trace id and span ids derive from a 128-bit key (random per
 * session, chosen by the caller), the call's seq and the node's index, so
 * that one session never repeats an id and the output is reproducible from
 * the key. A call given a parent context (W3C traceparent, the span active
 * on its thread at entry) joins that trace: the same trace id, its root's
 * parentSpanId the parent span.
 *
 * Metrics: a summary node's histogram (summary.h sum_hist) as one data
 * point of an explicit-bucket histogram named mcalltree.node.duration (ns):
 * its bounds are exactly the edges of the histogram's non-empty buckets, so
 * that no sample moves between buckets and a backend's quantile keeps the
 * histogram's error bound; attributes name the call path. */
#ifndef MCT_OTLP_H
#define MCT_OTLP_H

#include <stdint.h>

#include "buf.h"
#include "call.h"
#include "err.h"
#include "summary.h"

/* The process a batch comes from: resource attributes service.name,
 * host.name, process.pid, process.runtime.name/.version/.description (a
 * NULL or empty string is left out). Borrowed. */
struct otlp_resource {
    const char *service, *host;
    int64_t pid;                    /* <= 0: left out */
    const char *runtime_name, *runtime_version, *runtime_description;
};

/* A W3C trace context: the trace a call joins and the span it is a child of. */
struct otlp_parent {
    uint8_t trace_id[16];
    uint8_t span_id[8];
};

/* Reads a W3C traceparent header value ("00-<32 hex>-<16 hex>-<2 hex>",
 * lowercase, ids not all zero) into p; 0, or -1 with e set (MCT_E_ARG
 * naming what is wrong). */
int otlp_traceparent(const char *s, struct otlp_parent *p, mct_err *e);

/* Starts an ExportTraceServiceRequest in b (empty or not) for resource r. */
void otlp_traces_begin(mct_buf *b, const struct otlp_resource *r);

/* Appends the spans of call c (methods in t; it passed call_check) to the
 * request begun in b; first: whether no span precedes them in it. key: the
 * session's id key (above); parent: the context the call joins, or NULL
 * for the call's own (CALL_F_PARENT: the span active on its thread at its
 * start), else a trace of its own. Returns the number of spans appended (the
 * call's nodes), or -1 when out of memory (b failed). */
long otlp_trace_spans(mct_buf *b, const call_tab *t, const mct_call *c, const uint64_t key[2],
                      const struct otlp_parent *parent, int first);

/* Closes the request begun by otlp_traces_begin. */
void otlp_traces_end(mct_buf *b);

/* One node of a summary, named by its call path, for otlp_metric_point.
 * Borrowed. */
struct otlp_node {
    const char *path;               /* "Class.method(desc) / ..." from the entry method down */
    uint64_t path_hash;             /* rows.h rows_path_hash of that path */
    const char *cls, *name, *desc;
    unsigned depth;                 /* 0: the entry method */
};

/* Starts an ExportMetricsServiceRequest with one histogram metric,
 * cumulative (the run so far) or delta (one interval). */
void otlp_metrics_begin(mct_buf *b, const struct otlp_resource *r, int cumulative);

/* Appends node n's histogram h (total ns per entry call; sum_ns their sum)
 * over [start_ns, end_ns] as a data point; first: whether no point
 * precedes it. 0, or -1 when out of memory (b failed). */
int otlp_metric_point(mct_buf *b, const struct otlp_node *n, const struct sum_hist *h, uint64_t sum_ns,
                      uint64_t start_ns, uint64_t end_ns, int first);

/* Closes the request begun by otlp_metrics_begin. */
void otlp_metrics_end(mct_buf *b);

/* Appends to b one ExportMetricsServiceRequest of resource r holding a
 * point for every node of summary (read by sum_read, so checked, or made
 * of calls; its roots and their children, in pre-order): its path as
 * rows.h writes it, its hist over the summary's start_ns .. end_ns,
 * cumulative for a final summary and delta for an interval's. Returns the
 * points appended, or -1 with e set (out of memory). */
long otlp_summary_metrics(mct_buf *b, const struct otlp_resource *r, const sum *summary, int final, mct_err *e);

#endif
