/* cli.c — see cli.h. */
#include "cli.h"

#include <getopt.h>
#include <limits.h>
#include <string.h>

#include "num.h"
#include "proto.h"

/* getopt values: the command line's own options past the short ones; a
 * request row's option (one without a short form) is OPT_ROW + its row. */
enum {
    OPT_SLOW_MS = 256,
    OPT_INFO,
    OPT_AGENT,
    OPT_HELP,
    OPT_VERSION,
    OPT_OTLP_ENDPOINT,
    OPT_CLICKHOUSE,
    OPT_SERVICE,
    OPT_FOLDED_VALUE,
    OPT_JVMS,
    OPT_JUNIT,
    OPT_ROW = 512
};

/* The command line's own options; the request's (REQ_CLI rows) follow. */
static const struct option own_options[] = {
    { "timeout", required_argument, NULL, 't' },
    { "slow-ms", required_argument, NULL, OPT_SLOW_MS },
    { "format", required_argument, NULL, 'f' },
    { "output", required_argument, NULL, 'o' },
    { "info", required_argument, NULL, OPT_INFO },
    { "agent", required_argument, NULL, OPT_AGENT },
    { "help", no_argument, NULL, OPT_HELP },
    { "version", no_argument, NULL, OPT_VERSION },
    { "otlp-endpoint", required_argument, NULL, OPT_OTLP_ENDPOINT },
    { "clickhouse", required_argument, NULL, OPT_CLICKHOUSE },
    { "service", required_argument, NULL, OPT_SERVICE },
    { "folded-value", required_argument, NULL, OPT_FOLDED_VALUE },
    { "jvms", required_argument, NULL, OPT_JVMS },
    { "junit", required_argument, NULL, OPT_JUNIT },
};

#define OWN_COUNT (sizeof own_options / sizeof own_options[0])

/* own_options, then the REQ_CLI rows; filled by fill_options. */
static struct option long_options[OWN_COUNT + REQ_ROWS + 1];

static const char short_options[] = ":n:t:f:o:vh";

static const char *const format_names[] = {
    [CLI_FORMAT_JSON] = "json",
    [CLI_FORMAT_TREE] = "tree",
    [CLI_FORMAT_CHROME] = "chrome",
    [CLI_FORMAT_FOLDED] = "folded",
    [CLI_FORMAT_HTML] = "html",
    [CLI_FORMAT_OTLP] = "otlp",
    [CLI_FORMAT_ROWS] = "rows",
};

/* long_options from own_options and the request's rows. */
static void fill_options(void)
{
    size_t n = OWN_COUNT;

    memcpy(long_options, own_options, sizeof own_options);
    for (size_t i = 0; i < REQ_ROWS; i++) {
        const struct req_field *f = &req_fields[i];

        if (!(f->where & REQ_CLI))
            continue;
        long_options[n++] = (struct option){ f->option, f->type == REQ_BOOL ? no_argument : required_argument, NULL,
                                             f->short_name != 0 ? f->short_name : OPT_ROW + (int)i };
    }
    long_options[n] = (struct option){ NULL, 0, NULL, 0 };
}

/* The request row of getopt's value opt, or NULL. */
static const struct req_field *row_of(int opt)
{
    if (opt >= OPT_ROW && opt < OPT_ROW + REQ_ROWS)
        return &req_fields[opt - OPT_ROW];
    for (size_t i = 0; i < REQ_ROWS; i++)
        if (req_fields[i].short_name != 0 && req_fields[i].short_name == opt)
            return &req_fields[i];
    return NULL;
}

