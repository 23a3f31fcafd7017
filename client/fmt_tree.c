/* fmt_tree.c — -f tree: each call as an indented tree for a terminal
 * (SPEC §2; the hierarchical display of SPEC §5):
 *
 *   #1  2026-11-21 14:03:07.123  thread "main" (id 1)
 *      total       %     self  calls  method
 *     812 µs  100.0%  12.3 µs         tgt.Shape.run()
 *     400 µs   49.2%   280 µs    20×  ├─ tgt.Price.of(long)  min 15.0 µs  avg 20.0 µs  max 40.0 µs
 *     120 µs   14.8%   120 µs    20×  │  └─ tgt.Tax.rate()  min 5.00 µs  avg 6.00 µs  max 9.00 µs
 *     400 µs   49.2%   400 µs     3×  └─ tgt.Shape.area()  threw 2×  min 100 µs  avg 133 µs  max 200 µs
 *
 * The numbers stand in aligned columns left of the tree, as in `ps f` or
 * htop, so that they compare at any depth; % is of the call's total, N× is
 * shown when a node merges several calls (with their min, average and max).
 * A call traced with --cpu has two more columns after self: cpu (the
 * thread's CPU time in the node) and wait (total − cpu); with --alloc, one
 * more: alloc (the bytes the thread allocated in the node).
 * A call traced with --args has a line under its title: the entry
 * method's arguments (put_args).
 * Tags after the name: `threw N×` (or the entry method's exception),
 * `[truncated]` (the node lost events), `[async on "THREAD", queued D]` (a
 * task handed off and run on THREAD after D in the queue; its time is not
 * its parent's), `[async, pending: not ended]`, `[async, rejected]`, `[async, cancelled]`,
 * `[async]` (a summary's node of tasks handed off), `[slow]` (with --slow-ms: the node's
 * slowest single call, max_ns, took at least that long — a node merging
 * many short calls is not slow however large its total).
 *
 * Colour (o->color) only wraps the same text in SGR sequences: the entry
 * method cyan, ordinary calls bold, nodes that threw red, truncated ones dim;
 * class and parameters dim around a bright method name; a slow node's total
 * on a yellow background. Without colour the text is identical, so files
 * and pipes lose nothing.
 *
 * A summary is one tree over many calls:
 *
 *   summary (final): 1200 entry calls, 3 not traced
 *        p50       p90       p99  self/call     calls/call  method
 *     812 µs   1.20 ms   2.00 ms    12.3 µs              1  tgt.Shape.run()
 *     400 µs    410 µs    650 µs     280 µs            20×  ├─ tgt.Price.of(long)
 *    5.00 µs   9.00 µs   9.00 µs    3.00 µs    2.50× (1–4)  └─ tgt.Tax.rate()  in 600 of 1200 calls
 *
 * With --cpu and --alloc, the p50 and p99 of the node's CPU time and bytes
 * allocated within one entry call follow p99 (cpu p50, cpu p99, alloc p50,
 * alloc p99).
 *
 * Figures are over the entry calls in which the node ran ("in K of N
 * calls" when not all of them): p50/p90/p99 of the node's time within one
 * entry call, self/call its average self time per entry call, calls/call
 * N× when each of them made exactly N calls, else the average and (min–max).
 * Tags and min/avg/max of single invocations follow as in a call's tree.
 * The slowest calls kept whole follow as call trees.
 *
 * The wrap form (several JVMs) puts a line "pid N" above the first tree of
 * each JVM and above any tree whose JVM differs from the previous one. */
#include "output.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "fmtutil.h"
#include "summary.h"

#define DUR_W 7                 /* columns of a duration: "12.3 µs" */
#define PCT_W 6                 /* "100.0%" */
#define BYTES_W 9               /* "1023.9 KiB" less a column: "12.3 MiB" */

#define SGR_BOLD "1"
#define SGR_DIM "2"
#define SGR_ENTRY "1;36"
#define SGR_THREW "1;31"
#define SGR_WARN "33"
#define SGR_SLOW_CELL "1;30;43"
#define SGR_SLOW_TAG "1;33"

