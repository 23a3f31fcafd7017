/* emit.c — a session's calls to output: drains the probes' rings, builds
 * the tree of each completed call and writes it (a `call` message, compact
 * frames), or adds it to the interval's summary, and sends the summaries. */
#include "emit.h"

#include "args.h"
#include "async.h"
#include "buf.h"
#include "clock.h"
#include "methods.h"
#include "parent.h"
#include "probe.h"
#include "proto.h"
#include "session_int.h"
#include "summary.h"
#include "tree.h"
#include "vm.h"
#include "warm.h"

/* While it drains, the worker looks for a stop or a hang-up this often. */
#define CLIENT_CHECK_NS 2000000u

/* Compact calls are written once a pass, or when this many bytes wait. */
#define OUT_FLUSH_BYTES ((size_t)256 * 1024)

/* Fills s->call with call c, whose tree is tr, numbered seq; its thread,
 * exception and arguments only when named (aggregate: only the slowest
 * kept show them). 0, or -1 with err set (the call is dropped). */
static int model_call(struct session *s, JNIEnv *jni, const probe_call *c, const tree *tr, uint64_t seq,
                      int named, mct_err *err)
{
    char exname[512], tname[256] = "";
    int64_t tid = 0;

    if (named && c->exception != NULL)
        vm_exception_name(c->exception, exname, sizeof exname);
    if (named)
        vm_thread_info(jni, c->thread, &tid, tname, sizeof tname);
    if (tree_call(tr, &s->tab, &s->call, seq, tid, tname, named && tree_exception(tr) ? exname : NULL, err) < 0)
        return -1;
    if (named && s->trace_context != NULL && parent_fill(&s->call, c->ev, c->len) == TCTX_BAD)
        s->trace_context_bad++;
    return named && s->args ? args_fill(&s->call, jni, c->ev, c->len, vm_object_info, &s->tab, err) : 0;
}

/* A call was sent (or aggregated): counted, warm-up (1) or not, and the
 * session ends once `count` were. */
static void call_done(struct session *s, int warmup)
{
    s->warmup += (uint64_t)warmup;
    __atomic_fetch_add(&s->printed, 1, __ATOMIC_RELAXED);
    if (s->count > 0 && s->printed >= s->count)
        end_session(s, "count");
}

static void add_model(struct session *s);
static void send_call(struct session *s, int warmup);
static int task_run(const probe_call *c);
static void take_run(struct session *s, JNIEnv *jni, const probe_call *c);

/* aggregate: adds call c (tree tr) to the interval's summary (counts_only: a
 * warm-up call left out, to its methods' counts only); fills its model
 * only when it would be among the slowest kept (rendered, seq: its rank
 * among the calls aggregated) or waits for its tasks, else adds the tree
 * straight (tree_sum: the same figures). */
static void aggregate_call(struct session *s, JNIEnv *jni, const probe_call *c, const tree *tr, int counts_only)
{
    int named = !counts_only && sum_slowest_wants(s->agg, tree_total_ns(tr));
    mct_err err;

    /* A warm-up call left out counts in its methods only (--max-calls). */
    if (!named && (counts_only || s->async == NULL || !async_wants(tr))) {
        if (tree_sum_check(tr, &s->tab, &err) < 0) {
            vm_log("dropping a traced call: %s", err.msg);
        } else if (tree_sum(tr, &s->tab, s->agg, counts_only, &err) < 0) {
            vm_log("summarising a call: %s; the calls of this interval are lost", err.msg);
            sum_reset(s->agg);
        } else if (!counts_only) {
            call_done(s, 0);
        }
        return;
    }
    if (model_call(s, jni, c, tr, s->printed + 1, named, &err) < 0) {
        vm_log("dropping a traced call: %s", err.msg);
        return;
    }
    if (s->async != NULL && async_wants(tr)) {
        if (async_take(s->async, &s->call, tr, 0, now_ns()) < 0)
            vm_log("dropping a traced call: out of memory holding it for its tasks");
        return;
    }
    add_model(s);
}

/* aggregate: adds s->call to the interval's summary. */
static void add_model(struct session *s)
{
    mct_err err;

    if (sum_add_call(s->agg, &s->tab, &s->call, &err) < 0) {
        /* Out of memory: the interval may hold part of the call. */
        vm_log("summarising a call: %s; the calls of this interval are lost", err.msg);
        sum_reset(s->agg);
        return;
    }
    call_done(s, 0);
}

/* aggregate: the interval's summary gets the calls not traced since the
 * last one, is sent (final: the run's, the interval merged into it
 * first), then merged into the run's and emptied. Its JSON is written as
 * text straight into its frame (summary.h keeps it under the reply cap).
 * 0, or -1 with err set; a failed write ends the session (send_any). */
