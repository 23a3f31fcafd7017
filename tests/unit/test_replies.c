/* test_replies.c — protocol/replies.c, the one judge of a session's replies:
 * the call-count gates count warm-up calls, the timing gates and a plain
 * fail-over-ms leave them out (unless include-warmup), every call read is
 * counted, and a final summary is judged instead of the calls; each
 * gate's own verdict (replies_cases); when -n counts the judged calls. */
#include "check.h"

#include <stdio.h>
#include <string.h>

#include "readcall.h"
#include "replies.h"

/* A call of t.E.run()V of total_ns, calling t.R.find(J)V n times; warm-up
 * when warm. A new reference. */
static json_t *call_of(unsigned long long total, int n, int warm)
{
    char buf[1024];
    json_t *j;

    snprintf(buf, sizeof buf,
             "{\"type\":\"call\",\"seq\":1,\"thread\":{\"id\":1,\"name\":\"main\"},\"start_ns\":5,%s\"root\":"
             "{\"class\":\"t.E\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":%llu,"
             "\"self_ns\":%llu,\"min_ns\":%llu,\"max_ns\":%llu,\"throws\":0,\"children\":["
             "{\"class\":\"t.R\",\"method\":\"find\",\"desc\":\"(J)V\",\"calls\":%d,\"total_ns\":%d,"
             "\"self_ns\":%d,\"min_ns\":1,\"max_ns\":1,\"throws\":0,\"children\":[]}]}}",
             warm ? "\"warmup\":true," : "", total, total - (unsigned long long)n, total, total, n, n, n);
    j = json_loads(buf, 0, NULL);
    CHECK(j != NULL);
    return j;
}

static int adder(void *r, const call_tab *t, const mct_call *c, mct_err *e)
{
    return replies_call(r, t, c, e);
}

/* Feeds 10 calls of 1 ms calling find 3 times, and one warm-up call of
 * 100 ms calling it 5 times; the warm-up call's replies_call answer. */
static int feed(replies *r)
{
    mct_err e;
    int timed = -2;

    for (int i = 0; i < 11; i++) {
        json_t *j = call_of(i == 5 ? 100000000ULL : 1000000ULL, i == 5 ? 5 : 3, i == 5);
        int rc = readcall(j, adder, r, &e);

        CHECK(rc >= 0);
        if (i == 5)
            timed = rc;
        json_decref(j);
    }
    return timed;
}

static int summer(void *s, const call_tab *t, const mct_call *c, mct_err *e)
{
    return sum_add_call(s, t, c, e);
}

/* The summary of 3 calls calling find n times each; the caller frees it. */
static sum *summary_of(int n)
{
    mct_err e;
    sum *s = sum_new(0, &e);

    CHECK(s != NULL);
    for (int i = 0; i < 3; i++) {
        json_t *j = call_of(1000000ULL, n, 0);

        CHECK(readcall(j, summer, s, &e) >= 0);
        json_decref(j);
    }
    return s;
}

/* A final summary is judged instead of the calls (replies_verdict and
 * replies_cases), the last one given winning. */
static void test_final(void)
{
    struct gates_max_calls m;
    struct gates g = { .prefix = "--", .class_name = "t.E", .method = "run", .desc = "()V", .max_calls = &m,
                       .n_max_calls = 1 };
    json_t *failures = json_array(), *cases = json_array();
    replies *r;
    mct_err e;

    CHECK_INT(gates_parse_max_calls("--", "t.R.find=4", &m, &e), 0);
    r = replies_new(&g, 0, -1, &e);
    CHECK(r != NULL && failures != NULL && cases != NULL);
    feed(r);    /* the warm-up call calls find 5 times: the calls fail */
    CHECK_INT(replies_verdict(r, failures, &e), 1);
    json_array_clear(failures);
    replies_final(r, summary_of(3));
    CHECK_INT(replies_verdict(r, failures, &e), 0);
    CHECK_INT((int)json_array_size(failures), 0);
    replies_final(r, summary_of(5));
    CHECK_INT(replies_verdict(r, failures, &e), 1);
    CHECK_STR(json_string_value(json_array_get(failures, 0)),
              "--max-calls t.R.find=4: t.R.find(J)V was called 5 times in one entry call, over the limit of 4");
    CHECK_INT(replies_cases(r, cases, &e), 0);
    CHECK_INT((int)json_array_size(cases), 1);
    CHECK(json_is_false(json_object_get(json_array_get(cases, 0), "passed")));
    replies_free(r);
    json_decref(failures);
    json_decref(cases);
}

