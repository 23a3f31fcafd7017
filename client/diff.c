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

/* Reads one line of f (its '\n' kept) into *line (capacity *cap), never
 * holding more than DIFF_LINE_MAX + 2 bytes: a file without newlines must
 * not take the memory. Its length; 0 at the end of the file (or an error:
 * ferror); -1 for a line longer than DIFF_LINE_MAX; -2 out of memory. */
static ssize_t read_line(FILE *f, char **line, size_t *cap)
{
    size_t n = 0;
    int c;

    while ((c = getc(f)) != EOF) {
        if (n + 2 > *cap) {
            size_t want = *cap != 0 ? *cap * 2 : 4096;
            char *p;

            if (n + 1 > DIFF_LINE_MAX)
                return -1;
            if (want > DIFF_LINE_MAX + 2)
                want = DIFF_LINE_MAX + 2;
            if ((p = realloc(*line, want)) == NULL)
                return -2;
            *line = p;
            *cap = want;
        }
        (*line)[n++] = (char)c;
        if (c == '\n')
            break;
    }
    if (n > 0)
        (*line)[n] = '\0';
    return (ssize_t)n;
}

/* The summaries of one JVM of a file (by "pid"; none: one JVM). */
struct jvm_run {
    json_int_t pid;
    json_t *last, *last_final;
    json_t *intervals;          /* with intervals: its non-final summaries, else NULL */
};

/* The run of each JVM (its last final summary, else its last) merged into
 * one summary object (sum_add_json); a new reference or NULL with e. */
static json_t *merge_jvms(struct jvm_run *runs, size_t n, const char *name, mct_err *e)
{
    size_t k = 0;
    sum *m;
    json_t *out = NULL;

    for (size_t i = 0; i < n; i++) {
        size_t ks = json_array_size(json_object_get(runs[i].last_final ? runs[i].last_final : runs[i].last,
                                                    "slowest"));
        k = ks > k ? ks : k;
    }
    if ((m = sum_new(k > SUM_SLOWEST_MAX ? SUM_SLOWEST_MAX : k, e)) == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const json_t *ivs = runs[i].intervals;
        int bad = 0;

        if (runs[i].last_final == NULL && ivs != NULL)
            for (size_t v = 0; v < json_array_size(ivs) && !bad; v++)
                bad = sum_add_json(m, json_array_get(ivs, v), e) < 0;
        else
            bad = sum_add_json(m, runs[i].last_final ? runs[i].last_final : runs[i].last, e) < 0;
        if (bad) {
            mct_err_wrap(e, "%s: merging the summaries of %zu JVMs (pid %lld)", name, n,
                         (long long)runs[i].pid);
            sum_free(m);
            return NULL;
        }
    }
    out = sum_to_json(m, 1, e);
    sum_free(m);
    return out;
}

/* Reads the lines of f (named name) into a checked summary object; *jvms:
 * the JVMs whose summaries were merged into it (1 for calls). */
