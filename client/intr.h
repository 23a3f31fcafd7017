/* intr.h — SIGINT and SIGTERM as requests to stop, not deaths: they are
 * counted, and every wait of the client ends on them (attaching, waiting
 * for an answer), so that what the client set up is undone (the attach
 * trigger file) and a running session is stopped cleanly (trace.c). */
#ifndef MCT_INTR_H
#define MCT_INTR_H

#include "err.h"

/* Counts SIGINT and SIGTERM from now on (blocking calls they interrupt fail
 * with EINTR) and ignores SIGPIPE (a reader going away is an output error);
 * 0, or -1 with e set. */
int intr_catch(mct_err *e);

/* How many SIGINT and SIGTERM arrived since intr_catch. */
int intr_count(void);

/* Waits until fd is readable: 1; 0 after timeout_ms (< 0: no limit); -1
 * with e set when poll fails or a signal has arrived (MCT_E_INTR). */
int intr_wait_readable(int fd, int timeout_ms, mct_err *e);

/* Sleeps ms milliseconds; -1 with e set (MCT_E_INTR) when a signal has
 * arrived. */
int intr_sleep_ms(int ms, mct_err *e);

#endif
