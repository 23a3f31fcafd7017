/* trace.c — see trace.h. */
#include "trace.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "conn.h"
#include "call.h"
#include "exit.h"
#include "fmtutil.h"
#include "gate.h"
#include "intr.h"
#include "log.h"
#include "mtime.h"
#include "msg.h"
#include "output.h"
#include "reader.h"
#include "summary.h"

/* An optional count of a message read by msg.h (-1: absent) as a number. */
static long long nz(long long n)
{
    return n < 0 ? 0 : n;
}

/* --- the plan ----------------------------------------------------------------------------- */

/* Writes the plan level by level: status, method, reason; what the agent
 * sends through fu_put_text, so that no name drives the terminal. */
static void print_plan(FILE *f, const struct msg_plan *plan)
{
    long long level, max_level = 0;
    size_t i;

    for (i = 0; i < plan->n_methods; i++)
        if (plan->methods[i].level > max_level)
            max_level = plan->methods[i].level;
    for (level = 1; level <= max_level; level++) {
        fprintf(f, "level %lld%s\n", level, level == 1 ? " (entry)" : "");
        for (i = 0; i < plan->n_methods; i++) {
            const struct msg_plan_method *m = &plan->methods[i];
            const char *reason = m->reason != NULL ? m->reason : "";

            if (m->level != level)
                continue;
            fputs("  ", f);
            fu_put_text(f, m->status);
            for (size_t w = fu_width(m->status); w < 12; w++)
                fputc(' ', f);
            fputc(' ', f);
            fu_put_text(f, m->cls);
            fputc('.', f);
            fu_put_text(f, m->method);
            fu_put_text(f, m->desc);
            if (reason[0]) {
                fputs("  -- ", f);
                fu_put_text(f, reason);
            }
            fputc('\n', f);
        }
    }
}

/* One line on stderr: what is traced and what was left out. */
static void print_summary(const struct cli *c, const struct msg_plan_summary *s)
{
    long long skipped = s->skipped + s->failed;

    fprintf(stderr, "mcalltree: tracing %s.%s%s, %lld level%s: %lld method%s instrumented", c->req.cls,
            c->req.method, req_desc(&c->req), c->req.depth, c->req.depth == 1 ? "" : "s", s->instrumented,
            s->instrumented == 1 ? "" : "s");
    if (s->pending > 0)
        fprintf(stderr, ", %lld when their class loads", s->pending);
    if (skipped > 0)
        fprintf(stderr, ", %lld could not be", skipped);
    if (s->excluded > 0)
        fprintf(stderr, ", %lld left out", s->excluded);
    if (s->trivial > 0)
        fprintf(stderr, ", %lld trivial %s", s->trivial, s->trivial == 1 ? "one left as it is" : "ones left as they are");
    fprintf(stderr, " (%.0f ms); %s to stop\n", s->plan_ms + s->instrument_ms,
            c->req.count > 0 ? "after the calls asked for, or Ctrl-C" : "Ctrl-C");
    log_verbose("planned in %.1f ms over %lld loaded classes, instrumented in %.1f ms; clock: %s; probes: %s",
                s->plan_ms, s->loaded_classes, s->instrument_ms, s->clock, s->probes != NULL ? s->probes : "native");
    if (skipped > 0)
        log_error("%lld method%s could not be instrumented; -v lists %s with the reason", skipped,
                  skipped == 1 ? "" : "s", skipped == 1 ? "it" : "them");
}

/* On stderr, whatever the form (a trace, --plan, --plan -f json): a plan
 * that hit the agent's cap, and a regex that matched none of the classes
 * the entry method's calls reach (with the agent's suggestion). */
static void warn_plan(const struct cli *c, const struct msg_plan *plan)
{
    const struct msg_plan_summary *s = &plan->summary;
    long long callees = nz(s->callee_classes);

    if (s->capped)
        log_error("the plan was capped at %zu methods, so methods of its deepest levels are missing; lower "
                  "the depth or narrow the regex", plan->n_methods);
    if (c->req.depth < 2 || callees == 0 || s->matched_classes != 0)
        return;
    if (s->suggestion != NULL)
        log_error("the regex '%.300s' matched none of the %lld callee class%s, so nothing below the entry "
                  "method is traced; did you mean '%.300s' (it matches %lld of them)?",
                  c->req.regex, callees, callees == 1 ? "" : "es", s->suggestion, nz(s->suggestion_matches));
    else
        log_error("the regex '%.300s' matched none of the %lld callee class%s, so nothing below the entry "
                  "method is traced; it must match whole class names, as 'com\\.shop\\..*' matches "
                  "the classes of package com.shop",
                  c->req.regex, callees, callees == 1 ? "" : "es");
}

/* The last line of the --plan text: the summary's counts, the time, what
 * the regex matched, and the cap. */
static void print_plan_summary(FILE *f, const struct msg_plan *plan)
{
    const struct msg_plan_summary *s = &plan->summary;

    fprintf(f, "summary: %lld to instrument, %lld when their class loads, %lld left out; planned in %.1f ms "
               "over %lld loaded classes",
            s->planned, s->pending, s->excluded, s->plan_ms, s->loaded_classes);
    if (s->callee_classes >= 0)
        fprintf(f, "; the regex matched %lld of %lld callee classes", nz(s->matched_classes),
                s->callee_classes);
    if (s->capped)
        fprintf(f, "; capped at %zu methods", plan->n_methods);
    fputc('\n', f);
}

