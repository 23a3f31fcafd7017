/* probe_install.c — the probe class in the JVM (see probe_install.h): its
 * class file defined in the boot loader, its natives bound, and what the
 * probe path needs of it (Probe.TABLE, Probe.receivers, Probe.free,
 * WeakReference, Thread.isVirtual, the thread's allocation counter) looked
 * up once and handed to probe.c. */
#include "probe_install.h"

#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "probe.h"

/* The class file of PROBE_CLASS, compiled from agent/probe/java at build
 * time. */
static const unsigned char probe_class_file[] = {
#include "probe_class.inc"
};

/* Looks up a static field of the probe class; 0 or -1 with err set. */
static int static_field(JNIEnv *jni, jclass cls, const char *name, const char *sig, jfieldID *out,
                        mct_err *err)
{
    *out = (*jni)->GetStaticFieldID(jni, cls, name, sig);
    if (*out == NULL) {
        (*jni)->ExceptionClear(jni);
        return mct_err_set(err, MCT_E_JVMTI, "%s has no field %s", PROBE_CLASS, name);
    }
    return 0;
}

/* An array of the probe class (Probe.TABLE, STATES, RINGS), held by a
 * global ref into *out; its length must be what this side indexes, len
 * (from Probe.ENTRIES and STRIDE, which probe.c's constants must equal). */
static int static_array(JNIEnv *jni, jclass cls, const char *name, const char *sig, jsize len, jobjectArray *out,
                        mct_err *err)
{
    jfieldID f;
    jobject local;
    jsize n;

    if (static_field(jni, cls, name, sig, &f, err) < 0)
        return -1;
    local = (*jni)->GetStaticObjectField(jni, cls, f);
    if (local == NULL) {
        (*jni)->ExceptionClear(jni);
        return mct_err_set(err, MCT_E_JVMTI, "%s.%s is not set (its class did not initialize)", PROBE_CLASS, name);
    }
    n = (*jni)->GetArrayLength(jni, local);
    if (n != len) {
        (*jni)->DeleteLocalRef(jni, local);
        return mct_err_set(err, MCT_E_INTERNAL,
                           "%s.%s has %d elements, the agent's natives expect %d: Probe.java's ENTRIES and "
                           "STRIDE differ from probe.c's (rebuild with them equal)",
                           PROBE_CLASS, name, (int)n, (int)len);
    }
    *out = (*jni)->NewGlobalRef(jni, local);
    (*jni)->DeleteLocalRef(jni, local);
    if (*out == NULL)
        return mct_err_set(err, MCT_E_NOMEM, "out of memory holding %s.%s", PROBE_CLASS, name);
    return 0;
}

/* java.lang.ref.WeakReference and its constructor, for the receivers (kept
 * across a retry). */
static int find_weak_ref(JNIEnv *jni, probe_binding *b, mct_err *err)
{
    static jclass weak_ref_class;
    static jmethodID weak_ref_init;
    jclass local;

    if (weak_ref_class == NULL) {
        local = (*jni)->FindClass(jni, "java/lang/ref/WeakReference");
        if (local != NULL) {
            weak_ref_init = (*jni)->GetMethodID(jni, local, "<init>", "(Ljava/lang/Object;)V");
            if (weak_ref_init != NULL)
                weak_ref_class = (*jni)->NewGlobalRef(jni, local);
            (*jni)->DeleteLocalRef(jni, local);
        }
        (*jni)->ExceptionClear(jni);
        if (weak_ref_class == NULL)
            return mct_err_set(err, MCT_E_JVMTI, "cannot find java.lang.ref.WeakReference and its constructor");
    }
    b->weak_ref_class = weak_ref_class;
    b->weak_ref_init = weak_ref_init;
    return 0;
}

/* What the probes read arguments with (kept across a retry): the String
 * and Enum classes, Enum.name. */
