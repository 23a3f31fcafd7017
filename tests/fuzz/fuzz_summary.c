/* fuzz_summary.c — what `mcalltree diff` reads from files (untrusted): the
 * bytes as a run (lines of call or summary objects, diff_read_run_mem: the
 * summaries read token by token) and as one JSON value checked as a
 * summary, and read (call_from_json) and added as a call. Nothing may
 * crash or leak, every refusal has a message, and what is accepted is a
 * summary that passes its own check, also after a render and parse, and
 * whose text reads back to the same text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "diff.h"
#include "summary.h"
#include "readcall.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void expect_message(const mct_err *e)
{
    if (e->code == MCT_OK || e->msg[0] == '\0' || strlen(e->msg) >= sizeof e->msg)
        abort();
}

static int sum_adder(void *s, const call_tab *t, const mct_call *c, mct_err *e)
{
    return sum_add_call(s, t, c, e);
}

/* Reads j as a call and adds it to s; 0, or -1 with e set. */
static int add_call(sum *s, const json_t *j, mct_err *e)
{
    return readcall(j, sum_adder, s, e);
}

/* j is a summary that passes sum_json_check, also once rendered and parsed. */
static void expect_summary(const json_t *j)
{
    mct_err e;
    char *text;
    json_t *back;

    if (sum_json_check(j, &e) < 0)
        abort();
    text = json_dumps(j, JSON_COMPACT);
    if (text == NULL)
        abort();
    back = json_loads(text, 0, NULL);
    if (back == NULL || sum_json_check(back, &e) < 0 || !json_equal(j, back))
        abort();
    json_decref(back);
    free(text);
}

/* The text of the summary read (sum_read) from text a, written into b;
 * aborts when a does not read. */
static void reread(const mct_buf *a, mct_buf *b)
{
    mct_err e;
    sum *s = sum_new(SUM_SLOWEST_MAX, &e);
    struct sum_info info;
    jtok t;

    jt_init_mem(&t, a->data, a->len, SIZE_MAX);
    if (s == NULL || sum_read(s, &t, SUM_READ_SLOWEST, &info, &e) < 0 || jt_next(&t) != JT_EOL ||
        sum_write_json(s, 1, b, &e) < 0)
        abort();
    jt_free(&t);
    sum_free(s);
}

/* s, read from a file, passes its own check once written, and its text
 * reads back: read and written again, the same text (once its methods are
 * in the order of its tree). */
static void expect_read(const sum *s)
{
    mct_err e;
    mct_buf a, b, c;
    json_t *j = sum_to_json(s, 1, &e);

    if (j == NULL)
        abort();
    expect_summary(j);
    json_decref(j);
    buf_init(&a);
    buf_init(&b);
    buf_init(&c);
    if (sum_write_json(s, 1, &a, &e) < 0)
        abort();
    reread(&a, &b);
    reread(&b, &c);
    if (b.len != c.len || memcmp(b.data, c.data, b.len) != 0)
        abort();
    buf_free(&a);
    buf_free(&b);
    buf_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mct_err e;
    json_t *j, *s_json;
    sum *s;

    mct_err_clear(&e);
    s = diff_read_run_mem("fuzz", (const char *)data, size, DIFF_READ_SLOWEST, &e);
    if (s == NULL)
        expect_message(&e);
    else
        expect_read(s);
    sum_free(s);

    j = json_loadb((const char *)data, size, 0, NULL);
    if (j == NULL)
        return 0;
    mct_err_clear(&e);
    if (sum_json_check(j, &e) < 0)
        expect_message(&e);
    s = sum_new(2, &e);
    if (s == NULL)
        abort();
    mct_err_clear(&e);
    if (add_call(s, j, &e) < 0) {
        expect_message(&e);
        if (sum_calls(s) != 0)
            abort();
    } else {
        /* a call added twice: the summary holds both and passes its check */
        if (add_call(s, j, &e) < 0 || sum_calls(s) != 2)
            abort();
        s_json = sum_to_json(s, 1, &e);
        if (s_json == NULL)
            abort();
        expect_summary(s_json);
        json_decref(s_json);
    }
    sum_free(s);
    json_decref(j);
    return 0;
}
