/* agent.c — the JVMTI entry points; each delegates to vm.c, which owns the
 * JVM state, with the listener of server.c as what runs once the JVM is live. */
#include <jni.h>
#include <jvmti.h>

#include "server.h"
#include "vm.h"

static const struct vm_hooks hooks = {
    .live = server_start,
    .death = server_stop,
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
