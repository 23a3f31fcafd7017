/* request.c — see request.h. */
#include "request.h"

#include <stdio.h>
#include <string.h>

#include "num.h"

#define REQ_ROW(m, type, key, option, sh, lo, hi, wire_lo, none, def, note, where)                             \
    { #m, type, key, option, sh, lo, hi, wire_lo, none, def, note, where, offsetof(struct mct_request, m) },

const struct req_field req_fields[REQ_ROWS] = { REQ_FIELDS(REQ_ROW) };

#undef REQ_ROW

_Static_assert(REQ_ROWS <= sizeof(unsigned long) * CHAR_BIT, "struct mct_request's given has a bit per row");

/* The member of f in r, by its type. */
#define MEMBER(r, f, type) ((type *)(void *)((char *)(r) + (f)->at))
#define CMEMBER(r, f, type) ((const type *)(const void *)((const char *)(r) + (f)->at))

/* Whether f's member holds an integer (long long): REQ_INT, REQ_MS, REQ_SEC. */
static int is_integer(const struct req_field *f)
{
    return f->type == REQ_INT || f->type == REQ_MS || f->type == REQ_SEC;
}

static int is_string(const struct req_field *f)
{
    return f->type == REQ_CLASS || f->type == REQ_METHOD || f->type == REQ_DESC || f->type == REQ_STR;
}

/* How many of the member's unit make one of what a person writes. */
static double scale(const struct req_field *f)
{
    return f->type == REQ_MS ? (double)REQ_NS_PER_MS : f->type == REQ_SEC ? 1e3 : 1;
}

/* Sets f's member to its none. */
static void set_none(const struct req_field *f, struct mct_request *r)
{
    if (is_integer(f))
        *MEMBER(r, f, long long) = f->none;
    else if (f->type == REQ_BOOL)
        *MEMBER(r, f, int) = 0;
    else if (f->type == REQ_PERCENTILE || f->type == REQ_LIMIT_MS)
        *MEMBER(r, f, double) = (double)f->none;
    else if (is_string(f))
        *MEMBER(r, f, const char *) = NULL;
    else if (f->type == REQ_MAX_CALLS)
        MEMBER(r, f, struct req_max_calls)->n = 0;
    else
        MEMBER(r, f, struct req_budgets)->n = 0;
}

void req_init(struct mct_request *r)
{
    memset(r, 0, sizeof *r);
    for (size_t i = 0; i < REQ_ROWS; i++)
        set_none(&req_fields[i], r);
}

void req_init_off_wire(struct mct_request *r)
{
    for (size_t i = 0; i < REQ_ROWS; i++)
        if (!(req_fields[i].where & REQ_SOCKET_ANY))
            set_none(&req_fields[i], r);
}

void req_startup_defaults(struct mct_request *r)
{
    for (size_t i = 0; i < REQ_ROWS; i++) {
        const struct req_field *f = &req_fields[i];

        if (req_given(r, (enum req_row)i) || f->def == f->none)
            continue;
        if (is_integer(f))
            *MEMBER(r, f, long long) = f->def;
        else if (f->type == REQ_BOOL)
            *MEMBER(r, f, int) = (int)f->def;
    }
    if (r->regex == NULL)
        r->regex = REQ_DEFAULT_REGEX;
}

const struct req_field *req_find(const char *name, size_t len, unsigned where)
{
    for (size_t i = 0; i < REQ_ROWS; i++) {
        const struct req_field *f = &req_fields[i];

        if (f->option != NULL && (f->where & where) && strlen(f->option) == len &&
            memcmp(f->option, name, len) == 0)
            return f;
    }
    return NULL;
}

int req_given(const struct mct_request *r, enum req_row row)
{
    return (r->given >> row) & 1;
}

/* ---- values a person gives ------------------------------------------------------------- */

/* What f's values must be, for messages ("an integer from 1 to 64"). */
static void describe(const struct req_field *f, enum req_form form, char *out, size_t size)
{
    switch (f->type) {
    case REQ_INT:
        if (f->min == 1 && f->max == LLONG_MAX)
            snprintf(out, size, "a positive integer");
        else
            snprintf(out, size, "an integer from %lld%s to %lld", f->min, f->note, f->max);
        return;
    case REQ_MS:
        snprintf(out, size, "a number of milliseconds >= %.15g", (double)f->min / scale(f));
        return;
    case REQ_SEC:
        if (form == REQ_FORM_AGENT)
            snprintf(out, size, "a number of seconds from %.15g to %.15g such as 10 or 0.5",
                     (double)f->min / scale(f), (double)f->max / scale(f));
        else
            snprintf(out, size, "a number of seconds of at least %.15g", (double)f->min / scale(f));
        return;
    default:
        snprintf(out, size, "a string of at most %lld bytes", f->max);
        return;
    }
}

/* The message for v, a bad value of f. */
static int bad_value(const struct req_field *f, const char *v, enum req_form form, mct_err *e)
{
    char what[128];
    const char *name = f->option != NULL ? f->option : f->member;

    describe(f, form, what, sizeof what);
    if (form == REQ_FORM_AGENT)
        return mct_err_set(e, MCT_E_ARG, "give %s, not '%.64s'", what, v);
    return mct_err_set(e, MCT_E_ARG, "%s%s must be %s, got '%.64s'", form == REQ_FORM_CLI ? "--" : "", name,
                       what, v);
}

/* A number a person wrote, in f's unit, into the member's unit. */
static int set_number(const struct req_field *f, const char *v, enum req_form form, struct mct_request *r,
                      mct_err *e)
{
    long long n;
    double d;

    if (f->type == REQ_INT) {
        if (num_int(v, f->min, f->max, &n) < 0)
            return bad_value(f, v, form, e);
    } else {
        if (num_decimal(v, (double)f->max / scale(f), &d) < 0 || d < (double)f->min / scale(f))
            return bad_value(f, v, form, e);
        n = (long long)(d * scale(f) + 0.5);
    }
    *MEMBER(r, f, long long) = n;
    return 0;
}

/* A string a person wrote (borrowed). */
static int set_string(const struct req_field *f, const char *v, enum req_form form, struct mct_request *r,
                      mct_err *e)
{
    size_t n = strlen(v);

    (void)form;
    if ((long long)n > f->max)
        return mct_err_set(e, MCT_E_ARG, "the value is longer than %lld bytes", f->max);
    if ((long long)n < f->min)
        return mct_err_set(e, MCT_E_ARG, "the value must not be empty");
    if (!proto_utf8_valid(v, n))
        return mct_err_set(e, MCT_E_ARG, "the value is not UTF-8");
    *MEMBER(r, f, const char *) = v;
    return 0;
}

/* One more gate of a list: "--max-calls: at most 64 of them". */
static int add_gate(const struct req_field *f, const char *v, enum req_form form, struct mct_request *r,
                    mct_err *e)
{
    const char *prefix = form == REQ_FORM_AGENT ? "" : "--";
    size_t *n = f->type == REQ_MAX_CALLS ? &MEMBER(r, f, struct req_max_calls)->n
                                          : &MEMBER(r, f, struct req_budgets)->n;

    if ((long long)*n == f->max)
        return form == REQ_FORM_AGENT ? mct_err_set(e, MCT_E_ARG, "at most %lld of them", f->max)
                                      : mct_err_set(e, MCT_E_ARG, "--%s: at most %lld of them", f->option, f->max);
    if (f->type == REQ_MAX_CALLS) {
        if ((f == &req_fields[REQ_ROW_max_alloc] ? gates_parse_max_alloc : gates_parse_max_calls)(
                prefix, v, &MEMBER(r, f, struct req_max_calls)->item[*n], e) < 0)
            return -1;
    } else if (gates_parse_budget(prefix, v, &MEMBER(r, f, struct req_budgets)->item[*n], e) < 0) {
        return -1;
    }
    (*n)++;
    return 0;
}

int req_set(const struct req_field *f, const char *value, enum req_form form, struct mct_request *r,
            mct_err *e)
{
    const char *prefix = form == REQ_FORM_AGENT ? "" : "--";
    int rc;

    switch (f->type) {
    case REQ_BOOL:
        *MEMBER(r, f, int) = 1;
        rc = 0;
        break;
    case REQ_INT:
    case REQ_MS:
    case REQ_SEC:
        rc = set_number(f, value, form, r, e);
        break;
    case REQ_PERCENTILE:
        rc = gates_parse_percentile(prefix, value, MEMBER(r, f, double), e);
        break;
    case REQ_LIMIT_MS:
        rc = gates_parse_ms(prefix, f->option, value, MEMBER(r, f, double), e);
        break;
    case REQ_MAX_CALLS:
    case REQ_BUDGETS:
        rc = add_gate(f, value, form, r, e);
        break;
    default:
        rc = set_string(f, value, form, r, e);
        break;
    }
    if (rc == 0)
        r->given |= 1UL << (f - req_fields);
    return rc;
}

const char *req_desc(const struct mct_request *r)
{
    return r->desc != NULL ? r->desc : "";
}

/* ---- the fields together ---------------------------------------------------------------- */

/* How a message names row's option: --NAME, or option 'NAME'. */
static const char *named(enum req_row row, enum req_form form, char *out, size_t size)
{
    snprintf(out, size, form == REQ_FORM_AGENT ? "option '%s'" : "--%s", req_fields[row].option);
    return out;
}

/* How a message refers to row's option as given: --NAME or NAME when
 * placeholder is NULL, else with the value's placeholder: --NAME PH or
 * NAME=PH ("" gives --NAME or NAME=). */
static const char *ref(enum req_row row, const char *placeholder, enum req_form form, char *out, size_t size)
{
    const char *name = req_fields[row].option;

    if (placeholder == NULL)
        snprintf(out, size, "%s%s", form == REQ_FORM_AGENT ? "" : "--", name);
    else if (form == REQ_FORM_AGENT)
        snprintf(out, size, "%s=%s", name, placeholder);
    else
        snprintf(out, size, "--%s%s%s", name, *placeholder != '\0' ? " " : "", placeholder);
    return out;
}

int req_trace_context_split(const char *src, size_t *cls_len, const char **field)
{
    const char *dot = strrchr(src, '.');

    if (dot == NULL || dot == src || dot[1] == '\0' || dot[-1] == '.' || src[0] == '.' ||
        strpbrk(src, "/;[<>, ") != NULL)
        return -1;
    *cls_len = (size_t)(dot - src);
    *field = dot + 1;
    return 0;
}

int req_check(const struct mct_request *r, enum req_form form, mct_err *e)
{
    const int agent = form == REQ_FORM_AGENT;
    /* The client judges --fail-over-ms over the calls it prints; the
     * agent's fail-over-ms= is a gate over every call, as the others are. */
    const int fail_over = req_given(r, REQ_ROW_fail_over_ms), max_calls = req_given(r, REQ_ROW_max_calls),
              percentile = req_given(r, REQ_ROW_percentile), budget = req_given(r, REQ_ROW_budgets),
              max_alloc = req_given(r, REQ_ROW_max_alloc);
    const int gate = max_calls || percentile || budget || max_alloc || (agent && fail_over);
    char a[64], b[64], c[64], d[64], g[64];

    if (percentile && !fail_over)
        return mct_err_set(e, MCT_E_ARG, "%s needs %s, the limit for that percentile of the calls' durations",
                           named(REQ_ROW_percentile, form, a, sizeof a), ref(REQ_ROW_fail_over_ms, "MS", form, b,
                                                                             sizeof b));
    /* Only the calls over min-ms are sent: the gates would judge a biased
     * sample of the calls. */
    if (gate && r->min_ns > 0)
        return mct_err_set(e, MCT_E_ARG, "%s cannot be used with %s: it judges every call, and %s leaves the short "
                           "ones out",
                           named(max_calls ? REQ_ROW_max_calls : percentile ? REQ_ROW_percentile :
                                 budget ? REQ_ROW_budgets : max_alloc ? REQ_ROW_max_alloc : REQ_ROW_fail_over_ms,
                                 form, a, sizeof a),
                           ref(REQ_ROW_min_ns, NULL, form, b, sizeof b), ref(REQ_ROW_min_ns, NULL, form, c, sizeof c));
    /* Calls are sent whatever they are; only what counts them can leave
     * warm-up calls out. */
    if (r->include_warmup && !r->aggregate && !gate && !fail_over)
        return mct_err_set(e, MCT_E_ARG, "%s needs %s or a gate (%s, %s, %s): calls are %s",
                           named(REQ_ROW_include_warmup, form, a, sizeof a),
                           ref(REQ_ROW_aggregate, NULL, form, b, sizeof b), ref(REQ_ROW_fail_over_ms, NULL, form, c, sizeof c),
                           ref(REQ_ROW_max_calls, NULL, form, d, sizeof d), ref(REQ_ROW_budgets, NULL, form, g, sizeof g),
                           agent ? "written either way" : "printed either way, warm-up ones marked \"warmup\":true");
    if (req_given(r, REQ_ROW_min_calls) && !percentile && !budget)
        return mct_err_set(e, MCT_E_ARG, "%s needs %s or %s: it says how many calls are enough to judge a "
                           "percentile of their durations", named(REQ_ROW_min_calls, form, a, sizeof a),
                           ref(REQ_ROW_percentile, NULL, form, b, sizeof b), ref(REQ_ROW_budgets, NULL, form, c, sizeof c));
    if (!r->aggregate && (req_given(r, REQ_ROW_interval_ms) || req_given(r, REQ_ROW_slowest))) {
        enum req_row row = req_given(r, REQ_ROW_interval_ms) ? REQ_ROW_interval_ms : REQ_ROW_slowest;

        return mct_err_set(e, MCT_E_ARG, "%s needs %s (%s)", named(row, form, a, sizeof a),
                           ref(REQ_ROW_aggregate, NULL, form, b, sizeof b),
                           agent ? "summaries instead of calls" :
                           row == REQ_ROW_interval_ms ? "it says how often a summary is written" :
                           "it keeps slow calls in the summaries");
    }
    if (req_given(r, REQ_ROW_async_wait_ms) && !r->follow_async)
        return mct_err_set(e, MCT_E_ARG, "%s needs %s: it says how long a call waits for the tasks it handed "
                           "to other threads", named(REQ_ROW_async_wait_ms, form, a, sizeof a),
                           ref(REQ_ROW_follow_async, NULL, form, b, sizeof b));
    /* The gates on CPU times and allocations judge what the calls carry. */
    for (size_t i = 0; i < r->budgets.n && !r->cpu; i++)
        if (gates_stat_cpu(r->budgets.item[i].stat))
            return mct_err_set(e, MCT_E_ARG, "%s %s needs %s: without it the calls carry no CPU times",
                               ref(REQ_ROW_budgets, NULL, form, a, sizeof a), r->budgets.item[i].arg,
                               ref(REQ_ROW_cpu, NULL, form, b, sizeof b));
    if (max_alloc && !r->alloc)
        return mct_err_set(e, MCT_E_ARG, "%s %s needs %s: without it the calls carry no allocations",
                           ref(REQ_ROW_max_alloc, NULL, form, a, sizeof a), r->max_alloc.item[0].arg,
                           ref(REQ_ROW_alloc, NULL, form, b, sizeof b));
    /* Whether a method is trivial is known only as its class is
     * instrumented: one a gate names might not be traced. */
    if (r->skip_trivial && (max_calls || budget || max_alloc))
        return mct_err_set(e, MCT_E_ARG, "%s cannot be used with %s: a method a gate names must be traced, and "
                           "whether it is trivial is known only as its class is instrumented",
                           named(REQ_ROW_skip_trivial, form, a, sizeof a),
                           ref(max_calls ? REQ_ROW_max_calls : budget ? REQ_ROW_budgets : REQ_ROW_max_alloc, NULL,
                               form, b, sizeof b));
    if (req_given(r, REQ_ROW_args_len) && !r->args)
        return mct_err_set(e, MCT_E_ARG, "%s needs %s: it says how many characters of a String argument are kept",
                           named(REQ_ROW_args_len, form, a, sizeof a), ref(REQ_ROW_args, NULL, form, b, sizeof b));
    if (r->trace_context != NULL) {
        size_t n;
        const char *f;

        if (strcmp(r->trace_context, REQ_TRACE_CONTEXT_OTEL) != 0 && req_trace_context_split(r->trace_context, &n, &f) < 0)
            return mct_err_set(e, MCT_E_ARG, "%s must be CLASS.FIELD (a static ThreadLocal field, e.g. "
                               "com.shop.Trace.CURRENT) or '%s', got '%s'",
                               named(REQ_ROW_trace_context, form, a, sizeof a), REQ_TRACE_CONTEXT_OTEL, r->trace_context);
        /* Summaries hold no call's trace. */
        if (r->aggregate)
            return mct_err_set(e, MCT_E_ARG, "%s cannot be used with %s: a summary's calls join no trace",
                               named(REQ_ROW_trace_context, form, a, sizeof a),
                               ref(REQ_ROW_aggregate, NULL, form, b, sizeof b));
    }
    if (!r->aggregate)
        return 0;
    if (req_given(r, REQ_ROW_min_ns))
        return mct_err_set(e, MCT_E_ARG, "%s cannot be used with %s: a summary covers every call (its p50/p90/p99 "
                           "and %s show the slow ones)", named(REQ_ROW_min_ns, form, a, sizeof a),
                           ref(REQ_ROW_aggregate, NULL, form, b, sizeof b), ref(REQ_ROW_slowest, "", form, c, sizeof c));
    /* A summary carries these percentiles of a duration, no other. */
    if (percentile && !gates_percentile_in_summary(r->percentile))
        return agent ? mct_err_set(e, MCT_E_ARG, "option 'percentile' with aggregate must be 50, 90, 99 or 100 (what "
                                   "a summary carries), not %g", r->percentile)
                     : mct_err_set(e, MCT_E_ARG, "--percentile %g cannot be used with --aggregate: a summary carries "
                                   "p50, p90, p99 and the maximum (use 50, 90, 99 or 100, or trace without "
                                   "--aggregate)", r->percentile);
    return 0;
}

/* ---- the option string ------------------------------------------------------------------- */

static void encode(const char *s, mct_buf *b)
{
    static const char hex[] = "0123456789ABCDEF";

    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        if (*p <= ' ' || *p >= 0x7f || strchr(",%=\"'\\", *p) != NULL) {
            buf_ch(b, '%');
            buf_ch(b, hex[*p >> 4]);
            buf_ch(b, hex[*p & 15]);
        } else {
            buf_ch(b, (char)*p);
        }
    }
}

