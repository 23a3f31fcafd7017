/* multi.h — one request to several JVMs (a list of pids, or --jvms REGEX):
 * each JVM's session is trace_run (client/trace.h, one JVM) in a child
 * process of its own, writing its calls and summaries as the agent's reply
 * frames (compact calls: no JSON text per call) and its messages into two
 * pipes; this process polls all the pipes in one loop (no thread), reads
 * the frames with the one reader of replies (reader.h), writes every call
 * through the one output tagged with its JVM's pid and host, merges the
 * final summaries of --aggregate exactly into the one summary it prints
 * (each read by sum_read, then sum_merge), judges the gates on the merged
 * run, and says which JVM failed and how. A JVM that ends, refuses or is not a JVM ends only its
 * own session. */
#ifndef MCT_MULTI_H
#define MCT_MULTI_H

#include <sys/types.h>

#include "cli.h"
#include "err.h"
#include "proc.h"

/* Checks that pid is a JVM this user may attach to, filling *t; 0, or an
 * exit status after saying why on stderr (main.c's check of a target). */
typedef int (*multi_open_fn)(pid_t pid, struct proc_target *t);

/* The local JVMs this user may attach to whose main class or jar, as
 * `jps -l` names them (proc_java_main), matches regex (POSIX extended, the
 * whole name), this process left out, in pids (cap of them, ascending);
 * their number, or -1 with e set (MCT_E_ARG: a bad regex; MCT_E_LIMIT: more
 * than cap match; MCT_E_IO). */
long multi_select(const char *regex, pid_t *pids, size_t cap, mct_err *e);

/* Runs c's request in every JVM of c (c->pids, or those --jvms selects),
 * each checked with open; the exit status (enum mct_exit): 0 when every
 * session ended well and the gates hold; else the status of the first JVM
 * (in the order given) whose session failed, or 4 when a gate failed on the
 * merged run. */
int multi_run(const struct cli *c, multi_open_fn open);

#endif
