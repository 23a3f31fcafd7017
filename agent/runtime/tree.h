/* tree.h — the call tree of one traced call, built from its probe events by
 * the worker: calls of the same method under the same parent merge into one
 * node (calls, total, self, min, max, throws; children in order of first
 * call), the probes' own cost is subtracted, and the result fills the call
 * model (protocol/call.h) that every encoding is written from. */
#ifndef MCT_TREE_H
#define MCT_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "call.h"
#include "err.h"
#include "probe.h"
#include "summary.h"

typedef struct tree tree;

typedef struct tree_opts {
    clock_cal cal;            /* converts ticks to ns */
    uint64_t probe_ticks;     /* subtracted per probe call, in ticks (probe_cost.ticks) */
    const probe_stamp *stamps; /* the events' stamps, or NULL: none (borrowed
                                  while the tree is built only): event i's is
                                  stamps[(stamp_pos + i) & stamp_mask], a
                                  ring's read in place (an array of one per
                                  event: 0 and UINT64_MAX) */
    uint64_t stamp_pos, stamp_mask;
} tree_opts;

/* Builds the tree of one call from its n events (as published: the first is
 * the outermost ROOT_ENTER, the last its ROOT_EXIT or ROOT_FAIL). A frame
 * still open when a caller exits is closed there and counted as thrown;
 * nodes open when the ring overflowed are marked truncated. Returns NULL with
 * err set on out of memory or events that do not form a call (a bug). */
tree *tree_build(const probe_ev *ev, size_t n, const tree_opts *o, mct_err *err);

/* tree_build into t, a tree built before, whose memory the new call's
 * tree reuses (none allocated once t has room: the worker builds every
 * call into one). 0, or -1 with err set: t then holds no call (build into
 * it again, or free it). */
int tree_rebuild(tree *t, const probe_ev *ev, size_t n, const tree_opts *o, mct_err *err);

void tree_free(tree *t);

/* The entry method's duration in ns (probe cost subtracted). */
uint64_t tree_total_ns(const tree *t);

/* The JNI global ref (as an integer) of the class of the exception that ended
 * the call, or 0; the caller owns it and frees it. */
uintptr_t tree_exception(const tree *t);

/* Number of nodes (distinct call paths). */
size_t tree_nodes(const tree *t);

/* A task handed off to another thread in the call (--follow-async). */
typedef struct tree_handoff {
    uint32_t seq;             /* its hand-off number (PROBE_HANDOFF_SEQ) */
    int32_t method;           /* the task's method (its node's) */
    uint32_t node;            /* the node that handed it off: its index in the
                                 model, once tree_call filled one */
    uint64_t tick;            /* when */
    int rejected;             /* its site threw: the task was refused */
    void *future;             /* the JNI global ref to the task's future its site returned
                                 (borrowed from the call's events: freed with them), or NULL */
    int many;                 /* a stream operation's function: run any number of
                                 times (none too), each run on another thread a
                                 run of its own (PROBE_HANDOFF_MANY) */
    int frame;                /* (tree.c: the frame it was made in, while open; -1 after) */
    int handed;               /* (tree.c: its site returned) */
} tree_handoff;

/* The call's hand-offs in order, *n of them (borrowed, until tree_free). */
const tree_handoff *tree_handoffs(const tree *t, size_t *n);

/* The hand-off numbers of the tasks that ran inside the call, on its own
 * thread, *n of them (borrowed, until tree_free). */
const uint32_t *tree_inlined(const tree *t, size_t *n);

/* The hand-off number of the task whose run on another thread this call
 * is, or 0: an entry call. */
uint32_t tree_task(const tree *t);

/* The tick the call began at. */
uint64_t tree_start_tick(const tree *t);

/* Defines method number id in tab from the method table (names as UTF-8),
 * unless tab has it; 0, or -1 with err set (out of memory). */
int tree_define(call_tab *tab, int32_t id, mct_err *err);

/* Marks t as a warm-up call when first is nonzero (the caller's rule on the
 * call as a whole: warm_first) or marks(id, start) holds for the method
 * number id of one of its nodes, start being the tick its root entered at
 * (the caller's rule on methods: warm_marks); returns the mark. */
int tree_warmup(tree *t, int first, int (*marks)(int32_t id, uint64_t start));

/* Fills c with call t numbered seq: its nodes in pre-order, flags
 * (CALL_F_WARMUP when tree_warmup marked it), the thread (thread_name
 * UTF-8, NULL: "") and exception (the entry method's exception class, or
 * NULL). Names come from the method table, modified UTF-8 as the JVM gives
 * them, exception too; the model holds them as UTF-8 (mutf8.h), each method
 * defined in tab the first time one of its calls is filled. 0, or -1 with
 * err set: out of memory, or a call that the model cannot hold (call_check:
 * deeper than CALL_MAX_DEPTH levels, a name over its bound), dropped by the
 * caller. */
int tree_call(const tree *t, call_tab *tab, mct_call *c, uint64_t seq, int64_t thread_id, const char *thread_name,
              const char *exception, mct_err *err);

/* What tree_call would refuse of t, checked without filling a model: its
 * methods are defined in tab (tree_define) and its figures fit the model.
 * 0, or -1 with err set (the call is dropped by the caller). */
int tree_sum_check(const tree *t, call_tab *tab, mct_err *err);

/* Adds call t, which passed tree_sum_check with tab, to summary s as
 * sum_add_call adds the model that tree_call fills: the same figures,
 * through sum_enter_num, with no model built and no name copied;
 * counts_only: a warm-up call left out, to its methods' counts
 * (sum_count_call). Not offered to `slowest` (a call it keeps needs its
 * model). 0, or -1 with err set (out of memory: s may hold part of the
 * call). */
int tree_sum(const tree *t, const call_tab *tab, sum *s, int counts_only, mct_err *err);

#endif
