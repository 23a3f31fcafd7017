/* merge.c — see merge.h.
 *
 * Each FILE is read as diff reads a run (diff_read_runs: its calls
 * aggregated, or per JVM its last final summary; a JVM without a final
 * one: its interval summaries, each merged). The result is one summary object, "final":true, on stdout. */
#include "merge.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "diff.h"
#include "exit.h"
#include "fmt_html.h"
#include "fmtutil.h"
#include "summary.h"

static void usage(FILE *f)
{
    fputs("Usage: mcalltree merge [-f json|html] [-o OUT] FILE...\n"
          "\n"
          "Merges runs of mcalltree (files written with -f json: summaries of many JVMs or\n"
          "intervals, or calls; - is stdin) into one summary, exactly: counts add up, and\n"
          "the percentiles are those of one summary over all the calls, within the\n"
          "histogram's error (0.78 %). The merged summary goes to stdout, for diff.\n"
          "\n"
          "  -f, --format FMT      json (default) or html (the page of -f html)\n"
          "  -o, --output OUT      write there instead of stdout\n"
          "\n"
          "Exit status: 0 done, 1 usage error or unreadable or malformed input,\n"
          "5 the output failed.\n", f);
}

/* -f html: the page of summary m, the files merged argv[first..argc) in
 * its facts; 0 or -1 (errno set). */
static int write_page(const sum *m, int first, int argc, char **argv)
{
    json_t *files = json_array();
    int rc = -1;

    for (int i = first; files != NULL && i < argc; i++)
        json_array_append_new(files, json_string(argv[i]));
    if (files != NULL)
        rc = html_summary_write(stdout, m, files);
    else
        errno = ENOMEM;
    json_decref(files);
    return rc;
}

/* The options before the files: -f json|html, -o OUT (*output, opened
 * once the inputs were read: OUT may be one of them); the index of the
 * first file, or -1 said on stderr. */
static int options(int argc, char **argv, int *html, const char **output)
{
    int i = 1;

    for (; i + 1 < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i += 2) {
        const char *opt = argv[i], *val = argv[i + 1];

        if (strcmp(opt, "-f") == 0 || strcmp(opt, "--format") == 0) {
            if (strcmp(val, "json") != 0 && strcmp(val, "html") != 0)
                return fprintf(stderr, "mcalltree merge: unknown format '%s': give json or html\n", val), -1;
            *html = strcmp(val, "html") == 0;
        } else if (strcmp(opt, "-o") == 0 || strcmp(opt, "--output") == 0) {
            *output = val;
        } else {
            break;
        }
    }
    if (i >= argc || (argv[i][0] == '-' && argv[i][1] != '\0'))
        return fprintf(stderr, "mcalltree merge: %s; try 'mcalltree merge -h'\n",
                       i >= argc ? "give one or more files" : "unknown option"), -1;
    return i;
}

int merge_main(int argc, char **argv)
{
    size_t k = 0;
    sum *m;
    mct_buf out;
    mct_err e;
    int rc = MCT_EXIT_OK, html = 0, first;
    const char *output = NULL;

    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout);
        return fflush(stdout) == 0 ? MCT_EXIT_OK : MCT_EXIT_INTERNAL;
    }
    if ((first = options(argc, argv, &html, &output)) < 0)
        return MCT_EXIT_USAGE;
    /* One input in memory at a time: the slowest calls are kept up to the
     * most and trimmed to the most an input kept. */
    if ((m = sum_new(SUM_SLOWEST_MAX, &e)) == NULL)
        rc = MCT_EXIT_INTERNAL;
    for (int i = first; i < argc && rc == MCT_EXIT_OK; i++) {
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
        if (!html && sum_write_json(m, 1, &out, &e) < 0)
            rc = MCT_EXIT_INTERNAL;
    }
    if (rc == MCT_EXIT_OK && output != NULL && freopen(output, "w", stdout) == NULL) {
        mct_err_set(&e, MCT_E_IO, "-o %s: cannot write: %s", output, strerror(errno));
        rc = MCT_EXIT_USAGE;
    }
    if (rc != MCT_EXIT_OK) {
        fu_clean(e.msg);
        fprintf(stderr, "mcalltree merge: %s\n", e.msg);
    } else if (html) {
        if (write_page(m, first, argc, argv) < 0 || fflush(stdout) != 0) {
            fprintf(stderr, "mcalltree merge: cannot write the page: %s\n", strerror(errno));
            rc = MCT_EXIT_INTERNAL;
        }
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
