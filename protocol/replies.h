/* replies.h — the one judge of a session's replies, shared by the three
 * places that read them (the client over the socket, client/trace.c; the
 * wrap form over the JVMs' trace files, client/wrap.c; the agent's startup
 * trace, agent/session/startup.c), so that gates, fail-over-ms and warm-up
 * follow one rule wherever the calls come from:
 *
 * - every call is judged, whatever became of the output (a broken pipe
 *   stops the output, not the judging);
 * - the call-count gates (max-calls) judge every call, warm-up ones
 *   included: a count does not depend on the JIT;
 * - the timing gates (percentile with fail-over-ms, budgets) and a plain
 *   fail-over-ms judge the calls that are not warm-up, or all with
 *   include-warmup; a plain fail-over-ms is the percentile 100 of those (a
 *   call over the limit fails the run);
 * - with a final summary (aggregate) the summary is judged instead of the
 *   calls (the agent left warm-up calls out of it unless include-warmup);
 * - a timing gate over fewer calls than its percentile needs fails
 *   (gates_calls_needed, min-calls).
 *
 * Ownership: a replies borrows its gates (and what they borrow) for its
 * whole life; it owns its tally and the final summary it keeps. */
#ifndef MCT_REPLIES_H
#define MCT_REPLIES_H

#include <jansson.h>

#include "call.h"
#include "err.h"
#include "gates.h"
#include "request.h"

typedef struct replies replies;

/* What a session's calls were, as judged. */
struct replies_counts {
    long long seen;     /* calls read */
    long long warmup;   /* of them, marked warm-up */
    long long timed;    /* of them, judged by the timing rules */
};

/* The timing rule: whether the timing gates and a plain fail-over-ms
 * judge call c (not warm-up, or include_warmup). */
int replies_timed(int include_warmup, const mct_call *c);

/* Whether -n (q's count) counts the calls the timing gates judge rather
 * than every call: with a percentile or a budget, per call, warm-up calls
 * left out (not include-warmup). Whoever reads the calls counts them then
 * and stops the session; the session itself counts every call. */
int replies_counts_judged(const struct mct_request *q);

/* A judge for gates g (NULL or none wanted: only fail-over-ms), warm-up
 * calls timed too when include_warmup, a plain fail-over-ms of
 * fail_over_ms (< 0: none; ignored when g has a percentile, which takes it
 * as its limit). NULL with e set (out of memory). Free with replies_free. */
replies *replies_new(const struct gates *g, int include_warmup, double fail_over_ms, mct_err *e);

/* Frees r; NULL is fine. */
void replies_free(replies *r);

/* A call read (methods in tab, not kept): counted and tallied. 1 when the
 * timing rules judge it, 0 when they leave it out (warm-up), -1 with e set
 * (out of memory; from then on the verdict is that error, naming the
 * call). */
int replies_call(replies *r, const call_tab *tab, const mct_call *c, mct_err *e);

/* Whether call c, judged by replies_call, is over a plain fail-over-ms. */
int replies_over(const replies *r, const mct_call *c);

/* The final summary (read by sum_read, so checked; r takes it, and frees
 * it with the one before): judged instead of the calls. */
void replies_final(replies *r, sum *summary);

/* The counts so far. */
struct replies_counts replies_counts(const replies *r);

/* Whether g's gates are to be judged (replies_verdict has something to say). */
int replies_gated(const replies *r);

/* The gates' verdict over what was read, one message per failed gate
 * appended to failures (a JSON array): 1 failed, 0 passed, -1 with e set
 * (what made judging impossible). */
int replies_verdict(const replies *r, json_t *failures, mct_err *e);

/* A case of replies_cases: gate, passed, failures (a JSON array of
 * strings, its reference taken; NULL: none). A new reference, or NULL
 * (out of memory). */
json_t *replies_case_new(const char *gate, int passed, json_t *failures);

/* Each gate's verdict over what was read, as replies_verdict judges them
 * but one gate at a time, in the order max-calls, percentile, budgets: one
 * object per gate appended to cases (a JSON array), {"gate": its option
 * and text, "passed": true|false, "failures": [its messages]}. A gate with
 * no call to judge fails, saying so. 0, or -1 with e set (what made
 * judging impossible). Nothing is appended when not gated. */
int replies_cases(const replies *r, json_t *cases, mct_err *e);

#endif
