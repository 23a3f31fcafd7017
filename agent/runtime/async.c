/* async.c — see async.h.
 *
 * Hand-offs are told apart by their numbers (PROBE_HANDOFF_SEQ), which the
 * probes give out in sequence: the holder keeps the runs of tasks and the
 * numbers of tasks that ran inline until a held call claims them, or for
 * ORPHAN_NS past the wait. Held calls and kept runs are bounded (MAX_HELD,
 * MAX_RUNS): beyond them the oldest call is released at once, the oldest
 * run dropped. The lists are short and scanned.
 *
 * A stream's function (tree_handoff.many) is run any number of times: its
 * runs on one thread come together as one run (merge_run: counts added,
 * children matched by method), so that a parallel stream of any length
 * gives a node per worker thread, its calls the elements it applied the
 * function to. How many runs to wait for is not known, but they ended
 * before the stream's terminal operation returned on the caller's thread:
 * a drain pass after the one that took the call (async_release counts
 * them) has them all, since that pass began after the call was published,
 * and so after them. One with no run (a sequential stream, or none of its
 * elements on a worker) gives no node. */
#include "async.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"

/* How long past the wait a task's run is kept for a call still running. */
#define ORPHAN_NS (UINT64_C(60) * 1000000000u)
#define MAX_HELD 4096
#define MAX_RUNS 16384

/* A hand-off of a held model: tree_handoff, node an index into the model. */
struct want {
    tree_handoff h;
};

/* A call held: an entry call, or a task's run (seq its hand-off number). */
struct held {
    mct_call call;
    struct want *wants;
    size_t n_wants;
    uint32_t seq;             /* a task's run: its hand-off number; 0: an entry call */
    uint64_t start_tick;      /* a task's run: when it began */
    uint64_t since_ns;        /* when it was taken */
    int warmup;
    int used;                 /* a run put in the call being released */
    int settled;              /* an entry call whose wait is over, held one more pass for
                                 the tasks whose futures were done */
    uint64_t pass;            /* async_release's count when it was taken (or a run merged in) */
};

struct inl {
    uint32_t seq;
    uint64_t since_ns;
};

struct async {
    uint64_t wait_ns;
    const async_futures *f;   /* NULL: futures not looked at */
    struct held *calls;       /* entry calls, in order */
    size_t n_calls, cap_calls;
    struct held *runs;        /* tasks' runs */
    size_t n_runs, cap_runs;
    struct inl *inl;          /* tasks that ran inline */
    size_t n_inl, cap_inl;
    uint64_t pass;            /* async_release calls so far */
};

async *async_new(uint64_t wait_ns, const async_futures *f)
{
    async *a = calloc(1, sizeof *a);

    if (a != NULL) {
        a->wait_ns = wait_ns;
        a->f = f;
    }
    return a;
}

static void held_free(const async *a, struct held *h)
{
    call_free(&h->call);
    for (size_t i = 0; a->f != NULL && i < h->n_wants; i++)
        if (h->wants[i].h.future != NULL)
            a->f->drop(h->wants[i].h.future);
    free(h->wants);
}

void async_free(async *a)
{
    size_t i;

    if (a == NULL)
        return;
    for (i = 0; i < a->n_calls; i++)
        held_free(a, &a->calls[i]);
    for (i = 0; i < a->n_runs; i++)
        held_free(a, &a->runs[i]);
    free(a->calls);
    free(a->runs);
    free(a->inl);
    free(a);
}

int async_wants(const tree *tr)
{
    size_t n;

    tree_handoffs(tr, &n);
    return tree_task(tr) != 0 || n > 0;
}

size_t async_held(const async *a)
{
    return a->n_calls;
}

int async_inlined(async *a, const tree *tr, uint64_t now_ns)
{
    size_t n, i;
    const uint32_t *seq = tree_inlined(tr, &n);

    for (i = 0; i < n; i++) {
        if (buf_grow(&a->inl, &a->cap_inl, a->n_inl, sizeof *a->inl, 16) < 0)
            return -1;
        a->inl[a->n_inl++] = (struct inl){.seq = seq[i], .since_ns = now_ns};
    }
    return 0;
}