static int find_arg_readers(JNIEnv *jni, probe_binding *b, mct_err *err)
{
    static jclass string_class, enum_class;
    static jfieldID enum_name;
    static const char *const names[2] = {"java/lang/String", "java/lang/Enum"};
    jclass *held[2] = {&string_class, &enum_class};
    int i;

    for (i = 0; i < 2; i++) {
        jclass local;

        if (*held[i] != NULL)
            continue;
        local = (*jni)->FindClass(jni, names[i]);
        if (local != NULL) {
            if (i == 1)
                enum_name = (*jni)->GetFieldID(jni, local, "name", "Ljava/lang/String;");
            if (i != 1 || enum_name != NULL)
                *held[i] = (*jni)->NewGlobalRef(jni, local);
            (*jni)->DeleteLocalRef(jni, local);
        }
        (*jni)->ExceptionClear(jni);
        if (*held[i] == NULL)
            return mct_err_set(err, MCT_E_JVMTI, "cannot find %s (and Enum.name)", names[i]);
    }
    b->string_class = string_class;
    b->enum_class = enum_class;
    b->enum_name = enum_name;
    return 0;
}

/* What the Java writer needs (probe.h probe_use_writer): Probe.STATES,
 * RINGS and writer, ByteBuffer.order and the platform's byte order (kept
 * across a retry). */
static int find_writer(JNIEnv *jni, jclass cls, probe_binding *b, mct_err *err)
{
    static jmethodID order;
    static jobject native;

    if (native == NULL) {
        jclass bb = (*jni)->FindClass(jni, "java/nio/ByteBuffer");
        jclass bo = (*jni)->FindClass(jni, "java/nio/ByteOrder");
        jmethodID get = bo != NULL ? (*jni)->GetStaticMethodID(jni, bo, "nativeOrder", "()Ljava/nio/ByteOrder;") : NULL;
        jobject local = get != NULL ? (*jni)->CallStaticObjectMethod(jni, bo, get) : NULL;

        order = bb != NULL ? (*jni)->GetMethodID(jni, bb, "order", "(Ljava/nio/ByteOrder;)Ljava/nio/ByteBuffer;") : NULL;
        if (local != NULL && order != NULL)
            native = (*jni)->NewGlobalRef(jni, local);
        (*jni)->ExceptionClear(jni);
        if (local != NULL)
            (*jni)->DeleteLocalRef(jni, local);
        if (bb != NULL)
            (*jni)->DeleteLocalRef(jni, bb);
        if (bo != NULL)
            (*jni)->DeleteLocalRef(jni, bo);
        if (native == NULL)
            return mct_err_set(err, MCT_E_JVMTI, "cannot find ByteBuffer.order and ByteOrder.nativeOrder");
    }
    b->buffer_order = order;
    b->native_order = native;
    if ((b->states == NULL && static_array(jni, cls, "STATES", "[Ljava/nio/ByteBuffer;", PROBE_ENTRIES + 1,
                                           &b->states, err) < 0) ||
        (b->rings == NULL && static_array(jni, cls, "RINGS", "[Ljava/nio/ByteBuffer;", PROBE_ENTRIES + 1,
                                          &b->rings, err) < 0))
        return -1;
    return static_field(jni, cls, "writer", "Z", &b->writer, err);
}

/* Thread.isVirtual where it exists (JDK 21+), else NULL. */
static jmethodID find_is_virtual(JNIEnv *jni)
{
    jclass tc = (*jni)->FindClass(jni, "java/lang/Thread");
    jmethodID m = NULL;

    if (tc != NULL) {
        m = (*jni)->GetMethodID(jni, tc, "isVirtual", "()Z");
        (*jni)->DeleteLocalRef(jni, tc);
    }
    (*jni)->ExceptionClear(jni);
    return m;
}

/* HotSpot's table of its fields for debuggers (vmStructs.hpp): entries of
 * gHotSpotVMStructs, laid out as the exported gHotSpotVMStructEntry*
 * values say, ending with a NULL type name. */
struct vm_structs {
    const char *base;
    uint64_t type, field, is_static, offset, stride;
};

/* The table of the libjvm that holds f (one of its JNI functions); 0, or -1
 * with *why set. */
