/* cliargs.h — cli_parse over the arguments a test names, for the tests of
 * the command line (test_cli, test_wrap). */
#ifndef MCT_TEST_CLIARGS_H
#define MCT_TEST_CLIARGS_H

#include <stdarg.h>
#include <stddef.h>

#include "cli.h"

#define CLIARGS_MAX 32

/* cli_parse over "mcalltree" and the NULL-terminated arguments in ap, put in
 * argv (CLIARGS_MAX entries, which the parsed cli borrows); the result of
 * cli_parse, with the message in e. */
static inline int cliargs_parse(struct cli *c, mct_err *e, char **argv, va_list ap)
{
    int argc = 0;

    argv[argc++] = "mcalltree";
    for (char *a; (a = va_arg(ap, char *)) != NULL && argc < CLIARGS_MAX - 1;)
        argv[argc++] = a;
    argv[argc] = NULL;
    mct_err_clear(e);
    return cli_parse(argc, argv, c, e);
}

#endif
