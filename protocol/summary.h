/* summary.h — statistics over many calls of the entry method (issue 11):
 * a log-linear histogram with a bounded relative error, and the summary
 * tree that merges completed calls by call path, with per-node counts per
 * entry call and percentiles of the node's time within one entry call.
 * Shared by the agent (its worker aggregates completed calls) and the client
 * (`mcalltree diff` aggregates per-call NDJSON on reading).
 *
 * Histogram (sum_hist): values in ns, 0 .. 2^63-1. Values below 128 are
 * counted exactly; above, every power of two [2^k, 2^(k+1)) is cut into 128
 * buckets of equal width, allocated (1 KiB) the first time a value falls
 * into that power of two. A quantile is found in the bucket holding the
 * sample of rank ceil(q * count) (the nearest-rank quantile of the sorted
 * samples): the smallest sample (min) when it lies in that bucket, else the
 * largest (max) when it does, else the bucket's midpoint. It differs from
 * the exact sample by less than one bucket width, at most 1/128 of it
 * (SUM_HIST_REL_ERR, 0.78 %), and is exact for samples that are all equal.
 * Memory: at most 57 KiB per histogram, 1 KiB per power of two used.
 *
 * Summary tree: a node is (class, method, desc) under its parent; the
 * children keep the order of their first appearance. A node holds what a
 * call's node holds (calls, total_ns, self_ns, min_ns, max_ns, throws,
 * summed or min/max over all calls; max_ns stays the longest single
 * invocation as in SPEC §3) and, per entry call in which it ran: entries
 * (how many entry calls it ran in), calls_min/calls_max (its calls within
 * one entry call, over those entry calls only: an entry call in which it did
 * not run is not a 0) and the histogram of its total time within one entry
 * call (p50_ns, p90_ns, p99_ns, entry_max_ns in the JSON). Per method
 * (class, method, desc, whatever the path) the summary keeps the most calls
 * in one entry call (`methods` in the JSON, for --max-calls).
 *
 * Entry calls whose nodes are `"truncated":true` are counted like any
 * other: what they recorded is real, and leaving them out would make counts
 * per entry call depend on buffer sizes. Warm-up calls (`"warmup":true`,
 * agent/warm.h) are left out by the callers unless asked for, and counted
 * with sum_add_warmup.
 *
 * Memory: the nodes are bounded by the paths the plan allows (its methods
 * times the depth, as in one call's tree); each node has one histogram
 * (above); `slowest` holds at most K calls. sum_reset frees the nodes.
 *
 * Ownership: a sum is created by sum_new and freed by sum_free; names are
 * copied; calls offered to `slowest` are referenced (json_incref) and
 * released on reset and free. Not thread-safe: one thread at a time.
 * After a function failed (out of memory, or a visitor called out of order)
 * the sum may hold part of a call: reset or free it. */
#ifndef MCT_SUMMARY_H
#define MCT_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "err.h"

/* ---- histogram ------------------------------------------------------------ */

#define SUM_HIST_SUB_BITS 7                         /* 128 buckets per power of two */
#define SUM_HIST_SUB (1u << SUM_HIST_SUB_BITS)
#define SUM_HIST_GROUPS (64 - SUM_HIST_SUB_BITS + 1)  /* group 0: 0..127, then 2^7 .. 2^63 */
#define SUM_HIST_REL_ERR (1.0 / 128)                /* stated bound on a quantile's error */

struct sum_hist {
    uint64_t count, min, max;
    uint64_t *groups[SUM_HIST_GROUPS];              /* SUM_HIST_SUB counts each, or NULL */
};

/* Initialises h empty (no allocation). */
void sum_hist_init(struct sum_hist *h);

/* Frees h's buckets and makes it empty again. */
void sum_hist_reset(struct sum_hist *h);

/* Records value v (values over INT64_MAX count as INT64_MAX); 0, or -1 with
 * e set when a bucket group cannot be allocated. */
int sum_hist_record(struct sum_hist *h, uint64_t v, mct_err *e);

/* Adds src's samples to dst; 0 or -1 with e set (out of memory). */
int sum_hist_merge(struct sum_hist *dst, const struct sum_hist *src, mct_err *e);

