/* test_wrap.c — the wrap form's command line (the "--" that starts
 * COMMAND, what it excludes) and what it puts in JAVA_TOOL_OPTIONS: the
 * agent's option string with its values percent-encoded, the -agentpath
 * word quoted for a library path with spaces, appended to what was there. */
#include "check.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cliargs.h"
#include "wrap.h"

/* cli_parse over the NULL-terminated arguments after "mcalltree". */
static int parse(struct cli *c, mct_err *e, char **argv, ...)
{
    va_list ap;
    int rc;

    va_start(ap, argv);
    rc = cliargs_parse(c, e, argv, ap);
    va_end(ap);
    return rc;
}

static void test_cli(void)
{
    char *argv[CLIARGS_MAX];
    struct cli c;
    mct_err e;

    CHECK_INT(parse(&c, &e, argv, "-n", "2", "a.B", "run", "3", "a\\..*", "--", "java", "-jar",
                    "x.jar", NULL), 0);
    CHECK_INT(c.mode, CLI_WRAP);
    CHECK_STR(c.req.cls, "a.B");
    CHECK_INT(c.req.count, 2);
    CHECK_STR(c.command[0], "java");
    CHECK_STR(c.command[2], "x.jar");
    CHECK(c.command[3] == NULL);
    /* Options after the positionals, and a "--" that is an option's value. */
    CHECK_INT(parse(&c, &e, argv, "a.B", "run", "3", "x", "-o", "--", "--", "sh", "-c", "--", NULL), 0);
    CHECK_INT(c.mode, CLI_WRAP);
    CHECK_STR(c.output, "--");
    CHECK_STR(c.command[0], "sh");
    CHECK_STR(c.command[2], "--");
    CHECK_INT(parse(&c, &e, argv, "--out=--", "a.B", "run", "3", "x", "--", "sh", NULL), 0);
    CHECK_STR(c.output, "--");
    CHECK_INT(parse(&c, &e, argv, "-vo", "--", "a.B", "run", "3", "x", "--", "sh", NULL), 0);
    CHECK_STR(c.output, "--");
    CHECK_INT(parse(&c, &e, argv, "--outp", "--", "a.B", "run", "3", "x", "--", "sh", NULL), 0);
    CHECK_STR(c.output, "--");
    /* The attach form is untouched. */
    CHECK_INT(parse(&c, &e, argv, "12", "a.B", "run", "3", "x", NULL), 0);
    CHECK_INT(c.mode, CLI_TRACE);
    CHECK(c.command == NULL);

    CHECK_INT(parse(&c, &e, argv, "12", "a.B", "run", "3", "x", "--", "sh", NULL), -1);
    CHECK(strstr(e.msg, "a <pid> and a command (after --) exclude each other") != NULL);
    CHECK_INT(parse(&c, &e, argv, "a.B", "run", "3", "x", "--", NULL), -1);
    CHECK(strstr(e.msg, "missing COMMAND after --") != NULL);
    CHECK_INT(parse(&c, &e, argv, "a.B", "run", "3", "x", "--", "", NULL), -1);
    CHECK(strstr(e.msg, "missing COMMAND after --") != NULL);
    CHECK_INT(parse(&c, &e, argv, "a.B", "run", "--", "sh", NULL), -1);
    CHECK(strstr(e.msg, "missing arguments before --: <depth> <regex>") != NULL);
    CHECK_INT(parse(&c, &e, argv, "a.B", "run", "3", "x", "y", "--", "sh", NULL), -1);
    CHECK(strstr(e.msg, "too many arguments before --, starting at 'y'") != NULL);
    CHECK_INT(parse(&c, &e, argv, "-t", "1", "a.B", "run", "3", "x", "--", "sh", NULL), -1);
    CHECK(strstr(e.msg, "--timeout cannot be used with a command") != NULL);
    CHECK_INT(parse(&c, &e, argv, "--plan", "a.B", "run", "3", "x", "--", "sh", NULL), -1);
    CHECK(strstr(e.msg, "--plan cannot be used with a command") != NULL);
    CHECK_INT(parse(&c, &e, argv, "--info", "12", "a.B", "--", "sh", NULL), -1);
    CHECK(strstr(e.msg, "--info cannot be used with a command") != NULL);
    /* "--" before a pid, or after fewer than five arguments with a pid
     * first, ends the options of the attach form (a regex starting with '-'). */
    CHECK_INT(parse(&c, &e, argv, "7", "a.B", "m", "1", "--", "-odd", NULL), 0);
    CHECK_INT(c.mode, CLI_TRACE);
    CHECK_STR(c.req.regex, "-odd");
    CHECK_INT(parse(&c, &e, argv, "-v", "--", "7", "a.B", "m", "1", "x", NULL), 0);
    CHECK_INT(c.mode, CLI_TRACE);
    CHECK_INT(parse(&c, &e, argv, "a/B", "run", "3", "x", "--", "sh", NULL), -1);
    CHECK(strstr(e.msg, "with dots") != NULL);
}

