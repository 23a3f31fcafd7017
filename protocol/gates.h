/* gates.h — the CI gates, shared by the client (its options
 * --max-calls, --percentile with --fail-over-ms, --budget, --max-alloc) and
 * the agent (the startup items max-calls=, percentile=, fail-over-ms=,
 * budget=, max-alloc=): the
 * gates' specs, the one parser of a gate's text, and the judging of a
 * summary (the compact sum of protocol/summary.h) or of calls tallied one
 * by one.
 *
 * A gate is written the same way in both programs; `prefix` says how a
 * message names its option: "--" for the client's options ("--max-calls
 * a.B.c=3: ..."), "" for the agent's items ("max-calls a.B.c=3: ...").
 *
 * Judging writes one message per failed gate, as a JSON string appended to
 * a caller's array, with no program prefix and no exit status: the client
 * prints each as "mcalltree: MESSAGE (exit status 4)", the agent puts them
 * into its `gate` line.
 *
 * Ownership: the specs borrow the text they were parsed from (arg and the
 * name point into it) for their whole life; struct gates borrows the specs.
 * A gates_tally owns its summary and histogram. */
#ifndef MCT_GATES_H
#define MCT_GATES_H

#include <stddef.h>

#include <jansson.h>

#include "call.h"
#include "err.h"
#include "summary.h"

#define GATES_MAX 64            /* most max-calls gates, and most budgets */
#define GATES_NAME_MAX 1024     /* longest class, method name or descriptor */

/* A method named by a gate: CLASS.METHOD or CLASS.METHOD(DESC)RET, pointing
 * into the gate's text; desc_len 0 = every overload. */
struct gates_name {
    const char *class_name, *method, *desc;
    size_t class_len, method_len, desc_len;
};

/* max-calls CLASS.METHOD=N: at most n calls of the method in one entry call;
 * max-alloc CLASS.METHOD=BYTES: each node of the method allocates at most
 * n bytes in one entry call (its alloc_entry_max_bytes). */
struct gates_max_calls {
    const char *arg;                /* the gate's text, for messages */
    struct gates_name name;
    long long n;
};

/* The statistic a budget limits: a node's time, or its CPU time (--cpu),
 * within one entry call. */
enum gates_stat {
    GATES_STAT_P50, GATES_STAT_P90, GATES_STAT_P99, GATES_STAT_MAX,
    GATES_STAT_CPU_P50, GATES_STAT_CPU_P90, GATES_STAT_CPU_P99, GATES_STAT_CPU_MAX
};

/* Whether s limits a CPU time (cpu_p50 ...: the calls must carry them). */
int gates_stat_cpu(enum gates_stat s);

/* budget CLASS.METHOD:STAT=MS: the method's nodes keep STAT under ms. */
struct gates_budget {
    const char *arg;
    struct gates_name name;
    enum gates_stat stat;
    double ms;
};

/* The gates of one trace, as judged (a view over the caller's specs). */
struct gates {
    const char *prefix;                     /* "--" (client) or "" (agent) */
    const char *class_name, *method, *desc; /* the entry method, for messages */
    const struct gates_max_calls *max_calls;
    size_t n_max_calls;
    const struct gates_budget *budgets;
    size_t n_budgets;
    const struct gates_max_calls *max_alloc;    /* their n: bytes */
    size_t n_max_alloc;
    double percentile;                      /* 0 < P <= 100; 0 = unset */
    double fail_over_ms;                    /* the limit of that percentile */
    long long min_calls;                    /* calls enough for a percentile; 0 = gates_calls_needed's */
};

/* How many entry calls a timing gate at percentile p (0 < p <= 100) needs
 * to be judged: g's min_calls when set, else the fewest calls of which the
 * p-th percentile is not the slowest (ceil(100 / (100 - p)): 2 for p50, 10
 * for p90, 100 for p99; 1 for p100). Fewer calls fail the gate, saying so. */
long long gates_calls_needed(const struct gates *g, double p);


/* The one parser of a gate's text (arg, borrowed by *out): max-calls
 * "CLASS.METHOD[(DESC)RET]=N", max-alloc "CLASS.METHOD[(DESC)RET]=BYTES",
 * budget "CLASS.METHOD[(DESC)RET]:STAT=MS",
 * percentile "P" (0 < P <= 100), a number of milliseconds "MS" (>= 0; name
 * is the option's name without prefix, e.g. "fail-over-ms"). prefix as in
 * struct gates. 0, or -1 with e set (MCT_E_ARG) saying what is wrong. */
int gates_parse_max_calls(const char *prefix, const char *arg, struct gates_max_calls *out, mct_err *e);
int gates_parse_max_alloc(const char *prefix, const char *arg, struct gates_max_calls *out, mct_err *e);
int gates_parse_budget(const char *prefix, const char *arg, struct gates_budget *out, mct_err *e);
int gates_parse_percentile(const char *prefix, const char *arg, double *out, mct_err *e);
int gates_parse_ms(const char *prefix, const char *name, const char *arg, double *out, mct_err *e);

/* Whether g sets a gate judged on a summary. */
int gates_wanted(const struct gates *g);

/* Whether the method (cls, method, desc) is the one n names; NULL names
 * never match. */
int gates_name_matches(const struct gates_name *n, const char *cls, const char *method, const char *desc);

/* Whether a summary object carries the percentile p of the entry method's
 * duration (50, 90, 99 and 100: p50_ns, p90_ns, p99_ns, entry_max_ns). */
int gates_percentile_in_summary(double p);

/* Judges summary (read by sum_read, so checked, or made of calls) against g,
 * appending one message per failed gate to failures (a JSON array): 1 when
 * a gate failed, 0 when all hold, -1 with e set when the summary lacks a
 * percentile g needs, the CPU times of a cpu_ budget or the allocations of
 * max-alloc, or out of memory. entry: the entry calls' durations,
 * for any percentile, or NULL (then the summary's). A summary of no call
 * fails: nothing to judge; so do a percentile or a p50/p90/p99 budget over
 * fewer entry calls than gates_calls_needed. */
int gates_judge(const struct gates *g, const sum *summary, const struct sum_hist *entry, json_t *failures,
                mct_err *e);

/* Calls tallied one by one (every `call` object of a trace) into a summary
 * and a histogram of the entry calls' durations, to be judged at the end. */
typedef struct gates_tally gates_tally;

/* A new empty tally, or NULL with e set. Free with gates_tally_free. */
gates_tally *gates_tally_new(mct_err *e);

/* Frees t; NULL is fine. */
void gates_tally_free(gates_tally *t);

/* Adds call c (methods in tab; a model that passed call_check, not kept)
 * to what the call-count gates judge, and when timed to what the timing
 * gates (percentile, budgets) judge too; 0 or -1 with e set (out of
 * memory). */
int gates_tally_add(gates_tally *t, const call_tab *tab, const mct_call *c, int timed, mct_err *e);

/* Judges the calls tallied, as gates_judge (any percentile): max-calls
 * over every call, the percentile, the budgets and max-alloc (the JIT's
 * escape analysis changes what a call allocates) over the timed ones. */
int gates_tally_judge(const gates_tally *t, const struct gates *g, json_t *failures, mct_err *e);

#endif
