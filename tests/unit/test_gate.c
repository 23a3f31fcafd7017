/* test_gate.c — the CI gates (client/gate.c): gate_check on hand-made
 * summary objects, gate_finish on calls added one by one, gate_plan_check
 * on hand-made plans; each failure's message checked. */
#include "check.h"

#include <stdarg.h>
#include <stdlib.h>

#include "cli.h"
#include "gate.h"
#include "readcall.h"

/* Parses the options (NULL-terminated) before a fixed trace of t.E.run. */
static void parse(struct cli *c, ...)
{
    char *argv[32];
    int argc = 0;
    va_list ap;
    mct_err e;

    argv[argc++] = "mcalltree";
    va_start(ap, c);
    for (char *a; (a = va_arg(ap, char *)) != NULL && argc < 26;)
        argv[argc++] = a;
    va_end(ap);
    argv[argc++] = "1";
    argv[argc++] = "t.E";
    argv[argc++] = "run";
    argv[argc++] = "3";
    argv[argc++] = "t\\..*";
    argv[argc] = NULL;
    if (cli_parse(argc, argv, c, &e) < 0) {
        fprintf(stderr, "test command line refused: %s\n", e.msg);
        exit(1);
    }
}

static json_t *load(const char *text)
{
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);

    if (j == NULL) {
        fprintf(stderr, "bad test JSON: %s: %s\n", je.text, text);
        exit(1);
    }
    return j;
}

/* The summary of text, read as the client reads one (sum_read). */
static sum *load_summary(const char *text)
{
    struct sum_info info;
    mct_err e;
    sum *s = sum_read_text(text, strlen(text), &info, &e);

    if (s == NULL) {
        fprintf(stderr, "bad test summary: %s: %s\n", e.msg, text);
        exit(1);
    }
    return s;
}

/* A node of a summary: class C, method m, desc d, calls_max cmax, p50..max
 * (ns) of its time within one entry call, children kids. */
#define SNODE(c, m, d, cmax, p50, p90, p99, mx, kids)                                                  \
    "{\"class\":\"" c "\",\"method\":\"" m "\",\"desc\":\"" d "\",\"calls\":" #cmax                    \
    ",\"total_ns\":" #mx ",\"self_ns\":0,\"min_ns\":1,\"max_ns\":" #mx ",\"throws\":0,\"entries\":1"   \
    ",\"calls_min\":1,\"calls_max\":" #cmax ",\"p50_ns\":" #p50 ",\"p90_ns\":" #p90 ",\"p99_ns\":" #p99 \
    ",\"entry_max_ns\":" #mx ",\"children\":[" kids "]}"
#define SMETHOD(c, m, d, cmax) \
    "{\"class\":\"" c "\",\"method\":\"" m "\",\"desc\":\"" d "\",\"calls\":" #cmax ",\"calls_max\":" #cmax \
    ",\"entries\":1}"

/* t.E.run()V taking 10/20/30/40 ms at p50/p90/p99/max, calling t.R.find(J)V
 * 5 times per entry call (1/2/3/4 ms) and t.R.find(I)V 2 times. */
static const char summary_text[] =
    "{\"type\":\"summary\",\"final\":true,\"calls\":9,\"not_traced\":0,\"root\":"
    SNODE("t.E", "run", "()V", 1, 10000000, 20000000, 30000000, 40000000,
          SNODE("t.R", "find", "(J)V", 5, 1000000, 2000000, 3000000, 4000000, "") ","
          SNODE("t.R", "find", "(I)V", 2, 100, 100, 100, 100, ""))
    ",\"methods\":[" SMETHOD("t.E", "run", "()V", 1) "," SMETHOD("t.R", "find", "(J)V", 5) ","
    SMETHOD("t.R", "find", "(I)V", 2) "],\"slowest\":[]}";

/* Runs gate_check (or gate_finish when summary is NULL) with c's gates;
 * its result, the messages in *msgs (to free). */
static int judge(const struct cli *c, const sum *summary, char **msgs)
{
    size_t len;
    FILE *f = open_memstream(msgs, &len);
    gate *g = gate_new(c, &(mct_err){0});
    mct_err e;
    int rc;

    rc = gate_check(g, summary, f, &e);
    if (rc < 0)
        fprintf(f, "error: %s\n", e.msg);
    fclose(f);
    gate_free(g);
    return rc;
}

