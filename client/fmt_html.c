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

/* Writes the page to f, its data blob written by data(f, ctx) (escaped
 * as data_chunk does); 0, or -1 (errno set) when f cannot be written. */
static int page_write(FILE *f, int (*data)(FILE *f, const void *ctx), const void *ctx)
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
            rc = data(f, ctx);
        if (rc < 0)
            return -1;
        t = close + 4;
    }
    return ferror(f) ? -1 : 0;
}

/* Writes JSON value v into the data blob: ASCII only, '<' escaped. */
static int put_json(FILE *f, const void *v)
{
    return json_dump_callback(v, data_chunk, f, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_ENCODE_ANY);
}

/* Where and when the page was written: {"tool","host","written"}, a new
 * reference, or NULL (out of memory). */
static json_t *origin(void)
{
    char host[256] = "";
    char when[64] = "";
    time_t now = time(NULL);
    struct tm tm;

    if (gethostname(host, sizeof host - 1) < 0)
        host[0] = '\0';
    if (gmtime_r(&now, &tm) != NULL)
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    return json_pack("{s:s,s:s,s:s}", "tool", "mcalltree " PACKAGE_VERSION, "host", host, "written", when);
}

/* A summary of the run page: its JVM's pid (0: none, null in the data),
 * its text as the data blob holds it (run_text). */
struct run {
    long long pid;
    int final;
    mct_buf text;
};

/* Where converted text goes (ascii_put): appends len bytes at s; 0 or -1. */
typedef int ascii_sink(void *arg, const char *s, size_t len);

static int sink_buf(void *arg, const char *s, size_t len)
{
    buf_bytes(arg, s, len);
    return buf_failed(arg) ? -1 : 0;
}

static int sink_file(void *arg, const char *s, size_t len)
{
    return fwrite(s, 1, len, arg) == len ? 0 : -1;
}

/* Puts the n bytes of JSON text at raw (valid UTF-8, as jansson and
 * sum_write_json write it) as jansson writes the data blob, ASCII only (a
 * character past it as \uXXXX, a pair past U+FFFF) with '<' as \u003c,
 * so that the blob needs no tree; 0 or -1. */
static int ascii_put(const uint8_t *raw, size_t n, ascii_sink *put, void *arg)
{
    size_t run = 0;

    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = raw + i;
        char esc[16];
        uint32_t cp;

        if (*p < 0x80 && *p != '<')
            continue;
        if (put(arg, (const char *)raw + run, i - run) < 0)
            return -1;
        if (*p == '<') {
            if (put(arg, "\\u003c", 6) < 0)
                return -1;
            run = i + 1;
            continue;
        }
        if (*p < 0xe0) {
            cp = (uint32_t)(p[0] & 0x1f) << 6 | (p[1] & 0x3f);
            i += 1;
        } else if (*p < 0xf0) {
            cp = (uint32_t)(p[0] & 0x0f) << 12 | (uint32_t)(p[1] & 0x3f) << 6 | (p[2] & 0x3f);
            i += 2;
        } else {
            cp = (uint32_t)(p[0] & 0x07) << 18 | (uint32_t)(p[1] & 0x3f) << 12 | (uint32_t)(p[2] & 0x3f) << 6 |
                 (p[3] & 0x3f);
            i += 3;
        }
        if (cp < 0x10000)
            snprintf(esc, sizeof esc, "\\u%04X", (unsigned)cp);
        else
            snprintf(esc, sizeof esc, "\\u%04X\\u%04X", (unsigned)(0xd800 | (cp - 0x10000) >> 10),
                     (unsigned)(0xdc00 | ((cp - 0x10000) & 0x3ff)));
        if (put(arg, esc, strlen(esc)) < 0)
            return -1;
        run = i + 1;
    }
    return put(arg, (const char *)raw + run, n - run);
}

/* Appends summary s's JSON text (sum_write_json) to b as the data blob
 * holds it (ascii_put); -1 when out of memory. */
static int run_text(mct_buf *b, const sum *s, int final)
{
    mct_buf raw;
    mct_err e;
    int rc;

    buf_init(&raw);
    rc = sum_write_json(s, final, &raw, &e);
    if (rc == 0)
        rc = ascii_put(raw.data, raw.len, sink_buf, b);
    buf_free(&raw);
    return rc < 0 || buf_failed(b) ? -1 : 0;
}

/* Writes summary s's JSON text to f as run_text; 0 or -1 (errno set). */
static int put_summary(FILE *f, const sum *s)
{
    mct_buf raw;
    mct_err e;
    int rc;

    buf_init(&raw);
    rc = sum_write_json(s, 1, &raw, &e);
    if (rc < 0)
        errno = ENOMEM;
    else
        rc = ascii_put(raw.data, raw.len, sink_file, f);
    buf_free(&raw);
    return rc;
}

/* Writes the keys of origin() to f, each after a ','; 0 or -1. */
static int put_origin_keys(FILE *f)
{
    json_t *from = origin(), *v;
    const char *key;
    int rc = from == NULL ? -1 : 0;

    json_object_foreach(from, key, v)
        if (rc == 0)
            rc = fprintf(f, ",\"%s\":", key) < 0 || put_json(f, v) < 0 ? -1 : 0;
    json_decref(from);
    if (from == NULL)
        errno = ENOMEM;
    return rc;
}

/* The diff page's data: the diff's text, its two summaries. */
struct diff_page {
    const mct_buf *diff;
    const sum *base, *new_;
};