void cli_usage(FILE *f)
{
    fputs("Usage: mcalltree [OPTIONS] <pid> <class> <method> <depth> <regex>\n"
          "       mcalltree [OPTIONS] <class> <method> <depth> <regex> -- COMMAND [ARGS...]\n"
          "       mcalltree --info <pid>\n"
          "\n"
          "Prints a JSON call tree for every completed call of one Java method in a\n"
          "running JVM, following calls <depth> levels deep into classes matching <regex>.\n"
          "With -- COMMAND, runs COMMAND with the agent loaded at the start of every JVM\n"
          "it starts (through JAVA_TOOL_OPTIONS) and traces them from their first call;\n"
          "each object written gets the JVM's \"pid\" (-f tree: a \"pid N\" line).\n"
          "\n"
          "  <pid>     the JVM's process id, as this shell sees it (containers work),\n"
          "            or a list of them (1201,1305,1422): each JVM gets the request,\n"
          "            each object written its JVM's \"pid\" and \"host\", and\n"
          "            --aggregate's summary and the gates are of all of them merged\n"
          "  <class>   binary class name with dots: com.shop.Cart$Line\n"
          "  <method>  a method name (every overload), or a name with its JVM\n"
          "            descriptor for one overload: 'get(I)Ljava/lang/Object;'\n"
          "  <depth>   call levels to trace, 1 = the method itself, at most 64\n"
          "  <regex>   Java regex on the class names of callees: 'com\\.shop\\..*'\n"
          "\n"
          "Options:\n"
          "  -n, --count N         stop after N calls were printed; with --percentile\n"
          "                        or --budget, after N calls they judged (warm-up\n"
          "                        calls left out unless --include-warmup)\n"
          "  -t, --timeout SEC     stop after SEC seconds (Ctrl-C also stops)\n"
          "      --min-ms MS       print only calls that took at least MS ms\n"
          "  -f, --format FMT      json (default), tree, chrome, folded, html (one page),\n"
          "                        otlp (OTLP/HTTP JSON traces) or rows (ClickHouse)\n"
          "      --otlp-endpoint URL  -f otlp: POST to URL/v1/traces instead of writing\n"
          "                        (--aggregate: the summaries' histograms to\n"
          "                        URL/v1/metrics)\n"
          "      --service NAME    -f otlp: service.name (default: the JVM's main class or jar)\n"
          "      --clickhouse URL  -f rows: insert into mcalltree.nodes over ClickHouse's\n"
          "                        HTTP interface at URL instead of writing\n"
          "      --slow-ms MS      tree: highlight calls that took at least MS ms\n"
          "      --folded-value V  folded: each stack's self time (wall, the default),\n"
          "                        CPU time (cpu, with --cpu) or bytes allocated\n"
          "                        (alloc, with --alloc)\n"
          "  -o, --output FILE     write there instead of stdout\n"
          "      --include-jdk     also trace into classes of the JDK\n"
          "      --skip-trivial    leave trivial methods as they are (getters, setters:\n"
          "                        short leaves that call, loop, allocate and lock\n"
          "                        nothing): their time is their caller's, and a\n"
          "                        server's request has about half the calls to record\n"
          "      --plan            print the methods that would be instrumented and exit\n"
          "      --fail-over-ms MS exit with status 4 if a printed call took longer,\n"
          "                        or if no call was printed\n"
          "      --max-calls CLASS.METHOD=N\n"
          "                        exit with status 4 if one entry call called the\n"
          "                        method more than N times (repeatable; METHOD may\n"
          "                        carry its descriptor: 'find(J)Lcom/x/Row;')\n"
          "      --percentile P    with --fail-over-ms: judge the P-th percentile\n"
          "                        (0 < P <= 100) of the calls' durations instead\n"
          "                        of every single call\n"
          "      --budget CLASS.METHOD:STAT=MS\n"
          "                        exit with status 4 if the method's time within one\n"
          "                        entry call, at STAT (p50, p90, p99 or max), is over\n"
          "                        MS ms at any of its call paths (repeatable); its\n"
          "                        CPU time with --cpu: cpu_p50, cpu_p90, cpu_p99, cpu_max\n"
          "      --max-alloc CLASS.METHOD=BYTES\n"
          "                        with --alloc: exit with status 4 if the method\n"
          "                        allocated more than BYTES within one entry call at\n"
          "                        any of its call paths (repeatable)\n"
          "      --junit FILE      also write each gate's verdict (--max-calls,\n"
          "                        --percentile, --budget, --max-alloc) as a JUnit\n"
          "                        XML test case\n"
          "      --min-calls N     the calls enough to judge --percentile or a\n"
          "                        --budget at p50/p90/p99; without it, fewer than\n"
          "                        100/(100-P) calls (100 for P 99) fail the gate\n"
          "      --aggregate       one summary tree of all calls (counts per call,\n"
          "                        p50/p90/p99) instead of a tree per call\n"
          "      --interval SEC    with --aggregate: also a summary of the calls of\n"
          "                        every SEC seconds\n"
          "      --slowest K       with --aggregate: keep the K slowest calls whole\n"
          "                        in each summary (0..1000)\n"
          "      --sample N        trace one entry call in N (each thread counts its own)\n"
          "      --cpu             each node's CPU time too (cpu_ns; wait_ns is the rest;\n"
          "                        with --aggregate, its percentiles per entry call)\n"
          "      --alloc           each node's bytes allocated too (alloc_bytes; with\n"
          "                        --aggregate, its percentiles per entry call)\n"
          "      --follow-async    trace tasks handed to executors and *Async stages\n"
          "                        on the threads that run them, under the node that\n"
          "                        handed them off (\"async\":true)\n"
          "      --async-wait MS   how long a call waits for its tasks (default 2000)\n"
          "      --args            the entry method's arguments on each call printed or kept\n"
          "                        (args: primitives, Strings cut, enums by name, null, else\n"
          "                        class and identity hash; no method of theirs is called)\n"
          "      --args-len N      characters of a String argument kept (1..1024, default 64)\n"
          "      --trace-context SRC  each call a child of the W3C trace context on its\n"
          "                        thread at its start (trace_parent): SRC is CLASS.FIELD,\n"
          "                        a static ThreadLocal holding a traceparent String or an\n"
          "                        OpenTelemetry Context, or 'otel' (the OpenTelemetry API's)\n"
          "      --include-warmup  --aggregate and the gates also count warm-up calls\n"
          "                        (\"warmup\":true: begun before the JIT compiled the\n"
          "                        instrumented methods again), left out by default\n"
          "  -v, --verbose         progress on stderr\n"
          "      --jvms REGEX      in place of <pid>: the local JVMs this user may attach\n"
          "                        to whose main class or jar (as jps -l names them)\n"
          "                        matches REGEX (POSIX extended, the whole name)\n"
          "      --info PID        print the agent's hello (JVM, agent, session) as JSON\n"
          "      --agent PATH      the agent library to load (default: $MCALLTREE_AGENT,\n"
          "                        else the build tree's, else the installed one)\n"
          "      --wait            when the class is not loaded yet, wait for it to load\n"
          "  -h, --help            this text\n"
          "      --version         the version\n"
          "\n"
          "Exit status: 0 done, 1 usage error, 2 cannot attach or connect, 3 the JVM\n"
          "refused the request, 4 a gate failed (--fail-over-ms, --max-calls, --budget,\n"
          "--max-alloc) "
          "or no call to judge, 5 internal or protocol error.\n"
          "With -- COMMAND: COMMAND's status (128+N when signal N killed it; 127 when it\n"
          "is not found, 126 when it cannot be run); if that is 0: 4 when a gate failed,\n"
          "5 when a JVM's trace could not be read or written; 1 or 2 when nothing ran\n"
          "(usage error, no agent library).\n",
          f);
}

