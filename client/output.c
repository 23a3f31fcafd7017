/* output.c — see output.h. */
#include "output.h"

#include <errno.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "intr.h"

/* The stdio buffer of -o FILE. */
#define OUT_BUF_BYTES ((size_t)256 * 1024)

static const struct out_format *format_of(enum cli_format f)
{
    switch (f) {
    case CLI_FORMAT_TREE: return &fmt_tree;
    case CLI_FORMAT_CHROME: return &fmt_chrome;
    case CLI_FORMAT_FOLDED: return &fmt_folded;
    case CLI_FORMAT_HTML: return &fmt_html;
    case CLI_FORMAT_OTLP: return &fmt_otlp;
    case CLI_FORMAT_ROWS: return &fmt_rows;
    case CLI_FORMAT_FRAMES: return &fmt_frames;
    default: return &fmt_json;
    }
}

out *out_open(enum cli_format format, const char *path, double slow_ms, mct_err *e)
{
    out *o = calloc(1, sizeof *o);
    const char *no_color = getenv("NO_COLOR");

    if (o == NULL) {
        mct_err_set(e, MCT_E_NOMEM, "out of memory");
        return NULL;
    }
    o->fmt = format_of(format);
    o->slow_ms = slow_ms;
    if (path == NULL) {
        o->f = stdout;
    } else {
        o->f = fopen(path, "we");
        if (o->f == NULL) {
            mct_err_set(e, MCT_E_IO, "cannot write %s: %s", path, strerror(errno));
            free(o);
            return NULL;
        }
        o->close_f = 1;
        /* Calls are written many at a time (out_call, out_flush); glibc
         * ignores the size unless given the buffer. */
        o->buf = malloc(OUT_BUF_BYTES);
        if (o->buf != NULL)
            setvbuf(o->f, o->buf, _IOFBF, OUT_BUF_BYTES);
    }
    o->color = format == CLI_FORMAT_TREE && isatty(fileno(o->f)) && (no_color == NULL || no_color[0] == '\0');
    if (o->fmt->begin != NULL && o->fmt->begin(o) < 0) {
        mct_err_set(e, MCT_E_IO, "cannot write the output: %s", strerror(errno));
        if (o->close_f)
            fclose(o->f);
        free(o->buf);
        free(o);
        return NULL;
    }
    return o;
}

/* Writes the lines call_rec left in o->text, after what f holds, straight
 * to the file (not copied into f's buffer); 0 or -1 (errno set). */
static int put_text(out *o)
{
    const uint8_t *p = o->text.data;
    size_t n = o->text.len;

    if (buf_failed(&o->text)) {
        buf_reset(&o->text);
        errno = ENOMEM;
        return -1;
    }
    if (n == 0)
        return 0;
    o->text.len = 0;
    if (fflush(o->f) != 0)
        return -1;
    while (n > 0) {
        ssize_t w = write(fileno(o->f), p, n);

        /* Interrupted: retried, unless a stop is due (the write may be
         * blocked on a reader that never comes). */
        if (w < 0 && errno == EINTR && !intr_stop_due())
            continue;
        if (w < 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

void out_abandon(out *o)
{
    o->abandoned = 1;
    buf_reset(&o->text);
    __fpurge(o->f);
    clearerr(o->f);
}

int out_call(out *o, const call_tab *t, const mct_call *c, mct_err *e)
{
    int rc;

    if (o->abandoned)
        return 0;
    rc = o->fmt->call(o, t, c);

    if (rc == 0 && (o->text.len >= OUT_BUF_BYTES || buf_failed(&o->text)))
        rc = put_text(o);
    if (rc < 0)
        return mct_err_set(e, MCT_E_IO, "cannot write the output: %s", strerror(errno));
    o->dirty = 1;
    o->calls++;
    return 0;
}

int out_flush(out *o, mct_err *e)
{
    if (!o->dirty || o->abandoned)
        return 0;
    o->dirty = 0;
    if (put_text(o) < 0 || fflush(o->f) != 0)
        return mct_err_set(e, MCT_E_IO, "cannot write the output: %s", strerror(errno));
    return 0;
}

int out_summary(out *o, const sum *s, int final, mct_err *e)
{
    if (o->fmt->summary == NULL)
        return mct_err_set(e, MCT_E_ARG, "the chrome format shows single calls, not summaries: "
                           "use -f json, tree or folded");
    if (put_text(o) < 0 || o->fmt->summary(o, s, final) < 0 || fflush(o->f) != 0)
        return mct_err_set(e, MCT_E_IO, "cannot write the output: %s", strerror(errno));
    o->summaries++;
    return 0;
}

void out_fact(out *o, const char *key, const json_t *value)
{
    if (o->fmt->fact != NULL && value != NULL)
        o->fmt->fact(o, key, value);
}

void out_set_export(out *o, const struct out_export *x)
{
    o->export = *x;
}

void out_export_options(out *o, const struct cli *c, long long pid)
{
    struct out_export x = {
        .url = c->format == CLI_FORMAT_ROWS ? c->clickhouse : c->otlp_endpoint,
        .service = c->service,
        .pid = pid,
    };

    out_set_export(o, &x);
}

void out_set_pid(out *o, long long pid)
{
    o->pid = pid;
}

void out_set_host(out *o, const char *host)
{
    o->host = host;
}

int out_close(out *o, mct_err *e)
{
    int rc = o->abandoned ? 0 : put_text(o);

    /* end() also frees the format's state: called even when abandoned. */
    if (o->fmt->end != NULL && o->fmt->end(o) < 0 && !o->abandoned)
        rc = -1;
    if (o->abandoned)
        out_abandon(o);
    else if (fflush(o->f) != 0 || ferror(o->f))
        rc = -1;
    if (o->close_f && fclose(o->f) != 0)
        rc = -1;
    buf_free(&o->text);
    free(o->buf);
    free(o);
    return rc < 0 ? mct_err_set(e, MCT_E_IO, "cannot write the output: %s", strerror(errno)) : 0;
}
