/* test_probe.c — the probe runtime without a JVM: the natives are called
 * through fake JNI and JVMTI function tables, the way the probe class's Java
 * code calls them (its table lookup is emulated here), and the events they
 * leave are checked. */
#include <jni.h>
#include <jvmti.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytecode.h"
#include "check.h"
#include "classfile.h"
#include "clock.h"
#include "methods.h"
#include "planner.h"
#include "probe.h"
#include "probe_install.h"
#include "tree.h"
#include "treejson.h"

typedef void(JNICALL *native_ki)(JNIEnv *, jclass, jint, jint);
typedef void(JNICALL *native_tki)(JNIEnv *, jclass, jthrowable, jint, jint);
typedef void(JNICALL *native_kii)(JNIEnv *, jclass, jint, jint, jint);
typedef jboolean(JNICALL *native_z_ki)(JNIEnv *, jclass, jint, jint);
typedef jboolean(JNICALL *native_z_tki)(JNIEnv *, jclass, jthrowable, jint, jint);
typedef jboolean(JNICALL *native_z_olkii)(JNIEnv *, jclass, jobject, jlong, jint, jint, jint);
typedef jboolean(JNICALL *native_z)(JNIEnv *, jclass);
typedef jobject(JNICALL *native_o)(JNIEnv *, jclass);
typedef void(JNICALL *native_kij)(JNIEnv *, jclass, jint, jint, jlong);
typedef void(JNICALL *native_ko)(JNIEnv *, jclass, jint, jobject);

/* Probe.ENTRIES, Probe.STRIDE */
#define ENTRIES 1024
#define STRIDE 16

static native_ki n_enter0, n_exit0;
static native_tki n_fail0;
static native_kii n_root_nest0;
static native_z_ki n_root_exit0, n_root_of0;
static native_z_tki n_root_fail0;
static native_z_olkii n_root_begin0;
static native_z n_counting0;
static native_o n_slots0;
static native_kij n_arg0;
static native_ko n_arg_ref0;
static int defined_ok;
static _Atomic int global_refs;
static jobject table_value[ENTRIES * STRIDE]; /* Probe.TABLE */
static char table_object;                     /* the array itself */
/* For the Java writer: Probe.STATES and RINGS (the arrays themselves and
 * their elements), Probe.writer, ByteOrder.nativeOrder()'s answer. */
static char states_object, rings_object, order_object;
static jobject states_value[ENTRIES + 1], rings_value[ENTRIES + 1];
static jboolean writer_value;
static jobject receiver_value;   /* Probe.receivers: a struct fake_array */
static int virtual_answer; /* what Thread.isVirtual answers */
static __thread jobject current; /* Thread.currentThread() of a test thread */
static __thread jlong current_id; /* its getId() */

/* Distinct addresses standing for JVM objects (jobject is opaque). */
static char objects[4 + PROBE_MAX_RECEIVERS + 2];
#define fake_class ((jclass)&objects[0])
#define fake_thread ((jthread)&objects[1])
#define fake_exc ((jthrowable)&objects[2])
#define fake_exc_class ((jclass)&objects[3])
/* Other loaders' copies of the named class (fake_class is one), and a
 * class of another name. */
#define fake_copy(i) ((jclass)&objects[4 + (i)])
#define fake_other ((jclass)&objects[4 + PROBE_MAX_RECEIVERS + 1])
#define NAMED "com/shop/Cart"
static jclass unloaded; /* a class the fake JVM has unloaded */

/* The WeakReference objects and arrays of them the agent makes (a pool:
 * nothing is freed). */
struct fake_ref {
    jobject referent;
};
struct fake_array {
    jsize n;
    jobject e[PROBE_MAX_RECEIVERS];
};
static struct fake_ref weak_refs[256];
static struct fake_array arrays[256];
static int n_refs, n_arrays;

static jclass JNICALL f_define(JNIEnv *env, const char *name, jobject loader, const jbyte *buf, jsize len)
{
    mct_err err;
    cf_class *c = cf_parse((const uint8_t *)buf, (size_t)len, &err);
    uint16_t i, natives = 0;

    if (c != NULL && strcmp(name, PROBE_CLASS) == 0 && strcmp(c->name, PROBE_CLASS) == 0 && loader == NULL) {
        for (i = 0; i < c->n_methods; i++) {
            if (c->methods[i].access & CF_ACC_NATIVE)
                natives++;
            if (c->methods[i].code && bc_scan(c->methods[i].code->code, c->methods[i].code->code_len, NULL, &err) < 0)
                natives = 0;
        }
        /* what the rewriter calls, and what the agent binds and times */
        defined_ok = natives == PROBE_N_NATIVES && cf_find_method(c, "free", "(I)V") != NULL && cf_find_method(c, "counting0", "()Z") != NULL &&
                     cf_find_method(c, "spin", "(I)V") != NULL &&
                     cf_find_method(c, "enter0", "(II)V") != NULL &&
                     cf_find_method(c, "enter", "(I)I") != NULL && cf_find_method(c, "exit", "(II)V") != NULL &&
                     cf_find_method(c, "fail", "(Ljava/lang/Throwable;I)V") != NULL &&
                     cf_find_method(c, "rootEnter", "(I)V") != NULL &&
                     cf_find_method(c, "rootEnterOn", "(Ljava/lang/Object;I)V") != NULL &&
                     cf_find_method(c, "rootExit", "(I)V") != NULL &&
                     cf_find_method(c, "rootFail", "(Ljava/lang/Throwable;I)V") != NULL &&
                     cf_find_method(c, "rootExitOn", "(I)V") != NULL &&
                     cf_find_method(c, "rootFailOn", "(Ljava/lang/Throwable;I)V") != NULL &&
                     cf_find_method(c, "wrapRun", "(Ljava/lang/Runnable;I)Ljava/lang/Runnable;") != NULL &&
                     cf_find_method(c, "wrapCall", "(Ljava/util/concurrent/Callable;I)Ljava/util/concurrent/Callable;") != NULL &&
                     cf_find_method(c, "wrapGet", "(Ljava/util/function/Supplier;I)Ljava/util/function/Supplier;") != NULL &&
                     cf_find_method(c, "wrapApply", "(Ljava/util/function/Function;I)Ljava/util/function/Function;") != NULL &&
                     cf_find_method(c, "wrapAccept", "(Ljava/util/function/Consumer;I)Ljava/util/function/Consumer;") != NULL &&
                     cf_find_method(c, "argI", "(I)V") != NULL &&
                     cf_find_method(c, "argL", "(Ljava/lang/Object;)V") != NULL;
    }
    cf_free(c);
    return fake_class;
}

static jint JNICALL f_register(JNIEnv *env, jclass cls, const JNINativeMethod *m, jint n)
{
    jint i;

    for (i = 0; i < n; i++) {
        if (strcmp(m[i].name, "enter0") == 0)
            n_enter0 = (native_ki)m[i].fnPtr;
        else if (strcmp(m[i].name, "exit0") == 0)
            n_exit0 = (native_ki)m[i].fnPtr;
        else if (strcmp(m[i].name, "fail0") == 0)
            n_fail0 = (native_tki)m[i].fnPtr;
        else if (strcmp(m[i].name, "rootBegin0") == 0)
            n_root_begin0 = (native_z_olkii)m[i].fnPtr;
        else if (strcmp(m[i].name, "rootNest0") == 0)
            n_root_nest0 = (native_kii)m[i].fnPtr;
        else if (strcmp(m[i].name, "rootOf0") == 0)
            n_root_of0 = (native_z_ki)m[i].fnPtr;
        else if (strcmp(m[i].name, "slots0") == 0)
            n_slots0 = (native_o)m[i].fnPtr;
        else if (strcmp(m[i].name, "counting0") == 0)
            n_counting0 = (native_z)m[i].fnPtr;
        else if (strcmp(m[i].name, "rootExit0") == 0)
            n_root_exit0 = (native_z_ki)m[i].fnPtr;
        else if (strcmp(m[i].name, "rootFail0") == 0)
            n_root_fail0 = (native_z_tki)m[i].fnPtr;
        else if (strcmp(m[i].name, "arg0") == 0)
            n_arg0 = (native_kij)m[i].fnPtr;
        else if (strcmp(m[i].name, "argRef0") == 0)
            n_arg_ref0 = (native_ko)m[i].fnPtr;
    }
    return 0;
}

static jobject JNICALL f_new_global(JNIEnv *env, jobject o)
{
    global_refs++;
    return o;
}

static void JNICALL f_delete_global(JNIEnv *env, jobject o)
{
    global_refs--;
}

static void JNICALL f_delete_local(JNIEnv *env, jobject o)
{
}

static jclass JNICALL f_get_class(JNIEnv *env, jobject o)
{
    return fake_exc_class;
}

/* Static fields: TABLE is id 1, receivers 2. */
static jfieldID JNICALL f_static_field(JNIEnv *env, jclass cls, const char *name, const char *sig)
{
    if (strcmp(name, "TABLE") == 0 && strcmp(sig, "[Ljava/lang/Thread;") == 0)
        return (jfieldID)(uintptr_t)1;
    if (strcmp(name, "receivers") == 0 && strcmp(sig, "[Ljava/lang/ref/WeakReference;") == 0)
        return (jfieldID)(uintptr_t)2;
    if (strcmp(name, "STATES") == 0 && strcmp(sig, "[Ljava/nio/ByteBuffer;") == 0)
        return (jfieldID)(uintptr_t)4;
    if (strcmp(name, "RINGS") == 0 && strcmp(sig, "[Ljava/nio/ByteBuffer;") == 0)
        return (jfieldID)(uintptr_t)5;
    if (strcmp(name, "writer") == 0 && strcmp(sig, "Z") == 0)
        return (jfieldID)(uintptr_t)6;
    return NULL;
}