/* The index after the subtree of node i of c. */
static size_t subtree_end(const mct_call *c, size_t i)
{
    size_t j = i + 1;

    for (uint32_t k = 0; k < c->nodes[i].n_children; k++)
        j = subtree_end(c, j);
    return j;
}

/* Appends a node to out, a copy of nd; its index, or SIZE_MAX when out of
 * memory. */
static size_t append(mct_call *out, const struct call_node *nd)
{
    if (out->n_nodes == out->cap_nodes &&
        buf_grow(&out->nodes, &out->cap_nodes, out->n_nodes, sizeof *out->nodes, 64) < 0)
        return SIZE_MAX;
    out->nodes[out->n_nodes] = *nd;
    return out->n_nodes++;
}

/* Two runs' models merged into out: where each node of a and of b went. */
struct merge {
    const mct_call *a, *b;
    mct_call *out;
    size_t *to_a, *to_b;
};

/* Adds b's counts to those of node x (the same call path of two runs). */
static void add_counts(struct call_node *x, const struct call_node *b)
{
    if (b->min_ns < x->min_ns)
        x->min_ns = b->min_ns;
    if (b->max_ns > x->max_ns)
        x->max_ns = b->max_ns;
    x->calls += b->calls;
    x->total_ns += b->total_ns;
    x->self_ns += b->self_ns;
    x->throws += b->throws;
    x->cpu_ns += b->cpu_ns;
    x->alloc_bytes += b->alloc_bytes;
    x->flags |= b->flags & CALL_N_TRUNCATED;
}

/* Node ai of m->a and node bi of m->b (either SIZE_MAX: none) as one node
 * of m->out, their children matched by method; 0, or -1 when out of
 * memory. */
static int merge_node(struct merge *m, size_t ai, size_t bi)
{
    size_t at, i, j;
    uint32_t n = 0, k, l;

    if ((at = append(m->out, ai != SIZE_MAX ? &m->a->nodes[ai] : &m->b->nodes[bi])) == SIZE_MAX)
        return -1;
    if (ai != SIZE_MAX)
        m->to_a[ai] = at;
    if (bi != SIZE_MAX) {
        m->to_b[bi] = at;
        if (ai != SIZE_MAX)
            add_counts(&m->out->nodes[at], &m->b->nodes[bi]);
    }
    for (k = 0, i = ai + 1; ai != SIZE_MAX && k < m->a->nodes[ai].n_children; k++, i = subtree_end(m->a, i)) {
        size_t match = SIZE_MAX;

        for (l = 0, j = bi + 1; bi != SIZE_MAX && l < m->b->nodes[bi].n_children; l++, j = subtree_end(m->b, j))
            if (m->to_b[j] == SIZE_MAX && m->b->nodes[j].method == m->a->nodes[i].method) {
                match = j;
                break;
            }
        if (merge_node(m, i, match) < 0)
            return -1;
        n++;
    }
    for (l = 0, j = bi + 1; bi != SIZE_MAX && l < m->b->nodes[bi].n_children; l++, j = subtree_end(m->b, j))
        if (m->to_b[j] == SIZE_MAX) {
            if (merge_node(m, SIZE_MAX, j) < 0)
                return -1;
            n++;
        }
    m->out->nodes[at].n_children = n;
    return 0;
}

/* Merges the run c (its hand-offs h, n of them) into r, an earlier run of
 * the same task on the same thread; 0, or -1 when out of memory (r as it
 * was). */
