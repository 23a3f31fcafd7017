/* tcsource.h — --trace-context's source found in the JVM: the named class
 * among the loaded ones (for `otel`, OpenTelemetry's ThreadLocal context
 * storage, the Java agent's shaded copy first), its static ThreadLocal
 * field, handed to the probes (probe/tctx.h). Nothing is loaded,
 * initialised or run: a class not loaded (or not initialised) yet is
 * looked for again every second while the session runs. */
#ifndef MCT_TCSOURCE_H
#define MCT_TCSOURCE_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

struct session;

/* Looks for s's source (none asked: the probes read nothing); 0 (found,
 * or none asked), 1 (its class is not loaded or initialised yet: what to
 * tell the client is in note, size bytes), or -1 with err set: not
 * CLASS.FIELD nor `otel`, no static ThreadLocal field of that name, a
 * ThreadLocal subclass. Session thread. */
int tcsource_begin(struct session *s, JNIEnv *jni, char *note, size_t size, mct_err *err);

/* While the source is not found, looks again once a second (now: the
 * session's clock, ns); 1 when the client is to be told (note, size bytes):
 * found at last, or refused then (not looked for again); else 0. Session
 * thread. */
int tcsource_tick(struct session *s, JNIEnv *jni, uint64_t now, char *note, size_t size);

/* The probes read no context any more (the session ends). */
void tcsource_end(void);

#endif
