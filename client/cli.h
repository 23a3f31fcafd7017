/* cli.h — the command line of SPEC §2, parsed with getopt_long into a
 * struct cli and checked completely before anything touches the target. */
#ifndef MCT_CLI_H
#define MCT_CLI_H

#include <stdio.h>
#include <sys/types.h>

#include "err.h"
#include "gates.h"
#include "request.h"

#define CLI_GATES_MAX GATES_MAX /* most --max-calls, and most --budget, options */
#define CLI_PIDS_MAX 256        /* most JVMs of one command (a pid list, --jvms) */

enum cli_mode {
    CLI_TRACE,      /* mcalltree [OPTIONS] <pid> <class> <method> <depth> <regex> */
    CLI_WRAP,       /* mcalltree [OPTIONS] <class> <method> <depth> <regex> -- COMMAND [ARGS] */
    CLI_INFO,       /* mcalltree --info <pid> */
    CLI_HELP,       /* --help */
    CLI_VERSION     /* --version */
};

/* What -f folded counts per stack (--folded-value). */
enum out_value {
    OUT_VALUE_WALL = 0,         /* self time */
    OUT_VALUE_CPU,              /* self CPU time (calls traced with --cpu) */
    OUT_VALUE_ALLOC             /* self bytes allocated (calls traced with --alloc) */
};

enum cli_format {
    CLI_FORMAT_JSON,
    CLI_FORMAT_TREE,
    CLI_FORMAT_CHROME,
    CLI_FORMAT_FOLDED,
    CLI_FORMAT_HTML,
    CLI_FORMAT_OTLP,            /* OTLP/HTTP JSON traces, a span per node */
    CLI_FORMAT_ROWS,            /* a JSON row per node, for ClickHouse */
    CLI_FORMAT_FRAMES           /* not an option: a session's calls and summaries as
                                   protocol frames, to client/multi.c (fmt_frames) */
};

struct cli {
    enum cli_mode mode;
    pid_t pid;                      /* the JVM, or the first of pids */
    pid_t pids[CLI_PIDS_MAX];       /* the <pid> position: one pid or a list */
    size_t n_pids;
    const char *jvms;               /* --jvms REGEX: the local JVMs whose main class or jar
                                       matches, in place of <pid>; borrowed */
    /* The trace asked for (request.h): the positional arguments and every
     * option that is a request row (REQ_CLI), gates included; its strings
     * are borrowed from argv, its method from method_text. */
    struct mct_request req;
    char method_text[REQ_NAME_MAX + 1]; /* the method name, without its descriptor */
    double timeout_s;               /* -t: stop after that many seconds; 0 = none */
    double slow_ms;                 /* --slow-ms: highlight threshold; < 0 = unset */
    enum cli_format format;
    int format_given;               /* -f was on the command line */
    const char *output;             /* -o FILE, NULL for stdout; borrowed */
    const char *junit;              /* --junit FILE (the gates' verdicts), or NULL; borrowed */
    enum out_value folded_value;    /* --folded-value (OUT_VALUE_WALL when not given) */
    const char *agent;              /* --agent PATH, NULL for the default; borrowed */
    const char *otlp_endpoint;      /* --otlp-endpoint URL (-f otlp), or NULL; borrowed */
    const char *clickhouse;         /* --clickhouse URL (-f rows), or NULL; borrowed */
    const char *service;            /* --service NAME (-f otlp), or NULL; borrowed */
    char **command;                 /* CLI_WRAP: COMMAND and its arguments, NULL-terminated;
                                       borrowed from argv */
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
