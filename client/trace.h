/* trace.h — a tracing session seen from the client: sends the `trace`
 * request, prints the plan's summary (the whole plan with -v or --plan),
 * writes every call tree as it arrives, and ends the session on --count
 * (the agent counts), --timeout, SIGINT/SIGTERM, or a broken output, always
 * waiting for the agent to say the classes are restored. */
#ifndef MCT_TRACE_H
#define MCT_TRACE_H

#include "cli.h"
#include "proc.h"

/* How long the agent has to answer the request with its plan. */
#define TRACE_PLAN_TIMEOUT_MS 60000

/* After a stop, how long the agent has to confirm the end. */
#define TRACE_END_TIMEOUT_MS 10000

/* Runs the session of command line c against target t; the exit status
 * (enum mct_exit). */
int trace_run(const struct cli *c, const struct proc_target *t);

#endif
