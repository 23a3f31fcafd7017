/* test_gates.c — protocol/gates.c, the part both programs share: the
 * parser's answers in one table (client's "--" prefix and the agent's ""),
 * and the judging's messages as the agent writes them (no prefix, no exit
 * status). The client's layer (client/gate.c) is test_gate.c's. */
#include "check.h"

#include "gates.h"

enum kind { MAX_CALLS, MAX_ALLOC, BUDGET, PERCENTILE, MS };

/* One text for the parser: its kind, the prefix, and the message it gives
 * (NULL: accepted). */
static const struct {
    enum kind kind;
    const char *prefix, *text, *msg;
} parse_cases[] = {
    { MAX_CALLS, "--", "a.R.find=3", NULL },
    { MAX_CALLS, "", "a.R.get(Ljava/lang/String;)J=0", NULL },
    { MAX_CALLS, "--", "a.R.find", "--max-calls takes CLASS.METHOD=N (com.shop.Repo.find=1), got 'a.R.find'" },
    { MAX_CALLS, "", "a.R.find", "max-calls takes CLASS.METHOD=N (com.shop.Repo.find=1), got 'a.R.find'" },
    { MAX_CALLS, "--", "find=1", "--max-calls: 'find' is not CLASS.METHOD (a binary class name with dots, a dot, "
                                 "a method name: com.shop.Repo.find)" },
    { MAX_CALLS, "--", ".find=1", "--max-calls: '.find' is not CLASS.METHOD (a binary class name with dots, a "
                                  "dot, a method name: com.shop.Repo.find)" },
    { MAX_CALLS, "--", "a/b.R.f=1", "--max-calls: 'a/b.R' is not a binary class name such as com.shop.Cart$Line" },
    { MAX_CALLS, "", "a.R.f;g=1", "max-calls: 'f;g' is not a method name" },
    { MAX_CALLS, "--", "a.R.f(I=1", "--max-calls: '(I' is not a JVM method descriptor such as (J)V" },
    { MAX_CALLS, "--", "a.R.f=-1", "--max-calls a.R.f=-1: N must be an integer >= 0 (calls in one entry call), "
                                   "got '-1'" },
    { MAX_CALLS, "", "a.R.f=1x", "max-calls a.R.f=1x: N must be an integer >= 0 (calls in one entry call), "
                                 "got '1x'" },
    { MAX_CALLS, "--", "a.R.f=99999999999999999999", "--max-calls a.R.f=99999999999999999999: N must be an "
                                 "integer >= 0 (calls in one entry call), got '99999999999999999999'" },
    { MAX_ALLOC, "--", "a.R.find=65536", NULL },
    { MAX_ALLOC, "", "a.R.find", "max-alloc takes CLASS.METHOD=BYTES (com.shop.Cart.total=65536), got 'a.R.find'" },
    { MAX_ALLOC, "--", "a.R.find=1k", "--max-alloc a.R.find=1k: BYTES must be an integer >= 0 (bytes allocated in "
                                      "one entry call), got '1k'" },
    { MAX_ALLOC, "--", "find=1", "--max-alloc: 'find' is not CLASS.METHOD (a binary class name with dots, a dot, "
                                 "a method name: com.shop.Repo.find)" },
    { BUDGET, "--", "a.R.find:p99=2.5", NULL },
    { BUDGET, "--", "a.R.find:cpu_p90=2.5", NULL },
    { BUDGET, "", "a.R.find:cpu_max=0", NULL },
    { BUDGET, "", "a.R.find:cpu=1", "budget a.R.find:cpu=1: 'cpu' is not p50, p90, p99 or max, nor (with cpu) "
                                    "cpu_p50, cpu_p90, cpu_p99 or cpu_max" },
    { BUDGET, "", "a.R.find(J)V:max=0", NULL },
    { BUDGET, "--", "a.R.find=2", "--budget takes CLASS.METHOD:STAT=MS (com.shop.Repo.find:p99=20), got "
                                  "'a.R.find=2'" },
    { BUDGET, "", "a.R.find:p99", "budget takes CLASS.METHOD:STAT=MS (com.shop.Repo.find:p99=20), got "
                                  "'a.R.find:p99'" },
    { BUDGET, "--", "a.R.find:p75=2", "--budget a.R.find:p75=2: 'p75' is not p50, p90, p99 or max, nor (with --cpu) cpu_p50, cpu_p90, cpu_p99 or cpu_max" },
    { BUDGET, "", "a.R.find:p50=-2", "budget a.R.find:p50=-2: the budget must be a number of milliseconds >= 0, "
                                     "got '-2'" },
    { BUDGET, "--", "R:p50=2", "--budget: 'R' is not CLASS.METHOD (a binary class name with dots, a dot, a "
                               "method name: com.shop.Repo.find)" },
    { PERCENTILE, "--", "99.9", NULL },
    { PERCENTILE, "", "100", NULL },
    { PERCENTILE, "--", "0", "--percentile must be a number over 0 and at most 100, got '0'" },
    { PERCENTILE, "", "100.5", "percentile must be a number over 0 and at most 100, got '100.5'" },
    { PERCENTILE, "--", "1e2", "--percentile must be a number over 0 and at most 100, got '1e2'" },
    { MS, "--", "0", NULL },
    { MS, "", ".5", NULL },
    { MS, "--", "-1", "--fail-over-ms must be a number of milliseconds >= 0, got '-1'" },
    { MS, "", "inf", "fail-over-ms must be a number of milliseconds >= 0, got 'inf'" },
    { MS, "--", "2000000000", "--fail-over-ms must be a number of milliseconds >= 0, got '2000000000'" },
};

