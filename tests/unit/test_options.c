/* test_options.c — the agent's options string. */
#include "check.h"

#include <string.h>

#include "options.h"

static void test_valid(void)
{
    struct agent_opts o;
    mct_err e;

    CHECK_INT(opts_parse(NULL, &o, &e), 0);
    CHECK_INT(o.verbose, 0);
    CHECK_INT(opts_parse("", &o, &e), 0);
    CHECK_INT(o.verbose, 0);
    CHECK_INT(opts_parse("verbose", &o, &e), 0);
    CHECK_INT(o.verbose, 1);
    CHECK_INT(opts_parse("verbose,verbose", &o, &e), 0);
    CHECK_INT(o.verbose, 1);
}

static void test_invalid(void)
{
    struct agent_opts o;
    mct_err e;

    CHECK_INT(opts_parse("bogus", &o, &e), -1);
    CHECK_INT(e.code, MCT_E_ARG);
    CHECK_STR(e.msg, "unknown option 'bogus' (known: verbose, rewrite-all, clock, probes, trace, depth, regex, out, include-jdk, min-ms, count, aggregate, interval, slowest, sample, max-calls, percentile, fail-over-ms, budget, include-warmup, min-calls, cpu, alloc, follow-async, async-wait, max-alloc, args, args-len, trace-context, skip-trivial)");
    CHECK_INT(opts_parse("verbose,x=1", &o, &e), -1);
    CHECK_STR(e.msg, "unknown option 'x' (known: verbose, rewrite-all, clock, probes, trace, depth, regex, out, include-jdk, min-ms, count, aggregate, interval, slowest, sample, max-calls, percentile, fail-over-ms, budget, include-warmup, min-calls, cpu, alloc, follow-async, async-wait, max-alloc, args, args-len, trace-context, skip-trivial)");
    CHECK_INT(opts_parse("verbose=1", &o, &e), -1);
    CHECK_STR(e.msg, "option 'verbose' takes no value");
    CHECK_INT(opts_parse("verbose,", &o, &e), -1);
    CHECK(strstr(e.msg, "empty item") != NULL);
    CHECK_INT(opts_parse(",verbose", &o, &e), -1);
    CHECK_INT(opts_parse("verbose,,verbose", &o, &e), -1);
    CHECK_INT(opts_parse("verb", &o, &e), -1);
    CHECK_INT(opts_parse("verboseX", &o, &e), -1);
    CHECK_INT(opts_parse("rewrite-all", &o, &e), -1);
    CHECK(strstr(e.msg, "needs a value") != NULL);
    CHECK_INT(opts_parse("rewrite-all=", &o, &e), -1);
    CHECK(strstr(e.msg, "needs a value") != NULL);
}

static void test_string(void)
{
    char longer[600];
    struct agent_opts o;
    mct_err e;

    CHECK_INT(opts_parse("rewrite-all=com\\.sun\\..*,verbose", &o, &e), 0);
    CHECK_STR(o.rewrite_all, "com\\.sun\\..*");
    CHECK_INT(o.verbose, 1);
    memset(longer, 'a', sizeof longer - 1);
    memcpy(longer, "rewrite-all=", 12);
    longer[sizeof longer - 1] = '\0';
    CHECK_INT(opts_parse(longer, &o, &e), -1);
    CHECK(strstr(e.msg, "longer than") != NULL);
    CHECK_INT(opts_parse("clock=monotonic", &o, &e), 0);
    CHECK_STR(o.clock, "monotonic");
    CHECK_INT(opts_parse("clock=auto", &o, &e), 0);
    CHECK_INT(opts_parse("clock=hpet", &o, &e), -1);
    CHECK_STR(e.msg, "option 'clock' takes one of auto|monotonic, not 'hpet'");
    CHECK_INT(opts_parse("clock=monotonicx", &o, &e), -1);
    CHECK_INT(opts_parse("verbose,probes=java", &o, &e), 0);
    CHECK_STR(o.probes, "java");
    CHECK_INT(opts_parse("probes=native", &o, &e), 0);
    CHECK_STR(o.probes, "native");
    CHECK_INT(opts_parse("probes=auto", &o, &e), 0);
    CHECK_INT(opts_parse("", &o, &e), 0);
    CHECK_STR(o.probes, "");
    CHECK_INT(opts_parse("probes=jni", &o, &e), -1);
    CHECK_STR(e.msg, "option 'probes' takes one of auto|java|native, not 'jni'");
    CHECK_INT(opts_parse("probes", &o, &e), -1);
}

