/* diag.h — the diagnostic mode, a proof of the rewriter at scale:
 *   -agentpath:libmcalltree.so=rewrite-all=REGEX
 * rewrites every method of every class whose name matches REGEX as it
 * loads, with probes that only count entries, returns and exceptional exits,
 * and prints the totals on the JVM's stderr when the JVM exits. Tracing
 * sessions are refused in this mode. */
#ifndef MCT_DIAG_H
#define MCT_DIAG_H

#include <jni.h>

#include "err.h"

/* Starts rewriting classes that load from now on; the JVM is live. */
int diag_start(JNIEnv *jni, const char *regex, mct_err *err);

/* Non-zero once diag_start succeeded. */
int diag_active(void);

/* Prints the totals on the JVM's stderr (once). */
void diag_report(void);

#endif
