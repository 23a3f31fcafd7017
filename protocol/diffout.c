/* diffout.c — see diffout.h. */
#include "diffout.h"

#include <math.h>

/* v as a JSON number; null when absent or not finite (JSON has no inf). */
static json_t *num_or_null(int has, double v)
{
    return has && isfinite(v) ? json_real(v) : json_null();
}

static json_t *int_or_null(int has, uint64_t v)
{
    return has ? json_integer((json_int_t)(v > INT64_MAX ? INT64_MAX : v)) : json_null();
}

/* {"base":B,"new":N,"pct":P[,"ci_pct":[LO,HI]]}, B or N null when absent. */
static json_t *change_json(int has_b, uint64_t b, int has_n, uint64_t n, const struct diffout_pct *p)
{
    json_t *o = json_pack("{s:o,s:o,s:o}", "base", int_or_null(has_b, b), "new", int_or_null(has_n, n),
                          "pct", num_or_null(1, p->pct));

    if (o != NULL && p->has_ci &&
        json_object_set_new(o, "ci_pct", json_pack("[o,o]", num_or_null(1, p->ci_lo), num_or_null(1, p->ci_hi))) < 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *pct_json(const struct diffout_side *b, const struct diffout_side *n, int p50,
                        const struct diffout_pct *p)
{
    return change_json(b->present, p50 ? b->p50_ns : b->p99_ns, n->present, p50 ? n->p50_ns : n->p99_ns, p);
}

static json_t *reached_json(const struct diffout_side *s)
{
    if (!s->present)
        return json_null();
    return json_pack("{s:I,s:I,s:O?}", "min", (json_int_t)s->calls_min, "max", (json_int_t)s->calls_max,
                     "hist", s->calls_hist);
}

/* Appends one chunk of jansson's output to the buffer arg; 0 or -1. */
static int to_buf(const char *chunk, size_t n, void *arg)
{
    mct_buf *b = arg;

    buf_bytes(b, chunk, n);
    return buf_failed(b) ? -1 : 0;
}

/* Appends j (a new reference, taken; NULL: out of memory) to b as compact
 * JSON text; 0 or -1. */
static int put_new(mct_buf *b, json_t *j)
{
    int rc = j == NULL ? -1 : json_dump_callback(j, to_buf, b, JSON_COMPACT | JSON_ENCODE_ANY);

    json_decref(j);
    return rc;
}

/* The row object; a new reference or NULL (out of memory). */
static json_t *row_json(const struct diffout_row *r)
{
    json_t *o = json_pack("{s:s,s:i,s:s,s:s,s:s,s:s,s:{s:s,s:s},s:{s:o,s:o},s:{s:o,s:o,s:o},s:o,s:o,s:b}",
                              "path", r->path, "depth", r->depth, "class", r->class_name, "method", r->method,
                              "desc", r->desc, "status", r->status,
                              "calls_per_entry", "base", r->base.calls_per_entry, "new", r->new_.calls_per_entry,
                              "calls_reached", "base", reached_json(&r->base), "new", reached_json(&r->new_),
                              "share", "base", num_or_null(1, r->base.share), "new", num_or_null(1, r->new_.share),
                              "p_value", num_or_null(1, r->share_p),
                              "p50_ns", pct_json(&r->base, &r->new_, 1, &r->p50),
                              "p99_ns", pct_json(&r->base, &r->new_, 0, &r->p99), "ignored", r->ignored);

    for (size_t i = 0; o != NULL && i < r->nfigs; i++) {
        const struct diffout_fig *f = &r->figs[i];

        if (json_object_set_new(o, f->key, change_json(1, f->base, 1, f->new_, &f->pct)) < 0) {
            json_decref(o);
            o = NULL;
        }
    }
    return o;
}

int diffout_row_write(mct_buf *b, const struct diffout_row *r, int first)
{
    if (!first)
        buf_ch(b, ',');
    return put_new(b, row_json(r));
}

int diffout_doc_head(mct_buf *b, const char *base_file, uint64_t base_calls, const char *new_file,
                     uint64_t new_calls, double confidence)
{
    json_t *head = json_pack("{s:s,s:{s:s,s:I},s:{s:s,s:I},s:f}", "type", "diff",
                             "base", "file", base_file, "calls", (json_int_t)base_calls,
                             "new", "file", new_file, "calls", (json_int_t)new_calls, "confidence", confidence);

    if (put_new(b, head) < 0)
        return -1;
    b->len--;           /* the head's '}': the rows follow */
    buf_str(b, ",\"nodes\":[");
    return buf_failed(b) ? -1 : 0;
}

int diffout_doc_tail(mct_buf *b, const json_t *failures)
{
    buf_str(b, "],\"failures\":");
    if (json_dump_callback(failures, to_buf, b, JSON_COMPACT) < 0)
        return -1;
    buf_ch(b, '}');
    return buf_failed(b) ? -1 : 0;
}