/* --- the session ---------------------------------------------------------------------------- */

struct run {
    const struct cli *c;
    const struct proc_target *t;
    int fd;
    out *out;
    int stop_sent;
    double stop_at;      /* when the stop was sent (ms) */
    double deadline;     /* --timeout, in mct_now_ms() time; 0 = none */
    long long printed;
    long long parented;  /* of those, calls with a trace_parent (--trace-context) */
    long long judged;    /* calls the timing gates judge (not warm-up ones, unless asked) */
    int counted;         /* -n calls judged (replies_counts_judged): the rest is ignored */
    int over;            /* a call took longer than --fail-over-ms */
    int output_broken;
    int output_abandoned;/* given up, blocked when a stop was due (out_abandon) */
    int rc;
    double probe_ns;     /* subtracted per probe call; 0 = nothing */
    int probe_warned;    /* said that durations near it are not trustworthy */
    double started_at;   /* when the plan came (ms) */
    int receiver;        /* only calls on the named class are traced (inherited entry) */
    long long unloaded;  /* instrumented classes said to be unloaded */
    gate *gate;          /* --max-calls, --percentile, --budget; NULL: none */
    long long aggregated;/* --aggregate: entry calls in the final summary */
    int final_seen;      /* --aggregate: the final summary came */
    int final_verdict;   /* --aggregate: gate_check on the final summary (1 failed) */
    int gates_judged;    /* judge_gates ran: the gates have their verdicts */
    proto_rbuf rb;       /* the session's messages, read many at a time */
    double bytes_at;     /* when bytes last came (ms) */
    double ready_at;     /* when it was last ready to read (ms) */
    double deaf_ms;      /* the longest it was not (busy, stopped, output blocked) */
    call_tab tab;        /* the calls' methods (compact: as defined) */
    mct_call rec;        /* the last call */
    reader rd;           /* the session's replies, to the callbacks below */
    int rd_rc;           /* the exit status an end or an error gave */
    json_t *plan;        /* await_plan: the plan that came, until it returns it */
};

/* Durations within this many probe costs of 0 are not trustworthy. */
#define PROBE_NEAR 2

/* Says what the agent subtracts per probe call (from the plan's summary):
 * with -v the figure and its spread; always, when it could not be trusted. */
static void print_probe(struct run *r, const struct msg_plan_summary *s)
{
    const struct msg_probe *p = &s->probe;

    if (!s->has_probe) {
        log_verbose("the cost of a probe call could not be measured: nothing is subtracted from the durations");
        return;
    }
    r->probe_ns = p->ns;
    log_verbose("a probe call costs %.1f ns (the cheapest of %lld bursts; median %.1f ns; recording alone "
                "%.1f ns); %.1f ns is subtracted from a duration per probe call",
                p->measured_ns, p->bursts, p->median_ns, p->floor_ns, r->probe_ns);
    if (!p->trusted) {
        double measured = p->measured_ns;
        double floor_ns = p->floor_ns;

        log_error("the cost of a probe call could not be measured reliably: %.1f ns, %.0f times the %.1f ns of "
                  "recording an event (the JVM had not compiled the probes, or the machine is busy); %.1f ns is "
                  "subtracted per probe call, "
                  "and durations under %.0f ns are not trustworthy",
                  measured, floor_ns > 0 ? measured / floor_ns : 0, floor_ns, r->probe_ns,
                  PROBE_NEAR * r->probe_ns);
        r->probe_warned = 1;
    }
}

/* Says, once, that durations near the probe cost are not trustworthy. */
static void say_short(struct run *r)
{
    r->probe_warned = 1;
    log_error("durations under %.0f ns are not trustworthy: a probe call costs about %.1f ns, which is "
              "subtracted from every duration, and some calls took less than %d times that",
              PROBE_NEAR * r->probe_ns, r->probe_ns, PROBE_NEAR);
}

/* Once per session: a printed call has durations that are mostly probe
 * cost, which the subtraction cannot make exact. */
static void warn_short(struct run *r, const mct_call *c)
{
    double limit = PROBE_NEAR * r->probe_ns;

    for (size_t i = 0; !r->probe_warned && r->probe_ns > 0 && i < c->n_nodes; i++)
        if (c->nodes[i].calls > 0 && (double)c->nodes[i].min_ns < limit)
            say_short(r);
}

/* --fail-over-ms on a call numbered seq of root duration total_ns. */
static void check_over(struct run *r, long long seq, double total_ns)
{
    /* With --percentile, --fail-over-ms judges the run, not each call. */
    if (r->c->req.fail_over_ms >= 0 && r->c->req.percentile == 0 && total_ns > r->c->req.fail_over_ms * 1e6) {
        /* The reason for exit status 4, said once. */
        if (!r->over)
            log_error("call #%lld took %.3f ms, over --fail-over-ms %g (exit status 4)", seq, total_ns / 1e6,
                      r->c->req.fail_over_ms);
        r->over = 1;
    }
}

/* A stop is due at at_ms: a write blocked then is interrupted. */
static void stop_due_at(double at_ms)
{
    mct_err e;

    if (intr_stop_due_at(at_ms, &e) < 0)
        log_verbose("a blocked output may hold up the stop: %s", e.msg);
}

