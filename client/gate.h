/* gate.h — the CI gates over the calls of a session: call
 * counts per entry call (--max-calls), a percentile of the entry method's
 * duration (--percentile with --fail-over-ms), per-node time budgets at
 * a percentile (--budget, CPU times too) and per-node allocations in one
 * entry call (--max-alloc). They are judged on a summary (the compact sum
 * of protocol/summary.h): in the per-call mode the client feeds every call
 * it receives into the gate's own summary (through gate_judge) and judges
 * it at the end (gate_finish); with an agent's summary (--aggregate, read
 * by sum_read), gate_check judges that. A thin layer over
 * protocol/gates.h, which the agent's startup trace shares. A failed gate is
 * said on the given stream, one line each ("mcalltree: " first, " (exit
 * status 4)" last), naming the method or node, the figure measured and the
 * limit.
 *
 * Ownership: a gate borrows the struct cli it was made from (its names
 * point into argv) for its whole life; it owns its summary. */
#ifndef MCT_GATE_H
#define MCT_GATE_H

#include <stdio.h>

#include <jansson.h>

#include "call.h"
#include "cli.h"
#include "err.h"
#include "junit.h"
#include "replies.h"
#include "msg.h"

typedef struct gate gate;
struct out;

/* Whether c sets a gate judged on a summary (--max-calls, --percentile,
 * --budget); the plain --fail-over-ms judges single calls, not these. */
int gate_wanted(const struct cli *c);

/* Whether an agent's summary object carries the percentile p of the entry
 * method's duration (50, 90, 99 and 100, as p50_ns, p90_ns, p99_ns,
 * entry_max_ns); other percentiles need the calls (the per-call mode). */
int gate_percentile_in_summary(double p);

/* Whether the timing gates (and a plain --fail-over-ms) judge call: a
 * warm-up call ("warmup":true) only with --include-warmup; the call-count
 * gates judge every call (protocol/replies.h says the one rule). */
int gate_judges(const struct cli *c, const mct_call *call);

/* A gate for c's gates, or NULL with e set (out of memory). Free with
 * gate_free. */
gate *gate_new(const struct cli *c, mct_err *e);

/* Frees g; NULL is fine. */
void gate_free(gate *g);

/* Checks that every method a gate names is traced by the plan: 0, or -1
 * with e set (MCT_E_ARG) naming the first that matches no method of the
 * plan, or only methods it does not trace (left out by the regex, not
 * rewritable). A plan that hit its cap may lack the method: then a warning
 * on err, not an error. */
int gate_plan_check(const gate *g, const struct msg_plan *plan, FILE *err, mct_err *e);

/* The judge of the calls received (per-call mode), borrowed until
 * gate_free: the reader of the session's replies (protocol/reader.h) hands
 * it every call, warm-up or not (replies_call). */
replies *gate_judge(gate *g);

/* Judges summary (read by sum_read, so checked) against the gates, writing
 * a line on err for each failure: 1 when a gate failed (exit status 4), 0
 * when all hold, -1 with e set when the summary lacks what a gate needs (a
 * percentile it does not carry). A summary of no call fails: nothing to
 * judge. */
int gate_check(const gate *g, const sum *summary, FILE *err, mct_err *e);

/* Judges the calls added with gate_add_call, as gate_check does (the
 * percentile of --percentile from the calls' own durations, any P). */
int gate_finish(const gate *g, FILE *err, mct_err *e);

/* The verdict of each gate of g, from what gate_check and gate_finish
 * judged (the final summary or the calls), as replies_cases gives them
 * (objects {"gate","passed","failures"}); when the gates cannot be judged,
 * one failed case "the gates" with the reason. A new reference, or NULL
 * with e set (out of memory). */
json_t *gate_cases(const gate *g, mct_err *e);

/* A one-case array saying the gates were not judged: why (copied). A new
 * reference, or NULL (out of memory). */
json_t *gate_unjudged(const char *why);

/* Records cases (gate_cases, gate_unjudged, or a file's: members of the
 * wrong type are read as absent) in ju under suite, one test case each, a
 * failed one with its messages; 0, or -1 out of memory. */
int gate_cases_junit(const json_t *cases, junit *ju, const char *suite);

/* The verdicts of g for who shows them: gate_cases when judged, else
 * gate_unjudged(why); a fact "gates" of o (the page of -f html shows it)
 * and, when junit_path is not NULL, a JUnit report of one suite there.
 * 0, or -1 with e set (out of memory, the report not written). */
int gate_report(const gate *g, int judged, const char *why, struct out *o, const char *junit_path, const char *suite,
                mct_err *e);

#endif
