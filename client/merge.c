/* merge.c — see merge.h.
 *
 * Each FILE is read as diff reads a run (diff_read_runs: its calls
 * aggregated, or per JVM its last final summary; a JVM without a final
 * one: its interval summaries, each merged). The result is one summary object, "final":true, on stdout. */
#include "merge.h"

#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "diff.h"
#include "exit.h"
#include "fmtutil.h"
#include "summary.h"

static void usage(FILE *f)
{
    fputs("Usage: mcalltree merge FILE...\n"
          "\n"
          "Merges runs of mcalltree (files written with -f json: summaries of many JVMs or\n"
          "intervals, or calls; - is stdin) into one summary, exactly: counts add up, and\n"
          "the percentiles are those of one summary over all the calls, within the\n"
          "histogram's error (0.78 %). The merged summary goes to stdout, for diff.\n"
          "\n"
          "Exit status: 0 done, 1 usage error or unreadable or malformed input,\n"
          "5 the output failed.\n", f);
}

int merge_main(int argc, char **argv)
{
    size_t k = 0;
    sum *m;
    mct_buf out;
    mct_err e;
    int rc = MCT_EXIT_OK;

    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout);
        return fflush(stdout) == 0 ? MCT_EXIT_OK : MCT_EXIT_INTERNAL;
    }
    if (argc < 2 || (argv[1][0] == '-' && argv[1][1] != '\0')) {
        fprintf(stderr, "mcalltree merge: %s; try 'mcalltree merge -h'\n",
                argc < 2 ? "give one or more files" : "unknown option");
        return MCT_EXIT_USAGE;
    }
    /* One input in memory at a time: the slowest calls are kept up to the
     * most and trimmed to the most an input kept. */
    if ((m = sum_new(SUM_SLOWEST_MAX, &e)) == NULL)
        rc = MCT_EXIT_INTERNAL;
    for (int i = 1; i < argc && rc == MCT_EXIT_OK; i++) {
        sum *run = diff_read_runs(argv[i], DIFF_READ_INTERVALS | DIFF_READ_SLOWEST, NULL, &e);
        size_t ks;

        if (run == NULL) {
            rc = MCT_EXIT_USAGE;
            break;
        }
        ks = sum_slowest_count(run);
        k = ks > k ? ks : k;
        if (sum_merge(m, run, &e) < 0) {
            mct_err_wrap(&e, "%s", argv[i]);
            rc = e.code == MCT_E_NOMEM ? MCT_EXIT_INTERNAL : MCT_EXIT_USAGE;
        }
        sum_free(run);
    }
    buf_init(&out);
    if (rc == MCT_EXIT_OK) {
        sum_slowest_limit(m, k);
        if (sum_write_json(m, 1, &out, &e) < 0)
            rc = MCT_EXIT_INTERNAL;
    }
    if (rc != MCT_EXIT_OK) {
        fu_clean(e.msg);
        fprintf(stderr, "mcalltree merge: %s\n", e.msg);
    } else {
        buf_ch(&out, '\n');
        if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
            fprintf(stderr, "mcalltree merge: cannot write to stdout\n");
            rc = MCT_EXIT_INTERNAL;
        }
    }
    buf_free(&out);
    sum_free(m);
    return rc;
}