/* Expects gate_check of c on summary to give want and, when part is not
 * NULL, a message containing part (NULL: no message at all). */
#define EXPECT(c, summary, want, part)                                                            \
    do {                                                                                          \
        char *m_ = NULL;                                                                          \
        CHECK_INT(judge((c), (summary), &m_), (want));                                            \
        if ((part) == NULL ? m_[0] != '\0' : strstr(m_, (part) ? (part) : "") == NULL) {          \
            fprintf(stderr, "%s:%d: messages \"%s\", want \"%s\"\n", __FILE__, __LINE__, m_,      \
                    (part) ? (part) : "(none)");                                                  \
            check_failures++;                                                                     \
        }                                                                                         \
        free(m_);                                                                                 \
    } while (0)

static void test_max_calls(const sum *s)
{
    struct cli c;

    parse(&c, "--max-calls", "t.R.find=5", "--max-calls", "t.E.run=1", NULL);
    EXPECT(&c, s, 0, NULL);
    parse(&c, "--max-calls", "t.R.find=4", NULL);
    EXPECT(&c, s, 1, "mcalltree: --max-calls t.R.find=4: t.R.find(J)V was called 5 times in one entry call, "
                     "over the limit of 4 (exit status 4)\n");
    /* Each overload is held to N: (I)V's 2 calls pass at 2. */
    parse(&c, "--max-calls", "t.R.find=2", NULL);
    EXPECT(&c, s, 1, "t.R.find(J)V was called 5 times");
    parse(&c, "--max-calls", "t.R.find(I)V=2", NULL);
    EXPECT(&c, s, 0, NULL);
    parse(&c, "--max-calls", "t.R.find(I)V=1", NULL);
    EXPECT(&c, s, 1, "--max-calls t.R.find(I)V=1: t.R.find(I)V was called 2 times in one entry call, over the "
                     "limit of 1");
    parse(&c, "--max-calls", "t.R.gone=0", NULL);
    EXPECT(&c, s, 0, NULL);
}

static void test_percentile(const sum *s)
{
    struct cli c;

    parse(&c, "--percentile", "50", "--fail-over-ms", "10", NULL);
    EXPECT(&c, s, 0, NULL);
    parse(&c, "--percentile", "50", "--fail-over-ms", "9.9", NULL);
    EXPECT(&c, s, 1, "mcalltree: --percentile 50: the 50-th percentile of the 9 calls of t.E.run is 10.000 ms, "
                     "over --fail-over-ms 9.9 (exit status 4)\n");
    parse(&c, "--percentile", "99", "--fail-over-ms", "29", NULL);
    EXPECT(&c, s, 1, "the 99-th percentile of the 9 calls of t.E.run is 30.000 ms");
    parse(&c, "--percentile", "100", "--fail-over-ms", "40", NULL);
    EXPECT(&c, s, 0, NULL);
    /* A summary carries 50, 90, 99 and 100 only. */
    parse(&c, "--percentile", "75", "--fail-over-ms", "40", NULL);
    EXPECT(&c, s, -1, "error: --percentile 75: a summary carries the percentiles 50, 90, 99 and 100");
    CHECK(gate_percentile_in_summary(99) && !gate_percentile_in_summary(75));
}

