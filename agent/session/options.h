/* options.h — the agent's options: the string after '=' in
 * -agentpath:libmcalltree.so=OPTIONS, or the third argument of the attach
 * `load` command. Comma-separated NAME or NAME=VALUE items (split at the
 * first '='): the agent's own (verbose, rewrite-all, clock, probes: a table in
 * options.c) and a startup trace's, which are request.h's rows (REQ_AGENT):
 * a new trace option is one row there. Values are percent-decoded: %XX (two hex digits)
 * is that byte, so a value holding ',' is written %2C, a space %20, a '%'
 * %25. */
#ifndef MCT_OPTIONS_H
#define MCT_OPTIONS_H

#include "err.h"
#include "gates.h"
#include "request.h"

/* Bytes for the texts of a trace's max-calls= and budget= items together. */
#define OPTS_GATE_TEXT_MAX 8192

/* Bytes for the texts of a trace's values together (decoded): the entry
 * method, regex=, out= and the gates. */
#define OPTS_TEXT_MAX (3 * (REQ_NAME_MAX + 1) + 2 * (REQ_TEXT_MAX + 1) + OPTS_GATE_TEXT_MAX)

/* A trace started with the JVM (trace=...): the request a client would
 * send (request.h), its strings and gate texts in text; req.cls is NULL
 * when none. The request points into its own text: copy it with
 * opts_trace_copy, never by assignment. */
struct agent_trace_opts {
    struct mct_request req;
    char text[OPTS_TEXT_MAX];
    size_t text_used;
    size_t gate_used;     /* of text, by the gates' items (OPTS_GATE_TEXT_MAX) */
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
    /* How a traced call's ordinary probes record its events: "java" (in
     * Java, with System.nanoTime, the agent's clock then CLOCK_MONOTONIC),
     * "native" (JNI natives) or "auto" (or "", the default: java where
     * the clock is CLOCK_MONOTONIC anyway, native where it is the TSC).
     * Takes effect at the agent's first session in a JVM. */
    char probes[16];
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
 * none. */
int opts_gates(const struct agent_trace_opts *t, struct gates *g);

/* *dst = *src, its request pointing into dst's text. */
void opts_trace_copy(struct agent_trace_opts *dst, const struct agent_trace_opts *src);

/* Whether s names a startup trace (an item trace=...), however malformed
 * the rest: such a JVM must start, traced or not. */
int opts_has_trace(const char *s);

#endif
