/* dfig.h — diff's comparison of the figures a summary's nodes carry with
 * --cpu and --alloc (protocol/summary.h, sum_xkeys): a quantile of a
 * figure per entry call in two runs, and its change with the confidence
 * interval from both histograms (dstat_change), as diff compares the
 * nodes' time. */
#ifndef MCT_DFIG_H
#define MCT_DFIG_H

#include <stddef.h>
#include <stdint.h>

#include "diffout.h"
#include "summary.h"

/* A quantile of a figure in two runs. */
struct dfig_change {
    uint64_t base, new_;        /* the quantile in each run */
    struct diffout_pct pct;     /* the change, with its interval */
    int over;                   /* surely over the limit (dstat_change) */
};

/* Whether nodes b and n of two summaries (either may be NULL) both carry
 * figure x. */
int dfig_both(const struct sum_view *b, const struct sum_view *n, enum sum_xfig x);

/* Compares the q-quantile (0.50 or 0.99: the keys p50, p99 of figure x) of
 * b and n (dfig_both) into *out: the change's interval at conf each side,
 * over lim % and by at least min_delta. */
void dfig_compare(const struct sum_view *b, const struct sum_view *n, enum sum_xfig x, double q, double conf,
                  double lim, uint64_t min_delta, struct dfig_change *out);

/* Writes v, a value of figure x, for people into buf ("1.20 ms", "977 KiB"). */
void dfig_text(enum sum_xfig x, uint64_t v, char *buf, size_t size);

#endif
