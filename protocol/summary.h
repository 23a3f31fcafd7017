/* summary.h — statistics over many calls of the entry method:
 * a log-linear histogram with a bounded relative error, and the summary
 * tree that merges completed calls by call path, with per-node counts per
 * entry call and percentiles of the node's time within one entry call.
 * Shared by the agent (its worker aggregates completed calls) and the client
 * (`mcalltree diff` aggregates per-call NDJSON on reading).
 *
 * Histogram (sum_hist): values in ns, 0 .. 2^63-1. Values below 128 are
 * counted exactly; above, every power of two [2^k, 2^(k+1)) is cut into 128
 * buckets of equal width. Only the buckets that hold a sample are stored
 * (8 bytes each, sorted), so that a histogram of few samples is small. A
 * quantile is found in the bucket holding the sample of rank
 * ceil(q * count) (the nearest-rank quantile of the sorted samples): the
 * smallest sample (min) when it lies in that bucket, else the
 * largest (max) when it does, else the bucket's midpoint. It differs from
 * the exact sample by less than one bucket width, at most 1/128 of it
 * (SUM_HIST_REL_ERR, 0.78 %), and is exact for samples that are all equal.
 * Memory: 8 bytes per bucket used, at most 58 KiB per histogram; a
 * bucket counts up to 2^51 - 1 samples.
 *
 * Summary tree: a node is (class, method, desc) under its parent; the
 * children keep the order of their first appearance. A node holds what a
 * call's node holds (calls, total_ns, self_ns, min_ns, max_ns, throws,
 * summed or min/max over all calls; max_ns stays the longest single
 * invocation as in SPEC §3) and, per entry call in which it ran: entries
 * (how many entry calls it ran in), calls_min/calls_max (its calls within
 * one entry call, over those entry calls only: an entry call in which it did
 * not run is not a 0) with their distribution (calls_hist in the JSON), and
 * the histogram of its total time within one entry call (hist, with p50_ns,
 * p90_ns, p99_ns, entry_min_ns, entry_max_ns in the JSON). The JSON carries
 * both histograms as flat arrays [index, count, index, count, ...] of the
 * buckets used, so
 * that summaries merge exactly (sum_read, sum_merge). Per method
 * (class, method, desc, whatever the path) the summary keeps the most calls
 * in one entry call (`methods` in the JSON, for --max-calls). With --cpu
 * and --alloc a node carries their figures too (sum_xkeys below).
 *
 * Entry calls whose nodes are `"truncated":true` are counted like any
 * other: what they recorded is real, and leaving them out would make counts
 * per entry call depend on buffer sizes. Warm-up calls (`"warmup":true`,
 * agent/warm.h) are left out by the callers unless asked for, and counted
 * with sum_add_warmup.
 *
 * Memory: a summary is bounded whatever the calls. Recursion and mutual
 * calls make paths without end, so the nodes (about 200 bytes each and
 * their histograms' buckets; the names are kept once per method) take at
 * most SUM_BUDGET_BYTES, and their JSON at most SUM_JSON_BUDGET. Each node
 * is charged for itself and for one "other" node under it, made when a
 * call takes a path past the budget: that path and everything below it
 * (its "folded" calls, counted in the summary) are merged into the other
 * node of the deepest node kept on it, marked "other":true, named
 * SUM_OTHER_CLASS.SUM_OTHER_METHOD, without children. Its total_ns, min_ns,
 * max_ns and percentiles are those of the calls where the paths left the
 * kept ones; calls, self_ns and throws are those of every call folded.
 * Past the budget, a histogram that would need a new bucket counts the
 * sample in its nearest bucket instead ("coarse" samples: their percentile
 * may be off by more than SUM_HIST_REL_ERR). The entry method's roots and
 * the methods (bounded by the plan) are always kept. `slowest` holds at
 * most K calls and SUM_SLOWEST_JSON_MAX bytes of their JSON (a call that
 * would take it past is not kept), so that the summary's JSON stays under
 * the reply cap (proto.h). sum_reset frees the nodes.
 *
 * Ownership: a sum is created by sum_new and freed by sum_free; names are
 * copied; calls kept in `slowest` are copied as their JSON text. Not
 * thread-safe: one thread at a time.
 * After a function failed (out of memory, or a visitor called out of order)
 * the sum may hold part of a call: reset or free it. */
#ifndef MCT_SUMMARY_H
#define MCT_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "buf.h"
#include "err.h"
#include "jtok.h"

/* ---- histogram ------------------------------------------------------------ */

