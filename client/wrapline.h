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

/* The longest line accepted: a reply's cap (PROTO_MAX_REPLY). */
#define WRAPLINE_MAX ((size_t)64 * 1024 * 1024)

/* Parses line (len bytes, without its '\n') and checks it: a JSON object
 * whose "type" is start (pid > 0, vm, version, entry: strings), gate
 * (passed: bool, failures: array of strings), summary (sum_json_check),
 * end (the reply's schema, plus an optional boolean entry_loaded) or plan,
 * call, status, error (the reply's schema). Returns a new reference (the
 * caller decrefs), or NULL with e set (MCT_E_PROTO naming what is wrong). */
json_t *wrapline_parse(const char *line, size_t len, mct_err *e);

#endif