/* A decimal without trailing zeros (the agent reads plain decimals, no
 * exponent). */
static void decimal(double v, mct_buf *b)
{
    char num[64];
    char *end;

    snprintf(num, sizeof num, "%.6f", v);
    end = num + strlen(num) - 1;
    while (*end == '0')
        *end-- = '\0';
    if (*end == '.')
        *end = '\0';
    buf_str(b, num);
}

/* ",name" or ",name=" and the value of f's member, unless it is none. */
static void write_item(const struct req_field *f, const struct mct_request *r, mct_buf *b)
{
    if (f->type == REQ_BOOL) {
        if (*CMEMBER(r, f, int))
            buf_printf(b, ",%s", f->option);
    } else if (is_integer(f)) {
        long long n = *CMEMBER(r, f, long long);

        if (n == f->none)
            return;
        buf_printf(b, ",%s=", f->option);
        if (f->type == REQ_INT)
            buf_printf(b, "%lld", n);
        else
            decimal((double)n / scale(f), b);
    } else if (f->type == REQ_PERCENTILE || f->type == REQ_LIMIT_MS) {
        double d = *CMEMBER(r, f, double);

        if (d == (double)f->none)
            return;
        buf_printf(b, ",%s=", f->option);
        decimal(d, b);
    } else if (is_string(f)) {
        const char *s = *CMEMBER(r, f, const char *);

        if (s == NULL)
            return;
        buf_printf(b, ",%s=", f->option);
        encode(s, b);
    } else {
        const struct req_max_calls *m = CMEMBER(r, f, struct req_max_calls);
        const struct req_budgets *g = CMEMBER(r, f, struct req_budgets);
        size_t n = f->type == REQ_MAX_CALLS ? m->n : g->n;

        for (size_t i = 0; i < n; i++) {
            buf_printf(b, ",%s=", f->option);
            encode(f->type == REQ_MAX_CALLS ? m->item[i].arg : g->item[i].arg, b);
        }
    }
}