static void JNICALL f_set_static_boolean(JNIEnv *env, jclass cls, jfieldID f, jboolean v)
{
    if ((uintptr_t)f == 6)
        writer_value = v;
}

static jobject JNICALL f_get_static_object(JNIEnv *env, jclass cls, jfieldID f)
{
    return (uintptr_t)f == 1   ? (jobject)&table_object
           : (uintptr_t)f == 4 ? (jobject)&states_object
           : (uintptr_t)f == 5 ? (jobject)&rings_object
                               : NULL;
}

static void JNICALL f_set_static_object(JNIEnv *env, jclass cls, jfieldID f, jobject v)
{
    if ((uintptr_t)f == 2)
        receiver_value = v;
}

/* A weak reference is the object itself; it is cleared once unloaded. */
static jboolean JNICALL f_same(JNIEnv *env, jobject a, jobject b)
{
    if (b == NULL)
        return a == NULL || a == unloaded;
    return a == b;
}

static jweak JNICALL f_new_weak(JNIEnv *env, jobject o)
{
    return o;
}

static void JNICALL f_delete_weak(JNIEnv *env, jweak o)
{
}

/* new WeakReference(referent): the only constructor the agent calls. */
static jobject JNICALL f_new_object(JNIEnv *env, jclass cls, jmethodID m, ...)
{
    va_list ap;

    if (n_refs == (int)(sizeof weak_refs / sizeof weak_refs[0]))
        return NULL;
    va_start(ap, m);
    weak_refs[n_refs].referent = va_arg(ap, jobject);
    va_end(ap);
    return (jobject)&weak_refs[n_refs++];
}

static jobjectArray JNICALL f_new_array(JNIEnv *env, jsize n, jclass cls, jobject init)
{
    if (n_arrays == (int)(sizeof arrays / sizeof arrays[0]) || n > PROBE_MAX_RECEIVERS)
        return NULL;
    arrays[n_arrays].n = n;
    return (jobjectArray)&arrays[n_arrays++];
}

static jsize table_length = ENTRIES * STRIDE; /* what the fake Probe.TABLE's length says */

static jsize JNICALL f_array_length(JNIEnv *env, jarray a)
{
    if (a == (jarray)&states_object || a == (jarray)&rings_object)
        return ENTRIES + 1;
    return a == (jarray)&table_object ? table_length : 0;
}

static void JNICALL f_set_element(JNIEnv *env, jobjectArray a, jsize i, jobject v)
{
    if (a == (jobjectArray)&table_object)
        table_value[i] = v;
    else if (a == (jobjectArray)&states_object)
        states_value[i] = v;
    else if (a == (jobjectArray)&rings_object)
        rings_value[i] = v;
    else
        ((struct fake_array *)a)->e[i] = v;
}

static jclass JNICALL f_find_class(JNIEnv *env, const char *name)
{
    return fake_class;
}

static jmethodID JNICALL f_method_id(JNIEnv *env, jclass cls, const char *name, const char *sig)
{
    return (jmethodID)(uintptr_t)1;
}

/* Probe.free is method 2, ByteOrder.nativeOrder 3. */
static jmethodID JNICALL f_static_method_id(JNIEnv *env, jclass cls, const char *name, const char *sig)
{
    if (strcmp(name, "nativeOrder") == 0 && strcmp(sig, "()Ljava/nio/ByteOrder;") == 0)
        return (jmethodID)(uintptr_t)3;
    return strcmp(name, "free") == 0 && strcmp(sig, "(I)V") == 0 ? (jmethodID)(uintptr_t)2 : NULL;
}

static jobject JNICALL f_call_static_object(JNIEnv *env, jclass cls, jmethodID m, ...)
{
    return (uintptr_t)m == 3 ? (jobject)&order_object : NULL;
}

/* ByteBuffer.order(ByteOrder): the buffer itself. */
static jobject JNICALL f_call_object(JNIEnv *env, jobject o, jmethodID m, ...)
{
    return o;
}

/* Probe.OWNER: who holds each entry (an AtomicReferenceArray). */
static _Atomic(jobject) owner[ENTRIES * STRIDE];

static void JNICALL f_call_static_void(JNIEnv *env, jclass cls, jmethodID m, ...)
{
    va_list ap;

    va_start(ap, m);
    if ((uintptr_t)m == 2)
        atomic_store(&owner[va_arg(ap, jint)], NULL);
    va_end(ap);
}

/* Probe.SLOTS: the native memory the direct buffer wraps. */
static unsigned char *slots_mem;

/* A direct buffer is its address (the writer's, over a state or a ring). */
static jobject JNICALL f_new_direct(JNIEnv *env, void *address, jlong capacity)
{
    if (capacity == (jlong)sizeof(probe_slots))
        slots_mem = address;
    return (jobject)address;
}

static jboolean JNICALL f_call_boolean(JNIEnv *env, jobject o, jmethodID m, ...)
{
    return (jboolean)virtual_answer;
}

static int virtual_throws; /* Thread.isVirtual throws */

static jboolean JNICALL f_exception_check(JNIEnv *env)
{
    return virtual_throws ? JNI_TRUE : JNI_FALSE;
}

static void JNICALL f_exception_clear(JNIEnv *env)
{
}

/* This test thread is now Java thread t, whose id is its address. */
static void be(jobject t)
{
    current = t;
    current_id = (jlong)(uintptr_t)t;
}

/* Probe.first and Probe.second: the two entries of thread id id, as
 * indexes of Probe.TABLE. */
static int first_entry(jlong id)
{
    return ((int)id & (ENTRIES - 1)) * STRIDE;
}

static int second_entry(jlong id)
{
    return (int)(((uint64_t)id * 0x9E3779B97F4A7C15ull) >> 54) * STRIDE;
}

/* The probe class's Java code: the entry of the current thread, then the
 * native with it (or not at all). Probe.entry: */
static int java_entry(void)
{
    int a = first_entry(current_id), b = second_entry(current_id);

    if (current != NULL && table_value[a] == current)
        return a;
    return current != NULL && table_value[b] == current ? b : -1;
}

/* Probe.held, for the entry methods' probes: also an entry call not
 * sampled (the element after the entry's). */
static int java_held(void)
{
    int a = first_entry(current_id), b = second_entry(current_id);

    if (current == NULL)
        return -1;
    if (table_value[a] == current)
        return a;
    if (table_value[a + 1] == current)
        return a + 1;
    if (table_value[b] == current)
        return b;
    return table_value[b + 1] == current ? b + 1 : -1;
}

/* How many natives the probes of an instrumented method called. */
static int inner_natives;

static void p_enter(JNIEnv *e, jclass cls, jint id)
{
    int k = java_entry();

    if (k >= 0) {
        inner_natives++;
        n_enter0(e, cls, k, id);
    }
}

static void p_exit(JNIEnv *e, jclass cls, jint id)
{
    int k = java_entry();

    if (k >= 0) {
        inner_natives++;
        n_exit0(e, cls, k, id);
    }
}

static void p_fail(JNIEnv *e, jclass cls, jthrowable ex, jint id)
{
    int k = java_entry();

    if (k >= 0)
        n_fail0(e, cls, ex, k, id);
}

/* Probe.SLOTS's layout (Probe.SLOT, SEEN, COUNTDOWN, COUNTDOWN_SESSION,
 * NEST): the slot of entry index k at 128 + k * 8. */
static uint64_t *slot_u8(int k, int off)
{
    return (uint64_t *)(slots_mem + 128 + (size_t)k * 8 + off);
}

static uint32_t *slot_u4(int k, int off)
{
    return (uint32_t *)(slots_mem + 128 + (size_t)k * 8 + off);
}

/* Probe.claim: one of the current thread's two entries, now held. */
static int java_claim(void)
{
    int k[2] = {first_entry(current_id), second_entry(current_id)};
    int i;

    for (i = 0; i < 2; i++) {
        jobject none = NULL;

        if (atomic_compare_exchange_strong(&owner[k[i]], &none, current))
            return k[i];
    }
    return -1;
}

/* Probe.sampled */
static int java_sampled(int e, uint32_t s, uint64_t n)
{
    uint64_t left;

    if (*slot_u4(e, 16) != s) {
        *slot_u4(e, 16) = s;
        left = (uint64_t)(e / STRIDE + 1) * 0x9E3779B97F4A7C15ull % n + 1;
    } else {
        left = *slot_u8(e, 8);
    }
    if (--left > 0) {
        *slot_u8(e, 8) = left;
        return 0;
    }
    *slot_u8(e, 8) = n;
    return 1;
}

/* How many natives rootEnterOn, rootExitOn and rootFailOn called. */
static int natives_called;
static int in_on;
/* How many natives the entry methods' probes called (Probe.rootOf0 aside:
 * the Java side asks it once per method and session). */
static int root_natives; /* the probe being emulated is one of those */

/* Probe.rootEnter(id, how) (Probe.root's cache aside: the agent is asked
 * each time). */
