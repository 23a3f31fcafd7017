/* vm.h — the single owner of the agent's JVM state: the JavaVM, the JVMTI
 * environment with its capabilities and event callbacks, facts about the JVM,
 * agent threads, and the agent's messages on the JVM's stderr. Everything
 * else reaches the JVM through this module. */
#ifndef MCT_VM_H
#define MCT_VM_H

#include <jni.h>
#include <jvmti.h>

#include "err.h"
#include "options.h"

/* What the rest of the agent runs at the two ends of the JVM's life. */
struct vm_hooks {
    /* Runs once the JVM is live (at once on attach, at VMInit when loaded at
     * startup) and again on every later load; must be idempotent. Returns 0
     * or a PROTO_RC_* code. */
    int (*live)(JNIEnv *jni);
    /* Runs at VMDeath and from Agent_OnUnload; must be idempotent. */
    void (*death)(void);
};

/* How the library was entered. */
enum vm_entry {
    VM_ONLOAD,      /* Agent_OnLoad: -agentpath at startup */
    VM_ONATTACH     /* Agent_OnAttach: loaded into a running JVM */
};

/* The front door of Agent_OnLoad and Agent_OnAttach: parses options, sets up
 * JVMTI once (a later call only counts the load and reruns hooks->live), and
 * runs hooks->live now or at VMInit. Returns 0 or a PROTO_RC_* code; on
 * failure of the first load nothing is left behind (no environment, no
 * thread), since the JVM may unload the library. hooks must stay valid. */
int vm_enter(JavaVM *jvm, const char *options, enum vm_entry how,
             const struct vm_hooks *hooks);

/* Agent_OnUnload: runs hooks->death if it has not run. */
void vm_leave(void);

/* The options the agent was loaded with (merged over loads; borrowed). */
const struct agent_opts *vm_options(void);

/* How many times Agent_OnLoad/Agent_OnAttach entered this copy of the library. */
int vm_loads(void);

/* The agent's JVMTI environment; NULL until a load succeeded. */
jvmtiEnv *vm_jvmti(void);

/* The JNI environment of the calling thread, NULL if it is not a thread of
 * the JVM (agent threads from vm_start_thread are). */
JNIEnv *vm_jni(void);

/* Makes hook the ClassFileLoadHook callback and enables the event, or
 * disables it when hook is NULL; the other callbacks stay. 0 or -1 with e
 * set (MCT_E_JVMTI). */
int vm_set_class_hook(jvmtiEventClassFileLoadHook hook, mct_err *e);

/* Makes cb the ClassPrepare callback and enables the event, or disables it
 * when cb is NULL (a callback already running may still finish). 0 or -1
 * with e set (MCT_E_JVMTI). */
int vm_set_class_prepare(jvmtiEventClassPrepare cb, mct_err *e);

/* Facts for the agent's hello, read once when the JVM became live (borrowed,
 * valid for the life of the library). */
struct vm_facts {
    char name[256];     /* java.vm.name */
    char vendor[256];   /* java.vm.vendor */
    char version[128];  /* java.version */
};
const struct vm_facts *vm_facts(void);

/* The wanted capabilities this JVM could not give (names such as
 * "can_retransform_any_class"); *n receives their count. Borrowed, static. */
const char *const *vm_missing_capabilities(size_t *n);

/* The name of a jvmtiError ("JVMTI_ERROR_WRONG_PHASE"), or "JVMTI_ERROR_<n>"
 * style "unknown jvmtiError" for values this build does not know. */
const char *vm_jvmti_error_name(jvmtiError err);

/* Starts fn(arg) on a new Java daemon thread called name (use "mcalltree
 * ..."); the JVM must be live. 0 or -1 with e set (MCT_E_JVMTI). */
int vm_start_thread(JNIEnv *jni, const char *name, jvmtiStartFunction fn, void *arg,
                    mct_err *e);

/* Writes "mcalltree agent: <message>" on the JVM's stderr, always: for
 * problems the JVM's owner must see. */
void vm_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* As vm_log, but only when the agent was loaded with the verbose option. */
void vm_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
