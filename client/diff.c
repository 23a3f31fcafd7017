/* diff.c — see diff.h.
 *
 * Reading: every non-blank line must be a JSON object whose "type" is
 * "call" or "summary"; a file mixing the two, a line of another type, a
 * line that is not JSON, or a file without either is refused: it is not
 * one run of mcalltree. Calls are read by the call model's JSON reader
 * (call_from_json, which checks them) and aggregated with sum_add_call
 * (same path, same node), then handled as the summary they make.
 *
 * Comparing: nodes match by call path (class, method, desc from the entry
 * method down). Calls per entry call = node calls / entry calls of its
 * run, compared exactly as rationals (a node missing on one side has 0). The
 * --fail-over-pct gate counts a growth of p50 or p99 only when it is also
 * at least --min-ns ns (default 10 µs), so that 1 ns -> 2 ns is not a
 * failure. */
#include "diff.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <getopt.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "call.h"
#include "dfig.h"
#include "diffout.h"
#include "dstat.h"
#include "exit.h"
#include "fmt_html.h"
#include "fmtutil.h"
#include "junit.h"
#include "kit.h"
#include "summary.h"

#define DIFF_LINE_MAX ((size_t)64 * 1024 * 1024)    /* the agent's largest reply */
#define DIFF_MIN_NS_DEFAULT 10000
#define DIFF_DIGITS 6               /* decimals of calls per entry call */
#define DIFF_DIGITS_MAX 18
#define DIFF_CONFIDENCE_DEFAULT 0.999
#define DIFF_FIFO_WAIT_S 10

/* ---- reading a run ------------------------------------------------------------ */

/* The summaries of one JVM of a file (by "pid"; none: one JVM). */
struct jvm_run {
    int64_t pid;
    sum *last, *last_final;     /* its last summary, its last final one (maybe the same) */
    sum *intervals;             /* DIFF_READ_INTERVALS: its non-final summaries merged, else NULL */
    size_t nintervals;
    int iv_bad;                 /* merging them failed (iv_err): said when they are used */
    mct_err iv_err;
};

/* Makes cur (final or not) r's last summary, freeing what r no longer holds. */
static void run_set(struct jvm_run *r, sum *cur, int final)
{
    sum *old_last = r->last, *old_final = r->last_final;

    r->last = cur;
    if (final)
        r->last_final = cur;
    if (old_last != r->last && old_last != r->last_final)
        sum_free(old_last);
    if (old_final != r->last_final && old_final != r->last && old_final != old_last)
        sum_free(old_final);
}

static void run_free(struct jvm_run *r)
{
    run_set(r, NULL, 1);
    sum_free(r->intervals);
}

/* The run of each JVM (its last final summary, else its last, or with
 * intervals all its interval summaries) merged into one summary; NULL
 * with e. */
static sum *merge_jvms(struct jvm_run *runs, size_t n, const char *name, mct_err *e)
{
    size_t k = 0;
    sum *m;

    for (size_t i = 0; i < n; i++) {
        size_t ks = sum_slowest_count(runs[i].last_final ? runs[i].last_final : runs[i].last);

        k = ks > k ? ks : k;
    }
    if ((m = sum_new(k > SUM_SLOWEST_MAX ? SUM_SLOWEST_MAX : k, e)) == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        int bad;

        if (runs[i].last_final == NULL && runs[i].intervals != NULL) {
            bad = runs[i].iv_bad;
            if (bad)
                *e = runs[i].iv_err;
            else
                bad = sum_merge(m, runs[i].intervals, e) < 0;
        } else {
            bad = sum_merge(m, runs[i].last_final ? runs[i].last_final : runs[i].last, e) < 0;
        }
        if (bad) {
            mct_err_wrap(e, "%s: merging the summaries of %zu JVMs (pid %lld)", name, n, (long long)runs[i].pid);
            sum_free(m);
            return NULL;
        }
    }
    return m;
}

/* What a file being read holds so far. */
struct rstate {
    const char *name;
    int flags;
    jtok t;
    mct_buf rec;                /* the line's text, while it may be needed whole */
    size_t lineno, ncalls, nruns, caprun;
    struct jvm_run *runs;
    sum *calls;                 /* the calls, aggregated */
    call_tab tab;
    mct_call call;
    int bad_json;               /* the line is not JSON: why */
    char why[160];
};

/* The error of the current line, which failed with e: a syntax error or a
 * line past its limit anywhere on the line wins over what the line's
 * contents broke, as when the line was read whole first. Reads the line to
 * its end; returns -1. */
static int line_error(struct rstate *st, mct_err *e)
{
    st->t.rec = NULL;
    if (!st->bad_json && (st->t.failed || !jt_line_ended(&st->t)) && jt_finish(&st->t) == JT_ERR) {
        st->bad_json = 1;
        snprintf(st->why, sizeof st->why, "%s", st->t.err);
    }
    if (jt_too_long(&st->t))
        return mct_err_set(e, MCT_E_TOOBIG, "%s:%zu: a line of more than %zu bytes: not mcalltree's output",
                           st->name, st->lineno, DIFF_LINE_MAX);
    if (st->bad_json)
        return mct_err_set(e, MCT_E_PROTO, "%s:%zu: not JSON (%s): not mcalltree's output; give a file "
                           "written by mcalltree -f json", st->name, st->lineno, st->why);
    return mct_err_wrap(e, "%s:%zu", st->name, st->lineno);
}

/* The "type" of the JSON object in text (NULL when it has none, or it is
 * not a string) into buf. */
static const char *text_type(const char *text, size_t n, char *buf, size_t size)
{
    jtok t;
    int k, key = 0;
    const char *type = NULL;

    jt_init_mem(&t, text, n, SIZE_MAX);
    if (jt_next(&t) == JT_OBJ)
        while ((k = jt_next(&t)) == JT_KEY && type == NULL) {
            key = strcmp(t.str, "type") == 0;
            k = jt_next(&t);
            if (key && k == JT_STR)
                type = strncpy(buf, t.str, size - 1);
            else if (key || jt_skip(&t, k) < 0)
                break;
        }
    buf[size - 1] = '\0';
    jt_free(&t);
    return type;
}