static void test_budget(const sum *s)
{
    struct cli c;

    parse(&c, "--budget", "t.R.find:p99=3", "--budget", "t.E.run:max=40", "--min-calls", "9", NULL);
    EXPECT(&c, s, 0, NULL);
    /* 9 calls are too few for a p99, unless --min-calls says they are enough. */
    parse(&c, "--budget", "t.R.find:p99=3", NULL);
    EXPECT(&c, s, 1, "mcalltree: --budget t.R.find:p99=3: 9 calls of t.E.run are too few to tell their 99-th "
                     "percentile (it takes at least 100; --min-calls N says how many are enough) (exit status 4)\n");
    parse(&c, "--budget", "t.R.find:p99=3", "--min-calls", "10", NULL);
    EXPECT(&c, s, 1, "mcalltree: --budget t.R.find:p99=3: 9 calls of t.E.run were judged, under --min-calls 10 "
                     "(exit status 4)\n");
    parse(&c, "--budget", "t.R.find:p90=1.5", NULL);
    EXPECT(&c, s, 1, "mcalltree: --budget t.R.find:p90=1.5: t.E.run()V > t.R.find(J)V: p90 2.000 ms within one "
                     "entry call, over the budget of 1.5 ms (exit status 4)\n");
    parse(&c, "--budget", "t.E.run:p50=9", NULL);
    EXPECT(&c, s, 1, "--budget t.E.run:p50=9: t.E.run()V: p50 10.000 ms");
    parse(&c, "--budget", "t.R.find(I)V:max=0.0001", NULL);
    EXPECT(&c, s, 0, NULL);
    parse(&c, "--budget", "t.R.find(I)V:max=0.00001", NULL);
    EXPECT(&c, s, 1, "t.E.run()V > t.R.find(I)V: max 0.000 ms");
}

/* Several gates fail together: every one is said. */
static void test_several(const sum *s)
{
    struct cli c;
    char *m = NULL;

    parse(&c, "--max-calls", "t.R.find(J)V=1", "--percentile", "90", "--fail-over-ms", "1", "--budget",
          "t.R.find(J)V:p50=0.5", NULL);
    CHECK_INT(judge(&c, s, &m), 1);
    CHECK(strstr(m, "--max-calls") != NULL && strstr(m, "--percentile 90") != NULL && strstr(m, "--budget") != NULL);
    free(m);
}

static void test_no_call(void)
{
    struct cli c;
    sum *empty = load_summary("{\"type\":\"summary\",\"final\":true,\"calls\":0,\"not_traced\":0,\"root\":null,"
                         "\"methods\":[],\"slowest\":[]}");

    parse(&c, "--max-calls", "t.R.find=5", NULL);
    EXPECT(&c, empty, 1, "mcalltree: the gates have no call of t.E.run to judge (exit status 4)\n");
    sum_free(empty);
}

/* A call whose root t.E.run()V took total ns and called t.R.find(J)V n times. */
static json_t *call_of(unsigned long long total, int n)
{
    char buf[1024];

    snprintf(buf, sizeof buf,
             "{\"type\":\"call\",\"seq\":1,\"thread\":{\"id\":1,\"name\":\"main\"},\"start_ns\":5,\"root\":"
             "{\"class\":\"t.E\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":%llu,"
             "\"self_ns\":%llu,\"min_ns\":%llu,\"max_ns\":%llu,\"throws\":0,\"children\":["
             "{\"class\":\"t.R\",\"method\":\"find\",\"desc\":\"(J)V\",\"calls\":%d,\"total_ns\":%d,"
             "\"self_ns\":%d,\"min_ns\":1,\"max_ns\":1,\"throws\":0,\"children\":[]}]}}",
             total, total - (unsigned long long)n, total, total, n, n, n);
    return load(buf);
}

static int gate_adder(void *g, const call_tab *t, const mct_call *c, mct_err *e)
{
    return replies_call(gate_judge(g), t, c, e) < 0 ? -1 : 0;
}

/* Reads call j and adds it to g; 0, or -1 with e set. */
static int add_json(gate *g, const json_t *j, mct_err *e)
{
    return readcall(j, gate_adder, g, e);
}

