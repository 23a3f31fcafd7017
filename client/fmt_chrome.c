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
#define CHROME_DUMP_FLAGS (JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))

struct chrome {
    long long origin_ns;        /* wall ns that ts 0 stands for */
    int have_call;              /* origin_ns has seen the first call */
    unsigned long events;       /* events written */
    json_t *threads;            /* object: "pid:tid" of threads and "pid" of JVMs already named */
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
    return args;
}

/* Writes node *i's event at ts_ns, dur_ns wide (relative to the origin;
 * depth 0 is the entry method), then lays its children out after one
 * another from ts_ns within that width (see the top); *i moves past its
 * subtree. */
static int put_node(out *o, const call_tab *t, const mct_call *call, size_t *i, int depth, long long ts_ns,
                    long long dur_ns)
{
    const struct call_node *nd = &call->nodes[(*i)++];
    const struct call_method *m = call_tab_get(t, nd->method);
    long long at = ts_ns, end;

    if (dur_ns > LLONG_MAX - ts_ns)
        dur_ns = LLONG_MAX - ts_ns;     /* absurd numbers must not overflow */
    end = ts_ns + dur_ns;
    if (put_event(o, json_pack("{s:s++, s:s, s:s, s:I, s:I, s:f, s:f, s:o}", "name", m->cls, ".", m->name,
                               "cat", "mcalltree", "ph", "X", "pid", chrome_pid(o),
                               "tid", (json_int_t)call->thread_id, "ts", (double)ts_ns / 1e3,
                               "dur", (double)dur_ns / 1e3, "args", node_args(m, nd, call, depth))) < 0)
        return -1;
    for (uint32_t k = 0; k < nd->n_children; k++) {
        long long w = (long long)call->nodes[*i].total_ns;

        if (w > end - at)
            w = end - at;
        if (put_node(o, t, call, i, depth + 1, at, w) < 0)
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

    if (name_thread(o, call->thread_id, call->thread_name) < 0)
        return -1;
    if (put_node(o, t, call, &i, 0, call_ts(c, (long long)call->start_ns), (long long)call->nodes[0].total_ns) < 0)
        return -1;
    return ferror(o->f) ? -1 : 0;
}

/* Opens the array and names the process; the origin is now until the
 * first call says otherwise. */
static int chrome_begin(out *o)
{
    struct chrome *c = calloc(1, sizeof *c);
    struct timespec now;

    if (c == NULL || (c->threads = json_object()) == NULL) {
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
    free(c);
    o->state = NULL;
    return ferror(o->f) ? -1 : 0;
}

const struct out_format fmt_chrome = {
    .begin = chrome_begin,
    .call = chrome_call,
    .end = chrome_end,
};