/* A summary line (read from t, or from text when not NULL), its object's
 * '{' and "type" read when type_read: to its JVM's run. */
static int on_summary(struct rstate *st, jtok *t, int type_read, mct_err *e)
{
    struct sum_info info;
    sum *cur = sum_new(SUM_SLOWEST_MAX, e);
    struct jvm_run *r;
    size_t i;

    if (cur == NULL)
        return -1;
    if (sum_read(cur, t, (type_read ? SUM_READ_TYPE_READ : 0) |
                 (st->flags & DIFF_READ_SLOWEST ? SUM_READ_SLOWEST : 0), &info, e) < 0 ||
        jt_next(t) != JT_EOL) {
        sum_free(cur);
        return -1;
    }
    for (i = 0; i < st->nruns && st->runs[i].pid != info.pid; i++)
        ;
    if (i == st->nruns) {
        if (buf_grow(&st->runs, &st->caprun, st->nruns, sizeof *st->runs, 4) < 0) {
            sum_free(cur);
            return mct_err_set(e, MCT_E_NOMEM, "out of memory");
        }
        st->runs[st->nruns++] = (struct jvm_run){ .pid = info.pid };
    }
    r = &st->runs[i];
    if ((st->flags & DIFF_READ_INTERVALS) && !info.final) {
        r->nintervals++;
        if (r->intervals == NULL && (r->intervals = sum_new(SUM_SLOWEST_MAX, e)) == NULL) {
            sum_free(cur);
            return -1;
        }
        if (!r->iv_bad && sum_merge(r->intervals, cur, &r->iv_err) < 0)
            r->iv_bad = 1;
    }
    run_set(r, cur, info.final);
    return 0;
}

/* A call line, whole in text. */
static int on_call(struct rstate *st, const char *text, size_t n, mct_err *e)
{
    json_error_t je;
    json_t *j = json_loadb(text, n, JSON_REJECT_DUPLICATES, &je);
    int rc;

    if (j == NULL) {
        snprintf(st->why, sizeof st->why, "%s", je.text);
        st->bad_json = 1;
        return -1;
    }
    rc = call_from_json(&st->tab, &st->call, j, e) < 0 ? -1 : sum_add_call(st->calls, &st->tab, &st->call, e);
    json_decref(j);
    st->ncalls += rc == 0;
    return rc;
}

/* The current line, its first token k: a call or a summary. 0, 1 for a
 * blank line, -1 with e. */
static int read_one(struct rstate *st, int k, mct_err *e)
{
    jtok *t = &st->t;
    char tbuf[72];
    const char *type = NULL;
    int first = k, whole = 1, rc;

    if (k == JT_EOL)
        return 1;
    if (k == JT_OBJ && (k = jt_next(t)) == JT_KEY && strcmp(t->str, "type") == 0) {
        k = jt_next(t);
        if (k == JT_STR) {
            type = strncpy(tbuf, t->str, sizeof tbuf - 1);
            tbuf[sizeof tbuf - 1] = '\0';
            whole = strcmp(type, "summary") != 0;
        }
    }
    if (k == JT_ERR)
        return -1;
    if (!whole) {               /* a summary: read as it comes */
        t->rec = NULL;
        if (st->ncalls > 0)
            return mct_err_set(e, MCT_E_PROTO, "calls and summaries in one file: give one run of "
                               "mcalltree, either its calls or its summaries");
        return on_summary(st, t, 1, e);
    }
    if (jt_finish(t) == JT_ERR)
        return -1;
    t->rec = NULL;
    if (buf_failed(&st->rec))
        return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a line");
    if (first != JT_OBJ && first != JT_ARR) {
        snprintf(st->why, sizeof st->why, "'[' or '{' expected");
        st->bad_json = 1;
        return -1;
    }
    if (k != JT_STR)            /* the type is not the first key */
        type = text_type((const char *)st->rec.data, st->rec.len, tbuf, sizeof tbuf);
    if (type == NULL || (strcmp(type, "call") != 0 && strcmp(type, "summary") != 0))
        return mct_err_set(e, MCT_E_PROTO, "%s%.64s%s: not mcalltree's output; give a file written by "
                           "mcalltree -f json", type == NULL ? "a JSON value without a \"type\"" :
                           "a message of type \"", type == NULL ? "" : type, type == NULL ? "" : "\"");
    if ((strcmp(type, "call") == 0 && st->nruns > 0) || (strcmp(type, "summary") == 0 && st->ncalls > 0))
        return mct_err_set(e, MCT_E_PROTO, "calls and summaries in one file: give one run of "
                           "mcalltree, either its calls or its summaries");
    if (strcmp(type, "call") == 0)
        return on_call(st, (const char *)st->rec.data, st->rec.len, e);
    /* a summary whose "type" is not its first key: read again from its text */
    jtok mem;

    jt_init_mem(&mem, st->rec.data, st->rec.len, DIFF_LINE_MAX);
    rc = on_summary(st, &mem, 0, e);
    if (rc < 0 && mem.failed) {
        snprintf(st->why, sizeof st->why, "%s", mem.err);
        st->bad_json = 1;
    }
    jt_free(&mem);
    return rc;
}

/* Reads the lines of f (named name) into a checked summary; *jvms: the
 * JVMs whose summaries were merged into it (1 for calls). */
