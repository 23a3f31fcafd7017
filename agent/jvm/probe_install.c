/* probe_install.c — the probe class in the JVM (see probe_install.h): its
 * class file defined in the boot loader, its natives bound, and what the
 * probe path needs of it (Probe.TABLE, Probe.receivers, Probe.free,
 * WeakReference, Thread.isVirtual) looked up once and handed to probe.c. */
#include "probe_install.h"

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

/* Probe.TABLE, held by a global ref; its length must be what this side
 * indexes (Probe.ENTRIES * Probe.STRIDE, PROBE_TABLE_LEN). */
static int find_table(JNIEnv *jni, jclass cls, probe_binding *b, mct_err *err)
{
    jfieldID f;
    jobject local;
    jsize len;

    if (static_field(jni, cls, "TABLE", "[Ljava/lang/Thread;", &f, err) < 0)
        return -1;
    local = (*jni)->GetStaticObjectField(jni, cls, f);
    if (local == NULL) {
        (*jni)->ExceptionClear(jni);
        return mct_err_set(err, MCT_E_JVMTI, "%s.TABLE is not set (its class did not initialize)", PROBE_CLASS);
    }
    len = (*jni)->GetArrayLength(jni, local);
    if (len != PROBE_TABLE_LEN) {
        (*jni)->DeleteLocalRef(jni, local);
        return mct_err_set(err, MCT_E_INTERNAL,
                           "%s.TABLE has %d elements, the agent's natives expect %d: Probe.java's ENTRIES and "
                           "STRIDE differ from probe.c's (rebuild with them equal)",
                           PROBE_CLASS, (int)len, PROBE_TABLE_LEN);
    }
    b->table = (*jni)->NewGlobalRef(jni, local);
    (*jni)->DeleteLocalRef(jni, local);
    if (b->table == NULL)
        return mct_err_set(err, MCT_E_NOMEM, "out of memory holding %s.TABLE", PROBE_CLASS);
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
    if (b.table == NULL && find_table(jni, defined, &b, err) < 0)
        return -1;
    if (static_field(jni, defined, "receivers", "[Ljava/lang/ref/WeakReference;", &b.receivers_field, err) < 0 ||
        find_weak_ref(jni, &b, err) < 0)
        return -1;
    b.is_virtual = find_is_virtual(jni);
    b.free_entry = (*jni)->GetStaticMethodID(jni, defined, "free", "(I)V");
    if (b.free_entry == NULL) {
        (*jni)->ExceptionClear(jni);
        return mct_err_set(err, MCT_E_JVMTI, "%s has no method free(int)", PROBE_CLASS);
    }
    b.cls = defined;
    probe_bind(&b);
    return 0;
}
