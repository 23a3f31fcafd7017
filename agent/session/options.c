/* options.c — see options.h. */
#include "options.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "proto.h"

enum opt_kind {
    OPT_FLAG,   /* NAME alone sets the int field to 1 */
    OPT_STRING, /* NAME=VALUE copies VALUE into the char[size] field */
    OPT_TRACE   /* trace=CLASS.METHOD[(DESC)RET]: the startup trace's entry method */
};

/* The agent's own options; a trace's others are request.h's REQ_AGENT rows. */
struct opt_def {
    const char *name;
    enum opt_kind kind;
    size_t offset;      /* of the field in struct agent_opts */
    size_t size;        /* OPT_STRING: of the field */
    const char *values; /* OPT_STRING: the values allowed ("a|b"), NULL for any */
};

#define FIELD(f) offsetof(struct agent_opts, f)
#define STRING_FIELD(f) offsetof(struct agent_opts, f), sizeof(((struct agent_opts *)0)->f)

/* The longest decoded value: the longest string a request holds. */
#define VALUE_MAX REQ_TEXT_MAX

static const struct opt_def opt_table[] = {
    { "verbose", OPT_FLAG, FIELD(verbose), 0, NULL },
    { "rewrite-all", OPT_STRING, STRING_FIELD(rewrite_all), NULL },
    { "clock", OPT_STRING, STRING_FIELD(clock), "auto|monotonic" },
    { "probes", OPT_STRING, STRING_FIELD(probes), "auto|java|native" },
    { "trace", OPT_TRACE, 0, 0, NULL },
};

#define OPT_COUNT (sizeof opt_table / sizeof opt_table[0])

/* A copy of the n bytes at v, NUL-terminated, in t's text; NULL with e set
 * when the text is full. */
static const char *keep(struct agent_trace_opts *t, const char *v, size_t n, mct_err *e)
{
    char *at = t->text + t->text_used;

    if (t->text_used + n + 1 > sizeof t->text)
        return mct_err_set(e, MCT_E_ARG, "the trace's values are longer than %zu bytes together",
                           sizeof t->text - 1), NULL;
    memcpy(at, v, n);
    at[n] = '\0';
    t->text_used += n + 1;
    return at;
}

/* trace=CLASS.METHOD or CLASS.METHOD(DESC): the method is what follows
 * the last '.' before the descriptor. */
static int parse_trace(const char *v, struct agent_trace_opts *t, mct_err *e)
{
    struct mct_request *r = &t->req;
    const char *paren = strchr(v, '(');
    size_t head = paren != NULL ? (size_t)(paren - v) : strlen(v);
    const char *dot = NULL;

    for (const char *p = v; p < v + head; p++)
        if (*p == '.')
            dot = p;
    if (dot == NULL || dot == v || (size_t)(dot - v) > REQ_NAME_MAX || (size_t)(v + head - dot - 1) > REQ_NAME_MAX ||
        (paren != NULL && strlen(paren) > REQ_NAME_MAX))
        return mct_err_set(e, MCT_E_ARG, "give CLASS.METHOD or CLASS.METHOD(DESCRIPTOR), such as "
                                         "com.shop.Cart.total, not '%.200s'", v);
    if ((r->cls = keep(t, v, (size_t)(dot - v), e)) == NULL ||
        (r->method = keep(t, dot + 1, (size_t)(v + head - dot - 1), e)) == NULL)
        return -1;
    r->desc = NULL;
    if (paren != NULL && (r->desc = keep(t, paren, strlen(paren), e)) == NULL)
        return -1;
    if (!proto_utf8_valid(v, strlen(v)))
        return mct_err_set(e, MCT_E_ARG, "the value is not UTF-8");
    if (!proto_class_name_valid(r->cls))
        return mct_err_set(e, MCT_E_ARG, "'%.200s' is not a binary class name such as com.shop.Cart$Line", r->cls);
    if (!proto_method_name_valid(r->method))
        return mct_err_set(e, MCT_E_ARG, "'%.200s' is not a method name", r->method);
    if (r->desc != NULL && !proto_method_desc_valid(r->desc))
        return mct_err_set(e, MCT_E_ARG, "'%.200s' is not a JVM method descriptor such as (I)J", r->desc);
    return 0;
}

