/* slurp.h — a file's text as one string, for the tests that compare what
 * the output formats wrote (test_output, test_crec). */
#ifndef MCT_TEST_SLURP_H
#define MCT_TEST_SLURP_H

#include <stdio.h>
#include <stdlib.h>

/* The first MiB of the file at path, NUL-terminated, or NULL; the caller
 * frees it. */
static inline char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *s;
    size_t len = 0;

    if (f == NULL)
        return NULL;
    s = calloc(1, 1 << 20);
    if (s != NULL)
        len = fread(s, 1, (1 << 20) - 1, f);
    fclose(f);
    if (s != NULL)
        s[len] = '\0';
    return s;
}

#endif
