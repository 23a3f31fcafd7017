/* junit.h — verdicts as a JUnit XML report (--junit FILE), the format the
 * test reporters of Jenkins, GitLab and GitHub show: one <testsuite> per
 * suite name, one <testcase> per check, a failed one holding its evidence
 * in <failure message="...">. */
#ifndef MCT_JUNIT_H
#define MCT_JUNIT_H

#include "err.h"

typedef struct junit junit;

/* A new empty report, or NULL (out of memory). Free with junit_free. */
junit *junit_new(void);

/* Frees j; NULL is fine. */
void junit_free(junit *j);

/* Adds a test case named name to suite (made on its first case), passed
 * or failed with message (the evidence; may be NULL when passed); the
 * texts are copied. 0, or -1 out of memory. */
int junit_case(junit *j, const char *suite, const char *name, int passed, const char *message);

/* Writes the report to path (replaced whole); 0, or -1 with e set (MCT_E_IO
 * naming the file). */
int junit_write(const junit *j, const char *path, mct_err *e);

#endif