static void test_rules(void)
{
    static const char maxtext[] = "t.R.find=4";
    struct gates_max_calls m;
    struct gates g = { .prefix = "", .class_name = "t.E", .method = "run", .desc = "()V", .max_calls = &m,
                       .n_max_calls = 1, .percentile = 100, .fail_over_ms = 50 };
    json_t *f = json_array();
    replies *r;
    mct_err e;

    CHECK_INT(gates_parse_max_calls("", maxtext, &m, &e), 0);
    /* The warm-up call's 5 finds fail max-calls; its 100 ms is left out of
     * the percentile 100 (1 ms, under 50). */
    r = replies_new(&g, 0, -1, &e);
    CHECK(r != NULL && replies_gated(r));
    CHECK_INT(feed(r), 0);
    CHECK(replies_counts(r).seen == 11 && replies_counts(r).warmup == 1 && replies_counts(r).timed == 10);
    CHECK_INT(replies_verdict(r, f, &e), 1);
    CHECK_INT((int)json_array_size(f), 1);
    CHECK_STR(json_string_value(json_array_get(f, 0)), "max-calls t.R.find=4: t.R.find(J)V was called 5 times in "
                                                        "one entry call, over the limit of 4");
    replies_free(r);
    json_array_clear(f);
    /* With include-warmup the warm-up call is timed too: both fail. */
    r = replies_new(&g, 1, -1, &e);
    CHECK_INT(feed(r), 1);
    CHECK_INT(replies_verdict(r, f, &e), 1);
    CHECK_INT((int)json_array_size(f), 2);
    CHECK(strstr(json_string_value(json_array_get(f, 1)), "percentile 100: the 100-th percentile of the 11 calls of "
                                                          "t.E.run()V is 100.000 ms") != NULL);
    replies_free(r);
    json_array_clear(f);
    json_decref(f);
}

/* A plain fail-over-ms: the same timing rule, call by call. */
static void test_over(void)
{
    json_t *slow = call_of(100000000ULL, 1, 0), *warm = call_of(100000000ULL, 1, 1);
    call_tab t = { 0 };
    mct_call c = { 0 };
    replies *r, *all;
    mct_err e;

    r = replies_new(NULL, 0, 50, &e);
    all = replies_new(NULL, 1, 50, &e);
    CHECK(r != NULL && all != NULL && !replies_gated(r));
    CHECK_INT(call_from_json(&t, &c, slow, &e), 0);
    CHECK(replies_over(r, &c) && replies_over(all, &c));
    CHECK_INT(call_from_json(&t, &c, warm, &e), 0);
    CHECK(!replies_over(r, &c) && replies_over(all, &c));
    CHECK_INT(replies_verdict(r, NULL, &e), 0);
    call_free(&c);
    call_tab_free(&t);
    replies_free(r);
    replies_free(all);
    json_decref(slow);
    json_decref(warm);
}

/* Each gate judged on its own: a case per gate, in order, with only its
 * own messages; no call: every gate fails, saying so. */
static void test_cases(void)
{
    static const char held[] = "t.R.find=5", over[] = "t.R.find=4", budget[] = "t.R.find:max=1";
    struct gates_max_calls m[2];
    struct gates_budget b;
    struct gates g = { .prefix = "--", .class_name = "t.E", .method = "run", .desc = "()V", .max_calls = m,
                       .n_max_calls = 2, .budgets = &b, .n_budgets = 1, .percentile = 50, .fail_over_ms = 0.5 };
    json_t *cases = json_array(), *c;
    replies *r;
    mct_err e;

    CHECK_INT(gates_parse_max_calls("--", held, &m[0], &e), 0);
    CHECK_INT(gates_parse_max_calls("--", over, &m[1], &e), 0);
    CHECK_INT(gates_parse_budget("--", budget, &b, &e), 0);
    r = replies_new(&g, 0, -1, &e);
    CHECK(r != NULL);
    CHECK_INT(replies_cases(r, cases, &e), 0);
    CHECK_INT((int)json_array_size(cases), 4);
    for (size_t i = 0; i < json_array_size(cases); i++) {
        c = json_array_get(cases, i);
        CHECK(json_is_false(json_object_get(c, "passed")));
        CHECK_STR(json_string_value(json_array_get(json_object_get(c, "failures"), 0)),
                  "the gates have no call of t.E.run()V to judge");
    }
    json_array_clear(cases);
    feed(r);
    CHECK_INT(replies_cases(r, cases, &e), 0);
    CHECK_INT((int)json_array_size(cases), 4);
    c = json_array_get(cases, 0);
    CHECK_STR(json_string_value(json_object_get(c, "gate")), "--max-calls t.R.find=5");
    CHECK(json_is_true(json_object_get(c, "passed")) && json_array_size(json_object_get(c, "failures")) == 0);
    c = json_array_get(cases, 1);
    CHECK_STR(json_string_value(json_object_get(c, "gate")), "--max-calls t.R.find=4");
    CHECK(json_is_false(json_object_get(c, "passed")) && json_array_size(json_object_get(c, "failures")) == 1);
    CHECK_STR(json_string_value(json_array_get(json_object_get(c, "failures"), 0)),
              "--max-calls t.R.find=4: t.R.find(J)V was called 5 times in one entry call, over the limit of 4");
    c = json_array_get(cases, 2);
    CHECK_STR(json_string_value(json_object_get(c, "gate")), "--percentile 50 --fail-over-ms 0.5");
    CHECK(json_is_false(json_object_get(c, "passed")));
    CHECK(strstr(json_string_value(json_array_get(json_object_get(c, "failures"), 0)),
                 "--percentile 50: the 50-th percentile of the 10 calls") != NULL);
    c = json_array_get(cases, 3);
    CHECK_STR(json_string_value(json_object_get(c, "gate")), "--budget t.R.find:max=1");
    CHECK(json_is_true(json_object_get(c, "passed")));
    replies_free(r);
    /* No gate: no case. */
    json_array_clear(cases);
    r = replies_new(NULL, 0, 50, &e);
    CHECK_INT(replies_cases(r, cases, &e), 0);
    CHECK_INT((int)json_array_size(cases), 0);
    replies_free(r);
    json_decref(cases);
}

