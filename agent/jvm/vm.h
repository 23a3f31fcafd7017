/* vm.h — the single owner of the agent's JVM state: the JavaVM, the JVMTI
 * environment with its capabilities and event callbacks, facts about the JVM,
 * agent threads, the JVMTI services the rest of the agent shares (class
 * names, the loaded classes, retransforming, thread and exception names),
 * and the agent's messages on the JVM's stderr. Everything else reaches
 * JVMTI through this module, with these exceptions, each for a reason:
 *   - hier_jvmti.c is the JVMTI backend of the class hierarchy (hier.h): its
 *     queries (loaders, modifiers, tags, interfaces, methods) are its job;
 *     it takes class names and the loaded classes from here;
 *   - jclassfile.c reads a class's pool, methods and code for the planner
 *     (GetConstantPool, GetBytecodes ...): the class file it builds is the
 *     sum of those queries;
 *   - instrument.c's ClassFileLoadHook uses the jvmtiEnv the JVM hands the
 *     hook (Allocate for the new class bytes, GetNamedModule and
 *     AddModuleReads for the rewritten class's module), as JVMTI asks;
 *   - probe.c and probe_ring.c call JNI only, never JVMTI (the probe path
 *     must not; the ring's consumer frees the references the probes took).
 * JNI (local and global references, method calls) is used where needed. */
#ifndef MCT_VM_H
#define MCT_VM_H

#include <jni.h>
#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

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

/* Makes cb the CompiledMethodLoad callback and enables the event, or
 * disables it when cb is NULL (a callback already running may still
 * finish: the caller waits for it). 0 or -1 with e set (MCT_E_JVMTI, also
 * when the JVM lacks can_generate_compiled_method_load_events). */
int vm_set_compiled_load(jvmtiEventCompiledMethodLoad cb, mct_err *e);

/* Replays a CompiledMethodLoad event, on the calling thread, for every
 * method compiled now (GenerateEvents); the event must be enabled. 0 or -1
 * with e set (MCT_E_JVMTI). */
int vm_replay_compiled(mct_err *e);

/* Calls fn for each method of class k (its jmethodID, name and JVM
 * signature, both modified UTF-8 and borrowed for the call). 0, or -1 with
 * e set (MCT_E_JVMTI). */
int vm_class_methods(jclass k, void (*fn)(void *arg, jmethodID m, const char *name, const char *sig),
                     void *arg, mct_err *e);

/* 1 when class k is initialized (its code may have run), 0 when not or
 * the JVM cannot say. */
int vm_class_initialized(jclass k);

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

/* ---- classes, threads and exceptions (any thread of the JVM) ---- */

/* The internal name of class k ("com/shop/Cart") as a malloc'd string
 * (the JVMTI signature is deallocated); NULL with e set when JVMTI fails
 * (MCT_E_JVMTI), k is an array or primitive class (MCT_E_ARG) or memory is
 * short (MCT_E_NOMEM). */
char *vm_class_name(jclass k, mct_err *e);

/* The loader of class k into *loader (a local reference; NULL for the boot
 * loader). 0, or -1 with e set (MCT_E_JVMTI). */
int vm_class_loader(jclass k, jobject *loader, mct_err *e);

/* The loaded classes, as local references in a JVMTI-allocated array that
 * the caller gives back with vm_release_loaded; *n receives their count.
 * NULL (*n = 0) with e set (MCT_E_JVMTI) on failure. */
jclass *vm_loaded_classes(size_t *n, mct_err *e);

/* Deletes the n local references of classes (from vm_loaded_classes) and
 * deallocates the array. NULL is accepted. */
void vm_release_loaded(JNIEnv *jni, jclass *classes, size_t n);

/* Deletes the local references refs[0..n) (NULL entries skipped); the
 * array stays the caller's. */
void vm_release_locals(JNIEnv *jni, jobject *refs, size_t n);

/* What vm_retransform tells its caller; every member may be NULL. */
struct vm_retransform_ops {
    /* Class i, retransformed alone, was refused with e; name is its
     * internal name ("?" when unknown), borrowed for the call. */
    void (*refused)(void *arg, JNIEnv *jni, size_t i, const char *name, jvmtiError e);
};

/* Retransforms the n classes in one RetransformClasses call; when the JVM
 * refuses the batch (one class spoils it), retransforms them one by one,
 * telling ops->refused of each class refused. Returns 0 once done (refusals
 * included), or -1 with e set (MCT_E_JVMTI) when the JVM cannot retransform
 * at all (no capability, wrong phase): no class is tried alone then. */
int vm_retransform(JNIEnv *jni, jclass *classes, size_t n, const struct vm_retransform_ops *ops, void *arg,
                   mct_err *e);

/* The class file of the class cls (internal name name), read without
 * running any code of its loader: for the JDK's built-in loaders (boot,
 * platform or extension, application), the resource /name.class that the
 * loader finds now, read with Class.getResourceAsStream (the JDK's Java code
 * runs on the caller's thread); for any other loader, the file at the
 * class's code source (codesource.h, no Java code runs). Malloc'd bytes the
 * caller frees, *len their length; NULL with e saying why (no such
 * resource or file, a code source that cannot be read, a name too long, out
 * of memory). Not necessarily the bytes the class was defined from. Any
 * exception is cleared. */
uint8_t *vm_read_class_file(JNIEnv *jni, jclass cls, const char *name, size_t *len, mct_err *e);

/* The binary name ("java.lang.IllegalStateException") of class k into buf
 * (cut to size); "?" when JVMTI cannot say. The reference stays the
 * caller's. */
void vm_exception_name(jclass k, char *buf, size_t size);

/* What a call's argument obj (a reference the caller holds) shows:
 * its class's name as Class.getName gives it ("com.shop.Cart", "[I",
 * "[Ljava.lang.String;"; modified UTF-8, cut to size; "?" when JVMTI
 * cannot say) into name, and its identity hash (System.identityHashCode's,
 * which this installs as that does; 0 when JVMTI cannot say) into *hash.
 * Calls no method of obj. */
void vm_object_info(JNIEnv *jni, jobject obj, char *name, size_t size, int32_t *hash);

/* The id (Thread.threadId(), or getId() before JDK 19; -1 when unknown)
 * and name (UTF-8, cut to size; "?" when unknown) of thread, a Thread
 * reference (NULL: unknown). Any thread of the JVM; the reference stays
 * the caller's. */
void vm_thread_info(JNIEnv *jni, jobject thread, int64_t *id, char *name, size_t size);

/* A JNI weak reference to what ref (a JNI reference the caller keeps)
 * refers to, taken on the current thread, or NULL. For async_futures. */
void *vm_weak_keep(void *ref);

/* Frees weak, a vm_weak_keep reference (on the current thread: nothing
 * when it has no JNI environment). */
void vm_weak_drop(void *weak);

/* Whether the future weak (a vm_weak_keep reference) refers to is done:
 * a java.util.concurrent.FutureTask cancelled, or a CompletableFuture
 * completed; 0 for any other type, one not done, or one collected. Reads
 * their fields (FutureTask.state, CompletableFuture.result); calls no
 * method of the future. */
int vm_future_done(void *weak);

/* Writes "mcalltree agent: <message>" on the JVM's stderr, always: for
 * problems the JVM's owner must see. */
void vm_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* As vm_log, but only when the agent was loaded with the verbose option. */
void vm_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