static void test_parse(void)
{
    for (size_t i = 0; i < sizeof parse_cases / sizeof parse_cases[0]; i++) {
        const char *p = parse_cases[i].prefix, *t = parse_cases[i].text, *want = parse_cases[i].msg;
        struct gates_max_calls m;
        struct gates_budget b;
        double v;
        mct_err e = { .msg = "" };
        int rc;

        switch (parse_cases[i].kind) {
        case MAX_CALLS:
            rc = gates_parse_max_calls(p, t, &m, &e);
            break;
        case MAX_ALLOC:
            rc = gates_parse_max_alloc(p, t, &m, &e);
            break;
        case BUDGET:
            rc = gates_parse_budget(p, t, &b, &e);
            break;
        case PERCENTILE:
            rc = gates_parse_percentile(p, t, &v, &e);
            break;
        default:
            rc = gates_parse_ms(p, "fail-over-ms", t, &v, &e);
            break;
        }
        if (rc != (want == NULL ? 0 : -1) || (want != NULL && (e.code != MCT_E_ARG || strcmp(e.msg, want) != 0))) {
            fprintf(stderr, "case %zu '%s': rc %d, message \"%s\", want \"%s\"\n", i, t, rc, e.msg,
                    want != NULL ? want : "(accepted)");
            check_failures++;
        }
    }
}

/* What a parse gives: the name's parts point into the text. */
static void test_parse_fields(void)
{
    struct gates_max_calls m;
    struct gates_budget b;
    mct_err e;
    static const char mtext[] = "a.b.R.get(IJ)V=7", btext[] = "a.R$S.<init>:p90=1.25";

    CHECK_INT(gates_parse_max_calls("--", mtext, &m, &e), 0);
    CHECK(m.arg == mtext && m.n == 7);
    CHECK(m.name.class_name == mtext && m.name.class_len == 5);
    CHECK(m.name.method == mtext + 6 && m.name.method_len == 3);
    CHECK(m.name.desc == mtext + 9 && m.name.desc_len == 5);
    CHECK(gates_name_matches(&m.name, "a.b.R", "get", "(IJ)V"));
    CHECK(!gates_name_matches(&m.name, "a.b.R", "get", "(I)V"));
    CHECK(!gates_name_matches(&m.name, "a.b.R", "ge", "(IJ)V"));
    CHECK(!gates_name_matches(&m.name, NULL, "get", "(IJ)V"));
    CHECK_INT(gates_parse_budget("", btext, &b, &e), 0);
    CHECK(b.stat == GATES_STAT_P90 && b.ms == 1.25 && b.name.desc_len == 0);
    CHECK(gates_name_matches(&b.name, "a.R$S", "<init>", "(I)V"));
    CHECK(gates_name_matches(&b.name, "a.R$S", "<init>", NULL));
}

