/* emit.h — a session's calls to output (emit.c): the completed calls taken
 * from the probes' rings become call messages, compact frames or summaries,
 * written to the session's client. Session thread only. */
#ifndef MCT_EMIT_H
#define MCT_EMIT_H

#include <jansson.h>
#include <jni.h>
#include <stdint.h>

struct session;

/* Takes the calls completed so far (probe_drain), each built, written or
 * aggregated, or discarded once the session ends; returns how many. */
uint64_t drain(struct session *s, JNIEnv *jni);

/* aggregate: sends the interval's summary (final: the run's, within
 * total_ms when > 0) and merges it into the run's. */
void send_summary(struct session *s, int final, long long total_ms);

/* The session's last messages: the final summary when aggregating and
 * instrumented, then end (stolen), within END_SEND_MS. */
void send_last(struct session *s, json_t *end, int instrumented);

#endif