/* A --max-alloc gate is a case of its own, and the other gates' cases
 * do not judge it: a held max-calls passes beside a failed max-alloc. */
static void test_cases_alloc(void)
{
    static const char line[] =
        "{\"type\":\"call\",\"seq\":1,\"thread\":{\"id\":1,\"name\":\"main\"},\"start_ns\":5,\"root\":"
        "{\"class\":\"t.E\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":9,\"self_ns\":8,"
        "\"min_ns\":9,\"max_ns\":9,\"throws\":0,\"alloc_bytes\":200,\"children\":[{\"class\":\"t.R\","
        "\"method\":\"find\",\"desc\":\"(J)V\",\"calls\":1,\"total_ns\":1,\"self_ns\":1,\"min_ns\":1,"
        "\"max_ns\":1,\"throws\":0,\"alloc_bytes\":100,\"children\":[]}]}}";
    struct gates_max_calls m, a;
    struct gates g = { .prefix = "--", .class_name = "t.E", .method = "run", .desc = "()V", .max_calls = &m,
                       .n_max_calls = 1, .max_alloc = &a, .n_max_alloc = 1 };
    json_t *cases = json_array(), *j = json_loads(line, 0, NULL), *c;
    replies *r;
    mct_err e;

    CHECK_INT(gates_parse_max_calls("--", "t.R.find=1", &m, &e), 0);
    CHECK_INT(gates_parse_max_alloc("--", "t.R.find=64", &a, &e), 0);
    r = replies_new(&g, 1, -1, &e);
    CHECK(r != NULL && j != NULL);
    CHECK(readcall(j, adder, r, &e) >= 0);
    CHECK_INT(replies_cases(r, cases, &e), 0);
    CHECK_INT((int)json_array_size(cases), 2);
    c = json_array_get(cases, 0);
    CHECK_STR(json_string_value(json_object_get(c, "gate")), "--max-calls t.R.find=1");
    CHECK(json_is_true(json_object_get(c, "passed")));
    c = json_array_get(cases, 1);
    CHECK_STR(json_string_value(json_object_get(c, "gate")), "--max-alloc t.R.find=64");
    CHECK(json_is_false(json_object_get(c, "passed")) && json_array_size(json_object_get(c, "failures")) == 1);
    replies_free(r);
    json_decref(j);
    json_decref(cases);
}

/* -n counts the judged calls with a timing gate, per call, warm-up calls
 * left out; else every call. */
static void test_counts_judged(void)
{
    struct mct_request q;

    req_init(&q);
    q.count = 10;
    CHECK(!replies_counts_judged(&q));
    q.percentile = 90;
    CHECK(replies_counts_judged(&q));
    q.include_warmup = 1;
    CHECK(!replies_counts_judged(&q));
    q.include_warmup = 0;
    q.aggregate = 1;
    CHECK(!replies_counts_judged(&q));
    q.aggregate = 0;
    q.percentile = 0;
    q.budgets.n = 1;
    CHECK(replies_counts_judged(&q));
    q.count = 0;
    CHECK(!replies_counts_judged(&q));
}

int main(void)
{
    test_rules();
    test_over();
    test_cases();
    test_cases_alloc();
    test_final();
    test_counts_judged();
    return check_status();
}
