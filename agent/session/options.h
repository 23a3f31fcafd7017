/* options.h — the agent's options: the string after '=' in
 * -agentpath:libmcalltree.so=OPTIONS, or the third argument of the attach
 * `load` command. Comma-separated NAME or NAME=VALUE items (split at the
 * first '='), parsed by one table in options.c; adding an option is one
 * table row and one field. Values are percent-decoded: %XX (two hex digits)
 * is that byte, so a value holding ',' is written %2C, a space %20, a '%'
 * %25. */
#ifndef MCT_OPTIONS_H
#define MCT_OPTIONS_H

#include "err.h"
#include "gates.h"

/* The default depth and regex of a startup trace (trace= without depth= or
 * regex=). */
#define OPTS_TRACE_DEPTH 3
#define OPTS_TRACE_REGEX ".*"

/* Bytes for the texts of a trace's max-calls= and budget= items together. */
#define OPTS_GATE_TEXT_MAX 8192

/* A trace started with the JVM (trace=...): the request a client would
 * send, and the file the replies go to. cls[0] == '\0' when none. */
struct agent_trace_opts {
    char cls[1025];       /* binary class name with dots */
    char method[1025];
    char desc[1025];      /* "" for every overload */
    int depth;            /* 1..64 */
    char regex[4097];
    char out[4097];       /* the NDJSON file; "{pid}" stands for the JVM's pid */
    int include_jdk;
    long long min_ns;
    long long count;      /* 0: no limit */
    int aggregate;        /* summaries instead of calls */
    long long interval_ms;/* with aggregate: a summary this often; 0: only the final one */
    long long slowest;    /* with aggregate: calls kept whole per summary; -1: not given */
    long long sample;     /* trace one entry call in this many; 0: not given (every one) */
    int include_warmup;   /* summaries and gates count warm-up calls (agent/warm.h) */
    /* The gates (protocol/gates.h), judged by the agent at the end. The
     * max-calls= and budget= items are kept as text (decoded), each a kind
     * byte ('m' or 'b'), the value and a NUL, one after the other in
     * gate_text, so that this struct stays copyable; opts_gates parses
     * them into specs. */
    char gate_text[OPTS_GATE_TEXT_MAX];
    size_t gate_used;
    size_t n_max_calls, n_budgets;
    double percentile;    /* 0: unset */
    double fail_over_ms;
    int fail_over_set;    /* fail-over-ms= was given */
};

/* The gates of a trace as protocol/gates.h judges them: the specs and the
 * view over them. */
struct opts_gates {
    struct gates_max_calls max_calls[GATES_MAX];
    struct gates_budget budgets[GATES_MAX];
    struct gates gates;
};

struct agent_opts {
    int verbose;    /* log the agent's lifecycle on the JVM's stderr */
    /* Diagnostic, startup only: rewrite every method of the classes whose
     * names match this regex as they load, with probes that only count
     * (agent/diag.h); "" when off. */
    char rewrite_all[512];
    /* The probes' clock: "auto" (or "", the default: the TSC where it is
     * invariant, else CLOCK_MONOTONIC) or "monotonic". Takes effect at the
     * agent's first load in a JVM. */
    char clock[16];
    /* Startup only: trace from the JVM's start, without a client. */
    struct agent_trace_opts trace;
};

/* Parses s (NULL or "" gives the defaults) into *o; -1 with e set naming the
 * offending item (and the known options for an unknown one). A trace's
 * items are checked together: trace= needs out=, and the others need
 * trace=; interval= and slowest= need aggregate, which excludes min-ms=;
 * include-warmup needs aggregate or a gate. */
int opts_parse(const char *s, struct agent_opts *o, mct_err *e);

/* Fills *g with t's gates (fail-over-ms= alone is percentile 100: every
 * call); g borrows t, which must outlive it. 1 when t sets a gate, 0 when
 * none, -1 with e set when an item does not parse (never after
 * opts_parse accepted it). */
int opts_gates(const struct agent_trace_opts *t, struct opts_gates *g, mct_err *e);

/* Whether s names a startup trace (an item trace=...), however malformed
 * the rest: such a JVM must start, traced or not. */
int opts_has_trace(const char *s);

#endif
