/* diff.h — `mcalltree diff BASE NEW`: compares two runs node by node (issue
 * 11). A run is a file mcalltree wrote with -f json: per-call NDJSON, which
 * is aggregated on reading (protocol/summary), or summary objects, of which
 * the last with "final":true (else the last) is taken, per JVM ("pid"):
 * the runs of several JVMs are merged (sum_merge). Prints, per call
 * path, the calls per entry call before and after (exact rationals), p50
 * and p99 before and after with their change in %, and the nodes added or
 * removed; as a table, or one JSON object with -f json. Gates:
 * --fail-on-calls and --fail-over-pct P (with the --min-ns floor) exit 4. */
#ifndef MCT_DIFF_H
#define MCT_DIFF_H

#include <stddef.h>

#include "err.h"
#include "summary.h"

/* Runs `mcalltree diff` with argv[0] "diff"; returns the exit status
 * (client/exit.h): 0, 1 for a usage error or a bad input, 4 for a gate,
 * 5 when stdout cannot be written. Messages go to stderr. */
int diff_main(int argc, char **argv);

/* diff_read_runs' flags: with intervals (a JVM without a final summary
 * is all its interval summaries, merged, not its last), keeping the
 * slowest calls (else checked only). */
#define DIFF_READ_INTERVALS 1
#define DIFF_READ_SLOWEST 2

/* Reads the run in path ("-": stdin) as one summary, checked, without a
 * document tree (sum_read): a file of calls aggregated, of summaries per
 * JVM (by "pid", as the wrap form writes them) its last final one (else
 * its last), those of several JVMs merged. *jvms (NULL: not wanted): how
 * many JVMs' summaries the file held. The summary (free with sum_free), or
 * NULL with e set (MCT_E_IO unreadable, MCT_E_PROTO not mcalltree's output
 * or malformed), the message naming file and line. */
sum *diff_read_runs(const char *path, int flags, size_t *jvms, mct_err *e);

/* diff_read_runs over the n bytes at data, named name in messages. */
sum *diff_read_run_mem(const char *name, const char *data, size_t n, int flags, mct_err *e);

#endif