static void send_stop(struct run *r, const char *reason)
{
    json_t *msg;
    mct_err e;

    if (r->stop_sent)
        return;
    r->stop_sent = 1;
    r->stop_at = mct_now_ms();
    /* From now on a blocked output must not hold up the end. */
    stop_due_at(r->stop_at);
    log_verbose("stopping the session (%s); waiting for the agent to restore the classes", reason);
    msg = msg_stop_write(&(struct msg_stop){ .reason = reason });
    if (msg != NULL && proto_write(r->fd, msg, &e) < 0)
        log_verbose("could not send stop: %s", e.msg);
    json_decref(msg);
}

/* The output could not be written (e, errno kept): a closed pipe ends the
 * session quietly, anything else with an error. */
static void output_failed(struct run *r, const mct_err *e)
{
    /* A write blocked until a stop was due (nobody reads the output): the
     * output is given up, and the stop (the loop sends it) goes on. */
    if (errno == EINTR && intr_stop_due()) {
        log_verbose("the output is not being read: left behind, as the session stops");
        out_abandon(r->out);
        r->output_broken = r->output_abandoned = 1;
        return;
    }
    if (errno != EPIPE) {
        log_error("%s", e->msg);
        r->rc = MCT_EXIT_INTERNAL;
    }
    r->output_broken = 1;
    send_stop(r, "output closed");
}

/* A call, compact or JSON: to the output, then to the gates. */
static int on_call(void *ctx, const call_tab *tab, const mct_call *c)
{
    struct run *r = ctx;
    mct_err e;

    /* -n judged calls were seen: what still comes is not the session's. */
    if (r->counted)
        return 0;
    if (!r->output_broken && out_call(r->out, tab, c, &e) < 0) {
        output_failed(r, &e);
    } else if (!r->output_broken) {
        r->printed++;
        r->parented += (c->flags & CALL_F_PARENT) != 0;
        warn_short(r, c);
    }
    /* The reader hands the call to the gates' judge too, whatever became of
     * the output. */
    if (!gate_judges(r->c, c))
        return 0;
    r->judged++;
    check_over(r, (long long)c->seq, (double)c->nodes[0].total_ns);
    if (replies_counts_judged(&r->c->req) && r->judged >= r->c->req.count) {
        r->counted = 1;
        send_stop(r, "count");
    }
    return 0;
}

/* A plain --fail-over-ms with --aggregate: the longest entry call of the
 * run (the final summary's entry_max_ns) judges it. */
static void over_in_summary(struct run *r, const sum *summary)
{
    const sum_node *root = sum_root(summary);
    struct sum_view v;
    double ms;

    if (r->c->req.fail_over_ms < 0 || r->c->req.percentile != 0 || root == NULL)
        return;
    sum_node_view(summary, root, &v);
    ms = (double)v.entry_max_ns / 1e6;
    if (ms > r->c->req.fail_over_ms) {
        log_error("the slowest call took %.3f ms, over --fail-over-ms %g (exit status 4)", ms,
                  r->c->req.fail_over_ms);
        r->over = 1;
    }
}

/* A summary (--aggregate), read by sum_read (checked): to the output as
 * it comes. */
static int on_summary(void *ctx, const sum *summary, const struct sum_info *info)
{
    struct run *r = ctx;
    struct sum_totals t;
    mct_err e;

    sum_totals(summary, &t);
    if (info->final) {
        r->final_seen = 1;
        r->aggregated = (long long)sum_calls(summary);
        if (r->gate != NULL && (r->final_verdict = gate_check(r->gate, summary, stderr, &e)) < 0) {
            log_error("judging the gates: %s", e.msg);
            r->rc = MCT_EXIT_INTERNAL;
        }
        over_in_summary(r, summary);
        if (t.folded > 0)
            log_error("the summary reached its budget (%zu MiB in the JVM): %llu calls on paths past it "
                      "(recursion, or very many call paths) were folded into \"%s\" nodes%s",
                      SUM_BUDGET_BYTES >> 20, (unsigned long long)t.folded, SUM_OTHER_CLASS,
                      t.coarse > 0 ? ", and some percentiles are coarser" : "");
    }
    if (!r->output_broken && out_summary(r->out, summary, info->final, &e) < 0)
        output_failed(r, &e);
    return 0;
}

/* Instrumented classes were unloaded (n so far): said at once the first
 * time, then at the end if more were. */
static void say_unloaded(struct run *r, long long n, int final)
{
    if (n <= r->unloaded)
        return;
    if (r->unloaded == 0)
        log_error("%lld instrumented class%s unloaded: %s class loader was collected (an application "
                  "undeployed or redeployed, a plugin dropped); a copy that loads again is instrumented "
                  "as it loads", n, n == 1 ? " was" : "es were", n == 1 ? "its" : "their");
    else if (final)
        log_error("in all, %lld instrumented classes were unloaded during the session", n);
    r->unloaded = n;
}

static int on_status(void *ctx, const json_t *msg)
{
    struct run *r = ctx;
    struct msg_status m;
    const char *note;
    mct_err e;

    if (msg_status_read(msg, &m, &e) < 0) {
        log_verbose("ignoring a status: %s", e.msg);
        return 0;
    }
    note = m.note;
    say_unloaded(r, nz(m.unloaded_classes), 0);
    /* Where --trace-context reads from, and whether it can yet: what the
     * calls carry depends on it, so it is said without -v. */
    if (m.note != NULL && strncmp(m.note, "--trace-context ", 16) == 0) {
        log_error("%s", m.note);
        note = "";
    }
    if (m.calls < 0 && note != NULL) {
        if (note[0])
            log_verbose("%s", note);
        return 0;
    }
    log_verbose("%lld call%s completed, %lld printed, %lld under --min-ms, %lld not traced (busy), "
                "%lld method%s instrumented (%lld as their class loaded), %lld waiting for their class%s%s",
                nz(m.calls), m.calls == 1 ? "" : "s", nz(m.printed), nz(m.filtered), nz(m.dropped),
                nz(m.instrumented), m.instrumented == 1 ? "" : "s", nz(m.late), nz(m.pending),
                note != NULL && note[0] ? "; " : "", note != NULL ? note : "");
    return 0;
}

