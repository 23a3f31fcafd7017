/* dstat.c — see dstat.h. */
#include "dstat.h"

#include <math.h>

double dstat_norm_quantile(double p)
{
    static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00 };
    static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                6.680131188771972e+01, -1.328068155288572e+01 };
    static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00 };
    static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                3.754408661907416e+00 };
    double q, r;

    if (p < 0.02425) {
        q = sqrt(-2 * log(p));
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
               ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    if (p > 1 - 0.02425)
        return -dstat_norm_quantile(1 - p);
    q = p - 0.5;
    r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

double dstat_share_p(uint64_t x1, uint64_t n1, uint64_t x2, uint64_t n2)
{
    double p1 = (double)x1 / (double)n1, p2 = (double)x2 / (double)n2;
    double pool = ((double)x1 + (double)x2) / ((double)n1 + (double)n2);
    double se = sqrt(pool * (1 - pool) * (1 / (double)n1 + 1 / (double)n2));

    if (!(se > 0))
        return 1;
    return erfc(fabs(p1 - p2) / se / sqrt(2));
}

/* Ranks of the order statistics that bound the q-quantile, each side
 * missed with probability at most a: *l the largest with P(X <= l - 1) <= a,
 * *u the smallest with P(X >= u) <= a, X ~ Binomial(n, q) the samples
 * under the quantile; 0 for no lower rank, n + 1 for no upper. Exact (the
 * binomial's terms summed in log space) up to DSTAT_EXACT_MAX samples, the
 * normal approximation above. */
#define DSTAT_EXACT_MAX 1000000
static void ranks(uint64_t n, double q, double a, uint64_t *l, uint64_t *u)
{
    double lp = (double)n * log1p(-q), cdf = 0, odds = log(q) - log1p(-q);

    if (n > DSTAT_EXACT_MAX) {
        double z = dstat_norm_quantile(1 - a), half = z * sqrt((double)n * q * (1 - q));
        double lo = floor((double)n * q - half), hi = ceil((double)n * q + half) + 1;

        *l = lo < 1 ? 0 : (uint64_t)lo;
        *u = hi > (double)n ? n + 1 : (uint64_t)hi;
        return;
    }
    *l = 0;
    *u = n + 1;
    for (uint64_t k = 0; k < n; k++) {      /* cdf = P(X <= k) */
        cdf += exp(lp);
        if (cdf <= a)
            *l = k + 1;
        if (1 - cdf <= a) {
            *u = k + 1;
            return;
        }
        lp += log((double)(n - k)) - log((double)(k + 1)) + odds;
    }
}

void dstat_quantile_ci(const struct sum_hist *h, double q, double conf, uint64_t *lo, uint64_t *hi)
{
    uint64_t l, u, ignore;

    *lo = 0;
    *hi = UINT64_MAX;
    if (h->count == 0)
        return;
    ranks(h->count, q, (1 - conf) / 2, &l, &u);
    if (l >= 1)
        sum_hist_rank_bounds(h, l, lo, &ignore);
    if (u <= h->count)
        sum_hist_rank_bounds(h, u, &ignore, hi);
}

int dstat_change(const struct sum_hist *hb, const struct sum_hist *hn, double q, double conf, double lim,
                 uint64_t min_delta, double *lo, double *hi)
{
    uint64_t bl, bh, nl, nh;

    dstat_quantile_ci(hb, q, conf, &bl, &bh);
    dstat_quantile_ci(hn, q, conf, &nl, &nh);
    /* an unbounded side (too few samples) bounds nothing */
    *lo = bh == 0 || bh == UINT64_MAX ? -100 : ((double)nl / (double)bh - 1) * 100;
    *hi = bl == 0 || nh == UINT64_MAX ? INFINITY : ((double)nh / (double)bl - 1) * 100;
    return bh > 0 && bh != UINT64_MAX && *lo > lim && nl > bh && nl - bh >= min_delta;
}
