/* replies.c — see replies.h. */
#include "replies.h"

#include <stdlib.h>

struct replies {
    struct gates gates;         /* a copy of the view; NULL members borrowed */
    int gated;                  /* gates_wanted */
    int include_warmup;
    double fail_over_ms;        /* a plain fail-over-ms, < 0: none */
    gates_tally *tally;         /* NULL when not gated */
    json_t *final;              /* the final summary, or NULL */
    mct_err broken;             /* why the calls can no longer be judged; code 0: they can */
    struct replies_counts n;
};

int replies_timed(int include_warmup, const mct_call *c)
{
    return include_warmup || !call_warmup(c);
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
    json_decref(r->final);
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

void replies_final(replies *r, json_t *summary)
{
    json_decref(r->final);
    r->final = json_incref(summary);
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