static sum *read_stream(FILE *f, const char *name, int flags, size_t *jvms, mct_err *e)
{
    struct rstate st = { .name = name, .flags = flags };
    sum *result = NULL;
    int k;

    buf_init(&st.rec);
    if ((st.calls = sum_new(0, e)) == NULL)
        return NULL;
    if (jt_init_file(&st.t, f, DIFF_LINE_MAX) < 0) {
        mct_err_set(e, MCT_E_NOMEM, "%s: out of memory", name);
        goto out;
    }
    errno = 0;
    for (;;) {
        buf_reset(&st.rec);
        st.t.rec = &st.rec;
        k = jt_next(&st.t);
        if (k == JT_EOF)
            break;
        st.lineno++;
        mct_err_clear(e);
        if (read_one(&st, k, e) < 0) {
            line_error(&st, e);
            goto out;
        }
    }
    if (ferror(f)) {
        mct_err_set(e, MCT_E_IO, "cannot read %s: %s", name, strerror(errno));
        goto out;
    }
    *jvms = st.nruns > 1 ? st.nruns : 1;
    if (st.ncalls > 0) {
        result = st.calls;
        st.calls = NULL;
    } else if (st.nruns > 1 || (st.nruns == 1 && st.runs[0].last_final == NULL && st.runs[0].nintervals > 1)) {
        result = merge_jvms(st.runs, st.nruns, name, e);
    } else if (st.nruns == 1) {
        result = st.runs[0].last_final != NULL ? st.runs[0].last_final : st.runs[0].last;
        if (st.runs[0].last == result)
            st.runs[0].last = NULL;
        if (st.runs[0].last_final == result)
            st.runs[0].last_final = NULL;
    } else {
        mct_err_set(e, MCT_E_PROTO, "%s: no call and no summary in it: not mcalltree's output; "
                    "give a file written by mcalltree -f json", name);
    }
out:
    jt_free(&st.t);
    buf_free(&st.rec);
    for (size_t i = 0; i < st.nruns; i++)
        run_free(&st.runs[i]);
    free(st.runs);
    sum_free(st.calls);
    call_free(&st.call);
    call_tab_free(&st.tab);
    return result;
}

/* The run read from f (opened from name; NULL: errno says why, code is the
 * error then), which it closes. */
static sum *read_opened(FILE *f, const char *name, int code, int flags, size_t *jvms, mct_err *e)
{
    sum *s;
    size_t one;

    if (f == NULL) {
        mct_err_set(e, code, "cannot read %s: %s", name, strerror(errno));
        return NULL;
    }
    s = read_stream(f, name, flags, jvms != NULL ? jvms : &one, e);
    fclose(f);
    return s;
}

static void on_alarm(int sig)
{
    (void)sig;
}

/* path opened for reading; a FIFO waits at most DIFF_FIFO_WAIT_S for its
 * writer (open blocks until one comes: without a bound, a FIFO nobody
 * writes would hang diff). NULL with e set. */
