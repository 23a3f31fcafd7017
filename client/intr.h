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

/* From at_ms (mct_now_ms() time) on, a SIGALRM every 100 ms that restarts
 * nothing: a write blocked on an output nobody reads then fails with EINTR,
 * so that a stop that is due (a signal, a timeout) is not held up by the
 * output. Reading and polling carry on (they retry on EINTR). 0, or -1 with
 * e set. Undone by intr_stop_due_clear. */
int intr_stop_due_at(double at_ms, mct_err *e);

/* Whether a stop is due: a signal came, or intr_stop_due_at's time came. */
int intr_stop_due(void);

/* Disarms intr_stop_due_at's alarm; nothing when none is armed. */
void intr_stop_due_clear(void);

/* Sleeps ms milliseconds; -1 with e set (MCT_E_INTR) when a signal has
 * arrived. */
int intr_sleep_ms(int ms, mct_err *e);

#endif