/* ---- values ------------------------------------------------------------- */

static int parse_pid(const char *s, pid_t *pid, mct_err *e)
{
    long long v;

    if (num_int(s, 1, INT_MAX, &v) < 0)
        return mct_err_set(e, MCT_E_ARG, "pid must be a positive integer, got '%.64s'", s);
    *pid = (pid_t)v;
    return 0;
}

/* The <pid> position: one pid, or a list "1201,1305,1422" (each JVM gets
 * the same request), into c->pids; c->pid is the first. */
static int parse_pids(const char *s, struct cli *c, mct_err *e)
{
    char one[32];

    for (const char *p = s;; p++) {
        size_t len = strcspn(p, ",");

        if (len == 0 || len >= sizeof one)
            return mct_err_set(e, MCT_E_ARG, "<pid> must be a pid or a list of pids separated by commas "
                               "(1201,1305), got '%.64s'", s);
        if (c->n_pids == CLI_PIDS_MAX)
            return mct_err_set(e, MCT_E_ARG, "more than %d pids in '%.64s...'", CLI_PIDS_MAX, s);
        memcpy(one, p, len);
        one[len] = '\0';
        if (parse_pid(one, &c->pids[c->n_pids], e) < 0)
            return -1;
        for (size_t i = 0; i < c->n_pids; i++)
            if (c->pids[i] == c->pids[c->n_pids])
                return mct_err_set(e, MCT_E_ARG, "pid %s is given twice in '%.64s'", one, s);
        c->n_pids++;
        p += len;
        if (*p == '\0')
            break;
    }
    c->pid = c->pids[0];
    return 0;
}

