/* test_reader.c — protocol/reader.c, the one reader of a session's replies:
 * each type reaches its own callback, a call is read into the model (as
 * JSON or as compact frames) and counted by the judge once, a final
 * summary goes to the judge, a callback's stop is returned, and a bad call
 * is refused with a message without reaching its callback. */
#include "check.h"

#include <string.h>

#include "buf.h"
#include "proto.h"
#include "reader.h"

/* What the callbacks saw. */
struct seen {
    struct sum_totals totals;   /* the last summary's */
    int plan, call, summary, final, summary_calls, status, gate_passed, gate_failed, end, error, other;
    unsigned long long seq;     /* the last call's */
    unsigned long long total;   /* its root's total_ns */
    char other_type[32];
    int stop_at_end;            /* on_end returns 7 */
};

static int on_plan(void *ctx, json_t *m)
{
    (void)m;
    ((struct seen *)ctx)->plan++;
    return 0;
}

static int on_call(void *ctx, const call_tab *t, const mct_call *c)
{
    struct seen *s = ctx;

    (void)t;
    s->call++;
    s->seq = c->seq;
    s->total = c->nodes[0].total_ns;
    return 0;
}

static int on_summary(void *ctx, const sum *m, const struct sum_info *info)
{
    ((struct seen *)ctx)->summary++;
    ((struct seen *)ctx)->final += info->final;
    ((struct seen *)ctx)->summary_calls += (int)sum_calls(m);
    sum_totals(m, &((struct seen *)ctx)->totals);
    return 0;
}

static int on_status(void *ctx, const json_t *m)
{
    (void)m;
    ((struct seen *)ctx)->status++;
    return 0;
}

static int on_gate(void *ctx, int passed)
{
    struct seen *s = ctx;

    if (passed)
        s->gate_passed++;
    else
        s->gate_failed++;
    return 0;
}

static int on_end(void *ctx, json_t *m)
{
    struct seen *s = ctx;

    (void)m;
    s->end++;
    return s->stop_at_end ? 7 : 0;
}

static int on_error(void *ctx, const json_t *m)
{
    (void)m;
    ((struct seen *)ctx)->error++;
    return 0;
}

static int on_other(void *ctx, const char *type, const json_t *m)
{
    struct seen *s = ctx;

    (void)m;
    s->other++;
    snprintf(s->other_type, sizeof s->other_type, "%s", type);
    return 0;
}

static const struct reader_cb all = {
    .on_plan = on_plan, .on_call = on_call, .on_summary = on_summary, .on_status = on_status,
    .on_gate = on_gate, .on_end = on_end, .on_error = on_error, .on_other = on_other,
};

static const char call_text[] =
    "{\"type\":\"call\",\"seq\":%d,\"thread\":{\"id\":1,\"name\":\"main\"},\"start_ns\":5,\"root\":"
    "{\"class\":\"t.E\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":%d,"
    "\"self_ns\":%d,\"min_ns\":%d,\"max_ns\":%d,\"throws\":0,\"children\":[]}}";

/* The message text (printf-like), parsed; a new reference. */
static json_t *msg(const char *text)
{
    json_t *j = json_loads(text, 0, NULL);

    CHECK(j != NULL);
    return j;
}

/* Reads text through rd; the reader's answer. */
static int read_text(reader *rd, const char *text, mct_err *e)
{
    json_t *j = msg(text);
    int rc = reader_json(rd, j, e);

    json_decref(j);
    return rc;
}

/* A summary of no call, final or an interval's. */
#define EMPTY_SUMMARY(final) \
    "{\"type\":\"summary\",\"final\":" final ",\"calls\":0,\"not_traced\":0,\"root\":null,\"methods\":[]," \
    "\"slowest\":[]}"