int send_summary(struct session *s, int final, mct_err *err)
{
    uint64_t dropped = probe_dropped() - s->dropped_base;
    uint64_t seen = probe_seen() - s->seen_base;
    int64_t wall = wall_ns();
    mct_buf frame;
    int rc = -1;

    sum_add_not_traced(s->agg, dropped - s->dropped_summed);
    s->dropped_summed = dropped;
    sum_add_seen(s->agg, seen - s->seen_summed);
    s->seen_summed = seen;
    if (final && sum_take(s->total, s->agg, err) < 0)
        return -1;
    sum_set_span(final ? s->total : s->agg, final ? s->run_wall_ns : s->interval_wall_ns, wall);
    s->interval_wall_ns = wall;
    buf_init(&frame);
    buf_take(&frame, PROTO_HEADER_LEN);
    if (sum_write_json(final ? s->total : s->agg, final, &frame, err) == 0) {
        size_t len = frame.len - PROTO_HEADER_LEN;

        if (len > PROTO_MAX_REPLY) {
            mct_err_set(err, MCT_E_TOOBIG, "the summary's %zu bytes are over the reply cap", len);
        } else {
            proto_header_encode(frame.data, (uint32_t)len);
            rc = send_any(s, NULL, frame.data, frame.len, err);
        }
    }
    buf_free(&frame);
    if (!final && sum_take(s->total, s->agg, err) < 0) {
        vm_log("the run's summary: %s", err->msg);
        sum_reset(s->agg);
    }
    return rc;
}

void summary_lost(const struct session *s, const char *which, const mct_err *err)
{
    if (err->code != MCT_E_IO)
        vm_log("the %s summary of the session of client pid %lld was not sent: %s", which, s->client_pid,
               err->msg);
}

/* The session's last messages: with aggregate (instrumented: it ran), the
 * final summary, then end (stolen), for as long as the client reads them
 * (send_any). */
void send_last(struct session *s, json_t *end, int instrumented)
{
    mct_err err;

    /* The calls since the last interval's summary get one of their own
     * first, so that the intervals together hold every call of the final
     * summary (merging them gives it back). */
    if (s->aggregate && instrumented && s->interval_ns > 0 && sum_calls(s->agg) > 0 &&
        send_summary(s, 0, &err) < 0)
        summary_lost(s, "last interval's", &err);
    if (s->aggregate && instrumented && send_summary(s, 1, &err) < 0)
        summary_lost(s, "final", &err);
    if (end != NULL)
        send_any(s, end, NULL, 0, &err);
}

/* The tree of call c, built into the session's one tree (made on the
 * first call: no allocation per call once it has room); borrowed until
 * the next call, NULL with err set. */
static tree *build(struct session *s, const probe_call *c, mct_err *err)
{
    tree_opts o = {.cal = s->sp.cal, .probe_ticks = (uint64_t)(s->sp.probe.ticks + 0.5), .stamps = c->stamps,
                   .stamp_pos = c->stamp_pos, .stamp_mask = c->stamp_mask};

    if (s->tree == NULL)
        return s->tree = tree_build(c->ev, c->len, &o, err);
    return tree_rebuild(s->tree, c->ev, c->len, &o, err) == 0 ? s->tree : NULL;
}

/* One completed call: filter, build, render, send (or aggregate). */
static void handle_call(struct session *s, JNIEnv *jni, const probe_call *c)
{
    const mt_method *root = mt_get(c->ev[0].id);
    int mine = c->session == s->gen;
    uint64_t raw = clock_ns(&s->sp.cal, c->ev[c->len - 1].t - c->ev[0].t);
    tree *tr;
    mct_err err;
    int first;

    if (s->async != NULL && task_run(c)) {
        if (root != NULL && mine)
            take_run(s, jni, c);
        return;
    }
    /* Counted on every call of the session's entry methods, filtered or not. */
    first = root != NULL && mine && warm_first(c->ev[0].id);

    if (root == NULL || !mine || raw < s->min_ns) {
        if (root != NULL && mine) {
            __atomic_fetch_add(&s->calls, 1, __ATOMIC_RELAXED);
            s->filtered++;
        }
        return;
    }
    __atomic_fetch_add(&s->calls, 1, __ATOMIC_RELAXED);
    tr = build(s, c, &err);
    if (tr == NULL) {
        vm_log("dropping a traced call: %s", err.msg);
    } else if (s->aggregate) {
        int warmup = tree_warmup(tr, first, warm_marks);

        if (warmup) {
            s->warmup++;
            sum_add_warmup(s->agg, 1);
        }
        aggregate_call(s, jni, c, tr, warmup && !s->include_warmup);
    } else if (tree_total_ns(tr) < s->min_ns) {
        s->filtered++;
    } else {
        int warmup = tree_warmup(tr, first, warm_marks);

        if (model_call(s, jni, c, tr, s->seq + 1, 1, &err) < 0) {
            vm_log("dropping a traced call: %s", err.msg);
        } else if (s->async != NULL && async_wants(tr)) {
            if (async_take(s->async, &s->call, tr, warmup, now_ns()) < 0)
                vm_log("dropping a traced call: out of memory holding it for its tasks");
        } else {
            if (s->async != NULL && async_inlined(s->async, tr, now_ns()) < 0)
                vm_log("a traced call's tasks run inline are not told: out of memory");
            send_call(s, warmup);
        }
    }
}

