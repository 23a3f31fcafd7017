/* cli.h — the command line of SPEC §2, parsed with getopt_long into a
 * struct cli and checked completely before anything touches the target. */
#ifndef MCT_CLI_H
#define MCT_CLI_H

#include <stdio.h>
#include <sys/types.h>

#include "err.h"
#include "gates.h"

#define CLI_NAME_MAX 1024   /* longest class, method name or descriptor */
#define CLI_GATES_MAX GATES_MAX /* most --max-calls, and most --budget, options */

enum cli_mode {
    CLI_TRACE,      /* mcalltree [OPTIONS] <pid> <class> <method> <depth> <regex> */
    CLI_WRAP,       /* mcalltree [OPTIONS] <class> <method> <depth> <regex> -- COMMAND [ARGS] */
    CLI_INFO,       /* mcalltree --info <pid> */
    CLI_HELP,       /* --help */
    CLI_VERSION     /* --version */
};

enum cli_format {
    CLI_FORMAT_JSON,
    CLI_FORMAT_TREE,
    CLI_FORMAT_CHROME,
    CLI_FORMAT_FOLDED,
    CLI_FORMAT_HTML
};

struct cli {
    enum cli_mode mode;
    pid_t pid;
    const char *class_name;         /* binary name with dots; borrowed from argv */
    char method[CLI_NAME_MAX + 1];  /* method name */
    char desc[CLI_NAME_MAX + 1];    /* its descriptor, "" for every overload */
    int depth;                      /* 1..PROTO_MAX_DEPTH */
    const char *regex;              /* borrowed from argv */
    long long count;                /* -n: stop after that many calls; 0 = no limit */
    double timeout_s;               /* -t: stop after that many seconds; 0 = none */
    double min_ms;                  /* --min-ms: print calls at least this long */
    double slow_ms;                 /* --slow-ms: highlight threshold; < 0 = unset */
    double fail_over_ms;            /* --fail-over-ms: exit 4 threshold; < 0 = unset */
    enum cli_format format;
    int format_given;               /* -f was on the command line */
    const char *output;             /* -o FILE, NULL for stdout; borrowed */
    int include_jdk;
    int plan;
    int verbose;
    const char *agent;              /* --agent PATH, NULL for the default; borrowed */
    /* The gates of issue 11 (protocol/gates.h parses them, client/gate.h
     * evaluates them); their texts are borrowed from argv. */
    struct gates_max_calls max_calls[CLI_GATES_MAX];
    size_t n_max_calls;
    struct gates_budget budgets[CLI_GATES_MAX];
    size_t n_budgets;
    double percentile;              /* --percentile: 0 < P <= 100; 0 = unset */
    int aggregate;                  /* --aggregate: summaries instead of calls */
    double interval_s;              /* --interval: a summary every SEC; 0 = only the final one */
    int slowest;                    /* --slowest K: calls kept whole per summary */
    char **command;                 /* CLI_WRAP: COMMAND and its arguments, NULL-terminated;
                                       borrowed from argv */
    int wait;                       /* --wait: an entry class not loaded yet is waited for */
    long long sample;               /* --sample N: one entry call in N traced; 0: not given */
    int include_warmup;             /* --include-warmup: summaries and gates count warm-up calls */
};

/* Parses argv into *c; -1 with e set (MCT_E_ARG, one line saying what is
 * wrong) on a usage error. --help and --version win over everything after
 * them. The first "--" that is not an option's value starts the wrap form's
 * COMMAND, which is not parsed. Uses getopt_long, so it may permute the
 * arguments before that "--". */
int cli_parse(int argc, char **argv, struct cli *c, mct_err *e);

/* Prints the usage text to f. */
void cli_usage(FILE *f);

#endif