static void test_types(void)
{
    struct seen s = {0};
    call_tab tab = {0};
    mct_call call = {0};
    char text[1024];
    reader rd;
    mct_err e;

    reader_init(&rd, &tab, &call, NULL, &all, &s);
    CHECK_INT(read_text(&rd, "{\"type\":\"plan\"}", &e), 0);
    snprintf(text, sizeof text, call_text, 3, 900, 900, 900, 900);
    CHECK_INT(read_text(&rd, text, &e), 0);
    CHECK_INT(read_text(&rd, EMPTY_SUMMARY("true"), &e), 0);
    /* As the agent writes it ("type" first): read straight into the model. */
    CHECK(reader_is_summary(EMPTY_SUMMARY("false"), strlen(EMPTY_SUMMARY("false"))));
    CHECK(!reader_is_summary("{\"final\":true,\"type\":\"summary\"}", 30));
    CHECK_INT(reader_summary_text(&rd, EMPTY_SUMMARY("false"), strlen(EMPTY_SUMMARY("false")), &e), 0);
    /* Checked as sum_read checks it: no callback for a bad one. */
    CHECK_INT(read_text(&rd, "{\"type\":\"summary\",\"final\":true}", &e), -1);
    CHECK(strstr(e.msg, "calls") != NULL);
    CHECK_INT(reader_summary_text(&rd, "{\"type\":\"summary\",\"final\":1}", 30, &e), -1);
    /* its span kept, as written: both ends, the end not before the start */
    {
        static const char span[] = "{\"type\":\"summary\",\"final\":false,\"calls\":0,\"not_traced\":0,"
                                   "\"root\":null,\"methods\":[],\"slowest\":[],\"start_ns\":5,\"end_ns\":9}";
        static const char *const bad[] = { "\"start_ns\":5}", "\"end_ns\":9}", "\"start_ns\":9,\"end_ns\":5}" };
        char text2[512];

        CHECK_INT(reader_summary_text(&rd, span, sizeof span - 1, &e), 0);
        CHECK((int)s.totals.start_ns == 5 && (int)s.totals.end_ns == 9);
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            snprintf(text2, sizeof text2, "%.*s%s", (int)(strstr(span, "\"start_ns\"") - span), span, bad[i]);
            CHECK_INT(reader_summary_text(&rd, text2, strlen(text2), &e), -1);
            CHECK(strstr(e.msg, "_ns") != NULL);
        }
    }
    CHECK_INT(read_text(&rd, "{\"type\":\"status\"}", &e), 0);
    CHECK_INT(read_text(&rd, "{\"type\":\"gate\",\"passed\":true}", &e), 0);
    CHECK_INT(read_text(&rd, "{\"type\":\"gate\",\"passed\":false}", &e), 0);
    CHECK_INT(read_text(&rd, "{\"type\":\"error\"}", &e), 0);
    CHECK_INT(read_text(&rd, "{\"type\":\"start\"}", &e), 0);
    CHECK_INT(read_text(&rd, "{\"type\":\"end\"}", &e), 0);
    CHECK_INT(s.plan, 1);
    CHECK_INT(s.call, 1);
    CHECK_INT((int)s.seq, 3);
    CHECK_INT((int)s.total, 900);
    CHECK_INT(s.summary, 3);
    CHECK_INT(s.final, 1);
    CHECK_INT(s.summary_calls, 0);
    CHECK_INT(s.status, 1);
    CHECK_INT(s.gate_passed, 1);
    CHECK_INT(s.gate_failed, 1);
    CHECK_INT(s.error, 1);
    CHECK_INT(s.other, 1);
    CHECK_STR(s.other_type, "start");
    CHECK_INT(s.end, 1);
    /* A callback's stop is the reader's answer. */
    s.stop_at_end = 1;
    CHECK_INT(read_text(&rd, "{\"type\":\"end\"}", &e), 7);
    /* A bad call: refused with a message, not handed on. */
    CHECK_INT(read_text(&rd, "{\"type\":\"call\",\"seq\":4}", &e), -1);
    CHECK(e.msg[0] != '\0');
    CHECK_INT(s.call, 1);
    CHECK_INT(read_text(&rd, "{\"seq\":4}", &e), -1);
    call_free(&call);
    call_tab_free(&tab);
}

/* A call sent as compact frames reads as the same call as its JSON. */
static void test_compact(void)
{
    struct seen s = {0};
    call_tab tab = {0}, rtab = {0};
    mct_call call = {0}, rcall = {0};
    call_defs defs = {0};
    mct_buf b = {0};
    char text[1024];
    size_t pos = 0;
    int calls = 0;
    reader rd;
    mct_err e;
    json_t *j;

    snprintf(text, sizeof text, call_text, 9, 1234, 1234, 1234, 1234);
    j = msg(text);
    CHECK_INT(call_from_json(&tab, &call, j, &e), 0);
    json_decref(j);
    CHECK_INT(call_encode(&b, &tab, &defs, &call), 0);
    reader_init(&rd, &rtab, &rcall, NULL, &all, &s);
    while (pos + PROTO_HEADER_LEN <= b.len) {
        uint32_t len;

        CHECK_INT(proto_header_decode(b.data + pos, PROTO_REPLY, &len, &e), 0);
        pos += PROTO_HEADER_LEN;
        CHECK(reader_is_compact(b.data + pos, len));
        CHECK_INT(reader_compact(&rd, b.data + pos, len, &e), 0);
        pos += len;
        calls++;
    }
    CHECK_INT(calls, 2); /* one definition, one record */
    CHECK_INT(s.call, 1);
    CHECK_INT((int)s.seq, 9);
    CHECK_INT((int)s.total, 1234);
    CHECK(!reader_is_compact((const unsigned char *)"{", 1));
    CHECK_INT(reader_compact(&rd, (const unsigned char *)"\x02\xff", 2, &e), -1);
    CHECK(e.msg[0] != '\0');
    buf_free(&b);
    call_defs_free(&defs);
    call_free(&call);
    call_free(&rcall);
    call_tab_free(&tab);
    call_tab_free(&rtab);
}

/* With a judge, every call is counted and a final summary is kept, with
 * no callback at all. */
static void test_judge(void)
{
    static const struct reader_cb none = {0};
    call_tab tab = {0};
    mct_call call = {0};
    char text[1024];
    replies *judge;
    reader rd;
    mct_err e;

    judge = replies_new(NULL, 0, 1, &e);
    CHECK(judge != NULL);
    reader_init(&rd, &tab, &call, judge, &none, NULL);
    for (int i = 1; i <= 3; i++) {
        snprintf(text, sizeof text, call_text, i, 100, 100, 100, 100);
        CHECK_INT(read_text(&rd, text, &e), 0);
    }
    CHECK_INT((int)replies_counts(judge).seen, 3);
    CHECK_INT((int)replies_counts(judge).timed, 3);
    CHECK_INT(read_text(&rd, EMPTY_SUMMARY("false"), &e), 0);
    CHECK_INT(read_text(&rd, EMPTY_SUMMARY("true"), &e), 0);
    CHECK_INT(read_text(&rd, "{\"type\":\"plan\"}", &e), 0);
    CHECK_INT((int)replies_counts(judge).seen, 3);
    replies_free(judge);
    call_free(&call);
    call_tab_free(&tab);
}

int main(void)
{
    test_types();
    test_compact();
    test_judge();
    return check_status();
}
