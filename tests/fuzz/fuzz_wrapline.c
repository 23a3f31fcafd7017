/* fuzz_wrapline.c — the lines of a JVM's trace file as the wrap form reads
 * them (untrusted): the bytes split at '\n' as the client splits them, each
 * line through wrapline_parse. Nothing may crash or leak, every refusal has
 * a message, and what is accepted is an object with a known "type" (or a
 * summary) that is accepted again, the same, once rendered and parsed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wrapline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A summary read: written by its one writer, read again, written the same. */
static void summary_again(const struct wrapline *l)
{
    struct wrapline back;
    mct_buf a, b;
    mct_err e;

    buf_init(&a);
    buf_init(&b);
    if (sum_write_json(l->summary, l->info.final, &a, &e) < 0)
        abort();
    if (wrapline_parse((const char *)a.data, a.len, &back, &e) < 0 || back.summary == NULL)
        abort();
    if (sum_write_json(back.summary, back.info.final, &b, &e) < 0 || a.len != b.len ||
        memcmp(a.data, b.data, a.len) != 0)
        abort();
    sum_free(back.summary);
    buf_free(&a);
    buf_free(&b);
}

static void one_line(const char *line, size_t len)
{
    struct wrapline l, back;
    char *text;
    mct_err e;

    if (wrapline_parse(line, len, &l, &e) < 0) {
        if (e.code == MCT_OK || e.msg[0] == '\0')
            abort();
        return;
    }
    if (l.summary != NULL) {
        summary_again(&l);
        sum_free(l.summary);
        return;
    }
    if (!json_is_string(json_object_get(l.msg, "type")))
        abort();
    text = json_dumps(l.msg, JSON_COMPACT);
    if (text == NULL)
        abort();
    if (wrapline_parse(text, strlen(text), &back, &e) < 0)
        abort();
    /* a summary whose "type" came later is read as one now */
    if (back.summary != NULL)
        sum_free(back.summary);
    else if (!json_equal(l.msg, back.msg))
        abort();
    json_decref(back.msg);
    free(text);
    json_decref(l.msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data, *end = p + size;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);

        one_line(p, len);
        p += len + (nl != NULL);
    }
    return 0;
}