static void java_root_enter(JNIEnv *e, jclass cls, jint id, int how)
{
    int k = java_held(), c;
    uint64_t control;
    uint32_t s;

    if (k >= 0) {
        if (k % STRIDE == 0) {
            natives_called += in_on;
            root_natives++;
            n_root_nest0(e, cls, k, id, how);
        } else {
            (*slot_u4(k - 1, 20))++;
        }
        return;
    }
    control = *(volatile uint64_t *)slots_mem;
    s = (uint32_t)control;
    if (how == 2 || s == 0 || !n_root_of0(e, cls, (jint)s, id))
        return;
    natives_called += in_on;
    if ((c = java_claim()) < 0) {
        root_natives++;
        n_root_begin0(e, cls, current, current_id, -1, id, how);
        return;
    }
    (*slot_u8(c, 0))++;
    if (control >> 32 > 1 && !java_sampled(c, s, control >> 32)) {
        *slot_u4(c, 20) = 1;
        table_value[c + 1] = current;
        return;
    }
    if (*(volatile uint32_t *)slot_u4(c, 32) != 0) {
        (*slot_u8(c, 24))++;
        atomic_store(&owner[c], NULL);
        return;
    }
    root_natives++;
    if (!n_root_begin0(e, cls, current, current_id, c, id, how))
        atomic_store(&owner[c], NULL);
}

/* Probe.rootLeave */
static void java_root_leave(JNIEnv *e, jclass cls, jthrowable ex, jint id)
{
    int k = java_held();

    if (k < 0)
        return;
    if (k % STRIDE == 0) {
        natives_called += in_on;
        root_natives++;
        if (ex == NULL ? n_root_exit0(e, cls, k, id) : n_root_fail0(e, cls, ex, k, id))
            atomic_store(&owner[k], NULL);
        return;
    }
    if (--(*slot_u4(k - 1, 20)) == 0) {
        table_value[k] = NULL;
        atomic_store(&owner[k - 1], NULL);
    }
}

static void p_root_enter(JNIEnv *e, jclass cls, jint id)
{
    java_root_enter(e, cls, id, 0);
}

/* WeakReference.get() of a reference the agent made. */
static jobject ref_get(jobject w)
{
    jobject o = ((struct fake_ref *)w)->referent;

    return o == unloaded ? NULL : o;
}

/* rootEnterOn, on an instance of class of: the named class's when of is a
 * copy in Probe.receivers (isInstance). */
static void p_root_enter_on(JNIEnv *e, jclass cls, jclass of, jint id)
{
    const struct fake_array *r = (const struct fake_array *)receiver_value;
    int i, named = 0;

    for (i = 0; r != NULL && i < r->n && !named; i++)
        named = ref_get(r->e[i]) != NULL && ref_get(r->e[i]) == of;
    in_on = 1;
    java_root_enter(e, cls, id, named ? 1 : 2);
    in_on = 0;
}

static void p_root_exit(JNIEnv *e, jclass cls, jint id)
{
    java_root_leave(e, cls, NULL, id);
}

/* rootExitOn and rootFailOn, the exits of an inherited entry method: native
 * only for a thread in a traced call, as exit and fail. */

static void p_root_exit_on(JNIEnv *e, jclass cls, jint id)
{
    in_on = 1;
    java_root_leave(e, cls, NULL, id);
    in_on = 0;
}

static void p_root_fail_on(JNIEnv *e, jclass cls, jthrowable ex, jint id)
{
    in_on = 1;
    java_root_leave(e, cls, ex, id);
    in_on = 0;
}

static void p_root_fail(JNIEnv *e, jclass cls, jthrowable ex, jint id)
{
    java_root_leave(e, cls, ex, id);
}

static struct JNINativeInterface_ jni_fns;
static const struct JNINativeInterface_ *jni_obj = &jni_fns;
static JNIEnv *env = (JNIEnv *)&jni_obj;
static struct jvmtiInterface_1_ jvmti_fns;
static const struct jvmtiInterface_1_ *jvmti_obj = &jvmti_fns;
static jvmtiEnv *jvmti = (jvmtiEnv *)&jvmti_obj;

static int32_t ROOT, OTHER_ROOT, OWN_ROOT, A, B, C, D;

/* This thread's state: the first one registered (other threads come later). */
static probe_thread *me(void)
{
    static probe_thread *mine;

    if (mine == NULL)
        mine = probe_threads();
    return mine;
}

/* The events of the last published call(s) since the last consume. */
static size_t pending(probe_thread *t, probe_ev *out, size_t max)
{
    uint64_t from = atomic_load(&t->consumed), to = atomic_load(&t->published), p;
    size_t n = 0;

    for (p = from; p < to && n < max; p++)
        out[n++] = *probe_event(t, p);
    atomic_store(&t->consumed, to);
    return n;
}

/* The String argument of test_args: the only instance FindClass's class
 * (String and Enum alike here) has. */
static int string_obj;

static jfieldID JNICALL f_field(JNIEnv *e, jclass cls, const char *name, const char *sig)
{
    return (jfieldID)(uintptr_t)3;
}

static jboolean JNICALL f_is_instance(JNIEnv *e, jobject o, jclass cls)
{
    return o == (jobject)&string_obj ? JNI_TRUE : JNI_FALSE;
}

static jsize JNICALL f_string_length(JNIEnv *e, jstring s)
{
    return 10;
}

static void JNICALL f_string_region(JNIEnv *e, jstring s, jsize start, jsize len, jchar *buf)
{
    for (jsize i = 0; i < len; i++)
        buf[i] = (jchar)('a' + start + i);
}

static void test_install(void)
{
    mct_err err;

    jni_fns.DefineClass = f_define;
    jni_fns.RegisterNatives = f_register;
    jni_fns.NewGlobalRef = f_new_global;
    jni_fns.DeleteGlobalRef = f_delete_global;
    jni_fns.DeleteLocalRef = f_delete_local;
    jni_fns.GetObjectClass = f_get_class;
    jni_fns.GetStaticFieldID = f_static_field;
    jni_fns.SetStaticObjectField = f_set_static_object;
    jni_fns.GetStaticObjectField = f_get_static_object;
    jni_fns.IsSameObject = f_same;
    jni_fns.FindClass = f_find_class;
    jni_fns.GetMethodID = f_method_id;
    jni_fns.CallBooleanMethod = f_call_boolean;
    jni_fns.ExceptionCheck = f_exception_check;
    jni_fns.ExceptionClear = f_exception_clear;
    jni_fns.NewWeakGlobalRef = f_new_weak;
    jni_fns.DeleteWeakGlobalRef = f_delete_weak;
    jni_fns.NewObject = f_new_object;
    jni_fns.NewObjectArray = f_new_array;
    jni_fns.SetObjectArrayElement = f_set_element;
    jni_fns.GetArrayLength = f_array_length;
    jni_fns.GetStaticMethodID = f_static_method_id;
    jni_fns.CallStaticVoidMethod = f_call_static_void;
    jni_fns.NewDirectByteBuffer = f_new_direct;
    jni_fns.CallStaticObjectMethod = f_call_static_object;
    jni_fns.CallObjectMethod = f_call_object;
    jni_fns.SetStaticBooleanField = f_set_static_boolean;
    jni_fns.GetFieldID = f_field;
    jni_fns.IsInstanceOf = f_is_instance;
    jni_fns.GetStringLength = f_string_length;
    jni_fns.GetStringRegion = f_string_region;
    /* A probe class whose table is not what the natives index (its
     * constants differ from probe.c's) is refused, clearly. */
    table_length = 1024 * 8;
    CHECK(probe_install(env, jvmti, 0, &err) == -1);
    CHECK_STR(err.msg, "mcalltree/agent/Probe.TABLE has 8192 elements, the agent's natives expect 16384: "
                       "Probe.java's ENTRIES and STRIDE differ from probe.c's (rebuild with them equal)");
    table_length = ENTRIES * STRIDE;
    CHECK(probe_install(env, jvmti, 0, &err) == 0);
    CHECK(defined_ok);
    CHECK(n_enter0 && n_exit0 && n_fail0 && n_root_begin0 && n_root_nest0 && n_root_exit0 && n_root_fail0 &&
          n_root_of0 && n_slots0 && n_counting0 && n_arg0 && n_arg_ref0);
    /* The class initializes: its SLOTS. */
    if (n_slots0 != NULL)
        n_slots0(env, fake_class);
    CHECK(slots_mem != NULL);
    CHECK(n_counting0 != NULL && n_counting0(env, fake_class) == JNI_FALSE);
    CHECK(probe_install(env, jvmti, 0, &err) == 0); /* idempotent */
    CHECK_STR(probe_methods(1)->enter, "rootEnter");
    CHECK_STR(probe_methods(0)->fail, "fail");
    CHECK_STR(probe_methods(PLAN_ROOT_RECEIVER)->enter, "rootEnterOn");
    CHECK_STR(probe_methods(PLAN_ROOT_RECEIVER)->exit, "rootExitOn");
    CHECK_STR(probe_methods(PLAN_ROOT_RECEIVER)->fail, "rootFailOn");
    CHECK_INT(probe_methods(PLAN_ROOT_RECEIVER)->enter_receiver, 1);
    CHECK_INT(probe_methods(PLAN_ROOT)->enter_receiver, 0);
    /* the plain probes keep the entry's look-up for the exit; the entry
     * methods' look up their own (their exit may give the entry back) */
    CHECK_INT(probe_methods(0)->keep, 1);
    CHECK_INT(probe_methods(PLAN_ROOT)->keep, 0);
    CHECK_INT(probe_methods(PLAN_ROOT_RECEIVER)->keep, 0);
}

static void test_outside_session(void)
{
    p_root_enter(env, fake_class, ROOT);
    p_enter(env, fake_class, A);
    p_exit(env, fake_class, A);
    p_root_exit(env, fake_class, ROOT);
    CHECK(probe_threads() == NULL); /* nothing traced, no state made */
}

