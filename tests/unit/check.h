/* check.h — the unit tests' assertions: a failed CHECK prints where and what,
 * counts the failure and carries on; main returns check_status(). */
#ifndef MCT_CHECK_H
#define MCT_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__,   \
                    #cond);                                                    \
            check_failures++;                                                  \
        }                                                                      \
    } while (0)

#define CHECK_INT(got, want)                                                   \
    do {                                                                       \
        long long check_g_ = (long long)(got), check_w_ = (long long)(want);   \
        if (check_g_ != check_w_) {                                            \
            fprintf(stderr, "%s:%d: %s == %lld, want %lld\n", __FILE__,        \
                    __LINE__, #got, check_g_, check_w_);                       \
            check_failures++;                                                  \
        }                                                                      \
    } while (0)

#define CHECK_STR(got, want)                                                   \
    do {                                                                       \
        const char *check_g_ = (got), *check_w_ = (want);                      \
        if (check_g_ == NULL || strcmp(check_g_, check_w_) != 0) {             \
            fprintf(stderr, "%s:%d: %s == \"%s\", want \"%s\"\n", __FILE__,    \
                    __LINE__, #got, check_g_ ? check_g_ : "(null)", check_w_); \
            check_failures++;                                                  \
        }                                                                      \
    } while (0)

/* The exit status for automake's test driver: 0 pass, 1 fail. */
static inline int check_status(void)
{
    if (check_failures)
        fprintf(stderr, "%d check(s) failed\n", check_failures);
    return check_failures ? 1 : 0;
}

#endif