/* Warm-up calls (end's warmup), said once at the end: what they are, and
 * whether the summary and the gates left them out; or why the agent could
 * not tell them, and the methods it stopped waiting for. */
static void say_warmup(const struct run *r, const struct msg_end *end)
{
    const char *left_out = "";
    long long n = nz(end->warmup);

    if (end->warmup_unknown != NULL)
        log_error("warm-up calls cannot be told: %s; no call is marked \"warmup\":true, and summaries and gates "
                  "count the first calls, which may run interpreted", end->warmup_unknown);
    if (end->not_recompiled > 0)
        log_error("%lld instrumented method%s not compiled again by the JIT within 30 s of instrumenting (too "
                  "big once instrumented, code cache full, or not compilable): the calls after that are not "
                  "marked warm-up though %s may run interpreted",
                  end->not_recompiled, end->not_recompiled == 1 ? " was" : "s were",
                  end->not_recompiled == 1 ? "it" : "they");
    if (r->c->req.aggregate && !r->c->req.include_warmup)
        left_out = "; left out of the summary and the gates (--include-warmup counts them)";
    else if ((r->gate != NULL || r->c->req.fail_over_ms >= 0) && !r->c->req.include_warmup)
        left_out = "; not judged by the gates (--include-warmup judges them)";
    if (n > 0)
        log_error("%lld warm-up call%s (begun before the JIT had compiled the instrumented methods again), "
                  "marked \"warmup\":true%s", n, n == 1 ? "" : "s", left_out);
    if (n > 0 && left_out[0] && (r->c->req.aggregate ? r->final_seen && r->aggregated == 0 : r->judged == 0))
        log_error("every call was warm-up: each ran a method the JIT had compiled before the session and had "
                  "not compiled again since (it takes a method a few hundred calls, and a call stops being "
                  "warm-up at most 30 s after instrumenting): trace for longer, or count them with "
                  "--include-warmup");
}

/* At the end of a session that printed nothing: why, as far as the
 * agent's counts tell. */
static void say_no_call(const struct run *r, const struct msg_end *end)
{
    const struct cli *c = r->c;
    long long calls = end->calls, filtered = end->filtered;

    if (r->printed > 0 || r->aggregated > 0 || calls < 0)
        return;
    if (calls == 0) {
        log_error("no call of %s.%s%s completed during the session (%.1f s): it was not called, or its calls "
                  "had not returned (a call already running when tracing began is not traced)%s%s%s",
                  c->req.cls, c->req.method, req_desc(&c->req), (mct_now_ms() - r->started_at) / 1e3,
                  r->receiver ? ", or it ran on instances of other classes (it is inherited: only its calls "
                                "on an instance of " : "",
                  r->receiver ? c->req.cls : "", r->receiver ? " are traced)" : "");
    } else if (filtered == calls) {
        log_error("%lld call%s of %s.%s%s completed, all under --min-ms %g", calls, calls == 1 ? "" : "s",
                  c->req.cls, c->req.method, req_desc(&c->req), c->req.min_ns / 1e6);
    }
}

/* The gates on the calls received (per-call mode) or on the agent's final
 * summary (--aggregate): the exit status, with a plain --fail-over-ms's
 * verdict. */
static int judge_gates(struct run *r)
{
    mct_err e;
    int rc = r->c->req.aggregate ? r->final_verdict : gate_finish(r->gate, stderr, &e);

    r->gates_judged = rc >= 0;
    if (rc < 0) {
        log_error("judging the gates: %s", e.msg);
        return MCT_EXIT_INTERNAL;
    }
    return rc > 0 || r->over ? MCT_EXIT_FAILOVER : MCT_EXIT_OK;
}