/* sample=: 1..1000000000. */
static void test_sample(void)
{
    struct agent_opts o;
    mct_err e;

    CHECK_INT(opts_parse("trace=a.B.run,out=x", &o, &e), 0);
    CHECK(o.trace.req.sample == -1);
    CHECK_INT(opts_parse("trace=a.B.run,out=x,sample=100", &o, &e), 0);
    CHECK(o.trace.req.sample == 100);
    CHECK_INT(opts_parse("trace=a.B.run,out=x,aggregate,sample=1", &o, &e), 0);
    CHECK(o.trace.req.sample == 1);
    CHECK_INT(opts_parse("trace=a.B.run,out=x,sample=0", &o, &e), -1);
    CHECK_STR(e.msg, "option 'sample': give an integer from 1 (every call) to 1000000000, not '0'");
    CHECK_INT(opts_parse("trace=a.B.run,out=x,sample=x", &o, &e), -1);
}

static void test_aggregate(void)
{
    struct agent_opts o;
    mct_err e;

    CHECK_INT(opts_parse("trace=a.B.run,out=x", &o, &e), 0);
    CHECK_INT(o.trace.req.aggregate, 0);
    CHECK(o.trace.req.interval_ms == -1);
    CHECK(o.trace.req.slowest == -1);
    CHECK_INT(opts_parse("trace=a.B.run,out=x,aggregate", &o, &e), 0);
    CHECK_INT(o.trace.req.aggregate, 1);
    CHECK(o.trace.req.interval_ms == -1);
    CHECK(o.trace.req.slowest == -1);
    CHECK_INT(opts_parse("trace=a.B.run,out=x,aggregate,interval=2.5,slowest=7", &o, &e), 0);
    CHECK(o.trace.req.interval_ms == 2500);
    CHECK(o.trace.req.slowest == 7);
    CHECK_INT(opts_parse("trace=a.B.run,out=x,interval=0.001,slowest=0,aggregate", &o, &e), 0);
    CHECK(o.trace.req.interval_ms == 1);
    CHECK(o.trace.req.slowest == 0);
    CHECK_INT(opts_parse("trace=a.B.run,out=x,aggregate,slowest=1000", &o, &e), 0);
    CHECK(o.trace.req.slowest == 1000);

    CHECK_INT(opts_parse("trace=a.B.run,out=x,aggregate,slowest=1001", &o, &e), -1);
    CHECK_STR(e.msg, "option 'slowest': give an integer from 0 to 1000, not '1001'");
    CHECK_INT(opts_parse("trace=a.B.run,out=x,aggregate,slowest=-1", &o, &e), -1);
    CHECK_INT(opts_parse("trace=a.B.run,out=x,aggregate,interval=0", &o, &e), -1);
    CHECK_STR(e.msg, "option 'interval': give a number of seconds from 0.001 to 1000000 such as 10 or 0.5, "
                     "not '0'");
    CHECK_INT(opts_parse("trace=a.B.run,out=x,aggregate,interval=0.0004", &o, &e), -1);
    CHECK_INT(opts_parse("trace=a.B.run,out=x,aggregate,interval=1e3", &o, &e), -1);
    CHECK_INT(opts_parse("trace=a.B.run,out=x,aggregate,interval=-1", &o, &e), -1);
    CHECK_INT(opts_parse("trace=a.B.run,out=x,aggregate,interval=", &o, &e), -1);
    CHECK(strstr(e.msg, "needs a value") != NULL);
    CHECK_INT(opts_parse("trace=a.B.run,out=x,aggregate=1", &o, &e), -1);
    CHECK_STR(e.msg, "option 'aggregate' takes no value");
    CHECK_INT(opts_parse("trace=a.B.run,out=x,interval=5", &o, &e), -1);
    CHECK_STR(e.msg, "option 'interval' needs aggregate (summaries instead of calls)");
    CHECK_INT(opts_parse("trace=a.B.run,out=x,slowest=5", &o, &e), -1);
    CHECK_STR(e.msg, "option 'slowest' needs aggregate (summaries instead of calls)");
    CHECK_INT(opts_parse("trace=a.B.run,out=x,include-warmup", &o, &e), -1);
    CHECK_STR(e.msg, "option 'include-warmup' needs aggregate or a gate (fail-over-ms, max-calls, budget): "
                     "calls are written either way");
    CHECK_INT(opts_parse("trace=a.B.run,out=x,aggregate,include-warmup", &o, &e), 0);
    CHECK_INT(o.trace.req.include_warmup, 1);
    CHECK_INT(opts_parse("trace=a.B.run,out=x,fail-over-ms=5,include-warmup", &o, &e), 0);
    CHECK_INT(opts_parse("include-warmup", &o, &e), -1);
    CHECK_INT(opts_parse("trace=a.B.run,out=x,aggregate,min-ms=1", &o, &e), -1);
    CHECK_STR(e.msg, "option 'min-ms' cannot be used with aggregate: a summary covers every call (its "
                     "p50/p90/p99 and slowest= show the slow ones)");
    CHECK_INT(opts_parse("trace=a.B.run,out=x,min-ms=0,aggregate", &o, &e), -1);
    CHECK_INT(opts_parse("aggregate", &o, &e), -1);
    CHECK_STR(e.msg, "option 'aggregate' needs trace=CLASS.METHOD");
}

