/* log.c — see log.h. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>

#include "fmtutil.h"

static int verbose;

void log_set_verbose(int on)
{
    verbose = on;
}

static void vprint(const char *fmt, va_list ap)
{
    char line[2048];

    vsnprintf(line, sizeof line, fmt, ap);
    /* Messages quote the JVM (names, its replies): no control character
     * of theirs reaches the terminal. */
    fu_clean(line);
    fprintf(stderr, "mcalltree: %s\n", line);
}

void log_verbose(const char *fmt, ...)
{
    va_list ap;

    if (!verbose)
        return;
    va_start(ap, fmt);
    vprint(fmt, ap);
    va_end(ap);
}

void log_error(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vprint(fmt, ap);
    va_end(ap);
}
