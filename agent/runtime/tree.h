/* tree.h — the call tree of one traced call, built from its probe events by
 * the worker: calls of the same method under the same parent merge into one
 * node (calls, total, self, min, max, throws; children in order of first
 * call), the probes' own cost is subtracted, and the result renders as the
 * JSON object of SPEC §3. */
#ifndef MCT_TREE_H
#define MCT_TREE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "crec.h"
#include "err.h"
#include "probe.h"
#include "summary.h"

typedef struct tree tree;

typedef struct tree_opts {
    clock_cal cal;            /* converts ticks to ns */
    uint64_t probe_ticks;     /* subtracted per probe call, in ticks (probe_cost.ticks) */
} tree_opts;

/* Builds the tree of one call from its n events (as published: the first is
 * the outermost ROOT_ENTER, the last its ROOT_EXIT or ROOT_FAIL). A frame
 * still open when a caller exits is closed there and counted as thrown;
 * nodes open when the ring overflowed are marked truncated. Returns NULL with
 * err set on out of memory or events that do not form a call (a bug). */
tree *tree_build(const probe_ev *ev, size_t n, const tree_opts *o, mct_err *err);

void tree_free(tree *t);

/* The entry method's duration in ns (probe cost subtracted). */
uint64_t tree_total_ns(const tree *t);

/* The JNI global ref (as an integer) of the class of the exception that ended
 * the call, or 0; the caller owns it and frees it. */
uintptr_t tree_exception(const tree *t);

/* Number of nodes (distinct call paths). */
size_t tree_nodes(const tree *t);

/* Feeds the tree to summary s through its visitor (sum_begin, then
 * sum_enter/sum_leave for every node depth-first, children in order, then
 * sum_end), with the figures tree_json would render (names as UTF-8). 0, or
 * -1 with err set (out of memory, or s refused it): s may then hold part of
 * the call (summary.h). */
int tree_visit(const tree *t, sum *s, mct_err *err);

/* Marks t as a warm-up call when marks(id, start) holds for the method
 * number id of one of its nodes, start being the tick its root entered at
 * (the rule is the caller's: warm_marks); returns the mark. */
int tree_warmup(tree *t, int (*marks)(int32_t id, uint64_t start));

/* Renders {"type":"call","seq":..,"thread":{"id":..,"name":..},"start_ns":..,
 * "root":{...}}, and "warmup":true last for a call tree_warmup marked;
 * exception (the entry method's exception class, or NULL) goes into
 * root.exception. Names come from the method table; they and exception
 * are modified UTF-8 (as the JVM gives them) and rendered as UTF-8
 * (mutf8.h); thread_name is UTF-8. Returns a new reference, or NULL when
 * out of memory. */
json_t *tree_json(const tree *t, uint64_t seq, int64_t thread_id, const char *thread_name,
                  const char *exception);

/* Appends call t to b as compact frames (crec.h): a definition of each of
 * its methods not in defs yet (then added to defs), then its record, with
 * what tree_json renders (names as UTF-8) and flags (CREC_F_*). 0, or -1
 * when out of memory: b then holds what was whole before. */
int tree_crec(const tree *t, crec_buf *b, crec_defs *defs, uint64_t seq, int64_t thread_id,
              const char *thread_name, const char *exception, unsigned flags);

#endif
