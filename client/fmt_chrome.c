/* fmt_chrome.c — -f chrome: the Chrome trace event format (JSON Array
 * Format) that Perfetto (ui.perfetto.dev) and chrome://tracing open, the
 * "existing timeline viewer" of SPEC §5.
 *
 * The file is `[`, one event per line separated by commas, and `]` written
 * by out_close. Every event is flushed with its call and no event ends with
 * a comma, so a file whose client was killed lacks only the `]`, which both
 * viewers supply themselves.
 *
 * All events belong to one process (pid 1, named "mcalltree"), or with the
 * wrap form to the JVM's pid (out_set_pid, named "JVM pid N" once); tid is
 * the Java thread's id, named once per process by a thread_name metadata
 * event. A call is a
 * tree of complete events ("ph":"X", ts and dur in microseconds), one per
 * node, the entry method starting at the call's start_ns.
 *
 * Child positions within a call are a layout, not the real times: a node
 * merges all calls of one method under one parent, so the agent sends no
 * timestamps below the entry method. Children are laid out one after
 * another from their parent's start, in order of first call, each as wide
 * as its total (all its calls together); the gap left is the parent's self
 * time. Widths are clamped to the parent's end should the totals ever
 * exceed it, so that the events always nest.
 *
 * A task handed off to another thread (an async node) is no part of that
 * layout: its parent's width holds none of it. Its events are on a track
 * of their own per thread name (the agent sends the task's thread by name
 * only: tids from ASYNC_TID up, named after the thread), beginning where
 * it began: handoff_ns after the call's start (the hand-off, measured on
 * the handing thread), then queued_ns (a task of the call that one thread
 * ran after another never begins before the other ended, should the
 * clocks of two CPUs disagree), as wide as its total even past its
 * parent's end, and a flow event pair ("ph":"s" then "f") links the
 * hand-off to it. The flow's start, and the instant event of a pending,
 * rejected or cancelled task (which never ran), are on the parent's track at the
 * hand-off, kept within the parent's laid-out slice so that they bind to
 * it.
 *
 * Timestamps count from the earlier of the moment the output was opened and
 * the first call's start, not from the first call's start alone: calls
 * arrive in order of completion, so a long call on another thread may have
 * started before the first one printed, and Perfetto drops events with a
 * negative timestamp. A call starting before even that origin (one already
 * running when the output was opened, or a wall clock set back) is placed
 * at 0 rather than lost. */
#include "output.h"

#include <limits.h>
#include <stdlib.h>
#include <time.h>

#include "fmtutil.h"

#define CHROME_PID 1
/* The first tid of the async tasks' tracks, far above Java thread ids. */
#define ASYNC_TID 1000000000LL
#define CHROME_DUMP_FLAGS (JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))

struct chrome {
    long long origin_ns;        /* wall ns that ts 0 stands for */
    int have_call;              /* origin_ns has seen the first call */
    unsigned long events;       /* events written */
    json_t *threads;            /* object: "pid:tid" of threads and "pid" of JVMs already named */
    json_t *tasks;              /* object: an async task's thread name -> its track's tid */
    json_t *ends;               /* object: the call's tasks' thread name -> where its last one ended */
    long long call_ns;          /* the call being written: its start (relative to the origin) */
    unsigned long flows;        /* flow ids given out */
};

/* Writes one event, after a separator unless it is the first; takes ev. */
static int put_event(out *o, json_t *ev)
{
    struct chrome *c = o->state;
    int rc;

    if (ev == NULL)
        return -1;
    fputs(c->events++ > 0 ? ",\n" : "\n", o->f);
    rc = fu_json_dump(o->f, ev, CHROME_DUMP_FLAGS);
    json_decref(ev);
    return rc;
}

/* The events' process: the JVM's pid with the wrap form, else CHROME_PID. */
static json_int_t chrome_pid(const out *o)
{
    return o->pid > 0 ? (json_int_t)o->pid : CHROME_PID;
}

/* Writes a metadata event naming the process or a thread. */
static int put_meta(out *o, const char *what, long long tid, const char *name)
{
    return put_event(o, json_pack("{s:s, s:s, s:I, s:I, s:{s:s}}", "name", what, "ph", "M",
                                  "pid", chrome_pid(o), "tid", (json_int_t)tid, "args", "name", name));
}

/* Names thread tid of the current process unless an earlier call did, and
 * a JVM's process the first time it is seen. */
static int name_thread(out *o, long long tid, const char *name)
{
    struct chrome *c = o->state;
    char key[64];

    if (o->pid > 0) {
        char jvm[48];

        snprintf(key, sizeof key, "%lld", o->pid);
        snprintf(jvm, sizeof jvm, "JVM pid %lld", o->pid);
        if (json_object_get(c->threads, key) == NULL &&
            (json_object_set_new(c->threads, key, json_true()) < 0 ||
             put_meta(o, "process_name", 0, jvm) < 0))
            return -1;
    }
    snprintf(key, sizeof key, "%lld:%lld", (long long)chrome_pid(o), tid);
    if (json_object_get(c->threads, key) != NULL)
        return 0;
    if (json_object_set_new(c->threads, key, json_true()) < 0)
        return -1;
    return put_meta(o, "thread_name", tid, name);
}