static void test_trace(void)
{
    struct agent_opts o;
    mct_err e;

    CHECK_INT(opts_parse("trace=com.shop.Cart$Line.total,out=/tmp/{pid}.ndjson", &o, &e), 0);
    CHECK_STR(o.trace.req.cls, "com.shop.Cart$Line");
    CHECK_STR(o.trace.req.method, "total");
    CHECK_STR(req_desc(&o.trace.req), "");
    CHECK_INT(o.trace.req.depth, req_fields[REQ_ROW_depth].def);
    CHECK_STR(o.trace.req.regex, REQ_DEFAULT_REGEX);
    CHECK_STR(o.trace.req.out, "/tmp/{pid}.ndjson");
    CHECK_INT(opts_parse("trace=a.B.get(IJ)V,depth=64,regex=a%5C.(B%7CC)%2C?,out=f%20g,include-jdk,"
                         "min-ms=1.5,count=7,verbose", &o, &e), 0);
    CHECK_STR(o.trace.req.cls, "a.B");
    CHECK_STR(o.trace.req.method, "get");
    CHECK_STR(req_desc(&o.trace.req), "(IJ)V");
    CHECK_INT(o.trace.req.depth, 64);
    CHECK_STR(o.trace.req.regex, "a\\.(B|C),?");
    CHECK_STR(o.trace.req.out, "f g");
    CHECK_INT(o.trace.req.include_jdk, 1);
    CHECK(o.trace.req.min_ns == 1500000);
    CHECK(o.trace.req.count == 7);
    CHECK_INT(o.verbose, 1);
    CHECK_INT(opts_parse("trace=a.B.get(Ljava/lang/String%3B)V,out=x", &o, &e), 0);
    CHECK_STR(req_desc(&o.trace.req), "(Ljava/lang/String;)V");
    CHECK_INT(opts_parse("rewrite-all=x%25y", &o, &e), 0);
    CHECK_STR(o.rewrite_all, "x%y");

    CHECK_INT(opts_parse("trace=a.B.run", &o, &e), -1);
    CHECK_STR(e.msg, "option 'trace' needs out=FILE, the file the trace is written to");
    CHECK_INT(opts_parse("out=x", &o, &e), -1);
    CHECK_STR(e.msg, "option 'out' needs trace=CLASS.METHOD");
    CHECK_INT(opts_parse("trace=a.B.run,out=x,depth=0", &o, &e), -1);
    CHECK_STR(e.msg, "option 'depth': give an integer from 1 to 64, not '0'");
    CHECK_INT(opts_parse("trace=a.B.run,out=x,depth=65", &o, &e), -1);
    CHECK_INT(opts_parse("trace=run,out=x", &o, &e), -1);
    CHECK(strstr(e.msg, "option 'trace': give CLASS.METHOD") == e.msg);
    CHECK_INT(opts_parse("trace=a.B.run(I,out=x", &o, &e), -1);
    CHECK(strstr(e.msg, "not a JVM method descriptor") != NULL);
    CHECK_INT(opts_parse("trace=a.B.run,out=x,regex=a%2", &o, &e), -1);
    CHECK(strstr(e.msg, "option 'regex': '%' must be followed by two hex digits") == e.msg);
    CHECK_INT(opts_parse("trace=a.B.run,out=x,regex=a%zz", &o, &e), -1);
    CHECK(strstr(e.msg, "'%zz' is not %XX") != NULL);
    CHECK_INT(opts_parse("trace=a.B.run,out=x%00", &o, &e), -1);
    CHECK(strstr(e.msg, "NUL") != NULL);
    CHECK_INT(opts_parse("trace=a.B.run,out=x,min-ms=-1", &o, &e), -1);
    CHECK_INT(opts_parse("trace=a.B.run,out=x,count=0", &o, &e), -1);
    CHECK_INT(opts_parse("trace=a.B.run,out=x,include-jdk=1", &o, &e), -1);

    CHECK_INT(opts_has_trace("verbose,trace=x"), 1);
    CHECK_INT(opts_has_trace("trace=x,bogus"), 1);
    CHECK_INT(opts_has_trace("verbose,xtrace=x"), 0);
    CHECK_INT(opts_has_trace(NULL), 0);
}