/* depth 3: root, A, B recorded; C at depth 4 is not. */
static void test_depth_limit(void)
{
    probe_ev ev[16];
    size_t n;

    probe_session_begin(1, 3);
    p_enter(env, fake_class, A); /* outside a traced call: nothing */
    p_root_enter(env, fake_class, ROOT);
    CHECK(me() != NULL);
    /* the probe class, its TABLE, STATES and RINGS, WeakReference, String,
     * Enum, the native byte order and the Thread */
    CHECK_INT(global_refs, 9);
    CHECK(table_value[first_entry(current_id)] == fake_thread); /* the Java side now sees this thread trace */
    p_enter(env, fake_class, A);
    p_enter(env, fake_class, B);
    p_enter(env, fake_class, C);
    p_exit(env, fake_class, C);
    p_exit(env, fake_class, B);
    p_exit(env, fake_class, A);
    p_root_exit(env, fake_class, ROOT);
    CHECK(table_value[first_entry(current_id)] == NULL); /* and no longer once its call ended */
    n = pending(me(), ev, 16);
    CHECK_INT(n, 6);
    CHECK_INT(PROBE_KIND(ev[0].kind), PROBE_ROOT_ENTER);
    CHECK_INT(PROBE_LEN(ev[0].kind), 6);
    CHECK_INT(ev[1].id, A);
    CHECK_INT(ev[2].id, B);
    CHECK_INT(PROBE_KIND(ev[3].kind), PROBE_EXIT);
    CHECK_INT(ev[3].id, B);
    CHECK_INT(PROBE_KIND(ev[5].kind), PROBE_ROOT_EXIT);
    CHECK_INT(PROBE_SESSION(ev[5].kind), 1);
    CHECK(ev[5].t >= ev[0].t);
    CHECK_INT(me()->depth, 0);
}

/* --args: the entry method's arguments right after its start, each as
 * the rewriter passes it (the Java side's check first); a String cut to
 * the session's length, any other object held by a global ref; none once
 * another event was recorded, none outside a traced call. */
static void test_args(void)
{
    probe_ev ev[16];
    size_t n;
    int refs = global_refs, k;

    probe_set_args(1, 6);
    CHECK_STR(probe_methods(PLAN_ROOT)->arg, "arg");
    CHECK_STR(probe_methods(PLAN_ROOT_RECEIVER)->arg, "arg");
    CHECK(probe_methods(0)->arg == NULL);
    n_arg0(env, fake_class, java_entry(), 4, -7); /* outside a traced call: the Java side never calls */
    p_root_enter(env, fake_class, ROOT);
    k = java_entry();
    CHECK(k >= 0);
    n_arg0(env, fake_class, k, 4, -7);                   /* int -7, widened */
    n_arg0(env, fake_class, k, 1, -7);                   /* byte -7 */
    n_arg_ref0(env, fake_class, k, NULL);
    n_arg_ref0(env, fake_class, k, (jobject)&string_obj); /* "abcdefghij", kept to 6 */
    n_arg_ref0(env, fake_class, k, (jobject)fake_other);
    p_enter(env, fake_class, A);
    n_arg0(env, fake_class, k, 4, 1);                    /* not right after the start: dropped */
    p_exit(env, fake_class, A);
    p_root_exit(env, fake_class, ROOT);
    n = pending(me(), ev, 16);
    CHECK_INT(n, 11);
    CHECK_INT(PROBE_LEN(ev[0].kind), 11);
    CHECK(PROBE_KIND(ev[1].kind) == PROBE_ARG && PROBE_ARG_TYPE(ev[1].kind) == PROBE_ARG_INT &&
          ev[1].t == 0xfffffff9u && PROBE_ARG_EVENTS(ev[1].kind) == 0);
    CHECK(PROBE_ARG_TYPE(ev[2].kind) == PROBE_ARG_BYTE && ev[2].t == 0xf9u);
    CHECK(PROBE_ARG_TYPE(ev[3].kind) == PROBE_ARG_NULL && probe_ev_ref(&ev[3]) == NULL);
    CHECK(PROBE_ARG_TYPE(ev[4].kind) == PROBE_ARG_STRING && ev[4].t == 6 && ev[4].id == 10 &&
          PROBE_ARG_EVENTS(ev[4].kind) == 2);
    CHECK(PROBE_KIND(ev[5].kind) == PROBE_ARG_CHARS && ev[5].t == 0x0064006300620061ull);
    CHECK(PROBE_KIND(ev[6].kind) == PROBE_ARG_CHARS && ev[6].t == 0x00660065u);
    CHECK(PROBE_ARG_TYPE(ev[7].kind) == PROBE_ARG_OBJECT && probe_ev_ref(&ev[7]) == (void *)fake_other);
    CHECK_INT(global_refs, refs + 1);
    CHECK(PROBE_KIND(ev[8].kind) == PROBE_ENTER && PROBE_KIND(ev[9].kind) == PROBE_EXIT &&
          PROBE_KIND(ev[10].kind) == PROBE_ROOT_EXIT);
    global_refs = refs; /* the worker would free it */
    probe_set_args(0, 64);
    CHECK(probe_methods(PLAN_ROOT)->arg == NULL);
}

static void test_foreign_roots(void)
{
    probe_ev ev[4];

    p_root_enter(env, fake_class, OTHER_ROOT); /* a root of session 2 */
    p_root_exit(env, fake_class, OTHER_ROOT);
    p_root_enter(env, fake_class, A); /* not a root */
    p_root_exit(env, fake_class, A);
    CHECK_INT(pending(me(), ev, 4), 0);
    probe_session_end(env);
    p_root_enter(env, fake_class, ROOT);
    p_root_exit(env, fake_class, ROOT);
    CHECK_INT(pending(me(), ev, 4), 0);
    probe_session_begin(1, 3);
}

/* A call that outlives its session says so: the next session drops it. */
static void test_call_outlives_session(void)
{
    probe_ev ev[8];
    size_t n;

    p_root_enter(env, fake_class, ROOT);
    p_enter(env, fake_class, A);
    probe_session_end(env);
    probe_session_begin(2, 3);
    p_exit(env, fake_class, A);
    p_root_exit(env, fake_class, ROOT);
    n = pending(me(), ev, 8);
    CHECK_INT(n, 4);
    CHECK_INT(PROBE_SESSION(ev[3].kind), 1);
    probe_session_begin(1, 3);
}

/* Recursion nests; a frame that missed its exit (D) is left to the tree
 * builder, and depth comes back at the entry method's exit. */
static void test_nesting_and_missed_exit(void)
{
    probe_ev ev[16];
    size_t n;

    p_root_enter(env, fake_class, ROOT);
    p_enter(env, fake_class, D);          /* depth 2, never exits */
    p_root_enter(env, fake_class, ROOT);  /* depth 3 */
    p_root_exit(env, fake_class, ROOT);
    CHECK_INT(me()->depth, 2);
    p_root_exit(env, fake_class, ROOT);   /* the outer one: D was missed */
    CHECK_INT(me()->depth, 0);
    n = pending(me(), ev, 16);
    CHECK_INT(n, 5);
    CHECK_INT(PROBE_LEN(ev[0].kind), 5);
    CHECK_INT(PROBE_KIND(ev[2].kind), PROBE_ROOT_ENTER);
    CHECK_INT(PROBE_LEN(ev[2].kind), 0);   /* only the outermost carries the length */
    CHECK_INT(PROBE_KIND(ev[4].kind), PROBE_ROOT_EXIT);
}

static void test_exception(void)
{
    probe_ev ev[8];
    size_t n;
    int refs = global_refs;

    p_root_enter(env, fake_class, ROOT);
    p_enter(env, fake_class, A);
    p_fail(env, fake_class, fake_exc, A);
    p_root_fail(env, fake_class, fake_exc, ROOT);
    n = pending(me(), ev, 8);
    CHECK_INT(n, 5);
    CHECK_INT(PROBE_KIND(ev[2].kind), PROBE_FAIL);
    CHECK_INT(PROBE_KIND(ev[3].kind), PROBE_EXCEPTION);
    CHECK(ev[3].t == (uint64_t)(uintptr_t)fake_exc_class);
    CHECK_INT(PROBE_KIND(ev[4].kind), PROBE_ROOT_FAIL);
    CHECK_INT(global_refs, refs + 1); /* the worker frees it */
}

/* More events than the ring holds: later enters are lost, the exits of the
 * frames already recorded are kept, and the tree says truncated. */
static void test_overflow(void)
{
    static probe_ev ev[PROBE_RING_MIN];
    tree_opts o = {.cal = {.ns_per_tick = 1.0}};
    mct_err err;
    tree *tr;
    size_t n, i;
    int overflow = 0;

    probe_session_begin(1, 64);
    p_root_enter(env, fake_class, ROOT);
    p_enter(env, fake_class, A);
    for (i = 0; i < PROBE_RING_MIN; i++) {
        p_enter(env, fake_class, B);
        p_exit(env, fake_class, B);
    }
    p_exit(env, fake_class, A);
    p_root_exit(env, fake_class, ROOT);
    n = pending(me(), ev, PROBE_RING_MIN);
    CHECK(n > PROBE_RING_MIN - 100 && n <= PROBE_RING_MIN);
    for (i = 0; i < n; i++)
        overflow += PROBE_KIND(ev[i].kind) == PROBE_OVERFLOW;
    CHECK_INT(overflow, 1);
    CHECK_INT(PROBE_KIND(ev[n - 2].kind), PROBE_EXIT);
    CHECK_INT(ev[n - 2].id, A);
    CHECK_INT(PROBE_KIND(ev[n - 1].kind), PROBE_ROOT_EXIT);
    CHECK_INT(PROBE_LEN(ev[0].kind), n);
    tr = tree_build(ev, n, &o, &err);
    CHECK(tr != NULL);
    if (tr != NULL) {
        json_t *j = tree_to_json(tr, 1, 1, "t", NULL, 1);
        json_t *root = json_object_get(j, "root");
        json_t *a = json_array_get(json_object_get(root, "children"), 0);

        CHECK(json_is_true(json_object_get(root, "truncated")));
        CHECK(json_is_true(json_object_get(a, "truncated")));
        CHECK(json_object_get(json_array_get(json_object_get(a, "children"), 0), "truncated") == NULL);
        json_decref(j);
        tree_free(tr);
    }
    probe_session_begin(1, 3);
}

