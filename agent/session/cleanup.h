/* cleanup.h — how a session ends (cleanup.c), in two steps around the
 * moment session.c lets the next session in. Session thread only. */
#ifndef MCT_CLEANUP_H
#define MCT_CLEANUP_H

#include <jni.h>

struct session;

/* Takes the last calls when the JVM exits, lets the entry class's held
 * threads go, removes the session's watches, restores the classes, discards
 * the calls left and sends the `end` (when the session got one: it ran, or
 * failed with a reason). instrumented: the session holds the rings
 * (probe_consumer_begin). */
void cleanup_restore(struct session *s, JNIEnv *jni, int instrumented);

/* Closes the client's connection, gives the rings back (instrumented) and
 * frees s and all it owns. */
void cleanup_free(struct session *s, JNIEnv *jni, int instrumented);

#endif
