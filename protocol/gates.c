/* gates.c — see gates.h. */
#include "gates.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"
#include "proto.h"

/* The name of each statistic a budget limits. */
static const char *const stat_names[] = {
    [GATES_STAT_P50] = "p50", [GATES_STAT_P90] = "p90", [GATES_STAT_P99] = "p99", [GATES_STAT_MAX] = "max",
    [GATES_STAT_CPU_P50] = "cpu_p50", [GATES_STAT_CPU_P90] = "cpu_p90", [GATES_STAT_CPU_P99] = "cpu_p99",
    [GATES_STAT_CPU_MAX] = "cpu_max"
};

int gates_stat_cpu(enum gates_stat s)
{
    return s >= GATES_STAT_CPU_P50;
}

/* A figure as the summary's JSON says it: at most INT64_MAX. */
static unsigned long long clamp(uint64_t v)
{
    return v > INT64_MAX ? (unsigned long long)INT64_MAX : (unsigned long long)v;
}

/* Statistic s of the node that v shows (0 when it does not carry it). */
static unsigned long long stat_value(enum gates_stat s, const struct sum_view *v)
{
    const int cpu = (v->xflags & sum_xkeys[SUM_X_CPU].flag) != 0;

    switch (s) {
    case GATES_STAT_P50: return clamp(v->p50_ns);
    case GATES_STAT_P90: return clamp(v->p90_ns);
    case GATES_STAT_P99: return clamp(v->p99_ns);
    case GATES_STAT_MAX: return clamp(v->entry_max_ns);
    case GATES_STAT_CPU_P50: return cpu ? clamp(v->x[SUM_X_CPU].p50) : 0;
    case GATES_STAT_CPU_P90: return cpu ? clamp(v->x[SUM_X_CPU].p90) : 0;
    case GATES_STAT_CPU_P99: return cpu ? clamp(v->x[SUM_X_CPU].p99) : 0;
    default: return cpu ? clamp(v->x[SUM_X_CPU].entry_max) : 0;
    }
}

/* Parses the method name of a gate, s[0..len): CLASS.METHOD or
 * CLASS.METHOD(DESC)RET, into *n (pointing into s). opt names the option. */
static int parse_name(const char *s, size_t len, const char *prefix, const char *opt, struct gates_name *n,
                      mct_err *e)
{
    const char *paren = memchr(s, '(', len);
    size_t head = paren != NULL ? (size_t)(paren - s) : len;
    const char *dot = NULL;
    char buf[2 * GATES_NAME_MAX + 2];

    for (size_t i = 0; i < head; i++)
        if (s[i] == '.')
            dot = s + i;
    if (len > sizeof buf - 1 || !proto_utf8_valid(s, len))
        return mct_err_set(e, MCT_E_ARG, "%s%s: the method name is longer than %d bytes or not UTF-8", prefix, opt,
                           2 * GATES_NAME_MAX);
    if (dot == NULL || dot == s)
        return mct_err_set(e, MCT_E_ARG, "%s%s: '%.*s' is not CLASS.METHOD (a binary class name with dots, a "
                           "dot, a method name: com.shop.Repo.find)", prefix, opt, (int)len, s);
    n->class_name = s;
    n->class_len = (size_t)(dot - s);
    n->method = dot + 1;
    n->method_len = head - n->class_len - 1;
    n->desc = paren;
    n->desc_len = paren != NULL ? len - head : 0;
    memcpy(buf, s, n->class_len);
    buf[n->class_len] = '\0';
    if (!proto_class_name_valid(buf))
        return mct_err_set(e, MCT_E_ARG, "%s%s: '%s' is not a binary class name such as com.shop.Cart$Line",
                           prefix, opt, buf);
    memcpy(buf, n->method, n->method_len);
    buf[n->method_len] = '\0';
    if (!proto_method_name_valid(buf))
        return mct_err_set(e, MCT_E_ARG, "%s%s: '%s' is not a method name", prefix, opt, buf);
    if (paren != NULL) {
        memcpy(buf, paren, n->desc_len);
        buf[n->desc_len] = '\0';
        if (!proto_method_desc_valid(buf))
            return mct_err_set(e, MCT_E_ARG, "%s%s: '%s' is not a JVM method descriptor such as (J)V", prefix,
                               opt, buf);
    }
    return 0;
}

/* Parses a gate opt CLASS.METHOD=N (N an integer >= 0 of what, in one
 * entry call; example its text) into *out. */