static void test_options(void)
{
    char *argv[CLIARGS_MAX];
    struct cli c;
    mct_err e;
    char *s;

    CHECK_INT(parse(&c, &e, argv, "--include-jdk", "--min-ms", "2.50", "-n", "7", "-v", "a.B$C",
                    "get(Ljava/lang/String;)I", "12", "a\\.(x|y){1,2} %\"'é", "--", "sh", NULL), 0);
    s = wrap_agent_options(&c, "/tmp/my dir,1", &e);
    CHECK(s != NULL);
    CHECK_STR(s, "trace=a.B$C.get(Ljava/lang/String;)I,depth=12,"
                 "regex=a%5C.(x|y){1%2C2}%20%25%22%27%C3%A9,out=/tmp/my%20dir%2C1/{pid}.ndjson,"
                 "include-jdk,min-ms=2.5,count=7,verbose");
    free(s);
    CHECK_INT(parse(&c, &e, argv, "--min-ms", "0", "a.B", "run", "1", ".*", "--", "sh", NULL), 0);
    s = wrap_agent_options(&c, "/t", &e);
    CHECK_STR(s, "trace=a.B.run,depth=1,regex=.*,out=/t/{pid}.ndjson");
    free(s);
    CHECK_INT(parse(&c, &e, argv, "--aggregate", "--interval", "2.5", "--slowest", "3", "a.B", "run", "1",
                    ".*", "--", "sh", NULL), 0);
    s = wrap_agent_options(&c, "/t", &e);
    CHECK_STR(s, "trace=a.B.run,depth=1,regex=.*,out=/t/{pid}.ndjson,aggregate,interval=2.5,slowest=3");
    free(s);
    CHECK_INT(parse(&c, &e, argv, "--aggregate", "--interval", "0.001", "a.B", "run", "1", ".*", "--", "sh",
                    NULL), 0);
    s = wrap_agent_options(&c, "/t", &e);
    CHECK_STR(s, "trace=a.B.run,depth=1,regex=.*,out=/t/{pid}.ndjson,aggregate,interval=0.001");
    free(s);
    /* The gates are judged by the client, not sent to the agent. */
    CHECK_INT(parse(&c, &e, argv, "--max-calls", "a.B.run=1", "a.B", "run", "1", ".*", "--", "sh", NULL), 0);
    s = wrap_agent_options(&c, "/t", &e);
    CHECK_STR(s, "trace=a.B.run,depth=1,regex=.*,out=/t/{pid}.ndjson");
    free(s);
    /* Unless -n counts the calls a timing gate judges: the agent counts them. */
    CHECK_INT(parse(&c, &e, argv, "-n", "5", "--percentile", "90", "--fail-over-ms", "3", "a.B", "run", "1", ".*",
                    "--", "sh", NULL), 0);
    s = wrap_agent_options(&c, "/t", &e);
    CHECK_STR(s, "trace=a.B.run,depth=1,regex=.*,out=/t/{pid}.ndjson,count=5,percentile=90,fail-over-ms=3");
    free(s);
}

static void test_agentpath(void)
{
    mct_err e;
    char *s;

    s = wrap_agentpath("/opt/m/libmcalltree.so", "trace=a.B.run", &e);
    CHECK_STR(s, "-agentpath:/opt/m/libmcalltree.so=trace=a.B.run");
    free(s);
    s = wrap_agentpath("/opt/my m/libmcalltree.so", "x", &e);
    CHECK_STR(s, "\"-agentpath:/opt/my m/libmcalltree.so=x\"");
    free(s);
    s = wrap_agentpath("/opt/\"my m/libmcalltree.so", "x", &e);
    CHECK_STR(s, "'-agentpath:/opt/\"my m/libmcalltree.so=x'");
    free(s);
    CHECK(wrap_agentpath("/opt/\"my' m/l.so", "x", &e) == NULL);
    CHECK(strstr(e.msg, "both kinds of quotes") != NULL);
    CHECK(wrap_agentpath("/opt/a=b/l.so", "x", &e) == NULL);
    CHECK(strstr(e.msg, "has a '='") != NULL);
    CHECK(wrap_agentpath("rel/l.so", "x", &e) == NULL);
    CHECK(strstr(e.msg, "not absolute") != NULL);

    s = wrap_tool_options(NULL, "-agentpath:x", &e);
    CHECK_STR(s, "-agentpath:x");
    free(s);
    s = wrap_tool_options("", "-agentpath:x", &e);
    CHECK_STR(s, "-agentpath:x");
    free(s);
    s = wrap_tool_options("-Xmx1g -Dy=1", "-agentpath:x", &e);
    CHECK_STR(s, "-Xmx1g -Dy=1 -agentpath:x");
    free(s);
}

int main(void)
{
    test_cli();
    test_options();
    test_agentpath();
    return check_status();
}
