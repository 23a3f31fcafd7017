/* test_cli.c — the command line: every option, every usage error. */
#include "check.h"

#include <stdarg.h>
#include <stdlib.h>

#include "cli.h"
#include "cliargs.h"

/* Parses the NULL-terminated arguments after "mcalltree"; the result of
 * cli_parse, with the message in e. */
static int parse(struct cli *c, mct_err *e, ...)
{
    static char *argv[CLIARGS_MAX];
    va_list ap;
    int rc;

    va_start(ap, e);
    rc = cliargs_parse(c, e, argv, ap);
    va_end(ap);
    return rc;
}

/* Expects a usage error whose message contains part. */
#define USAGE_ERROR(part, ...)                                                 \
    do {                                                                       \
        struct cli c_;                                                         \
        mct_err e_;                                                            \
        CHECK_INT(parse(&c_, &e_, __VA_ARGS__, (char *)NULL), -1);             \
        CHECK_INT(e_.code, MCT_E_ARG);                                         \
        if (strstr(e_.msg, (part)) == NULL) {                                  \
            fprintf(stderr, "%s:%d: message \"%s\" lacks \"%s\"\n", __FILE__,  \
                    __LINE__, e_.msg, (part));                                 \
            check_failures++;                                                  \
        }                                                                      \
    } while (0)

static void test_trace(void)
{
    struct cli c;
    mct_err e;

    CHECK_INT(parse(&c, &e, "123", "com.shop.Cart", "total", "3", "com\\.shop\\..*",
                    (char *)NULL), 0);
    CHECK_INT(c.mode, CLI_TRACE);
    CHECK_INT(c.pid, 123);
    CHECK_STR(c.req.cls, "com.shop.Cart");
    CHECK_STR(c.req.method, "total");
    CHECK_STR(req_desc(&c.req), "");
    CHECK_INT(c.req.depth, 3);
    CHECK_STR(c.req.regex, "com\\.shop\\..*");
    CHECK_INT(c.req.count, 0);
    CHECK(c.timeout_s == 0);
    CHECK(c.req.min_ns == 0);
    CHECK(c.slow_ms < 0);
    CHECK(c.req.fail_over_ms < 0);
    CHECK_INT(c.format, CLI_FORMAT_JSON);
    CHECK(c.output == NULL);
    CHECK(!c.req.include_jdk && !c.req.plan_only && !c.req.verbose);
    CHECK(c.agent == NULL);

    CHECK_INT(parse(&c, &e, "-n", "5", "-t", "2.5", "--min-ms", "0.5", "--slow-ms", "10",
                    "--fail-over-ms", "250", "-f", "tree", "-o", "out.txt", "--include-jdk",
                    "--plan", "-v", "--agent", "/x/libmcalltree.so", "7", "a.B$C",
                    "get(I)Ljava/lang/Object;", "64", ".*", (char *)NULL), 0);
    CHECK_INT(c.req.count, 5);
    CHECK(c.timeout_s == 2.5);
    CHECK(c.req.min_ns == 500000);
    CHECK(c.slow_ms == 10);
    CHECK(c.req.fail_over_ms == 250);
    CHECK_INT(c.format, CLI_FORMAT_TREE);
    CHECK_STR(c.output, "out.txt");
    CHECK(c.req.include_jdk && c.req.plan_only && c.req.verbose);
    CHECK_STR(c.agent, "/x/libmcalltree.so");
    CHECK_STR(c.req.cls, "a.B$C");
    CHECK_STR(c.req.method, "get");
    CHECK_STR(req_desc(&c.req), "(I)Ljava/lang/Object;");
    CHECK_INT(c.req.depth, 64);

    /* Options after the arguments, long forms with '=', "--" before a regex. */
    CHECK_INT(parse(&c, &e, "7", "a.B", "<init>", "1", "--count=3", "--format=chrome",
                    "--timeout=.5", "--", "-odd", (char *)NULL), 0);
    CHECK_INT(c.format, CLI_FORMAT_CHROME);
    CHECK_STR(c.req.regex, "-odd");
    CHECK_INT(parse(&c, &e, "--count=3", "--format=folded", "--timeout=.5", "--", "7", "a.B",
                    "<init>", "1", "-odd.*", (char *)NULL), 0);
    CHECK_INT(c.req.count, 3);
    CHECK_INT(c.format, CLI_FORMAT_FOLDED);
    CHECK(c.timeout_s == 0.5);
    CHECK_STR(c.req.method, "<init>");
    CHECK_STR(c.req.regex, "-odd.*");
    CHECK_INT(parse(&c, &e, "7", "a.B", "m", "1", "x", "--output", "-", "--min-ms", "0",
                    (char *)NULL), 0);
    CHECK_STR(c.output, "-");
}

