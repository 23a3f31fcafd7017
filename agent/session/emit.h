/* emit.h — a session's calls to output (emit.c): the completed calls taken
 * from the probes' rings become call messages, compact frames or summaries,
 * written to the session's client. Session thread only. */
#ifndef MCT_EMIT_H
#define MCT_EMIT_H

#include <jansson.h>
#include <jni.h>
#include <stdint.h>

#include "err.h"

struct session;

/* Takes the calls completed so far (probe_drain), each built, written or
 * aggregated, or discarded once the session ends; returns how many. */
uint64_t drain(struct session *s, JNIEnv *jni);

/* --follow-async: writes (or aggregates) the calls held for their tasks
 * whose tasks all came or whose wait is over, or all of them (their
 * missing tasks pending). */
void release_async(struct session *s, int all);

/* aggregate: sends the interval's summary (final: the run's, the interval
 * merged into it first) and merges it into the run's; 0, or -1 with err
 * set (a failed write ends the session). */
int send_summary(struct session *s, int final, mct_err *err);

/* Says on the JVM's stderr why the `which` summary was not sent (err),
 * unless the client is gone or stalled (the client can tell that). */
void summary_lost(const struct session *s, const char *which, const mct_err *err);

/* The session's last messages: when aggregating and instrumented, the
 * last interval's summary (with --interval, when it holds calls) and the
 * final summary; then end (stolen), for as long as the client reads them. */
void send_last(struct session *s, json_t *end, int instrumented);

#endif
