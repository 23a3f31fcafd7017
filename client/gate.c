/* gate.c — see gate.h. */
#include "gate.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fmtutil.h"
#include "gates.h"
#include "output.h"
#include "replies.h"
#include "summary.h"

struct gate {
    struct gates gates;     /* a view over the cli's gates */
    replies *judge;         /* the calls received, per-call mode */
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
    return c->req.max_calls.n > 0 || c->req.budgets.n > 0 || c->req.max_alloc.n > 0 || c->req.percentile > 0;
}

int gate_percentile_in_summary(double p)
{
    return gates_percentile_in_summary(p);
}

int gate_judges(const struct cli *c, const mct_call *call)
{
    return replies_timed(c->req.include_warmup, call);
}

gate *gate_new(const struct cli *c, mct_err *e)
{
    gate *g = calloc(1, sizeof *g);

    if (g == NULL) {
        mct_err_set(e, MCT_E_NOMEM, "out of memory for the gates");
        return NULL;
    }
    g->gates = (struct gates){
        .prefix = "--", .class_name = c->req.cls, .method = c->req.method, .desc = req_desc(&c->req),
        .max_calls = c->req.max_calls.item, .n_max_calls = c->req.max_calls.n, .budgets = c->req.budgets.item,
        .n_budgets = c->req.budgets.n, .max_alloc = c->req.max_alloc.item, .n_max_alloc = c->req.max_alloc.n,
        .percentile = c->req.percentile, .fail_over_ms = c->req.fail_over_ms,
        .min_calls = c->req.min_calls,
    };
    if ((g->judge = replies_new(&g->gates, c->req.include_warmup, c->req.fail_over_ms, e)) == NULL) {
        free(g);
        return NULL;
    }
    return g;
}

void gate_free(gate *g)
{
    if (g == NULL)
        return;
    replies_free(g->judge);
    free(g);
}

/* Checks one gate's name against the plan (see gate_plan_check). */
static int plan_has(const struct gates_name *n, const char *opt, const char *arg,
                    const struct msg_plan *plan, FILE *err, mct_err *e)
{
    const struct msg_plan_method *other = NULL;

    for (size_t i = 0; i < plan->n_methods; i++) {
        const struct msg_plan_method *m = &plan->methods[i];

        if (!gates_name_matches(n, m->cls, m->method, m->desc))
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
    const struct gates *c = &g->gates;

    for (size_t i = 0; i < c->n_max_calls; i++)
        if (plan_has(&c->max_calls[i].name, "--max-calls", c->max_calls[i].arg, plan, err, e) < 0)
            return -1;
    for (size_t i = 0; i < c->n_budgets; i++)
        if (plan_has(&c->budgets[i].name, "--budget", c->budgets[i].arg, plan, err, e) < 0)
            return -1;
    for (size_t i = 0; i < c->n_max_alloc; i++)
        if (plan_has(&c->max_alloc[i].name, "--max-alloc", c->max_alloc[i].arg, plan, err, e) < 0)
            return -1;
    return 0;
}

replies *gate_judge(gate *g)
{
    return g->judge;
}

/* Prints the verdict's messages (rc 1 or 0) on err, one line each; rc. */
static int print(int rc, json_t *failures, FILE *err, mct_err *e)
{
    if (failures == NULL)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory for the gates' messages");
    for (size_t i = 0; rc >= 0 && i < json_array_size(failures); i++)
        say(err, "%s (exit status 4)", json_string_value(json_array_get(failures, i)));
    json_decref(failures);
    return rc;
}

int gate_check(const gate *g, const sum *summary, FILE *err, mct_err *e)
{
    json_t *failures = json_array();

    return print(failures != NULL ? gates_judge(&g->gates, summary, NULL, failures, e) : -1, failures, err, e);
}

int gate_finish(const gate *g, FILE *err, mct_err *e)
{
    json_t *failures = json_array();

    return print(failures != NULL ? replies_verdict(g->judge, failures, e) : -1, failures, err, e);
}

/* The messages of failures (a JSON array of strings) joined by newlines,
 * in a buffer of the caller's. */
static const char *joined(const json_t *failures, char *buf, size_t size)
{
    size_t len = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < json_array_size(failures) && len < size; i++) {
        const char *m = json_string_value(json_array_get(failures, i));
        int n = m == NULL ? 0 : snprintf(buf + len, size - len, "%s%s", len > 0 ? "\n" : "", m);

        len += n > 0 ? (size_t)n : 0;
    }
    return buf;
}

json_t *gate_unjudged(const char *why)
{
    json_t *failures = json_array(), *cases = json_array();

    if (failures == NULL || cases == NULL || json_array_append_new(failures, json_string(why)) < 0) {
        json_decref(failures);
        json_decref(cases);
        return NULL;
    }
    /* The case takes failures; a case not made is not appended (-1). */
    if (json_array_append_new(cases, replies_case_new("the gates", 0, failures)) < 0) {
        json_decref(cases);
        return NULL;
    }
    return cases;
}

json_t *gate_cases(const gate *g, mct_err *e)
{
    json_t *cases = json_array();
    mct_err why;

    if (cases == NULL) {
        mct_err_set(e, MCT_E_NOMEM, "out of memory for the gates' verdicts");
        return NULL;
    }
    if (replies_cases(g->judge, cases, &why) == 0)
        return cases;
    json_decref(cases);
    if (why.code == MCT_E_NOMEM) {
        mct_err_set(e, why.code, "%s", why.msg);
        return NULL;
    }
    if ((cases = gate_unjudged(why.msg)) == NULL)
        mct_err_set(e, MCT_E_NOMEM, "out of memory for the gates' verdicts");
    return cases;
}

int gate_cases_junit(const json_t *cases, junit *ju, const char *suite)
{
    char message[8192];

    for (size_t i = 0; i < json_array_size(cases); i++) {
        const json_t *c = json_array_get(cases, i);
        const char *name = json_string_value(json_object_get(c, "gate"));
        int passed = json_is_true(json_object_get(c, "passed"));

        if (junit_case(ju, suite, name != NULL ? name : "?", passed,
                       passed ? NULL : joined(json_object_get(c, "failures"), message, sizeof message)) < 0)
            return -1;
    }
    return 0;
}

int gate_report(const gate *g, int judged, const char *why, struct out *o, const char *junit_path, const char *suite,
                mct_err *e)
{
    json_t *cases = judged ? gate_cases(g, e) : gate_unjudged(why);
    junit *ju = NULL;
    int rc = 0;

    if (cases == NULL)
        return mct_err_set(e, MCT_E_NOMEM, "the gates' verdicts: out of memory");
    out_fact(o, "gates", cases);
    if (junit_path != NULL) {
        if ((ju = junit_new()) == NULL || gate_cases_junit(cases, ju, suite) < 0)
            rc = mct_err_set(e, MCT_E_NOMEM, "--junit %s: out of memory", junit_path);
        else
            rc = junit_write(ju, junit_path, e);
        junit_free(ju);
    }
    json_decref(cases);
    return rc;
}
