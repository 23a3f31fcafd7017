/* rows.h — calls as rows for a column store: one JSON object a line per
 * node of a call, ready for ClickHouse's `INSERT INTO t FORMAT
 * JSONEachRow` (`-f rows`, `--clickhouse URL`). Pure functions: they append
 * text to a buffer and never do I/O.
 *
 * A row holds the node's process (host, pid, session), its call (thread
 * id and name, seq, start_ns, time: the start in whole seconds as
 * "YYYY-MM-DD hh:mm:ss" UTC, warmup, exception of the root, trace_id and parent_span_id of the trace
 * it joined: hex, "" without one), its place
 * (node: its index in pre-order, depth, path: "Class.method(desc)" of each
 * node from the entry method down, joined by " / ", path_hash and
 * parent_hash: rows_path_hash of its path and of its parent's, 0 for the
 * root) and its figures (class, method, desc, calls, total_ns, self_ns,
 * min_ns, max_ns, throws, truncated). README's "Many JVMs" gives the table.
 *
 * path_hash is the same on every host (of one byte order) for the same
 * path, so that the nodes of many JVMs group by it. */
#ifndef MCT_ROWS_H
#define MCT_ROWS_H

#include <stdint.h>

#include "buf.h"
#include "call.h"

/* The separator of a path's nodes; a name never holds it (class, method
 * and descriptor names hold no space). */
#define ROWS_PATH_SEP " / "

/* Where the calls come from. Borrowed. */
struct rows_src {
    const char *host;
    int64_t pid;
    const char *session;            /* the session's id, e.g. host:pid:start */
};

/* The hash of the path whose parent's hash is parent (0 for the root) and
 * whose last node is the method (cls, name, desc): odd, below 2^63. */
uint64_t rows_path_hash(uint64_t parent, const char *cls, const char *name, const char *desc);

/* Appends one row a line for each node of call c (methods in t; it passed
 * call_check), in pre-order. Returns the rows appended (the call's nodes),
 * or -1 when out of memory (b failed). */
long rows_call(mct_buf *b, const struct rows_src *src, const call_tab *t, const mct_call *c);

#endif
