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

/* The default depth and regex of a startup trace (trace= without depth= or
 * regex=). */
#define OPTS_TRACE_DEPTH 3
#define OPTS_TRACE_REGEX ".*"

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
 * trace=; interval= and slowest= need aggregate, which excludes min-ms=. */
int opts_parse(const char *s, struct agent_opts *o, mct_err *e);

/* Whether s names a startup trace (an item trace=...), however malformed
 * the rest: such a JVM must start, traced or not. */
int opts_has_trace(const char *s);

#endif