/* The args of node nd's event (method m): its numbers as sent, the
 * optional keys (cpu_ns and wait_ns with CPU times, alloc_bytes with
 * allocations), and the call's seq, exception and arguments ("args", as
 * in -f json) for the entry method. */
static json_t *node_args(const struct call_method *m, const struct call_node *nd, const mct_call *call,
                         int depth)
{
    json_t *args = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I}", "desc", m->desc,
                             "calls", (json_int_t)nd->calls, "total_ns", (json_int_t)nd->total_ns,
                             "self_ns", (json_int_t)nd->self_ns, "min_ns", (json_int_t)nd->min_ns,
                             "max_ns", (json_int_t)nd->max_ns, "throws", (json_int_t)nd->throws);

    if (args != NULL && depth == 0)
        json_object_set_new(args, "seq", json_integer((json_int_t)call->seq));
    if (args != NULL && depth == 0 && call->exception != NULL)
        json_object_set_new(args, "exception", json_string(call->exception));
    if (args != NULL && depth == 0 && (call->flags & CALL_F_ARGS))
        json_object_set_new(args, "args", call_args_json(call));
    if (args != NULL && (nd->flags & CALL_N_TRUNCATED))
        json_object_set_new(args, "truncated", json_true());
    if (args != NULL && (call->flags & CALL_F_CPU)) {
        json_object_set_new(args, "cpu_ns", json_integer((json_int_t)nd->cpu_ns));
        json_object_set_new(args, "wait_ns", json_integer((json_int_t)(nd->total_ns - nd->cpu_ns)));
    }
    if (args != NULL && (call->flags & CALL_F_ALLOC))
        json_object_set_new(args, "alloc_bytes", json_integer((json_int_t)nd->alloc_bytes));
    if (args != NULL && (nd->flags & CALL_N_ASYNC)) {
        json_object_set_new(args, "async", json_true());
        if (nd->flags & CALL_N_PENDING)
            json_object_set_new(args, "pending", json_true());
        else if (nd->flags & CALL_N_REJECTED)
            json_object_set_new(args, "rejected", json_true());
        else if (nd->flags & CALL_N_CANCELLED)
            json_object_set_new(args, "cancelled", json_true());
        else
            json_object_set_new(args, "queued_ns", json_integer((json_int_t)nd->queued_ns));
        json_object_set_new(args, "handoff_ns", json_integer((json_int_t)nd->handoff_ns));
    }
    return args;
}

/* The tid of the track of async tasks run on thread `name` (named the
 * first time), or -1 when out of memory. */
static long long task_tid(out *o, const char *name)
{
    struct chrome *c = o->state;
    json_t *have = json_object_get(c->tasks, name);
    long long tid;

    if (have != NULL)
        return (long long)json_integer_value(have);
    tid = ASYNC_TID + (long long)json_object_size(c->tasks);
    if (json_object_set_new(c->tasks, name, json_integer((json_int_t)tid)) < 0 ||
        name_thread(o, tid, name) < 0)
        return -1;
    return tid;
}

/* Writes a flow event (ph "s" or "f") of flow id at ts_ns on track tid. */
static int put_flow(out *o, const char *ph, unsigned long id, long long tid, long long ts_ns)
{
    return put_event(o, json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:f, s:s}", "name", "handoff",
                                  "cat", "mcalltree", "ph", ph, "id", (json_int_t)id, "pid", chrome_pid(o),
                                  "tid", (json_int_t)tid, "ts", (double)ts_ns / 1e3, "bp", "e"));
}

static int put_node(out *o, const call_tab *t, const mct_call *call, size_t *i, int depth, long long tid,
                    long long ts_ns, long long dur_ns);

/* Writes async node *i, a task handed off by a node on track tid laid out
 * from from_ns to to_ns (see the top); *i moves past its subtree. */
static int put_task(out *o, const call_tab *t, const mct_call *call, size_t *i, int depth, long long tid,
                    long long from_ns, long long to_ns)
{
    struct chrome *c = o->state;
    const struct call_node *nd = &call->nodes[*i];
    const char *name;
    long long to, at, dur, handed = c->call_ns;
    unsigned long id;

    handed += nd->handoff_ns > (unsigned long long)(LLONG_MAX - handed) ? LLONG_MAX - handed : (long long)nd->handoff_ns;
    at = handed;
    handed = handed < from_ns ? from_ns : handed > to_ns ? to_ns : handed;
    if (nd->flags & CALL_N_NOT_RUN)
        return put_node(o, t, call, i, depth, tid, handed, -1);
    name = call->threads[nd->thread];
    if ((to = task_tid(o, name)) < 0)
        return -1;
    at += nd->queued_ns > (unsigned long long)(LLONG_MAX - at) ? LLONG_MAX - at : (long long)nd->queued_ns;
    if (at < json_integer_value(json_object_get(c->ends, name)))
        at = (long long)json_integer_value(json_object_get(c->ends, name));
    dur = nd->total_ns > (unsigned long long)(LLONG_MAX - at) ? LLONG_MAX - at : (long long)nd->total_ns;
    if (json_object_set_new(c->ends, name, json_integer((json_int_t)(at + dur))) < 0)
        return -1;
    id = ++c->flows;
    if (put_flow(o, "s", id, tid, handed) < 0 || put_flow(o, "f", id, to, at) < 0)
        return -1;
    return put_node(o, t, call, i, depth, to, at, dur);
}