static int merge_run(struct held *r, const mct_call *c, const tree_handoff *h, size_t n, uint64_t start_tick,
                     uint64_t pass)
{
    mct_call out = {0};
    struct merge m = {.a = &r->call, .b = c, .out = &out};
    struct want *w = NULL;
    size_t i;
    int rc = -1;

    m.to_a = malloc(r->call.n_nodes * sizeof *m.to_a);
    m.to_b = malloc(c->n_nodes * sizeof *m.to_b);
    if (m.to_a == NULL || m.to_b == NULL || (r->n_wants + n > 0 && (w = malloc((r->n_wants + n) * sizeof *w)) == NULL))
        goto out;
    for (i = 0; i < c->n_nodes; i++)
        m.to_b[i] = SIZE_MAX;
    if (merge_node(&m, 0, 0) < 0)
        goto out;
    for (i = 0; i < r->n_wants; i++) {
        w[i] = r->wants[i];
        w[i].h.node = (uint32_t)m.to_a[w[i].h.node];
    }
    for (i = 0; i < n; i++) {
        w[r->n_wants + i].h = h[i];
        w[r->n_wants + i].h.node = (uint32_t)m.to_b[h[i].node];
    }
    free(r->call.nodes);
    r->call.nodes = out.nodes;
    r->call.n_nodes = out.n_nodes;
    r->call.cap_nodes = out.cap_nodes;
    out.nodes = NULL;
    free(r->wants);
    r->wants = w;
    w = NULL;
    r->n_wants += n;
    r->pass = pass;
    if (start_tick < r->start_tick)
        r->start_tick = start_tick;
    rc = 0;
out:
    free(out.nodes);
    free(w);
    free(m.to_a);
    free(m.to_b);
    return rc;
}

/* An earlier run, not yet put in a call, of hand-off seq on c's thread, or NULL. */
static struct held *same_run(async *a, uint32_t seq, const mct_call *c)
{
    for (size_t i = 0; i < a->n_runs; i++) {
        struct held *r = &a->runs[i];

        if (r->seq == seq && !r->used && r->call.thread_id == c->thread_id &&
            strcmp(r->call.thread_name, c->thread_name) == 0)
            return r;
    }
    return NULL;
}

int async_take(async *a, mct_call *c, const tree *tr, int warmup, uint64_t now_ns)
{
    size_t n;
    const tree_handoff *h = tree_handoffs(tr, &n);
    uint32_t seq = tree_task(tr);
    struct held *to;

    if (async_inlined(a, tr, now_ns) < 0)
        return -1;
    if (seq != 0 && (to = same_run(a, seq, c)) != NULL) {
        if (merge_run(to, c, h, n, tree_start_tick(tr), a->pass) < 0)
            return -1;
        call_free(c);
        return 0;
    }
    if (seq != 0 ? buf_grow(&a->runs, &a->cap_runs, a->n_runs, sizeof *a->runs, 16) < 0
                 : buf_grow(&a->calls, &a->cap_calls, a->n_calls, sizeof *a->calls, 16) < 0)
        return -1;
    to = seq != 0 ? &a->runs[a->n_runs] : &a->calls[a->n_calls];
    *to = (struct held){
        .seq = seq, .start_tick = tree_start_tick(tr), .since_ns = now_ns, .warmup = warmup, .pass = a->pass};
    if (n > 0) {
        if ((to->wants = malloc(n * sizeof *to->wants)) == NULL)
            return -1;
        for (size_t i = 0; i < n; i++) {
            to->wants[i].h = h[i];
            to->wants[i].h.future = a->f != NULL && h[i].future != NULL ? a->f->keep(h[i].future) : NULL;
        }
        to->n_wants = n;
    }
    to->call = *c;
    *c = (mct_call){0};
    if (seq != 0)
        a->n_runs++;
    else
        a->n_calls++;
    return 0;
}

/* Whether run i is one of hand-off seq's not put in a call yet. */
static int unused_run(const async *a, size_t i, uint32_t seq)
{
    return a->runs[i].seq == seq && !a->runs[i].used;
}

/* The run of the task of hand-off seq, or NULL. */
static struct held *run_of(async *a, uint32_t seq)
{
    for (size_t i = 0; i < a->n_runs; i++)
        if (unused_run(a, i, seq))
            return &a->runs[i];
    return NULL;
}

static int ran_inline(const async *a, uint32_t seq)
{
    for (size_t i = 0; i < a->n_inl; i++)
        if (a->inl[i].seq == seq)
            return 1;
    return 0;
}

/* Whether the task of hand-off w never ran and never will: its future is
 * done without it. */
static int cancelled(const async *a, const struct want *w)
{
    return a->f != NULL && w->h.future != NULL && a->f->done(w->h.future);
}

/* Whether some task h waits for, nested ones included, has not come and
 * is cancelled. */