/* The session's end as the agent reports it; returns the exit status. */
static int end_status(struct run *r, const json_t *msg)
{
    struct msg_end m;
    long long busy;
    mct_err e;

    if (msg_end_read(msg, &m, &e) < 0) {
        log_error("reading the agent's end: %s", e.msg);
        return MCT_EXIT_INTERNAL;
    }
    out_fact(r->out, "end", msg);
    /* Calls left at the end were asked away; calls refused meanwhile were not. */
    busy = nz(m.dropped) - nz(m.discarded);
    if (strcmp(m.reason, "jvm_exit") == 0) {
        log_error("the target JVM is exiting; %lld call%s printed", r->printed, r->printed == 1 ? "" : "s");
        return MCT_EXIT_INTERNAL;
    }
    if (strcmp(m.reason, "protocol_error") == 0) {
        log_error("the agent ended the session: it could not read this client's messages");
        r->rc = MCT_EXIT_INTERNAL;
    }
    log_verbose("session ended (%s): %lld call%s completed, %lld printed, %lld under --min-ms, "
                "%lld left unsent at the end, %lld not traced; %lld classes restored, %lld still "
                "instrumented; %lld warm-up; %lld entry call%s seen",
                m.reason, nz(m.calls), m.calls == 1 ? "" : "s", nz(m.printed), nz(m.filtered),
                nz(m.discarded), busy, nz(m.restored_classes), nz(m.instrumented_classes), nz(m.warmup),
                nz(m.seen), m.seen == 1 ? "" : "s");
    say_warmup(r, &m);
    if (m.trace_context_bad > 0)
        log_error("%lld call%s had a trace context on %s thread that could not be read (not a W3C traceparent, "
                  "or not the OpenTelemetry layout --trace-context knows): sent without trace_parent",
                  m.trace_context_bad, m.trace_context_bad == 1 ? "" : "s", m.trace_context_bad == 1 ? "its" : "their");
    if (r->c->req.trace_context != NULL && r->printed > 0 && r->parented == 0 && m.trace_context_bad <= 0)
        log_error("--trace-context %s: none of the %lld call%s printed had a trace context on %s thread as it "
                  "began", r->c->req.trace_context, r->printed, r->printed == 1 ? "" : "s",
                  r->printed == 1 ? "its" : "their");
    if (m.has_probe)
        log_verbose("this session's probe call cost %.1f ns (median %.1f ns, %s), %.1f ns subtracted per call",
                    m.probe.measured_ns, m.probe.median_ns, m.probe.trusted ? "trusted" : "not trusted",
                    m.probe.ns);
    if (busy > 0)
        log_error("%lld call%s of the entry method %s not traced: the agent had not yet taken the "
                  "earlier ones (they completed faster than it builds trees, or this client read slowly)",
                  busy, busy == 1 ? "" : "s", busy == 1 ? "was" : "were");
    if (m.instrumented_classes > 0)
        log_error("the agent could not restore %lld classes", m.instrumented_classes);
    say_unloaded(r, nz(m.unloaded_classes), 1);
    if (r->c->req.aggregate && !r->final_seen && r->rc == MCT_EXIT_OK) {
        log_error("the agent ended the session without its final summary: it could not write it (the "
                  "JVM's stderr says why)");
        r->rc = MCT_EXIT_INTERNAL;
    }
    if (r->rc != MCT_EXIT_OK)
        return r->rc;
    if (busy <= 0)
        say_no_call(r, &m);
    if (r->gate != NULL)
        return judge_gates(r);
    if (r->c->req.fail_over_ms >= 0 && r->judged == 0 && r->aggregated == 0) {
        log_error("--fail-over-ms %g: no call to judge, %s (exit status 4)", r->c->req.fail_over_ms,
                  r->printed == 0 ? "none was printed" : "all were warm-up calls (--include-warmup judges them)");
        return MCT_EXIT_FAILOVER;
    }
    return r->over ? MCT_EXIT_FAILOVER : MCT_EXIT_OK;
}

/* The longest wait for the agent's messages. */
#define READ_WAIT_MS 200

/* 1 when the target is gone, given up to a second to finish exiting: a
 * killed JVM's sockets close before the kernel makes it a zombie. */
static int target_gone(const struct run *r)
{
    for (int i = 0; i < 20; i++) {
        if (!proc_alive(r->t))
            return 1;
        usleep(50 * 1000);
    }
    return 0;
}

/* The connection ended without an `end`: the JVM died, or the agent. */
static int on_eof(struct run *r)
{
    if (r->output_abandoned && intr_count() > 0 && proc_alive(r->t)) {
        /* Asked to stop, with an output nobody read: the agent let this
         * client go while it was blocked, and restored the classes. */
        log_error("the output was not being read: the agent ended the session on its side; stopped as asked");
        return MCT_EXIT_OK;
    }
    if (target_gone(r)) {
        log_error("the target JVM (pid %d) exited during the session; %lld call%s printed", (int)r->t->pid,
                  r->printed, r->printed == 1 ? "" : "s");
    } else if (r->deaf_ms + READ_WAIT_MS + 1 >= PROTO_STALL_S * 1000) {
        /* A stop within a wait is measured from the wait's end. */
        log_error("the agent closed the connection without ending the session: it does so when this "
                  "client reads nothing for %d s, and this client read nothing for at least %.1f s (it was "
                  "stopped, or its output blocked)", PROTO_STALL_S, r->deaf_ms / 1000);
    } else {
        log_error("the agent closed the connection without ending the session, although this client "
                  "kept reading (it paused %.1f s at most, under the %d s the agent allows): see the "
                  "JVM's stderr", r->deaf_ms / 1000, PROTO_STALL_S);
    }
    return MCT_EXIT_INTERNAL;
}

/* A signal after the stop: the client leaves without the agent's end. */
static int interrupted_again(void)
{
    log_error("interrupted again: not waiting for the agent (it restores the classes when it sees "
              "this client gone)");
    return MCT_EXIT_INTERNAL;
}

/* When the client stops waiting for the end: TRACE_END_TIMEOUT_MS after
 * the stop, or after the last bytes while they come (a big final summary). */
static double end_due(const struct run *r)
{
    return (r->stop_at > r->bytes_at ? r->stop_at : r->bytes_at) + TRACE_END_TIMEOUT_MS;
}

/* The stop was sent, and nothing came for TRACE_END_TIMEOUT_MS. */
static int end_timed_out(void)
{
    log_error("the agent did not confirm the end of the session within %d s", TRACE_END_TIMEOUT_MS / 1000);
    return MCT_EXIT_INTERNAL;
}

