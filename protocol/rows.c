/* rows.c — see rows.h. */
#include "rows.h"

#include <time.h>

#include "kit.h"

uint64_t rows_path_hash(uint64_t parent, const char *cls, const char *name, const char *desc)
{
    /* 63 bits: an int64 for OTLP's intValue and any JSON reader */
    return kit_hash_str(desc, kit_hash_str(name, kit_hash_str(cls, kit_hash_u64(parent)))) >> 1 | 1;
}

/* The walk over one call's nodes. */
struct rwalk {
    mct_buf *b;
    const struct rows_src *src;
    const call_tab *t;
    const mct_call *c;
    mct_buf head;                   /* the keys every row of the call shares */
    mct_buf path;                   /* the current node's path, without a NUL */
    size_t i;                       /* the next node */
};

static void put_row(struct rwalk *w, size_t idx, unsigned depth, uint64_t hash, uint64_t parent_hash)
{
    const struct call_node *n = &w->c->nodes[idx];
    const struct call_method *m = call_tab_get(w->t, n->method);
    mct_buf *b = w->b;

    buf_bytes(b, w->head.data, w->head.len);
    buf_key_dec(b, "node", idx);
    buf_key_dec(b, "depth", depth);
    buf_str(b, ",\"path\":");
    buf_ch(&w->path, '\0');
    call_json_str(b, buf_failed(&w->path) ? "" : (const char *)w->path.data);
    if (!buf_failed(&w->path))
        w->path.len--;
    buf_key_dec(b, "path_hash", hash);
    buf_key_dec(b, "parent_hash", parent_hash);
    buf_ch(b, ',');
    buf_bytes(b, m->keys, m->keys_len);
    buf_key_dec(b, "calls", n->calls);
    buf_key_dec(b, "total_ns", n->total_ns);
    buf_key_dec(b, "self_ns", n->self_ns);
    buf_key_dec(b, "min_ns", n->min_ns);
    buf_key_dec(b, "max_ns", n->max_ns);
    buf_key_dec(b, "throws", n->throws);
    buf_str(b, n->flags & CALL_N_TRUNCATED ? ",\"truncated\":1}\n" : ",\"truncated\":0}\n");
}

static void put_subtree(struct rwalk *w, unsigned depth, uint64_t parent_hash)
{
    size_t idx = w->i++, mark = w->path.len;
    const struct call_node *n = &w->c->nodes[idx];
    const struct call_method *m = call_tab_get(w->t, n->method);
    uint64_t hash = rows_path_hash(parent_hash, m->cls, m->name, m->desc);

    if (depth > 0)
        buf_str(&w->path, ROWS_PATH_SEP);
    buf_str(&w->path, m->cls);
    buf_ch(&w->path, '.');
    buf_str(&w->path, m->name);
    buf_str(&w->path, m->desc);
    put_row(w, idx, depth, hash, parent_hash);
    for (uint32_t k = 0; k < n->n_children; k++)
        put_subtree(w, depth + 1, hash);
    if (!buf_failed(&w->path))
        w->path.len = mark;
}

/* The trace the call joined (--trace-context): its id and the span it is
 * a child of, as the traceparent writes them; "" for a call without one. */
static void put_trace(mct_buf *h, const mct_call *c)
{
    char tp[CALL_TRACEPARENT_LEN + 1];

    if (!(c->flags & CALL_F_PARENT)) {
        buf_str(h, ",\"trace_id\":\"\",\"parent_span_id\":\"\"");
        return;
    }
    call_parent_write(&c->parent, tp);
    buf_printf(h, ",\"trace_id\":\"%.32s\",\"parent_span_id\":\"%.16s\"", tp + 3, tp + 36);
}

/* The keys shared by every row of c. */
static void put_head(mct_buf *h, const struct rows_src *src, const mct_call *c)
{
    time_t secs = (time_t)(c->start_ns / 1000000000u);
    struct tm tm;
    char when[32] = "1970-01-01 00:00:00";

    if (gmtime_r(&secs, &tm) != NULL)
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    buf_str(h, "{\"host\":");
    call_json_str(h, src->host != NULL ? src->host : "");
    buf_printf(h, ",\"pid\":%lld,\"session\":", (long long)src->pid);
    call_json_str(h, src->session != NULL ? src->session : "");
    buf_printf(h, ",\"thread_id\":%lld,\"thread\":", (long long)c->thread_id);
    call_json_str(h, c->thread_name);
    buf_key_dec(h, "seq", c->seq);
    buf_key_dec(h, "start_ns", c->start_ns);
    buf_printf(h, ",\"time\":\"%s\",\"warmup\":%d,\"exception\":", when, call_warmup(c));
    call_json_str(h, c->exception != NULL ? c->exception : "");
    put_trace(h, c);
}

long rows_call(mct_buf *b, const struct rows_src *src, const call_tab *t, const mct_call *c)
{
    struct rwalk w = {.b = b, .src = src, .t = t, .c = c};
    int failed;

    buf_init(&w.head);
    buf_init(&w.path);
    put_head(&w.head, src, c);
    if (!buf_failed(&w.head))
        put_subtree(&w, 0, 0);
    failed = buf_failed(&w.head) || buf_failed(&w.path);
    buf_free(&w.head);
    buf_free(&w.path);
    if (failed)
        b->failed = 1;
    return buf_failed(b) ? -1 : (long)c->n_nodes;
}