static int some_cancelled(async *a, const struct held *h, int depth)
{
    for (size_t i = 0; i < h->n_wants; i++) {
        const struct held *r;

        if (h->wants[i].h.rejected || ran_inline(a, h->wants[i].h.seq))
            continue;
        r = run_of(a, h->wants[i].h.seq);
        if (r == NULL ? cancelled(a, &h->wants[i]) : depth < CALL_MAX_DEPTH && some_cancelled(a, r, depth + 1))
            return 1;
    }
    return 0;
}

static int complete(async *a, const struct held *h, int depth);

/* Whether the tasks that the runs of stream hand-off seq wait for have
 * all come (the runs themselves are here: see above). */
static int runs_complete(async *a, uint32_t seq, int depth)
{
    for (size_t i = 0; i < a->n_runs; i++)
        if (unused_run(a, i, seq) &&
            (depth >= CALL_MAX_DEPTH || !complete(a, &a->runs[i], depth + 1)))
            return 0;
    return 1;
}

/* Whether every task h waits for, nested ones included, has come. */
static int complete(async *a, const struct held *h, int depth)
{
    for (size_t i = 0; i < h->n_wants; i++) {
        const struct held *r;

        if (h->wants[i].h.many) {
            if (h->pass == a->pass || !runs_complete(a, h->wants[i].h.seq, depth))
                return 0;
            continue;
        }
        if (h->wants[i].h.rejected || ran_inline(a, h->wants[i].h.seq))
            continue;
        r = run_of(a, h->wants[i].h.seq);
        if (r == NULL || depth >= CALL_MAX_DEPTH || !complete(a, r, depth + 1))
            return 0;
    }
    return 1;
}

struct build {
    async *a;
    call_tab *tab;
    const clock_cal *cal;
    mct_call *out;
    uint64_t start_tick;      /* the entry call's start: hand-off times count from it */
    mct_err err;
};

static int put_run(struct build *b, struct held *r, const tree_handoff *h, int depth);

/* The ns from the entry call's start to tick (0 before it: clocks of two
 * CPUs may disagree by a little). */
static uint64_t since_start(const struct build *b, uint64_t tick)
{
    return tick > b->start_tick ? clock_ns(b->cal, tick - b->start_tick) : 0;
}

/* How many nodes the runs of stream hand-off seq give at depth + 1 (one
 * per thread, merge_run). */
static uint32_t stream_runs(async *a, uint32_t seq, int depth)
{
    uint32_t n = 0;

    for (size_t i = 0; depth + 1 < CALL_MAX_DEPTH && i < a->n_runs; i++)
        n += unused_run(a, i, seq);
    return n;
}

/* Node i of h's model and its subtree into b->out, then the tasks handed
 * off at node i; the index after the subtree in h's model, or SIZE_MAX. */
static size_t put_node(struct build *b, struct held *h, size_t i, int depth)
{
    const mct_call *src = &h->call;
    size_t at, j = i + 1, w;
    uint32_t k, extra = 0;

    for (w = 0; w < h->n_wants; w++)
        if (h->wants[w].h.many)
            extra += h->wants[w].h.node == i ? stream_runs(b->a, h->wants[w].h.seq, depth) : 0;
        else
            extra += h->wants[w].h.node == i && !ran_inline(b->a, h->wants[w].h.seq);
    if ((at = append(b->out, &src->nodes[i])) == SIZE_MAX)
        return SIZE_MAX;
    b->out->nodes[at].n_children += extra;
    for (k = 0; k < src->nodes[i].n_children && j != SIZE_MAX; k++)
        j = put_node(b, h, j, depth + 1);
    for (w = 0; w < h->n_wants && j != SIZE_MAX; w++) {
        const tree_handoff *ho = &h->wants[w].h;
        struct held *r;

        if (ho->node == i && ho->many) {
            while (depth + 1 < CALL_MAX_DEPTH && (r = run_of(b->a, ho->seq)) != NULL)
                if (put_run(b, r, ho, depth + 1) < 0)
                    return SIZE_MAX;
            continue;
        }
        if (ho->node != i || ran_inline(b->a, ho->seq))
            continue;
        r = depth + 1 < CALL_MAX_DEPTH && !ho->rejected ? run_of(b->a, ho->seq) : NULL;
        if (r != NULL) {
            if (put_run(b, r, ho, depth + 1) < 0)
                return SIZE_MAX;
        } else {
            unsigned why = ho->rejected ? CALL_N_REJECTED : cancelled(b->a, &h->wants[w]) ? CALL_N_CANCELLED
                                                                                          : CALL_N_PENDING;
            struct call_node none = {.method = (uint32_t)ho->method, .flags = CALL_N_ASYNC | why,
                                     .handoff_ns = since_start(b, ho->tick)};

            if (tree_define(b->tab, ho->method, &b->err) < 0 || append(b->out, &none) == SIZE_MAX)
                return SIZE_MAX;
        }
    }
    return j;
}