/* An inherited entry method (ROOT, rootEnterOn): a call on another class
 * is nothing outside a traced call and an ordinary node inside one; a call
 * on the named class is traced, and the named class's own entry method
 * (OWN_ROOT) called right from it costs no level of the depth (2 here). */
static void test_receiver(void)
{
    probe_ev ev[16];
    size_t n;

    probe_session_begin(1, 2);
    CHECK_INT(probe_receivers_begin(env, NAMED), 0);
    CHECK_INT(probe_receiver_add(env, fake_class, NAMED), 1);
    natives_called = 0;
    p_root_enter_on(env, fake_class, fake_other, ROOT);
    p_enter(env, fake_class, A);
    p_exit(env, fake_class, A);
    p_root_exit_on(env, fake_class, ROOT);
    p_root_enter_on(env, fake_class, fake_other, ROOT);
    p_root_fail_on(env, fake_class, fake_exc, ROOT);
    CHECK_INT(natives_called, 0); /* as an untraced ordinary call: all in Java */
    CHECK_INT(pending(me(), ev, 16), 0);
    CHECK_INT(me()->depth, 0);

    p_root_enter_on(env, fake_class, fake_class, ROOT);  /* depth 1: traced */
    p_root_enter_on(env, fake_class, fake_other, ROOT);  /* depth 2: another class's */
    p_enter(env, fake_class, A);                /* depth 3: not recorded */
    p_exit(env, fake_class, A);
    p_root_exit_on(env, fake_class, ROOT);
    CHECK_INT(me()->depth, 1);
    p_root_enter(env, fake_class, OWN_ROOT);    /* depth 2, costs no level */
    p_enter(env, fake_class, B);                /* depth 3: recorded */
    p_enter(env, fake_class, C);                /* depth 4: not */
    p_exit(env, fake_class, C);
    p_exit(env, fake_class, B);
    p_root_exit(env, fake_class, OWN_ROOT);
    CHECK_INT(me()->max_depth, 2);
    p_enter(env, fake_class, A);                /* depth 2 */
    p_enter(env, fake_class, C);                /* depth 3: not recorded */
    p_exit(env, fake_class, C);
    p_exit(env, fake_class, A);
    p_root_exit_on(env, fake_class, ROOT);
    CHECK_INT(me()->depth, 0);
    n = pending(me(), ev, 16);
    CHECK_INT(n, 10);
    CHECK_INT(PROBE_KIND(ev[0].kind), PROBE_ROOT_ENTER);
    CHECK_INT(PROBE_LEN(ev[0].kind), 10);
    CHECK_INT(PROBE_KIND(ev[1].kind), PROBE_ENTER);  /* the call on another class */
    CHECK_INT(ev[1].id, ROOT);
    CHECK_INT(ev[2].id, ROOT);
    CHECK_INT(PROBE_KIND(ev[3].kind), PROBE_ROOT_ENTER);
    CHECK_INT(ev[3].id, OWN_ROOT);
    CHECK_INT(PROBE_KIND(ev[4].kind), PROBE_ENTER);
    CHECK_INT(ev[4].id, B);
    CHECK_INT(PROBE_KIND(ev[5].kind), PROBE_EXIT);
    CHECK_INT(ev[5].id, B);
    CHECK_INT(PROBE_KIND(ev[6].kind), PROBE_ROOT_EXIT);
    CHECK_INT(ev[6].id, OWN_ROOT);
    CHECK_INT(ev[7].id, A);
    CHECK_INT(ev[8].id, A);
    CHECK_INT(PROBE_KIND(ev[9].kind), PROBE_ROOT_EXIT);
    CHECK_INT(PROBE_SESSION(ev[9].kind), 1);

    /* Right from a plain entry method, the own one costs a level. */
    p_root_enter(env, fake_class, ROOT);
    p_root_enter(env, fake_class, OWN_ROOT);
    p_enter(env, fake_class, B);                /* depth 3: not recorded */
    p_exit(env, fake_class, B);
    p_root_exit(env, fake_class, OWN_ROOT);
    p_root_exit(env, fake_class, ROOT);
    CHECK_INT(pending(me(), ev, 16), 4);

    probe_session_end(env);
    CHECK(receiver_value == NULL);
    probe_session_begin(1, 3);
}

/* The named class in several loaders: a call on an instance of any copy
 * added is traced, on another class's not; a copy is held once, and weakly:
 * one whose class was unloaded is dropped when another is added; at most
 * PROBE_MAX_RECEIVERS are held; after the session none is added. */
static void test_receiver_copies(void)
{
    const struct fake_array *r;
    probe_ev ev[8];
    int refs = global_refs, i;

    probe_session_begin(1, 3);
    CHECK_INT(probe_receivers_begin(env, NAMED), 0);
    CHECK(receiver_value == NULL);
    CHECK_INT(probe_receiver_add(env, fake_class, NAMED), 1);
    CHECK_INT(probe_receiver_add(env, fake_class, NAMED), 0);
    CHECK_INT(probe_receiver_add(env, fake_other, "com/shop/Other"), 0);
    CHECK_INT(probe_receiver_add(env, fake_copy(0), NAMED), 1);
    p_root_enter_on(env, fake_class, fake_copy(0), ROOT);
    p_root_exit_on(env, fake_class, ROOT);
    p_root_enter_on(env, fake_class, fake_class, ROOT);
    p_root_exit_on(env, fake_class, ROOT);
    p_root_enter_on(env, fake_class, fake_other, ROOT);
    p_root_exit_on(env, fake_class, ROOT);
    CHECK_INT(pending(me(), ev, 8), 4);
    CHECK_INT(PROBE_KIND(ev[0].kind), PROBE_ROOT_ENTER);
    CHECK_INT(PROBE_KIND(ev[2].kind), PROBE_ROOT_ENTER);

    unloaded = fake_copy(0);
    for (i = 1; i < PROBE_MAX_RECEIVERS; i++)
        CHECK_INT(probe_receiver_add(env, fake_copy(i), NAMED), 1);
    CHECK_INT(probe_receiver_add(env, fake_copy(PROBE_MAX_RECEIVERS), NAMED), -1);
    r = (const struct fake_array *)receiver_value;
    CHECK(r != NULL && r->n == PROBE_MAX_RECEIVERS);
    for (i = 0; r != NULL && i < r->n; i++)
        CHECK(ref_get(r->e[i]) != NULL && ref_get(r->e[i]) != fake_copy(PROBE_MAX_RECEIVERS));
    p_root_enter_on(env, fake_class, fake_copy(PROBE_MAX_RECEIVERS - 1), ROOT);
    p_root_exit_on(env, fake_class, ROOT);
    CHECK_INT(pending(me(), ev, 8), 2);
    unloaded = NULL;

    probe_session_end(env);
    CHECK(receiver_value == NULL);
    CHECK_INT(global_refs, refs); /* every WeakReference let go */
    CHECK_INT(probe_receiver_add(env, fake_copy(1), NAMED), 0);
    CHECK(receiver_value == NULL);
    probe_session_begin(1, 3);
}

/* Inherited and own entry methods nested pair by pair (k deep), each pair
 * right inside the other: only the outermost pair costs no level, so a call
 * that overflows its ring with every recorded frame open writes no more
 * than the ring's reserve holds past the limit. Before, every pair raised
 * the depth limit by one, the exits written after the overflow went past
 * the ring's end, and they overwrote calls the worker had not read yet. */