static FILE *open_run(const char *path, mct_err *e)
{
    struct stat st;
    struct sigaction sa = { .sa_handler = on_alarm }, old;
    int fd, err;
    FILE *f;

    if (stat(path, &st) != 0 || !S_ISFIFO(st.st_mode)) {
        if ((f = fopen(path, "r")) == NULL)
            mct_err_set(e, MCT_E_IO, "cannot read %s: %s", path, strerror(errno));
        return f;
    }
    sigemptyset(&sa.sa_mask);   /* no SA_RESTART: the alarm ends the open */
    sigaction(SIGALRM, &sa, &old);
    alarm(DIFF_FIFO_WAIT_S);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    err = errno;
    alarm(0);
    sigaction(SIGALRM, &old, NULL);
    if (fd < 0 && err == EINTR) {
        mct_err_set(e, MCT_E_IO, "%s is a FIFO and no writer opened it within %d s: start the writer "
                    "first (e.g. mcalltree ... -o %s &)", path, DIFF_FIFO_WAIT_S, path);
        return NULL;
    }
    if (fd < 0 || (f = fdopen(fd, "r")) == NULL) {
        mct_err_set(e, MCT_E_IO, "cannot read %s: %s", path, strerror(fd < 0 ? err : errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    return f;
}

sum *diff_read_runs(const char *path, int flags, size_t *jvms, mct_err *e)
{
    FILE *f;

    if (strcmp(path, "-") == 0)
        return read_opened(stdin, "stdin", MCT_E_IO, flags, jvms, e);
    if ((f = open_run(path, e)) == NULL)
        return NULL;
    return read_opened(f, path, MCT_E_IO, flags, jvms, e);
}

sum *diff_read_run_mem(const char *name, const char *data, size_t n, int flags, mct_err *e)
{
    /* fmemopen refuses 0 bytes: a lone newline reads the same (no line) */
    return read_opened(n > 0 ? fmemopen((void *)data, n, "r") : fmemopen((void *)"\n", 1, "r"), name,
                       MCT_E_NOMEM, flags, NULL, e);
}

/* ---- comparing two runs ---------------------------------------------------------- */

#define DIFF_IGNORE_MAX 64

struct diff_opts {
    int json;                   /* -f json */
    int html;                   /* -f html: the page of the json object */
    int fail_on_calls;
    double fail_over_pct;       /* < 0: not given */
    long long min_ns;
    double confidence;          /* 0..1, of the whole diff (all its tests together) */
    regex_t ignore[DIFF_IGNORE_MAX];
    size_t nignore;
    const char *junit;          /* --junit FILE, or NULL */
    const char *output;         /* -o FILE instead of stdout, or NULL */
};

struct ctx {
    const struct diff_opts *o;
    uint64_t base_calls, new_calls;     /* entry calls of each run */
    const sum *base, *nw;
    size_t *bmap;               /* a base method's index in new (SUM_NO_METHOD: none) */
    struct sum_view stack[FU_MAX_DEPTH + 1];  /* the path to the current node */
    int counting;               /* the first walk: only counts the tests */
    size_t ntests;              /* nodes tested, for the per-test level */
    double alpha;               /* each test's level: (1 - confidence) / ntests */
    mct_buf doc;                /* -f json: the document's text (diffout), its rows as they come */
    size_t nrows;
    json_t *failures;           /* the gates' messages */
    junit *ju;                  /* --junit, or NULL */
    int oom;
};

/* num/den as a decimal with at most digits decimals (truncated, trailing
 * zeros dropped) into buf. den > 0. */
static void ratio_text(char *buf, size_t size, uint64_t num, uint64_t den, int digits)
{
    unsigned __int128 r = num % den;
    size_t len = (size_t)snprintf(buf, size, "%llu", (unsigned long long)(num / den));
    size_t keep;

    if (r == 0 || len + 2 >= size)
        return;
    buf[len++] = '.';
    keep = len - 1;
    for (int i = 0; i < digits && r != 0 && len + 1 < size; i++) {
        r *= 10;
        buf[len++] = (char)('0' + (int)(r / den));
        r %= den;
        if (buf[len - 1] != '0')
            keep = len;
    }
    buf[keep] = '\0';
}

/* The node's calls (0 for a missing node). */
static uint64_t ncalls(const struct sum_view *n)
{
    return n == NULL ? 0 : n->calls;
}

/* The names of the nodes on the path, "A.run > B.step(I)V"-style, into buf. */
static void path_text(const struct ctx *c, int depth, char *buf, size_t size)
{
    size_t len = 0;

    buf[0] = '\0';
    for (int d = 0; d <= depth && len + 1 < size; d++) {
        const struct sum_view *n = &c->stack[d];
        int w = snprintf(buf + len, size - len, "%s%s.%s%s", d > 0 ? " > " : "", n->class_name, n->method,
                         n->desc);

        if (w < 0)
            break;
        len = len + (size_t)w >= size ? size - 1 : len + (size_t)w;
    }
    fu_clean(buf);
}

/* Records one check of a gate: in --junit (suite "mcalltree diff", case
 * "GATE: PATH"), and when it failed, its message. */
static void check(struct ctx *c, const char *gate, const char *path, int passed, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void check(struct ctx *c, const char *gate, const char *path, int passed, const char *fmt, ...)
{
    va_list ap;
    json_t *msg;
    char name[4200];

    snprintf(name, sizeof name, "%s: %s", gate, path);
    va_start(ap, fmt);
    msg = json_vsprintf(fmt, ap); /* the names in it come from checked JSON: UTF-8 */
    va_end(ap);
    if (msg == NULL || (c->ju != NULL && junit_case(c->ju, "mcalltree diff", name, passed,
                                                     json_string_value(msg)) < 0))
        c->oom = 1;
    if (msg != NULL && !passed && json_array_append(c->failures, msg) < 0)
        c->oom = 1;
    json_decref(msg);
}

/* The change from a to b in % (NAN when a is 0). */
static double pct(uint64_t a, uint64_t b)
{
    return a == 0 ? NAN : ((double)b - (double)a) * 100.0 / (double)a;
}

/* Compares percentile q (p50 or p99: key) of b and n into *out, and checks
 * the --fail-over-pct gate on it: with both histograms, the change is the
 * interval of the ratio of the two quantiles' intervals (each at
 * 1 - alpha/2, so that both hold at 1 - alpha); without, the point values. */
static void cmp_pct(struct ctx *c, const char *path, const char *label, double q, const struct sum_view *b,
                    const struct sum_view *n, int p99, struct diffout_pct *out)
{
    uint64_t a = p99 ? b->p99_ns : b->p50_ns, v = p99 ? n->p99_ns : n->p50_ns;
    double lim = c->o->fail_over_pct, conf = 1 - c->alpha / 2;
    char from[FU_DUR_MAX], to[FU_DUR_MAX];
    int over;

    *out = (struct diffout_pct){ .pct = pct(a, v) };
    fu_duration(from, sizeof from, (double)a);
    fu_duration(to, sizeof to, (double)v);
    if (b->hist != NULL && n->hist != NULL) {
        out->has_ci = 1;
        over = dstat_change(b->hist, n->hist, q, conf, lim, (uint64_t)c->o->min_ns, &out->ci_lo, &out->ci_hi);
        if (lim >= 0)
            check(c, label, path, !over, "--fail-over-pct %g: %s of %s grew from %s to %s (%+.1f%%; "
                  "%g%% interval of the change %+.1f%% .. %+.1f%%), %s %g%%", lim, label, path, from, to,
                  out->pct, c->o->confidence * 100, out->ci_lo, out->ci_hi,
                  over ? "over" : "not surely over", lim);
    } else if (lim >= 0) {
        over = v > a && (long long)(v - a) >= c->o->min_ns && (a == 0 || out->pct > lim);
        check(c, label, path, !over, "--fail-over-pct %g: %s of %s grew from %llu ns to %llu ns (%+.1f%%), "
              "%s %g%% (no histogram in the summaries: point values compared)", lim, label, path,
              (unsigned long long)a, (unsigned long long)v, out->pct, over ? "over" : "not over", lim);
    }
}

/* Compares the p50 and p99 of the figures both b and n carry (--cpu,
 * --alloc: dfig.h) into r, and checks --fail-over-pct on them as on the
 * time (a CPU time only when it grew by --min-ns, allocations by any
 * bytes). */
static void cmp_figs(struct ctx *c, const char *path, const struct sum_view *b, const struct sum_view *n,
                     struct diffout_row *r)
{
    static const double qs[] = { 0.50, 0.99 };
    double lim = c->o->fail_over_pct;

    for (int x = 0; x < SUM_X_N; x++) {
        for (size_t i = 0; i < sizeof qs / sizeof qs[0] && dfig_both(b, n, (enum sum_xfig)x); i++) {
            const struct sum_xkeys *k = &sum_xkeys[x];
            struct dfig_change ch;
            char label[32], from[FU_DUR_MAX], to[FU_DUR_MAX];

            dfig_compare(b, n, (enum sum_xfig)x, qs[i], 1 - c->alpha / 2, lim,
                         x == SUM_X_CPU ? (uint64_t)c->o->min_ns : 0, &ch);
            if (r->nfigs < DIFFOUT_FIGS)
                r->figs[r->nfigs++] = (struct diffout_fig){ i == 0 ? k->p50 : k->p99, ch.base, ch.new_, ch.pct };
            if (lim < 0)
                continue;
            snprintf(label, sizeof label, "%s p%d", k->name, i == 0 ? 50 : 99);
            dfig_text((enum sum_xfig)x, ch.base, from, sizeof from);
            dfig_text((enum sum_xfig)x, ch.new_, to, sizeof to);
            check(c, label, path, !ch.over, "--fail-over-pct %g: %s of %s grew from %s to %s (%+.1f%%; "
                  "%g%% interval of the change %+.1f%% .. %+.1f%%), %s %g%%", lim, label, path, from, to,
                  ch.pct.pct, c->o->confidence * 100, ch.pct.ci_lo, ch.pct.ci_hi,
                  ch.over ? "over" : "not surely over", lim);
        }
    }
}

/* calls_min..calls_max of a node as text ("3", "2..4"; "-" for none). */
static void reached_text(char *buf, size_t size, const struct sum_view *n)
{
    if (n == NULL)
        snprintf(buf, size, "-");
    else if (n->calls_min == n->calls_max)
        snprintf(buf, size, "%llu", (unsigned long long)n->calls_min);
    else
        snprintf(buf, size, "%llu..%llu", (unsigned long long)n->calls_min, (unsigned long long)n->calls_max);
}

/* Writes a duration cell of p50 or p99 ("-" for a missing node). */
static void put_dur(FILE *f, const struct sum_view *n, int p99, int w)
{
    char buf[FU_DUR_MAX];

    if (n == NULL)
        snprintf(buf, sizeof buf, "-");
    else
        fu_duration(buf, sizeof buf, (double)(p99 ? n->p99_ns : n->p50_ns));
    fputs("  ", f);
    fu_put_right(f, buf, (size_t)w);
}

static void put_pct(FILE *f, double p)
{
    char buf[32] = "-";

    if (!isnan(p))
        snprintf(buf, sizeof buf, "%+.1f%%", p);
    fputs("  ", f);
    fu_put_right(f, buf, 8);
}

/* Whether the node's "Class.method" or its path matches an --ignore. */
static int ignored(const struct ctx *c, const struct sum_view *n, const char *path)
{
    char name[2048];

    snprintf(name, sizeof name, "%s.%s", n->class_name, n->method);
    for (size_t i = 0; i < c->o->nignore; i++)
        if (regexec(&c->o->ignore[i], name, 0, NULL, 0) == 0 || regexec(&c->o->ignore[i], path, 0, NULL, 0) == 0)
            return 1;
    return 0;
}

/* h's buckets as the JSON of a summary: [index, count, ...]; NULL for no h
 * (or out of memory: *oom). */
static json_t *hist_json(const struct sum_hist *h, int *oom)
{
    json_t *a;

    if (h == NULL)
        return NULL;
    if ((a = json_array()) == NULL)
        *oom = 1;
    for (uint32_t i = 0; a != NULL && i < h->n; i++) {
        unsigned idx;
        uint64_t cnt;

        sum_hist_bucket(h, i, &idx, &cnt);
        if (json_array_append_new(a, json_integer((json_int_t)idx)) < 0 ||
            json_array_append_new(a, json_integer((json_int_t)cnt)) < 0)
            *oom = 1;
    }
    return a;
}

/* The side of a row for node n (NULL: missing) of a run of calls entry
 * calls; its calls_hist, with oom (else none), is a new reference (the
 * caller's). */
static struct diffout_side side_of(const struct sum_view *n, uint64_t calls, const char *ratio, int *oom)
{
    if (n == NULL)
        return (struct diffout_side){ .calls_per_entry = ratio };
    return (struct diffout_side){
        .present = 1, .calls_per_entry = ratio, .calls_min = n->calls_min, .calls_max = n->calls_max,
        .calls_hist = oom != NULL ? hist_json(n->chist, oom) : NULL, .share = (double)n->entries / (double)calls,
        .p50_ns = n->p50_ns, .p99_ns = n->p99_ns,
    };
}

/* One row: the node on the path at depth, b and n its two sides (one may be
 * NULL), *ign: under an ignored node (set when this one is). Prints it
 * (table) or adds it (JSON), and checks the gates:
 * - calls per entry call among the entry calls that reached the node
 *   (calls_min, calls_max) do not depend on the mix: any change fails
 *   --fail-on-calls;
 * - the share of entry calls that reached it does: it fails (a node added
 *   or removed included) only when the two-proportion z-test finds the
 *   shares differ at the diff's confidence, Bonferroni over the nodes. */
static void row(struct ctx *c, int depth, const struct sum_view *b, const struct sum_view *n, int *ign)
{
    const struct sum_view *either = b != NULL ? b : n;
    int other = either->other;
    uint64_t eb = b != NULL ? b->entries : 0, en = n != NULL ? n->entries : 0;
    int reached_changed = b != NULL && n != NULL && (b->calls_min != n->calls_min || b->calls_max != n->calls_max);
    double p_share = dstat_share_p(eb, c->base_calls, en, c->new_calls);
    int share_changed = p_share < c->alpha;
    unsigned __int128 lhs = (unsigned __int128)ncalls(b) * c->new_calls;
    unsigned __int128 rhs = (unsigned __int128)ncalls(n) * c->base_calls;
    int changed = lhs != rhs;
    const char *status = b == NULL ? "added" : n == NULL ? "removed" : reached_changed ? "calls" :
                         share_changed ? "share" : "same";
    char rb[64], rn[64], path[4096], cb[48], cn[48];
    int digits = DIFF_DIGITS, gated;
    struct diffout_row r;

    c->stack[depth] = *either;
    path_text(c, depth, path, sizeof path);
    *ign = *ign || ignored(c, either, path);
    gated = !*ign && !other;
    if (c->counting) {
        c->ntests += gated;
        return;
    }
    do {
        ratio_text(rb, sizeof rb, ncalls(b), c->base_calls, digits);
        ratio_text(rn, sizeof rn, ncalls(n), c->new_calls, digits);
    } while (changed && strcmp(rb, rn) == 0 && ++digits <= DIFF_DIGITS_MAX);
    reached_text(cb, sizeof cb, b);
    reached_text(cn, sizeof cn, n);
    r = (struct diffout_row){
        .path = path, .depth = depth, .status = status, .ignored = *ign,
        .class_name = either->class_name, .method = either->method, .desc = either->desc,
        .base = side_of(b, c->base_calls, rb, c->o->json ? &c->oom : NULL),
        .new_ = side_of(n, c->new_calls, rn, c->o->json ? &c->oom : NULL),
        .share_p = p_share, .p50 = { .pct = NAN }, .p99 = { .pct = NAN },
    };
    if (gated && c->o->fail_on_calls) {
        if (b == NULL || n == NULL)
            check(c, "share", path, !share_changed, "--fail-on-calls: %s: calls per entry call %s -> %s (%s; "
                  "reached by %llu of %llu -> %llu of %llu entry calls, two-proportion z-test p = %.3g, "
                  "%s %.3g)", path, rb, rn, status, (unsigned long long)eb, (unsigned long long)c->base_calls,
                  (unsigned long long)en, (unsigned long long)c->new_calls, p_share,
                  share_changed ? "under" : "not under", c->alpha);
        else {
            check(c, "calls", path, !reached_changed, "--fail-on-calls: %s: calls per entry call that reached "
                  "it %s -> %s (min..max over the entry calls that reached it: does not depend on the mix)",
                  path, cb, cn);
            check(c, "share", path, !share_changed, "--fail-on-calls: %s: share of entry calls that reached "
                  "it %.2f%% (%llu of %llu) -> %.2f%% (%llu of %llu): two-proportion z-test p = %.3g, %s %.3g "
                  "(%g%% confidence over %zu nodes)", path, r.base.share * 100, (unsigned long long)eb,
                  (unsigned long long)c->base_calls, r.new_.share * 100, (unsigned long long)en,
                  (unsigned long long)c->new_calls, p_share, share_changed ? "under" : "not under", c->alpha,
                  c->o->confidence * 100, c->ntests);
        }
    }
    if (b != NULL && n != NULL) {
        struct diff_opts quiet = *c->o;
        const struct diff_opts *o = c->o;

        if (!gated) {           /* shown, not judged */
            quiet.fail_over_pct = -1;
            c->o = &quiet;
        }
        cmp_pct(c, path, "p50", 0.50, b, n, 0, &r.p50);
        cmp_pct(c, path, "p99", 0.99, b, n, 1, &r.p99);
        cmp_figs(c, path, b, n, &r);
        c->o = o;
    }
    if (c->o->json) {
        if (diffout_row_write(&c->doc, &r, c->nrows++ == 0) < 0)
            c->oom = 1;
        json_decref((json_t *)r.base.calls_hist);
        json_decref((json_t *)r.new_.calls_hist);
        return;
    }
    char params[512], sb[16] = "-", sn[16] = "-";
    FILE *f = stdout;

    if (b != NULL)
        snprintf(sb, sizeof sb, "%.1f%%", r.base.share * 100);
    if (n != NULL)
        snprintf(sn, sizeof sn, "%.1f%%", r.new_.share * 100);
    fu_put_right(f, cb, 10);
    fputs("  ", f);
    fu_put_right(f, cn, 10);
    fputs(reached_changed || b == NULL || n == NULL ? " *" : "  ", f);
    fu_put_right(f, sb, 7);
    fputs("  ", f);
    fu_put_right(f, sn, 7);
    fputs(share_changed ? " *" : "  ", f);
    put_dur(f, b, 0, 8);
    put_dur(f, n, 0, 8);
    put_pct(f, r.p50.pct);
    put_dur(f, b, 1, 8);
    put_dur(f, n, 1, 8);
    put_pct(f, r.p99.pct);
    fputs("  ", f);
    for (int d = 0; d < depth; d++)
        fputs("  ", f);
    fu_java_params(params, sizeof params, r.desc);
    fu_put_text(f, r.class_name);
    fputc('.', f);
    fu_put_text(f, r.method);
    fu_put_text(f, params);
    if (b == NULL || n == NULL)
        fprintf(f, "  [%s]", status);
    if (*ign)
        fputs("  [ignored]", f);
    fputc('\n', f);
}

/* The nodes of the list from first on, into *arr (n of them); 0 or -1. */
static int list_of(const sum_node *first, const sum_node ***arr, size_t *n)
{
    size_t cap = 0;

    *arr = NULL;
    *n = 0;
    for (const sum_node *k = first; k != NULL; k = sum_node_next(k)) {
        if (buf_grow(arr, &cap, *n, sizeof **arr, 8) < 0)
            return -1;
        (*arr)[(*n)++] = k;
    }
    return 0;
}

/* The key a node of either run matches by: its method's index in new, or
 * SUM_NO_METHOD for an other node; base's methods not in new match none. */
static size_t match_key(const struct ctx *c, const struct sum_view *v, int base, int *none)
{
    *none = 0;
    if (v->other)
        return SUM_NO_METHOD;
    if (!base)
        return v->method_idx;
    *none = c->bmap[v->method_idx] == SUM_NO_METHOD;
    return c->bmap[v->method_idx];
}

/* Compares the node lists from bfirst and nfirst (either NULL) at depth:
 * the base's nodes in their order with their match (same method, or both
 * other nodes), then the new nodes no base node matched. */
static void walk(struct ctx *c, const sum_node *bfirst, const sum_node *nfirst, int depth, int ign)
{
    const sum_node **nk = NULL;
    size_t nn = 0;
    unsigned char *used = NULL;
    kit_table index = { 0 };
    struct sum_view bv, nv;

    if (list_of(nfirst, &nk, &nn) < 0 || (used = calloc(nn > 0 ? nn : 1, 1)) == NULL ||
        kit_table_reserve(&index, nn) < 0) {
        c->oom = 1;
        goto out;
    }
    for (size_t i = 0; i < nn; i++) {
        int none;

        sum_node_view(c->nw, nk[i], &nv);
        kit_table_add(&index, kit_hash_u64(match_key(c, &nv, 0, &none)), i + 1);    /* room reserved */
    }
    for (const sum_node *b = bfirst; b != NULL && !c->oom; b = sum_node_next(b)) {
        const sum_node *n = NULL;
        kit_cursor cur;
        int none, kid_ign = ign;
        size_t key;

        sum_node_view(c->base, b, &bv);
        key = match_key(c, &bv, 1, &none);
        for (uintptr_t v = none ? 0 : kit_table_first(&index, kit_hash_u64(key), &cur); v != 0;
             v = kit_table_next(&index, &cur)) {
            sum_node_view(c->nw, nk[v - 1], &nv);
            if (!used[v - 1] && match_key(c, &nv, 0, &none) == key) {
                used[v - 1] = 1;
                n = nk[v - 1];
                break;
            }
        }
        row(c, depth, &bv, n != NULL ? &nv : NULL, &kid_ign);
        walk(c, sum_node_kid(b), n != NULL ? sum_node_kid(n) : NULL, depth + 1, kid_ign);
    }
    for (size_t i = 0; i < nn && !c->oom; i++)
        if (!used[i]) {
            int kid_ign = ign;

            sum_node_view(c->nw, nk[i], &nv);
            row(c, depth, NULL, &nv, &kid_ign);
            walk(c, NULL, sum_node_kid(nk[i]), depth + 1, kid_ign);
        }
out:
    kit_table_free(&index);
    free(used);
    free(nk);
}

/* c->bmap: each base method's index in new; 0 or -1 (out of memory). */
static int map_methods(struct ctx *c)
{
    size_t n = sum_method_count(c->base);

    if ((c->bmap = calloc(n > 0 ? n : 1, sizeof *c->bmap)) == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const char *cl, *m, *d;

        sum_method_names(c->base, i, &cl, &m, &d);
        c->bmap[i] = sum_method_find(c->nw, cl, m, d);
    }
    return 0;
}

/* ---- the command -------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fputs("Usage: mcalltree diff [OPTIONS] BASE NEW\n"
          "\n"
          "Compares two runs of mcalltree, node by node (by call path): the calls per\n"
          "entry call among the entry calls that reached the node (min..max: exact, they\n"
          "do not depend on the request mix), the share of entry calls that reached it\n"
          "(it does), p50 and p99 of the node's time per entry call, nodes added and\n"
          "removed. BASE and NEW are files written by mcalltree -f json: the calls of a\n"
          "run (aggregated on reading) or its summaries (the last final one is used;\n"
          "those of several JVMs are merged), or mcalltree merge's output.\n"
          "\n"
          "Options:\n"
          "  -f, --format FMT      table (default), json (one object) or html (a page)\n"
          "  -o, --output FILE     write there instead of stdout\n"
          "      --fail-on-calls   exit 4 when a node's calls per entry call that reached\n"
          "                        it changed, or its share of entry calls changed\n"
          "                        significantly (two-proportion z-test; a node added\n"
          "                        or removed included)\n"
          "      --fail-over-pct P exit 4 when a node's p50 or p99 surely grew by more\n"
          "                        than P %: the whole confidence interval of the growth\n"
          "                        (from both runs' histograms) is over P %\n"
          "      --min-ns NS       ignore growths smaller than NS ns for --fail-over-pct\n"
          "                        (default 10000: 1 ns -> 2 ns is no +100 %)\n"
          "      --confidence C    the confidence of the statistical gates, in %, over all\n"
          "                        the nodes together (default 99.9)\n"
          "      --ignore REGEX    judge no node whose Class.method or path matches REGEX\n"
          "                        (extended regex), nor the nodes below it; repeatable\n"
          "      --junit FILE      also write each check as a JUnit XML test case\n"
          "  -h, --help            this text\n"
          "\n"
          "Exit status: 0 done, 1 usage error or unreadable or malformed input,\n"
          "4 a gate failed (each failure named on stderr), 5 the output failed.\n", f);
}

/* Frees what parse compiled into o. */
static void free_opts(struct diff_opts *o)
{
    for (size_t i = 0; i < o->nignore; i++)
        regfree(&o->ignore[i]);
    o->nignore = 0;
}

/* A number >= 0 from s (the whole string), or -1. */
static double parse_number(const char *s)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno != 0 || end == s || *end != '\0' || !isfinite(v) || v < 0 || v > 1e15)
        return -1;
    return v;
}

enum { OPT_FAIL_ON_CALLS = 256, OPT_FAIL_OVER_PCT, OPT_MIN_NS, OPT_CONFIDENCE, OPT_IGNORE, OPT_JUNIT };

/* Parses the options into o; 0, 1 for --help, or -1 with a message printed. */
static int parse(int argc, char **argv, struct diff_opts *o, const char **base, const char **new_)
{
    static const struct option opts[] = {
        { "format", required_argument, NULL, 'f' },
        { "fail-on-calls", no_argument, NULL, OPT_FAIL_ON_CALLS },
        { "fail-over-pct", required_argument, NULL, OPT_FAIL_OVER_PCT },
        { "min-ns", required_argument, NULL, OPT_MIN_NS },
        { "confidence", required_argument, NULL, OPT_CONFIDENCE },
        { "ignore", required_argument, NULL, OPT_IGNORE },
        { "junit", required_argument, NULL, OPT_JUNIT },
        { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    int opt;
    double v;

    o->fail_over_pct = -1;
    o->min_ns = DIFF_MIN_NS_DEFAULT;
    o->confidence = DIFF_CONFIDENCE_DEFAULT;
    optind = 0;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":f:o:h", opts, NULL)) != -1) {
        switch (opt) {
        case 'f':
            if (strcmp(optarg, "json") == 0)
                o->json = 1;
            else if (strcmp(optarg, "table") == 0)
                o->json = 0;
            else if (strcmp(optarg, "html") == 0)
                o->json = o->html = 1;
            else
                return fprintf(stderr, "mcalltree diff: unknown format '%s': give table, json or html\n", optarg), -1;
            break;
        case OPT_FAIL_ON_CALLS:
            o->fail_on_calls = 1;
            break;
        case OPT_FAIL_OVER_PCT:
            if ((o->fail_over_pct = parse_number(optarg)) < 0)
                return fprintf(stderr, "mcalltree diff: --fail-over-pct '%s': give a percentage >= 0 "
                               "(e.g. 20)\n", optarg), -1;
            break;
        case OPT_MIN_NS:
            if ((v = parse_number(optarg)) < 0 || v != (double)(long long)v)
                return fprintf(stderr, "mcalltree diff: --min-ns '%s': give a whole number of ns >= 0\n",
                               optarg), -1;
            o->min_ns = (long long)v;
            break;
        case OPT_CONFIDENCE:
            if ((v = parse_number(optarg)) < 50 || v >= 100)
                return fprintf(stderr, "mcalltree diff: --confidence '%s': give a percentage from 50 to "
                               "under 100 (e.g. 99.9)\n", optarg), -1;
            o->confidence = v / 100;
            break;
        case OPT_IGNORE: {
            char why[256];
            int rc;

            if (o->nignore == DIFF_IGNORE_MAX)
                return fprintf(stderr, "mcalltree diff: more than %d --ignore; join them with |\n",
                               DIFF_IGNORE_MAX), -1;
            if ((rc = regcomp(&o->ignore[o->nignore], optarg, REG_EXTENDED | REG_NOSUB)) != 0) {
                regerror(rc, &o->ignore[o->nignore], why, sizeof why);
                return fprintf(stderr, "mcalltree diff: --ignore '%s': %s; give an extended regex\n",
                               optarg, why), -1;
            }
            o->nignore++;
            break;
        }
        case OPT_JUNIT:
            o->junit = optarg;
            break;
        case 'o':
            o->output = optarg;
            break;
        case 'h':
            return 1;
        case ':':
            return fprintf(stderr, "mcalltree diff: %s needs a value; try 'mcalltree diff -h'\n",
                           argv[optind - 1]), -1;
        default:
            return fprintf(stderr, "mcalltree diff: unknown option '%s'; try 'mcalltree diff -h'\n",
                           argv[optind - 1]), -1;
        }
    }
    if (argc - optind != 2)
        return fprintf(stderr, "mcalltree diff: give two files, BASE and NEW (%d given); try "
                       "'mcalltree diff -h'\n", argc - optind), -1;
    *base = argv[optind];
    *new_ = argv[optind + 1];
    return 0;
}

int diff_main(int argc, char **argv)
{
    struct diff_opts o = { 0 };
    const char *base_path, *new_path;
    sum *base = NULL, *nw = NULL;
    struct ctx c = { .o = &o };
    mct_err e;
    size_t bj = 1, nj = 1;
    int rc = parse(argc, argv, &o, &base_path, &new_path);

    if (rc != 0) {
        free_opts(&o);
        if (rc > 0) {
            usage(stdout);
            return fflush(stdout) == 0 && !ferror(stdout) ? MCT_EXIT_OK : MCT_EXIT_INTERNAL;
        }
        return MCT_EXIT_USAGE;
    }
    /* the page shows the slowest calls; the table and the JSON do not */
    base = diff_read_runs(base_path, o.html ? DIFF_READ_SLOWEST : 0, &bj, &e);
    if (base == NULL || (nw = diff_read_runs(new_path, o.html ? DIFF_READ_SLOWEST : 0, &nj, &e)) == NULL) {
        fu_clean(e.msg);
        fprintf(stderr, "mcalltree diff: %s\n", e.msg);
        sum_free(base);
        free_opts(&o);
        return MCT_EXIT_USAGE;
    }
    if (bj > 1)
        fprintf(stderr, "mcalltree diff: %s holds the summaries of %zu JVMs: compared merged\n", base_path, bj);
    if (nj > 1)
        fprintf(stderr, "mcalltree diff: %s holds the summaries of %zu JVMs: compared merged\n", new_path, nj);
    /* -o: what goes to stdout goes to FILE, once both inputs were read. */
    if (o.output != NULL && freopen(o.output, "w", stdout) == NULL) {
        fprintf(stderr, "mcalltree diff: -o %s: cannot write: %s\n", o.output, strerror(errno));
        sum_free(base);
        sum_free(nw);
        free_opts(&o);
        return MCT_EXIT_USAGE;
    }
    c.base = base;
    c.nw = nw;
    c.base_calls = sum_calls(base);
    c.new_calls = sum_calls(nw);
    c.failures = json_array();
    buf_init(&c.doc);
    if (o.junit != NULL && (c.ju = junit_new()) == NULL)
        c.oom = 1;
    rc = MCT_EXIT_OK;
    if (c.oom || c.failures == NULL || map_methods(&c) < 0) {
        c.oom = 1;
    } else if (c.base_calls == 0 || c.new_calls == 0) {
        fprintf(stderr, "mcalltree diff: %s has no entry call to compare: trace longer, or give "
                "a summary with calls\n", c.base_calls == 0 ? base_path : new_path);
        rc = MCT_EXIT_USAGE;
    } else {
        c.counting = 1;
        walk(&c, sum_root(base), sum_root(nw), 0, 0);
        c.counting = 0;
        c.alpha = (1 - o.confidence) / (double)(c.ntests > 0 ? c.ntests : 1);
        if (!o.json) {
            printf("base: %llu entry calls (%s)\nnew:  %llu entry calls (%s)\n",
                   (unsigned long long)c.base_calls, base_path, (unsigned long long)c.new_calls, new_path);
            printf("%-24s%-18s%-30s%s\n", "calls per entry call", "share of entry", "  p50 per entry call",
                   "  p99 per entry call");
            printf("%-24s%s\n", "that reached the node", "calls reaching it");
            printf("%10s  %10s  %7s  %7s    %8s  %8s  %8s  %8s  %8s  %8s  method\n", "base", "new", "base",
                   "new", "base", "new", "change", "base", "new", "change");
        }
        if (o.json && diffout_doc_head(&c.doc, base_path, c.base_calls, new_path, c.new_calls, o.confidence) < 0)
            c.oom = 1;
        walk(&c, sum_root(base), sum_root(nw), 0, 0);
        if (o.json && !c.oom) {
            if (diffout_doc_tail(&c.doc, c.failures) < 0)
                c.oom = 1;
            else if (o.html ? html_diff_write(stdout, &c.doc, base, nw) < 0 :
                     fu_json_escape(&c.doc, 0) < 0 || fwrite(c.doc.data, 1, c.doc.len, stdout) != c.doc.len ||
                     putchar('\n') == EOF)
                c.oom = 1;
        }
        for (size_t i = 0; i < json_array_size(c.failures); i++)
            fprintf(stderr, "mcalltree diff: %s\n", json_string_value(json_array_get(c.failures, i)));
        if (json_array_size(c.failures) > 0)
            rc = MCT_EXIT_FAILOVER;
        if (c.ju != NULL && !c.oom && junit_write(c.ju, o.junit, &e) < 0) {
            fu_clean(e.msg);
            fprintf(stderr, "mcalltree diff: %s\n", e.msg);
            rc = MCT_EXIT_USAGE;
        }
    }
    if (c.oom) {
        fprintf(stderr, "mcalltree diff: out of memory\n");
        rc = MCT_EXIT_INTERNAL;
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "mcalltree diff: cannot write to stdout\n");
        rc = MCT_EXIT_INTERNAL;
    }
    json_decref(c.failures);
    buf_free(&c.doc);
    free(c.bmap);
    sum_free(base);
    sum_free(nw);
    junit_free(c.ju);
    free_opts(&o);
    return rc;
}