struct tree {
    out *o;
    long long root_total;       /* the call's total, for the % column */
    double slow_ns;             /* --slow-ms in ns, < 0 for no highlight */
    size_t calls_w;             /* width of the calls column */
    int cpu;                    /* the cpu and wait columns (a call with CPU times) */
    int alloc;                  /* the alloc column (a call with allocations) */
    unsigned char last[FU_MAX_DEPTH]; /* last[d]: the node on the path at depth d is its parent's last child */
};

/* What the lines show of a node, a call's (of_call) or a summary's
 * (of_view); names borrowed from the call or the summary. */
struct tnode {
    const char *cls, *method, *desc;
    const char *exception;      /* the entry method's, or NULL */
    long long calls, total_ns, self_ns, min_ns, max_ns, throws;
    long long cpu_ns;           /* a call's node with CPU times; else 0 */
    unsigned long long alloc_bytes; /* a call's node with allocations; else 0 */
    int truncated;
    const char *async_thread;   /* a call's async node: the thread the task ran on ("" when pending); else NULL */
    long long queued_ns;        /* a call's async node: its time in the queue */
    int pending;                /* a call's async node whose task had not ended */
    int rejected;               /* a call's async node whose task the executor refused */
    int cancelled;              /* a call's async node whose task will never run (its future done) */
    int async;                  /* a summary's node of tasks handed off to other threads */
};

static struct tnode of_call(const call_tab *tab, const mct_call *c, size_t i)
{
    const struct call_node *nd = &c->nodes[i];
    const struct call_method *m = call_tab_get(tab, nd->method);

    return (struct tnode){
        .cls = m->cls, .method = m->name, .desc = m->desc, .exception = i == 0 ? c->exception : NULL,
        .calls = (long long)nd->calls, .total_ns = (long long)nd->total_ns, .self_ns = (long long)nd->self_ns,
        .min_ns = (long long)nd->min_ns, .max_ns = (long long)nd->max_ns, .throws = (long long)nd->throws,
        .cpu_ns = (long long)nd->cpu_ns, .alloc_bytes = nd->alloc_bytes, .truncated = (nd->flags & CALL_N_TRUNCATED) != 0,
        .async_thread = !(nd->flags & CALL_N_ASYNC) ? NULL : (nd->flags & CALL_N_NOT_RUN) ? "" : c->threads[nd->thread],
        .queued_ns = (long long)nd->queued_ns, .pending = (nd->flags & CALL_N_PENDING) != 0,
        .rejected = (nd->flags & CALL_N_REJECTED) != 0, .cancelled = (nd->flags & CALL_N_CANCELLED) != 0,
    };
}

/* A summary's figure as its JSON says it: at most INT64_MAX. */
static long long ll(uint64_t v)
{
    return v > INT64_MAX ? INT64_MAX : (long long)v;
}

static struct tnode of_view(const struct sum_view *v)
{
    return (struct tnode){
        .cls = v->class_name, .method = v->method, .desc = v->desc, .calls = ll(v->calls),
        .total_ns = ll(v->total_ns), .self_ns = ll(v->self_ns), .min_ns = ll(v->min_ns), .max_ns = ll(v->max_ns),
        .throws = ll(v->throws), .truncated = v->truncated, .async = v->async,
    };
}

/* Starts SGR code when colouring. */
static void sgr(const struct tree *t, const char *code)
{
    if (t->o->color)
        fprintf(t->o->f, "\033[%sm", code);
}

/* Ends the SGR sequence sgr started. */
static void sgr_end(const struct tree *t)
{
    if (t->o->color)
        fputs("\033[0m", t->o->f);
}

/* Writes untrusted text prefix s suffix in style code. */
static void put_styled3(const struct tree *t, const char *code, const char *prefix, const char *s,
                        const char *suffix)
{
    sgr(t, code);
    fputs(prefix, t->o->f);
    fu_put_text(t->o->f, s);
    fputs(suffix, t->o->f);
    sgr_end(t);
}

/* Writes untrusted text s in style code. */
static void put_styled(const struct tree *t, const char *code, const char *s)
{
    put_styled3(t, code, "", s, "");
}