static json_t *read_stream(FILE *f, const char *name, int intervals, size_t *jvms, mct_err *e)
{
    char *line = NULL;
    size_t cap = 0, lineno = 0, ncalls = 0, nruns = 0, caprun = 0;
    ssize_t len;
    struct jvm_run *runs = NULL;
    json_t *result = NULL;
    sum *s = sum_new(0, e);
    call_tab tab = {0};
    mct_call call = {0};

    if (s == NULL)
        return NULL;
    errno = 0;
    while ((len = read_line(f, &line, &cap)) != 0) {
        json_error_t je;
        json_t *j;
        const char *type;
        size_t i;

        lineno++;
        if (len == -1) {
            mct_err_set(e, MCT_E_TOOBIG, "%s:%zu: a line of more than %zu bytes: not mcalltree's output",
                        name, lineno, DIFF_LINE_MAX);
            goto out;
        }
        if (len == -2) {
            mct_err_set(e, MCT_E_NOMEM, "%s:%zu: out of memory reading a line", name, lineno);
            goto out;
        }
        for (i = 0; i < (size_t)len && strchr(" \t\r\n", line[i]) != NULL; i++)
            ;
        if (i == (size_t)len)
            continue;
        j = json_loadb(line, (size_t)len, JSON_REJECT_DUPLICATES, &je);
        if (j == NULL) {
            mct_err_set(e, MCT_E_PROTO, "%s:%zu: not JSON (%s): not mcalltree's output; give a "
                        "file written by mcalltree -f json", name, lineno, je.text);
            goto out;
        }
        type = json_string_value(json_object_get(j, "type"));
        if (type == NULL || (strcmp(type, "call") != 0 && strcmp(type, "summary") != 0)) {
            mct_err_set(e, MCT_E_PROTO, "%s:%zu: %s%.64s%s: not mcalltree's output; give a file "
                        "written by mcalltree -f json", name, lineno,
                        type == NULL ? "a JSON value without a \"type\"" : "a message of type \"",
                        type == NULL ? "" : type, type == NULL ? "" : "\"");
            json_decref(j);
            goto out;
        }
        if ((strcmp(type, "call") == 0 && nruns > 0) || (strcmp(type, "summary") == 0 && ncalls > 0)) {
            mct_err_set(e, MCT_E_PROTO, "%s:%zu: calls and summaries in one file: give one run of "
                        "mcalltree, either its calls or its summaries", name, lineno);
            json_decref(j);
            goto out;
        }
        if (strcmp(type, "call") == 0) {
            int rc = call_from_json(&tab, &call, j, e) < 0 ? -1 : sum_add_call(s, &tab, &call, e);

            json_decref(j);
            if (rc < 0) {
                mct_err_wrap(e, "%s:%zu", name, lineno);
                goto out;
            }
            ncalls++;
            continue;
        }
        if (sum_json_check(j, e) < 0) {
            json_decref(j);
            mct_err_wrap(e, "%s:%zu", name, lineno);
            goto out;
        }
        json_int_t pid = json_integer_value(json_object_get(j, "pid"));

        for (i = 0; i < nruns && runs[i].pid != pid; i++)
            ;
        if (i == nruns) {
            if (buf_grow(&runs, &caprun, nruns, sizeof *runs, 4) < 0) {
                json_decref(j);
                mct_err_set(e, MCT_E_NOMEM, "%s:%zu: out of memory", name, lineno);
                goto out;
            }
            runs[nruns++] = (struct jvm_run){ .pid = pid };
            if (intervals && (runs[i].intervals = json_array()) == NULL) {
                json_decref(j);
                mct_err_set(e, MCT_E_NOMEM, "%s:%zu: out of memory", name, lineno);
                goto out;
            }
        }
        if (runs[i].intervals != NULL && !json_is_true(json_object_get(j, "final")) &&
            json_array_append(runs[i].intervals, j) < 0) {
            json_decref(j);
            mct_err_set(e, MCT_E_NOMEM, "%s:%zu: out of memory", name, lineno);
            goto out;
        }
        json_decref(runs[i].last);
        runs[i].last = j;
        if (json_is_true(json_object_get(j, "final"))) {
            json_decref(runs[i].last_final);
            runs[i].last_final = json_incref(j);
        }
    }
    if (ferror(f)) {
        mct_err_set(e, MCT_E_IO, "cannot read %s: %s", name, strerror(errno));
        goto out;
    }
    *jvms = nruns > 1 ? nruns : 1;
    if (ncalls > 0)
        result = sum_to_json(s, 1, e);
    else if (nruns > 1 || (nruns == 1 && runs[0].last_final == NULL && json_array_size(runs[0].intervals) > 1))
        result = merge_jvms(runs, nruns, name, e);
    else if (nruns == 1)
        result = json_incref(runs[0].last_final != NULL ? runs[0].last_final : runs[0].last);
    else
        mct_err_set(e, MCT_E_PROTO, "%s: no call and no summary in it: not mcalltree's output; "
                    "give a file written by mcalltree -f json", name);
out:
    free(line);
    for (size_t i = 0; i < nruns; i++) {
        json_decref(runs[i].last);
        json_decref(runs[i].last_final);
        json_decref(runs[i].intervals);
    }
    free(runs);
    sum_free(s);
    call_free(&call);
    call_tab_free(&tab);
    return result;
}

/* The run read from f (opened from name; NULL: errno says why, code is the
 * error then), which it closes. */