/* The run r of the task of hand-off h, as an async node and its subtree. */
static int put_run(struct build *b, struct held *r, const tree_handoff *h, int depth)
{
    size_t root = b->out->n_nodes;
    struct call_node *nd;

    r->used = 1;
    if (put_node(b, r, 0, depth) == SIZE_MAX)
        return -1;
    nd = &b->out->nodes[root];
    nd->flags |= CALL_N_ASYNC;
    nd->handoff_ns = since_start(b, h->tick);
    nd->queued_ns = r->start_tick > h->tick ? clock_ns(b->cal, r->start_tick - h->tick) : 0;
    return call_add_thread(b->out, r->call.thread_name, &nd->thread);
}

/* Builds the release of entry call h into out; 0, or -1 (b->err set). */
static int build(struct build *b, struct held *h)
{
    const mct_call *src = &h->call;
    mct_call *out = b->out;

    if (call_set_names(out, src->thread_name, src->exception) < 0)
        return mct_err_set(&b->err, MCT_E_NOMEM, "out of memory releasing a call");
    out->flags = src->flags | CALL_F_ASYNC;
    out->seq = src->seq;
    out->thread_id = src->thread_id;
    out->start_ns = src->start_ns;
    out->n_nodes = 0;
    if (put_node(b, h, 0, 1) == SIZE_MAX)
        return b->err.code != 0 ? -1 : mct_err_set(&b->err, MCT_E_NOMEM, "out of memory releasing a call");
    return call_check(b->tab, out, &b->err);
}

/* Drops the runs put into a released call, and those nobody claimed in
 * time; the inline marks likewise. */
static void sweep(async *a, uint64_t now_ns)
{
    size_t i, n = 0;

    for (i = 0; i < a->n_runs; i++) {
        struct held *r = &a->runs[i];

        if (r->used || (now_ns > r->since_ns && now_ns - r->since_ns > a->wait_ns + ORPHAN_NS) ||
            a->n_runs - i > MAX_RUNS)
            held_free(a, r);
        else
            a->runs[n++] = *r;
    }
    a->n_runs = n;
    for (i = n = 0; i < a->n_inl; i++)
        if (!(now_ns > a->inl[i].since_ns && now_ns - a->inl[i].since_ns > a->wait_ns + ORPHAN_NS))
            a->inl[n++] = a->inl[i];
    a->n_inl = n;
}

size_t async_release(async *a, call_tab *tab, const clock_cal *cal, uint64_t now_ns, int force, async_out out,
                     void *arg)
{
    size_t i, n = 0, released = 0;
    mct_call made = {0};

    for (i = 0; i < a->n_calls; i++) {
        struct held *h = &a->calls[i];
        int due = force || a->n_calls - i > MAX_HELD || now_ns - h->since_ns >= a->wait_ns;

        if (!due && !complete(a, h, 1)) {
            a->calls[n++] = *h;
            continue;
        }
        if (!force && !h->settled && some_cancelled(a, h, 1)) {
            h->settled = 1;
            a->calls[n++] = *h;
            continue;
        }
        struct build b = {.a = a, .tab = tab, .cal = cal, .out = &made, .start_tick = h->start_tick};

        if (build(&b, h) == 0)
            out(arg, &made, h->warmup, NULL);
        else
            out(arg, NULL, h->warmup, &b.err);
        released++;
        held_free(a, h);
    }
    a->n_calls = n;
    a->pass++;
    call_free(&made);
    sweep(a, now_ns);
    return released;
}