/* Whether the n bytes at v are one of the '|'-separated values. */
static int allowed(const char *values, const char *v, size_t n)
{
    const char *p = values;

    while (p != NULL) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);

        if (len == n && memcmp(p, v, n) == 0)
            return 1;
        p = bar ? bar + 1 : NULL;
    }
    return 0;
}

/* "a, b, c": the known option names (the agent's, then a trace's), for
 * error messages. */
static void known_names(char *buf, size_t size)
{
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < OPT_COUNT + REQ_ROWS && used < size; i++) {
        const char *name = i < OPT_COUNT ? opt_table[i].name : req_fields[i - OPT_COUNT].option;
        int n;

        if (i >= OPT_COUNT && !(req_fields[i - OPT_COUNT].where & REQ_AGENT))
            continue;
        n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

static int hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Percent-decodes the n bytes at v into out (VALUE_MAX + 1 bytes); the
 * decoded length, or -1 with e set (the option is named by the caller). */
static long decode(const char *v, size_t n, char *out, mct_err *e)
{
    size_t i, len = 0;

    for (i = 0; i < n; i++) {
        char c = v[i];

        if (c == '%') {
            if (i + 2 >= n)
                return mct_err_set(e, MCT_E_ARG, "'%%' must be followed by two hex digits (%%2C is a comma, "
                                                 "%%25 a percent sign)");
            if (hex(v[i + 1]) < 0 || hex(v[i + 2]) < 0)
                return mct_err_set(e, MCT_E_ARG, "'%%%.2s' is not %%XX with two hex digits (%%2C is a comma, "
                                                 "%%25 a percent sign)", v + i + 1);
            c = (char)(hex(v[i + 1]) * 16 + hex(v[i + 2]));
            if (c == '\0')
                return mct_err_set(e, MCT_E_ARG, "%%00 (a NUL byte) cannot be in a value");
            i += 2;
        }
        if (len == VALUE_MAX)
            return mct_err_set(e, MCT_E_ARG, "the value is longer than %d bytes", VALUE_MAX);
        out[len++] = c;
    }
    out[len] = '\0';
    return (long)len;
}

/* Applies one item of the agent's own table. */
static int apply_own(const struct opt_def *d, const char *item, size_t name_len, const char *value, long len,
                     struct agent_opts *o, mct_err *e)
{
    if (d->kind == OPT_TRACE) {
        if (parse_trace(value, &o->trace, e) < 0)
            return mct_err_wrap(e, "option '%.*s'", (int)name_len, item);
        return 0;
    }
    if ((size_t)len >= d->size)
        return mct_err_set(e, MCT_E_ARG, "the value of option '%.*s' is longer than %zu bytes", (int)name_len, item,
                           d->size - 1);
    if (d->values != NULL && !allowed(d->values, value, (size_t)len))
        return mct_err_set(e, MCT_E_ARG, "option '%.*s' takes one of %s, not '%s'", (int)name_len, item, d->values,
                           value);
    memcpy((char *)o + d->offset, value, (size_t)len + 1);
    return 0;
}

/* Applies one item of n bytes at item; -1 with e set if it is not valid.
 * *row receives its request row, NULL for one of the agent's own. */
static int apply_item(const char *item, size_t n, struct agent_opts *o, const struct req_field **row, mct_err *e)
{
    const char *eq = memchr(item, '=', n);
    size_t name_len = eq != NULL ? (size_t)(eq - item) : n;
    const struct opt_def *d = NULL;
    const struct req_field *f = req_find(item, name_len, REQ_AGENT);
    char known[512], value[VALUE_MAX + 1];
    const char *kept;
    long len;

    for (size_t i = 0; i < OPT_COUNT && f == NULL; i++)
        if (strlen(opt_table[i].name) == name_len && memcmp(opt_table[i].name, item, name_len) == 0)
            d = &opt_table[i];
    if (d == NULL && f == NULL) {
        known_names(known, sizeof known);
        return mct_err_set(e, MCT_E_ARG, "unknown option '%.*s' (known: %s)", (int)name_len, item, known);
    }
    *row = f;
    if (d != NULL ? d->kind == OPT_FLAG : f->type == REQ_BOOL) {
        if (eq != NULL)
            return mct_err_set(e, MCT_E_ARG, "option '%.*s' takes no value", (int)name_len, item);
        if (d != NULL)
            *(int *)(void *)((char *)o + d->offset) = 1;
        return d != NULL ? 0 : req_set(f, NULL, REQ_FORM_AGENT, &o->trace.req, e);
    }
    if (eq == NULL || eq + 1 == item + n)
        return mct_err_set(e, MCT_E_ARG, "option '%.*s' needs a value (%.*s=VALUE)", (int)name_len, item,
                           (int)name_len, item);
    len = decode(eq + 1, n - name_len - 1, value, e);
    if (len < 0)
        return mct_err_wrap(e, "option '%.*s'", (int)name_len, item);
    if (d != NULL)
        return apply_own(d, item, name_len, value, len, o, e);
    if (f->type == REQ_MAX_CALLS || f->type == REQ_BUDGETS) {
        /* As many bytes as a kind byte and a NUL each took when gates were kept as text. */
        if (o->trace.gate_used + (size_t)len + 2 > OPTS_GATE_TEXT_MAX)
            return mct_err_set(e, MCT_E_ARG, "option '%.*s': the max-calls, budget and max-alloc items are longer "
                               "than %d bytes together", (int)name_len, item, OPTS_GATE_TEXT_MAX - 1);
        o->trace.gate_used += (size_t)len + 2;
    }
    if ((kept = keep(&o->trace, value, (size_t)len, e)) == NULL || req_set(f, kept, REQ_FORM_AGENT, &o->trace.req, e) < 0)
        return mct_err_wrap(e, "option '%.*s'", (int)name_len, item);
    return 0;
}

/* The trace's items together: trace= needs out=, the others trace=, and
 * the request's rules (req_check); fills in the defaults. */
static int check_trace(struct agent_opts *o, const char *trace_only, mct_err *e)
{
    struct mct_request *r = &o->trace.req;

    if (r->cls == NULL) {
        if (trace_only != NULL)
            return mct_err_set(e, MCT_E_ARG, "option '%s' needs trace=CLASS.METHOD", trace_only);
        return 0;
    }
    if (r->out == NULL)
        return mct_err_set(e, MCT_E_ARG, "option 'trace' needs out=FILE, the file the trace is written to");
    if (req_check(r, REQ_FORM_AGENT, e) < 0)
        return -1;
    req_startup_defaults(r);
    return 0;
}

int opts_parse(const char *s, struct agent_opts *o, mct_err *e)
{
    const char *trace_only = NULL;

    memset(o, 0, sizeof *o);
    req_init(&o->trace.req);
    if (s == NULL)
        return 0;
    while (*s != '\0') {
        size_t n = strcspn(s, ",");
        const struct req_field *f = NULL;

        if (n == 0)
            return mct_err_set(e, MCT_E_ARG, "empty item in the options string");
        if (apply_item(s, n, o, &f, e) < 0)
            return -1;
        if (f != NULL && trace_only == NULL)
            trace_only = f->option;
        s += n;
        if (*s == ',' && *++s == '\0')
            return mct_err_set(e, MCT_E_ARG, "empty item in the options string");
    }
    return check_trace(o, trace_only, e);
}

int opts_gates(const struct agent_trace_opts *t, struct gates *g)
{
    const struct mct_request *r = &t->req;

    *g = (struct gates){
        .prefix = "", .class_name = r->cls, .method = r->method, .desc = req_desc(r),
        .max_calls = r->max_calls.item, .n_max_calls = r->max_calls.n, .budgets = r->budgets.item,
        .n_budgets = r->budgets.n, .max_alloc = r->max_alloc.item, .n_max_alloc = r->max_alloc.n, .percentile = r->percentile > 0 ? r->percentile : r->fail_over_ms >= 0 ? 100 : 0,
        .fail_over_ms = r->fail_over_ms, .min_calls = r->min_calls,
    };
    return gates_wanted(g);
}

void opts_trace_copy(struct agent_trace_opts *dst, const struct agent_trace_opts *src)
{
    memcpy(dst, src, sizeof *dst);
    req_rebase(&dst->req, src->text, sizeof src->text, dst->text);
}

int opts_has_trace(const char *s)
{
    while (s != NULL && *s != '\0') {
        if (strncmp(s, "trace=", 6) == 0)
            return 1;
        s = strchr(s, ',');
        if (s != NULL)
            s++;
    }
    return 0;
}