static json_t *read_opened(FILE *f, const char *name, int code, int intervals, size_t *jvms, mct_err *e)
{
    json_t *j;
    size_t one;

    if (f == NULL) {
        mct_err_set(e, code, "cannot read %s: %s", name, strerror(errno));
        return NULL;
    }
    j = read_stream(f, name, intervals, jvms != NULL ? jvms : &one, e);
    fclose(f);
    return j;
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

json_t *diff_read_runs(const char *path, int intervals, size_t *jvms, mct_err *e)
{
    FILE *f;

    if (strcmp(path, "-") == 0)
        return read_opened(stdin, "stdin", MCT_E_IO, intervals, jvms, e);
    if ((f = open_run(path, e)) == NULL)
        return NULL;
    return read_opened(f, path, MCT_E_IO, intervals, jvms, e);
}

json_t *diff_read_run(const char *path, mct_err *e)
{
    return diff_read_runs(path, 0, NULL, e);
}

json_t *diff_read_run_mem(const char *name, const char *data, size_t n, mct_err *e)
{
    /* fmemopen refuses 0 bytes: a lone newline reads the same (no line) */
    return read_opened(n > 0 ? fmemopen((void *)data, n, "r") : fmemopen((void *)"\n", 1, "r"), name,
                       MCT_E_NOMEM, 0, NULL, e);
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
    const json_t *stack[FU_MAX_DEPTH + 1];  /* the path to the current node */
    int counting;               /* the first walk: only counts the tests */
    size_t ntests;              /* nodes tested, for the per-test level */
    double alpha;               /* each test's level: (1 - confidence) / ntests */
    json_t *nodes;              /* -f json: the rows */
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
static uint64_t ncalls(const json_t *n)
{
    return n == NULL ? 0 : (uint64_t)json_integer_value(json_object_get(n, "calls"));
}

static uint64_t nint(const json_t *n, const char *key)
{
    return (uint64_t)json_integer_value(json_object_get(n, key));
}

/* The names of the nodes on the path, "A.run > B.step(I)V"-style, into buf. */
static void path_text(const struct ctx *c, int depth, char *buf, size_t size)
{
    size_t len = 0;

    buf[0] = '\0';
    for (int d = 0; d <= depth && len + 1 < size; d++) {
        const json_t *n = c->stack[d];
        int w = snprintf(buf + len, size - len, "%s%s.%s%s", d > 0 ? " > " : "",
                         json_string_value(json_object_get(n, "class")),
                         json_string_value(json_object_get(n, "method")),
                         json_string_value(json_object_get(n, "desc")));

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

/* A node's histogram at key (entry_min_ns..entry_max_ns) into h; 0 when the
 * node has none (an older summary), 1 when read, -1 out of memory. */
static int node_hist(const json_t *n, struct sum_hist *h)
{
    mct_err e;
    const json_t *a = json_object_get(n, "hist");

    sum_hist_init(h);
    if (a == NULL || json_object_get(n, "entry_min_ns") == NULL)
        return 0;
    return sum_hist_from_json(h, a, nint(n, "entry_min_ns"), nint(n, "entry_max_ns"), &e) < 0 ? -1 : 1;
}

/* Compares percentile q (key p50_ns or p99_ns) of b and n into *out, and
 * checks the --fail-over-pct gate on it: with both histograms, the change is
 * the interval of the ratio of the two quantiles' intervals (each at
 * 1 - alpha/2, so that both hold at 1 - alpha); without, the point values. */
static void cmp_pct(struct ctx *c, const char *path, const char *label, double q, const json_t *b,
                    const json_t *n, const char *key, struct diffout_pct *out)
{
    uint64_t a = nint(b, key), v = nint(n, key);
    struct sum_hist hb, hn;
    int rb = node_hist(b, &hb), rn = node_hist(n, &hn);
    double lim = c->o->fail_over_pct, conf = 1 - c->alpha / 2;
    char from[FU_DUR_MAX], to[FU_DUR_MAX];
    int over;

    *out = (struct diffout_pct){ .pct = pct(a, v) };
    if (rb < 0 || rn < 0)
        c->oom = 1;
    fu_duration(from, sizeof from, (double)a);
    fu_duration(to, sizeof to, (double)v);
    if (rb > 0 && rn > 0) {
        out->has_ci = 1;
        over = dstat_change(&hb, &hn, q, conf, lim, (uint64_t)c->o->min_ns, &out->ci_lo, &out->ci_hi);
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
    sum_hist_reset(&hb);
    sum_hist_reset(&hn);
}

/* Compares the p50 and p99 of the figures both b and n carry (--cpu,
 * --alloc: dfig.h) into r, and checks --fail-over-pct on them as on the
 * time (a CPU time only when it grew by --min-ns, allocations by any
 * bytes). */
static void cmp_figs(struct ctx *c, const char *path, const json_t *b, const json_t *n, struct diffout_row *r)
{
    static const double qs[] = { 0.50, 0.99 };
    double lim = c->o->fail_over_pct;

    for (int x = 0; x < SUM_X_N; x++) {
        for (size_t i = 0; i < sizeof qs / sizeof qs[0] && dfig_both(b, n, (enum sum_xfig)x); i++) {
            const struct sum_xkeys *k = &sum_xkeys[x];
            struct dfig_change ch;
            char label[32], from[FU_DUR_MAX], to[FU_DUR_MAX];

            if (dfig_compare(b, n, (enum sum_xfig)x, qs[i], 1 - c->alpha / 2, lim,
                             x == SUM_X_CPU ? (uint64_t)c->o->min_ns : 0, &ch) < 0) {
                c->oom = 1;
                continue;
            }
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
static void reached_text(char *buf, size_t size, const json_t *n)
{
    if (n == NULL)
        snprintf(buf, size, "-");
    else if (nint(n, "calls_min") == nint(n, "calls_max"))
        snprintf(buf, size, "%llu", (unsigned long long)nint(n, "calls_min"));
    else
        snprintf(buf, size, "%llu..%llu", (unsigned long long)nint(n, "calls_min"),
                 (unsigned long long)nint(n, "calls_max"));
}

/* Writes a duration cell ("-" for a missing node). */
static void put_dur(FILE *f, const json_t *n, const char *key, int w)
{
    char buf[FU_DUR_MAX];

    if (n == NULL)
        snprintf(buf, sizeof buf, "-");
    else
        fu_duration(buf, sizeof buf, (double)nint(n, key));
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
static int ignored(const struct ctx *c, const json_t *n, const char *path)
{
    char name[2048];

    snprintf(name, sizeof name, "%s.%s", json_string_value(json_object_get(n, "class")),
             json_string_value(json_object_get(n, "method")));
    for (size_t i = 0; i < c->o->nignore; i++)
        if (regexec(&c->o->ignore[i], name, 0, NULL, 0) == 0 || regexec(&c->o->ignore[i], path, 0, NULL, 0) == 0)
            return 1;
    return 0;
}

/* The side of a row for node n (NULL: missing) of a run of calls entry calls. */
static struct diffout_side side_of(const json_t *n, uint64_t calls, const char *ratio)
{
    return (struct diffout_side){
        .present = n != NULL, .calls_per_entry = ratio, .calls_min = nint(n, "calls_min"),
        .calls_max = nint(n, "calls_max"), .calls_hist = json_object_get(n, "calls_hist"),
        .share = (double)nint(n, "entries") / (double)calls,
        .p50_ns = nint(n, "p50_ns"), .p99_ns = nint(n, "p99_ns"),
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
static void row(struct ctx *c, int depth, const json_t *b, const json_t *n, int *ign)
{
    const json_t *either = b != NULL ? b : n;
    int other = json_is_true(json_object_get(either, "other"));
    uint64_t eb = nint(b, "entries"), en = nint(n, "entries");
    int reached_changed = b != NULL && n != NULL &&
        (nint(b, "calls_min") != nint(n, "calls_min") || nint(b, "calls_max") != nint(n, "calls_max"));
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

    c->stack[depth] = either;
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
        .class_name = json_string_value(json_object_get(either, "class")),
        .method = json_string_value(json_object_get(either, "method")),
        .desc = json_string_value(json_object_get(either, "desc")),
        .base = side_of(b, c->base_calls, rb), .new_ = side_of(n, c->new_calls, rn),
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
        cmp_pct(c, path, "p50", 0.50, b, n, "p50_ns", &r.p50);
        cmp_pct(c, path, "p99", 0.99, b, n, "p99_ns", &r.p99);
        cmp_figs(c, path, b, n, &r);
        c->o = o;
    }
    if (c->o->json) {
        json_t *j = diffout_row(&r);

        if (j == NULL || json_array_append_new(c->nodes, j) < 0)
            c->oom = 1;
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
    put_dur(f, b, "p50_ns", 8);
    put_dur(f, n, "p50_ns", 8);
    put_pct(f, r.p50.pct);
    put_dur(f, b, "p99_ns", 8);
    put_dur(f, n, "p99_ns", 8);
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

static uint64_t names_hash(const json_t *n)
{
    return kit_hash_str(json_string_value(json_object_get(n, "desc")),
                        kit_hash_str(json_string_value(json_object_get(n, "method")),
                                     kit_hash_str(json_string_value(json_object_get(n, "class")), 1)));
}

static int same_names(const json_t *a, const json_t *b)
{
    static const char *const keys[] = { "class", "method", "desc" };

    for (int i = 0; i < 3; i++)
        if (strcmp(json_string_value(json_object_get(a, keys[i])), json_string_value(json_object_get(b, keys[i]))) != 0)
            return 0;
    return 1;
}

/* Compares the node lists bk and nk (arrays, either NULL) at depth: the
 * base's nodes in their order with their match, then the new nodes no base
 * node matched. */
static void walk(struct ctx *c, const json_t *bk, const json_t *nk, int depth, int ign)
{
    size_t nb = json_array_size(bk), nn = json_array_size(nk);
    unsigned char *used = calloc(nn > 0 ? nn : 1, 1);
    kit_table index = { 0 };

    if (used == NULL || kit_table_reserve(&index, nn) < 0) {
        c->oom = 1;
        free(used);
        return;
    }
    for (size_t i = 0; i < nn; i++)
        kit_table_add(&index, names_hash(json_array_get(nk, i)), i + 1);    /* room reserved */
    for (size_t i = 0; i < nb && !c->oom; i++) {
        const json_t *b = json_array_get(bk, i), *n = NULL;
        kit_cursor cur;

        for (uintptr_t v = kit_table_first(&index, names_hash(b), &cur); v != 0;
             v = kit_table_next(&index, &cur))
            if (!used[v - 1] && same_names(b, json_array_get(nk, v - 1))) {
                used[v - 1] = 1;
                n = json_array_get(nk, v - 1);
                break;
            }
        int kid_ign = ign;

        row(c, depth, b, n, &kid_ign);
        walk(c, json_object_get(b, "children"), n != NULL ? json_object_get(n, "children") : NULL,
             depth + 1, kid_ign);
    }
    for (size_t i = 0; i < nn && !c->oom; i++)
        if (!used[i]) {
            int kid_ign = ign;

            row(c, depth, NULL, json_array_get(nk, i), &kid_ign);
            walk(c, NULL, json_object_get(json_array_get(nk, i), "children"), depth + 1, kid_ign);
        }
    kit_table_free(&index);
    free(used);
}

/* The roots of a checked summary: root and more_roots, as a new array. */
static json_t *roots_of(const json_t *s)
{
    json_t *a = json_array();
    const json_t *more = json_object_get(s, "more_roots");

    if (a == NULL)
        return NULL;
    if (!json_is_null(json_object_get(s, "root")))
        json_array_append(a, json_object_get(s, "root"));
    for (size_t i = 0; i < json_array_size(more); i++)
        json_array_append(a, json_array_get(more, i));
    return a;
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
    json_t *base = NULL, *nw = NULL, *broots = NULL, *nroots = NULL;
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
    base = diff_read_runs(base_path, 0, &bj, &e);
    if (base == NULL || (nw = diff_read_runs(new_path, 0, &nj, &e)) == NULL) {
        fu_clean(e.msg);
        fprintf(stderr, "mcalltree diff: %s\n", e.msg);
        json_decref(base);
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
        json_decref(base);
        json_decref(nw);
        free_opts(&o);
        return MCT_EXIT_USAGE;
    }
    c.base_calls = nint(base, "calls");
    c.new_calls = nint(nw, "calls");
    c.failures = json_array();
    c.nodes = json_array();
    if (o.junit != NULL && (c.ju = junit_new()) == NULL)
        c.oom = 1;
    broots = roots_of(base);
    nroots = roots_of(nw);
    rc = MCT_EXIT_OK;
    if (c.oom || c.failures == NULL || c.nodes == NULL || broots == NULL || nroots == NULL) {
        c.oom = 1;
    } else if (c.base_calls == 0 || c.new_calls == 0) {
        fprintf(stderr, "mcalltree diff: %s has no entry call to compare: trace longer, or give "
                "a summary with calls\n", c.base_calls == 0 ? base_path : new_path);
        rc = MCT_EXIT_USAGE;
    } else {
        c.counting = 1;
        walk(&c, broots, nroots, 0, 0);
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
        walk(&c, broots, nroots, 0, 0);
        if (o.json && !c.oom) {
            json_t *out = diffout_doc(base_path, c.base_calls, new_path, c.new_calls, o.confidence, c.nodes,
                                      c.failures);

            if (out == NULL || (o.html ? html_diff_write(stdout, out, base, nw) < 0 :
                                fu_json_dump(stdout, out, JSON_COMPACT) < 0 || putchar('\n') == EOF))
                c.oom = 1;
            json_decref(out);
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
    json_decref(c.nodes);
    json_decref(broots);
    json_decref(nroots);
    json_decref(base);
    json_decref(nw);
    junit_free(c.ju);
    free_opts(&o);
    return rc;
}