/* The widest calls count of a node of c. */
static long long max_calls(const mct_call *c)
{
    uint64_t m = 0;

    for (size_t i = 0; i < c->n_nodes; i++)
        if (c->nodes[i].calls > m)
            m = c->nodes[i].calls;
    return (long long)m;
}

/* The calls column's text: "20×", or "" for a single call. */
static void calls_text(char *buf, size_t size, long long calls)
{
    if (calls > 1)
        snprintf(buf, size, "%lld×", calls);
    else
        buf[0] = '\0';
}

/* The width of the calls column: its title or its widest entry. */
static size_t calls_width(const mct_call *c)
{
    char buf[32];
    size_t w;

    calls_text(buf, sizeof buf, max_calls(c));
    w = fu_width(buf);
    return w > 5 ? w : 5;
}

/* Writes the call's first line: sequence number, local wall time, thread,
 * `[warm-up]` for a call marked "warmup" (it began before its methods
 * were compiled again), and the trace it joined (--trace-context): `trace
 * ID, parent SPAN`. */
static void put_title(const struct tree *t, const mct_call *call)
{
    long long start = (long long)call->start_ns;
    time_t sec = (time_t)(start / 1000000000);
    struct tm tm;
    char when[64] = "?";

    if (localtime_r(&sec, &tm) != NULL)
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    sgr(t, SGR_BOLD);
    fprintf(t->o->f, "#%llu", (unsigned long long)call->seq);
    sgr_end(t);
    fprintf(t->o->f, "  %s.%03lld  thread \"", when, start / 1000000 % 1000);
    put_styled(t, SGR_BOLD, call->thread_name);
    fprintf(t->o->f, "\" (id %lld)%s", (long long)call->thread_id, call_warmup(call) ? "  [warm-up]" : "");
    if (call->flags & CALL_F_PARENT) {
        char tp[CALL_TRACEPARENT_LEN + 1];

        call_parent_write(&call->parent, tp);
        fprintf(t->o->f, "  trace %.32s, parent %.16s", tp + 3, tp + 36);
    }
    fputc('\n', t->o->f);
}

/* Writes the line of the entry method's arguments (a call traced with
 * --args): `args: 3, -5L, 'x', 1.5f, "text…" (1000 chars), null, RED,
 * tgt.Bomb@1b6d3586` (an object as its class and identity hash in hex,
 * the form Object.toString has, though no toString ran). */
static void put_args(const struct tree *t, const mct_call *call)
{
    FILE *f = t->o->f;

    if (!(call->flags & CALL_F_ARGS))
        return;
    sgr(t, SGR_DIM);
    fputs("   args:", f);
    sgr_end(t);
    if (call->n_args == 0)
        fputs(" none", f);
    for (size_t i = 0; i < call->n_args; i++) {
        const struct call_arg *a = &call->args[i];

        fputs(i > 0 ? ", " : " ", f);
        switch (a->type) {
        case CALL_ARG_BOOLEAN: fputs(a->bits ? "true" : "false", f); break;
        case CALL_ARG_BYTE: fprintf(f, "(byte) %d", (int8_t)a->bits); break;
        case CALL_ARG_SHORT: fprintf(f, "(short) %d", (int16_t)a->bits); break;
        case CALL_ARG_INT: fprintf(f, "%d", (int32_t)a->bits); break;
        case CALL_ARG_LONG: fprintf(f, "%lldL", (long long)(int64_t)a->bits); break;
        case CALL_ARG_CHAR:
            if (a->bits >= 0x20 && a->bits < 0x7f)
                fprintf(f, "'%c'", (int)a->bits);
            else
                fprintf(f, "'\\u%04x'", (unsigned)a->bits);
            break;
        case CALL_ARG_FLOAT: {
            uint32_t v = (uint32_t)a->bits;
            float x;

            memcpy(&x, &v, 4);
            fprintf(f, "%.9gf", x);
            break;
        }
        case CALL_ARG_DOUBLE: {
            double x;

            memcpy(&x, &a->bits, 8);
            fprintf(f, "%.17g", x);
            break;
        }
        case CALL_ARG_NULL: fputs("null", f); break;
        case CALL_ARG_STRING:
            fputc('"', f);
            fu_put_text(f, a->text);
            fputc('"', f);
            if (call_arg_cut(a))
                fprintf(f, "… (%llu chars)", (unsigned long long)a->length);
            break;
        case CALL_ARG_ENUM: fu_put_text(f, a->text); break;
        case CALL_ARG_OBJECT:
            fu_put_text(f, a->text);
            fprintf(f, "@%x", (unsigned)a->bits);
            break;
        default: break;
        }
    }
    fputc('\n', f);
}