/* Several JVMs: a pid list, --jvms; what needs one JVM. */
static void test_many(void)
{
    struct cli c;
    mct_err e;

    CHECK_INT(parse(&c, &e, "7", "a.B", "m", "1", "x", (char *)NULL), 0);
    CHECK_INT(c.n_pids, 1);
    CHECK(c.jvms == NULL);
    CHECK_INT(parse(&c, &e, "--aggregate", "1201,1305,1422", "a.B", "m", "2", "x", (char *)NULL), 0);
    CHECK_INT(c.n_pids, 3);
    CHECK_INT(c.pid, 1201);
    CHECK_INT(c.pids[1], 1305);
    CHECK_INT(c.pids[2], 1422);
    CHECK_INT(parse(&c, &e, "-f", "otlp", "--aggregate", "--jvms", "com\\.shop\\.Main", "a.B", "m", "2", "x",
                    (char *)NULL), 0);
    CHECK_STR(c.jvms, "com\\.shop\\.Main");
    CHECK_INT(c.n_pids, 0);
    CHECK_STR(c.req.cls, "a.B");
    CHECK_STR(c.req.regex, "x");
    /* a list before "--" is the attach form's pid, not a wrapped class */
    CHECK_INT(parse(&c, &e, "1,2", "a.B", "m", "1", "--", "-odd", (char *)NULL), 0);
    CHECK_INT(c.n_pids, 2);
    CHECK_STR(c.req.regex, "-odd");
    USAGE_ERROR("pid 7 is given twice in '7,8,7'", "7,8,7", "a.B", "m", "1", "x");
    USAGE_ERROR("<pid> must be a pid or a list of pids separated by commas", "7,", "a.B", "m", "1", "x");
    USAGE_ERROR("pid must be a positive integer, got '0'", "7,0", "a.B", "m", "1", "x");
    USAGE_ERROR("--interval cannot be used with several JVMs (a list of pids): give one pid", "--aggregate",
                "--interval", "1", "7,8", "a.B", "m", "1", "x");
    USAGE_ERROR("--plan cannot be used with several JVMs (--jvms)", "--plan", "--jvms", "y", "a.B", "m", "1", "x");
    USAGE_ERROR("(--jvms selects the JVMs: give no <pid>)", "--jvms", "y", "7", "a.B", "m", "1", "x");
    USAGE_ERROR("missing arguments: <class> <method> <depth> <regex>", "--jvms", "y");
    USAGE_ERROR("--jvms cannot be used with --info", "--jvms", "y", "--info", "1");
    USAGE_ERROR("--jvms cannot be used with a command (after --)", "--jvms", "y", "a.B", "m", "1", "x", "--",
                "java");
    USAGE_ERROR("--jvms needs a regex", "--jvms", "", "a.B", "m", "1", "x");
}

static void test_modes(void)
{
    struct cli c;
    mct_err e;

    CHECK_INT(parse(&c, &e, "--info", "99", (char *)NULL), 0);
    CHECK_INT(c.mode, CLI_INFO);
    CHECK_INT(c.pid, 99);
    CHECK_INT(parse(&c, &e, "-v", "--info=99", "--agent", "/a.so", (char *)NULL), 0);
    CHECK_INT(c.mode, CLI_INFO);
    CHECK(c.req.verbose);
    CHECK_INT(parse(&c, &e, "--help", (char *)NULL), 0);
    CHECK_INT(c.mode, CLI_HELP);
    CHECK_INT(parse(&c, &e, "-h", "--bogus", (char *)NULL), 0);
    CHECK_INT(c.mode, CLI_HELP);
    CHECK_INT(parse(&c, &e, "--version", (char *)NULL), 0);
    CHECK_INT(c.mode, CLI_VERSION);
    CHECK_INT(parse(&c, &e, "1", "--version", (char *)NULL), 0);
    CHECK_INT(c.mode, CLI_VERSION);
}