/* Reading the next message failed with e; the exit status. */
static int read_failed(struct run *r, const mct_err *e)
{
    if (e->code == MCT_E_IO && r->stop_sent && mct_now_ms() >= end_due(r)) {
        log_verbose("reading from the agent: %s", e->msg);
        return end_timed_out();
    }
    /* The connection ended, between frames or within one (the agent stops
     * writing to a client that stalls), or the JVM is gone. */
    if (e->code == MCT_E_EOF || e->code == MCT_E_CUT || (e->code == MCT_E_IO && !proc_alive(r->t))) {
        if (e->code != MCT_E_EOF)
            log_verbose("reading from the agent: %s", e->msg);
        return on_eof(r);
    }
    /* A frame that is not a message (invalid JSON, an unknown type, over
     * the cap): the agent is not the one this client speaks to. */
    log_error("reading from the agent: %s", e->msg);
    return MCT_EXIT_INTERNAL;
}

static int error_status(const json_t *msg)
{
    struct msg_error m;
    mct_err e;

    if (msg_error_read(msg, &m, &e) < 0) {
        log_error("reading the agent's error: %s", e.msg);
        return MCT_EXIT_INTERNAL;
    }
    log_error("the agent reports %s: %s", m.name, m.message);
    return proto_code_exit(m.code);
}

/* The end: the session is over, with the exit status it gives. */
static int on_end(void *ctx, json_t *msg)
{
    struct run *r = ctx;

    r->rd_rc = end_status(r, msg);
    return 1;
}

/* An error: the session is over, with the exit status its code gives. */
static int on_error(void *ctx, const json_t *msg)
{
    struct run *r = ctx;

    r->rd_rc = error_status(msg);
    return 1;
}

/* Another reply while streaming: not one this client acts on. */
static int on_other(void *ctx, const char *type, const json_t *msg)
{
    (void)ctx;
    (void)msg;
    log_verbose("ignoring a \"%s\" message", type);
    return 0;
}

/* A plan while streaming: there is one per session, and it came. */
static int on_late_plan(void *ctx, json_t *msg)
{
    return on_other(ctx, "plan", msg);
}

/* What the stream does with each reply. */
static const struct reader_cb streamed = {
    .on_plan = on_late_plan, .on_call = on_call, .on_summary = on_summary, .on_status = on_status,
    .on_end = on_end, .on_error = on_error, .on_other = on_other,
};

/* How long poll may wait: until the next deadline, at most READ_WAIT_MS. */
static int wait_ms(const struct run *r)
{
    double now = mct_now_ms(), w = READ_WAIT_MS;

    if (!r->stop_sent && r->deadline > 0 && r->deadline - now < w)
        w = r->deadline - now;
    if (r->stop_sent && end_due(r) - now < w)
        w = end_due(r) - now;
    return w < 0 ? 0 : (int)w + 1;
}

/* A message began to arrive this long ago and is still not whole: the
 * agent is not the one this client speaks to. */
#define PARTIAL_TIMEOUT_MS 30000

/* Notes that the client did not read for ms (on_eof says the longest). */
static void note_deaf(struct run *r, double ms)
{
    if (ms > r->deaf_ms)
        r->deaf_ms = ms;
}

/* Waits for more of the agent's messages (at most until the next
 * deadline) and reads what came; the output is flushed first, as nothing
 * is left to write. 0, or -1 with e set: the stream ended (MCT_E_EOF,
 * MCT_E_CUT) or failed. */
static int read_more(struct run *r, mct_err *e)
{
    struct pollfd pfd = {.fd = r->fd, .events = POLLIN};
    int n, wait;
    double t0;

    if (out_flush(r->out, e) < 0)
        output_failed(r, e);
    /* Not reading: since the last wait (messages handled, output written),
     * and a wait that overran its timeout (the client was stopped). */
    t0 = mct_now_ms();
    note_deaf(r, t0 - r->ready_at);
    wait = wait_ms(r);
    n = poll(&pfd, 1, wait);
    r->ready_at = mct_now_ms();
    note_deaf(r, r->ready_at - t0 - wait);
    if (n < 0 && errno == EINTR)
        return 0;
    if (n < 0)
        return mct_err_set(e, MCT_E_IO, "poll: %s", strerror(errno));
    if (n == 0) {
        if (proto_rbuf_held(&r->rb) > 0 && mct_now_ms() - r->bytes_at >= PARTIAL_TIMEOUT_MS)
            return mct_err_set(e, MCT_E_IO, "timed out after %d ms waiting for a message", PARTIAL_TIMEOUT_MS);
        return 0;
    }
    n = proto_rbuf_fill(&r->rb, r->fd, PROTO_REPLY, e);
    if (n <= 0)
        return -1;
    r->bytes_at = mct_now_ms();
    return 0;
}

