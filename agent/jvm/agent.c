/* agent.c — the JVMTI entry points; each delegates to vm.c, which owns the
 * JVM state, with the listener of server.c (serving sessions) as what runs
 * once the JVM is live. */
#include <jni.h>
#include <jvmti.h>

#include "diag.h"
#include "proto.h"
#include "server.h"
#include "session.h"
#include "startup.h"
#include "vm.h"

static int live(JNIEnv *jni)
{
    const char *rewrite_all = vm_options()->rewrite_all;
    mct_err e;

    if (rewrite_all[0] != '\0' && diag_start(jni, rewrite_all, &e) < 0) {
        vm_log("rewrite-all: %s", e.msg);
        return PROTO_RC_OPTIONS;
    }
    session_register();
    if (vm_options()->trace.req.cls != NULL)
        startup_begin(&vm_options()->trace, vm_options()->verbose);
    return server_start(jni);
}

static void death(void)
{
    diag_report();
    startup_end();
    session_vm_death();
    server_stop();
}

static const struct vm_hooks hooks = {
    .live = live,
    .death = death,
};

/* -agentpath at startup: the listener starts at VMInit. */
JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *jvm, char *options, void *reserved)
{
    return vm_enter(jvm, options, VM_ONLOAD, &hooks);
}

/* Loaded into a running JVM (again, possibly): serves at once, once. */
JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *jvm, char *options, void *reserved)
{
    return vm_enter(jvm, options, VM_ONATTACH, &hooks);
}

JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *jvm)
{
    vm_leave();
}
