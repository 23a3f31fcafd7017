/* options.c — see options.h. */
#include "options.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"
#include "proto.h"
#include "summary.h"

enum opt_kind {
    OPT_FLAG,   /* NAME alone sets the int field to 1 */
    OPT_STRING, /* NAME=VALUE copies VALUE into the char[size] field */
    OPT_PARSE   /* NAME=VALUE is handed to the row's parse function */
};

struct opt_def {
    const char *name;
    enum opt_kind kind;
    size_t offset;      /* of the field in struct agent_opts */
    size_t size;        /* OPT_STRING: of the field */
    const char *values; /* OPT_STRING: the values allowed ("a|b"), NULL for any */
    /* OPT_PARSE: v (decoded, NUL-terminated) into o; -1 with e set saying
     * what the value should be (the caller names the option). */
    int (*parse)(const char *v, struct agent_opts *o, mct_err *e);
    int trace_item;     /* only with trace= */
};

#define FIELD(f) offsetof(struct agent_opts, f)
#define STRING_FIELD(f) offsetof(struct agent_opts, f), sizeof(((struct agent_opts *)0)->f)

/* The longest decoded value: the longest field. */
#define VALUE_MAX 4096

/* trace=CLASS.METHOD or CLASS.METHOD(DESC): the method is what follows
 * the last '.' before the descriptor. */
static int parse_trace(const char *v, struct agent_opts *o, mct_err *e)
{
    struct agent_trace_opts *t = &o->trace;
    const char *paren = strchr(v, '(');
    size_t head = paren != NULL ? (size_t)(paren - v) : strlen(v);
    const char *dot = NULL;

    for (const char *p = v; p < v + head; p++)
        if (*p == '.')
            dot = p;
    if (dot == NULL || dot == v || (size_t)(dot - v) >= sizeof t->cls || (size_t)(v + head - dot - 1) >= sizeof t->method ||
        (paren != NULL && strlen(paren) >= sizeof t->desc))
        return mct_err_set(e, MCT_E_ARG, "give CLASS.METHOD or CLASS.METHOD(DESCRIPTOR), such as "
                                         "com.shop.Cart.total, not '%.200s'", v);
    memcpy(t->cls, v, (size_t)(dot - v));
    t->cls[dot - v] = '\0';
    memcpy(t->method, dot + 1, (size_t)(v + head - dot - 1));
    t->method[v + head - dot - 1] = '\0';
    strcpy(t->desc, paren != NULL ? paren : "");
    if (!proto_utf8_valid(v, strlen(v)))
        return mct_err_set(e, MCT_E_ARG, "the value is not UTF-8");
    if (!proto_class_name_valid(t->cls))
        return mct_err_set(e, MCT_E_ARG, "'%.200s' is not a binary class name such as com.shop.Cart$Line", t->cls);
    if (!proto_method_name_valid(t->method))
        return mct_err_set(e, MCT_E_ARG, "'%.200s' is not a method name", t->method);
    if (t->desc[0] != '\0' && !proto_method_desc_valid(t->desc))
        return mct_err_set(e, MCT_E_ARG, "'%.200s' is not a JVM method descriptor such as (I)J", t->desc);
    return 0;
}

static int parse_depth(const char *v, struct agent_opts *o, mct_err *e)
{
    long long n;

    if (num_int(v, 1, PROTO_MAX_DEPTH, &n) < 0)
        return mct_err_set(e, MCT_E_ARG, "give an integer from 1 to %d, not '%.64s'", PROTO_MAX_DEPTH, v);
    o->trace.depth = (int)n;
    return 0;
}

static int parse_count(const char *v, struct agent_opts *o, mct_err *e)
{
    if (num_int(v, 1, LLONG_MAX, &o->trace.count) < 0)
        return mct_err_set(e, MCT_E_ARG, "give a positive integer, not '%.64s'", v);
    return 0;
}

/* A number of milliseconds, at most a billion. */
static int parse_min_ms(const char *v, struct agent_opts *o, mct_err *e)
{
    double ms;

    if (num_decimal(v, 1e9, &ms) < 0)
        return mct_err_set(e, MCT_E_ARG, "give a number of milliseconds such as 2.5, not '%.64s'", v);
    o->trace.min_ns = (long long)(ms * 1e6 + 0.5);
    return 0;
}

/* A number of seconds from a millisecond (the protocol's unit) to a
 * million. */
