/* otlp.c — see otlp.h. */
#include "otlp.h"

#include <string.h>

#include "kit.h"
#include "rows.h"

#define OTLP_SCOPE "{\"scope\":{\"name\":\"mcalltree\"},"
/* SPAN_KIND_INTERNAL and STATUS_CODE_ERROR of opentelemetry-proto. */
#define OTLP_KIND_INTERNAL "1"
#define OTLP_STATUS_ERROR 2

/* p's n (at most 16) bytes as a JSON string of lowercase hex. */
static void put_hex(mct_buf *b, const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    char s[2 * 16 + 2];

    s[0] = '"';
    for (size_t i = 0; i < n; i++) {
        s[1 + 2 * i] = digits[p[i] >> 4];
        s[2 + 2 * i] = digits[p[i] & 15];
    }
    s[1 + 2 * n] = '"';
    buf_bytes(b, s, 2 * n + 2);
}

int otlp_traceparent(const char *s, struct otlp_parent *p, mct_err *e)
{
    struct call_parent cp;

    if (strlen(s) != CALL_TRACEPARENT_LEN || strncmp(s, "00-", 3) != 0 ||
        call_parent_read(s, CALL_TRACEPARENT_LEN, &cp) < 0)
        return mct_err_set(e, MCT_E_ARG,
                           "traceparent '%.64s': not of the form 00-<32 lowercase hex>-<16 lowercase hex>-<2 "
                           "lowercase hex> with ids not all-zero",
                           s);
    memcpy(p->trace_id, cp.trace_id, sizeof p->trace_id);
    memcpy(p->span_id, cp.span_id, sizeof p->span_id);
    return 0;
}

/* ---- attributes ------------------------------------------------------------------ */

/* An attribute, after a comma unless first. */
static void attr_key(mct_buf *b, const char *key, int first)
{
    buf_str(b, first ? "{\"key\":\"" : ",{\"key\":\"");
    buf_str(b, key);
    buf_str(b, "\",\"value\":");
}

static void attr_str(mct_buf *b, const char *key, const char *v, int first)
{
    attr_key(b, key, first);
    buf_str(b, "{\"stringValue\":");
    call_json_str(b, v);
    buf_str(b, "}}");
}

static void attr_int(mct_buf *b, const char *key, uint64_t v, int first)
{
    attr_key(b, key, first);
    buf_str(b, "{\"intValue\":\"");
    buf_dec(b, v);
    buf_str(b, "\"}}");
}

/* The attributes that name a method, the same on a span and on a point. */
static void attr_method(mct_buf *b, const char *cls, const char *name, const char *desc, int first)
{
    attr_str(b, "code.namespace", cls, first);
    attr_str(b, "code.function", name, 0);
    attr_str(b, "mcalltree.desc", desc, 0);
}

static void attr_bool(mct_buf *b, const char *key, int v, int first)
{
    attr_key(b, key, first);
    buf_str(b, v ? "{\"boolValue\":true}}" : "{\"boolValue\":false}}");
}

/* A string attribute unless s is NULL or empty; whether it was written. */
static int attr_opt(mct_buf *b, const char *key, const char *s, int first)
{
    if (s == NULL || *s == '\0')
        return 0;
    attr_str(b, key, s, first);
    return 1;
}

static void put_resource(mct_buf *b, const struct otlp_resource *r)
{
    int n = 0;

    buf_str(b, "{\"resource\":{\"attributes\":[");
    n += attr_opt(b, "service.name", r->service, n == 0);
    n += attr_opt(b, "host.name", r->host, n == 0);
    if (r->pid > 0) {
        attr_int(b, "process.pid", (uint64_t)r->pid, n == 0);
        n++;
    }
    n += attr_opt(b, "process.runtime.name", r->runtime_name, n == 0);
    n += attr_opt(b, "process.runtime.version", r->runtime_version, n == 0);
    attr_opt(b, "process.runtime.description", r->runtime_description, n == 0);
    buf_str(b, "]},");
}

/* ---- traces ---------------------------------------------------------------------- */

void otlp_traces_begin(mct_buf *b, const struct otlp_resource *r)
{
    buf_str(b, "{\"resourceSpans\":[");
    put_resource(b, r);
    buf_str(b, "\"scopeSpans\":[" OTLP_SCOPE "\"spans\":[");
}

void otlp_traces_end(mct_buf *b)
{
    buf_str(b, "]}]}]}");
}