static int parse_count(const char *prefix, const char *opt, const char *n_name, const char *what,
                       const char *example, const char *arg, struct gates_max_calls *out, mct_err *e)
{
    const char *eq = strrchr(arg, '=');

    if (eq == NULL)
        return mct_err_set(e, MCT_E_ARG, "%s%s takes CLASS.METHOD=%s (%s), got '%.200s'", prefix, opt, n_name,
                           example, arg);
    if (parse_name(arg, (size_t)(eq - arg), prefix, opt, &out->name, e) < 0)
        return -1;
    if (num_int(eq + 1, 0, LLONG_MAX, &out->n) < 0)
        return mct_err_set(e, MCT_E_ARG, "%s%s %.200s: %s must be an integer >= 0 (%s in one entry "
                           "call), got '%.64s'", prefix, opt, arg, n_name, what, eq + 1);
    out->arg = arg;
    return 0;
}

int gates_parse_max_calls(const char *prefix, const char *arg, struct gates_max_calls *out, mct_err *e)
{
    return parse_count(prefix, "max-calls", "N", "calls", "com.shop.Repo.find=1", arg, out, e);
}

int gates_parse_max_alloc(const char *prefix, const char *arg, struct gates_max_calls *out, mct_err *e)
{
    return parse_count(prefix, "max-alloc", "BYTES", "bytes allocated", "com.shop.Cart.total=65536", arg, out, e);
}

int gates_parse_budget(const char *prefix, const char *arg, struct gates_budget *out, mct_err *e)
{
    const char *eq = strrchr(arg, '='), *colon = NULL;
    size_t i, n = sizeof stat_names / sizeof stat_names[0];

    for (const char *p = arg; eq != NULL && p < eq; p++)
        if (*p == ':')
            colon = p;
    if (eq == NULL || colon == NULL)
        return mct_err_set(e, MCT_E_ARG, "%sbudget takes CLASS.METHOD:STAT=MS (com.shop.Repo.find:p99=20), "
                           "got '%.200s'", prefix, arg);
    if (parse_name(arg, (size_t)(colon - arg), prefix, "budget", &out->name, e) < 0)
        return -1;
    for (i = 0; i < n; i++)
        if ((size_t)(eq - colon - 1) == strlen(stat_names[i]) &&
            strncmp(colon + 1, stat_names[i], strlen(stat_names[i])) == 0)
            break;
    if (i == n)
        return mct_err_set(e, MCT_E_ARG, "%sbudget %.200s: '%.*s' is not p50, p90, p99 or max, nor (with "
                           "%scpu) cpu_p50, cpu_p90, cpu_p99 or cpu_max", prefix, arg,
                           (int)(eq - colon - 1 > 64 ? 64 : eq - colon - 1), colon + 1, prefix);
    out->stat = (enum gates_stat)i;
    if (num_decimal(eq + 1, NUM_DECIMAL_MAX, &out->ms) < 0)
        return mct_err_set(e, MCT_E_ARG, "%sbudget %.200s: the budget must be a number of milliseconds >= 0, "
                           "got '%.64s'", prefix, arg, eq + 1);
    out->arg = arg;
    return 0;
}

int gates_parse_percentile(const char *prefix, const char *arg, double *out, mct_err *e)
{
    if (num_decimal(arg, NUM_DECIMAL_MAX, out) < 0 || *out <= 0 || *out > 100)
        return mct_err_set(e, MCT_E_ARG, "%spercentile must be a number over 0 and at most 100, got '%.64s'",
                           prefix, arg);
    return 0;
}

int gates_parse_ms(const char *prefix, const char *name, const char *arg, double *out, mct_err *e)
{
    if (num_decimal(arg, NUM_DECIMAL_MAX, out) < 0)
        return mct_err_set(e, MCT_E_ARG, "%s%s must be a number of milliseconds >= 0, got '%.64s'", prefix, name,
                           arg);
    return 0;
}

/* ---- judging ------------------------------------------------------------------ */

int gates_wanted(const struct gates *g)
{
    return g->n_max_calls > 0 || g->n_budgets > 0 || g->n_max_alloc > 0 || g->percentile > 0;
}

