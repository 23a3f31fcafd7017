/* fmt_folded.c — -f folded: folded stacks, the input of flamegraph.pl and
 * speedscope. One line per node that has self time:
 *
 *   tgt.Shape.run;tgt.Price.of;tgt.Tax.rate 120000
 *
 * the frames from the entry method down to the node, separated by ';', a
 * space, and the node's self time in whole nanoseconds (flamegraph.pl
 * --countname=ns labels it). Nodes without self time are left out: their
 * frames come with their children's lines, and a 0 adds nothing. Every call
 * writes its own lines; the tools sum equal stacks, so a graph of the file
 * is the time of all printed calls together. A summary writes one line per
 * path, its self time summed over all the calls it covers.
 *
 * With --folded-value cpu (calls traced with --cpu) the value is the
 * node's self CPU time instead: its cpu_ns less its children's; with
 * --folded-value alloc (--alloc), its self allocation in bytes.
 *
 * A frame is Class.method, without the descriptor (overloads share a
 * frame, as in a profiler's stacks). ';', spaces and control characters
 * (C0, DEL and C1) in names become '_', so that a line always splits into
 * frames and a value and writes nothing a terminal would obey. */
#include "output.h"

#include "fmtutil.h"

/* Appends name to st (the frames of the current path, ';'-separated),
 * with the characters that would split a line replaced, and the C1 controls
 * (U+0080..U+009F, UTF-8 C2 80..C2 9F: a terminal reads U+009B as the start
 * of an escape sequence) too. */
static void push_name(mct_buf *st, const char *name)
{
    for (const unsigned char *p = (const unsigned char *)name; *p != '\0'; p++) {
        if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) {
            buf_ch(st, '_');
            p++;
        } else {
            buf_ch(st, *p == ';' || *p == ' ' || *p < 0x20 || *p == 0x7f ? '_' : (char)*p);
        }
    }
}

/* Appends a node's frame to st, after a ';' below the entry method (depth
 * 0), and writes its line when it has self time; -1 when out of memory. */
static int put_frame(out *o, mct_buf *st, const char *cls, const char *method, long long self, int depth)
{
    if (depth > 0)
        buf_ch(st, ';');
    push_name(st, cls);
    buf_ch(st, '.');
    push_name(st, method);
    if (buf_failed(st))
        return -1;
    if (self > 0)
        fprintf(o->f, "%.*s %lld\n", (int)st->len, (const char *)st->data, self);
    return 0;
}

/* Writes the lines of summary node at depth and, up to FU_MAX_DEPTH levels,
 * of its children; st holds the frames above node and is restored. */
static int put_node(out *o, mct_buf *st, const sum *s, const sum_node *node, int depth)
{
    struct sum_view v;
    size_t mark = st->len;
    int rc;

    sum_node_view(s, node, &v);
    /* self_ns as the summary's JSON says it: at most INT64_MAX */
    rc = put_frame(o, st, v.class_name, v.method, v.self_ns > INT64_MAX ? INT64_MAX : (long long)v.self_ns, depth);
    if (depth + 1 < FU_MAX_DEPTH)
        for (const sum_node *k = sum_node_kid(node); k != NULL && rc == 0; k = sum_node_next(k))
            rc = put_node(o, st, s, k, depth + 1);
    st->len = mark;
    return rc;
}

/* What o counts of node nd: its CPU time or its bytes allocated. */
static uint64_t node_value(const out *o, const struct call_node *nd)
{
    return o->value == OUT_VALUE_CPU ? nd->cpu_ns : nd->alloc_bytes;
}

/* The value of node i of c that o counts: its self time, or its self CPU
 * time or self allocation (its own less its children's). */
static long long call_value(const out *o, const mct_call *c, size_t i)
{
    const struct call_node *nd = &c->nodes[i];
    uint64_t kids = 0, own = node_value(o, nd);
    size_t j = i + 1;

    if (o->value == OUT_VALUE_WALL)
        return (long long)nd->self_ns;
    for (uint32_t k = 0; k < nd->n_children; k++) {
        kids += node_value(o, &c->nodes[j]);
        j = call_subtree_end(c, j);
    }
    return own > kids ? (long long)(own - kids) : 0;
}

/* put_node for node *i of call c; *i moves past its subtree. */
static int put_call_node(out *o, mct_buf *st, const call_tab *t, const mct_call *c, size_t *i, int depth)
{
    const struct call_node *nd = &c->nodes[*i];
    const struct call_method *m = call_tab_get(t, nd->method);
    size_t mark = st->len;
    int rc = put_frame(o, st, m->cls, m->name, call_value(o, c, (*i)++), depth);

    for (uint32_t k = 0; k < nd->n_children && rc == 0; k++)
        rc = put_call_node(o, st, t, c, i, depth + 1);
    st->len = mark;
    return rc;
}

static int folded_call(out *o, const call_tab *t, const mct_call *c)
{
    mct_buf st;
    size_t i = 0;
    int rc;

    buf_init(&st);
    rc = put_call_node(o, &st, t, c, &i, 0);
    buf_free(&st);
    return rc < 0 || ferror(o->f) ? -1 : 0;
}

/* The summary's roots: root, then more_roots (the entry method's other
 * overloads); none when it covers no call. */
static int folded_summary(out *o, const sum *s, int final)
{
    mct_buf st;
    int rc = 0;

    (void)final;
    buf_init(&st);
    for (const sum_node *r = sum_root(s); r != NULL && rc == 0; r = sum_node_next(r))
        rc = put_node(o, &st, s, r, 0);
    buf_free(&st);
    return rc < 0 || ferror(o->f) ? -1 : 0;
}

const struct out_format fmt_folded = {
    .call = folded_call,
    .summary = folded_summary,
};