/* Writes s->call, numbered next, compact or as JSON. */
static void send_call(struct session *s, int warmup)
{
    s->call.seq = s->seq + 1;
    if (s->compact) {
        if (call_encode(&s->out, &s->tab, &s->defs, &s->call) < 0) {
            vm_log("dropping a traced call: out of memory encoding it");
        } else {
            s->seq++;
            call_done(s, warmup);
            if (s->out.len >= OUT_FLUSH_BYTES)
                flush_out(s);
        }
    } else {
        s->seq++;
        if (call_json_frame(&s->out, &s->tab, &s->call) < 0) {
            vm_log("dropping a traced call: out of memory rendering it");
        } else {
            flush_out(s);
            if (!s->broken)
                call_done(s, warmup);
        }
    }
}

/* Whether c is the run of a handed-off task (its PROBE_TASK follows the
 * root's enter, and a virtual thread's PROBE_THREAD). */
static int task_run(const probe_call *c)
{
    for (uint64_t i = 1; i < c->len && i < 3; i++)
        if (PROBE_KIND(c->ev[i].kind) == PROBE_TASK)
            return 1;
    return 0;
}

/* The run of a handed-off task: its model, named by its thread, to the
 * holder (not a call of its own: no filter, no count). */
static void take_run(struct session *s, JNIEnv *jni, const probe_call *c)
{
    mct_err err;
    tree *tr = build(s, c, &err);

    if (tr == NULL || model_call(s, jni, c, tr, 1, 1, &err) < 0)
        vm_log("dropping the run of a task handed off: %s", err.msg);
    else if (async_take(s->async, &s->call, tr, 0, now_ns()) < 0)
        vm_log("dropping the run of a task handed off: out of memory");
}

/* async_out: an entry call whose tasks came (or whose wait is over) is
 * written or aggregated as any call. */
static void release_out(void *arg, mct_call *c, int warmup, const mct_err *dropped)
{
    struct session *s = arg;
    mct_call mine;

    if (c == NULL) {
        vm_log("dropping a traced call: %s", dropped->msg);
        return;
    }
    /* Released together at the end: no more than --count asked for. */
    if (s->count > 0 && s->printed >= s->count)
        return;
    mine = s->call;
    s->call = *c;
    *c = mine;
    if (s->aggregate)
        add_model(s);
    else
        send_call(s, warmup);
}

void release_async(struct session *s, int all)
{
    if (s->async != NULL)
        async_release(s->async, &s->tab, &s->sp.cal, now_ns(), all, release_out, s);
}

/* probe_sink.discarding: once the session ends, the calls still in the
 * rings are discarded. */
static int discarding(void *arg)
{
    const struct session *s = arg;

    return __atomic_load_n(&s->closing, __ATOMIC_ACQUIRE);
}

/* probe_sink.call: builds and sends a call, or counts it as discarded when
 * it is this session's; looks at the client every CLIENT_CHECK_NS, so that
 * a stop or a hang-up ends the session within a call or two, however full
 * the rings. */
static void take_call(void *arg, JNIEnv *jni, const probe_call *c)
{
    struct session *s = arg;

    if (c->ev == NULL) {
        if (c->session == s->gen)
            s->discarded++;
    } else {
        handle_call(s, jni, c);
    }
    if (now_ns() - s->checked_ns >= CLIENT_CHECK_NS)
        check_client(s);
}

/* Takes the calls completed so far (probe_drain); how many. */
uint64_t drain(struct session *s, JNIEnv *jni)
{
    const probe_sink sink = {.discarding = discarding, .call = take_call, .arg = s};

    uint64_t n;

    s->sp.cal = clock_calibration();
    n = probe_drain(jni, &sink);
    release_async(s, 0);
    return n;
}