static void test_nested_pairs_overflow(void)
{
    enum { DEPTH = 16, PAIRS = 8 };
    static probe_ev ev[PROBE_RING_MIN];
    tree_opts o = {.cal = {.ns_per_tick = 1.0}};
    probe_thread *t = me();
    probe_ev earlier[2];
    uint64_t consumed, n, i;
    int k, c = 0, exc = 0;
    mct_err err;
    tree *tr;

    pending(t, ev, PROBE_RING_MIN);
    probe_session_begin(1, DEPTH);
    probe_receivers_begin(env, NAMED);
    probe_receiver_add(env, fake_class, NAMED);
    /* A call the worker has not read yet. */
    p_root_enter(env, fake_class, ROOT);
    p_root_exit(env, fake_class, ROOT);
    consumed = atomic_load(&t->consumed);
    CHECK_INT(atomic_load(&t->published) - consumed, 2);
    earlier[0] = *probe_event(t, consumed);
    earlier[1] = *probe_event(t, consumed + 1);

    for (k = 0; k < PAIRS; k++) {
        p_root_enter_on(env, fake_class, fake_class, ROOT);
        p_root_enter(env, fake_class, OWN_ROOT);
    }
    CHECK_INT(t->max_depth, DEPTH + 1);
    /* Every level down to the limit recorded, then overflow there. */
    while (t->depth < t->max_depth - 1) {
        p_enter(env, fake_class, C);
        c++;
    }
    for (i = 0; i < PROBE_RING_MIN; i++) {
        p_enter(env, fake_class, A);
        p_exit(env, fake_class, A);
    }
    CHECK(t->full_depth >= 0);
    while (c-- > 0)
        p_exit(env, fake_class, C);
    for (k = 0; k < PAIRS; k++) {
        p_root_exit(env, fake_class, OWN_ROOT);
        if (k < PAIRS - 1)
            p_root_exit_on(env, fake_class, ROOT);
    }
    p_root_fail_on(env, fake_class, fake_exc, ROOT);
    CHECK_INT(t->depth, 0);
    CHECK(t->w - consumed <= t->mask + 1);
    CHECK(memcmp(probe_event(t, consumed), &earlier[0], sizeof earlier[0]) == 0);
    CHECK(memcmp(probe_event(t, consumed + 1), &earlier[1], sizeof earlier[1]) == 0);
    atomic_store(&t->consumed, consumed + 2);
    n = pending(t, ev, PROBE_RING_MIN);
    CHECK_INT(PROBE_KIND(ev[0].kind), PROBE_ROOT_ENTER);
    CHECK_INT(PROBE_LEN(ev[0].kind), n);
    CHECK_INT(PROBE_KIND(ev[n - 1].kind), PROBE_ROOT_FAIL);
    for (i = 0; i < n; i++)
        if (PROBE_KIND(ev[i].kind) == PROBE_EXCEPTION) {
            exc++;
            CHECK(ev[i].t == (uint64_t)(uintptr_t)fake_exc_class);
        }
    CHECK_INT(exc, 1);
    global_refs--; /* the worker frees the exception's class */
    tr = tree_build(ev, n, &o, &err);
    CHECK(tr != NULL);
    tree_free(tr);
    probe_session_end(env);
    probe_session_begin(1, 3);
}

/* Whether no element of Probe.TABLE holds a thread, and no entry is held. */
static int table_empty(void)
{
    size_t i;

    for (i = 0; i < ENTRIES * STRIDE; i++)
        if (table_value[i] != NULL || atomic_load(&owner[i]) != NULL)
            return 0;
    return 1;
}

/* A ring the worker has not drained refuses new calls (counted), and a
 * bigger ring offered by the worker is taken at the next call. */
static void test_drop_and_grow(void)
{
    probe_thread *t = me();
    probe_ev ev[8];
    uint64_t cap, traced, dropped = probe_dropped(), seen = probe_seen(), native_drops = atomic_load(&t->dropped);
    int i;

    root_natives = 0;
    for (i = 0; i < (int)(PROBE_RING_MIN / 2); i++) {
        p_root_enter(env, fake_class, ROOT);
        p_root_exit(env, fake_class, ROOT);
    }
    traced = (atomic_load(&t->published) - atomic_load(&t->consumed)) / 2;
    CHECK_INT(atomic_load(&t->dropped), native_drops + 1);
    /* The first call the ring could not take marked the entry behind: the
     * later ones were dropped in Java before they started (counted). */
    CHECK_INT(probe_dropped(), dropped + PROBE_RING_MIN / 2 - traced);
    CHECK_INT(root_natives, 2 * traced + 1);
    CHECK_INT(probe_seen(), seen + PROBE_RING_MIN / 2);
    CHECK(table_empty());
    /* Once the worker took the calls, the entry starts calls again. */
    atomic_store(&t->consumed, atomic_load(&t->published));
    probe_maintain(t, env, PROBE_RING_MIN * 4);
    CHECK(atomic_load(&t->next_ring) != NULL);
    p_root_enter(env, fake_class, ROOT);
    p_root_exit(env, fake_class, ROOT);
    cap = t->mask + 1;
    CHECK_INT(cap, PROBE_RING_MIN * 4);
    CHECK(atomic_load(&t->old_ring) != NULL);
    CHECK_INT(pending(t, ev, 8), 2);
    probe_maintain(t, env, 0);
    CHECK(atomic_load(&t->old_ring) == NULL);
}

/* Virtual threads, one call each as a server makes them, while the worker
 * takes nothing: their states fill, and a full state refuses calls of
 * many entries. It marks one of them behind (each state holds one mark,
 * which the worker clears once it drained the state): once drained, no
 * entry stays marked, and every virtual thread's calls are traced again. */
enum { VTHREADS = 64 };
static char vthreads[VTHREADS];

static void test_virtual_marks(void)
{
    jobject platform = current;
    uint64_t dropped = probe_dropped();
    int refs = global_refs, i, k, marked = 0, states = 0;
    probe_thread *t;

    virtual_answer = 1;
    for (i = 0; i < 3 * (int)PROBE_RING_MIN; i++) {
        be((jobject)&vthreads[i % VTHREADS]);
        p_root_enter(env, fake_class, ROOT);
        p_root_exit(env, fake_class, ROOT);
    }
    CHECK(probe_dropped() > dropped); /* refused, then dropped in Java */
    for (t = probe_threads(); t != NULL; t = t->next)
        states += t != me();
    for (k = 0; k < ENTRIES; k++)
        marked += *slot_u4(k * STRIDE, 32) != 0;
    CHECK(marked >= 1 && marked <= states);
    for (t = probe_threads(); t != NULL; t = t->next) {
        atomic_store(&t->consumed, atomic_load(&t->published));
        probe_maintain(t, env, 0);
    }
    marked = 0;
    for (k = 0; k < ENTRIES; k++)
        marked += *slot_u4(k * STRIDE, 32) != 0;
    CHECK_INT(marked, 0);
    dropped = probe_dropped();
    for (i = 0; i < VTHREADS; i++) {
        be((jobject)&vthreads[i]);
        p_root_enter(env, fake_class, ROOT);
        p_root_exit(env, fake_class, ROOT);
    }
    CHECK_INT(probe_dropped(), dropped);
    for (t = probe_threads(); t != NULL; t = t->next) {
        atomic_store(&t->consumed, atomic_load(&t->published));
        probe_maintain(t, env, 0);
    }
    virtual_answer = 0;
    be(platform);
    CHECK(table_empty());
    global_refs = refs; /* the worker frees the threads' references */
}

static void *traced_thread(void *arg)
{
    be((jobject)arg);
    p_root_enter(env, fake_class, ROOT);
    p_root_exit(env, fake_class, ROOT);
    return probe_threads();
}

/* A thread that ends is drained, freed, and its state reused. */
static void test_thread_reuse(void)
{
    static char threads[2];
    pthread_t th;
    void *first, *second;
    probe_thread *t;
    probe_ev ev[4];
    int refs;

    CHECK(pthread_create(&th, NULL, traced_thread, &threads[0]) == 0);
    pthread_join(th, &first);
    t = first;
    CHECK_INT(atomic_load(&t->state), PROBE_THREAD_DEAD);
    refs = global_refs;
    probe_maintain(t, env, 0);
    CHECK_INT(atomic_load(&t->state), PROBE_THREAD_DEAD); /* not drained yet */
    CHECK_INT(pending(t, ev, 4), 2);
    probe_maintain(t, env, 0);
    CHECK_INT(atomic_load(&t->state), PROBE_THREAD_FREE);
    CHECK_INT(global_refs, refs - 1);
    CHECK(pthread_create(&th, NULL, traced_thread, &threads[1]) == 0);
    pthread_join(th, &second);
    CHECK(second == first);
}

/* When a session ends, the worker frees a thread's ring (the next traced
 * call takes a new one), but not while its thread is in a call or its
 * calls are not drained; a call that starts while the worker swaps the
 * ring is dropped (counted). */
static void test_shrink(void)
{
    probe_thread *t = me();
    probe_ev ev[8];
    uint64_t held, dropped;

    CHECK_INT(t->mask + 1, PROBE_RING_MIN * 4); /* test_drop_and_grow's */
    held = probe_ring_bytes();
    p_root_enter(env, fake_class, ROOT);
    CHECK_INT(probe_shrink(t), 0);
    CHECK_INT(t->mask + 1, PROBE_RING_MIN * 4);
    p_root_exit(env, fake_class, ROOT);
    CHECK_INT(probe_shrink(t), 0);
    CHECK_INT(pending(t, ev, 8), 2);
    CHECK_INT(probe_shrink(t), 1);
    CHECK(t->ring == NULL);
    CHECK_INT(probe_ring_bytes(), held - 4 * PROBE_RING_MIN * sizeof(probe_ev));
    CHECK_INT(probe_shrink(t), 1);
    CHECK_INT(probe_ring_bytes(), held - 4 * PROBE_RING_MIN * sizeof(probe_ev));
    dropped = atomic_load(&t->dropped);
    atomic_store(&t->shrinking, 1);
    p_root_enter(env, fake_class, ROOT);
    p_root_exit(env, fake_class, ROOT);
    atomic_store(&t->shrinking, 0);
    CHECK_INT(atomic_load(&t->dropped), dropped + 1);
    CHECK_INT(atomic_load(&t->in_call), 0);
    CHECK_INT(pending(t, ev, 8), 0);
    p_root_enter(env, fake_class, ROOT);
    p_root_exit(env, fake_class, ROOT);
    CHECK_INT(pending(t, ev, 8), 2);
    CHECK_INT(t->mask + 1, PROBE_RING_MIN);
    CHECK_INT(probe_ring_bytes(), held - 3 * PROBE_RING_MIN * sizeof(probe_ev));
}

static pthread_barrier_t traced, may_exit;