/* The q-quantile (0 <= q <= 1) within SUM_HIST_REL_ERR of the nearest-rank
 * sample; 0 for an empty histogram. q 0 is min, q 1 is max. */
uint64_t sum_hist_quantile(const struct sum_hist *h, double q);

/* ---- summary ------------------------------------------------------------- */

typedef struct sum sum;
struct call_tab;
struct mct_call;

/* The figures of one node of a per-call tree, as the visitor gets them.
 * Names are borrowed for the duration of the call to sum_enter. */
struct sum_fig {
    const char *class_name, *method, *desc;
    uint64_t calls, total_ns, self_ns, min_ns, max_ns, throws;
    int truncated;
};

/* Most slowest calls a summary may keep (--slowest). */
#define SUM_SLOWEST_MAX 1000

/* A new empty summary keeping the slowest k (0..SUM_SLOWEST_MAX) calls, or
 * NULL with e set. Free with sum_free. */
sum *sum_new(size_t k, mct_err *e);

/* Frees s and all it holds; NULL is fine. */
void sum_free(sum *s);

/* Empties s for a new interval: nothing is kept (nodes, methods, counts,
 * slowest); k stays. */
void sum_reset(sum *s);

/* Entry calls added so far. */
uint64_t sum_calls(const sum *s);

/* Adds n to the calls of the entry method that were not traced (the agent's
 * `dropped`); reported as not_traced. */
void sum_add_not_traced(sum *s, uint64_t n);

/* Adds n to the warm-up calls (left out of the summary, or in it when the
 * user asked for them); reported as warmup. */
void sum_add_warmup(sum *s, uint64_t n);

/* Adds n entry calls seen (traced or not: --sample, rings full) to the
 * interval; reported as seen. */
void sum_add_seen(sum *s, uint64_t n);

/* Visitor, one per-call tree at a time: sum_begin, then for every node in
 * depth-first order sum_enter (its figures) ... sum_leave, then sum_end.
 * The first node entered is the call's root. 0, or -1 with e set: out of
 * memory, out of order, or deeper than PROTO_MAX_DEPTH. */
int sum_begin(sum *s, mct_err *e);
int sum_enter(sum *s, const struct sum_fig *fig, mct_err *e);
int sum_leave(sum *s, mct_err *e);
int sum_end(sum *s, mct_err *e);

/* 1 when a call whose root took total_ns would enter `slowest` now, so that
 * a caller can skip rendering a call that would not be kept. */
int sum_slowest_wants(const sum *s, uint64_t total_ns);

/* Offers call (a `call` object; root total total_ns) to `slowest`: kept
 * (referenced) when it is among the k slowest so far. 0 or -1 with e set. */
int sum_slowest_offer(sum *s, uint64_t total_ns, json_t *call, mct_err *e);

/* Adds call c (methods in t; a model that passed call_check) through the
 * visitor, and offers it to `slowest` (as a `call` object, rendered only
 * when kept). 0, or -1 with e set. */
int sum_add_call(sum *s, const struct call_tab *t, const struct mct_call *c, mct_err *e);

/* Adds src (its nodes, methods, counts, slowest) to dst, as if dst had
 * seen src's calls too (an interval into the whole run). 0 or -1 with e. */
int sum_merge(sum *dst, const sum *src, mct_err *e);

/* The summary object {"type":"summary","final":BOOL,"calls":N,
 * "not_traced":N,"root":NODE|null,"methods":[...],"slowest":[...],
 * "warmup":N,"seen":N} ("warmup" and "seen" optional on reading), "root"
 * null when no call was added; a new reference or NULL with e set. When the
 * entry method's calls had several roots (overloads), the first is "root"
 * and the others follow in "more_roots". */
json_t *sum_to_json(const sum *s, int final, mct_err *e);

/* Checks that j is a summary object as sum_to_json writes it (it comes from
 * files: untrusted): every field typed and in range, counts consistent
 * (calls_min <= calls_max, entries <= calls, p50 <= p90 <= p99), nodes at
 * most PROTO_MAX_DEPTH deep, slowest holding call objects; unknown keys are
 * allowed. 0, or -1 with e set (MCT_E_PROTO) naming the offending key. */
int sum_json_check(const json_t *j, mct_err *e);

#endif