/* Writes node *i's event on track tid at ts_ns, dur_ns wide (relative to
 * the origin; depth 0 is the entry method; dur_ns -1: an instant event,
 * a task that never ran), then lays its children out after one another
 * from ts_ns within that width and its async children on their threads
 * (see the top); *i moves past its subtree. */
static int put_node(out *o, const call_tab *t, const mct_call *call, size_t *i, int depth, long long tid,
                    long long ts_ns, long long dur_ns)
{
    const struct call_node *nd = &call->nodes[(*i)++];
    const struct call_method *m = call_tab_get(t, nd->method);
    long long at = ts_ns, end;
    json_t *ev;

    if (dur_ns > LLONG_MAX - ts_ns)
        dur_ns = LLONG_MAX - ts_ns;     /* absurd numbers must not overflow */
    end = ts_ns + (dur_ns > 0 ? dur_ns : 0);
    ev = json_pack("{s:s++, s:s, s:s, s:I, s:I, s:f, s:o}", "name", m->cls, ".", m->name, "cat", "mcalltree",
                   "ph", dur_ns < 0 ? "i" : "X", "pid", chrome_pid(o), "tid", (json_int_t)tid,
                   "ts", (double)ts_ns / 1e3, "args", node_args(m, nd, call, depth));
    if (ev != NULL && json_object_set_new(ev, dur_ns < 0 ? "s" : "dur",
                                          dur_ns < 0 ? json_string("t") : json_real((double)dur_ns / 1e3)) < 0) {
        json_decref(ev);
        ev = NULL;
    }
    if (put_event(o, ev) < 0)
        return -1;
    for (uint32_t k = 0; k < nd->n_children; k++) {
        long long w = (long long)call->nodes[*i].total_ns;

        if (call->nodes[*i].flags & CALL_N_ASYNC) {
            if (put_task(o, t, call, i, depth + 1, tid, ts_ns, end) < 0)
                return -1;
            continue;
        }
        if (w > end - at)
            w = end - at;
        if (put_node(o, t, call, i, depth + 1, tid, at, w) < 0)
            return -1;
        at += w;
    }
    return 0;
}

/* The call's start relative to the origin, fixing the origin at the first
 * call (see the top). */
static long long call_ts(struct chrome *c, long long start_ns)
{
    if (!c->have_call && start_ns < c->origin_ns)
        c->origin_ns = start_ns;
    c->have_call = 1;
    return start_ns > c->origin_ns ? start_ns - c->origin_ns : 0;
}

static int chrome_call(out *o, const call_tab *t, const mct_call *call)
{
    struct chrome *c = o->state;
    size_t i = 0;

    if (name_thread(o, call->thread_id, call->thread_name) < 0 || json_object_clear(c->ends) < 0)
        return -1;
    c->call_ns = call_ts(c, (long long)call->start_ns);
    if (put_node(o, t, call, &i, 0, call->thread_id, c->call_ns, (long long)call->nodes[0].total_ns) < 0)
        return -1;
    return ferror(o->f) ? -1 : 0;
}

/* Opens the array and names the process; the origin is now until the
 * first call says otherwise. */
static int chrome_begin(out *o)
{
    struct chrome *c = calloc(1, sizeof *c);
    struct timespec now;

    if (c == NULL || (c->threads = json_object()) == NULL || (c->tasks = json_object()) == NULL ||
        (c->ends = json_object()) == NULL) {
        if (c != NULL) {
            json_decref(c->threads);
            json_decref(c->tasks);
        }
        free(c);
        return -1;
    }
    /* Without a clock, the first call's start is the origin. */
    if (clock_gettime(CLOCK_REALTIME, &now) < 0)
        now = (struct timespec){ .tv_sec = LLONG_MAX / 1000000000 - 1 };
    c->origin_ns = (long long)now.tv_sec * 1000000000 + now.tv_nsec;
    o->state = c;
    fputc('[', o->f);
    if (put_meta(o, "process_name", 0, "mcalltree") < 0 || ferror(o->f)) {
        json_decref(c->threads);
        json_decref(c->tasks);
        json_decref(c->ends);
        free(c);
        o->state = NULL;
        return -1;
    }
    return 0;
}

/* Closes the array and frees the state. */
static int chrome_end(out *o)
{
    struct chrome *c = o->state;

    fputs("\n]\n", o->f);
    json_decref(c->threads);
    json_decref(c->tasks);
    json_decref(c->ends);
    free(c);
    o->state = NULL;
    return ferror(o->f) ? -1 : 0;
}

const struct out_format fmt_chrome = {
    .begin = chrome_begin,
    .call = chrome_call,
    .end = chrome_end,
};