static int vm_structs_find(void *f, struct vm_structs *vs, const char **why)
{
    static const char *const names[] = {"gHotSpotVMStructEntryTypeNameOffset", "gHotSpotVMStructEntryFieldNameOffset",
                                        "gHotSpotVMStructEntryIsStaticOffset", "gHotSpotVMStructEntryOffsetOffset",
                                        "gHotSpotVMStructEntryArrayStride"};
    uint64_t *v[5];
    const char *const *table;
    Dl_info info;
    void *lib;
    size_t i;

    if (dladdr(f, &info) == 0 || info.dli_fname == NULL)
        return *why = "the JVM's library cannot be found", -1;
    /* Already loaded: this only finds it, and the handle is let go at
     * once (the JVM holds it). */
    lib = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (lib == NULL)
        return *why = "the JVM's library cannot be opened", -1;
    table = dlsym(lib, "gHotSpotVMStructs");
    for (i = 0; i < 5; i++)
        v[i] = dlsym(lib, names[i]);
    dlclose(lib);
    if (table == NULL || *table == NULL || v[0] == NULL || v[1] == NULL || v[2] == NULL || v[3] == NULL ||
        v[4] == NULL)
        return *why = "the JVM exports no gHotSpotVMStructs (not HotSpot?)", -1;
    *vs = (struct vm_structs){*table, *v[0], *v[1], *v[2], *v[3], *v[4]};
    return 0;
}

/* The offset of the non-static field type::field, or -1 when the table
 * has none. */
static ptrdiff_t vm_field(const struct vm_structs *vs, const char *type, const char *field)
{
    for (const char *e = vs->base;; e += vs->stride) {
        const char *t = *(const char *const *)(e + vs->type);
        const char *f = *(const char *const *)(e + vs->field);

        if (t == NULL)
            return -1;
        if (f != NULL && strcmp(t, type) == 0 && strcmp(f, field) == 0 && *(const int32_t *)(e + vs->is_static) == 0)
            return (ptrdiff_t)*(const uint64_t *)(e + vs->offset);
    }
}

/* The calling thread's JavaThread, from java.lang.Thread.eetop (HotSpot
 * keeps it there), or NULL. */
static const char *current_java_thread(JNIEnv *jni)
{
    jclass tc = (*jni)->FindClass(jni, "java/lang/Thread");
    jmethodID cur = tc != NULL ? (*jni)->GetStaticMethodID(jni, tc, "currentThread", "()Ljava/lang/Thread;") : NULL;
    jfieldID eetop = tc != NULL ? (*jni)->GetFieldID(jni, tc, "eetop", "J") : NULL;
    jobject t = cur != NULL && eetop != NULL ? (*jni)->CallStaticObjectMethod(jni, tc, cur) : NULL;
    jlong v = t != NULL ? (*jni)->GetLongField(jni, t, eetop) : 0;

    (*jni)->ExceptionClear(jni);
    if (t != NULL)
        (*jni)->DeleteLocalRef(jni, t);
    if (tc != NULL)
        (*jni)->DeleteLocalRef(jni, tc);
    return (const char *)(uintptr_t)v;
}

/* The thread's allocation counter (probe_binding's alloc_* fields), found
 * from the JVM's field table and checked: the bytes of a 1 MiB array the
 * thread allocates must show in it. Leaves b->alloc_found 0 with
 * b->alloc_missing saying why when anything is amiss. */