/* Writes the column titles, aligned with put_numbers. */
static void put_header(const struct tree *t)
{
    FILE *f = t->o->f;

    sgr(t, SGR_DIM);
    fputc(' ', f);
    fu_put_right(f, "total", DUR_W);
    fputs("  ", f);
    fu_put_right(f, "%", PCT_W);
    fputs("  ", f);
    fu_put_right(f, "self", DUR_W);
    fputs("  ", f);
    if (t->cpu) {
        fu_put_right(f, "cpu", DUR_W);
        fputs("  ", f);
        fu_put_right(f, "wait", DUR_W);
        fputs("  ", f);
    }
    if (t->alloc) {
        fu_put_right(f, "alloc", BYTES_W);
        fputs("  ", f);
    }
    fu_put_right(f, "calls", t->calls_w);
    fputs("  method", f);
    sgr_end(t);
    fputc('\n', f);
}

/* Writes the columns of node: total (highlighted when slow), % of the
 * call, self, cpu and wait (with CPU times), alloc (with allocations),
 * calls. */
static void put_numbers(const struct tree *t, const struct tnode *node, int slow)
{
    FILE *f = t->o->f;
    long long total = node->total_ns;
    char buf[FU_DUR_MAX + 8];

    fu_duration(buf, sizeof buf, (double)total);
    if (slow)
        sgr(t, SGR_SLOW_CELL);
    fputc(' ', f);
    fu_put_right(f, buf, DUR_W);
    fputc(' ', f);
    if (slow)
        sgr_end(t);
    snprintf(buf, sizeof buf, "%.1f%%", t->root_total > 0 ? 100.0 * (double)total / (double)t->root_total : 0.0);
    fputc(' ', f);
    fu_put_right(f, buf, PCT_W);
    fu_duration(buf, sizeof buf, (double)node->self_ns);
    fputs("  ", f);
    fu_put_right(f, buf, DUR_W);
    if (t->cpu) {
        fu_duration(buf, sizeof buf, (double)node->cpu_ns);
        fputs("  ", f);
        fu_put_right(f, buf, DUR_W);
        fu_duration(buf, sizeof buf, (double)(total - node->cpu_ns));
        fputs("  ", f);
        fu_put_right(f, buf, DUR_W);
    }
    if (t->alloc) {
        fu_bytes(buf, sizeof buf, node->alloc_bytes);
        fputs("  ", f);
        fu_put_right(f, buf, BYTES_W);
    }
    calls_text(buf, sizeof buf, node->calls);
    fputs("  ", f);
    fu_put_right(f, buf, t->calls_w);
    fputs("  ", f);
}

/* Writes the tree lines left of a node at depth: a bar for every ancestor
 * with siblings still to come, then the node's own branch. */
static void put_branches(const struct tree *t, int depth)
{
    if (depth == 0)
        return;
    sgr(t, SGR_DIM);
    for (int d = 1; d < depth; d++)
        fputs(t->last[d] ? "   " : "│  ", t->o->f);
    fputs(t->last[depth] ? "└─ " : "├─ ", t->o->f);
    sgr_end(t);
}

/* The style of a node's method name, by kind: truncated, threw, the entry
 * method, an ordinary call — the first that applies. */
static const char *name_style(const struct tnode *node, int depth)
{
    if (node->truncated)
        return SGR_DIM;
    if (node->throws > 0 || node->exception != NULL)
        return SGR_THREW;
    return depth == 0 ? SGR_ENTRY : SGR_BOLD;
}