static void put_u64_be(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

/* The id of span `node` of the call numbered seq (never all zero:
 * kit_hash_u64 is never 0). */
static void span_id(uint8_t id[8], const uint64_t key[2], uint64_t seq, size_t node)
{
    put_u64_be(id, kit_hash_u64(key[1] ^ kit_hash_u64(seq ^ kit_hash_u64(key[0] + node))));
}

/* What one call's spans share. */
struct walk {
    mct_buf *b;
    const call_tab *t;
    const mct_call *c;
    const uint64_t *key;
    uint8_t trace_id[16];
    size_t i;                       /* the next node */
    mct_buf name;                   /* a span's name, reused */
    int first;
};

static void put_span(struct walk *w, size_t idx, const uint8_t *id, const uint8_t *parent, uint64_t start,
                     uint64_t dur)
{
    const struct call_node *n = &w->c->nodes[idx];
    const struct call_method *m = call_tab_get(w->t, n->method);
    mct_buf *b = w->b;

    buf_str(b, w->first ? "{\"traceId\":" : ",{\"traceId\":");
    w->first = 0;
    put_hex(b, w->trace_id, 16);
    buf_str(b, ",\"spanId\":");
    put_hex(b, id, 8);
    if (parent != NULL) {
        buf_str(b, ",\"parentSpanId\":");
        put_hex(b, parent, 8);
    }
    buf_str(b, ",\"name\":");
    buf_reset(&w->name);
    buf_str(&w->name, m->cls);
    buf_ch(&w->name, '.');
    buf_str(&w->name, m->name);
    buf_ch(&w->name, '\0');
    if (buf_failed(&w->name))
        b->failed = 1;
    else
        call_json_str(b, (const char *)w->name.data);
    buf_str(b, ",\"kind\":" OTLP_KIND_INTERNAL ",\"startTimeUnixNano\":\"");
    buf_dec(b, start);
    buf_str(b, "\",\"endTimeUnixNano\":\"");
    buf_dec(b, start + dur);
    buf_str(b, "\",\"attributes\":[");
    attr_method(b, m->cls, m->name, m->desc, 1);
    attr_int(b, "mcalltree.calls", n->calls, 0);
    attr_int(b, "mcalltree.total_ns", n->total_ns, 0);
    attr_int(b, "mcalltree.self_ns", n->self_ns, 0);
    attr_int(b, "mcalltree.min_ns", n->min_ns, 0);
    attr_int(b, "mcalltree.max_ns", n->max_ns, 0);
    attr_int(b, "mcalltree.throws", n->throws, 0);
    if (n->flags & CALL_N_TRUNCATED)
        attr_bool(b, "mcalltree.truncated", 1, 0);
    if (idx == 0) {
        attr_int(b, "thread.id", (uint64_t)w->c->thread_id, 0);
        attr_str(b, "thread.name", w->c->thread_name, 0);
        attr_int(b, "mcalltree.seq", w->c->seq, 0);
        attr_bool(b, "mcalltree.warmup", call_warmup(w->c), 0);
        if (w->c->exception != NULL)
            attr_str(b, "exception.type", w->c->exception, 0);
    }
    buf_ch(b, ']');
    if (idx == 0 && w->c->exception != NULL) {
        buf_printf(b, ",\"status\":{\"code\":%d,\"message\":", OTLP_STATUS_ERROR);
        call_json_str(b, w->c->exception);
        buf_ch(b, '}');
    }
    buf_ch(b, '}');
}

/* Writes the subtree at w->i from start, dur long, its children laid out
 * after one another within it (see the top of otlp.h). */
static void put_subtree(struct walk *w, const uint8_t *parent, uint64_t start, uint64_t dur)
{
    size_t idx = w->i++;
    uint32_t kids = w->c->nodes[idx].n_children;
    uint64_t at = start, end;
    uint8_t id[8];

    if (dur > UINT64_MAX - start)
        dur = UINT64_MAX - start;   /* absurd numbers must not wrap */
    end = start + dur;
    span_id(id, w->key, w->c->seq, idx);
    put_span(w, idx, id, parent, start, dur);
    for (uint32_t k = 0; k < kids; k++) {
        uint64_t width = w->c->nodes[w->i].total_ns;

        if (width > end - at)
            width = end - at;
        put_subtree(w, id, at, width);
        at += width;
    }
}

long otlp_trace_spans(mct_buf *b, const call_tab *t, const mct_call *c, const uint64_t key[2],
                      const struct otlp_parent *parent, int first)
{
    struct walk w = {.b = b, .t = t, .c = c, .key = key, .first = first};
    struct otlp_parent own;

    /* The call's own parent, read on its thread at its start, unless the
     * caller gives one. */
    if (parent == NULL && (c->flags & CALL_F_PARENT)) {
        memcpy(own.trace_id, c->parent.trace_id, sizeof own.trace_id);
        memcpy(own.span_id, c->parent.span_id, sizeof own.span_id);
        parent = &own;
    }
    if (parent != NULL) {
        memcpy(w.trace_id, parent->trace_id, 16);
    } else {
        put_u64_be(w.trace_id, kit_hash_u64(key[0] ^ kit_hash_u64(c->seq)));
        put_u64_be(w.trace_id + 8, kit_hash_u64(key[1] ^ kit_hash_u64(~c->seq)));
    }
    buf_init(&w.name);
    put_subtree(&w, parent != NULL ? parent->span_id : NULL, c->start_ns, c->nodes[0].total_ns);
    buf_free(&w.name);
    return buf_failed(b) ? -1 : (long)c->n_nodes;
}

/* ---- metrics --------------------------------------------------------------------- */

void otlp_metrics_begin(mct_buf *b, const struct otlp_resource *r, int cumulative)
{
    buf_str(b, "{\"resourceMetrics\":[");
    put_resource(b, r);
    /* AGGREGATION_TEMPORALITY_DELTA is 1, _CUMULATIVE 2. */
    buf_printf(b,
               "\"scopeMetrics\":[" OTLP_SCOPE "\"metrics\":[{\"name\":\"mcalltree.node.duration\","
               "\"description\":\"time in a call-path node per entry call\",\"unit\":\"ns\","
               "\"histogram\":{\"aggregationTemporality\":%d,\"dataPoints\":[",
               cumulative ? 2 : 1);
}

void otlp_metrics_end(mct_buf *b)
{
    buf_str(b, "]}}]}]}]}");
}

/* The lowest value of the histogram bucket at index idx and its width
 * (summary.h: group 0 holds 0..127 one value each, group g >= 1 cuts
 * [2^(g+6), 2^(g+7)) into SUM_HIST_SUB buckets). */
static void bucket_span(unsigned idx, uint64_t *lo, uint64_t *width)
{
    unsigned g = idx / SUM_HIST_SUB, k = idx % SUM_HIST_SUB;

    *width = g == 0 ? 1 : (uint64_t)1 << (g - 1);
    *lo = g == 0 ? k : ((uint64_t)SUM_HIST_SUB + k) << (g - 1);
}

int otlp_metric_point(mct_buf *b, const struct otlp_node *n, const struct sum_hist *h, uint64_t sum_ns,
                      uint64_t start_ns, uint64_t end_ns, int first)
{
    /* OTLP's bucket i counts (bounds[i-1], bounds[i]]; a bucket [lo, lo+w)
     * of integers is (lo-1, lo+w-1]. Gaps between non-empty buckets become
     * empty buckets, so the counts are those of h exactly. */
    mct_buf counts, bounds;
    uint64_t prev_hi = 0;
    int have = 0;

    buf_init(&counts);
    buf_init(&bounds);
    for (uint32_t i = 0; i < h->n; i++) {
        uint64_t lo, w, cnt = h->b[i] & SUM_HIST_CNT_MAX;

        bucket_span((unsigned)(h->b[i] >> SUM_HIST_CNT_BITS), &lo, &w);
        if (!have || lo - 1 != prev_hi) {
            /* the empty bucket below this one: (-inf or prev_hi, lo-1] */
            buf_printf(&counts, "%s\"0\"", have ? "," : "");
            buf_printf(&bounds, "%s%.17g", have ? "," : "", (double)lo - 1);
        }
        buf_printf(&counts, ",\"%llu\"", (unsigned long long)cnt);
        prev_hi = lo + w - 1;
        buf_printf(&bounds, ",%.17g", (double)prev_hi);
        have = 1;
    }
    buf_str(&counts, have ? ",\"0\"" : "\"0\"");   /* (last bound, +inf) */
    buf_ch(&counts, '\0');
    buf_ch(&bounds, '\0');
    if (!buf_failed(&counts) && !buf_failed(&bounds)) {
        buf_str(b, first ? "{\"attributes\":[" : ",{\"attributes\":[");
        attr_str(b, "mcalltree.path", n->path, 1);
        attr_int(b, "mcalltree.path_hash", n->path_hash, 0);
        attr_method(b, n->cls, n->name, n->desc, 0);
        attr_int(b, "mcalltree.depth", n->depth, 0);
        buf_printf(b,
                   "],\"startTimeUnixNano\":\"%llu\",\"timeUnixNano\":\"%llu\",\"count\":\"%llu\","
                   "\"sum\":%.17g",
                   (unsigned long long)start_ns, (unsigned long long)end_ns, (unsigned long long)h->count,
                   (double)sum_ns);
        if (h->count > 0)
            buf_printf(b, ",\"min\":%.17g,\"max\":%.17g", (double)h->min, (double)h->max);
        buf_printf(b, ",\"bucketCounts\":[%s],\"explicitBounds\":[%s]}", (const char *)counts.data,
                   (const char *)bounds.data);
    } else {
        b->failed = 1;
    }
    buf_free(&counts);
    buf_free(&bounds);
    return buf_failed(b) ? -1 : 0;
}

/* The walk over one summary's nodes. */
struct mwalk {
    mct_buf *b;
    const sum *s;
    mct_buf path;                   /* the current node's path, without a NUL */
    uint64_t start_ns, end_ns;
    long points;
};

/* A figure as the summary's JSON says it: at most INT64_MAX. */
static uint64_t clamp(uint64_t v)
{
    return v > INT64_MAX ? (uint64_t)INT64_MAX : v;
}

/* Node n (and its subtree) under the path of hash parent, depth levels
 * down; 0, or -1 with e set. */
static int metric_node(struct mwalk *w, const sum_node *n, uint64_t parent, unsigned depth, mct_err *e)
{
    struct sum_view v;
    uint64_t hash;
    size_t mark = w->path.len;
    struct otlp_node node;
    struct sum_hist none;
    int rc = 0;

    sum_node_view(w->s, n, &v);
    hash = rows_path_hash(parent, v.class_name, v.method, v.desc);
    node = (struct otlp_node){.path_hash = hash, .cls = v.class_name, .name = v.method, .desc = v.desc,
                              .depth = depth};
    if (depth > 0)
        buf_str(&w->path, ROWS_PATH_SEP);
    buf_str(&w->path, v.class_name);
    buf_ch(&w->path, '.');
    buf_str(&w->path, v.method);
    buf_str(&w->path, v.desc);
    buf_ch(&w->path, '\0');
    if (buf_failed(&w->path))
        return mct_err_set(e, MCT_E_NOMEM, "out of memory encoding a summary");
    node.path = (const char *)w->path.data;
    /* An older summary without its histogram: an empty one. */
    sum_hist_init(&none);
    if (otlp_metric_point(w->b, &node, v.hist != NULL ? v.hist : &none, clamp(v.total_ns), w->start_ns, w->end_ns,
                          w->points == 0) < 0)
        rc = mct_err_set(e, MCT_E_NOMEM, "out of memory encoding a summary");
    w->path.len--;                  /* the NUL */
    w->points++;
    for (const sum_node *k = sum_node_kid(n); k != NULL && rc == 0; k = sum_node_next(k))
        rc = metric_node(w, k, hash, depth + 1, e);
    w->path.len = mark;
    return rc;
}

long otlp_summary_metrics(mct_buf *b, const struct otlp_resource *r, const sum *summary, int final, mct_err *e)
{
    struct sum_totals t;
    struct mwalk w = {.b = b, .s = summary};
    int rc = 0;

    sum_totals(summary, &t);
    if (t.end_ns != 0) {
        w.start_ns = (uint64_t)t.start_ns;
        w.end_ns = (uint64_t)t.end_ns;
    }
    buf_init(&w.path);
    otlp_metrics_begin(b, r, final);
    for (const sum_node *n = sum_root(summary); n != NULL && rc == 0; n = sum_node_next(n))
        rc = metric_node(&w, n, 0, 0, e);
    otlp_metrics_end(b);
    buf_free(&w.path);
    if (rc == 0 && buf_failed(b))
        rc = mct_err_set(e, MCT_E_NOMEM, "out of memory encoding a summary");
    return rc < 0 ? -1 : w.points;
}
