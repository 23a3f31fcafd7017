/* test_html.c — -f html (client/fmt_html.c) without a browser: the page is
 * the template with its style, script and data put in (no marker left), the
 * data one JSON blob with every '<' escaped; it keeps the final summary of
 * each JVM (an interval one before it counted), builds the summary from
 * calls when it gets no summary (warm-up calls in it, counted), carries the
 * facts given; and the diff page
 * holds the diff and both runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fmt_html.h"
#include "output.h"
#include "readcall.h"
#include "summary.h"

#define PAGE_PATH "/tmp/test_htmlXXXXXX"
#define BLOB_START "<script id=\"mct-data\" type=\"application/json\">"

#define CALL(cls)                                                                                 \
    "{\"type\":\"call\",\"seq\":1,\"thread\":{\"id\":1,\"name\":\"main\"},\"start_ns\":5,"        \
    "\"root\":{\"class\":\"" cls "\",\"method\":\"<init>\",\"desc\":\"()V\",\"calls\":1,"          \
    "\"total_ns\":900,\"self_ns\":900,\"min_ns\":900,\"max_ns\":900,\"throws\":0,\"children\":[]}}"

/* readcall consumers: the summary, the output. */
static int add_to_sum(void *ctx, const call_tab *t, const mct_call *c, mct_err *e)
{
    return sum_add_call(ctx, t, c, e);
}

static int out_one(void *ctx, const call_tab *t, const mct_call *c, mct_err *e)
{
    return out_call(ctx, t, c, e);
}

/* A summary of n calls of CALL(cls), final or not; the caller decrefs. */
static sum *sum_of(const char *call, int n)
{
    mct_err e;
    sum *s = sum_new(0, &e);

    CHECK(s != NULL);
    for (int i = 0; i < n; i++) {
        json_t *c = json_loads(call, 0, NULL);

        CHECK(c != NULL && readcall(c, add_to_sum, s, &e) == 0);
        json_decref(c);
    }
    return s;
}