static int parse_interval(const char *v, struct agent_opts *o, mct_err *e)
{
    double s;

    if (num_decimal(v, 1e6, &s) < 0 || s < 0.001)
        return mct_err_set(e, MCT_E_ARG, "give a number of seconds from 0.001 to 1000000 such as 10 or "
                                         "0.5, not '%.64s'", v);
    o->trace.interval_ms = (long long)(s * 1e3 + 0.5);
    return 0;
}

static int parse_slowest(const char *v, struct agent_opts *o, mct_err *e)
{
    if (num_int(v, 0, SUM_SLOWEST_MAX, &o->trace.slowest) < 0)
        return mct_err_set(e, MCT_E_ARG, "give an integer from 0 to %d, not '%.64s'", SUM_SLOWEST_MAX, v);
    return 0;
}

static int parse_sample(const char *v, struct agent_opts *o, mct_err *e)
{
    if (num_int(v, 1, PROTO_MAX_SAMPLE, &o->trace.sample) < 0)
        return mct_err_set(e, MCT_E_ARG, "give an integer from 1 (every call) to %lld, not '%.64s'",
                           PROTO_MAX_SAMPLE, v);
    return 0;
}

/* Keeps a gate item's text v, of kind 'm' or 'b', in t->gate_text. */
static int keep_gate(struct agent_trace_opts *t, char kind, const char *v, size_t *count, mct_err *e)
{
    size_t n = strlen(v);

    if (*count == GATES_MAX)
        return mct_err_set(e, MCT_E_ARG, "at most %d of them", GATES_MAX);
    if (t->gate_used + n + 2 > sizeof t->gate_text)
        return mct_err_set(e, MCT_E_ARG, "the max-calls and budget items are longer than %zu bytes together",
                           sizeof t->gate_text - 1);
    t->gate_text[t->gate_used] = kind;
    memcpy(t->gate_text + t->gate_used + 1, v, n + 1);
    t->gate_used += n + 2;
    (*count)++;
    return 0;
}

/* max-calls=CLASS.METHOD[(DESC)RET]=N, as the client's --max-calls. */
static int parse_max_calls(const char *v, struct agent_opts *o, mct_err *e)
{
    struct gates_max_calls spec;

    if (gates_parse_max_calls("", v, &spec, e) < 0)
        return -1;
    return keep_gate(&o->trace, 'm', v, &o->trace.n_max_calls, e);
}

/* budget=CLASS.METHOD[(DESC)RET]:STAT=MS, as the client's --budget. */
static int parse_budget(const char *v, struct agent_opts *o, mct_err *e)
{
    struct gates_budget spec;

    if (gates_parse_budget("", v, &spec, e) < 0)
        return -1;
    return keep_gate(&o->trace, 'b', v, &o->trace.n_budgets, e);
}

static int parse_percentile(const char *v, struct agent_opts *o, mct_err *e)
{
    return gates_parse_percentile("", v, &o->trace.percentile, e);
}

static int parse_fail_over_ms(const char *v, struct agent_opts *o, mct_err *e)
{
    o->trace.fail_over_set = 1;
    return gates_parse_ms("", "fail-over-ms", v, &o->trace.fail_over_ms, e);
}

static const struct opt_def opt_table[] = {
    { "verbose", OPT_FLAG, FIELD(verbose), 0, NULL, NULL, 0 },
    { "rewrite-all", OPT_STRING, STRING_FIELD(rewrite_all), NULL, NULL, 0 },
    { "clock", OPT_STRING, STRING_FIELD(clock), "auto|monotonic", NULL, 0 },
    { "trace", OPT_PARSE, 0, 0, NULL, parse_trace, 0 },
    { "depth", OPT_PARSE, 0, 0, NULL, parse_depth, 1 },
    { "regex", OPT_STRING, STRING_FIELD(trace.regex), NULL, NULL, 1 },
    { "out", OPT_STRING, STRING_FIELD(trace.out), NULL, NULL, 1 },
    { "include-jdk", OPT_FLAG, FIELD(trace.include_jdk), 0, NULL, NULL, 1 },
    { "min-ms", OPT_PARSE, 0, 0, NULL, parse_min_ms, 1 },
    { "count", OPT_PARSE, 0, 0, NULL, parse_count, 1 },
    { "aggregate", OPT_FLAG, FIELD(trace.aggregate), 0, NULL, NULL, 1 },
    { "interval", OPT_PARSE, 0, 0, NULL, parse_interval, 1 },
    { "slowest", OPT_PARSE, 0, 0, NULL, parse_slowest, 1 },
    { "sample", OPT_PARSE, 0, 0, NULL, parse_sample, 1 },
    { "max-calls", OPT_PARSE, 0, 0, NULL, parse_max_calls, 1 },
    { "percentile", OPT_PARSE, 0, 0, NULL, parse_percentile, 1 },
    { "fail-over-ms", OPT_PARSE, 0, 0, NULL, parse_fail_over_ms, 1 },
    { "budget", OPT_PARSE, 0, 0, NULL, parse_budget, 1 },
    { "include-warmup", OPT_FLAG, FIELD(trace.include_warmup), 0, NULL, NULL, 1 },
};

