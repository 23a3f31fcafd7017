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
#include <getopt.h>
#include <math.h>     /* isnan, isfinite, NAN: macros, no libm */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "call.h"
#include "exit.h"
#include "fmt_html.h"
#include "fmtutil.h"
#include "kit.h"
#include "summary.h"

#define DIFF_LINE_MAX ((size_t)64 * 1024 * 1024)    /* the agent's largest reply */
#define DIFF_MIN_NS_DEFAULT 10000
#define DIFF_DIGITS 6               /* decimals of calls per entry call */
#define DIFF_DIGITS_MAX 18

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

json_t *diff_read_runs(const char *path, int intervals, size_t *jvms, mct_err *e)
{
    if (strcmp(path, "-") == 0)
        return read_opened(stdin, "stdin", MCT_E_IO, intervals, jvms, e);
    return read_opened(fopen(path, "r"), path, MCT_E_IO, intervals, jvms, e);
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

struct diff_opts {
    int json;                   /* -f json */
    int html;                   /* -f html: the page of the json object */
    int fail_on_calls;
    double fail_over_pct;       /* < 0: not given */
    long long min_ns;
};

struct ctx {
    const struct diff_opts *o;
    uint64_t base_calls, new_calls;     /* entry calls of each run */
    const json_t *stack[FU_MAX_DEPTH + 1];  /* the path to the current node */
    json_t *nodes;              /* -f json: the rows */
    json_t *failures;           /* the gates' messages */
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

/* Records a gate failure message. */
static void fail(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct ctx *c, const char *fmt, ...)
{
    va_list ap;
    json_t *msg;

    va_start(ap, fmt);
    msg = json_vsprintf(fmt, ap); /* the names in it come from checked JSON: UTF-8 */
    va_end(ap);
    if (msg == NULL || json_array_append_new(c->failures, msg) < 0)
        c->oom = 1;
}

/* The change from a to b in % (NAN when a is 0). */
static double pct(uint64_t a, uint64_t b)
{
    return a == 0 ? NAN : ((double)b - (double)a) * 100.0 / (double)a;
}

/* Checks the --fail-over-pct gate on one percentile. */
static void gate_pct(struct ctx *c, const char *path, const char *key, uint64_t a, uint64_t b)
{
    double p = pct(a, b);

    if (c->o->fail_over_pct < 0 || b <= a || (long long)(b - a) < c->o->min_ns)
        return;
    if (a == 0 || p > c->o->fail_over_pct)
        fail(c, "--fail-over-pct %g: %s of %s grew from %llu ns to %llu ns (%+.1f%%), over %g%%",
             c->o->fail_over_pct, key, path, (unsigned long long)a, (unsigned long long)b, p,
             c->o->fail_over_pct);
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

static void put_pct(FILE *f, const json_t *b, const json_t *n, const char *key)
{
    char buf[32] = "-";
    double p = b != NULL && n != NULL ? pct(nint(b, key), nint(n, key)) : NAN;

    if (!isnan(p))
        snprintf(buf, sizeof buf, "%+.1f%%", p);
    fputs("  ", f);
    fu_put_right(f, buf, 8);
}

/* A JSON {"base":..,"new":..,"pct":..} of a percentile. */
static json_t *pct_json(const json_t *b, const json_t *n, const char *key)
{
    double p = b != NULL && n != NULL ? pct(nint(b, key), nint(n, key)) : NAN;

    return json_pack("{s:o,s:o,s:o}", "base", b != NULL ? json_integer((json_int_t)nint(b, key)) : json_null(),
                     "new", n != NULL ? json_integer((json_int_t)nint(n, key)) : json_null(),
                     "pct", isnan(p) ? json_null() : json_real(p));
}

/* One row: the node on the path at depth, b and n its two sides (one may be
 * NULL). Prints it (table) or adds it (JSON), and checks the gates. */
static void row(struct ctx *c, int depth, const json_t *b, const json_t *n)
{
    const json_t *either = b != NULL ? b : n;
    unsigned __int128 lhs = (unsigned __int128)ncalls(b) * c->new_calls;
    unsigned __int128 rhs = (unsigned __int128)ncalls(n) * c->base_calls;
    int changed = lhs != rhs;
    const char *status = b == NULL ? "added" : n == NULL ? "removed" : changed ? "calls" : "same";
    char rb[64], rn[64], path[4096];
    int digits = DIFF_DIGITS;

    do {
        ratio_text(rb, sizeof rb, ncalls(b), c->base_calls, digits);
        ratio_text(rn, sizeof rn, ncalls(n), c->new_calls, digits);
    } while (changed && strcmp(rb, rn) == 0 && ++digits <= DIFF_DIGITS_MAX);
    c->stack[depth] = either;
    path_text(c, depth, path, sizeof path);
    if (changed && c->o->fail_on_calls)
        fail(c, "--fail-on-calls: %s: calls per entry call %s -> %s%s", path, rb, rn,
             b == NULL ? " (added)" : n == NULL ? " (removed)" : "");
    if (b != NULL && n != NULL) {
        gate_pct(c, path, "p50", nint(b, "p50_ns"), nint(n, "p50_ns"));
        gate_pct(c, path, "p99", nint(b, "p99_ns"), nint(n, "p99_ns"));
    }
    if (c->o->json) {
        json_t *r = json_pack("{s:s,s:i,s:s,s:s,s:s,s:s,s:{s:s,s:s},s:o,s:o}", "path", path, "depth", depth,
                              "class", json_string_value(json_object_get(either, "class")),
                              "method", json_string_value(json_object_get(either, "method")),
                              "desc", json_string_value(json_object_get(either, "desc")),
                              "status", status, "calls_per_entry", "base", rb, "new", rn,
                              "p50_ns", pct_json(b, n, "p50_ns"), "p99_ns", pct_json(b, n, "p99_ns"));

        if (json_array_append_new(c->nodes, r) < 0)
            c->oom = 1;
        return;
    }
    char params[512];
    FILE *f = stdout;

    fu_put_right(f, b != NULL ? rb : "-", 10);
    fputs("  ", f);
    fu_put_right(f, n != NULL ? rn : "-", 10);
    fputs(changed ? " *" : "  ", f);
    put_dur(f, b, "p50_ns", 8);
    put_dur(f, n, "p50_ns", 8);
    put_pct(f, b, n, "p50_ns");
    put_dur(f, b, "p99_ns", 8);
    put_dur(f, n, "p99_ns", 8);
    put_pct(f, b, n, "p99_ns");
    fputs("  ", f);
    for (int d = 0; d < depth; d++)
        fputs("  ", f);
    fu_java_params(params, sizeof params, json_string_value(json_object_get(either, "desc")));
    fu_put_text(f, json_string_value(json_object_get(either, "class")));
    fputc('.', f);
    fu_put_text(f, json_string_value(json_object_get(either, "method")));
    fu_put_text(f, params);
    if (b == NULL || n == NULL)
        fprintf(f, "  [%s]", status);
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
static void walk(struct ctx *c, const json_t *bk, const json_t *nk, int depth)
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
        row(c, depth, b, n);
        walk(c, json_object_get(b, "children"), n != NULL ? json_object_get(n, "children") : NULL,
             depth + 1);
    }
    for (size_t i = 0; i < nn && !c->oom; i++)
        if (!used[i]) {
            row(c, depth, NULL, json_array_get(nk, i));
            walk(c, NULL, json_object_get(json_array_get(nk, i), "children"), depth + 1);
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
          "Compares two runs of mcalltree, node by node (by call path): calls per entry\n"
          "call (exact), p50 and p99 of the node's time per entry call, nodes added and\n"
          "removed. BASE and NEW are files written by mcalltree -f json: the calls of a\n"
          "run (aggregated on reading) or its summaries (the last final one is used).\n"
          "\n"
          "Options:\n"
          "  -f, --format FMT      table (default), json (one object) or html (a page)\n"
          "      --fail-on-calls   exit 4 when a node's calls per entry call changed\n"
          "                        (a node added or removed included)\n"
          "      --fail-over-pct P exit 4 when a node's p50 or p99 grew by more than P %\n"
          "      --min-ns NS       ignore growths smaller than NS ns for --fail-over-pct\n"
          "                        (default 10000: 1 ns -> 2 ns is no +100 %)\n"
          "  -h, --help            this text\n"
          "\n"
          "Exit status: 0 done, 1 usage error or unreadable or malformed input,\n"
          "4 a gate failed (each failure named on stderr), 5 the output failed.\n", f);
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

enum { OPT_FAIL_ON_CALLS = 256, OPT_FAIL_OVER_PCT, OPT_MIN_NS };

/* Parses the options into o; 0, 1 for --help, or -1 with a message printed. */
static int parse(int argc, char **argv, struct diff_opts *o, const char **base, const char **new_)
{
    static const struct option opts[] = {
        { "format", required_argument, NULL, 'f' },
        { "fail-on-calls", no_argument, NULL, OPT_FAIL_ON_CALLS },
        { "fail-over-pct", required_argument, NULL, OPT_FAIL_OVER_PCT },
        { "min-ns", required_argument, NULL, OPT_MIN_NS },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    int opt;
    double v;

    *o = (struct diff_opts){ .fail_over_pct = -1, .min_ns = DIFF_MIN_NS_DEFAULT };
    optind = 0;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":f:h", opts, NULL)) != -1) {
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
    struct diff_opts o;
    const char *base_path, *new_path;
    json_t *base = NULL, *nw = NULL, *broots = NULL, *nroots = NULL;
    struct ctx c = { .o = &o };
    mct_err e;
    size_t bj = 1, nj = 1;
    int rc = parse(argc, argv, &o, &base_path, &new_path);

    if (rc != 0) {
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
        return MCT_EXIT_USAGE;
    }
    if (bj > 1)
        fprintf(stderr, "mcalltree diff: %s holds the summaries of %zu JVMs: compared merged\n", base_path, bj);
    if (nj > 1)
        fprintf(stderr, "mcalltree diff: %s holds the summaries of %zu JVMs: compared merged\n", new_path, nj);
    c.base_calls = nint(base, "calls");
    c.new_calls = nint(nw, "calls");
    c.failures = json_array();
    c.nodes = json_array();
    broots = roots_of(base);
    nroots = roots_of(nw);
    rc = MCT_EXIT_OK;
    if (c.failures == NULL || c.nodes == NULL || broots == NULL || nroots == NULL) {
        c.oom = 1;
    } else if (c.base_calls == 0 || c.new_calls == 0) {
        fprintf(stderr, "mcalltree diff: %s has no entry call to compare: trace longer, or give "
                "a summary with calls\n", c.base_calls == 0 ? base_path : new_path);
        rc = MCT_EXIT_USAGE;
    } else {
        if (!o.json) {
            printf("base: %llu entry calls (%s)\nnew:  %llu entry calls (%s)\n",
                   (unsigned long long)c.base_calls, base_path, (unsigned long long)c.new_calls, new_path);
            printf("%-22s   %-28s  %-28s\n", "calls per entry call", "p50 per entry call",
                   "p99 per entry call");
            printf("%10s  %10s    %8s  %8s  %8s  %8s  %8s  %8s  method\n", "base", "new", "base", "new",
                   "change", "base", "new", "change");
        }
        walk(&c, broots, nroots, 0);
        if (o.json && !c.oom) {
            json_t *out = json_pack("{s:s,s:{s:s,s:I},s:{s:s,s:I},s:O,s:O}", "type", "diff",
                                    "base", "file", base_path, "calls", (json_int_t)c.base_calls,
                                    "new", "file", new_path, "calls", (json_int_t)c.new_calls,
                                    "nodes", c.nodes, "failures", c.failures);

            if (out == NULL || (o.html ? html_diff_write(stdout, out, base, nw) < 0 :
                                fu_json_dump(stdout, out, JSON_COMPACT) < 0 || putchar('\n') == EOF))
                c.oom = 1;
            json_decref(out);
        }
        for (size_t i = 0; i < json_array_size(c.failures); i++)
            fprintf(stderr, "mcalltree diff: %s\n", json_string_value(json_array_get(c.failures, i)));
        if (json_array_size(c.failures) > 0)
            rc = MCT_EXIT_FAILOVER;
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
    return rc;
}
