/* test_out_summary.c — out_summary in every format on a summary made from
 * hand-made calls: json writes the object as one line, folded one line per
 * path with the self time summed over all calls, tree the summary tree
 * (percentiles, calls per entry call, the slowest calls), chrome refuses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "output.h"
#include "summary.h"

#define CALL(total, acalls, kids)                                                              \
    "{\"type\":\"call\",\"seq\":1,\"thread\":{\"id\":1,\"name\":\"main\"},\"start_ns\":5,"      \
    "\"root\":{\"class\":\"t.E\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":" \
    #total ",\"self_ns\":100,\"min_ns\":" #total ",\"max_ns\":" #total ",\"throws\":0,"          \
    "\"children\":[{\"class\":\"t.A\",\"method\":\"a\",\"desc\":\"(I)V\",\"calls\":" #acalls       \
    ",\"total_ns\":500,\"self_ns\":500,\"min_ns\":100,\"max_ns\":200,\"throws\":0,\"children\":[]}" \
    kids "]}}"

/* The summary of three calls: A 1, 4 and 1 times; B in the second only. */
static sum *make_summary(void)
{
    static const char *const calls[] = {
        CALL(1000, 1, ""),
        CALL(3000, 4, ",{\"class\":\"t.B\",\"method\":\"b\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":50,"
                      "\"self_ns\":50,\"min_ns\":50,\"max_ns\":50,\"throws\":1,\"children\":[]}"),
        CALL(2000, 1, ""),
    };
    mct_err e;
    sum *s = sum_new(1, &e);
    call_tab t = {0};
    mct_call call = {0};

    for (size_t i = 0; i < 3; i++) {
        json_t *c = json_loads(calls[i], 0, NULL);

        CHECK(c != NULL && call_from_json(&t, &call, c, &e) == 0 && sum_add_call(s, &t, &call, &e) == 0);
        json_decref(c);
    }
    call_free(&call);
    call_tab_free(&t);
    return s;
}

/* The summary of one call whose root's class holds DEL and U+0085 (a C1
 * control), kept in slowest. */
static sum *make_c1_summary(void)
{
    static const char call[] =
        "{\"type\":\"call\",\"seq\":1,\"thread\":{\"id\":1,\"name\":\"main\"},\"start_ns\":5,"
        "\"root\":{\"class\":\"t.\\u0085E\\u007f\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":1,"
        "\"total_ns\":10,\"self_ns\":10,\"min_ns\":10,\"max_ns\":10,\"throws\":0,\"children\":[]}}";
    mct_err e;
    sum *s = sum_new(1, &e);
    call_tab t = {0};
    mct_call c = {0};
    json_t *j = json_loads(call, 0, NULL);

    CHECK(s != NULL && j != NULL && call_from_json(&t, &c, j, &e) == 0 && sum_add_call(s, &t, &c, &e) == 0);
    json_decref(j);
    call_free(&c);
    call_tab_free(&t);
    return s;
}

/* Renders summary in format f into a file; returns its text (caller frees). */
static char *render(enum cli_format f, const sum *summary, int *rc, char *msg, size_t msize)
{
    char path[] = "/tmp/test_out_summaryXXXXXX";
    int fd = mkstemp(path);
    mct_err e;
    out *o;
    FILE *in;
    char *text = calloc(1, 65536);

    CHECK(fd >= 0 && text != NULL);
    close(fd);
    o = out_open(f, path, -1, &e);
    CHECK(o != NULL);
    mct_err_clear(&e);
    *rc = out_summary(o, summary, 1, &e);
    snprintf(msg, msize, "%s", e.msg);
    CHECK(out_close(o, &e) == 0);
    in = fopen(path, "r");
    CHECK(in != NULL);
    if (in != NULL) {
        if (fread(text, 1, 65535, in) == 0)
            text[0] = '\0';
        fclose(in);
    }
    unlink(path);
    return text;
}

int main(void)
{
    sum *s = make_summary();
    char msg[MCT_ERR_MSG], *text, *want;
    mct_err e;
    json_t *j = sum_to_json(s, 1, &e);
    int rc;

    /* the one writer's text is what jansson writes of the same object */
    CHECK(j != NULL);
    text = render(CLI_FORMAT_JSON, s, &rc, msg, sizeof msg);
    want = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    CHECK_INT(rc, 0);
    CHECK(strncmp(text, want, strlen(want)) == 0 && strcmp(text + strlen(want), "\n") == 0);
    free(want);
    free(text);

    /* DEL and the C1 controls escaped, as fu_json_dump escapes them */
    {
        sum *c1 = make_c1_summary();

        text = render(CLI_FORMAT_JSON, c1, &rc, msg, sizeof msg);
        CHECK_INT(rc, 0);
        CHECK(strstr(text, "\"class\":\"t.\\u0085E\\u007F\"") != NULL);
        CHECK(strchr(text, 0x7f) == NULL && strstr(text, "\xc2\x85") == NULL);
        free(text);
        sum_free(c1);
    }

    text = render(CLI_FORMAT_FOLDED, s, &rc, msg, sizeof msg);
    CHECK_INT(rc, 0);
    CHECK_STR(text, "t.E.run 300\nt.E.run;t.A.a 1500\nt.E.run;t.B.b 50\n");
    free(text);

    text = render(CLI_FORMAT_TREE, s, &rc, msg, sizeof msg);
    CHECK_INT(rc, 0);
    CHECK(strstr(text, "summary (final): 3 entry calls\n") != NULL);
    CHECK(strstr(text, "      p50       p90       p99  self/call     calls/call  method\n") != NULL);
    CHECK(strstr(text, "  2.00 µs   3.00 µs   3.00 µs     100 ns              1  t.E.run()  min 1.00 µs  avg 2.00 µs  max 3.00 µs\n") != NULL);
    CHECK(strstr(text, "   500 ns    500 ns    500 ns     500 ns    2.00× (1–4)  ├─ t.A.a(int)  min 100 ns  avg 250 ns  max 200 ns\n") != NULL);
    CHECK(strstr(text, "    50 ns     50 ns     50 ns      50 ns              1  └─ t.B.b()  in 1 of 3 calls  threw\n") != NULL);
    CHECK(strstr(text, "the 1 slowest call:\n\n#1  ") != NULL);
    if (check_failures)
        fputs(text, stderr);
    free(text);

    text = render(CLI_FORMAT_CHROME, s, &rc, msg, sizeof msg);
    CHECK_INT(rc, -1);
    CHECK_STR(msg, "the chrome format shows single calls, not summaries: use -f json, tree or folded");
    free(text);
    sum_free(s);
    return check_status();
}
