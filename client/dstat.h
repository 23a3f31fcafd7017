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

#endif