/* Judging with the agent's prefix: the messages of its gate line. */
static void test_judge(void)
{
    static const char text[] =
        "{\"type\":\"summary\",\"final\":true,\"calls\":4,\"not_traced\":0,\"root\":{\"class\":\"t.E\",\"method\":"
        "\"run\",\"desc\":\"()V\",\"calls\":4,\"total_ns\":40,\"self_ns\":0,\"min_ns\":1,\"max_ns\":20000000,"
        "\"throws\":0,\"entries\":4,\"calls_min\":1,\"calls_max\":1,\"p50_ns\":10000000,\"p90_ns\":20000000,"
        "\"p99_ns\":20000000,\"entry_max_ns\":20000000,\"children\":[{\"class\":\"t.R\",\"method\":\"find\","
        "\"desc\":\"(J)V\",\"calls\":12,\"total_ns\":12,\"self_ns\":12,\"min_ns\":1,\"max_ns\":1,\"throws\":0,"
        "\"entries\":4,\"calls_min\":3,\"calls_max\":3,\"p50_ns\":3000000,\"p90_ns\":3000000,\"p99_ns\":3000000,"
        "\"entry_max_ns\":3000000,\"children\":[]}]},\"methods\":[{\"class\":\"t.R\",\"method\":\"find\",\"desc\":"
        "\"(J)V\",\"calls\":12,\"calls_max\":3,\"entries\":4}],\"slowest\":[]}";
    struct gates_max_calls m[2];
    struct gates_budget b;
    struct gates g = { .prefix = "", .class_name = "t.E", .method = "run", .desc = "", .max_calls = m,
                       .n_max_calls = 2, .budgets = &b, .n_budgets = 1, .percentile = 90, .fail_over_ms = 15,
                       .min_calls = 4 };
    struct sum_info info;
    mct_err e;
    sum *s = sum_read_text(text, sizeof text - 1, &info, &e);
    json_t *f = json_array();

    CHECK(s != NULL && f != NULL);
    CHECK_INT(gates_parse_max_calls("", "t.R.find=3", &m[0], &e), 0);
    CHECK_INT(gates_parse_max_calls("", "t.R.find=2", &m[1], &e), 0);
    CHECK_INT(gates_parse_budget("", "t.R.find:p50=2", &b, &e), 0);
    CHECK(gates_wanted(&g));
    CHECK_INT(gates_judge(&g, s, NULL, f, &e), 1);
    CHECK_INT((int)json_array_size(f), 3);
    CHECK_STR(json_string_value(json_array_get(f, 0)), "max-calls t.R.find=2: t.R.find(J)V was called 3 times in "
                                                        "one entry call, over the limit of 2");
    CHECK_STR(json_string_value(json_array_get(f, 1)), "percentile 90: the 90-th percentile of the 4 calls of t.E.run "
                                                        "is 20.000 ms, over fail-over-ms 15");
    CHECK_STR(json_string_value(json_array_get(f, 2)), "budget t.R.find:p50=2: t.E.run()V > t.R.find(J)V: p50 "
                                                        "3.000 ms within one entry call, over the budget of 2 ms");
    json_array_clear(f);
    g.n_max_calls = 1;
    g.n_budgets = 0;
    g.fail_over_ms = 20;
    CHECK_INT(gates_judge(&g, s, NULL, f, &e), 0);
    CHECK_INT((int)json_array_size(f), 0);
    /* The 4 calls are too few for a p90 unless min-calls says they are enough. */
    g.min_calls = 0;
    CHECK_INT(gates_judge(&g, s, NULL, f, &e), 1);
    CHECK_INT((int)json_array_size(f), 1);
    CHECK_STR(json_string_value(json_array_get(f, 0)), "percentile 90: 4 calls of t.E.run are too few to tell their "
                                                        "90-th percentile (it takes at least 10; min-calls N says how "
                                                        "many are enough)");
    json_array_clear(f);
    g.min_calls = 5;
    CHECK_INT(gates_judge(&g, s, NULL, f, &e), 1);
    CHECK_STR(json_string_value(json_array_get(f, 0)), "percentile 90: 4 calls of t.E.run were judged, under "
                                                        "min-calls 5");
    json_array_clear(f);
    g.min_calls = 0;
    CHECK(gates_calls_needed(&g, 50) == 2 && gates_calls_needed(&g, 90) == 10 && gates_calls_needed(&g, 99) == 100 &&
          gates_calls_needed(&g, 99.9) == 1000 && gates_calls_needed(&g, 100) == 1 && gates_calls_needed(&g, 75) == 4);
    g.percentile = 75;
    CHECK_INT(gates_judge(&g, s, NULL, f, &e), -1);
    CHECK_STR(e.msg, "percentile 75: a summary carries the percentiles 50, 90, 99 and 100 of the entry method's "
                     "duration, not 75");
    sum_free(s);
    json_decref(f);
}

