/* diffout.h — the objects `mcalltree diff -f json` writes (README "diff"):
 * one row per call path and the document around them. Built here, in
 * protocol/, as every message is; client/diff.c fills the plain structs. */
#ifndef MCT_DIFFOUT_H
#define MCT_DIFFOUT_H

#include <stdint.h>

#include <jansson.h>

#include "buf.h"

/* One side of a row: what the node shows in one run. */
struct diffout_side {
    int present;                /* 0: the node is not in that run */
    const char *calls_per_entry;    /* node calls / entry calls, exact decimal text */
    uint64_t calls_min, calls_max;  /* calls per entry call that reached it */
    const json_t *calls_hist;   /* borrowed: its [calls,count,...] (summary.h), or NULL */
    double share;               /* entry calls that reached it / entry calls */
    uint64_t p50_ns, p99_ns;
};

/* A percentile's change: the change in % (NAN: none), and the confidence
 * interval of the change in % (has_ci 0: no interval, the histograms were
 * missing; a side without bound is -100 or INFINITY, null in the JSON). */
struct diffout_pct {
    double pct, ci_lo, ci_hi;
    int has_ci;
};

/* A quantile of a figure both runs' summaries carry (--cpu, --alloc):
 * key (summary.h's, e.g. "alloc_p50_bytes"), its value in each run, the
 * change. */
struct diffout_fig {
    const char *key;
    uint64_t base, new_;
    struct diffout_pct pct;
};

#define DIFFOUT_FIGS 8          /* most figures of a row */

struct diffout_row {
    const char *path, *class_name, *method, *desc, *status;
    int depth, ignored;
    struct diffout_side base, new_;
    double share_p;             /* the share test's p-value (NAN: not tested) */
    struct diffout_pct p50, p99;
    struct diffout_fig figs[DIFFOUT_FIGS];  /* each a key of the row's object */
    size_t nfigs;
};

/* The document {"type":"diff","base":{"file","calls"},"new":{...},
 * "confidence":C,"nodes":[ROW,...],"failures":FAILURES} is written as
 * compact JSON text (UTF-8, as jansson writes it) to one buffer in three
 * steps, so that no row is held as a tree: diffout_doc_head, then each
 * row (diffout_row_write), then diffout_doc_tail. Each appends to b and
 * returns 0, or -1 when out of memory. */
int diffout_doc_head(mct_buf *b, const char *base_file, uint64_t base_calls, const char *new_file,
                     uint64_t new_calls, double confidence);

/* Appends row r (the first: first is 1) of the document's "nodes". */
int diffout_row_write(mct_buf *b, const struct diffout_row *r, int first);

/* Ends the document with its "failures" (an array of strings, borrowed). */
int diffout_doc_tail(mct_buf *b, const json_t *failures);

#endif