void req_optstr_write(const struct mct_request *r, int gates, mct_buf *b)
{
    buf_str(b, "trace=");
    encode(r->cls, b);
    buf_ch(b, '.');
    encode(r->method, b);
    if (r->desc != NULL)
        encode(r->desc, b);
    for (size_t i = 0; i < REQ_ROWS; i++) {
        const struct req_field *f = &req_fields[i];
        /* What only the gates read stays with whoever judges them;
         * include-warmup also shapes a summary, so it goes with aggregate. */
        int gate = f->type == REQ_PERCENTILE || f->type == REQ_LIMIT_MS || f->type == REQ_MAX_CALLS ||
                   f->type == REQ_BUDGETS || i == REQ_ROW_min_calls || (i == REQ_ROW_include_warmup && !r->aggregate);

        if ((f->where & (REQ_AGENT | REQ_AGENT_WIDE)) && (gates || !gate))
            write_item(f, r, b);
    }
}

/* ---- moving a request with its text ------------------------------------------------------- */

static void rebase(const char **p, const char *from, size_t len, const char *to)
{
    if (*p != NULL && *p >= from && *p < from + len)
        *p = to + (*p - from);
}

static void rebase_name(struct gates_name *n, const char *from, size_t len, const char *to)
{
    rebase(&n->class_name, from, len, to);
    rebase(&n->method, from, len, to);
    rebase(&n->desc, from, len, to);
}

void req_rebase(struct mct_request *r, const char *from, size_t len, const char *to)
{
    for (size_t i = 0; i < REQ_ROWS; i++) {
        const struct req_field *f = &req_fields[i];

        if (is_string(f)) {
            rebase(MEMBER(r, f, const char *), from, len, to);
        } else if (f->type == REQ_MAX_CALLS) {
            struct req_max_calls *m = MEMBER(r, f, struct req_max_calls);

            for (size_t k = 0; k < m->n; k++) {
                rebase(&m->item[k].arg, from, len, to);
                rebase_name(&m->item[k].name, from, len, to);
            }
        } else if (f->type == REQ_BUDGETS) {
            struct req_budgets *g = MEMBER(r, f, struct req_budgets);

            for (size_t k = 0; k < g->n; k++) {
                rebase(&g->item[k].arg, from, len, to);
                rebase_name(&g->item[k].name, from, len, to);
            }
        }
    }
}