/* Writes the data blob of the diff page ctx (a struct diff_page), the
 * keys in the order the page has always had them; 0 or -1. */
static int diff_data(FILE *f, const void *ctx)
{
    const struct diff_page *p = ctx;
    int rc = fputs("{\"kind\":\"diff\",\"diff\":", f) == EOF ||
             ascii_put(p->diff->data, p->diff->len, sink_file, f) < 0 || fputs(",\"base\":", f) == EOF ||
             put_summary(f, p->base) < 0 || fputs(",\"new\":", f) == EOF || put_summary(f, p->new_) < 0 ||
             put_origin_keys(f) < 0 || fputc('}', f) == EOF ? -1 : 0;

    if (rc < 0 && errno == 0)
        errno = ENOMEM;
    return rc;
}

int html_diff_write(FILE *f, const mct_buf *diff, const sum *base, const sum *new_)
{
    struct diff_page p = { diff, base, new_ };

    return page_write(f, diff_data, &p);
}

/* The run page's data: its facts, its summaries, the counts of the
 * format's own. */
struct run_page {
    const json_t *facts;
    const struct run *runs;
    size_t n;
    long long intervals, warmup_calls;
    int from_calls;
};

/* Writes the data blob of the run page ctx (a struct run_page), the keys
 * in the order the page has always had them; 0 or -1. */
static int run_data(FILE *f, const void *ctx)
{
    const struct run_page *p = ctx;
    int rc = fputs("{\"kind\":\"run\",\"facts\":", f) == EOF || put_json(f, p->facts) < 0 ||
             fputs(",\"runs\":[", f) == EOF ? -1 : 0;
    for (size_t i = 0; rc == 0 && i < p->n; i++) {
        const struct run *r = &p->runs[i];

        if (r->pid > 0)
            rc = fprintf(f, "%s{\"pid\":%lld,\"summary\":", i > 0 ? "," : "", r->pid) < 0 ? -1 : 0;
        else
            rc = fprintf(f, "%s{\"pid\":null,\"summary\":", i > 0 ? "," : "") < 0 ? -1 : 0;
        if (rc == 0 && (fwrite(r->text.data, 1, r->text.len, f) != r->text.len || fputc('}', f) == EOF))
            rc = -1;
    }
    if (rc == 0)
        rc = fprintf(f, "],\"intervals\":%lld,\"from_calls\":%s,\"warmup_calls\":%lld", p->intervals,
                     p->from_calls ? "true" : "false", p->warmup_calls) < 0 ? -1 : 0;
    if (rc == 0 && (put_origin_keys(f) < 0 || fputc('}', f) == EOF))
        rc = -1;
    if (rc < 0 && errno == 0)
        errno = ENOMEM;
    return rc;
}

int html_summary_write(FILE *f, const sum *summary, const json_t *merged)
{
    json_t *facts = json_pack("{s:O}", "merged", merged);
    struct run run = { .final = 1 };
    struct run_page p = { .facts = facts, .runs = &run, .n = 1 };
    int rc = -1;

    buf_init(&run.text);
    if (facts == NULL || run_text(&run.text, summary, 1) < 0)
        errno = ENOMEM;
    else
        rc = page_write(f, run_data, &p);
    buf_free(&run.text);
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
    struct run *runs;   /* the summary kept per JVM */
    size_t nruns, capruns;
    long long intervals;/* --interval summaries seen */
    sum *calls;         /* calls aggregated (no --aggregate), NULL before the first */
    long long warmup_calls; /* of those, the warm-up calls */
    int oom;            /* something could not be kept: end() fails */
};

static int html_begin(out *o)
{
    struct html *h = calloc(1, sizeof *h);

    if (h == NULL || (h->facts = json_object()) == NULL) {
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

/* The page is written at the end: each JVM's last summary kept as the
 * text its data holds (run_text), a final one winning. */
static int html_summary(out *o, const sum *s, int final)
{
    struct html *h = o->state;
    long long pid = o->pid > 0 ? o->pid : 0;
    size_t i;

    if (!final)
        h->intervals++;
    for (i = 0; i < h->nruns && h->runs[i].pid != pid; i++)
        ;
    if (i == h->nruns) {
        if (buf_grow(&h->runs, &h->capruns, h->nruns, sizeof *h->runs, 4) < 0)
            return no_memory();
        h->runs[h->nruns++] = (struct run){ .pid = pid };
        buf_init(&h->runs[i].text);
    } else if (!final && h->runs[i].final) {
        return 0;       /* the final summary stays, whatever comes after it */
    }
    h->runs[i].final = final;
    h->runs[i].text.len = 0;
    return run_text(&h->runs[i].text, s, final) < 0 ? no_memory() : 0;
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
    struct run calls = { .final = 1 };
    struct run_page p = { .facts = h->facts, .runs = h->runs, .n = h->nruns, .intervals = h->intervals,
                          .warmup_calls = h->warmup_calls, .from_calls = h->calls != NULL };
    int rc = -1;

    buf_init(&calls.text);
    errno = ENOMEM;
    if (h->oom)
        goto out;
    /* Calls and no summary: the page of those calls. */
    if (h->calls != NULL && h->nruns == 0) {
        if (run_text(&calls.text, h->calls, 1) < 0)
            goto out;
        p.runs = &calls;
        p.n = 1;
    }
    rc = page_write(o->f, run_data, &p);
out:
    buf_free(&calls.text);
    for (size_t i = 0; i < h->nruns; i++)
        buf_free(&h->runs[i].text);
    free(h->runs);
    json_decref(h->facts);
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