static int parse_class(const char *s, struct cli *c, mct_err *e)
{
    if (strlen(s) > REQ_NAME_MAX || !proto_utf8_valid(s, strlen(s)))
        return mct_err_set(e, MCT_E_ARG, "class name is longer than %d bytes or not UTF-8",
                           REQ_NAME_MAX);
    if (strchr(s, '/') != NULL && strchr(s, '.') == NULL)
        return mct_err_set(e, MCT_E_ARG, "class '%.200s' must be written with dots "
                           "(com.shop.Cart), not slashes", s);
    if (!proto_class_name_valid(s))
        return mct_err_set(e, MCT_E_ARG, "'%.200s' is not a binary class name such as "
                           "com.shop.Cart$Line", s);
    c->req.cls = s;
    return 0;
}

/* Splits "name" or "name(desc)ret" into the request's method (kept in
 * c->method_text) and desc (borrowed from s). */
static int parse_method(const char *s, struct cli *c, mct_err *e)
{
    const char *paren = strchr(s, '(');
    size_t name_len = paren != NULL ? (size_t)(paren - s) : strlen(s);

    if (!proto_utf8_valid(s, strlen(s)))
        return mct_err_set(e, MCT_E_ARG, "method is not valid UTF-8");
    if (name_len > REQ_NAME_MAX || (paren != NULL && strlen(paren) > REQ_NAME_MAX))
        return mct_err_set(e, MCT_E_ARG, "method name or descriptor is longer than %d bytes",
                           REQ_NAME_MAX);
    memcpy(c->method_text, s, name_len);
    c->method_text[name_len] = '\0';
    c->req.method = c->method_text;
    c->req.desc = paren;
    if (!proto_method_name_valid(c->method_text))
        return mct_err_set(e, MCT_E_ARG, "'%.200s' is not a method name (give a name such as "
                           "total, <init>, or a name with a descriptor: get(I)J)", c->method_text);
    if (paren != NULL && !proto_method_desc_valid(paren))
        return mct_err_set(e, MCT_E_ARG, "'%.200s' is not a JVM method descriptor such as "
                           "(ILjava/lang/String;)V", paren);
    return 0;
}

static int parse_regex(const char *s, struct cli *c, mct_err *e)
{
    const long long max = req_fields[REQ_ROW_regex].max;

    if (*s == '\0')
        return mct_err_set(e, MCT_E_ARG, "regex must not be empty (use '.*' for every class)");
    if ((long long)strlen(s) > max || !proto_utf8_valid(s, strlen(s)))
        return mct_err_set(e, MCT_E_ARG, "regex is longer than %lld bytes or not UTF-8", max);
    c->req.regex = s;
    return 0;
}

static int parse_format(const char *s, struct cli *c, mct_err *e)
{
    for (size_t i = 0; i < sizeof format_names / sizeof format_names[0]; i++) {
        if (strcmp(s, format_names[i]) == 0) {
            c->format = (enum cli_format)i;
            c->format_given = 1;
            return 0;
        }
    }
    return mct_err_set(e, MCT_E_ARG, "unknown format '%.64s' (json, tree, chrome, folded, html, otlp or rows)", s);
}

/* ---- the command line --------------------------------------------------- */

/* The command line's own options that only make sense for a trace; they
 * are errors with --info, as the request's options are. */
enum {
    GIVEN_TIMEOUT = 1 << 0,
    GIVEN_SLOW_MS = 1 << 1,
    GIVEN_FORMAT = 1 << 2,
    GIVEN_OUTPUT = 1 << 3,
    GIVEN_EXPORT = 1 << 4,
    GIVEN_FOLDED_VALUE = 1 << 5,
    GIVEN_JUNIT = 1 << 6
};

static const char *const given_names[] = { "--timeout", "--slow-ms", "--format", "--output",
                                           "--otlp-endpoint, --clickhouse or --service", "--folded-value",
                                           "--junit" };

/* The long name of the option whose getopt value is val, or NULL. */
static const char *long_name(int val)
{
    for (const struct option *o = long_options; o->name != NULL; o++)
        if (o->val == val)
            return o->name;
    return NULL;
}