#define OPT_COUNT (sizeof opt_table / sizeof opt_table[0])

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

/* "a, b, c": the known option names, for error messages. */
static void known_names(char *buf, size_t size)
{
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < OPT_COUNT && used < size; i++) {
        int n = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", opt_table[i].name);

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

/* Applies one item of n bytes at item; -1 with e set if it is not valid.
 * *def receives its row. */
static int apply_item(const char *item, size_t n, struct agent_opts *o, const struct opt_def **def, mct_err *e)
{
    const char *eq = memchr(item, '=', n);
    size_t name_len = eq != NULL ? (size_t)(eq - item) : n;
    char known[256], value[VALUE_MAX + 1];
    long len;

    for (size_t i = 0; i < OPT_COUNT; i++) {
        const struct opt_def *d = &opt_table[i];

        if (strlen(d->name) != name_len || memcmp(d->name, item, name_len) != 0)
            continue;
        *def = d;
        if (d->kind == OPT_FLAG) {
            if (eq != NULL)
                return mct_err_set(e, MCT_E_ARG, "option '%.*s' takes no value", (int)name_len, item);
            *(int *)(void *)((char *)o + d->offset) = 1;
            return 0;
        }
        if (eq == NULL || eq + 1 == item + n)
            return mct_err_set(e, MCT_E_ARG, "option '%.*s' needs a value (%.*s=VALUE)", (int)name_len, item,
                               (int)name_len, item);
        len = decode(eq + 1, n - name_len - 1, value, e);
        if (len < 0 || (d->kind == OPT_PARSE && d->parse(value, o, e) < 0)) {
            mct_err_wrap(e, "option '%.*s'", (int)name_len, item);
            return -1;
        }
        if (d->kind == OPT_PARSE)
            return 0;
        if ((size_t)len >= d->size)
            return mct_err_set(e, MCT_E_ARG, "the value of option '%.*s' is longer than %zu bytes",
                               (int)name_len, item, d->size - 1);
        if (d->values != NULL && !allowed(d->values, value, (size_t)len))
            return mct_err_set(e, MCT_E_ARG, "option '%.*s' takes one of %s, not '%s'", (int)name_len,
                               item, d->values, value);
        memcpy((char *)o + d->offset, value, (size_t)len + 1);
        return 0;
    }
    known_names(known, sizeof known);
    return mct_err_set(e, MCT_E_ARG, "unknown option '%.*s' (known: %s)", (int)name_len, item,
                       known);
}

/* The gates' items together, as the client checks its options. */
static int check_gates(const struct agent_trace_opts *t, mct_err *e)
{
    if (t->percentile > 0 && !t->fail_over_set)
        return mct_err_set(e, MCT_E_ARG, "option 'percentile' needs fail-over-ms=MS, the limit for that "
                                         "percentile of the calls' durations");
    /* A summary carries these percentiles of a duration, no other. */
    if (t->aggregate && t->percentile > 0 && t->percentile != 50 && t->percentile != 90 && t->percentile != 99 &&
        t->percentile != 100)
        return mct_err_set(e, MCT_E_ARG, "option 'percentile' with aggregate must be 50, 90, 99 or 100 (what a "
                                         "summary carries), not %g", t->percentile);
    /* The session writes only the calls over min-ms: the gates would
     * judge a biased sample of the calls. */
    if ((t->n_max_calls > 0 || t->percentile > 0 || t->fail_over_set || t->n_budgets > 0) && t->min_ns > 0)
        return mct_err_set(e, MCT_E_ARG, "option '%s' cannot be used with min-ms: it judges every call, and "
                           "min-ms leaves the short ones out",
                           t->n_max_calls > 0 ? "max-calls" : t->percentile > 0 ? "percentile" :
                           t->fail_over_set ? "fail-over-ms" : "budget");
    return 0;
}

/* Whether the item named name was in the string (seen: per row of
 * opt_table). */
static int was_seen(const unsigned char *seen, const char *name)
{
    for (size_t i = 0; i < OPT_COUNT; i++)
        if (strcmp(opt_table[i].name, name) == 0)
            return seen[i];
    return 0;
}

/* The trace's items together: trace= needs out=, the others trace=,
 * interval= and slowest= aggregate, which min-ms= cannot go with; fills in
 * the defaults. */
static int check_trace(struct agent_opts *o, const char *trace_only, const unsigned char *seen, mct_err *e)
{
    struct agent_trace_opts *t = &o->trace;

    if (t->cls[0] == '\0') {
        if (trace_only != NULL)
            return mct_err_set(e, MCT_E_ARG, "option '%s' needs trace=CLASS.METHOD", trace_only);
        return 0;
    }
    if (t->out[0] == '\0')
        return mct_err_set(e, MCT_E_ARG, "option 'trace' needs out=FILE, the file the trace is written to");
    if (!t->aggregate && (was_seen(seen, "interval") || was_seen(seen, "slowest")))
        return mct_err_set(e, MCT_E_ARG, "option '%s' needs aggregate (summaries instead of calls)",
                           was_seen(seen, "interval") ? "interval" : "slowest");
    if (t->aggregate && was_seen(seen, "min-ms"))
        return mct_err_set(e, MCT_E_ARG, "option 'min-ms' cannot be used with aggregate: a summary covers "
                                         "every call (its p50/p90/p99 and slowest= show the slow ones)");
    if (t->regex[0] != '\0' && !proto_utf8_valid(t->regex, strlen(t->regex)))
        return mct_err_set(e, MCT_E_ARG, "option 'regex': the value is not UTF-8");
    if (check_gates(t, e) < 0)
        return -1;
    if (t->include_warmup && !t->aggregate && t->gate_used == 0 && t->percentile == 0 && !t->fail_over_set)
        return mct_err_set(e, MCT_E_ARG, "option 'include-warmup' needs aggregate or a gate (fail-over-ms, "
                                         "max-calls, budget): calls are written either way");
    if (t->depth == 0)
        t->depth = OPTS_TRACE_DEPTH;
    if (t->regex[0] == '\0')
        strcpy(t->regex, OPTS_TRACE_REGEX);
    return 0;
}

int opts_parse(const char *s, struct agent_opts *o, mct_err *e)
{
    const char *trace_only = NULL;
    unsigned char seen[OPT_COUNT] = { 0 };

    memset(o, 0, sizeof *o);
    o->trace.slowest = -1;
    if (s == NULL)
        return 0;
    while (*s != '\0') {
        size_t n = strcspn(s, ",");
        const struct opt_def *d = NULL;

        if (n == 0)
            return mct_err_set(e, MCT_E_ARG, "empty item in the options string");
        if (apply_item(s, n, o, &d, e) < 0)
            return -1;
        if (d->trace_item && trace_only == NULL)
            trace_only = d->name;
        seen[d - opt_table] = 1;
        s += n;
        if (*s == ',' && *++s == '\0')
            return mct_err_set(e, MCT_E_ARG, "empty item in the options string");
    }
    return check_trace(o, trace_only, seen, e);
}

int opts_gates(const struct agent_trace_opts *t, struct opts_gates *g, mct_err *e)
{
    size_t nm = 0, nb = 0;

    for (size_t at = 0; at < t->gate_used; at += strlen(t->gate_text + at + 1) + 2) {
        const char *v = t->gate_text + at + 1;

        if (t->gate_text[at] == 'm' ? nm == GATES_MAX || gates_parse_max_calls("", v, &g->max_calls[nm++], e) < 0
                                    : nb == GATES_MAX || gates_parse_budget("", v, &g->budgets[nb++], e) < 0)
            return mct_err_set(e, MCT_E_ARG, "the gate '%.200s' does not parse", v);
    }
    g->gates = (struct gates){
        .prefix = "", .class_name = t->cls, .method = t->method, .desc = t->desc, .max_calls = g->max_calls,
        .n_max_calls = nm, .budgets = g->budgets, .n_budgets = nb,
        .percentile = t->percentile > 0 ? t->percentile : t->fail_over_set ? 100 : 0,
        .fail_over_ms = t->fail_over_ms,
    };
    return gates_wanted(&g->gates);
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