/* The gate items: percent-decoded, repeatable, kept copyable, checked
 * together; opts_gates gives the specs protocol/gates.h judges. */
static void test_gates(void)
{
    struct agent_opts o, copy;
    struct gates g;
    mct_err e;

    CHECK_INT(opts_parse("trace=a.B.run,out=x", &o, &e), 0);
    CHECK_INT(opts_gates(&o.trace, &g), 0);
    CHECK_INT(opts_parse("trace=a.B.run,out=x,max-calls=a.R.find=3,max-calls=a.R.get(Ljava/lang/String%3B)J=0,"
                         "budget=a.R.find:p99=2.5,percentile=90,fail-over-ms=10", &o, &e), 0);
    CHECK_INT((int)o.trace.req.max_calls.n, 2);
    CHECK_INT((int)o.trace.req.budgets.n, 1);
    opts_trace_copy(&copy.trace, &o.trace); /* the specs are made from a copy, as the agent keeps one */
    memset(&o, 0, sizeof o);
    CHECK_INT(opts_gates(&copy.trace, &g), 1);
    CHECK_INT((int)g.n_max_calls, 2);
    CHECK_STR(g.max_calls[0].arg, "a.R.find=3");
    CHECK(g.max_calls[0].n == 3);
    CHECK_STR(g.max_calls[1].arg, "a.R.get(Ljava/lang/String;)J=0");
    CHECK_INT((int)g.max_calls[1].name.desc_len, 21);
    CHECK_INT((int)g.n_budgets, 1);
    CHECK_INT(g.budgets[0].stat, GATES_STAT_P99);
    CHECK(g.budgets[0].ms == 2.5);
    CHECK(g.percentile == 90 && g.fail_over_ms == 10);
    CHECK_STR(g.prefix, "");
    CHECK_STR(g.class_name, "a.B");
    CHECK_STR(g.method, "run");
    /* fail-over-ms alone judges every call: the 100th percentile. */
    CHECK_INT(opts_parse("trace=a.B.run,out=x,fail-over-ms=5", &o, &e), 0);
    CHECK_INT(opts_gates(&o.trace, &g), 1);
    CHECK(g.percentile == 100 && g.fail_over_ms == 5);

    CHECK_INT(opts_parse("trace=a.B.run,out=x,max-calls=a.R.find", &o, &e), -1);
    CHECK_STR(e.msg, "option 'max-calls': max-calls takes CLASS.METHOD=N (com.shop.Repo.find=1), got 'a.R.find'");
    CHECK_INT(opts_parse("trace=a.B.run,out=x,max-calls=find=1", &o, &e), -1);
    CHECK(strstr(e.msg, "option 'max-calls': max-calls: 'find' is not CLASS.METHOD") == e.msg);
    CHECK_INT(opts_parse("trace=a.B.run,out=x,budget=a.R.find:p75=1", &o, &e), -1);
    CHECK_STR(e.msg, "option 'budget': budget a.R.find:p75=1: 'p75' is not p50, p90, p99 or max, nor (with cpu) cpu_p50, cpu_p90, cpu_p99 or cpu_max");
    CHECK_INT(opts_parse("trace=a.B.run,out=x,percentile=0,fail-over-ms=1", &o, &e), -1);
    CHECK_STR(e.msg, "option 'percentile': percentile must be a number over 0 and at most 100, got '0'");
    CHECK_INT(opts_parse("trace=a.B.run,out=x,fail-over-ms=-1", &o, &e), -1);
    CHECK_STR(e.msg, "option 'fail-over-ms': fail-over-ms must be a number of milliseconds >= 0, got '-1'");
    CHECK_INT(opts_parse("trace=a.B.run,out=x,percentile=50", &o, &e), -1);
    CHECK_STR(e.msg, "option 'percentile' needs fail-over-ms=MS, the limit for that percentile of the calls' "
                     "durations");
    CHECK_INT(opts_parse("trace=a.B.run,out=x,max-calls=a.R.f=1,min-ms=1", &o, &e), -1);
    CHECK_STR(e.msg, "option 'max-calls' cannot be used with min-ms: it judges every call, and min-ms leaves the "
                     "short ones out");
    CHECK_INT(opts_parse("max-calls=a.R.f=1", &o, &e), -1);
    CHECK_STR(e.msg, "option 'max-calls' needs trace=CLASS.METHOD");
    CHECK_INT(opts_parse("trace=a.B.run,out=x,aggregate,percentile=95,fail-over-ms=1", &o, &e), -1);
    CHECK_STR(e.msg, "option 'percentile' with aggregate must be 50, 90, 99 or 100 (what a summary carries), "
                     "not 95");
    CHECK_INT(opts_parse("trace=a.B.run,out=x,aggregate,percentile=99,fail-over-ms=1", &o, &e), 0);
    {
        /* 65 of them, and texts over the pool. */
        char s[8192] = "trace=a.B.run,out=x";

        for (int i = 0; i < 65; i++)
            strcat(s, ",max-calls=a.R.f=1");
        CHECK_INT(opts_parse(s, &o, &e), -1);
        CHECK_STR(e.msg, "option 'max-calls': at most 64 of them");
    }
    {
        static char s[70000];
        char item[1100];

        strcpy(s, "trace=a.B.run,out=x");
        memset(item, 'a', sizeof item);
        memcpy(item, ",budget=a.", 10);
        strcpy(item + 1000, ".f:max=1");
        for (int i = 0; i < 10; i++)
            strcat(s, item);
        CHECK_INT(opts_parse(s, &o, &e), -1);
        CHECK_STR(e.msg, "option 'budget': the max-calls, budget and max-alloc items are longer than 8191 bytes together");
    }
}