/* The message for getopt's error opt ('?' or ':'). getopt_long sets optopt
 * to 0 for an unknown long option, to the option's value otherwise; an
 * unknown short option may sit inside a cluster (-vx), so its own argument
 * is not at hand. */
static int option_error(int opt, char **argv, mct_err *e)
{
    const char *arg = argv[optind - 1];
    const char *name = long_name(optopt);
    int known_short = optopt > 0 && optopt < 256 && optopt != ':' && strchr(short_options, optopt) != NULL;

    if (opt == ':' && name != NULL && (optopt >= 256 || strncmp(arg, "--", 2) == 0))
        return mct_err_set(e, MCT_E_ARG, "option --%s needs a value", name);
    if (opt == ':')
        return mct_err_set(e, MCT_E_ARG, "option -%c needs a value", optopt);
    if (optopt == 0)
        return mct_err_set(e, MCT_E_ARG, "unknown option %.64s (or an ambiguous abbreviation)", arg);
    if (name != NULL && (optopt >= 256 || known_short))
        return mct_err_set(e, MCT_E_ARG, "option --%s takes no value", name);
    return mct_err_set(e, MCT_E_ARG, "unknown option -%c", optopt);
}

/* Applies one option; 1 when it ends parsing (--help, --version), 0 to go
 * on, -1 with e set. */
static int apply_option(int opt, const char *arg, struct cli *c, unsigned *given, mct_err *e)
{
    const struct req_field *f = row_of(opt);

    if (f != NULL)
        return req_set(f, arg, REQ_FORM_CLI, &c->req, e);
    switch (opt) {
    case 't':
        *given |= GIVEN_TIMEOUT;
        if (num_decimal(arg, NUM_DECIMAL_MAX, &c->timeout_s) < 0 || c->timeout_s <= 0)
            return mct_err_set(e, MCT_E_ARG, "--timeout must be a positive number of seconds, "
                               "got '%.64s'", arg);
        return 0;
    case OPT_SLOW_MS:
        *given |= GIVEN_SLOW_MS;
        return gates_parse_ms("--", "slow-ms", arg, &c->slow_ms, e);
    case 'f':
        *given |= GIVEN_FORMAT;
        return parse_format(arg, c, e);
    case 'o':
        *given |= GIVEN_OUTPUT;
        if (*arg == '\0')
            return mct_err_set(e, MCT_E_ARG, "--output needs a file name");
        c->output = arg;
        return 0;
    case OPT_JUNIT:
        *given |= GIVEN_JUNIT;
        if (*arg == '\0')
            return mct_err_set(e, MCT_E_ARG, "--junit needs a file name");
        c->junit = arg;
        return 0;
    case OPT_FOLDED_VALUE:
        *given |= GIVEN_FOLDED_VALUE;
        if (strcmp(arg, "wall") == 0)
            c->folded_value = OUT_VALUE_WALL;
        else if (strcmp(arg, "cpu") == 0)
            c->folded_value = OUT_VALUE_CPU;
        else if (strcmp(arg, "alloc") == 0)
            c->folded_value = OUT_VALUE_ALLOC;
        else
            return mct_err_set(e, MCT_E_ARG, "--folded-value must be wall, cpu or alloc, got '%.64s'", arg);
        return 0;
    case OPT_INFO:
        c->mode = CLI_INFO;
        return parse_pid(arg, &c->pid, e);
    case OPT_AGENT:
        if (*arg == '\0')
            return mct_err_set(e, MCT_E_ARG, "--agent needs the path of libmcalltree.so");
        c->agent = arg;
        return 0;
    case OPT_OTLP_ENDPOINT:
    case OPT_CLICKHOUSE:
        *given |= GIVEN_EXPORT;
        if (strncmp(arg, "http://", 7) != 0 && strncmp(arg, "https://", 8) != 0)
            return mct_err_set(e, MCT_E_ARG, "--%s needs an http:// or https:// URL, not '%.64s'",
                               opt == OPT_CLICKHOUSE ? "clickhouse" : "otlp-endpoint", arg);
        *(opt == OPT_CLICKHOUSE ? &c->clickhouse : &c->otlp_endpoint) = arg;
        return 0;
    case OPT_JVMS:
        if (*arg == '\0')
            return mct_err_set(e, MCT_E_ARG, "--jvms needs a regex of main classes or jars (as jps -l names them)");
        c->jvms = arg;
        return 0;
    case OPT_SERVICE:
        *given |= GIVEN_EXPORT;
        if (*arg == '\0')
            return mct_err_set(e, MCT_E_ARG, "--service needs a name");
        c->service = arg;
        return 0;
    case 'h':
    case OPT_HELP:
        c->mode = CLI_HELP;
        return 1;
    case OPT_VERSION:
        c->mode = CLI_VERSION;
        return 1;
    }
    return mct_err_set(e, MCT_E_ARG, "unhandled option %d", opt);
}