/* The page's text from path (caller frees). */
static char *slurp_page(const char *path)
{
    FILE *f = fopen(path, "r");
    char *text = calloc(1, 1 << 20);
    size_t n;

    CHECK(f != NULL && text != NULL);
    n = fread(text, 1, (1 << 20) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* Checks the page's frame and returns its data blob parsed (caller
 * decrefs), or NULL. */
static json_t *page_data(const char *page)
{
    const char *start = strstr(page, BLOB_START), *end;
    json_error_t je;
    json_t *j;

    CHECK(strncmp(page, "<!DOCTYPE html>\n", 16) == 0);
    CHECK(strstr(page, "<!--@") == NULL);
    CHECK(strstr(page, "#icicle") != NULL);            /* the style */
    CHECK(strstr(page, "window.mctReport") != NULL);   /* the script */
    CHECK(start != NULL);
    if (start == NULL)
        return NULL;
    start += strlen(BLOB_START);
    end = strstr(start, "</script>");
    CHECK(end != NULL);
    if (end == NULL)
        return NULL;
    CHECK(memchr(start, '<', (size_t)(end - start)) == NULL);
    j = json_loadb(start, (size_t)(end - start), 0, &je);
    CHECK(j != NULL);
    return j;
}

/* Opens an html output on a new temporary file, named into path (room for
 * PAGE_PATH). */
static out *open_page(char *path)
{
    int fd = mkstemp(strcpy(path, PAGE_PATH));
    mct_err e;
    out *o;

    CHECK(fd >= 0);
    close(fd);
    o = out_open(CLI_FORMAT_HTML, path, -1, &e);
    CHECK(o != NULL);
    return o;
}

static json_t *close_page(out *o, const char *path)
{
    mct_err e;
    char *text;
    json_t *data;

    CHECK_INT(out_close(o, &e), 0);
    text = slurp_page(path);
    data = page_data(text);
    free(text);
    unlink(path);
    return data;
}

static const json_t *run_summary(const json_t *data, size_t i)
{
    return json_object_get(json_array_get(json_object_get(data, "runs"), i), "summary");
}

int main(void)
{
    char path[] = PAGE_PATH;
    sum *si = sum_of(CALL("t.E"), 2), *sf = sum_of(CALL("t.E"), 5);
    json_t *fact = json_pack("{s:s}", "regex", "t\\.<x>");
    json_t *data;
    mct_err e;
    out *o;

    /* Summaries: the final one kept, an interval one after it ignored. */
    o = open_page(path);
    out_fact(o, "request", fact);
    CHECK_INT(out_summary(o, si, 0, &e), 0);
    CHECK_INT(out_summary(o, sf, 1, &e), 0);
    CHECK_INT(out_summary(o, si, 0, &e), 0);
    data = close_page(o, path);
    CHECK_STR(json_string_value(json_object_get(data, "kind")), "run");
    CHECK_INT(json_array_size(json_object_get(data, "runs")), 1);
    CHECK(json_is_true(json_object_get(run_summary(data, 0), "final")));
    CHECK_INT(json_integer_value(json_object_get(run_summary(data, 0), "calls")), 5);
    CHECK_INT(json_integer_value(json_object_get(data, "intervals")), 2);
    CHECK(json_is_false(json_object_get(data, "from_calls")));
    CHECK_STR(json_string_value(json_object_get(json_object_get(json_object_get(data, "facts"), "request"), "regex")),
              "t\\.<x>");
    json_decref(data);

    /* Calls only: their summary, names with '<' kept. */
    o = open_page(path);
    for (int i = 0; i < 3; i++) {
        json_t *c = json_loads(CALL("t.</script>"), 0, NULL);

        if (i == 1)
            json_object_set_new(c, "warmup", json_true());
        CHECK_INT(readcall(c, out_one, o, &e), 0);
        json_decref(c);
    }
    data = close_page(o, path);
    CHECK(json_is_true(json_object_get(data, "from_calls")));
    CHECK_INT(json_integer_value(json_object_get(data, "warmup_calls")), 1);
    CHECK_INT(json_integer_value(json_object_get(run_summary(data, 0), "calls")), 3);
    CHECK_STR(json_string_value(json_object_get(json_object_get(run_summary(data, 0), "root"), "class")),
              "t.</script>");
    json_decref(data);

    /* A summary's text in the blob as jansson wrote it: ASCII only, a
     * character past U+FFFF as a surrogate pair, '<' escaped. */
    {
        sum *wide = sum_of(CALL("t.\\u00e9\\ud83d\\ude00"), 1);
        char *page;

        o = open_page(path);
        CHECK_INT(out_summary(o, wide, 1, &e), 0);
        CHECK_INT(out_close(o, &e), 0);
        page = slurp_page(path);
        CHECK(strstr(page, "\"class\":\"t.\\u00E9\\uD83D\\uDE00\",\"method\":\"\\u003cinit>\"") != NULL);
        data = page_data(page);
        CHECK_STR(json_string_value(json_object_get(json_object_get(run_summary(data, 0), "root"), "class")),
                  "t.\xc3\xa9\xf0\x9f\x98\x80");
        json_decref(data);
        free(page);
        unlink(path);
        sum_free(wide);
    }

    /* The wrap form: one run per JVM. */
    o = open_page(path);
    out_set_pid(o, 11);
    CHECK_INT(out_summary(o, sf, 1, &e), 0);
    out_set_pid(o, 12);
    CHECK_INT(out_summary(o, si, 0, &e), 0);
    data = close_page(o, path);
    CHECK_INT(json_array_size(json_object_get(data, "runs")), 2);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(json_object_get(data, "runs"), 1), "pid")), 12);
    json_decref(data);

    /* The diff page. */
    {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        mct_buf diff;

        buf_init(&diff);
        buf_str(&diff, "{\"type\":\"diff\",\"nodes\":[],\"failures\":[\"a <gate> \xc3\xa9\xf0\x9f\x98\x80\"]}");
        CHECK(f != NULL && !buf_failed(&diff));
        CHECK_INT(html_diff_write(f, &diff, si, sf), 0);
        fclose(f);
        CHECK(strstr(buf, "\"a \\u003cgate> \\u00E9\\uD83D\\uDE00\"") != NULL);
        data = page_data(buf);
        CHECK_STR(json_string_value(json_object_get(data, "kind")), "diff");
        CHECK_STR(json_string_value(json_array_get(json_object_get(json_object_get(data, "diff"), "failures"), 0)),
                  "a <gate> \xc3\xa9\xf0\x9f\x98\x80");
        CHECK_INT(json_integer_value(json_object_get(json_object_get(data, "base"), "calls")), 2);
        CHECK_INT(json_integer_value(json_object_get(json_object_get(data, "new"), "calls")), 5);
        CHECK(json_is_true(json_object_get(json_object_get(data, "new"), "final")));
        CHECK(json_is_string(json_object_get(data, "written")));
        buf_free(&diff);
        json_decref(data);
        free(buf);
    }
    json_decref(fact);
    sum_free(si);
    sum_free(sf);
    return check_status();
}