/* Reads messages until the session ends; the exit status. */
static int stream(struct run *r)
{
    int handled_signals = 0;

    r->bytes_at = r->ready_at = mct_now_ms();
    reader_init(&r->rd, &r->tab, &r->rec, r->gate != NULL ? gate_judge(r->gate) : NULL, &streamed, r);
    for (;;) {
        const unsigned char *payload;
        uint32_t len;
        json_t *m;
        mct_err e;
        int n;

        if (intr_count() != handled_signals) {
            handled_signals = intr_count();
            if (r->stop_sent)
                return interrupted_again();
            send_stop(r, "signal");
        }
        if (!r->stop_sent && r->deadline > 0 && mct_now_ms() >= r->deadline)
            send_stop(r, "timeout");
        if (r->stop_sent && mct_now_ms() >= end_due(r))
            return end_timed_out();
        n = proto_rbuf_next(&r->rb, PROTO_REPLY, &payload, &len, &e);
        if (n == 0) {
            if (read_more(r, &e) < 0)
                return read_failed(r, &e);
            continue;
        }
        if (n > 0 && reader_is_compact(payload, len)) {
            n = reader_compact(&r->rd, payload, len, &e);
        } else if (n > 0 && reader_is_summary(payload, len)) {
            n = reader_summary_text(&r->rd, payload, len, &e);
        } else if (n > 0) {
            m = proto_parse((const char *)payload, len, PROTO_REPLY, &e);
            n = m == NULL ? -1 : reader_json(&r->rd, m, &e);
            json_decref(m);
        }
        if (n < 0)
            return read_failed(r, &e);
        if (n > 0)
            return r->rd_rc;
    }
}

/* The plan: kept for the session; the wait is over. */
static int on_plan(void *ctx, json_t *msg)
{
    struct run *r = ctx;

    r->plan = json_incref(msg);
    return 1;
}

/* What the wait for the plan does with each reply; others are not due yet. */
static const struct reader_cb awaited = {
    .on_plan = on_plan, .on_status = on_status, .on_error = on_error,
};

/* A signal before the session started (e says where): the client stops, as
 * asked, with status 0; the agent stops planning, or restores whatever it
 * instrumented, when it sees this client gone. */
static int interrupted(const mct_err *e)
{
    log_error("%s; nothing was traced", e->msg);
    return MCT_EXIT_OK;
}

/* Waits for the plan (or the refusal). Returns the plan, or NULL with *rc.
 * A signal ends the wait at once. */
static json_t *await_plan(struct run *r, int *rc)
{
    double deadline = mct_now_ms() + TRACE_PLAN_TIMEOUT_MS;
    json_t *m;
    mct_err e;

    reader_init(&r->rd, &r->tab, &r->rec, r->gate != NULL ? gate_judge(r->gate) : NULL, &awaited, r);
    for (;;) {
        double left = deadline - mct_now_ms();
        int n;

        /* --wait: as long as the class takes to load, or until --timeout. */
        if (r->c->req.wait)
            left = r->deadline > 0 ? r->deadline - mct_now_ms() : -1;
        n = intr_wait_readable(r->fd, left > 0 ? (int)left : left < 0 ? -1 : 0, &e);
        if (n < 0 && e.code == MCT_E_INTR) {
            mct_err_wrap(&e, "waiting for the agent's plan");
            *rc = interrupted(&e);
            return NULL;
        }
        if (n == 0 && r->c->req.wait) {
            log_error("%s did not load within --timeout %g s; nothing was traced", r->c->req.cls,
                      r->c->timeout_s);
            *rc = MCT_EXIT_OK;
            return NULL;
        }
        if (n <= 0) {
            if (n == 0)
                log_error("no answer to the trace request within %d s", TRACE_PLAN_TIMEOUT_MS / 1000);
            else
                log_error("%s", e.msg);
            *rc = MCT_EXIT_INTERNAL;
            return NULL;
        }
        m = proto_read(r->fd, PROTO_REPLY, TRACE_PLAN_TIMEOUT_MS, &e);
        if (m == NULL) {
            if (e.code == MCT_E_EOF || e.code == MCT_E_CUT) {
                *rc = on_eof(r);
            } else {
                log_error("no answer to the trace request: %s", e.msg);
                *rc = MCT_EXIT_INTERNAL;
            }
            return NULL;
        }
        n = reader_json(&r->rd, m, &e);
        json_decref(m);
        if (n < 0) {
            log_error("no answer to the trace request: %s", e.msg);
            *rc = MCT_EXIT_INTERNAL;
            return NULL;
        }
        if (n > 0) {
            /* The plan passes to the caller; an error left it NULL. */
            m = r->plan;
            r->plan = NULL;
            *rc = r->rd_rc;
            return m;
        }
    }
}

/* --plan: the plan as text, or as JSON with -f json (the agent's message as
 * it came), on the output's file. */
static int show_plan_only(struct run *r, const json_t *plan, const struct msg_plan *p)
{
    const struct cli *c = r->c;
    FILE *f = r->out->f;

    if (c->format == CLI_FORMAT_JSON && c->format_given) {
        if (fu_json_dump(f, plan, JSON_COMPACT) < 0 || fputc('\n', f) == EOF)
            return MCT_EXIT_INTERNAL;
    } else {
        fprintf(f, "plan for %s.%s%s, %lld level%s, classes matching %s%s\n", c->req.cls, c->req.method, req_desc(&c->req),
                c->req.depth, c->req.depth == 1 ? "" : "s", c->req.regex, c->req.include_jdk ? " (JDK included)" : "");
        print_plan(f, p);
        print_plan_summary(f, p);
    }
    return MCT_EXIT_OK;
}

