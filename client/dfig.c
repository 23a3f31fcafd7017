/* dfig.c — see dfig.h. */
#include "dfig.h"

#include <math.h>

#include "dstat.h"
#include "fmtutil.h"

int dfig_both(const struct sum_view *b, const struct sum_view *n, enum sum_xfig x)
{
    return b != NULL && n != NULL && (b->xflags & sum_xkeys[x].flag) && (n->xflags & sum_xkeys[x].flag);
}

void dfig_compare(const struct sum_view *b, const struct sum_view *n, enum sum_xfig x, double q, double conf,
                  double lim, uint64_t min_delta, struct dfig_change *out)
{
    int p99 = q >= 0.75;

    out->base = p99 ? b->x[x].p99 : b->x[x].p50;
    out->new_ = p99 ? n->x[x].p99 : n->x[x].p50;
    out->pct = (struct diffout_pct){
        .pct = out->base == 0 ? NAN : ((double)out->new_ - (double)out->base) * 100.0 / (double)out->base,
        .has_ci = 1,
    };
    out->over = dstat_change(b->x[x].hist, n->x[x].hist, q, conf, lim, min_delta, &out->pct.ci_lo,
                             &out->pct.ci_hi);
}

void dfig_text(enum sum_xfig x, uint64_t v, char *buf, size_t size)
{
    if (x == SUM_X_CPU)
        fu_duration(buf, size, (double)v);
    else
        fu_bytes(buf, size, v);
}