int gates_name_matches(const struct gates_name *n, const char *cls, const char *method, const char *desc)
{
    if (cls == NULL || method == NULL)
        return 0;
    if (strlen(cls) != n->class_len || strncmp(cls, n->class_name, n->class_len) != 0 ||
        strlen(method) != n->method_len || strncmp(method, n->method, n->method_len) != 0)
        return 0;
    return n->desc_len == 0 ||
           (desc != NULL && strlen(desc) == n->desc_len && strncmp(desc, n->desc, n->desc_len) == 0);
}

int gates_percentile_in_summary(double p)
{
    return p == 50 || p == 90 || p == 99 || p == 100;
}

/* Appends one message to failures; -1 with e set when out of memory. */
__attribute__((format(printf, 3, 4))) static int say(json_t *failures, mct_err *e, const char *fmt, ...)
{
    char line[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* The names come from the JVM: keep the message valid UTF-8 for JSON. */
    proto_utf8_sanitize(line);
    if (json_array_append_new(failures, json_string(line)) < 0)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory for the gates' messages");
    return 0;
}

/* The max-calls gates over the summary's methods: 1 failed, 0, -1. */
static int judge_max_calls(const struct gates *g, const sum *summary, json_t *failures, mct_err *e)
{
    int failed = 0;

    for (size_t i = 0; i < g->n_max_calls; i++) {
        const struct gates_max_calls *m = &g->max_calls[i];

        for (size_t j = 0; j < sum_method_count(summary); j++) {
            const char *cls, *method, *desc;
            uint64_t calls, most, entries;

            sum_method_names(summary, j, &cls, &method, &desc);
            sum_method_counts(summary, j, &calls, &most, &entries);
            if (!gates_name_matches(&m->name, cls, method, desc) || clamp(most) <= (unsigned long long)m->n)
                continue;
            if (say(failures, e, "%smax-calls %s: %s.%s%s was called %llu times in one entry call, over the "
                    "limit of %lld", g->prefix, m->arg, cls, method, desc, clamp(most), m->n) < 0)
                return -1;
            failed = 1;
        }
    }
    return failed;
}

/* The P-th percentile of the entry calls' durations: from the calls'
 * histogram when there is one, else the largest over the summary's roots;
 * -1 with e set when the summary does not carry it. */
static int entry_percentile(const struct gates *g, const sum *summary, const struct sum_hist *h,
                            unsigned long long *ns, mct_err *e)
{
    static const enum gates_stat stats[] = { GATES_STAT_P50, GATES_STAT_P90, GATES_STAT_P99, GATES_STAT_MAX };
    static const double ps[] = { 50, 90, 99, 100 };
    size_t k = sizeof ps / sizeof ps[0];

    if (h != NULL) {
        *ns = sum_hist_quantile(h, g->percentile / 100);
        return 0;
    }
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        if (g->percentile == ps[i])
            k = i;
    if (k == sizeof ps / sizeof ps[0])
        return mct_err_set(e, MCT_E_ARG, "%spercentile %g: a summary carries the percentiles 50, 90, 99 and 100 "
                           "of the entry method's duration, not %g", g->prefix, g->percentile, g->percentile);
    *ns = 0;
    for (const sum_node *r = sum_root(summary); r != NULL; r = sum_node_next(r)) {
        struct sum_view v;

        sum_node_view(summary, r, &v);
        if (stat_value(stats[k], &v) > *ns)
            *ns = stat_value(stats[k], &v);
    }
    return 0;
}

/* The path of names down to a node, "A.run(Z)J > B.step(I)J", in a buffer. */
struct path {
    char buf[4096];
    size_t len;
};

/* The budgets over node and its subtree: -1 when out of memory, else 0
 * with *failed set when one failed. */
static int walk_budgets(const struct gates *g, const sum *summary, const sum_node *node, struct path *p,
                        json_t *failures, int *failed, mct_err *e)
{
    struct sum_view v;
    size_t mark = p->len;
    int w, rc = 0;

    sum_node_view(summary, node, &v);
    w = snprintf(p->buf + p->len, sizeof p->buf - p->len, "%s%s.%s%s", mark > 0 ? " > " : "", v.class_name,
                 v.method, v.desc);
    p->len = w < 0 || (size_t)w >= sizeof p->buf - p->len ? sizeof p->buf - 1 : p->len + (size_t)w;
    for (size_t i = 0; i < g->n_budgets && rc == 0; i++) {
        const struct gates_budget *b = &g->budgets[i];
        unsigned long long x = stat_value(b->stat, &v);

        if (!gates_name_matches(&b->name, v.class_name, v.method, v.desc) || (double)x <= b->ms * 1e6)
            continue;
        rc = say(failures, e, "%sbudget %s: %s: %s %.3f ms within one entry call, over the budget of %g ms",
                 g->prefix, b->arg, p->buf, stat_names[b->stat], (double)x / 1e6, b->ms);
        *failed = 1;
    }
    for (size_t i = 0; i < g->n_max_alloc && rc == 0; i++) {
        const struct gates_max_calls *m = &g->max_alloc[i];
        unsigned long long x = v.xflags & sum_xkeys[SUM_X_ALLOC].flag ? clamp(v.x[SUM_X_ALLOC].entry_max) : 0;

        if (!gates_name_matches(&m->name, v.class_name, v.method, v.desc) || x <= (unsigned long long)m->n)
            continue;
        rc = say(failures, e, "%smax-alloc %s: %s: %llu bytes allocated within one entry call, over the limit of "
                 "%lld", g->prefix, m->arg, p->buf, x, m->n);
        *failed = 1;
    }
    for (const sum_node *k = sum_node_kid(node); k != NULL && rc == 0; k = sum_node_next(k))
        rc = walk_budgets(g, summary, k, p, failures, failed, e);
    p->len = mark;
    p->buf[mark] = '\0';
    return rc;
}

long long gates_calls_needed(const struct gates *g, double p)
{
    if (g->min_calls > 0)
        return g->min_calls;
    double x = p >= 100 ? 1 : 100 / (100 - p);
    long long n = (long long)x;

    /* Fewer calls than that: the percentile is the slowest call. */
    return n + (x - (double)n > 1e-9);
}

/* A timing gate (what, at percentile p) over calls entry calls, too few
 * for it: said, and a failure; 0 when enough, 1 when failed, -1 when out
 * of memory. */
static int too_few(const struct gates *g, const char *what, double p, unsigned long long calls, json_t *failures,
                   mct_err *e)
{
    long long need = gates_calls_needed(g, p);

    if (calls >= (unsigned long long)need)
        return 0;
    if (g->min_calls > 0)
        return say(failures, e, "%s: %llu calls of %s.%s%s were judged, under %smin-calls %lld", what, calls,
                   g->class_name, g->method, g->desc, g->prefix, g->min_calls) < 0 ? -1 : 1;
    return say(failures, e, "%s: %llu calls of %s.%s%s are too few to tell their %g-th percentile (it takes at "
               "least %lld; %smin-calls N says how many are enough)", what, calls, g->class_name, g->method, g->desc,
               p, need, g->prefix) < 0 ? -1 : 1;
}

/* The percentile of a budget's statistic; 0 for max (any number of calls). */
static double stat_percentile(enum gates_stat s)
{
    return s == GATES_STAT_P50 || s == GATES_STAT_CPU_P50 ? 50 : s == GATES_STAT_P90 || s == GATES_STAT_CPU_P90 ? 90 :
           s == GATES_STAT_P99 || s == GATES_STAT_CPU_P99 ? 99 : 0;
}

/* -1 with e set when a gate of g judges a figure (CPU time, allocations)
 * that the summary's nodes (as v, its root, shows them) do not carry; else 0. */
static int lacks_figures(const struct gates *g, const struct sum_view *v, mct_err *e)
{
    for (size_t i = 0; i < g->n_budgets; i++)
        if (gates_stat_cpu(g->budgets[i].stat) && !(v->xflags & sum_xkeys[SUM_X_CPU].flag))
            return mct_err_set(e, MCT_E_ARG, "%sbudget %s: the calls carry no CPU times (trace with %scpu)",
                               g->prefix, g->budgets[i].arg, g->prefix);
    if (g->n_max_alloc > 0 && !(v->xflags & sum_xkeys[SUM_X_ALLOC].flag))
        return mct_err_set(e, MCT_E_ARG, "%smax-alloc %s: the calls carry no allocations (trace with %salloc)",
                           g->prefix, g->max_alloc[0].arg, g->prefix);
    return 0;
}

int gates_judge(const struct gates *g, const sum *summary, const struct sum_hist *entry, json_t *failures,
                mct_err *e)
{
    unsigned long long calls = clamp(sum_calls(summary)), ns = 0;
    const sum_node *root = sum_root(summary);
    struct sum_view rv;
    char what[GATES_NAME_MAX + 64];
    int failed, rc;

    if (calls == 0 || root == NULL)
        return say(failures, e, "the gates have no call of %s.%s%s to judge", g->class_name, g->method, g->desc) < 0
                   ? -1 : 1;
    if ((failed = judge_max_calls(g, summary, failures, e)) < 0)
        return -1;
    if (g->percentile > 0) {
        if (entry_percentile(g, summary, entry, &ns, e) < 0)
            return -1;
        if ((double)ns > g->fail_over_ms * 1e6) {
            if (say(failures, e, "%spercentile %g: the %g-th percentile of the %llu calls of %s.%s%s is %.3f ms, "
                    "over %sfail-over-ms %g", g->prefix, g->percentile, g->percentile, calls, g->class_name,
                    g->method, g->desc, (double)ns / 1e6, g->prefix, g->fail_over_ms) < 0)
                return -1;
            failed = 1;
        }
        snprintf(what, sizeof what, "%spercentile %g", g->prefix, g->percentile);
        if ((rc = too_few(g, what, g->percentile, calls, failures, e)) < 0)
            return -1;
        failed |= rc;
    }
    sum_node_view(summary, root, &rv);
    if (lacks_figures(g, &rv, e) < 0)
        return -1;
    for (size_t i = 0; i < g->n_budgets; i++) {
        double p = stat_percentile(g->budgets[i].stat);

        snprintf(what, sizeof what, "%sbudget %s", g->prefix, g->budgets[i].arg);
        if (p > 0 && (rc = too_few(g, what, p, calls, failures, e)) < 0)
            return -1;
        failed |= p > 0 && rc;
    }
    if (g->n_budgets > 0 || g->n_max_alloc > 0) {
        struct path p = { .len = 0 };

        for (const sum_node *r = root; r != NULL; r = sum_node_next(r))
            if (walk_budgets(g, summary, r, &p, failures, &failed, e) < 0)
                return -1;
    }
    return failed;
}

/* ---- a tally of calls --------------------------------------------------------------- */

struct gates_tally {
    sum *all;               /* every call: what the call-count gates judge */
    sum *timed;             /* the calls the timing gates judge (warm-up ones left out) */
    struct sum_hist entry;  /* their durations (the root's total_ns), for any percentile */
};

gates_tally *gates_tally_new(mct_err *e)
{
    gates_tally *t = calloc(1, sizeof *t);

    if (t == NULL) {
        mct_err_set(e, MCT_E_NOMEM, "out of memory for the gates");
        return NULL;
    }
    if ((t->all = sum_new(0, e)) == NULL || (t->timed = sum_new(0, e)) == NULL) {
        sum_free(t->all);
        free(t);
        return NULL;
    }
    sum_hist_init(&t->entry);
    return t;
}

void gates_tally_free(gates_tally *t)
{
    if (t == NULL)
        return;
    sum_free(t->all);
    sum_free(t->timed);
    sum_hist_reset(&t->entry);
    free(t);
}

int gates_tally_add(gates_tally *t, const call_tab *tab, const mct_call *c, int timed, mct_err *e)
{
    if (sum_add_call(t->all, tab, c, e) < 0)
        return -1;
    if (!timed)
        return 0;
    if (sum_add_call(t->timed, tab, c, e) < 0)
        return -1;
    return sum_hist_record(&t->entry, c->nodes[0].total_ns, e);
}

/* Judges the gates of view over the calls of s (with their histogram h, or
 * NULL): as gates_judge. */
static int judge_sum(const struct gates *view, const sum *s, const struct sum_hist *h, json_t *failures, mct_err *e)
{
    return gates_judge(view, s, h != NULL && h->count > 0 ? h : NULL, failures, e);
}

int gates_tally_judge(const gates_tally *t, const struct gates *g, json_t *failures, mct_err *e)
{
    struct gates counts = *g, timing = *g;
    int rc = 0, r;

    /* No call at all: said once, whatever the gates. */
    if (sum_calls(t->all) == 0)
        return judge_sum(g, t->all, NULL, failures, e);
    counts.percentile = 0;
    counts.n_budgets = 0;
    counts.n_max_alloc = 0;
    timing.n_max_calls = 0;
    if (counts.n_max_calls > 0 && (rc = judge_sum(&counts, t->all, NULL, failures, e)) < 0)
        return -1;
    if ((timing.percentile > 0 || timing.n_budgets > 0 || timing.n_max_alloc > 0) &&
        (r = judge_sum(&timing, t->timed, &t->entry, failures, e)) != 0)
        rc = r < 0 ? -1 : 1;
    return rc;
}