/* The option string request.h writes from a request reads back, through
 * opts_parse, as the same request: writer and reader are the same rows.
 * Between them, the cases give every row of the option string. */
static void test_round_trip(void)
{
    static const struct {
        const char *option, *value;
    } cases[][16] = {
        { { "depth", "7" }, { "regex", "a\\.(b|c),%x y\"'=" }, { "out", "/t/a,b c/{pid}.ndjson" },
          { "include-jdk", NULL }, { "count", "9" }, { "aggregate", NULL }, { "interval", "2.5" },
          { "slowest", "0" }, { "sample", "3" }, { "max-calls", "a.B.c(I)J=2" }, { "max-calls", "a.B.d=0" },
          { "percentile", "90" }, { "fail-over-ms", "1.25" }, { "budget", "a.B.c:p99=3" },
          { "include-warmup", NULL }, { "min-calls", "30" } },
        { { "out", "x" }, { "min-ms", "2.5" }, { "sample", "1000000000" }, { "cpu", NULL }, { "alloc", NULL },
          { "follow-async", NULL }, { "async-wait", "250" } },
        { { "out", "x" }, { "aggregate", NULL }, { "cpu", NULL }, { "alloc", NULL },
          { "budget", "a.B.c:cpu_p90=2" }, { "max-alloc", "a.B.c=4096" }, { "max-alloc", "a.B.d(I)J=0" } },
        { { "out", "x" }, { "args", NULL }, { "args-len", "1024" }, { "trace-context", "a.B$C.TL" },
          { "skip-trivial", NULL } },
    };
    unsigned long rows = 0;

    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct mct_request r;
        struct agent_opts o;
        const struct mct_request *q = &o.trace.req;
        mct_buf b;
        mct_err e;

        req_init(&r);
        r.cls = "a.B$C";
        r.method = "run";
        r.desc = k == 0 ? "(Ljava/lang/String;)V" : NULL;
        for (size_t i = 0; i < 16 && cases[k][i].option != NULL; i++) {
            const struct req_field *f = req_find(cases[k][i].option, strlen(cases[k][i].option), REQ_AGENT);

            CHECK(f != NULL);
            if (f != NULL)
                CHECK_INT(req_set(f, cases[k][i].value, REQ_FORM_AGENT, &r, &e), 0);
        }
        buf_init(&b);
        req_optstr_write(&r, 1, &b);
        buf_ch(&b, '\0');
        CHECK(!buf_failed(&b));
        CHECK_INT(opts_parse((const char *)b.data, &o, &e), 0);
        buf_free(&b);
        rows |= q->given;
        CHECK_STR(q->cls, r.cls);
        CHECK_STR(q->method, r.method);
        CHECK_STR(req_desc(q), req_desc(&r));
        CHECK_STR(q->out, r.out);
        CHECK_STR(q->trace_context != NULL ? q->trace_context : "-", r.trace_context != NULL ? r.trace_context : "-");
        CHECK_STR(q->regex, r.regex != NULL ? r.regex : REQ_DEFAULT_REGEX);
        CHECK(q->depth == (r.depth != 0 ? r.depth : 3));
        CHECK(q->include_jdk == r.include_jdk && q->aggregate == r.aggregate &&
              q->include_warmup == r.include_warmup && q->cpu == r.cpu && q->alloc == r.alloc &&
              q->follow_async == r.follow_async && q->async_wait_ms == r.async_wait_ms &&
              q->args == r.args && q->args_len == r.args_len && q->skip_trivial == r.skip_trivial);
        CHECK(q->min_ns == r.min_ns && q->count == r.count && q->interval_ms == r.interval_ms &&
              q->slowest == r.slowest && q->sample == r.sample);
        CHECK(q->percentile == r.percentile && q->fail_over_ms == r.fail_over_ms && q->min_calls == r.min_calls);
        CHECK_INT((int)q->max_calls.n, (int)r.max_calls.n);
        for (size_t i = 0; i < q->max_calls.n && i < r.max_calls.n; i++)
            CHECK_STR(q->max_calls.item[i].arg, r.max_calls.item[i].arg);
        CHECK_INT((int)q->budgets.n, (int)r.budgets.n);
        for (size_t i = 0; i < q->budgets.n && i < r.budgets.n; i++)
            CHECK_STR(q->budgets.item[i].arg, r.budgets.item[i].arg);
        CHECK_INT((int)q->max_alloc.n, (int)r.max_alloc.n);
        for (size_t i = 0; i < q->max_alloc.n && i < r.max_alloc.n; i++)
            CHECK(strcmp(q->max_alloc.item[i].arg, r.max_alloc.item[i].arg) == 0 &&
                  q->max_alloc.item[i].n == r.max_alloc.item[i].n);
    }
    for (size_t i = 0; i < REQ_ROWS; i++)
        if (req_fields[i].where & REQ_AGENT)
            CHECK(((rows >> i) & 1) != 0);
}

int main(void)
{
    test_round_trip();
    test_gates();
    test_trace();
    test_aggregate();
    test_sample();
    test_valid();
    test_invalid();
    test_string();
    return check_status();
}
