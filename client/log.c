/* log.c — see log.h. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fmtutil.h"

static int verbose;

void log_set_verbose(int on)
{
    verbose = on;
}

/* A message goes on over more lines where it says "\n  " (the agent's
 * regex error shows the pattern and a caret under the bad character): each
 * line gets the prefix, so that the caret stays under its character and no
 * line of the message can pass for another of the client's. */
static void vprint(const char *fmt, va_list ap)
{
    char line[2048], *p, *next;

    vsnprintf(line, sizeof line, fmt, ap);
    for (p = line; p != NULL; p = next) {
        next = strstr(p, "\n  ");
        if (next != NULL)
            *next++ = '\0';
        /* Messages quote the JVM (names, its replies): no control character
         * of theirs reaches the terminal. */
        fu_clean(p);
        fprintf(stderr, "mcalltree: %s\n", p);
    }
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