static void test_errors(void)
{
    USAGE_ERROR("missing arguments: <pid> <class>", "-v");
    USAGE_ERROR("--junit writes the verdicts of --max-calls, --percentile with --fail-over-ms, --budget or "
                "--max-alloc: give one", "--junit", "x.xml", "--fail-over-ms", "5", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--junit cannot be used with --plan", "--junit", "x.xml", "--plan", "--max-calls", "a.B.m=1", "1",
                "a.B", "m", "3", "x");
    USAGE_ERROR("--junit needs a file name", "--junit", "", "--max-calls", "a.B.m=1", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--junit cannot be used with --info", "--info", "1", "--junit", "x.xml");
    USAGE_ERROR("--skip-trivial cannot be used with --max-calls: a method a gate names must be traced",
                "--skip-trivial", "--max-calls", "a.B.m=1", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--skip-trivial cannot be used with --budget", "--budget", "a.B.m:p50=2", "--skip-trivial", "1",
                "a.B", "m", "3", "x");
    USAGE_ERROR("--skip-trivial cannot be used with --max-alloc", "--alloc", "--max-alloc", "a.B.m=2",
                "--skip-trivial", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("missing arguments: <method> <depth> <regex>", "1", "a.B");
    USAGE_ERROR("missing argument: <regex>", "1", "a.B", "m", "3");
    /* One argument short and the first not a number: the pid was forgotten. */
    USAGE_ERROR("missing argument: <pid> ('a.B' is not a pid); usage: mcalltree [OPTIONS] <pid> <class> "
                "<method> <depth> <regex>", "a.B", "m", "3", "x");
    USAGE_ERROR("missing argument: <pid> ('com.shop.Cart' is not a pid)", "-n", "2", "com.shop.Cart", "total",
                "2", ".*");
    USAGE_ERROR("too many arguments, starting at 'extra'", "1", "a.B", "m", "3", "x", "extra");
    USAGE_ERROR("pid must be a positive integer, got 'abc'", "abc", "a.B", "m", "3", "x");
    USAGE_ERROR("pid must be a positive integer, got '0'", "0", "a.B", "m", "3", "x");
    USAGE_ERROR("pid must be a positive integer, got '-5'", "--", "-5", "a.B", "m", "3", "x");
    USAGE_ERROR("pid must be a positive integer, got '99999999999'", "99999999999", "a.B",
                "m", "3", "x");
    USAGE_ERROR("must be written with dots", "1", "com/shop/Cart", "m", "3", "x");
    USAGE_ERROR("not a binary class name", "1", "com..Cart", "m", "3", "x");
    USAGE_ERROR("not a binary class name", "1", "[I", "m", "3", "x");
    USAGE_ERROR("'a.b' is not a method name", "1", "a.B", "a.b", "3", "x");
    USAGE_ERROR("'' is not a method name", "1", "a.B", "(I)V", "3", "x");
    USAGE_ERROR("'(I' is not a JVM method descriptor", "1", "a.B", "get(I", "3", "x");
    USAGE_ERROR("'(I)' is not a JVM method descriptor", "1", "a.B", "get(I)", "3", "x");
    USAGE_ERROR("'(Ljava.lang.String;)V' is not a JVM method descriptor", "1", "a.B",
                "get(Ljava.lang.String;)V", "3", "x");
    USAGE_ERROR("depth must be an integer from 1 to 64, got '0'", "1", "a.B", "m", "0", "x");
    USAGE_ERROR("depth must be an integer from 1 to 64, got '65'", "1", "a.B", "m", "65", "x");
    USAGE_ERROR("depth must be an integer from 1 to 64, got '3x'", "1", "a.B", "m", "3x", "x");
    USAGE_ERROR("regex must not be empty", "1", "a.B", "m", "3", "");
    USAGE_ERROR("--count must be a positive integer, got '0'", "-n", "0", "1", "a.B", "m",
                "3", "x");
    USAGE_ERROR("--count must be a positive integer, got '-1'", "--count=-1", "1", "a.B", "m",
                "3", "x");
    USAGE_ERROR("--timeout must be a positive number of seconds, got '0'", "-t", "0", "1",
                "a.B", "m", "3", "x");
    USAGE_ERROR("--timeout must be a positive number of seconds, got 'inf'", "-t", "inf",
                "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--timeout must be a positive number of seconds, got '1e3'", "-t", "1e3",
                "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--min-ms must be a number of milliseconds >= 0, got '-2'", "--min-ms=-2",
                "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--slow-ms must be a number of milliseconds >= 0, got 'fast'", "--slow-ms",
                "fast", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--fail-over-ms must be a number of milliseconds >= 0, got '.'",
                "--fail-over-ms", ".", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("unknown format 'xml'", "-f", "xml", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--output needs a file name", "-o", "", "1", "a.B", "m", "3", "x");
    /* the exporters' options go with their format */
    USAGE_ERROR("--otlp-endpoint needs -f otlp", "--otlp-endpoint", "http://h:4318", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--clickhouse needs -f rows", "-f", "otlp", "--clickhouse", "http://h:8123", "1", "a.B", "m",
                "3", "x");
    USAGE_ERROR("--service needs -f otlp", "--service", "shop", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--otlp-endpoint needs an http:// or https:// URL, not 'h:4318'", "-f", "otlp",
                "--otlp-endpoint", "h:4318", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("-o cannot be used with --clickhouse", "-f", "rows", "--clickhouse", "http://h", "-o", "f",
                "1", "a.B", "m", "3", "x");
    USAGE_ERROR("-f rows cannot be used with --aggregate", "-f", "rows", "--aggregate", "1", "a.B", "m", "3",
                "x");
    USAGE_ERROR("--plan cannot be used with -f rows", "-f", "rows", "--plan", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--service cannot be used with --info", "--service", "s", "--info", "1");
    USAGE_ERROR("option -n needs a value", "1", "a.B", "m", "3", "x", "-n");
    USAGE_ERROR("option --timeout needs a value", "1", "a.B", "m", "3", "x", "--timeout");
    USAGE_ERROR("unknown option -q", "-q", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("unknown option --frobnicate", "--frobnicate", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("unknown option -x", "--plan", "-vx", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("unknown option -:", "-:", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("option --plan takes no value", "--plan=3", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("option --verbose takes no value", "--verbose=1", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("option -n needs a value", "1", "a.B", "m", "3", "x", "-vn");
    USAGE_ERROR("option --count needs a value", "1", "a.B", "m", "3", "x", "--count");
    USAGE_ERROR("ambiguous", "--in", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--count cannot be used with --info", "--info", "5", "-n", "3");
    USAGE_ERROR("--plan cannot be used with --info", "--plan", "--info", "5");
    /* The options that need --aggregate, or that it excludes. */
    USAGE_ERROR("--interval needs --aggregate", "--interval", "1", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--slowest needs --aggregate", "--slowest", "1", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--include-warmup needs --aggregate or a gate (--fail-over-ms, --max-calls, --budget): calls "
                "are printed either way, warm-up ones marked \"warmup\":true", "--include-warmup", "1", "a.B", "m",
                "3", "x");
    USAGE_ERROR("--include-warmup needs --aggregate or a gate", "--include-warmup", "a.B", "m", "3", "x", "--",
                "java");
    USAGE_ERROR("--slowest must be an integer from 0 to 1000, got '1001'", "--aggregate", "--slowest",
                "1001", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--interval must be a number of seconds of at least 0.001, got '0.0001'", "--aggregate",
                "--interval", "0.0001", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("-f chrome cannot be used with --aggregate", "--aggregate", "-f", "chrome", "1", "a.B",
                "m", "3", "x");
    USAGE_ERROR("--min-ms cannot be used with --aggregate", "--aggregate", "--min-ms", "1", "1", "a.B",
                "m", "3", "x");
    USAGE_ERROR("--plan cannot be used with --aggregate", "--aggregate", "--plan", "1", "a.B", "m", "3",
                "x");
    USAGE_ERROR("--aggregate cannot be used with --info", "--aggregate", "--info", "5");
    USAGE_ERROR("--percentile 95 cannot be used with --aggregate: a summary carries p50, p90, p99",
                "--aggregate", "--percentile", "95", "--fail-over-ms", "5", "1", "a.B", "m", "3", "x");
    /* The wrap form checks the same combinations before COMMAND runs. */
    USAGE_ERROR("--percentile needs --fail-over-ms", "--percentile", "95", "a.B", "m", "3", "x", "--", "java");
    USAGE_ERROR("--percentile 95 cannot be used with --aggregate", "--aggregate", "--percentile", "95",
                "--fail-over-ms", "5", "a.B", "m", "3", "x", "--", "java");
    USAGE_ERROR("-f chrome cannot be used with --aggregate", "--aggregate", "-f", "chrome", "a.B", "m", "3", "x",
                "--", "java");
    USAGE_ERROR("--max-calls cannot be used with --min-ms", "--max-calls", "a.B.c=1", "--min-ms", "3", "a.B", "m",
                "3", "x", "--", "java");
    USAGE_ERROR("--interval needs --aggregate", "--interval", "1", "a.B", "m", "3", "x", "--", "java");
    USAGE_ERROR("--info takes only a pid, not 'a.B'", "--info", "5", "a.B");
    USAGE_ERROR("pid must be a positive integer, got 'me'", "--info", "me");
    USAGE_ERROR("--agent needs the path", "--agent=", "--info", "5");
}

/* --max-calls, --percentile, --budget: what they hold, and each usage error. */
static void test_gates(void)
{
    struct cli c;
    mct_err e;

    CHECK_INT(parse(&c, &e, "1", "a.B", "m", "3", "x", (char *)NULL), 0);
    CHECK_INT(c.req.max_calls.n, 0);
    CHECK_INT(c.req.budgets.n, 0);
    CHECK(c.req.percentile == 0);
    CHECK_INT(parse(&c, &e, "--max-calls", "com.x.Repo.find=1", "--max-calls=a.B$C.<init>(IJ)V=0",
                    "--percentile", "99.9", "--fail-over-ms", "20", "--budget", "com.x.Repo.find:p99=2.5",
                    "--budget=a.B.m(Ljava/lang/String;)V:max=0", "1", "a.B", "m", "3", "x", (char *)NULL), 0);
    CHECK_INT(c.req.max_calls.n, 2);
    CHECK_STR(c.req.max_calls.item[0].arg, "com.x.Repo.find=1");
    CHECK_INT(c.req.max_calls.item[0].name.class_len, 10);
    CHECK(strncmp(c.req.max_calls.item[0].name.class_name, "com.x.Repo", 10) == 0);
    CHECK_INT(c.req.max_calls.item[0].name.method_len, 4);
    CHECK(strncmp(c.req.max_calls.item[0].name.method, "find", 4) == 0);
    CHECK_INT(c.req.max_calls.item[0].name.desc_len, 0);
    CHECK_INT(c.req.max_calls.item[0].n, 1);
    CHECK_INT(c.req.max_calls.item[1].name.class_len, 5);
    CHECK(strncmp(c.req.max_calls.item[1].name.method, "<init>", 6) == 0 && c.req.max_calls.item[1].name.method_len == 6);
    CHECK(strncmp(c.req.max_calls.item[1].name.desc, "(IJ)V", 5) == 0 && c.req.max_calls.item[1].name.desc_len == 5);
    CHECK_INT(c.req.max_calls.item[1].n, 0);
    CHECK(c.req.percentile == 99.9);
    CHECK(c.req.fail_over_ms == 20);
    CHECK_INT(c.req.budgets.n, 2);
    CHECK_INT(c.req.budgets.item[0].stat, GATES_STAT_P99);
    CHECK(c.req.budgets.item[0].ms == 2.5);
    CHECK_INT(c.req.budgets.item[0].name.method_len, 4);
    CHECK_INT(c.req.budgets.item[1].stat, GATES_STAT_MAX);
    CHECK(c.req.budgets.item[1].ms == 0);
    CHECK_INT(c.req.budgets.item[1].name.desc_len, 21);
    CHECK_INT(parse(&c, &e, "--percentile", "100", "--fail-over-ms", "1", "--budget", "a.B.m:p50=1",
                    "--budget", "a.B.m:p90=1", "1", "a.B", "m", "3", "x", (char *)NULL), 0);
    CHECK(c.req.percentile == 100);
    CHECK_INT(c.req.budgets.item[0].stat, GATES_STAT_P50);
    CHECK_INT(c.req.budgets.item[1].stat, GATES_STAT_P90);

    USAGE_ERROR("--max-calls takes CLASS.METHOD=N (com.shop.Repo.find=1), got 'a.B.m'", "--max-calls",
                "a.B.m", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--max-calls a.B.m=-1: N must be an integer >= 0 (calls in one entry call), got '-1'",
                "--max-calls", "a.B.m=-1", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--max-calls a.B.m=: N must be an integer >= 0", "--max-calls", "a.B.m=", "1", "a.B", "m",
                "3", "x");
    USAGE_ERROR("--max-calls a.B.m=1.5: N must be an integer >= 0", "--max-calls", "a.B.m=1.5", "1", "a.B",
                "m", "3", "x");
    USAGE_ERROR("--max-calls: 'find' is not CLASS.METHOD", "--max-calls", "find=1", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--max-calls: '.find' is not CLASS.METHOD", "--max-calls", ".find=1", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--max-calls: 'a..B' is not a binary class name", "--max-calls", "a..B.m=1", "1", "a.B", "m",
                "3", "x");
    USAGE_ERROR("--max-calls: 'com/x/Repo' is not a binary class name", "--max-calls", "com/x/Repo.find=1",
                "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--max-calls: '' is not a method name", "--max-calls", "a.B.=1", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--max-calls: '(I' is not a JVM method descriptor", "--max-calls", "a.B.m(I=1", "1", "a.B",
                "m", "3", "x");
    USAGE_ERROR("--percentile must be a number over 0 and at most 100, got '0'", "--percentile", "0",
                "--fail-over-ms", "5", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--percentile must be a number over 0 and at most 100, got '101'", "--percentile", "101",
                "--fail-over-ms", "5", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--percentile must be a number over 0 and at most 100, got '-5'", "--percentile=-5",
                "--fail-over-ms", "5", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--percentile must be a number over 0 and at most 100, got 'p99'", "--percentile", "p99",
                "--fail-over-ms", "5", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--percentile needs --fail-over-ms MS", "--percentile", "50", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--budget takes CLASS.METHOD:STAT=MS (com.shop.Repo.find:p99=20), got 'a.B.m=3'", "--budget",
                "a.B.m=3", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--budget takes CLASS.METHOD:STAT=MS", "--budget", "a.B.m:p99", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--budget a.B.m:p95=3: 'p95' is not p50, p90, p99 or max", "--budget", "a.B.m:p95=3", "1",
                "a.B", "m", "3", "x");
    USAGE_ERROR("--budget a.B.m:=3: '' is not p50, p90, p99 or max", "--budget", "a.B.m:=3", "1", "a.B", "m",
                "3", "x");
    USAGE_ERROR("--budget a.B.m:p99=-1: the budget must be a number of milliseconds >= 0, got '-1'",
                "--budget", "a.B.m:p99=-1", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--budget a.B.m:cpu_p90=3 needs --cpu: without it the calls carry no CPU times", "--budget",
                "a.B.m:cpu_p90=3", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--max-alloc a.B.m=4096 needs --alloc: without it the calls carry no allocations",
                "--aggregate", "--max-alloc", "a.B.m=4096", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--max-alloc a.B.m=4k: BYTES must be an integer >= 0", "--alloc", "--max-alloc", "a.B.m=4k", "1",
                "a.B", "m", "3", "x");
    USAGE_ERROR("--max-alloc cannot be used with --min-ms", "--alloc", "--max-alloc", "a.B.m=1", "--min-ms", "1",
                "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--budget: '' is not a method name", "--budget", "B.:p99=1", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--max-calls cannot be used with --min-ms", "--max-calls", "a.B.m=1", "--min-ms", "2", "1",
                "a.B", "m", "3", "x");
    USAGE_ERROR("--budget cannot be used with --min-ms", "--min-ms", "2", "--budget", "a.B.m:max=1", "1",
                "a.B", "m", "3", "x");
    USAGE_ERROR("--max-calls cannot be used with --info", "--max-calls", "a.B.m=1", "--info", "5");
    USAGE_ERROR("--percentile cannot be used with --info", "--info", "5", "--percentile", "50");
    {
        char *argv[2 * CLI_GATES_MAX + 10];
        int argc = 0;

        argv[argc++] = "mcalltree";
        for (int i = 0; i <= CLI_GATES_MAX; i++) {
            argv[argc++] = "--max-calls";
            argv[argc++] = "a.B.m=1";
        }
        argv[argc++] = "1";
        argv[argc++] = "a.B";
        argv[argc++] = "m";
        argv[argc++] = "3";
        argv[argc++] = "x";
        argv[argc] = NULL;
        CHECK_INT(cli_parse(argc, argv, &c, &e), -1);
        CHECK_STR(e.msg, "--max-calls: at most 64 of them");
    }
}

static void test_usage_text(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    cli_usage(f);
    fclose(f);
    CHECK(strstr(buf, "Usage: mcalltree [OPTIONS] <pid> <class> <method> <depth> <regex>") != NULL);
    CHECK(strstr(buf, "--fail-over-ms") != NULL);
    CHECK(strstr(buf, "--info PID") != NULL);
    CHECK(strstr(buf, "--max-calls CLASS.METHOD=N") != NULL);
    CHECK(strstr(buf, "--percentile P") != NULL);
    CHECK(strstr(buf, "--budget CLASS.METHOD:STAT=MS") != NULL);
    free(buf);
}

/* --aggregate, --interval, --slowest. */
static void test_aggregate(void)
{
    struct cli c;
    mct_err e;

    CHECK_INT(parse(&c, &e, "--aggregate", "--interval", "0.25", "--slowest", "1000", "-f", "folded",
                    "1", "a.B", "m", "3", "x", (char *)NULL), 0);
    CHECK(c.req.aggregate && c.req.interval_ms == 250 && c.req.slowest == 1000);
    CHECK_INT(parse(&c, &e, "1", "a.B", "m", "3", "x", (char *)NULL), 0);
    CHECK(!c.req.aggregate && c.req.interval_ms == -1 && c.req.slowest == -1);
}

/* --sample N: 1..1000000000, with or without --aggregate. */
static void test_sample(void)
{
    struct cli c;
    mct_err e;

    CHECK_INT(parse(&c, &e, "--sample", "10", "1", "a.B", "m", "3", "x", (char *)NULL), 0);
    CHECK(c.req.sample == 10);
    CHECK_INT(parse(&c, &e, "--aggregate", "--sample=1000000000", "1", "a.B", "m", "3", "x", (char *)NULL), 0);
    CHECK(c.req.sample == 1000000000 && c.req.aggregate);
    CHECK_INT(parse(&c, &e, "1", "a.B", "m", "3", "x", (char *)NULL), 0);
    CHECK(c.req.sample == -1);
    USAGE_ERROR("--sample must be an integer from 1 (every call) to 1000000000, got '0'", "--sample", "0", "1",
                "a.B", "m", "3", "x");
    USAGE_ERROR("--sample must be an integer from 1 (every call) to 1000000000, got '-5'", "--sample", "-5", "1",
                "a.B", "m", "3", "x");
    USAGE_ERROR("--sample must be an integer from 1 (every call) to 1000000000, got 'ten'", "--sample", "ten",
                "1", "a.B", "m", "3", "x");
    USAGE_ERROR("--sample must be an integer from 1 (every call) to 1000000000, got '1000000001'", "--sample",
                "1000000001", "1", "a.B", "m", "3", "x");
    USAGE_ERROR("option --sample needs a value", "1", "a.B", "m", "3", "x", "--sample");
}

int main(void)
{
    test_trace();
    test_modes();
    test_many();
    test_errors();
    test_gates();
    test_aggregate();
    test_sample();
    test_usage_text();
    return check_status();
}