/* gate_finish over calls: any percentile from the calls' durations. */
static void test_finish(void)
{
    struct cli c;
    gate *g;
    mct_err e;
    char *m = NULL;
    size_t len;
    FILE *f;

    /* 100 calls of 1..100 ms; the 75th percentile is 75 ms (within 1 %). */
    parse(&c, "--percentile", "75", "--fail-over-ms", "74", "--max-calls", "t.R.find=3", NULL);
    g = gate_new(&c, &e);
    for (int i = 1; i <= 100; i++) {
        json_t *call = call_of((unsigned long long)i * 1000000, i == 50 ? 4 : 3);

        CHECK_INT(add_json(g, call, &e), 0);
        json_decref(call);
    }
    f = open_memstream(&m, &len);
    CHECK_INT(gate_finish(g, f, &e), 1);
    fclose(f);
    CHECK(strstr(m, "--percentile 75: the 75-th percentile of the 100 calls of t.E.run is 75.") != NULL);
    CHECK(strstr(m, "--max-calls t.R.find=3: t.R.find(J)V was called 4 times in one entry call") != NULL);
    free(m);
    gate_free(g);

    parse(&c, "--percentile", "75", "--fail-over-ms", "76", "--max-calls", "t.R.find=4", NULL);
    g = gate_new(&c, &e);
    for (int i = 1; i <= 100; i++) {
        json_t *call = call_of((unsigned long long)i * 1000000, 3);

        CHECK_INT(add_json(g, call, &e), 0);
        json_decref(call);
    }
    f = open_memstream(&m, &len);
    CHECK_INT(gate_finish(g, f, &e), 0);
    fclose(f);
    CHECK_STR(m, "");
    free(m);

    /* A malformed call is refused, with the reader's message. */
    {
        json_t *bad = load("{\"type\":\"call\",\"seq\":1}");

        CHECK_INT(add_json(g, bad, &e), -1);
        CHECK_STR(e.msg, "call: start_ns: missing (an integer >= 0)");
        json_decref(bad);
    }
    gate_free(g);
}

/* gate_plan_check: a name must match a traced method of the plan. */
static void test_plan(void)
{
    static const struct msg_plan_method methods[] = {
        { .cls = "t.E", .method = "run", .desc = "()V", .level = 1, .status = "instrumented", .root = 1 },
        { .cls = "t.R", .method = "find", .desc = "(J)V", .level = 2, .status = "pending" },
        { .cls = "t.X", .method = "skip", .desc = "()V", .level = 2, .status = "excluded",
          .reason = "the regex does not match" },
    };
    struct msg_plan plan = { .methods = methods, .n_methods = 3 };
    struct cli c;
    gate *g;
    mct_err e;
    char *m = NULL;
    size_t len;
    FILE *f = open_memstream(&m, &len);

    parse(&c, "--max-calls", "t.R.find=1", "--budget", "t.E.run()V:p99=3", NULL);
    g = gate_new(&c, &e);
    CHECK_INT(gate_plan_check(g, &plan, f, &e), 0);
    gate_free(g);
    parse(&c, "--max-calls", "t.R.fnd=1", NULL);
    g = gate_new(&c, &e);
    CHECK_INT(gate_plan_check(g, &plan, f, &e), -1);
    CHECK_INT(e.code, MCT_E_ARG);
    CHECK_STR(e.msg, "--max-calls t.R.fnd=1: no method t.R.fnd among the 3 methods of the plan (the depth and "
                     "the regex decide which are traced; --plan lists them)");
    gate_free(g);
    parse(&c, "--budget", "t.R.find(I)V:p50=1", NULL);
    g = gate_new(&c, &e);
    CHECK_INT(gate_plan_check(g, &plan, f, &e), -1);
    CHECK(strstr(e.msg, "no method t.R.find(I)V among") != NULL);
    gate_free(g);
    parse(&c, "--max-calls", "t.X.skip=1", NULL);
    g = gate_new(&c, &e);
    CHECK_INT(gate_plan_check(g, &plan, f, &e), -1);
    CHECK_STR(e.msg, "--max-calls t.X.skip=1: t.X.skip()V is in the plan but not traced (excluded: the regex "
                     "does not match); its calls would not be counted");
    /* A capped plan may lack the method: a warning only. */
    plan.summary.capped = 1;
    CHECK_INT(gate_plan_check(g, &plan, f, &e), -1);
    gate_free(g);
    parse(&c, "--max-calls", "t.Q.gone=1", NULL);
    g = gate_new(&c, &e);
    CHECK_INT(gate_plan_check(g, &plan, f, &e), 0);
    gate_free(g);
    fclose(f);
    CHECK_STR(m, "mcalltree: warning: --max-calls t.Q.gone=1: no such method in the plan, which hit its cap; "
                 "its calls are not counted\n");
    free(m);
}

int main(void)
{
    sum *s = load_summary(summary_text);

    test_max_calls(s);
    test_percentile(s);
    test_budget(s);
    test_several(s);
    sum_free(s);
    test_no_call();
    test_finish();
    test_plan();
    return check_status();
}
