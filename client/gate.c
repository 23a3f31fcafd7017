/* gate.c — see gate.h. */
#include "gate.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fmtutil.h"
#include "summary.h"

struct gate {
    const struct cli *c;
    sum *sum;               /* the calls received, per-call mode */
    struct sum_hist entry;  /* their durations (the root's total_ns), for any --percentile */
};

/* The summary's key of each statistic a --budget limits. */
static const char *const stat_keys[] = {
    [CLI_STAT_P50] = "p50_ns", [CLI_STAT_P90] = "p90_ns", [CLI_STAT_P99] = "p99_ns",
    [CLI_STAT_MAX] = "entry_max_ns"
};
static const char *const stat_names[] = {
    [CLI_STAT_P50] = "p50", [CLI_STAT_P90] = "p90", [CLI_STAT_P99] = "p99", [CLI_STAT_MAX] = "max"
};

/* One line on err as log.h writes them: prefixed, control characters of
 * the JVM's names replaced. */
__attribute__((format(printf, 2, 3))) static void say(FILE *err, const char *fmt, ...)
{
    char line[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fu_clean(line);
    fprintf(err, "mcalltree: %s\n", line);
}

int gate_wanted(const struct cli *c)
{
    return c->n_max_calls > 0 || c->n_budgets > 0 || c->percentile > 0;
}

int gate_percentile_in_summary(double p)
{
    return p == 50 || p == 90 || p == 99 || p == 100;
}

gate *gate_new(const struct cli *c, mct_err *e)
{
    gate *g = calloc(1, sizeof *g);

    if (g == NULL || (g->sum = sum_new(0, e)) == NULL) {
        free(g);
        if (g == NULL)
            mct_err_set(e, MCT_E_NOMEM, "out of memory for the gates");
        return NULL;
    }
    g->c = c;
    sum_hist_init(&g->entry);
    return g;
}

void gate_free(gate *g)
{
    if (g == NULL)
        return;
    sum_free(g->sum);
    sum_hist_reset(&g->entry);
    free(g);
}

/* Whether the method (cls, method, desc) is the one n names. */
static int name_matches(const struct cli_method_name *n, const char *cls, const char *method, const char *desc)
{
    if (cls == NULL || method == NULL)
        return 0;
    if (strlen(cls) != n->class_len || strncmp(cls, n->class_name, n->class_len) != 0 ||
        strlen(method) != n->method_len || strncmp(method, n->method, n->method_len) != 0)
        return 0;
    return n->desc_len == 0 ||
           (desc != NULL && strlen(desc) == n->desc_len && strncmp(desc, n->desc, n->desc_len) == 0);
}

/* Checks one gate's name against the plan (see gate_plan_check). */
static int plan_has(const struct cli_method_name *n, const char *opt, const char *arg,
                    const struct msg_plan *plan, FILE *err, mct_err *e)
{
    const struct msg_plan_method *other = NULL;

    for (size_t i = 0; i < plan->n_methods; i++) {
        const struct msg_plan_method *m = &plan->methods[i];

        if (!name_matches(n, m->cls, m->method, m->desc))
            continue;
        if (m->status != NULL && (strcmp(m->status, "instrumented") == 0 || strcmp(m->status, "pending") == 0 ||
                                  strcmp(m->status, "waiting") == 0))
            return 0;
        other = m;
    }
    if (other != NULL)
        return mct_err_set(e, MCT_E_ARG, "%s %s: %s.%s%s is in the plan but not traced (%s%s%s); its calls "
                           "would not be counted", opt, arg, other->cls, other->method, other->desc,
                           other->status != NULL ? other->status : "?", other->reason != NULL ? ": " : "",
                           other->reason != NULL ? other->reason : "");
    if (plan->summary.capped) {
        say(err, "warning: %s %s: no such method in the plan, which hit its cap; its calls are not counted",
            opt, arg);
        return 0;
    }
    return mct_err_set(e, MCT_E_ARG, "%s %s: no method %.*s.%.*s%.*s among the %zu methods of the plan "
                       "(the depth and the regex decide which are traced; --plan lists them)",
                       opt, arg, (int)n->class_len, n->class_name, (int)n->method_len, n->method,
                       (int)n->desc_len, n->desc != NULL ? n->desc : "", plan->n_methods);
}

int gate_plan_check(const gate *g, const struct msg_plan *plan, FILE *err, mct_err *e)
{
    const struct cli *c = g->c;

    for (size_t i = 0; i < c->n_max_calls; i++)
        if (plan_has(&c->max_calls[i].name, "--max-calls", c->max_calls[i].arg, plan, err, e) < 0)
            return -1;
    for (size_t i = 0; i < c->n_budgets; i++)
        if (plan_has(&c->budgets[i].name, "--budget", c->budgets[i].arg, plan, err, e) < 0)
            return -1;
    return 0;
}

int gate_add_call(gate *g, json_t *call, mct_err *e)
{
    json_int_t ns;

    if (sum_add_call_json(g->sum, call, e) < 0)
        return -1;
    /* Checked by sum_add_call_json: the root's total_ns is an integer >= 0. */
    ns = json_integer_value(json_object_get(json_object_get(call, "root"), "total_ns"));
    return sum_hist_record(&g->entry, (uint64_t)ns, e);
}

/* --- judging ----------------------------------------------------------------------------- */

/* An integer of a checked summary, 0 when absent. */
static unsigned long long figure(const json_t *o, const char *key)
{
    json_int_t v = json_integer_value(json_object_get(o, key));

    return v < 0 ? 0 : (unsigned long long)v;
}

static int judge_max_calls(const struct cli *c, const json_t *summary, FILE *err)
{
    const json_t *methods = json_object_get(summary, "methods");
    int failed = 0;

    for (size_t i = 0; i < c->n_max_calls; i++) {
        const struct cli_max_calls *g = &c->max_calls[i];

        for (size_t j = 0; j < json_array_size(methods); j++) {
            const json_t *m = json_array_get(methods, j);
            unsigned long long most = figure(m, "calls_max");

            if (!name_matches(&g->name, fu_opt_str(m, "class"), fu_opt_str(m, "method"), fu_opt_str(m, "desc")) ||
                most <= (unsigned long long)g->n)
                continue;
            say(err, "--max-calls %s: %s.%s%s was called %llu times in one entry call, over the limit of %lld "
                "(exit status 4)", g->arg, fu_str(m, "class"), fu_str(m, "method"), fu_str(m, "desc"), most, g->n);
            failed = 1;
        }
    }
    return failed;
}

/* The P-th percentile of the entry calls' durations: from the calls'
 * histogram when there is one, else the largest over the summary's roots;
 * -1 with e set when the summary does not carry it. */
static int entry_percentile(const struct cli *c, const json_t *summary, const struct sum_hist *h,
                            unsigned long long *ns, mct_err *e)
{
    static const char *const keys[] = { "p50_ns", "p90_ns", "p99_ns", "entry_max_ns" };
    static const double ps[] = { 50, 90, 99, 100 };
    const json_t *more = json_object_get(summary, "more_roots");
    const char *key = NULL;

    if (h != NULL) {
        *ns = sum_hist_quantile(h, c->percentile / 100);
        return 0;
    }
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        if (c->percentile == ps[i])
            key = keys[i];
    if (key == NULL)
        return mct_err_set(e, MCT_E_ARG, "--percentile %g: a summary carries the percentiles 50, 90, 99 and 100 "
                           "of the entry method's duration, not %g", c->percentile, c->percentile);
    *ns = figure(json_object_get(summary, "root"), key);
    for (size_t i = 0; i < json_array_size(more); i++)
        if (figure(json_array_get(more, i), key) > *ns)
            *ns = figure(json_array_get(more, i), key);
    return 0;
}

/* The path of names down to node, "A.run(Z)J > B.step(I)J", in a buffer. */
struct path {
    char buf[4096];
    size_t len;
};

static void walk_budgets(const struct cli *c, const json_t *node, struct path *p, FILE *err, int *failed)
{
    const json_t *kids = json_object_get(node, "children");
    size_t mark = p->len;
    int w = snprintf(p->buf + p->len, sizeof p->buf - p->len, "%s%s.%s%s", mark > 0 ? " > " : "",
                     fu_str(node, "class"), fu_str(node, "method"), fu_str(node, "desc"));

    p->len = w < 0 || (size_t)w >= sizeof p->buf - p->len ? sizeof p->buf - 1 : p->len + (size_t)w;
    for (size_t i = 0; i < c->n_budgets; i++) {
        const struct cli_budget *b = &c->budgets[i];
        unsigned long long v = figure(node, stat_keys[b->stat]);

        if (!name_matches(&b->name, fu_opt_str(node, "class"), fu_opt_str(node, "method"), fu_opt_str(node, "desc")) ||
            (double)v <= b->ms * 1e6)
            continue;
        say(err, "--budget %s: %s: %s %.3f ms within one entry call, over the budget of %g ms (exit status 4)",
            b->arg, p->buf, stat_names[b->stat], (double)v / 1e6, b->ms);
        *failed = 1;
    }
    for (size_t i = 0; i < json_array_size(kids); i++)
        walk_budgets(c, json_array_get(kids, i), p, err, failed);
    p->len = mark;
    p->buf[mark] = '\0';
}

/* Judges summary, with h the calls' durations or NULL (gate_check). */
static int judge(const gate *g, const json_t *summary, const struct sum_hist *h, FILE *err, mct_err *e)
{
    const struct cli *c = g->c;
    unsigned long long calls = figure(summary, "calls"), ns = 0;
    int failed;

    if (calls == 0 || json_object_get(summary, "root") == NULL || json_is_null(json_object_get(summary, "root"))) {
        say(err, "the gates have no call of %s.%s%s to judge (exit status 4)", c->class_name, c->method, c->desc);
        return 1;
    }
    failed = judge_max_calls(c, summary, err);
    if (c->percentile > 0) {
        if (entry_percentile(c, summary, h, &ns, e) < 0)
            return -1;
        if ((double)ns > c->fail_over_ms * 1e6) {
            say(err, "--percentile %g: the %g-th percentile of the %llu calls of %s.%s%s is %.3f ms, over "
                "--fail-over-ms %g (exit status 4)", c->percentile, c->percentile, calls, c->class_name,
                c->method, c->desc, (double)ns / 1e6, c->fail_over_ms);
            failed = 1;
        }
    }
    if (c->n_budgets > 0) {
        const json_t *more = json_object_get(summary, "more_roots");
        struct path p = { .len = 0 };

        walk_budgets(c, json_object_get(summary, "root"), &p, err, &failed);
        for (size_t i = 0; i < json_array_size(more); i++)
            walk_budgets(c, json_array_get(more, i), &p, err, &failed);
    }
    return failed;
}

int gate_check(const gate *g, const json_t *summary, FILE *err, mct_err *e)
{
    return judge(g, summary, NULL, err, e);
}

int gate_finish(const gate *g, FILE *err, mct_err *e)
{
    json_t *s = sum_to_json(g->sum, 1, e);
    int rc;

    if (s == NULL)
        return -1;
    rc = judge(g, s, g->entry.count > 0 ? &g->entry : NULL, err, e);
    json_decref(s);
    return rc;
}
