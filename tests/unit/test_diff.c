/* test_diff.c — diff's statistics (client/dstat) and the JUnit writer
 * (client/junit): the normal quantile, the share test on known cases, the
 * quantile interval's coverage on samples of a known distribution (it
 * holds the true quantile at least as often as stated) and its width for
 * few samples; the JUnit XML with its counts, escaping and failures. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "dstat.h"
#include "junit.h"
#include "summary.h"

static void test_norm(void)
{
    CHECK(fabs(dstat_norm_quantile(0.975) - 1.959964) < 1e-5);
    CHECK(fabs(dstat_norm_quantile(0.9995) - 3.290527) < 1e-5);
    CHECK(fabs(dstat_norm_quantile(0.5)) < 1e-9);
    CHECK(fabs(dstat_norm_quantile(0.001) + 3.090232) < 1e-5);
}

static void test_share(void)
{
    /* equal shares, and both 0 or all: no evidence */
    CHECK(dstat_share_p(250, 500, 250, 500) > 0.99);
    CHECK(dstat_share_p(0, 500, 0, 400) == 1);
    CHECK(dstat_share_p(500, 500, 400, 400) == 1);
    /* 1/7 against 2/7 of 1000: z about 7.8 */
    CHECK(dstat_share_p(143, 1000, 286, 1000) < 1e-10);
    /* 0.500424 against 0.500425 of many: nothing */
    CHECK(dstat_share_p(500424, 1000000, 500425, 1000000) > 0.9);
    /* 10 of 100 against 14 of 100: z about 0.87, p about 0.38 */
    CHECK(fabs(dstat_share_p(10, 100, 14, 100) - 0.38) < 0.01);
}

static uint64_t rng_state = 12345;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* 95 % intervals of p50 and p99 over 1000 samples of 200 values uniform in
 * 10000..19999 (true p50 15000, p99 19900) hold the true value at least 93 %
 * of the time; p99 of 5 samples has no upper bound. */
static void test_quantile_ci(void)
{
    int held50 = 0, held99 = 0;
    uint64_t lo, hi;
    mct_err e;

    for (int t = 0; t < 1000; t++) {
        struct sum_hist h;

        sum_hist_init(&h);
        for (int i = 0; i < 200; i++)
            CHECK(sum_hist_record(&h, 10000 + rng() % 10000, &e) == 0);
        dstat_quantile_ci(&h, 0.5, 0.95, &lo, &hi);
        held50 += lo <= 15000 && 15000 <= hi;
        dstat_quantile_ci(&h, 0.99, 0.95, &lo, &hi);
        held99 += lo <= 19900 && 19900 <= hi;
        sum_hist_reset(&h);
    }
    CHECK(held50 >= 930);
    CHECK(held99 >= 930);
    {
        struct sum_hist h;

        sum_hist_init(&h);
        for (int i = 0; i < 5; i++)
            CHECK(sum_hist_record(&h, 1000 + (uint64_t)i, &e) == 0);
        dstat_quantile_ci(&h, 0.99, 0.999, &lo, &hi);
        CHECK(lo == 1000 && hi == UINT64_MAX);     /* the least is below it, nothing surely above */
        dstat_quantile_ci(&h, 0.5, 0.5, &lo, &hi);
        CHECK(lo >= 1000 && hi <= 1004 && lo <= hi);
        sum_hist_reset(&h);
    }
}

static void test_junit(void)
{
    char path[] = "/tmp/test_diff_junitXXXXXX", text[4096];
    int fd = mkstemp(path);
    junit *j = junit_new();
    FILE *f;
    size_t n;
    mct_err e;

    CHECK(fd >= 0 && j != NULL);
    close(fd);
    CHECK(junit_case(j, "mcalltree diff", "calls: A.run > B.<init>", 1, NULL) == 0);
    CHECK(junit_case(j, "gates", "max-calls", 0, "grew \"1\" -> 2 & more\nsecond line") == 0);
    CHECK(junit_case(j, "mcalltree diff", "share: A.run", 0, "p = 1e-9 < 0.001") == 0);
    CHECK(junit_write(j, path, &e) == 0);
    f = fopen(path, "r");
    CHECK(f != NULL);
    n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    CHECK(strstr(text, "<testsuites name=\"mcalltree\" tests=\"3\" failures=\"2\">") != NULL);
    CHECK(strstr(text, "<testsuite name=\"mcalltree diff\" tests=\"2\" failures=\"1\" errors=\"0\">\n"
                       "    <testcase classname=\"mcalltree diff\" name=\"calls: A.run &gt; B.&lt;init&gt;\"/>\n"
                       "    <testcase classname=\"mcalltree diff\" name=\"share: A.run\">\n"
                       "      <failure message=\"p = 1e-9 &lt; 0.001\">") != NULL);
    CHECK(strstr(text, "message=\"grew &quot;1&quot; -&gt; 2 &amp; more&#10;second line\"") != NULL);
    CHECK(junit_write(j, "/nonexistent/dir/x.xml", &e) < 0 && e.code == MCT_E_IO &&
          strstr(e.msg, "/nonexistent/dir/x.xml") != NULL);
    junit_free(j);
    unlink(path);
}

int main(void)
{
    test_norm();
    test_share();
    test_quantile_ci();
    test_junit();
    return check_status();
}
