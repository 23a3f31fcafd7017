/* junit.c — see junit.h. The cases are kept in the order they were added;
 * a suite's cases are written together, suites in order of first use. */
#include "junit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

struct jcase {
    char *suite, *name, *message;
    int passed;
};

struct junit {
    struct jcase *cases;
    size_t n, cap;
};

junit *junit_new(void)
{
    return calloc(1, sizeof(junit));
}

void junit_free(junit *j)
{
    if (j == NULL)
        return;
    for (size_t i = 0; i < j->n; i++) {
        free(j->cases[i].suite);
        free(j->cases[i].name);
        free(j->cases[i].message);
    }
    free(j->cases);
    free(j);
}

int junit_case(junit *j, const char *suite, const char *name, int passed, const char *message)
{
    struct jcase *c;

    if (buf_grow(&j->cases, &j->cap, j->n, sizeof *j->cases, 16) < 0)
        return -1;
    c = &j->cases[j->n];
    *c = (struct jcase){ strdup(suite), strdup(name), message != NULL ? strdup(message) : NULL, passed != 0 };
    if (c->suite == NULL || c->name == NULL || (message != NULL && c->message == NULL)) {
        free(c->suite);
        free(c->name);
        free(c->message);
        return -1;
    }
    j->n++;
    return 0;
}

/* s with XML's special characters escaped, and the control characters XML
 * 1.0 cannot hold replaced by '?'. */
static void put_xml(FILE *f, const char *s)
{
    for (; *s != '\0'; s++) {
        unsigned char ch = (unsigned char)*s;

        if (ch == '&')
            fputs("&amp;", f);
        else if (ch == '<')
            fputs("&lt;", f);
        else if (ch == '>')
            fputs("&gt;", f);
        else if (ch == '"')
            fputs("&quot;", f);
        else if (ch == '\n')
            fputs("&#10;", f);
        else if (ch < 0x20 && ch != '\t')
            fputc('?', f);
        else
            fputc(ch, f);
    }
}

/* Counts the cases and failures of suite. */
static void suite_counts(const junit *j, const char *suite, size_t *tests, size_t *failures)
{
    *tests = *failures = 0;
    for (size_t i = 0; i < j->n; i++)
        if (strcmp(j->cases[i].suite, suite) == 0) {
            ++*tests;
            *failures += !j->cases[i].passed;
        }
}

int junit_write(const junit *j, const char *path, mct_err *e)
{
    FILE *f = fopen(path, "w");
    size_t total = 0, failed = 0;

    if (f == NULL)
        return mct_err_set(e, MCT_E_IO, "--junit %s: cannot write: %s", path, strerror(errno));
    for (size_t i = 0; i < j->n; i++)
        failed += !j->cases[i].passed;
    total = j->n;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mcalltree\" tests=\"%zu\" "
            "failures=\"%zu\">\n", total, failed);
    for (size_t i = 0; i < j->n; i++) {
        const char *suite = j->cases[i].suite;
        size_t tests, failures, k;

        for (k = 0; k < i && strcmp(j->cases[k].suite, suite) != 0; k++)
            ;
        if (k < i)
            continue;           /* written with its first case */
        suite_counts(j, suite, &tests, &failures);
        fputs("  <testsuite name=\"", f);
        put_xml(f, suite);
        fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n", tests, failures);
        for (k = i; k < j->n; k++) {
            const struct jcase *c = &j->cases[k];

            if (strcmp(c->suite, suite) != 0)
                continue;
            fputs("    <testcase classname=\"", f);
            put_xml(f, suite);
            fputs("\" name=\"", f);
            put_xml(f, c->name);
            if (c->passed) {
                fputs("\"/>\n", f);
                continue;
            }
            fputs("\">\n      <failure message=\"", f);
            put_xml(f, c->message != NULL ? c->message : "failed");
            fputs("\">", f);
            put_xml(f, c->message != NULL ? c->message : "failed");
            fputs("</failure>\n    </testcase>\n", f);
        }
        fputs("  </testsuite>\n", f);
    }
    fputs("</testsuites>\n", f);
    if (ferror(f) | (fclose(f) != 0))
        return mct_err_set(e, MCT_E_IO, "--junit %s: cannot write: %s", path, strerror(errno));
    return 0;
}
