/* probe_install.h — the probe class in the JVM: defined in the boot loader
 * from the bytes built into the agent, its natives bound (probe.c's), and
 * the JNI handles the probe path uses looked up and handed to it
 * (probe_bind). */
#ifndef MCT_PROBE_INSTALL_H
#define MCT_PROBE_INSTALL_H

#include <jni.h>
#include <jvmti.h>

#include "err.h"

/* Defines the probe class in the boot loader and binds its natives (tracing
 * natives, or counting ones for the diagnostic mode). Once per JVM; later calls
 * return 0, and a call after a failure retries what is left. Needs the live
 * phase. 0, or -1 with err set. */
int probe_install(JNIEnv *jni, jvmtiEnv *jvmti, int counting, mct_err *err);

#endif