#define SUM_HIST_SUB_BITS 7                         /* 128 buckets per power of two */
#define SUM_HIST_SUB (1u << SUM_HIST_SUB_BITS)
#define SUM_HIST_GROUPS (64 - SUM_HIST_SUB_BITS + 1)  /* group 0: 0..127, then 2^7 .. 2^63 */
#define SUM_HIST_REL_ERR (1.0 / 128)                /* stated bound on a quantile's error */

/* A stored bucket: its index (group * SUM_HIST_SUB + bucket) above
 * SUM_HIST_CNT_BITS bits of count. */
#define SUM_HIST_CNT_BITS 51
#define SUM_HIST_CNT_MAX ((UINT64_C(1) << SUM_HIST_CNT_BITS) - 1)

struct sum_hist {
    uint64_t count, min, max;
    uint64_t *b;                                    /* buckets used, ascending; NULL when none */
    uint32_t n, cap;
    /* Where a value's bucket is looked for first (summary.c's hist_guess):
     * the indexes of the buckets at a quarter, half and three quarters of
     * the piv_n buckets there were when they were taken. */
    uint32_t piv_n;
    uint16_t piv[3];
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

/* The i-th bucket h uses (i < h->n), ascending: its index and count. */
void sum_hist_bucket(const struct sum_hist *h, uint32_t i, unsigned *idx, uint64_t *count);

/* The q-quantile (0 <= q <= 1) within SUM_HIST_REL_ERR of the nearest-rank
 * sample; 0 for an empty histogram. q 0 is min, q 1 is max. */
uint64_t sum_hist_quantile(const struct sum_hist *h, double q);

/* The bounds of the bucket holding the sample of rank (1..count) in
 * ascending order, clamped to min..max (min..max when past count): the
 * sample lies within them, unless it was counted coarse. */
void sum_hist_rank_bounds(const struct sum_hist *h, uint64_t rank, uint64_t *lo, uint64_t *hi);

/* ---- summary ------------------------------------------------------------- */

typedef struct sum sum;
struct call_tab;
struct mct_call;

/* The figures a node holds besides its time when the calls carry them
 * (--cpu: the thread's CPU time in ns; --alloc: the bytes it allocated),
 * one row each: summed over all calls like total_ns (an other node's are
 * those of the calls where the paths left the kept ones), and per entry
 * call in a histogram with the same percentiles as hist. A summary writes
 * a figure only when every call added to it carried it (runs with and
 * without --cpu merged carry no CPU times). The JSON keys are the row's. */
enum sum_xfig { SUM_X_CPU, SUM_X_ALLOC, SUM_X_N };

struct sum_xkeys {
    unsigned flag;              /* CALL_F_CPU, CALL_F_ALLOC: the calls that carry it */
    int within_total;           /* at most total_ns: "rest" is total_ns minus it */
    const char *name;           /* "cpu", "alloc": how people read it */
    const char *total, *rest, *p50, *p90, *p99, *entry_min, *entry_max, *hist;
};

extern const struct sum_xkeys sum_xkeys[SUM_X_N];

/* The figures of one node of a per-call tree, as the visitor gets them.
 * Names are borrowed for the duration of the call to sum_enter. xflags:
 * the CALL_F_* of the figures x the call carries (the same on every node
 * of a call). */
struct sum_fig {
    const char *class_name, *method, *desc;
    uint64_t calls, total_ns, self_ns, min_ns, max_ns, throws;
    int truncated;
    unsigned xflags;
    uint64_t x[SUM_X_N];
    int async;                  /* a task handed off to another thread (CALL_N_ASYNC) */
};

/* Most slowest calls a summary may keep (--slowest). */
#define SUM_SLOWEST_MAX 1000

/* The budget of one summary (above): its nodes' memory, their JSON, the
 * JSON of the calls in `slowest`. The agent holds at most two summaries
 * (the interval's and the run's) and renders one at a time. */
#define SUM_BUDGET_BYTES ((size_t)16 << 20)
#define SUM_JSON_BUDGET ((size_t)32 << 20)
#define SUM_SLOWEST_JSON_MAX ((size_t)16 << 20)

/* The names of a node that holds the paths past the budget. */
#define SUM_OTHER_CLASS "(other)"
#define SUM_OTHER_METHOD "(paths past the summary's budget)"
#define SUM_OTHER_DESC "()"

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

/* The wall-clock time (ns since the epoch) s covers, written as
 * "start_ns" and "end_ns" (not written while end_ns is 0); sum_reset
 * clears it. */
void sum_set_span(sum *s, int64_t start_ns, int64_t end_ns);

/* Visitor, one per-call tree at a time: sum_begin, then for every node in
 * depth-first order sum_enter (its figures) ... sum_leave, then sum_end.
 * The first node entered is the call's root. 0, or -1 with e set: out of
 * memory, out of order, or deeper than PROTO_MAX_DEPTH. */
int sum_begin(sum *s, mct_err *e);
int sum_enter(sum *s, const struct sum_fig *fig, mct_err *e);
/* sum_begin of a warm-up call left out of the summary: its nodes count in
 * their methods' counts only (sum_count_call). */
int sum_begin_counts(sum *s, mct_err *e);
/* sum_enter of a node of method number `method` of t, f's names unused,
 * as sum_add_call enters each (the method's names looked up in t once per
 * number and filling of t), so that a producer of per-call trees adds one
 * node by node without filling the call's whole model. */
int sum_enter_num(sum *s, const struct call_tab *t, uint32_t method, const struct sum_fig *f, mct_err *e);
int sum_leave(sum *s, mct_err *e);
int sum_end(sum *s, mct_err *e);

/* 1 when a call whose root took total_ns would enter `slowest` now, so that
 * a caller can skip rendering a call that would not be kept. */
int sum_slowest_wants(const sum *s, uint64_t total_ns);

/* Keeps at most k (below the k of sum_new) slowest calls from now on, the
 * slowest of those kept. */
void sum_slowest_limit(sum *s, size_t k);

/* Adds call c (methods in t; a model that passed call_check) through the
 * visitor, and offers it to `slowest` (as a `call` object, rendered only
 * when kept). 0, or -1 with e set. */
int sum_add_call(sum *s, const struct call_tab *t, const struct mct_call *c, mct_err *e);

/* Adds warm-up call c, left out of the summary's nodes, calls and slowest,
 * to its methods' counts (calls, calls_max, entries), which count every
 * call: a count does not depend on the JIT. 0, or -1 with e set. */
int sum_count_call(sum *s, const struct call_tab *t, const struct mct_call *c, mct_err *e);

/* Adds src (its nodes, methods, counts, slowest) to dst, as if dst had
 * seen src's calls too (an interval into the whole run), within dst's
 * budget (paths past it fold; an other node's entries, calls_min/max and
 * percentiles are then approximate). 0 or -1 with e. */
int sum_merge(sum *dst, const sum *src, mct_err *e);

/* sum_merge, then empties src (sum_reset). When dst holds no node, no
 * method and no slowest call, src's are moved, not copied, so that the
 * two never hold the same nodes at once. 0 or -1 with e. */
int sum_take(sum *dst, sum *src, mct_err *e);

/* Calls folded into other nodes so far (0 while within the budget). */
uint64_t sum_folded(const sum *s);

/* The summary object {"type":"summary","final":BOOL,"calls":N,
 * "not_traced":N,"root":NODE|null,"methods":[...],"slowest":[...],
 * "warmup":N,"seen":N[,"start_ns":N,"end_ns":N]} ("warmup", "seen" and
 * the span optional on reading), "root"
 * null when no call was added, and "folded":N, "coarse":N when not 0
 * (above); a new reference or NULL with e set. When the entry method's
 * calls had several roots (overloads), the first is "root" and the others
 * follow in "more_roots". */
json_t *sum_to_json(const sum *s, int final, mct_err *e);

/* Appends the summary object of sum_to_json to b as compact JSON text,
 * without building it in memory first (the agent sends it so); 0, or -1
 * with e set (out of memory, a name not UTF-8). */
int sum_write_json(const sum *s, int final, mct_buf *b, mct_err *e);

/* What a summary's text says about itself (sum_read). */
struct sum_info {
    int final;                  /* "final" */
    int64_t pid;                /* "pid" (the wrap form's lines), 0 when none */
    size_t slowest;             /* calls in its "slowest" */
};

/* sum_read's flags: the caller read the object's '{' and its first key,
 * "type":"summary"; the slowest calls are kept (else checked only). */
#define SUM_READ_TYPE_READ 1
#define SUM_READ_SLOWEST 2

/* Reads the summary object that t is at (its text: untrusted) into s,
 * without a document tree: every field typed and in range, counts
 * consistent (calls_min <= calls_max, entries <= calls, p50 <= p90 <= p99,
 * a histogram's counts adding up to entries), the figures of sum_xkeys on
 * every node or on none, as the root (whose figures come before its
 * children: they say which every node carries), nodes at most
 * PROTO_MAX_DEPTH deep, slowest holding call objects; unknown keys are
 * skipped; a known key given twice, a node's names or "other" after its
 * "children", a call path or a method listed twice, or "other" on a root
 * (none of which mcalltree writes) refused. s must be empty: the nodes
 * are added as they are read, the budget does not fold them (the text
 * bounds them), each keeps the text's percentiles, and the keys an older
 * summary lacks stay out (sum_merge refuses such a node, sum_write_json
 * leaves them out), so that s writes what it read. *info: what the object says about
 * itself. 0, or -1 with e set (MCT_E_PROTO naming the offending key, "not
 * JSON (...)" for a syntax error, t->failed then set); after a failure s
 * may hold part of the summary: free it. t is left after the object. */
int sum_read(sum *s, jtok *t, int flags, struct sum_info *info, mct_err *e);

/* A new summary (keeping SUM_SLOWEST_MAX slowest calls) read by sum_read
 * from the n bytes at text (untrusted): one summary object and nothing
 * after it; *info as sum_read's. NULL with e set as sum_read sets it. Free
 * with sum_free. */
sum *sum_read_text(const void *text, size_t n, struct sum_info *info, mct_err *e);

/* Checks that j is a summary object as sum_to_json writes it (sum_read's
 * checks, over j's text). 0, or -1 with e set (MCT_E_PROTO) naming the
 * offending key. */
int sum_json_check(const json_t *j, mct_err *e);

/* ---- a summary's nodes, read-only (diff's walk) ----------------------------- */

typedef struct snode sum_node;

/* What a node shows: sum_node_view. */
#define SUM_NO_METHOD ((size_t)-1)
struct sum_view {
    const char *class_name, *method, *desc;     /* borrowed from the sum */
    uint64_t calls, total_ns, self_ns, min_ns, max_ns, throws;
    uint64_t entries, calls_min, calls_max;
    uint64_t p50_ns, p90_ns, p99_ns, entry_min_ns, entry_max_ns;
    const struct sum_hist *hist;    /* its time per entry call; NULL: none read (an older summary) */
    const struct sum_hist *chist;   /* its calls per entry call; NULL: none read */
    int truncated, other;
    int async;                  /* some of its calls were tasks handed off to another thread */
    size_t method_idx;          /* its method's index (sum_method_names), SUM_NO_METHOD for an other node */
    unsigned xflags;            /* the figures of sum_xkeys it carries (their CALL_F_*): x[] below */
    struct {
        uint64_t total, p50, p90, p99, entry_min, entry_max;
        const struct sum_hist *hist;    /* per entry call */
    } x[SUM_X_N];
};

/* s's first root (the others follow it: sum_node_next), NULL when none. */
const sum_node *sum_root(const sum *s);

/* n's first child, or NULL. */
const sum_node *sum_node_kid(const sum_node *n);

/* n's next sibling, or NULL. */
const sum_node *sum_node_next(const sum_node *n);

/* The figures of node n of s (names borrowed while s lives). */
void sum_node_view(const sum *s, const sum_node *n, struct sum_view *v);

/* The methods of s, each once: how many, the names of the i-th (borrowed),
 * and the index of (class, method, desc), or SUM_NO_METHOD. */
size_t sum_method_count(const sum *s);
void sum_method_names(const sum *s, size_t i, const char **c, const char **m, const char **d);
size_t sum_method_find(const sum *s, const char *c, const char *m, const char *d);

/* The slowest calls s keeps. */
size_t sum_slowest_count(const sum *s);

/* The counts of the methods' i-th (sum_method_names): its calls, its most
 * calls in one entry call, the entry calls it ran in. */
void sum_method_counts(const sum *s, size_t i, uint64_t *calls, uint64_t *calls_max, uint64_t *entries);

/* What the summary object says of the whole (sum_to_json's keys). */
struct sum_totals {
    uint64_t calls, not_traced, warmup, seen, folded, coarse;
    int64_t start_ns, end_ns;           /* end_ns 0: no span */
};

/* s's totals into *t. */
void sum_totals(const sum *s, struct sum_totals *t);

/* Hands fn each call of `slowest`, slowest first, as its compact JSON text
 * (len bytes, borrowed for the call); stops at fn's first non-zero value
 * and returns it, 0 when all were handed, -1 with e when out of memory. */
int sum_slowest_each(const sum *s, int (*fn)(void *ctx, const char *json, size_t len), void *ctx, mct_err *e);

#endif