static void *traced_then_wait(void *arg)
{
    be((jobject)arg);
    p_root_enter(env, fake_class, ROOT);
    p_root_exit(env, fake_class, ROOT);
    pthread_barrier_wait(&traced);
    pthread_barrier_wait(&may_exit);
    return NULL;
}

/* Rings grow only while all of them stay within the budget (6 live threads
 * ask for the biggest ring); shrinking gives back the rings offered too. */
static void test_budget(void)
{
    enum { N = 6 };
    static char threads[N];
    pthread_t th[N];
    probe_thread *t;
    probe_ev ev[4];
    int grown = 0, limited = 0, states = 0, k;

    pthread_barrier_init(&traced, NULL, N + 1);
    pthread_barrier_init(&may_exit, NULL, N + 1);
    for (k = 0; k < N; k++)
        CHECK(pthread_create(&th[k], NULL, traced_then_wait, &threads[k]) == 0);
    pthread_barrier_wait(&traced);
    for (t = probe_threads(); t != NULL; t = t->next) {
        states++;
        if (atomic_load(&t->state) != PROBE_THREAD_LIVE)
            continue;
        probe_maintain(t, env, PROBE_RING_MAX);
        grown++;
        if (atomic_load(&t->next_ring) == NULL || atomic_load(&t->next_mask) + 1 < PROBE_RING_MAX)
            limited++;
        CHECK(probe_ring_bytes() <= PROBE_RING_BUDGET);
    }
    /* enough rings to go over it */
    CHECK(grown * PROBE_RING_MAX * sizeof(probe_ev) > PROBE_RING_BUDGET);
    CHECK(limited > 0);
    pthread_barrier_wait(&may_exit);
    for (k = 0; k < N; k++)
        pthread_join(th[k], NULL);
    for (t = probe_threads(); t != NULL; t = t->next) {
        pending(t, ev, 4);
        CHECK_INT(probe_shrink(t), 1);
        CHECK(atomic_load(&t->next_ring) == NULL);
    }
    CHECK_INT(probe_ring_bytes(), 0);
    CHECK(states > N);
    pthread_barrier_destroy(&traced);
    pthread_barrier_destroy(&may_exit);
}

/* The state written by a call of entry k's virtual thread: the one whose
 * ring holds unread events, other than this thread's. */
static probe_thread *written_state(void)
{
    probe_thread *t;

    for (t = probe_threads(); t != NULL; t = t->next)
        if (t != me() && atomic_load(&t->published) != atomic_load(&t->consumed))
            return t;
    return NULL;
}

static char vthread;

static void *carrier_two(void *arg)
{
    be((jobject)&vthread);
    p_exit(env, fake_class, A);
    p_root_exit(env, fake_class, ROOT);
    return NULL;
}

/* A virtual thread's call writes to its entry's state, not to the OS
 * thread's: it continues on another OS thread (carrier) mid-call, and its
 * events stay in one ring, naming the thread. */
static void test_virtual_thread(void)
{
    jobject platform = current;
    probe_thread *v;
    probe_ev ev[8];
    pthread_t th;
    int k;

    virtual_answer = 1;
    be((jobject)&vthread);
    p_root_enter(env, fake_class, ROOT);
    k = java_entry();
    CHECK(k >= 0);
    p_enter(env, fake_class, A);
    CHECK_INT(me()->depth, 0); /* the OS thread's own state is untouched */
    CHECK(pthread_create(&th, NULL, carrier_two, NULL) == 0);
    pthread_join(th, NULL);
    virtual_answer = 0;
    be(platform);
    CHECK(table_value[k] == NULL);
    v = written_state();
    CHECK(v != NULL);
    if (v == NULL)
        return;
    CHECK_INT(pending(v, ev, 8), 5);
    CHECK_INT(PROBE_KIND(ev[0].kind), PROBE_ROOT_ENTER);
    CHECK_INT(PROBE_KIND(ev[1].kind), PROBE_THREAD);
    CHECK(ev[1].t == (uint64_t)(uintptr_t)&vthread);
    CHECK_INT(PROBE_KIND(ev[2].kind), PROBE_ENTER);
    CHECK_INT(PROBE_KIND(ev[3].kind), PROBE_EXIT);
    CHECK_INT(PROBE_KIND(ev[4].kind), PROBE_ROOT_EXIT);
    CHECK_INT(PROBE_SESSION(ev[4].kind), 1);
    global_refs--; /* the worker frees the thread's reference */
}

/* More threads than the 8 slots there once were hold entries mid-call. */
enum { HOLDERS = 24 };
static pthread_barrier_t in_call, may_leave;
static char holder_objects[HOLDERS];

static void *entry_holder(void *arg)
{
    be((jobject)arg);
    p_root_enter(env, fake_class, ROOT);
    p_enter(env, fake_class, A);
    pthread_barrier_wait(&in_call);
    pthread_barrier_wait(&may_leave);
    p_exit(env, fake_class, A);
    p_root_exit(env, fake_class, ROOT);
    return NULL;
}

/* Any number of threads trace at once, each in an entry of its own; an
 * instrumented method called outside a traced call meanwhile stays in
 * Java (no native), and a virtual thread's call is traced too. */
static void test_many_threads(void)
{
    pthread_t th[HOLDERS];
    jobject platform = current;
    probe_thread *t;
    probe_ev ev[8];
    int k, held = 0, calls = 0;

    pthread_barrier_init(&in_call, NULL, HOLDERS + 1);
    pthread_barrier_init(&may_leave, NULL, HOLDERS + 1);
    for (k = 0; k < HOLDERS; k++)
        CHECK(pthread_create(&th[k], NULL, entry_holder, &holder_objects[k]) == 0);
    pthread_barrier_wait(&in_call);
    for (k = 0; k < ENTRIES * STRIDE; k++)
        held += table_value[k] != NULL;
    CHECK_INT(held, HOLDERS);
    inner_natives = 0;
    p_enter(env, fake_class, A);
    p_exit(env, fake_class, A);
    CHECK_INT(inner_natives, 0);
    virtual_answer = 1;
    be((jobject)&vthread);
    p_root_enter(env, fake_class, ROOT);
    CHECK(java_entry() >= 0);
    p_root_exit(env, fake_class, ROOT);
    virtual_answer = 0;
    be(platform);
    pthread_barrier_wait(&may_leave);
    for (k = 0; k < HOLDERS; k++)
        pthread_join(th[k], NULL);
    for (k = 0; k < ENTRIES * STRIDE; k++)
        CHECK(table_value[k] == NULL);
    for (t = probe_threads(); t != NULL; t = t->next) {
        size_t n = pending(t, ev, 8);

        if (n == 0)
            continue;
        calls++;
        CHECK(n == 4 || n == 3); /* a holder's, or the virtual thread's */
        if (n == 3) {
            CHECK_INT(PROBE_KIND(ev[1].kind), PROBE_THREAD);
            global_refs--; /* the worker frees the thread's reference */
        }
    }
    CHECK_INT(calls, HOLDERS + 1);
    pthread_barrier_destroy(&in_call);
    pthread_barrier_destroy(&may_leave);
}

static pthread_barrier_t holding, let_go;

static void *hold_while(void *arg)
{
    be((jobject)arg);
    p_root_enter(env, fake_class, ROOT);
    pthread_barrier_wait(&holding);
    pthread_barrier_wait(&let_go);
    p_root_exit(env, fake_class, ROOT);
    return NULL;
}

/* The threads' unslotted counters, summed. */
static uint64_t unslotted_now(void)
{
    probe_thread *t;
    uint64_t n = 0;

    for (t = probe_threads(); t != NULL; t = t->next)
        n += atomic_load(&t->unslotted);
    return n;
}

/* A thread whose two entries are both held by others is not traced
 * (counted), and traced again once one is free. */
static void test_unslotted(void)
{
    static char ids[3 * 4096];
    char *a, *b, *c = NULL;
    pthread_t th[2];
    jobject platform = current;
    uint64_t unslotted = unslotted_now(), dropped = probe_dropped(), seen = probe_seen();
    probe_ev ev[4];
    int i;

    /* c shares its first entry with a, its second with b's first. */
    for (i = 2048; i < 3 * 4096 && c == NULL; i++) {
        int two = second_entry((jlong)(uintptr_t)&ids[i]);

        if (two != first_entry((jlong)(uintptr_t)&ids[i]))
            c = &ids[i];
    }
    CHECK(c != NULL);
    if (c == NULL)
        return;
    a = c - 2048;
    b = ids;
    while (first_entry((jlong)(uintptr_t)b) != second_entry((jlong)(uintptr_t)c))
        b++;
    pthread_barrier_init(&holding, NULL, 3);
    pthread_barrier_init(&let_go, NULL, 3);
    CHECK(pthread_create(&th[0], NULL, hold_while, a) == 0);
    CHECK(pthread_create(&th[1], NULL, hold_while, b) == 0);
    pthread_barrier_wait(&holding);
    be((jobject)c);
    p_root_enter(env, fake_class, ROOT);
    CHECK_INT(java_entry(), -1);
    p_root_exit(env, fake_class, ROOT);
    CHECK_INT(unslotted_now(), unslotted + 1);
    CHECK_INT(probe_dropped(), dropped + 1);
    pthread_barrier_wait(&let_go);
    pthread_join(th[0], NULL);
    pthread_join(th[1], NULL);
    p_root_enter(env, fake_class, ROOT);
    CHECK(java_entry() >= 0);
    p_root_exit(env, fake_class, ROOT);
    CHECK_INT(probe_seen(), seen + 4);
    be(platform);
    CHECK_INT(pending(me(), ev, 4), 2); /* this OS thread's state: c's second call */
    pthread_barrier_destroy(&holding);
    pthread_barrier_destroy(&let_go);
}

