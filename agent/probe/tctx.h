/* tctx.h — the trace context a traced call joins (--trace-context): the
 * W3C traceparent of the span active on the call's thread at its start,
 * read once there, on that thread, from a static ThreadLocal the session
 * named. The value is found through JNI field reads only (the thread's
 * ThreadLocalMap, as ThreadLocal.get finds it): no method of the
 * application, of OpenTelemetry or of the JDK runs, and nothing is stored
 * into the map (ThreadLocal.get would store an initial value). The value
 * is a traceparent String, or an OpenTelemetry Context read through its
 * fields (ArrayBasedContext.entries, the span under the key
 * named "opentelemetry-trace-span-key", its SpanContext's traceId, spanId
 * and traceFlags.byteRep).
 *
 * The source is set by the session thread (tctx_set) and read by the
 * traced calls' threads (tctx_read, probe.c at a call's start: once per
 * traced call, like the start's other JNI calls). A source once set is
 * never freed: a thread may still be reading it as the session ends; a
 * later session naming the same ThreadLocal reuses it. */
#ifndef MCT_TCTX_H
#define MCT_TCTX_H

#include <jni.h>

#include "call.h"
#include "err.h"

/* What a read found. */
enum tctx_status {
    TCTX_NONE = 0,    /* nothing on the thread (no value, no span): no parent */
    TCTX_OK,          /* a parent */
    TCTX_BAD          /* a value that is not one: no parent, counted */
};

/* Makes tl (a java.lang.ThreadLocal, InheritableThreadLocal or the JDK's
 * own withInitial subclass; any other subclass is refused: what its get
 * returns is its own code's) the source of the traced calls' contexts;
 * otel_pkg: the internal name of the package that holds OpenTelemetry's
 * api/ and context/ packages, for a value that is a Context
 * ("io/opentelemetry/", or the Java agent's shaded copy). Both stay the
 * caller's. Session thread; 0, or -1 with e set (MCT_E_UNSUPPORTED
 * naming what is wrong, MCT_E_NOMEM, MCT_E_JVMTI for a JDK whose
 * ThreadLocal fields are not the ones read). */
int tctx_set(JNIEnv *env, jobject tl, const char *otel_pkg, mct_err *e);

/* No source: traced calls read nothing from now on. */
void tctx_off(void);

/* Whether a source is set (the probes' check at a call's start). */
int tctx_wanted(void);

/* Reads the context of thread cur (the calling thread) into *p. Any JNI
 * failure or unexpected layout is TCTX_BAD, its exception cleared. */
enum tctx_status tctx_read(JNIEnv *env, jobject cur, struct call_parent *p);

#endif
