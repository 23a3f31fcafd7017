/* fmt_html.c — see fmt_html.h. The format keeps what it is given and
 * writes the page at the end: per JVM (the wrap form tags them with a pid)
 * the last summary, a final one winning over --interval ones; without
 * --aggregate, the calls themselves, aggregated here into one summary as
 * `mcalltree diff` aggregates a file of calls (warm-up calls included and
 * counted, HTML_SLOWEST calls kept whole); and the session's facts
 * (out_fact). */
#include "config.h"

#include "fmt_html.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "output.h"
#include "summary.h"

/* Calls kept whole when the page is built from calls. */
#define HTML_SLOWEST 20

/* The page's parts, generated from client/report/ at build time; the
 * template says where the others go (<!--@CSS@-->, <!--@JS@-->,
 * <!--@DATA@-->). */
static const char page_template[] = {
#include "report.html.inc"
    0x00
};
static const char page_css[] = {
#include "report.css.inc"
    0x00
};
static const char page_js[] = {
#include "report.js.inc"
    0x00
};

/* ---- the page ------------------------------------------------------------------------ */

/* Writes one chunk of jansson's output with every '<' escaped, so that no
 * string in the data can close the <script> element holding it; 0 or -1. */
static int data_chunk(const char *buf, size_t n, void *arg)
{
    FILE *f = arg;
    const char *run = buf, *end = buf + n;

    for (const char *p = buf; p < end; p++) {
        if (*p != '<')
            continue;
        if (fwrite(run, 1, (size_t)(p - run), f) != (size_t)(p - run) || fputs("\\u003c", f) == EOF)
            return -1;
        run = p + 1;
    }
    return fwrite(run, 1, (size_t)(end - run), f) == (size_t)(end - run) ? 0 : -1;
}

int html_page_write(FILE *f, const json_t *data)
{
    const char *t = page_template;

    for (;;) {
        const char *mark = strstr(t, "<!--@"), *close;
        size_t len = mark != NULL ? (size_t)(mark - t) : strlen(t);
        int rc = 0;

        if (fwrite(t, 1, len, f) != len)
            return -1;
        if (mark == NULL)
            break;
        close = strstr(mark, "@-->");
        if (close == NULL) {    /* a template without its end: build error, never user input */
            errno = EINVAL;
            return -1;
        }
        if (strncmp(mark, "<!--@CSS@-->", 12) == 0)
            rc = fputs(page_css, f) == EOF ? -1 : 0;
        else if (strncmp(mark, "<!--@JS@-->", 11) == 0)
            rc = fputs(page_js, f) == EOF ? -1 : 0;
        else if (strncmp(mark, "<!--@DATA@-->", 13) == 0)
            rc = json_dump_callback(data, data_chunk, f, JSON_COMPACT | JSON_ENSURE_ASCII);
        if (rc < 0)
            return -1;
        t = close + 4;
    }
    return ferror(f) ? -1 : 0;
}

/* Adds where and when the page was written to data; -1 when out of memory. */
static int put_origin(json_t *data)
{
    char host[256] = "";
    char when[64] = "";
    time_t now = time(NULL);
    struct tm tm;

    if (gethostname(host, sizeof host - 1) < 0)
        host[0] = '\0';
    if (gmtime_r(&now, &tm) != NULL)
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    return json_object_set_new(data, "tool", json_string("mcalltree " PACKAGE_VERSION)) |
           json_object_set_new(data, "host", json_string(host)) |
           json_object_set_new(data, "written", json_string(when));
}

int html_diff_write(FILE *f, const json_t *diff, const json_t *base, const json_t *new_)
{
    json_t *data = json_pack("{s:s,s:O,s:O,s:O}", "kind", "diff", "diff", diff, "base", base, "new", new_);
    int rc;

    if (data == NULL || put_origin(data) < 0) {
        json_decref(data);
        errno = ENOMEM;
        return -1;
    }
    rc = html_page_write(f, data);
    json_decref(data);
    return rc;
}

/* Writes the run page of runs (an array of {"pid","summary"}) with facts
 * and the counts of the format's own; 0 or -1 as html_page_write. */
static int run_page(FILE *f, const json_t *facts, const json_t *runs, long long intervals, int from_calls,
                    long long warmup_calls)
{
    json_t *data = json_pack("{s:s,s:O,s:O,s:I,s:b,s:I}", "kind", "run", "facts", facts, "runs", runs,
                             "intervals", (json_int_t)intervals, "from_calls", from_calls,
                             "warmup_calls", (json_int_t)warmup_calls);
    int rc;

    if (data == NULL || put_origin(data) < 0) {
        json_decref(data);
        errno = ENOMEM;
        return -1;
    }
    rc = html_page_write(f, data);
    json_decref(data);
    return rc;
}

