/* dstat.h — the statistics of `mcalltree diff`: a two-proportion z-test
 * for the share of entry calls that reached a node, and a distribution-free
 * confidence interval of a quantile read from a summary's histogram, so
 * that a gate fails on a change the samples show, not on noise. */
#ifndef MCT_DSTAT_H
#define MCT_DSTAT_H

#include <stdint.h>

#include "summary.h"

/* The z with P(Z <= z) = p for a standard normal Z, 0 < p < 1 (Acklam's
 * rational approximation, relative error under 1.2e-9). */
double dstat_norm_quantile(double p);

/* The two-sided p-value of the pooled two-proportion z-test of x1 of n1
 * against x2 of n2 (n1, n2 > 0): 1 when the pooled share is 0 or 1. */
double dstat_share_p(uint64_t x1, uint64_t n1, uint64_t x2, uint64_t n2);

/* The interval [*lo, *hi] that holds the q-quantile (0 < q < 1) of the
 * population h's samples were drawn from with confidence conf (0..1),
 * distribution-free: the order statistics whose ranks the binomial
 * Bin(n, q) puts around the quantile, each side missed with probability
 * (1 - conf) / 2, widened to their histogram buckets. Too few samples for
 * a side leave it unbounded: *lo 0, *hi UINT64_MAX. */
void dstat_quantile_ci(const struct sum_hist *h, double q, double conf, uint64_t *lo, uint64_t *hi);

/* The change of the q-quantile from hb's population to hn's, in %: the
 * interval [*lo, *hi] of the ratio of the two quantiles' intervals
 * (dstat_quantile_ci at conf each; a side without bound gives -100 or
 * INFINITY). 1 when the change is surely over lim %: *lo over lim and
 * hn's quantile at least min_delta over hb's (their intervals' near
 * bounds); else 0. */
int dstat_change(const struct sum_hist *hb, const struct sum_hist *hn, double q, double conf, double lim,
                 uint64_t min_delta, double *lo, double *hi);

#endif