/* Writes Class.method(params), the parameters as Java writes them (the
 * JSON keeps the descriptor): class and parameters dim, the name bright. */
static void put_name(const struct tree *t, const struct tnode *node, int depth)
{
    char params[512];

    fu_java_params(params, sizeof params, node->desc);
    put_styled3(t, SGR_DIM, "", node->cls, ".");
    put_styled(t, name_style(node, depth), node->method);
    put_styled(t, SGR_DIM, params);
}

/* Writes "  <label> <duration>" in dim. */
static void put_stat(const struct tree *t, const char *label, double ns)
{
    char buf[FU_DUR_MAX + 16];
    char dur[FU_DUR_MAX];

    fu_duration(dur, sizeof dur, ns);
    snprintf(buf, sizeof buf, "%s %s", label, dur);
    fputs("  ", t->o->f);
    put_styled(t, SGR_DIM, buf);
}

/* Writes the tags after a node's name: slow, exception or throws,
 * truncated, children beyond the depth limit, then min/avg/max. */
static void put_tags(const struct tree *t, const struct tnode *node, int slow, int cut)
{
    FILE *f = t->o->f;
    const char *exception = node->exception;
    long long calls = node->calls, throws = node->throws;
    char buf[64];

    if (slow) {
        fputs("  ", f);
        put_styled(t, SGR_SLOW_TAG, "[slow]");
    }
    if (exception != NULL) {
        fputs("  ", f);
        put_styled3(t, SGR_THREW, "threw ", exception, "");
    } else if (throws > 0) {
        if (calls > 1)
            snprintf(buf, sizeof buf, "threw %lld×", throws);
        else
            snprintf(buf, sizeof buf, "threw");
        fputs("  ", f);
        put_styled(t, SGR_THREW, buf);
    }
    if (node->truncated) {
        fputs("  ", f);
        put_styled(t, SGR_WARN, "[truncated]");
    }
    if (node->pending || node->rejected || node->cancelled) {
        fputs("  ", f);
        put_styled(t, SGR_WARN, node->pending ? "[async, pending: not ended]" : node->rejected ? "[async, rejected]"
                                                                                             : "[async, cancelled]");
    } else if (node->async_thread != NULL) {
        char dur[FU_DUR_MAX + 16];

        fu_duration(dur, sizeof dur, (double)node->queued_ns);
        fputs("  ", f);
        put_styled3(t, SGR_WARN, "[async on \"", node->async_thread, "\", queued ");
        put_styled3(t, SGR_WARN, "", dur, "]");
    } else if (node->async) {
        fputs("  ", f);
        put_styled(t, SGR_WARN, "[async]");
    }
    if (cut) {
        fputs("  ", f);
        put_styled(t, SGR_WARN, "[deeper calls not shown]");
    }
    if (calls > 1) {
        put_stat(t, "min", (double)node->min_ns);
        put_stat(t, "avg", (double)node->total_ns / (double)calls);
        put_stat(t, "max", (double)node->max_ns);
    }
}

/* Writes node *i of c at depth (0 = the entry method) and its children;
 * *i moves past its subtree. */
static void put_node(struct tree *t, const call_tab *tab, const mct_call *c, size_t *i, int depth)
{
    struct tnode node = of_call(tab, c, *i);
    uint32_t n = c->nodes[(*i)++].n_children;
    int slow = t->slow_ns >= 0 && (double)node.max_ns >= t->slow_ns;

    put_numbers(t, &node, slow);
    put_branches(t, depth);
    put_name(t, &node, depth);
    put_tags(t, &node, slow, 0);
    fputc('\n', t->o->f);
    for (uint32_t k = 0; k < n; k++) {
        t->last[depth + 1] = k + 1 == n;
        put_node(t, tab, c, i, depth + 1);
    }
}

/* Several JVMs: a "pid N" line ("pid N on HOST" when the output names the
 * host) before the first object of each JVM and whenever the JVM changes,
 * after the blank line that separates objects. */
static void put_pid(out *o)
{
    if (o->pid <= 0 || o->pid == o->pid_shown)
        return;
    fprintf(o->f, "pid %lld%s%s\n", o->pid, o->host != NULL ? " on " : "", o->host != NULL ? o->host : "");
    o->pid_shown = o->pid;
}