/* Whether the option at arg (a word of argv starting with '-') takes its
 * value from the next word, as getopt_long reads it: a short option
 * needing a value at the end of its cluster, or a long option (a unique
 * abbreviation too) needing one and written without '='. */
static int takes_next(const char *arg)
{
    const struct option *hit = NULL;
    size_t len;

    if (arg[1] != '-') {
        for (const char *p = arg + 1; *p != '\0'; p++) {
            const char *o = *p != ':' ? strchr(short_options, *p) : NULL;

            if (o != NULL && o[1] == ':')
                return p[1] == '\0';
        }
        return 0;
    }
    if (strchr(arg, '=') != NULL)
        return 0;
    len = strlen(arg + 2);
    for (const struct option *o = long_options; o->name != NULL; o++) {
        if (strncmp(o->name, arg + 2, len) != 0)
            continue;
        if (strlen(o->name) == len)
            return o->has_arg == required_argument;
        if (hit != NULL)
            return 0;       /* ambiguous: getopt_long reports it */
        hit = o;
    }
    return hit != NULL && hit->has_arg == required_argument;
}

/* The index of the "--" that starts the wrap form's COMMAND, or argc. The
 * first "--" that is not an option's value starts it when arguments stand
 * before it and the first is not a pid (a class name never is all digits);
 * else it is getopt's end of the options (a regex starting with '-') in the
 * attach form, unless the five arguments of the attach form stand before it
 * and more after: then *pid_and_command is set. */
static int command_start(int argc, char **argv, int *pid_and_command)
{
    int n = 0, pid_first = 0;

    *pid_and_command = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            if (n > 0 && !pid_first)
                return i;
            *pid_and_command = n == 5 && i + 1 < argc;
            return argc;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            if (takes_next(argv[i]))
                i++;
        } else if (n++ == 0) {
            pid_first = strspn(argv[i], "0123456789,") == strlen(argv[i]);
        }
    }
    return argc;
}

/* The attach form's usage line, for an argument that is missing. */
#define ATTACH_USAGE "mcalltree [OPTIONS] <pid> <class> <method> <depth> <regex>"

/* Checks the positional arguments of a trace: <pid> <class> <method>
 * <depth> <regex>, or without the pid (with_pid 0) in the wrap form (where
 * " before --") and with --jvms (where ""). */
static int parse_positionals(int n, char **pos, int with_pid, const char *where, struct cli *c, mct_err *e)
{
    static const char *const names[] = { "<pid>", "<class>", "<method>", "<depth>", "<regex>" };
    const int want = 4 + (with_pid != 0);

    /* One too few, the first not a number: the pid was forgotten, not the regex. */
    if (with_pid && n == want - 1 && strspn(pos[0], "0123456789,") != strlen(pos[0]))
        return mct_err_set(e, MCT_E_ARG, "missing argument: <pid> ('%.64s' is not a pid); usage: %s", pos[0],
                           ATTACH_USAGE);
    if (n < want) {
        char missing[64] = "";

        for (int i = n; i < want; i++) {
            strcat(missing, " ");
            strcat(missing, names[i + 5 - want]);
        }
        return mct_err_set(e, MCT_E_ARG, "missing argument%s%s:%s", want - n > 1 ? "s" : "", where, missing);
    }
    if (n > want)
        return mct_err_set(e, MCT_E_ARG, "too many arguments%s, starting at '%.64s' (%s)", where, pos[want],
                           c->jvms != NULL && n == 5 ? "--jvms selects the JVMs: give no <pid>" : "quote the regex");
    if (with_pid && parse_pids(pos[0], c, e) < 0)
        return -1;
    pos += with_pid != 0; /* past the pid */
    if (parse_class(pos[0], c, e) < 0 || parse_method(pos[1], c, e) < 0 ||
        req_set(&req_fields[REQ_ROW_depth], pos[2], REQ_FORM_POSITIONAL, &c->req, e) < 0 ||
        parse_regex(pos[3], c, e) < 0)
        return -1;
    return 0;
}