/* A tally of calls: no call is a failure; calls judged at any percentile. */
static void test_tally(void)
{
    struct gates g = { .prefix = "", .class_name = "t.E", .method = "run", .desc = "(I)J", .percentile = 75,
                       .fail_over_ms = 74 };
    gates_tally *t = gates_tally_new(&(mct_err){0});
    json_t *f = json_array();
    call_tab tab = {0};
    mct_call c = {0};
    mct_err e;

    CHECK_INT(gates_tally_judge(t, &g, f, &e), 1);
    CHECK_STR(json_string_value(json_array_get(f, 0)), "the gates have no call of t.E.run(I)J to judge");
    json_array_clear(f);
    for (int i = 1; i <= 100; i++) {
        char buf[512];
        json_t *call;

        snprintf(buf, sizeof buf, "{\"type\":\"call\",\"seq\":%d,\"thread\":{\"id\":1,\"name\":\"main\"},"
                 "\"start_ns\":5,\"root\":{\"class\":\"t.E\",\"method\":\"run\",\"desc\":\"(I)J\",\"calls\":1,"
                 "\"total_ns\":%d000000,\"self_ns\":0,\"min_ns\":0,\"max_ns\":0,\"throws\":0,\"children\":[]}}",
                 i, i);
        call = json_loads(buf, 0, NULL);
        CHECK_INT(call_from_json(&tab, &c, call, &e), 0);
        CHECK_INT(gates_tally_add(t, &tab, &c, 1, &e), 0);
        json_decref(call);
    }
    CHECK_INT(gates_tally_judge(t, &g, f, &e), 1);
    CHECK(strstr(json_string_value(json_array_get(f, 0)), "percentile 75: the 75-th percentile of the 100 calls "
                                                           "of t.E.run(I)J is 75.") != NULL);
    json_array_clear(f);
    g.fail_over_ms = 76;
    CHECK_INT(gates_tally_judge(t, &g, f, &e), 0);
    json_decref(f);
    gates_tally_free(t);
    call_free(&c);
    call_tab_free(&tab);
}

/* A cpu_ budget and max-alloc over calls that carry CPU times and
 * allocations, judged per node; over calls without them, an error. */
