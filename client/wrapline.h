/* wrapline.h — one line of a JVM's trace file in the wrap form: the file
 * the agent started with -agentpath:...=trace=...,out=FILE writes (one JSON
 * object per line, the format of README "Tracing from JVM start":
 * start, the protocol's replies, gate, end). The client reads it as
 * untrusted bytes: every line is checked here before anything uses it. */
#ifndef MCT_WRAPLINE_H
#define MCT_WRAPLINE_H

#include <stddef.h>

#include <jansson.h>

#include "err.h"
#include "summary.h"

/* The longest line accepted: a reply's cap (PROTO_MAX_REPLY). */
#define WRAPLINE_MAX ((size_t)64 * 1024 * 1024)

/* One line read: a summary read straight into the compact model, or any
 * other line as a JSON object. */
struct wrapline {
    json_t *msg;                /* a new reference (the caller decrefs), or NULL */
    sum *summary;               /* the caller frees it, or NULL */
    struct sum_info info;       /* what the summary says of itself */
};

/* Parses line (len bytes, without its '\n') into *out and checks it: a
 * summary whose "type" comes first (as the agent writes it) read by
 * sum_read without a document tree (its checks), else a JSON object whose
 * "type" is start (pid > 0, vm, version, entry: strings), gate (passed:
 * bool, failures: array of strings), summary (sum_json_check), end (the
 * reply's schema, plus an optional boolean entry_loaded) or plan, call,
 * status, error (the reply's schema). 0, or -1 with e set (MCT_E_PROTO
 * naming what is wrong) and nothing in *out. */
int wrapline_parse(const char *line, size_t len, struct wrapline *out, mct_err *e);

#endif
