/* export.h — a bounded queue of batches POSTed over HTTP by a thread of its
 * own, for `--otlp-endpoint` (OTLP/HTTP JSON) and `--clickhouse` (rows
 * inserted through ClickHouse's HTTP interface). The session never waits
 * for the network: export_push copies a batch into the queue or, when the
 * queue is over its byte bound, drops it and counts its items.
 *
 * The sender (libcurl) follows OTLP/HTTP's rules: a 2xx is sent (with
 * partial_items set, the body's partialSuccess rejected items are read and
 * counted as rejected); 429, 502, 503, 504, a timeout or a failed
 * connection is retried after an exponential backoff (initial backoff,
 * doubled each try, at most max_backoff), or after the server's
 * Retry-After when it gives one; any other status, or a batch whose tries
 * are spent, is dropped and counted. export_stop sends what is queued
 * within its bound, then gives up: what is left is dropped and counted.
 *
 * Memory: at most max_bytes of batches (their bytes plus a small header
 * each) and one response body of at most EXPORT_BODY_MAX. */
#ifndef MCT_EXPORT_H
#define MCT_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* The most of a response body kept (for partialSuccess and the error's text). */
#define EXPORT_BODY_MAX 65536

/* How an exporter sends. Zero values take the defaults in brackets. */
struct export_opts {
    const char *url;                /* POSTed to; copied */
    const char *content_type;       /* [application/json] */
    const char *partial_items;      /* the partialSuccess key counting rejected items
                                     * ("rejectedSpans", "rejectedDataPoints"), or NULL */
    size_t max_bytes;               /* the queue's bound [8 MiB] */
    unsigned max_tries;             /* tries of one batch [5] */
    unsigned backoff_ms;            /* first backoff [200] */
    unsigned max_backoff_ms;        /* longest wait before a try, Retry-After included [30000] */
    unsigned timeout_ms;            /* one request [10000] */
    unsigned stop_ms;               /* export_stop's bound [5000] */
};

/* What an exporter did, in items (spans, rows, data points) unless said. */
struct export_stats {
    uint64_t sent;                  /* in batches the server accepted */
    uint64_t rejected;              /* of those, what partialSuccess says it rejected */
    uint64_t dropped;               /* never accepted: queue full, refused, tries spent, stop */
    uint64_t retries;               /* requests tried again (batches) */
    uint64_t batches;               /* batches accepted */
    size_t peak_bytes;              /* the most memory the queue held */
    int last_status;                /* the last HTTP status, 0 when none */
    char last_error[160];           /* the last failure, "" when none */
};

typedef struct exporter exporter;

/* Starts an exporter and its sender thread; NULL with e set (MCT_E_ARG
 * for a bad option, MCT_E_NOMEM, MCT_E_INTERNAL when libcurl or the
 * thread cannot start). Stop it with export_stop. */
exporter *export_start(const struct export_opts *o, mct_err *e);

/* Queues a copy of the len bytes at data, holding items items; never
 * waits on the network. 0 when queued, -1 when dropped (counted: the
 * queue is over its bound, out of memory, or the exporter is stopping). */
int export_push(exporter *x, const void *data, size_t len, uint64_t items);

/* The counters so far (any thread). */
void export_get_stats(exporter *x, struct export_stats *st);

/* Sends what is queued within stop_ms, then drops the rest, ends the
 * thread and frees x; the final counters into st (NULL: not wanted). */
void export_stop(exporter *x, struct export_stats *st);

/* The end-of-run line for stderr, "NAME: S ITEMS sent, R rejected, D
 * dropped, T retries" with the last failure when there was one, into
 * out (n bytes). */
void export_describe(const struct export_stats *st, const char *name, const char *items, char *out, size_t n);

#endif