int html_summary_write(FILE *f, const json_t *summary, const json_t *merged)
{
    json_t *runs = json_pack("[{s:n,s:O}]", "pid", "summary", summary);
    json_t *facts = json_pack("{s:O}", "merged", merged);
    int rc = -1;

    if (runs == NULL || facts == NULL)
        errno = ENOMEM;
    else
        rc = run_page(f, facts, runs, 0, 0, 0);
    json_decref(runs);
    json_decref(facts);
    return rc;
}

/* ---- the format ---------------------------------------------------------------------- */

/* -1 with errno ENOMEM, as the format's hooks fail when out of memory. */
static int no_memory(void)
{
    errno = ENOMEM;
    return -1;
}

struct html {
    json_t *facts;      /* key: the value given to out_fact */
    json_t *runs;       /* {"pid":N|null,"summary":S}: the one kept per JVM */
    long long intervals;/* --interval summaries seen */
    sum *calls;         /* calls aggregated (no --aggregate), NULL before the first */
    long long warmup_calls; /* of those, the warm-up calls */
    int oom;            /* something could not be kept: end() fails */
};

static int html_begin(out *o)
{
    struct html *h = calloc(1, sizeof *h);

    if (h == NULL || (h->facts = json_object()) == NULL || (h->runs = json_array()) == NULL) {
        if (h != NULL)
            json_decref(h->facts);
        free(h);
        return no_memory();
    }
    o->state = h;
    return 0;
}

static int html_call(out *o, const call_tab *t, const mct_call *call)
{
    struct html *h = o->state;
    mct_err e;

    if (h->calls == NULL && (h->calls = sum_new(HTML_SLOWEST, &e)) == NULL)
        return no_memory();
    if (sum_add_call(h->calls, t, call, &e) < 0) {
        errno = e.code == MCT_E_NOMEM ? ENOMEM : EINVAL;
        return -1;
    }
    if (call_warmup(call))
        h->warmup_calls++;
    return 0;
}

/* The page's data is one JSON document written at the end: each JVM's
 * summary kept as its object. */
static int html_summary(out *o, const sum *s, int final)
{
    struct html *h = o->state;
    mct_err e;
    json_t *summary = sum_to_json(s, final, &e);
    json_t *pid = o->pid > 0 ? json_integer(o->pid) : json_null();
    json_t *run = summary != NULL ? json_pack("{s:o,s:o}", "pid", pid, "summary", summary) : NULL;
    size_t i;

    if (run == NULL)
        return no_memory();
    if (!final)
        h->intervals++;
    for (i = 0; i < json_array_size(h->runs); i++)
        if (json_equal(json_object_get(json_array_get(h->runs, i), "pid"), json_object_get(run, "pid")))
            break;
    if (i == json_array_size(h->runs))
        return json_array_append_new(h->runs, run) < 0 ? no_memory() : 0;
    /* The final summary stays, whatever comes after it. */
    if (!final && json_is_true(json_object_get(json_object_get(json_array_get(h->runs, i), "summary"), "final"))) {
        json_decref(run);
        return 0;
    }
    return json_array_set_new(h->runs, i, run) < 0 ? no_memory() : 0;
}

static void html_fact(out *o, const char *key, const json_t *value)
{
    struct html *h = o->state;

    if (json_object_set_new(h->facts, key, json_deep_copy(value)) < 0)
        h->oom = 1;
}

static int html_end(out *o)
{
    struct html *h = o->state;
    int rc = -1;

    errno = ENOMEM;
    if (h->oom)
        goto out;
    /* Calls and no summary: the page of those calls. */
    if (h->calls != NULL && json_array_size(h->runs) == 0) {
        mct_err e;
        json_t *s = sum_to_json(h->calls, 1, &e);

        if (s == NULL || json_array_append_new(h->runs, json_pack("{s:n,s:o}", "pid", "summary", s)) < 0)
            goto out;
    }
    rc = run_page(o->f, h->facts, h->runs, h->intervals, h->calls != NULL, h->warmup_calls);
out:
    json_decref(h->facts);
    json_decref(h->runs);
    sum_free(h->calls);
    free(h);
    o->state = NULL;
    return rc;
}

const struct out_format fmt_html = {
    .begin = html_begin,
    .call = html_call,
    .summary = html_summary,
    .end = html_end,
    .fact = html_fact,
};