/* The wrap form: what it refuses, then its positional arguments. */
static int parse_wrap(int n, char **pos, unsigned given, struct cli *c, mct_err *e)
{
    if (c->command[0] == NULL || c->command[0][0] == '\0')
        return mct_err_set(e, MCT_E_ARG, "missing COMMAND after --");
    if (c->mode == CLI_INFO)
        return mct_err_set(e, MCT_E_ARG, "--info cannot be used with a command (after --)");
    if (c->jvms != NULL)
        return mct_err_set(e, MCT_E_ARG, "--jvms cannot be used with a command (after --): the command's JVMs "
                           "are traced");
    if (given & GIVEN_TIMEOUT)
        return mct_err_set(e, MCT_E_ARG, "--timeout cannot be used with a command (after --): "
                           "the trace ends when COMMAND exits");
    if (req_given(&c->req, REQ_ROW_plan_only))
        return mct_err_set(e, MCT_E_ARG, "--plan cannot be used with a command (after --): "
                           "give it with the pid of a running JVM");
    c->mode = CLI_WRAP;
    return parse_positionals(n, pos, 0, " before --", c, e);
}

/* The exporters' options go with their format: --otlp-endpoint and
 * --service with -f otlp, --clickhouse with -f rows, and a URL replaces -o. */
static int check_export(const struct cli *c, mct_err *e)
{
    if (c->otlp_endpoint != NULL && c->format != CLI_FORMAT_OTLP)
        return mct_err_set(e, MCT_E_ARG, "--otlp-endpoint needs -f otlp");
    if (c->service != NULL && c->format != CLI_FORMAT_OTLP)
        return mct_err_set(e, MCT_E_ARG, "--service needs -f otlp");
    if (c->clickhouse != NULL && c->format != CLI_FORMAT_ROWS)
        return mct_err_set(e, MCT_E_ARG, "--clickhouse needs -f rows");
    if ((c->otlp_endpoint != NULL || c->clickhouse != NULL) && c->output != NULL)
        return mct_err_set(e, MCT_E_ARG, "-o cannot be used with --%s: the calls go to the server",
                           c->otlp_endpoint != NULL ? "otlp-endpoint" : "clickhouse");
    if (c->req.plan_only && (c->format == CLI_FORMAT_OTLP || c->format == CLI_FORMAT_ROWS))
        return mct_err_set(e, MCT_E_ARG, "--plan cannot be used with -f %s: the plan is printed as json",
                           format_names[c->format]);
    return 0;
}

/* The options of a trace (attached or wrapped) that go together, or not:
 * the request's (req_check), then the command line's own. */
static int check_together(const struct cli *c, mct_err *e)
{
    const struct mct_request *r = &c->req;

    if (req_check(r, REQ_FORM_CLI, e) < 0)
        return -1;
    if (r->wait && r->plan_only)
        return mct_err_set(e, MCT_E_ARG, "--wait cannot be used with --plan (a plan is of loaded classes)");
    if (check_export(c, e) < 0)
        return -1;
    if (c->junit != NULL && r->plan_only)
        return mct_err_set(e, MCT_E_ARG, "--junit cannot be used with --plan: --plan judges nothing");
    if (c->junit != NULL && r->max_calls.n == 0 && r->budgets.n == 0 && r->max_alloc.n == 0 && r->percentile == 0)
        return mct_err_set(e, MCT_E_ARG, "--junit writes the verdicts of --max-calls, --percentile with "
                           "--fail-over-ms, --budget or --max-alloc: give one (a plain --fail-over-ms MS is --percentile 100 "
                           "--fail-over-ms MS)");
    if (c->folded_value != OUT_VALUE_WALL && c->format != CLI_FORMAT_FOLDED)
        return mct_err_set(e, MCT_E_ARG, "--folded-value is for -f folded");
    if (c->folded_value == OUT_VALUE_CPU && !r->cpu)
        return mct_err_set(e, MCT_E_ARG, "--folded-value cpu needs --cpu (the calls carry no CPU time without it)");
    if (c->folded_value == OUT_VALUE_ALLOC && !r->alloc)
        return mct_err_set(e, MCT_E_ARG, "--folded-value alloc needs --alloc (the calls carry no allocations "
                           "without it)");
    if (!r->aggregate)
        return 0;
    if (c->format == CLI_FORMAT_ROWS)
        return mct_err_set(e, MCT_E_ARG, "-f rows cannot be used with --aggregate yet: it exports each call "
                           "(use -f json for the summary, and mcalltree merge across JVMs)");
    if (c->format == CLI_FORMAT_CHROME)
        return mct_err_set(e, MCT_E_ARG, "-f chrome cannot be used with --aggregate: the chrome format "
                           "shows single calls, not summaries (use -f json, tree or folded)");
    if (r->plan_only)
        return mct_err_set(e, MCT_E_ARG, "--plan cannot be used with --aggregate: --plan traces nothing");
    return 0;
}