static void test_figures(void)
{
    struct gates_budget b[2];
    struct gates_max_calls m[2];
    struct gates g = { .prefix = "--", .class_name = "t.E", .method = "run", .desc = "()V", .budgets = b,
                       .n_budgets = 2, .max_alloc = m, .n_max_alloc = 2 };
    gates_tally *t = gates_tally_new(&(mct_err){0}), *plain = gates_tally_new(&(mct_err){0});
    json_t *f = json_array();
    call_tab tab = {0};
    mct_call c = {0};
    mct_err e;

    CHECK_INT(gates_parse_budget("--", "t.S.spin:cpu_p90=20", &b[0], &e), 0);
    CHECK_INT(gates_parse_budget("--", "t.S.spin:cpu_max=31", &b[1], &e), 0);
    CHECK_INT(gates_parse_max_alloc("--", "t.S.spin=999", &m[0], &e), 0);
    CHECK_INT(gates_parse_max_alloc("--", "t.S.spin=1000", &m[1], &e), 0);
    CHECK(gates_stat_cpu(b[0].stat) && gates_stat_cpu(b[1].stat) && gates_wanted(&g));
    for (int i = 1; i <= 10; i++) {
        char buf[1024];
        json_t *call;

        snprintf(buf, sizeof buf, "{\"type\":\"call\",\"seq\":%d,\"thread\":{\"id\":1,\"name\":\"main\"},"
                 "\"start_ns\":5,\"root\":{\"class\":\"t.E\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":1,"
                 "\"total_ns\":90000000,\"self_ns\":50000000,\"min_ns\":0,\"max_ns\":0,\"throws\":0,"
                 "\"cpu_ns\":30000000,\"alloc_bytes\":1000,\"children\":[{\"class\":\"t.S\",\"method\":\"spin\","
                 "\"desc\":\"()V\",\"calls\":1,\"total_ns\":40000000,\"self_ns\":40000000,\"min_ns\":0,"
                 "\"max_ns\":0,\"throws\":0,\"cpu_ns\":%d000000,\"alloc_bytes\":1000,\"children\":[]}]}}",
                 i, 21 + i);
        call = json_loads(buf, 0, NULL);
        CHECK_INT(call_from_json(&tab, &c, call, &e), 0);
        CHECK_INT(gates_tally_add(t, &tab, &c, 1, &e), 0);
        /* the same call without its figures */
        c.flags = 0;
        CHECK_INT(gates_tally_add(plain, &tab, &c, 1, &e), 0);
        json_decref(call);
    }
    CHECK_INT(gates_tally_judge(t, &g, f, &e), 1);
    CHECK_INT((int)json_array_size(f), 2);
    CHECK_STR(json_string_value(json_array_get(f, 0)), "--budget t.S.spin:cpu_p90=20: t.E.run()V > t.S.spin()V: "
                                                        "cpu_p90 29.950 ms within one entry call, over the budget "
                                                        "of 20 ms");
    CHECK_STR(json_string_value(json_array_get(f, 1)), "--max-alloc t.S.spin=999: t.E.run()V > t.S.spin()V: 1000 "
                                                        "bytes allocated within one entry call, over the limit of 999");
    json_array_clear(f);
    g.n_budgets = 0;
    CHECK_INT(gates_tally_judge(plain, &g, f, &e), -1);
    CHECK_STR(e.msg, "--max-alloc t.S.spin=999: the calls carry no allocations (trace with --alloc)");
    g.n_budgets = 2;
    g.n_max_alloc = 0;
    CHECK_INT(gates_tally_judge(plain, &g, f, &e), -1);
    CHECK_STR(e.msg, "--budget t.S.spin:cpu_p90=20: the calls carry no CPU times (trace with --cpu)");
    json_decref(f);
    gates_tally_free(t);
    gates_tally_free(plain);
    call_free(&c);
    call_tab_free(&tab);
}

int main(void)
{
    test_parse();
    test_parse_fields();
    test_judge();
    test_tally();
    test_figures();
    return check_status();
}
