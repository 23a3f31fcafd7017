/* fmt_html.h — -f html: one self-contained page (its script, style and
 * data inline; no network when opened) that shows a summary tree as an
 * icicle and a table, each node's figures, the slowest calls as timelines
 * and the session's facts; and the same page for `mcalltree diff -f html`,
 * where the two runs' nodes are coloured by their change, and for
 * `mcalltree merge -f html`. The page's code
 * is client/report/ (report.html, report.css, report.js), embedded at build
 * time. The format itself (fmt_html) is registered in output.h. */
#ifndef MCT_FMT_HTML_H
#define MCT_FMT_HTML_H

#include <jansson.h>
#include <stdio.h>

#include "buf.h"
#include "summary.h"

/* Writes the diff page of diff (the text of the object `mcalltree diff
 * -f json` prints, as jansson writes it: UTF-8, nothing escaped past
 * JSON's own) between the summaries base and new_ (all borrowed), no
 * document tree built; 0, or -1 (errno set) when f cannot be written. */
int html_diff_write(FILE *f, const mct_buf *diff, const sum *base, const sum *new_);

/* Writes the run page of summary (`mcalltree merge`'s), merged from the
 * files named in merged (an array of strings); both borrowed. 0, or -1 (errno set)
 * when f cannot be written. */
int html_summary_write(FILE *f, const sum *summary, const json_t *merged);

#endif
