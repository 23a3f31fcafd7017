/* dfig.c — see dfig.h. */
#include "dfig.h"

#include <math.h>

#include "dstat.h"
#include "fmtutil.h"

int dfig_both(const json_t *b, const json_t *n, enum sum_xfig x)
{
    return b != NULL && n != NULL && json_object_get(b, sum_xkeys[x].total) != NULL &&
           json_object_get(n, sum_xkeys[x].total) != NULL;
}

/* Figure x's histogram of node n into h (caller resets it); 0 or -1. */
static int fig_hist(const json_t *n, enum sum_xfig x, struct sum_hist *h)
{
    const struct sum_xkeys *k = &sum_xkeys[x];
    mct_err e;

    return sum_hist_from_json(h, json_object_get(n, k->hist),
                              (uint64_t)json_integer_value(json_object_get(n, k->entry_min)),
                              (uint64_t)json_integer_value(json_object_get(n, k->entry_max)), &e);
}

int dfig_compare(const json_t *b, const json_t *n, enum sum_xfig x, double q, double conf, double lim,
                 uint64_t min_delta, struct dfig_change *out)
{
    const char *key = q < 0.75 ? sum_xkeys[x].p50 : sum_xkeys[x].p99;
    struct sum_hist hb, hn;
    int rc = -1;

    sum_hist_init(&hb);
    sum_hist_init(&hn);
    out->base = (uint64_t)json_integer_value(json_object_get(b, key));
    out->new_ = (uint64_t)json_integer_value(json_object_get(n, key));
    out->pct = (struct diffout_pct){
        .pct = out->base == 0 ? NAN : ((double)out->new_ - (double)out->base) * 100.0 / (double)out->base,
        .has_ci = 1,
    };
    if (fig_hist(b, x, &hb) == 0 && fig_hist(n, x, &hn) == 0) {
        out->over = dstat_change(&hb, &hn, q, conf, lim, min_delta, &out->pct.ci_lo, &out->pct.ci_hi);
        rc = 0;
    }
    sum_hist_reset(&hb);
    sum_hist_reset(&hn);
    return rc;
}

void dfig_text(enum sum_xfig x, uint64_t v, char *buf, size_t size)
{
    if (x == SUM_X_CPU)
        fu_duration(buf, size, (double)v);
    else
        fu_bytes(buf, size, v);
}