/* Attaches, asks for the session and streams it to r->out; the exit status. */
static int session(struct run *r)
{
    const struct cli *c = r->c;
    json_t *hello, *req, *plan;
    struct msg_plan p;
    int absent, code;
    mct_err e;

    hello = conn_ensure_agent(r->t, c->agent, &code, &e);
    if (hello == NULL && e.code == MCT_E_INTR)
        return interrupted(&e);
    if (hello == NULL) {
        log_error("%s", e.msg);
        return code;
    }
    out_fact(r->out, "hello", hello);
    json_decref(hello);
    r->fd = conn_open(r->t, &absent, &e);
    if (r->fd < 0) {
        log_error("%s", e.msg);
        return MCT_EXIT_ATTACH;
    }
    if (replies_counts_judged(&c->req)) {
        /* The agent would count warm-up calls too: this client counts. */
        struct cli uncounted = *c;

        uncounted.req.count = 0;
        req = conn_trace_request_new(&uncounted);
    } else {
        req = conn_trace_request_new(c);
    }
    if (req == NULL || proto_write(r->fd, req, &e) < 0) {
        log_error("cannot send the trace request%s%s", req ? ": " : "", req ? e.msg : "");
        json_decref(req);
        return MCT_EXIT_INTERNAL;
    }
    out_fact(r->out, "request", req);
    json_decref(req);
    log_verbose("asked for a trace of %s.%s%s, %lld level%s, classes matching %s", c->req.cls, c->req.method,
                req_desc(&c->req), c->req.depth, c->req.depth == 1 ? "" : "s", c->req.regex);
    if (c->req.wait && c->timeout_s > 0)
        stop_due_at(r->deadline = mct_now_ms() + c->timeout_s * 1e3);
    plan = await_plan(r, &code);
    if (plan == NULL)
        return code;
    r->started_at = mct_now_ms();
    if (msg_plan_read(plan, &p, &e) < 0) {
        log_error("reading the agent's plan: %s", e.msg);
        msg_plan_clear(&p);
        json_decref(plan);
        return MCT_EXIT_INTERNAL;
    }
    r->receiver = p.summary.receiver != NULL;
    if (r->gate != NULL && !c->req.plan_only && gate_plan_check(r->gate, &p, stderr, &e) < 0) {
        /* The agent restores the classes when it sees this client gone. */
        log_error("%s", e.msg);
        msg_plan_clear(&p);
        json_decref(plan);
        return MCT_EXIT_USAGE;
    }
    if (c->gates_plan_only) {
        gate_free(r->gate);
        r->gate = NULL;
    }
    if (c->req.plan_only) {
        code = show_plan_only(r, plan, &p);
        warn_plan(c, &p);
        msg_plan_clear(&p);
        json_decref(plan);
        return code;
    }
    out_fact(r->out, "plan", json_object_get(plan, "summary"));
    print_summary(c, &p.summary);
    warn_plan(c, &p);
    print_probe(r, &p.summary);
    if (c->req.verbose)
        print_plan(stderr, &p);
    msg_plan_clear(&p);
    json_decref(plan);
    if (c->timeout_s > 0 && !c->req.wait)
        stop_due_at(r->deadline = mct_now_ms() + c->timeout_s * 1e3);
    return stream(r);
}

/* The gates' verdicts, or one failed case when the session ended (exit
 * status code) before they were judged: a fact of the output (the page of
 * -f html shows them) and, with --junit, a JUnit report; the exit status. */
static int report_gates(const struct run *r, int code)
{
    const struct cli *c = r->c;
    char suite[3200], why[128];
    mct_err e;

    snprintf(why, sizeof why, "not judged: the trace ended with exit status %d before the gates were (its "
             "stderr says why)", code);
    snprintf(suite, sizeof suite, "mcalltree %s.%s%s", c->req.cls, c->req.method, req_desc(&c->req));
    if (gate_report(r->gate, r->gates_judged, why, r->out, c->junit, suite, &e) < 0) {
        log_error("%s", e.msg);
        if (code != MCT_EXIT_OK && code != MCT_EXIT_FAILOVER)
            return code;
        return e.code == MCT_E_NOMEM ? MCT_EXIT_INTERNAL : MCT_EXIT_USAGE;
    }
    return code;
}

int trace_run(const struct cli *c, const struct proc_target *t)
{
    struct run r = {.c = c, .t = t, .fd = -1, .rc = MCT_EXIT_OK};
    int code;
    mct_err e;

    /* Before anything touches the JVM: a bad -o is a usage error. The plan
     * is text or JSON written by this file, hence no format's framing. */
    r.out = out_open(c->req.plan_only ? CLI_FORMAT_JSON : c->format, c->output, c->slow_ms, &e);
    if (r.out == NULL) {
        log_error("%s", e.msg);
        return MCT_EXIT_USAGE;
    }
    out_export_options(r.out, c, t->pid);
    r.out->value = c->folded_value;
    if (gate_wanted(c) && (r.gate = gate_new(c, &e)) == NULL) {
        log_error("%s", e.msg);
        out_close(r.out, &e);
        return MCT_EXIT_INTERNAL;
    }
    code = session(&r);
    /* Each gate judged again on its own: only for who shows them. */
    if (r.gate != NULL && !c->req.plan_only && (c->junit != NULL || c->format == CLI_FORMAT_HTML))
        code = report_gates(&r, code);
    proto_rbuf_free(&r.rb);
    call_tab_free(&r.tab);
    call_free(&r.rec);
    gate_free(r.gate);
    if (r.fd >= 0)
        close(r.fd);
    /* A reader that went away (| head) was already handled: a quiet stop. */
    if (out_close(r.out, &e) < 0 && !r.output_broken) {
        log_error("%s", e.msg);
        if (code == MCT_EXIT_OK || code == MCT_EXIT_FAILOVER)
            code = MCT_EXIT_INTERNAL;
    }
    intr_stop_due_clear();
    return code;
}