/* --info with an option of a trace: the first one given, or 0. */
static int check_info(const struct cli *c, unsigned given, mct_err *e)
{
    for (size_t i = 0; i < REQ_ROWS; i++)
        /* -v makes --info verbose too. */
        if (i != REQ_ROW_verbose && req_given(&c->req, (enum req_row)i))
            return mct_err_set(e, MCT_E_ARG, "--%s cannot be used with --info", req_fields[i].option);
    for (size_t i = 0; i < sizeof given_names / sizeof given_names[0]; i++)
        if (given & (1u << i))
            return mct_err_set(e, MCT_E_ARG, "%s cannot be used with --info", given_names[i]);
    return 0;
}

/* Several JVMs (a pid list, --jvms): what needs one JVM. */
static int check_many(const struct cli *c, mct_err *e)
{
    const char *one = NULL;

    if (c->n_pids <= 1 && c->jvms == NULL)
        return 0;
    if (c->req.plan_only)
        one = "--plan";
    else if (c->req.interval_ms > 0)
        one = "--interval";
    if (one != NULL)
        return mct_err_set(e, MCT_E_ARG, "%s cannot be used with several JVMs (%s): give one pid", one,
                           c->jvms != NULL ? "--jvms" : "a list of pids");
    return 0;
}

int cli_parse(int argc, char **argv, struct cli *c, mct_err *e)
{
    unsigned given = 0;
    int opt, rc, pid_and_command, split;

    fill_options();
    split = command_start(argc, argv, &pid_and_command);
    memset(c, 0, sizeof *c);
    req_init(&c->req);
    if (pid_and_command)
        return mct_err_set(e, MCT_E_ARG, "a <pid> and a command (after --) exclude each other: "
                           "to trace the command's JVMs, give <class> <method> <depth> <regex> "
                           "-- COMMAND");
    c->mode = CLI_TRACE;
    c->slow_ms = -1;
    optind = 0;     /* a full reset of getopt's state, for repeated calls */
    opterr = 0;
    if (split < argc)
        c->command = argv + split + 1;
    argc = split;
    while ((opt = getopt_long(argc, argv, short_options, long_options, NULL)) != -1) {
        if (opt == '?' || opt == ':')
            return option_error(opt, argv, e);
        rc = apply_option(opt, optarg, c, &given, e);
        if (rc != 0)
            return rc < 0 ? -1 : 0;
    }
    if (c->command != NULL)
        return check_together(c, e) < 0 ? -1 : parse_wrap(argc - optind, argv + optind, given, c, e);
    if (c->mode == CLI_INFO) {
        if (c->jvms != NULL)
            return mct_err_set(e, MCT_E_ARG, "--jvms cannot be used with --info: give one pid");
        if (check_info(c, given, e) < 0)
            return -1;
        if (optind < argc)
            return mct_err_set(e, MCT_E_ARG, "--info takes only a pid, not '%.64s'", argv[optind]);
        return 0;
    }
    if (check_together(c, e) < 0)
        return -1;
    if (optind == argc)
        return mct_err_set(e, MCT_E_ARG, "missing arguments: %s<class> <method> <depth> <regex>",
                           c->jvms != NULL ? "" : "<pid> ");
    if (parse_positionals(argc - optind, argv + optind, c->jvms == NULL, "", c, e) < 0)
        return -1;
    return check_many(c, e);
}