static int tree_call(out *o, const call_tab *tab, const mct_call *call)
{
    struct tree t = { .o = o, .slow_ns = o->slow_ms < 0 ? -1 : o->slow_ms * 1e6 };
    size_t i = 0;

    t.root_total = (long long)call->nodes[0].total_ns;
    t.calls_w = calls_width(call);
    t.cpu = (call->flags & CALL_F_CPU) != 0;
    t.alloc = (call->flags & CALL_F_ALLOC) != 0;
    if (o->calls > 0 || o->summaries > 0)
        fputc('\n', o->f);
    put_pid(o);
    put_title(&t, call);
    put_args(&t, call);
    put_header(&t);
    put_node(&t, tab, call, &i, 0);
    return ferror(o->f) ? -1 : 0;
}

/* ---- summaries ----------------------------------------------------------------- */

#define SUM_CALLS_W 13          /* "2.50× (1–4)" */

/* The calls/call text of node v: over the entry calls in which it ran. */
static void per_call_text(char *buf, size_t size, const struct sum_view *v)
{
    long long lo = ll(v->calls_min), hi = ll(v->calls_max), entries = ll(v->entries);

    if (lo == hi)
        snprintf(buf, size, lo == 1 ? "1" : "%lld×", lo);
    else
        snprintf(buf, size, "%.2f× (%lld–%lld)", entries > 0 ? (double)ll(v->calls) / (double)entries : 0.0, lo, hi);
}

/* The width of a summary's column of figure x (sum_xkeys). */
static size_t xfig_w(enum sum_xfig x)
{
    return x == SUM_X_CPU ? DUR_W + 1 : BYTES_W;
}

/* Writes the p50 and p99 columns of the figures the summary's nodes carry
 * (--cpu, --alloc): their titles (v NULL) or node v's values. */
static void put_sum_xfigs(const struct tree *t, const struct sum_view *v)
{
    char buf[64];

    for (int x = 0; x < SUM_X_N; x++) {
        const struct sum_xkeys *k = &sum_xkeys[x];

        if (!(x == SUM_X_CPU ? t->cpu : t->alloc))
            continue;
        for (int i = 0; i < 2; i++) {
            if (v == NULL)
                snprintf(buf, sizeof buf, "%s p%d", k->name, i == 0 ? 50 : 99);
            else if (x == SUM_X_CPU)
                fu_duration(buf, sizeof buf, (double)ll(i == 0 ? v->x[x].p50 : v->x[x].p99));
            else
                fu_bytes(buf, sizeof buf, (unsigned long long)ll(i == 0 ? v->x[x].p50 : v->x[x].p99));
            fputs("  ", t->o->f);
            fu_put_right(t->o->f, buf, xfig_w((enum sum_xfig)x));
        }
    }
}

/* Writes node of summary s at depth and, up to FU_MAX_DEPTH levels, its
 * children. */
static void put_sum_node(struct tree *t, const sum *s, const sum_node *node, int depth, long long n)
{
    struct sum_view v;
    struct tnode tn;
    int cut = depth + 1 >= FU_MAX_DEPTH && sum_node_kid(node) != NULL;
    char buf[64];

    sum_node_view(s, node, &v);
    tn = of_view(&v);
    for (size_t i = 0; i < 3; i++) {
        fu_duration(buf, sizeof buf, (double)ll(i == 0 ? v.p50_ns : i == 1 ? v.p90_ns : v.p99_ns));
        fputs(i == 0 ? " " : "  ", t->o->f);
        fu_put_right(t->o->f, buf, DUR_W + 1);
    }
    put_sum_xfigs(t, &v);
    fu_duration(buf, sizeof buf, v.entries > 0 ? (double)ll(v.self_ns) / (double)ll(v.entries) : 0.0);
    fputs("  ", t->o->f);
    fu_put_right(t->o->f, buf, DUR_W + 2);
    per_call_text(buf, sizeof buf, &v);
    fputs("  ", t->o->f);
    fu_put_right(t->o->f, buf, SUM_CALLS_W);
    fputs("  ", t->o->f);
    put_branches(t, depth);
    put_name(t, &tn, depth);
    if (ll(v.entries) < n) {
        snprintf(buf, sizeof buf, "in %lld of %lld calls", ll(v.entries), n);
        fputs("  ", t->o->f);
        put_styled(t, SGR_DIM, buf);
    }
    put_tags(t, &tn, 0, cut);
    fputc('\n', t->o->f);
    if (cut)
        return;
    for (const sum_node *k = sum_node_kid(node); k != NULL; k = sum_node_next(k)) {
        t->last[depth + 1] = sum_node_next(k) == NULL;
        put_sum_node(t, s, k, depth + 1, n);
    }
}

