/* replies.c — see replies.h. */
#include "replies.h"

#include <stdio.h>
#include <stdlib.h>

struct replies {
    struct gates gates;         /* a copy of the view; NULL members borrowed */
    int gated;                  /* gates_wanted */
    int include_warmup;
    double fail_over_ms;        /* a plain fail-over-ms, < 0: none */
    gates_tally *tally;         /* NULL when not gated */
    sum *final;                 /* the final summary, or NULL */
    mct_err broken;             /* why the calls can no longer be judged; code 0: they can */
    struct replies_counts n;
};

int replies_timed(int include_warmup, const mct_call *c)
{
    return include_warmup || !call_warmup(c);
}

int replies_counts_judged(const struct mct_request *q)
{
    return q->count > 0 && !q->aggregate && !q->include_warmup && (q->percentile > 0 || q->budgets.n > 0 || q->max_alloc.n > 0);
}

replies *replies_new(const struct gates *g, int include_warmup, double fail_over_ms, mct_err *e)
{
    replies *r = calloc(1, sizeof *r);

    if (r == NULL) {
        mct_err_set(e, MCT_E_NOMEM, "out of memory for the gates");
        return NULL;
    }
    if (g != NULL)
        r->gates = *g;
    r->gated = g != NULL && gates_wanted(g);
    r->include_warmup = include_warmup;
    r->fail_over_ms = g != NULL && g->percentile > 0 ? -1 : fail_over_ms;
    if (r->gated && (r->tally = gates_tally_new(e)) == NULL) {
        free(r);
        return NULL;
    }
    return r;
}

void replies_free(replies *r)
{
    if (r == NULL)
        return;
    gates_tally_free(r->tally);
    sum_free(r->final);
    free(r);
}

int replies_call(replies *r, const call_tab *tab, const mct_call *c, mct_err *e)
{
    int warm = call_warmup(c) != 0, timed = replies_timed(r->include_warmup, c);

    r->n.seen++;
    r->n.warmup += warm;
    r->n.timed += timed;
    if (r->tally != NULL && r->broken.code == 0 && gates_tally_add(r->tally, tab, c, timed, e) < 0) {
        mct_err_set(&r->broken, e->code, "the gates cannot count call #%llu: %.400s", (unsigned long long)c->seq,
                    e->msg);
        return -1;
    }
    return timed;
}

int replies_over(const replies *r, const mct_call *c)
{
    return r->fail_over_ms >= 0 && replies_timed(r->include_warmup, c) &&
           (double)c->nodes[0].total_ns > r->fail_over_ms * 1e6;
}

void replies_final(replies *r, sum *summary)
{
    sum_free(r->final);
    r->final = summary;
}

struct replies_counts replies_counts(const replies *r)
{
    return r->n;
}

int replies_gated(const replies *r)
{
    return r->gated;
}

int replies_verdict(const replies *r, json_t *failures, mct_err *e)
{
    if (!r->gated)
        return 0;
    if (r->broken.code != 0)
        return mct_err_set(e, r->broken.code, "%s", r->broken.msg);
    if (r->final != NULL)
        return gates_judge(&r->gates, r->final, NULL, failures, e);
    return gates_tally_judge(r->tally, &r->gates, failures, e);
}

json_t *replies_case_new(const char *gate, int passed, json_t *failures)
{
    return json_pack("{s:s, s:b, s:o}", "gate", gate, "passed", passed,
                     "failures", failures != NULL ? failures : json_array());
}

/* The verdict of the one gate of view, named name, appended to cases as
 * replies_cases says; 0 or -1 with e set. */
static int judge_case(const replies *r, const struct gates *view, const char *name, json_t *cases, mct_err *e)
{
    json_t *failures = json_array(), *c;
    int rc = -1;

    if (failures != NULL)
        rc = r->final != NULL ? gates_judge(view, r->final, NULL, failures, e)
                              : gates_tally_judge(r->tally, view, failures, e);
    if (rc < 0) {
        if (failures == NULL)
            mct_err_set(e, MCT_E_NOMEM, "out of memory for the gates' messages");
        json_decref(failures);
        return -1;
    }
    c = replies_case_new(name, rc == 0, failures);
    if (c == NULL || json_array_append_new(cases, c) < 0)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory for the gates' verdicts");
    return 0;
}

/* The gates judged one at a time (replies_cases), one kind a row, in
 * that order: how many of the kind g holds, and its i-th made the one
 * gate of view (the others emptied), named into name. */
struct case_kind {
    size_t (*count)(const struct gates *g);
    void (*one)(struct gates *view, const struct gates *g, size_t i, char *name, size_t size);
};

static size_t n_max_calls(const struct gates *g)
{
    return g->n_max_calls;
}

static void one_max_calls(struct gates *view, const struct gates *g, size_t i, char *name, size_t size)
{
    view->max_calls = &g->max_calls[i];
    view->n_max_calls = 1;
    snprintf(name, size, "%smax-calls %s", g->prefix, g->max_calls[i].arg);
}

static size_t n_percentile(const struct gates *g)
{
    return g->percentile > 0;
}

static void one_percentile(struct gates *view, const struct gates *g, size_t i, char *name, size_t size)
{
    (void)i;
    view->percentile = g->percentile;
    snprintf(name, size, "%spercentile %g %sfail-over-ms %g", g->prefix, g->percentile, g->prefix, g->fail_over_ms);
}

static size_t n_budgets(const struct gates *g)
{
    return g->n_budgets;
}

static void one_budget(struct gates *view, const struct gates *g, size_t i, char *name, size_t size)
{
    view->budgets = &g->budgets[i];
    view->n_budgets = 1;
    snprintf(name, size, "%sbudget %s", g->prefix, g->budgets[i].arg);
}

static size_t n_max_alloc(const struct gates *g)
{
    return g->n_max_alloc;
}

static void one_max_alloc(struct gates *view, const struct gates *g, size_t i, char *name, size_t size)
{
    view->max_alloc = &g->max_alloc[i];
    view->n_max_alloc = 1;
    snprintf(name, size, "%smax-alloc %s", g->prefix, g->max_alloc[i].arg);
}

static const struct case_kind case_kinds[] = {
    { n_max_calls, one_max_calls },
    { n_percentile, one_percentile },
    { n_budgets, one_budget },
    { n_max_alloc, one_max_alloc },
};

int replies_cases(const replies *r, json_t *cases, mct_err *e)
{
    const struct gates *g = &r->gates;
    char name[GATES_NAME_MAX * 3 + 64];

    if (!r->gated)
        return 0;
    if (r->broken.code != 0)
        return mct_err_set(e, r->broken.code, "%s", r->broken.msg);
    for (size_t k = 0; k < sizeof case_kinds / sizeof case_kinds[0]; k++)
        for (size_t i = 0; i < case_kinds[k].count(g); i++) {
            struct gates view = *g;

            view.n_max_calls = view.n_budgets = view.n_max_alloc = 0;
            view.percentile = 0;
            case_kinds[k].one(&view, g, i, name, sizeof name);
            if (judge_case(r, &view, name, cases, e) < 0)
                return -1;
        }
    return 0;
}