static void find_alloc_counter(JNIEnv *jni, probe_binding *b)
{
    struct vm_structs vs;
    const char *jt;
    ptrdiff_t tlab, start, top;
    uint64_t before, after;
    jbyteArray probe;

    b->alloc_found = 0;
    if (vm_structs_find((void *)(*jni)->GetVersion, &vs, &b->alloc_missing) < 0)
        return;
    tlab = vm_field(&vs, "Thread", "_tlab");
    start = vm_field(&vs, "ThreadLocalAllocBuffer", "_start");
    top = vm_field(&vs, "ThreadLocalAllocBuffer", "_top");
    b->allocated_offset = vm_field(&vs, "Thread", "_allocated_bytes");
    if (tlab < 0 || start < 0 || top < 0 || b->allocated_offset < 0) {
        b->alloc_missing = "the JVM's field table lacks Thread::_allocated_bytes or its TLAB's fields";
        return;
    }
    b->tlab_start_offset = tlab + start;
    b->tlab_top_offset = tlab + top;
    jt = current_java_thread(jni);
    if (jt == NULL || (const char *)jni <= jt || (const char *)jni - jt > 65536) {
        b->alloc_missing = "the JVM's thread structure cannot be found from a JNIEnv";
        return;
    }
    b->env_offset = (const char *)jni - jt;
    b->alloc_found = 1;
    probe_bind(b);
    before = probe_alloc_stamp(jni);
    probe = (*jni)->NewByteArray(jni, 1 << 20);
    after = probe_alloc_stamp(jni);
    (*jni)->ExceptionClear(jni);
    if (probe != NULL)
        (*jni)->DeleteLocalRef(jni, probe);
    b->alloc_found = probe != NULL && after - before >= (1u << 20) && after - before < (2u << 20);
    if (!b->alloc_found)
        b->alloc_missing = "the JVM's allocation counter did not count a 1 MiB array";
}

int probe_install(JNIEnv *jni, jvmtiEnv *jvmti, int counting, mct_err *err)
{
    static jclass defined;  /* global ref: a class cannot be undefined, so a retry reuses it */
    static probe_binding b; /* what a failed try found is kept for the next */
    const probe_native *natives = probe_natives;
    JNINativeMethod bind[PROBE_N_NATIVES];
    size_t i;
    int rc;

    if (probe_class() != NULL)
        return 0;
    rc = probe_prepare(counting);
    if (rc != 0)
        return mct_err_set(err, MCT_E_INTERNAL, "pthread_key_create: %s", strerror(rc));
    if (defined == NULL) {
        jclass local = (*jni)->DefineClass(jni, PROBE_CLASS, NULL, (const jbyte *)probe_class_file,
                                           (jsize)sizeof probe_class_file);

        if (local == NULL) {
            (*jni)->ExceptionDescribe(jni);
            (*jni)->ExceptionClear(jni);
            return mct_err_set(err, MCT_E_JVMTI, "cannot define %s in the boot loader (see the JVM's stderr)",
                               PROBE_CLASS);
        }
        defined = (*jni)->NewGlobalRef(jni, local);
        (*jni)->DeleteLocalRef(jni, local);
        if (defined == NULL)
            return mct_err_set(err, MCT_E_NOMEM, "out of memory holding the probe class");
    }
    for (i = 0; i < PROBE_N_NATIVES; i++) {
        bind[i].name = (char *)natives[i].name;
        bind[i].signature = (char *)natives[i].sig;
        bind[i].fnPtr = counting ? natives[i].counting : natives[i].tracing;
    }
    if ((*jni)->RegisterNatives(jni, defined, bind, (jint)PROBE_N_NATIVES) != 0) {
        (*jni)->ExceptionDescribe(jni);
        (*jni)->ExceptionClear(jni);
        return mct_err_set(err, MCT_E_JVMTI, "cannot bind the natives of %s", PROBE_CLASS);
    }
    /* Counting sees every probe, whatever the thread: the class reads the
     * mode (counting0, set by probe_prepare) as it initializes, which the
     * first field lookup does. */
    if (b.table == NULL &&
        static_array(jni, defined, "TABLE", "[Ljava/lang/Thread;", PROBE_TABLE_LEN, &b.table, err) < 0)
        return -1;
    if (static_field(jni, defined, "receivers", "[Ljava/lang/ref/WeakReference;", &b.receivers_field, err) < 0 ||
        find_weak_ref(jni, &b, err) < 0 || find_arg_readers(jni, &b, err) < 0 ||
        find_writer(jni, defined, &b, err) < 0)
        return -1;
    b.is_virtual = find_is_virtual(jni);
    b.free_entry = (*jni)->GetStaticMethodID(jni, defined, "free", "(I)V");
    if (b.free_entry == NULL) {
        (*jni)->ExceptionClear(jni);
        return mct_err_set(err, MCT_E_JVMTI, "%s has no method free(int)", PROBE_CLASS);
    }
    find_alloc_counter(jni, &b);
    b.cls = defined;
    probe_bind(&b);
    return 0;
}
