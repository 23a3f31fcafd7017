/* test_options.c — the agent's options string. */
#include "check.h"

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
    CHECK_STR(e.msg, "unknown option 'bogus' (known: verbose, rewrite-all, clock)");
    CHECK_INT(opts_parse("verbose,x=1", &o, &e), -1);
    CHECK_STR(e.msg, "unknown option 'x' (known: verbose, rewrite-all, clock)");
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
}

int main(void)
{
    test_valid();
    test_invalid();
    test_string();
    return check_status();
}
