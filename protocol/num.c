/* num.c — see num.h. */
#include "num.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int num_int(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    long long v;

    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int num_decimal(const char *s, double max, double *out)
{
    size_t digits = strspn(s, "0123456789"), frac = 0;
    double v;

    if (s[digits] == '.')
        frac = strspn(s + digits + 1, "0123456789");
    if (digits + frac == 0 || s[digits + (s[digits] == '.' ? 1 + frac : 0)] != '\0')
        return -1;
    v = strtod(s, NULL);
    if (v > max)
        return -1;
    *out = v;
    return 0;
}