/* A call of the summary's slowest (its JSON text, checked with the
 * summary by sum_read): a tree as any call, after a blank line. */
static int put_slow_call(void *ctx, const char *json, size_t len)
{
    out *o = ctx;
    unsigned long calls = o->calls;
    call_tab tab = {0};
    mct_call c = {0};
    json_t *j = json_loadb(json, len, 0, NULL);
    mct_err e;

    fputc('\n', o->f);
    if (j != NULL && call_from_json(&tab, &c, j, &e) == 0) {
        o->calls = 0;   /* tree_call's blank line is written above */
        tree_call(o, &tab, &c);
        o->calls = calls;
    }
    json_decref(j);
    call_free(&c);
    call_tab_free(&tab);
    return 0;
}

static int tree_summary(out *o, const sum *s, int final)
{
    struct tree t = { .o = o, .slow_ns = -1 };
    struct sum_totals tot;
    const sum_node *root = sum_root(s);
    size_t nslow = sum_slowest_count(s);
    long long n;
    struct sum_view rv;
    FILE *f = o->f;
    mct_err e;

    sum_totals(s, &tot);
    n = ll(tot.calls);
    if (o->calls > 0 || o->summaries > 0)
        fputc('\n', f);
    put_pid(o);
    sgr(&t, SGR_BOLD);
    fprintf(f, "summary%s", final ? " (final)" : "");
    sgr_end(&t);
    fprintf(f, ": %lld entry call%s", n, n == 1 ? "" : "s");
    if (tot.not_traced > 0)
        fprintf(f, ", %lld not traced", ll(tot.not_traced));
    if (tot.warmup > 0)
        fprintf(f, ", %lld warm-up", ll(tot.warmup));
    if (tot.seen > 0)
        fprintf(f, ", %lld seen", ll(tot.seen));
    fputc('\n', f);
    if (root == NULL)
        return ferror(f) ? -1 : 0;
    sum_node_view(s, root, &rv);
    t.cpu = (rv.xflags & sum_xkeys[SUM_X_CPU].flag) != 0;
    t.alloc = (rv.xflags & sum_xkeys[SUM_X_ALLOC].flag) != 0;
    sgr(&t, SGR_DIM);
    fputc(' ', f);
    fu_put_right(f, "p50", DUR_W + 1);
    fputs("  ", f);
    fu_put_right(f, "p90", DUR_W + 1);
    fputs("  ", f);
    fu_put_right(f, "p99", DUR_W + 1);
    put_sum_xfigs(&t, NULL);
    fputs("  ", f);
    fu_put_right(f, "self/call", DUR_W + 2);
    fputs("  ", f);
    fu_put_right(f, "calls/call", SUM_CALLS_W);
    fputs("  method", f);
    sgr_end(&t);
    fputc('\n', f);
    for (const sum_node *r = root; r != NULL; r = sum_node_next(r))
        put_sum_node(&t, s, r, 0, n);
    if (nslow > 0)
        fprintf(f, "\nthe %zu slowest call%s:\n", nslow, nslow == 1 ? "" : "s");
    if (sum_slowest_each(s, put_slow_call, o, &e) < 0) {
        errno = ENOMEM;
        return -1;
    }
    return ferror(f) ? -1 : 0;
}

const struct out_format fmt_tree = {
    .call = tree_call,
    .summary = tree_summary,
};