/* --sample: one entry call in N is traced, counting down per table entry
 * from a phase of its own; the others run their probes in Java. */
static void test_sample(void)
{
    enum { N = 10, CALLS = 200 };
    probe_ev ev[4];
    uint64_t seen = probe_seen();
    int i, took = 0;
    mct_err err;
    int32_t SAMPLED = mt_add("com/shop/Cart", "sampled", "()V", 3, 1, &err);

    probe_set_sample(N);
    probe_session_begin(3, 3);
    inner_natives = 0;
    root_natives = 0;
    for (i = 0; i < CALLS; i++) {
        p_root_enter(env, fake_class, SAMPLED);
        p_enter(env, fake_class, A);
        p_exit(env, fake_class, A);
        p_root_exit(env, fake_class, SAMPLED);
        took += pending(me(), ev, 4) == 4;
    }
    CHECK_INT(took, CALLS / N);
    CHECK_INT(inner_natives, 2 * CALLS / N);
    CHECK_INT(root_natives, 2 * CALLS / N); /* a call not sampled never goes native */
    CHECK_INT(probe_seen(), seen + CALLS);
    probe_set_sample(1);
    probe_session_end(env);
    probe_session_begin(1, 3);
}

/* --sample with nested entry calls: a call not sampled is one call, its
 * nested entry calls (recursion, an inherited entry method on the named
 * class or another) part of it: seen once, not traced, their probes in
 * Java but for the entry methods' own; a sampled one is traced whole. */
static void test_sample_nesting(void)
{
    enum { N = 10, CALLS = 200 };
    probe_ev ev[16];
    uint64_t seen = probe_seen(), dropped = probe_dropped();
    int i, took = 0;
    mct_err err;
    int32_t NESTED = mt_add("com/shop/Cart", "nested", "()V", 4, 1, &err);

    probe_set_sample(N);
    probe_session_begin(4, 5);
    CHECK_INT(probe_receivers_begin(env, NAMED), 0);
    CHECK_INT(probe_receiver_add(env, fake_class, NAMED), 1);
    inner_natives = 0;
    for (i = 0; i < CALLS; i++) {
        p_root_enter(env, fake_class, NESTED);
        p_root_enter(env, fake_class, NESTED);          /* recursion */
        p_enter(env, fake_class, A);
        p_exit(env, fake_class, A);
        p_root_exit(env, fake_class, NESTED);
        p_root_enter_on(env, fake_class, fake_class, NESTED); /* on the named class */
        p_root_enter_on(env, fake_class, fake_other, NESTED); /* on another */
        p_root_fail_on(env, fake_class, fake_exc, NESTED);
        p_root_exit_on(env, fake_class, NESTED);
        p_root_exit(env, fake_class, NESTED);
        CHECK(java_held() == -1);
        took += pending(me(), ev, 16) == 10;
    }
    CHECK_INT(took, CALLS / N);
    CHECK_INT(inner_natives, 2 * CALLS / N);
    CHECK_INT(probe_seen(), seen + CALLS);
    CHECK_INT(probe_dropped(), dropped);
    CHECK(table_empty());
    probe_receivers_begin(env, NULL);
    probe_set_sample(1);
    probe_session_end(env);
    probe_session_begin(1, 3);
}

static void *sampled_out(void *arg)
{
    int i;

    be((jobject)arg);
    for (i = 0; i < 3; i++) {
        p_root_enter(env, fake_class, ROOT);
        p_root_exit(env, fake_class, ROOT);
    }
    return NULL;
}

/* A thread whose entry calls are all sampled out has no ring: rings come
 * with traced calls only. Its calls never reach the natives: no state is
 * made for it either, and its calls are seen all the same. */
static void test_no_ring_untraced(void)
{
    static char thread;
    uint64_t held = probe_ring_bytes(), seen = probe_seen();
    probe_thread *head = probe_threads(), *t;
    pthread_t th;
    int free_before = 0, free_after = 0;

    for (t = head; t != NULL; t = t->next)
        free_before += atomic_load(&t->state) == PROBE_THREAD_FREE;
    probe_set_sample(1000000);
    CHECK(pthread_create(&th, NULL, sampled_out, &thread) == 0);
    pthread_join(th, NULL);
    CHECK_INT(probe_seen(), seen + 3);
    CHECK(probe_threads() == head);
    for (t = head; t != NULL; t = t->next)
        free_after += atomic_load(&t->state) == PROBE_THREAD_FREE;
    CHECK_INT(free_after, free_before);
    CHECK_INT(probe_ring_bytes(), held);
    CHECK(table_empty());
    probe_set_sample(1);
}

/* An entry call that cannot start (Thread.isVirtual threw) is seen and
 * counted as dropped: seen = traced + sampled out + dropped. */
static void test_virtual_throws(void)
{
    probe_ev ev[4];
    uint64_t seen = probe_seen(), dropped = probe_dropped();
    jobject platform = current;
    static char other;

    be((jobject)&other); /* not this OS thread's known platform thread */
    virtual_throws = 1;
    p_root_enter(env, fake_class, ROOT);
    virtual_throws = 0;
    CHECK_INT(java_held(), -1);
    p_root_exit(env, fake_class, ROOT);
    be(platform);
    CHECK_INT(probe_seen(), seen + 1);
    CHECK_INT(probe_dropped(), dropped + 1);
    CHECK_INT(pending(me(), ev, 4), 0);
    CHECK(table_empty());
}

/* A thread whose id changes inside its entry call (an override of
 * Thread.getId) does not start a second call on a state already in one:
 * the nested call is refused, counted as dropped; the outer one completes. */
static void test_id_changes(void)
{
    probe_ev ev[8];
    uint64_t dropped = probe_dropped();
    jlong id = current_id;

    p_root_enter(env, fake_class, ROOT);
    CHECK(java_entry() >= 0);
    current_id = id + 1;
    p_root_enter(env, fake_class, ROOT);
    CHECK_INT(probe_dropped(), dropped + 1);
    current_id = id;
    p_enter(env, fake_class, A);
    p_exit(env, fake_class, A);
    p_root_exit(env, fake_class, ROOT);
    CHECK_INT(me()->depth, 0);
    CHECK_INT(pending(me(), ev, 8), 4);
    CHECK(table_empty());
}

/* The Java writer's wiring: turned on, the calibration's scratch state
 * (depth 1, no limit: every event recorded) is at the extra element of
 * STATES and RINGS; a traced call's start puts its state and its ring at
 * its entry (before the thread, which the Java side looks up first), and
 * a ring that changed gets a buffer of its own. */
static void test_writer(void)
{
    int e = first_entry(current_id) / STRIDE;
    probe_ev ev[8];
    probe_thread *t;

    CHECK_INT(probe_writer(), 0);
    CHECK(probe_writer_scratch(env) == 0);
    t = (probe_thread *)states_value[ENTRIES];
    CHECK(t != NULL && rings_value[ENTRIES] == (jobject)t->ring);
    CHECK(t != NULL && t->depth == 1 && t->limit == INT64_MAX && t->natives == 0);
    CHECK(probe_use_writer(env) == 0);
    CHECK(writer_value == JNI_TRUE && probe_writer());
    probe_session_begin(1, 3);
    p_root_enter(env, fake_class, ROOT);
    t = me();
    CHECK(states_value[e] == (jobject)t);
    CHECK(rings_value[e] == (jobject)t->ring);
    CHECK(t->jring_of == t->ring && t->jring_mask == t->mask);
    CHECK_INT(t->natives, 0);
    p_root_exit(env, fake_class, ROOT);
    CHECK_INT(pending(t, ev, 8), 2);
    /* Another ring (as the worker gives a bigger one): a buffer over it. */
    CHECK_INT(probe_shrink(t), 1);
    p_root_enter(env, fake_class, ROOT);
    CHECK(t->ring != NULL && rings_value[e] == (jobject)t->ring && t->jring_of == t->ring);
    p_root_exit(env, fake_class, ROOT);
    CHECK_INT(pending(t, ev, 8), 2);
    probe_session_end(env);
}

int main(void)
{
    mct_err err;

    clock_init(0);
    be(fake_thread);
    ROOT = mt_add("com/shop/Cart", "total", "()J", 1, 1, &err);
    OTHER_ROOT = mt_add("com/shop/Other", "total", "()J", 2, 1, &err);
    OWN_ROOT = mt_add("com/shop/Cart", "total", "(I)J", 1, 1, &err);
    A = mt_add("com/shop/Cart", "a", "()V", 1, 0, &err);
    B = mt_add("com/shop/Cart", "b", "()V", 1, 0, &err);
    C = mt_add("com/shop/Cart", "c", "()V", 1, 0, &err);
    D = mt_add("com/shop/Line", "<init>", "()V", 1, 0, &err);
    test_install();
    test_outside_session();
    test_depth_limit();
    test_args();
    test_foreign_roots();
    test_call_outlives_session();
    test_nesting_and_missed_exit();
    test_exception();
    test_receiver();
    test_receiver_copies();
    test_overflow();
    test_nested_pairs_overflow();
    test_virtual_thread();
    test_many_threads();
    test_unslotted();
    test_sample();
    test_sample_nesting();
    test_virtual_throws();
    test_no_ring_untraced();
    test_id_changes();
    test_drop_and_grow();
    test_virtual_marks();
    test_thread_reuse();
    test_shrink();
    test_budget();
    test_writer();
    return check_status();
}
