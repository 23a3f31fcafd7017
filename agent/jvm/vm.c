/* vm.c — see vm.h. */
#include "vm.h"

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codesource.h"
#include "mutf8.h"
#include "options.h"
#include "proto.h"

#define MAX_MISSING 8

/* All JVM state; lock serialises the entry points and the VM events. It is
 * recursive: the live and death hooks run under it and may set the class
 * file hook, which takes it too. */
static struct {
    pthread_mutex_t lock;
    JavaVM *jvm;
    jvmtiEnv *jvmti;                /* NULL until the first successful setup */
    const struct vm_hooks *hooks;
    struct agent_opts opts;
    int loads;
    int live;                       /* hooks->live has succeeded once */
    int dead;                       /* hooks->death has run */
    struct vm_facts facts;
    const char *missing[MAX_MISSING];
    size_t nmissing;
    jvmtiEventCallbacks callbacks;  /* as last given to SetEventCallbacks */
} vm = { .lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP };

/* ---- messages ----------------------------------------------------------- */

static void vlog(const char *fmt, va_list ap)
{
    char line[1024];
    int n;

    n = snprintf(line, sizeof line, "mcalltree agent: ");
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    n = (int)strlen(line);
    line[n++] = '\n';
    /* One write, so that lines of concurrent threads do not interleave. */
    if (write(STDERR_FILENO, line, (size_t)n) < 0)
        return;
}

void vm_log(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}

void vm_debug(const char *fmt, ...)
{
    va_list ap;

    if (!vm.opts.verbose)
        return;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}

const char *vm_jvmti_error_name(jvmtiError err)
{
    static const char *const names[] = {
        [JVMTI_ERROR_NONE] = "JVMTI_ERROR_NONE",
        [JVMTI_ERROR_INVALID_THREAD] = "JVMTI_ERROR_INVALID_THREAD",
        [JVMTI_ERROR_INVALID_THREAD_GROUP] = "JVMTI_ERROR_INVALID_THREAD_GROUP",
        [JVMTI_ERROR_INVALID_PRIORITY] = "JVMTI_ERROR_INVALID_PRIORITY",
        [JVMTI_ERROR_THREAD_NOT_SUSPENDED] = "JVMTI_ERROR_THREAD_NOT_SUSPENDED",
        [JVMTI_ERROR_THREAD_SUSPENDED] = "JVMTI_ERROR_THREAD_SUSPENDED",
        [JVMTI_ERROR_THREAD_NOT_ALIVE] = "JVMTI_ERROR_THREAD_NOT_ALIVE",
        [JVMTI_ERROR_INVALID_OBJECT] = "JVMTI_ERROR_INVALID_OBJECT",
        [JVMTI_ERROR_INVALID_CLASS] = "JVMTI_ERROR_INVALID_CLASS",
        [JVMTI_ERROR_CLASS_NOT_PREPARED] = "JVMTI_ERROR_CLASS_NOT_PREPARED",
        [JVMTI_ERROR_INVALID_METHODID] = "JVMTI_ERROR_INVALID_METHODID",
        [JVMTI_ERROR_INVALID_LOCATION] = "JVMTI_ERROR_INVALID_LOCATION",
        [JVMTI_ERROR_INVALID_FIELDID] = "JVMTI_ERROR_INVALID_FIELDID",
        [JVMTI_ERROR_INVALID_MODULE] = "JVMTI_ERROR_INVALID_MODULE",
        [JVMTI_ERROR_NO_MORE_FRAMES] = "JVMTI_ERROR_NO_MORE_FRAMES",
        [JVMTI_ERROR_OPAQUE_FRAME] = "JVMTI_ERROR_OPAQUE_FRAME",
        [JVMTI_ERROR_TYPE_MISMATCH] = "JVMTI_ERROR_TYPE_MISMATCH",
        [JVMTI_ERROR_INVALID_SLOT] = "JVMTI_ERROR_INVALID_SLOT",
        [JVMTI_ERROR_DUPLICATE] = "JVMTI_ERROR_DUPLICATE",
        [JVMTI_ERROR_NOT_FOUND] = "JVMTI_ERROR_NOT_FOUND",
        [JVMTI_ERROR_INVALID_MONITOR] = "JVMTI_ERROR_INVALID_MONITOR",
        [JVMTI_ERROR_NOT_MONITOR_OWNER] = "JVMTI_ERROR_NOT_MONITOR_OWNER",
        [JVMTI_ERROR_INTERRUPT] = "JVMTI_ERROR_INTERRUPT",
        [JVMTI_ERROR_INVALID_CLASS_FORMAT] = "JVMTI_ERROR_INVALID_CLASS_FORMAT",
        [JVMTI_ERROR_CIRCULAR_CLASS_DEFINITION] = "JVMTI_ERROR_CIRCULAR_CLASS_DEFINITION",
        [JVMTI_ERROR_FAILS_VERIFICATION] = "JVMTI_ERROR_FAILS_VERIFICATION",
        [JVMTI_ERROR_UNSUPPORTED_REDEFINITION_METHOD_ADDED] =
            "JVMTI_ERROR_UNSUPPORTED_REDEFINITION_METHOD_ADDED",
        [JVMTI_ERROR_UNSUPPORTED_REDEFINITION_SCHEMA_CHANGED] =
            "JVMTI_ERROR_UNSUPPORTED_REDEFINITION_SCHEMA_CHANGED",
        [JVMTI_ERROR_INVALID_TYPESTATE] = "JVMTI_ERROR_INVALID_TYPESTATE",
        [JVMTI_ERROR_UNSUPPORTED_REDEFINITION_HIERARCHY_CHANGED] =
            "JVMTI_ERROR_UNSUPPORTED_REDEFINITION_HIERARCHY_CHANGED",
        [JVMTI_ERROR_UNSUPPORTED_REDEFINITION_METHOD_DELETED] =
            "JVMTI_ERROR_UNSUPPORTED_REDEFINITION_METHOD_DELETED",
        [JVMTI_ERROR_UNSUPPORTED_VERSION] = "JVMTI_ERROR_UNSUPPORTED_VERSION",
        [JVMTI_ERROR_NAMES_DONT_MATCH] = "JVMTI_ERROR_NAMES_DONT_MATCH",
        [JVMTI_ERROR_UNSUPPORTED_REDEFINITION_CLASS_MODIFIERS_CHANGED] =
            "JVMTI_ERROR_UNSUPPORTED_REDEFINITION_CLASS_MODIFIERS_CHANGED",
        [JVMTI_ERROR_UNSUPPORTED_REDEFINITION_METHOD_MODIFIERS_CHANGED] =
            "JVMTI_ERROR_UNSUPPORTED_REDEFINITION_METHOD_MODIFIERS_CHANGED",
        [JVMTI_ERROR_UNSUPPORTED_REDEFINITION_CLASS_ATTRIBUTE_CHANGED] =
            "JVMTI_ERROR_UNSUPPORTED_REDEFINITION_CLASS_ATTRIBUTE_CHANGED",
        /* Added in JDK 22 (JVMTI_ERROR_UNSUPPORTED_OPERATION); older
         * headers lack the constant. */
        [73] = "JVMTI_ERROR_UNSUPPORTED_OPERATION",
        [JVMTI_ERROR_UNMODIFIABLE_CLASS] = "JVMTI_ERROR_UNMODIFIABLE_CLASS",
        [JVMTI_ERROR_UNMODIFIABLE_MODULE] = "JVMTI_ERROR_UNMODIFIABLE_MODULE",
        [JVMTI_ERROR_NOT_AVAILABLE] = "JVMTI_ERROR_NOT_AVAILABLE",
        [JVMTI_ERROR_MUST_POSSESS_CAPABILITY] = "JVMTI_ERROR_MUST_POSSESS_CAPABILITY",
        [JVMTI_ERROR_NULL_POINTER] = "JVMTI_ERROR_NULL_POINTER",
        [JVMTI_ERROR_ABSENT_INFORMATION] = "JVMTI_ERROR_ABSENT_INFORMATION",
        [JVMTI_ERROR_INVALID_EVENT_TYPE] = "JVMTI_ERROR_INVALID_EVENT_TYPE",
        [JVMTI_ERROR_ILLEGAL_ARGUMENT] = "JVMTI_ERROR_ILLEGAL_ARGUMENT",
        [JVMTI_ERROR_NATIVE_METHOD] = "JVMTI_ERROR_NATIVE_METHOD",
        [JVMTI_ERROR_CLASS_LOADER_UNSUPPORTED] = "JVMTI_ERROR_CLASS_LOADER_UNSUPPORTED",
        [JVMTI_ERROR_OUT_OF_MEMORY] = "JVMTI_ERROR_OUT_OF_MEMORY",
        [JVMTI_ERROR_ACCESS_DENIED] = "JVMTI_ERROR_ACCESS_DENIED",
        [JVMTI_ERROR_WRONG_PHASE] = "JVMTI_ERROR_WRONG_PHASE",
        [JVMTI_ERROR_INTERNAL] = "JVMTI_ERROR_INTERNAL",
        [JVMTI_ERROR_UNATTACHED_THREAD] = "JVMTI_ERROR_UNATTACHED_THREAD",
        [JVMTI_ERROR_INVALID_ENVIRONMENT] = "JVMTI_ERROR_INVALID_ENVIRONMENT",
    };

    if ((unsigned)err >= sizeof names / sizeof names[0] || names[err] == NULL)
        return "unknown jvmtiError";
    return names[err];
}

/* ---- facts and threads -------------------------------------------------- */

/* Gives back memory JVMTI allocated (NULL accepted). */
static void deallocate(void *p)
{
    jvmtiError err;

    if (p == NULL)
        return;
    err = (*vm.jvmti)->Deallocate(vm.jvmti, (unsigned char *)p);
    if (err != JVMTI_ERROR_NONE)
        vm_log("Deallocate: %s", vm_jvmti_error_name(err));
}

/* Copies system property key into buf (empty when the JVM has none). */
static void read_property(const char *key, char *buf, size_t size)
{
    char *value = NULL;
    jvmtiError err;

    buf[0] = '\0';
    err = (*vm.jvmti)->GetSystemProperty(vm.jvmti, key, &value);
    if (err != JVMTI_ERROR_NONE) {
        vm_log("cannot read system property %s: %s", key, vm_jvmti_error_name(err));
        return;
    }
    snprintf(buf, size, "%s", value);
    deallocate(value);
}

/* Copies System.getProperty(key) into buf (empty when unset or failing).
 * java.version is set by Java code at startup, so JVMTI cannot see it. */
static void read_java_property(JNIEnv *jni, const char *key, char *buf, size_t size)
{
    jclass sys;
    jmethodID get;
    jstring jkey = NULL, value = NULL;
    const char *chars;

    buf[0] = '\0';
    sys = (*jni)->FindClass(jni, "java/lang/System");
    if (sys == NULL)
        goto fail;
    get = (*jni)->GetStaticMethodID(jni, sys, "getProperty",
                                    "(Ljava/lang/String;)Ljava/lang/String;");
    if (get == NULL || (jkey = (*jni)->NewStringUTF(jni, key)) == NULL)
        goto fail;
    value = (*jni)->CallStaticObjectMethod(jni, sys, get, jkey);
    if ((*jni)->ExceptionCheck(jni))
        goto fail;
    if (value != NULL) {
        chars = (*jni)->GetStringUTFChars(jni, value, NULL);
        if (chars == NULL)
            goto fail;
        snprintf(buf, size, "%s", chars);
        (*jni)->ReleaseStringUTFChars(jni, value, chars);
    }
    goto out;
fail:
    if ((*jni)->ExceptionCheck(jni))
        (*jni)->ExceptionClear(jni);
    vm_log("cannot read system property %s through JNI", key);
out:
    if (value != NULL)
        (*jni)->DeleteLocalRef(jni, value);
    if (jkey != NULL)
        (*jni)->DeleteLocalRef(jni, jkey);
    if (sys != NULL)
        (*jni)->DeleteLocalRef(jni, sys);
}

const struct vm_facts *vm_facts(void)
{
    return &vm.facts;
}

const char *const *vm_missing_capabilities(size_t *n)
{
    *n = vm.nmissing;
    return vm.missing;
}

const struct agent_opts *vm_options(void)
{
    return &vm.opts;
}

int vm_loads(void)
{
    int n;

    pthread_mutex_lock(&vm.lock);
    n = vm.loads;
    pthread_mutex_unlock(&vm.lock);
    return n;
}

jvmtiEnv *vm_jvmti(void)
{
    /* No lock: JVMTI callbacks call this while an entry point may hold it. */
    return __atomic_load_n(&vm.jvmti, __ATOMIC_ACQUIRE);
}

JNIEnv *vm_jni(void)
{
    JNIEnv *jni = NULL;

    if (vm.jvm == NULL || (*vm.jvm)->GetEnv(vm.jvm, (void **)&jni, JNI_VERSION_1_6) != JNI_OK)
        return NULL;
    return jni;
}

/* Fails with e unless no Java exception is pending (clearing it if one is). */
static int jni_check(JNIEnv *jni, const char *what, mct_err *e)
{
    if (!(*jni)->ExceptionCheck(jni))
        return 0;
    (*jni)->ExceptionClear(jni);
    return mct_err_set(e, MCT_E_JVMTI, "%s threw an exception", what);
}

int vm_start_thread(JNIEnv *jni, const char *name, jvmtiStartFunction fn, void *arg,
                    mct_err *e)
{
    jclass cls;
    jmethodID init;
    jstring jname = NULL;
    jobject thread = NULL;
    jvmtiError err;
    int rc = -1;

    cls = (*jni)->FindClass(jni, "java/lang/Thread");
    if (cls == NULL) {
        jni_check(jni, "FindClass(java/lang/Thread)", e);
        return mct_err_set(e, MCT_E_JVMTI, "cannot find java.lang.Thread");
    }
    init = (*jni)->GetMethodID(jni, cls, "<init>", "(Ljava/lang/String;)V");
    if (init == NULL) {
        jni_check(jni, "GetMethodID(Thread.<init>)", e);
        mct_err_set(e, MCT_E_JVMTI, "cannot find Thread(String)");
        goto out;
    }
    jname = (*jni)->NewStringUTF(jni, name);
    if (jname == NULL) {
        jni_check(jni, "NewStringUTF", e);
        mct_err_set(e, MCT_E_JVMTI, "cannot create the thread name");
        goto out;
    }
    thread = (*jni)->NewObject(jni, cls, init, jname);
    if (thread == NULL || jni_check(jni, "new Thread(name)", e) < 0) {
        mct_err_set(e, MCT_E_JVMTI, "cannot create thread \"%s\"", name);
        goto out;
    }
    /* RunAgentThread makes it a daemon: it never keeps the JVM alive. */
    err = (*vm.jvmti)->RunAgentThread(vm.jvmti, thread, fn, arg, JVMTI_THREAD_NORM_PRIORITY);
    if (err != JVMTI_ERROR_NONE) {
        mct_err_set(e, MCT_E_JVMTI, "RunAgentThread(\"%s\"): %s", name,
                    vm_jvmti_error_name(err));
        goto out;
    }
    rc = 0;
out:
    if (thread != NULL)
        (*jni)->DeleteLocalRef(jni, thread);
    if (jname != NULL)
        (*jni)->DeleteLocalRef(jni, jname);
    (*jni)->DeleteLocalRef(jni, cls);
    return rc;
}

/* ---- classes, threads and exceptions ------------------------------------- */

char *vm_class_name(jclass k, mct_err *e)
{
    char *sig = NULL, *name = NULL;
    jvmtiError err;
    size_t n;

    err = (*vm.jvmti)->GetClassSignature(vm.jvmti, k, &sig, NULL);
    if (err != JVMTI_ERROR_NONE) {
        mct_err_set(e, MCT_E_JVMTI, "GetClassSignature: %s", vm_jvmti_error_name(err));
        return NULL;
    }
    n = strlen(sig);
    /* "Lcom/shop/Cart;" -> "com/shop/Cart" */
    if (n < 3 || sig[0] != 'L' || sig[n - 1] != ';')
        mct_err_set(e, MCT_E_ARG, "%s is an array or primitive class", sig);
    else if ((name = strndup(sig + 1, n - 2)) == NULL)
        mct_err_set(e, MCT_E_NOMEM, "out of memory naming a class");
    deallocate(sig);
    return name;
}

int vm_class_loader(jclass k, jobject *loader, mct_err *e)
{
    jvmtiError err;

    *loader = NULL;
    err = (*vm.jvmti)->GetClassLoader(vm.jvmti, k, loader);
    if (err != JVMTI_ERROR_NONE)
        return mct_err_set(e, MCT_E_JVMTI, "GetClassLoader: %s", vm_jvmti_error_name(err));
    return 0;
}

jclass *vm_loaded_classes(size_t *n, mct_err *e)
{
    jclass *classes = NULL;
    jint count = 0;
    jvmtiError err;

    *n = 0;
    err = (*vm.jvmti)->GetLoadedClasses(vm.jvmti, &count, &classes);
    if (err != JVMTI_ERROR_NONE) {
        mct_err_set(e, MCT_E_JVMTI, "GetLoadedClasses: %s", vm_jvmti_error_name(err));
        return NULL;
    }
    *n = (size_t)count;
    return classes;
}

void vm_release_locals(JNIEnv *jni, jobject *refs, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (refs[i] != NULL)
            (*jni)->DeleteLocalRef(jni, refs[i]);
}

void vm_release_loaded(JNIEnv *jni, jclass *classes, size_t n)
{
    if (classes == NULL)
        return;
    vm_release_locals(jni, (jobject *)classes, n);
    deallocate(classes);
}

int vm_retransform(JNIEnv *jni, jclass *classes, size_t n, const struct vm_retransform_ops *ops, void *arg,
                   mct_err *e)
{
    jvmtiError err;
    size_t i;

    if (n == 0)
        return 0;
    err = (*vm.jvmti)->RetransformClasses(vm.jvmti, (jint)n, classes);
    if (err == JVMTI_ERROR_NONE)
        return 0;
    if (err == JVMTI_ERROR_MUST_POSSESS_CAPABILITY || err == JVMTI_ERROR_WRONG_PHASE)
        return mct_err_set(e, MCT_E_JVMTI, "RetransformClasses: %s", vm_jvmti_error_name(err));
    for (i = 0; i < n; i++) {
        err = (*vm.jvmti)->RetransformClasses(vm.jvmti, 1, &classes[i]);
        if (err != JVMTI_ERROR_NONE && ops->refused != NULL) {
            mct_err ne;
            char *name = vm_class_name(classes[i], &ne);

            ops->refused(arg, jni, i, name != NULL ? name : "?", err);
            free(name);
        }
    }
    return 0;
}

/* The loaders whose resource lookup is the JDK's own code: the platform
 * (extension) and application loaders of JDK 9+ and of JDK 8. */
static const char *const builtin_loaders[] = {
    "jdk/internal/loader/ClassLoaders$AppClassLoader", "jdk/internal/loader/ClassLoaders$PlatformClassLoader",
    "sun/misc/Launcher$AppClassLoader", "sun/misc/Launcher$ExtClassLoader",
};

/* Whether cls was defined by a built-in loader (boot, platform or
 * extension, application), whose resource lookup is the JDK's own code:
 * 1, else 0; -1 with e set when JNI or JVMTI failed. */
static int builtin_loader(JNIEnv *jni, jclass cls, mct_err *e)
{
    jobject loader = NULL, its_loader = NULL;
    jclass lk = NULL;
    char *name = NULL;
    int rc = -1;

    if (vm_class_loader(cls, &loader, e) < 0)
        return -1;
    if (loader == NULL)
        return 1;
    if ((lk = (*jni)->GetObjectClass(jni, loader)) == NULL)
        mct_err_set(e, MCT_E_JVMTI, "GetObjectClass of a class loader failed");
    else if ((name = vm_class_name(lk, e)) != NULL && vm_class_loader(lk, &its_loader, e) == 0) {
        rc = 0;
        /* A class of that name defined by another loader is not the JDK's. */
        for (size_t i = 0; its_loader == NULL && i < sizeof builtin_loaders / sizeof *builtin_loaders; i++)
            rc |= strcmp(name, builtin_loaders[i]) == 0;
    }
    free(name);
    if (its_loader != NULL)
        (*jni)->DeleteLocalRef(jni, its_loader);
    if (lk != NULL)
        (*jni)->DeleteLocalRef(jni, lk);
    (*jni)->DeleteLocalRef(jni, loader);
    return rc;
}

uint8_t *vm_read_class_file(JNIEnv *jni, jclass cls, const char *name, size_t *len, mct_err *e)
{
    char path[1024];
    int builtin = builtin_loader(jni, cls, e);
    jclass k = NULL, is_class = NULL;
    jmethodID get = NULL, read_all = NULL;
    jstring res = NULL;
    jobject in = NULL;
    jbyteArray arr = NULL;
    uint8_t *bytes = NULL;
    int n_path;

    /* Another loader's Java code could block this thread without limit,
     * or do anything else: its classes are read from their code source. */
    if (builtin == 0)
        return cs_read_class(jni, cls, name, len, e);
    if (builtin < 0)
        return NULL;
    n_path = snprintf(path, sizeof path, "/%s.class", name);
    if (n_path < 0 || (size_t)n_path >= sizeof path) {
        mct_err_set(e, MCT_E_TOOBIG, "the resource name of %s is over %zu bytes", name, sizeof path - 1);
        return NULL;
    }
    mct_err_set(e, MCT_E_NOTFOUND, "its class loader gave no resource /%s.class (none, or reading it failed)",
                name);
    k = (*jni)->GetObjectClass(jni, cls);
    if (k != NULL)
        get = (*jni)->GetMethodID(jni, k, "getResourceAsStream", "(Ljava/lang/String;)Ljava/io/InputStream;");
    if (get != NULL && (res = (*jni)->NewStringUTF(jni, path)) != NULL)
        in = (*jni)->CallObjectMethod(jni, cls, get, res);
    if (in != NULL && (is_class = (*jni)->GetObjectClass(jni, in)) != NULL &&
        (read_all = (*jni)->GetMethodID(jni, is_class, "readAllBytes", "()[B")) != NULL)
        arr = (*jni)->CallObjectMethod(jni, in, read_all);
    /* Any of the calls above may have thrown: clear it before more JNI. */
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        if (arr != NULL)
            (*jni)->DeleteLocalRef(jni, arr);
        arr = NULL;
    }
    if (arr != NULL) {
        jsize n = (*jni)->GetArrayLength(jni, arr);

        bytes = n > 0 ? malloc((size_t)n) : NULL;
        if (n > 0 && bytes == NULL)
            mct_err_set(e, MCT_E_NOMEM, "out of memory reading the %d bytes of /%s.class", (int)n, name);
        if (bytes != NULL) {
            (*jni)->GetByteArrayRegion(jni, arr, 0, n, (jbyte *)bytes);
            *len = (size_t)n;
        }
    }
    if (in != NULL && is_class != NULL) {
        jmethodID close = (*jni)->GetMethodID(jni, is_class, "close", "()V");

        if (close != NULL)
            (*jni)->CallVoidMethod(jni, in, close);
    }
    (*jni)->ExceptionClear(jni);
    if (arr != NULL)
        (*jni)->DeleteLocalRef(jni, arr);
    if (in != NULL)
        (*jni)->DeleteLocalRef(jni, in);
    if (is_class != NULL)
        (*jni)->DeleteLocalRef(jni, is_class);
    if (res != NULL)
        (*jni)->DeleteLocalRef(jni, res);
    if (k != NULL)
        (*jni)->DeleteLocalRef(jni, k);
    return bytes;
}

void vm_exception_name(jclass k, char *buf, size_t size)
{
    mct_err e;
    char *name = vm_class_name(k, &e);

    snprintf(buf, size, "%s", name != NULL ? name : "?");
    mutf8_binary_name(buf, strlen(buf));
    free(name);
}

void vm_object_info(JNIEnv *jni, jobject obj, char *name, size_t size, int32_t *hash)
{
    jclass k = (*jni)->GetObjectClass(jni, obj);
    char *sig = NULL;
    jint h = 0;
    size_t n;

    snprintf(name, size, "?");
    if (k != NULL && (*vm.jvmti)->GetClassSignature(vm.jvmti, k, &sig, NULL) == JVMTI_ERROR_NONE) {
        n = strlen(sig);
        /* "Lcom/shop/Cart;" -> "com.shop.Cart"; an array's as it is, with dots */
        if (n >= 3 && sig[0] == 'L' && sig[n - 1] == ';')
            snprintf(name, size, "%.*s", (int)(n - 2), sig + 1);
        else
            snprintf(name, size, "%s", sig);
        for (char *c = name; *c != '\0'; c++)
            if (*c == '/')
                *c = '.';
        deallocate(sig);
    }
    if (k != NULL)
        (*jni)->DeleteLocalRef(jni, k);
    if ((*vm.jvmti)->GetObjectHashCode(vm.jvmti, obj, &h) != JVMTI_ERROR_NONE)
        h = 0;
    *hash = h;
}

void *vm_weak_keep(void *ref)
{
    JNIEnv *jni = vm_jni();

    return jni != NULL ? (*jni)->NewWeakGlobalRef(jni, ref) : NULL;
}

void vm_weak_drop(void *weak)
{
    JNIEnv *jni = vm_jni();

    if (jni != NULL)
        (*jni)->DeleteWeakGlobalRef(jni, weak);
}

/* FutureTask's states from CANCELLED on (CANCELLED, INTERRUPTING,
 * INTERRUPTED): cancel() was called. */
#define FUTURE_TASK_CANCELLED 4

/* Whether future f (a local reference) of class name is an instance of it
 * whose field is done: an int at least FUTURE_TASK_CANCELLED (desc "I"),
 * or a reference set (any other desc); -1 when f is not of the class. */
static int field_done(JNIEnv *jni, jobject f, const char *name, const char *field, const char *desc)
{
    jclass k = (*jni)->FindClass(jni, name);
    jfieldID id;
    jobject r;
    int done = -1;

    if (k == NULL || !(*jni)->IsInstanceOf(jni, f, k)) {
        (*jni)->ExceptionClear(jni);
        if (k != NULL)
            (*jni)->DeleteLocalRef(jni, k);
        return -1;
    }
    if ((id = (*jni)->GetFieldID(jni, k, field, desc)) == NULL) {
        done = 0;
    } else if (desc[0] == 'I') {
        done = (*jni)->GetIntField(jni, f, id) >= FUTURE_TASK_CANCELLED;
    } else {
        r = (*jni)->GetObjectField(jni, f, id);
        done = r != NULL;
        if (r != NULL)
            (*jni)->DeleteLocalRef(jni, r);
    }
    (*jni)->ExceptionClear(jni);
    (*jni)->DeleteLocalRef(jni, k);
    return done;
}

int vm_future_done(void *weak)
{
    JNIEnv *jni = vm_jni();
    jobject f;
    int done;

    if (jni == NULL || (f = (*jni)->NewLocalRef(jni, weak)) == NULL)
        return 0;
    done = field_done(jni, f, "java/util/concurrent/FutureTask", "state", "I");
    if (done < 0)
        done = field_done(jni, f, "java/util/concurrent/CompletableFuture", "result", "Ljava/lang/Object;");
    (*jni)->DeleteLocalRef(jni, f);
    return done > 0;
}

/* Thread.threadId() (final, JDK 19+), else getId() (may be overridden);
 * NULL when neither is found. Looked up once: Thread is never unloaded. */
static jmethodID thread_id_method(JNIEnv *jni)
{
    static _Atomic(jmethodID) id;
    jmethodID m = __atomic_load_n(&id, __ATOMIC_ACQUIRE);
    jclass tc;

    if (m != NULL)
        return m;
    tc = (*jni)->FindClass(jni, "java/lang/Thread");
    if (tc != NULL) {
        m = (*jni)->GetMethodID(jni, tc, "threadId", "()J");
        if (m == NULL) {
            (*jni)->ExceptionClear(jni);
            m = (*jni)->GetMethodID(jni, tc, "getId", "()J");
        }
        (*jni)->DeleteLocalRef(jni, tc);
    }
    (*jni)->ExceptionClear(jni);
    if (m != NULL)
        __atomic_store_n(&id, m, __ATOMIC_RELEASE);
    return m;
}

void vm_thread_info(JNIEnv *jni, jobject thread, int64_t *id, char *name, size_t size)
{
    jvmtiThreadInfo info;
    jmethodID get_id;

    *id = -1;
    snprintf(name, size, "?");
    if (thread == NULL)
        return;
    memset(&info, 0, sizeof info);
    if ((*vm.jvmti)->GetThreadInfo(vm.jvmti, thread, &info) == JVMTI_ERROR_NONE) {
        if (info.name != NULL) {
            char *u = mutf8_dup(info.name);

            snprintf(name, size, "%s", u != NULL ? u : info.name);
            free(u);
            proto_utf8_sanitize(name); /* cut within a character */
            deallocate(info.name);
        }
        if (info.thread_group != NULL)
            (*jni)->DeleteLocalRef(jni, info.thread_group);
        if (info.context_class_loader != NULL)
            (*jni)->DeleteLocalRef(jni, info.context_class_loader);
    }
    get_id = thread_id_method(jni);
    if (get_id != NULL) {
        *id = (*jni)->CallLongMethod(jni, thread, get_id);
        if ((*jni)->ExceptionCheck(jni)) {
            (*jni)->ExceptionClear(jni);
            *id = -1;
        }
    }
}

/* ---- setup -------------------------------------------------------------- */

/* What tracing loses without capability cap (a name WANT lists). */
static const char *missing_loses(const char *cap)
{
    static const struct {
        const char *cap, *loses;
    } what[] = {
        { "can_retransform_classes", "no class loaded before the session can be instrumented" },
        { "can_retransform_any_class", "some classes (of the JDK) cannot be instrumented" },
        { "can_generate_all_class_hook_events", "the JVM may not hand over some classes' bytes "
                                                "(from the CDS archive): those cannot be instrumented" },
        { "can_get_bytecodes", "loaded classes cannot be read for planning: "
                                "calls below the entry method are not followed" },
        { "can_get_constant_pool", "loaded classes cannot be read for planning: "
                                   "calls below the entry method are not followed" },
        { "can_generate_compiled_method_load_events", "warm-up calls cannot be told: none is marked, and "
                                                      "summaries and gates count them" },
    };

    for (size_t i = 0; i < sizeof what / sizeof *what; i++)
        if (strcmp(cap, what[i].cap) == 0)
            return what[i].loses;
    return "tracing will be limited";
}

/* Adds every wanted capability the JVM can give, remembering the others. */
static int add_capabilities(void)
{
    jvmtiCapabilities pot, add;
    jvmtiError err;

    memset(&pot, 0, sizeof pot);
    memset(&add, 0, sizeof add);
    err = (*vm.jvmti)->GetPotentialCapabilities(vm.jvmti, &pot);
    if (err != JVMTI_ERROR_NONE) {
        vm_log("GetPotentialCapabilities: %s", vm_jvmti_error_name(err));
        return -1;
    }
    vm.nmissing = 0;
#define WANT(cap)                                                                  \
    do {                                                                           \
        if (pot.cap)                                                               \
            add.cap = 1;                                                           \
        else if (vm.nmissing < MAX_MISSING)                                        \
            vm.missing[vm.nmissing++] = #cap;                                      \
    } while (0)
    /* can_retransform_classes comes before any ClassFileLoadHook is enabled,
     * or the environment could never retransform. */
    WANT(can_retransform_classes);
    WANT(can_retransform_any_class);
    WANT(can_generate_all_class_hook_events);
    WANT(can_get_bytecodes);
    WANT(can_get_constant_pool);
    /* Warm-up calls (warm.h): which instrumented methods are compiled. */
    WANT(can_generate_compiled_method_load_events);
#undef WANT
    err = (*vm.jvmti)->AddCapabilities(vm.jvmti, &add);
    if (err != JVMTI_ERROR_NONE) {
        vm_log("AddCapabilities: %s", vm_jvmti_error_name(err));
        return -1;
    }
    for (size_t i = 0; i < vm.nmissing; i++)
        vm_log("this JVM cannot give capability %s: %s", vm.missing[i], missing_loses(vm.missing[i]));
    return 0;
}

/* Runs hooks->live with the facts read; called with the lock held. */
static int go_live(JNIEnv *jni)
{
    int rc;

    if (!vm.live) {
        read_property("java.vm.name", vm.facts.name, sizeof vm.facts.name);
        read_property("java.vm.vendor", vm.facts.vendor, sizeof vm.facts.vendor);
        read_java_property(jni, "java.version", vm.facts.version, sizeof vm.facts.version);
        /* Modified UTF-8 from the JVM is not always valid UTF-8. */
        proto_utf8_sanitize(vm.facts.name);
        proto_utf8_sanitize(vm.facts.vendor);
        proto_utf8_sanitize(vm.facts.version);
    }
    rc = vm.hooks->live(jni);
    if (rc == 0)
        vm.live = 1;
    return rc;
}

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
    int rc;

    pthread_mutex_lock(&vm.lock);
    rc = go_live(jni);
    pthread_mutex_unlock(&vm.lock);
    if (rc != 0)
        vm_log("not serving this JVM (code %d)", rc);
}

/* Runs hooks->death once. Outside the lock: the hook waits (bounded) for
 * a session thread that sets event callbacks, which takes the lock. */
static void die(void)
{
    int first;

    pthread_mutex_lock(&vm.lock);
    first = !vm.dead && vm.hooks != NULL;
    vm.dead |= first;
    pthread_mutex_unlock(&vm.lock);
    if (first)
        vm.hooks->death();
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
    die();
}

static int enable_event(jvmtiEvent ev, const char *name)
{
    jvmtiError err;

    err = (*vm.jvmti)->SetEventNotificationMode(vm.jvmti, JVMTI_ENABLE, ev, NULL);
    if (err != JVMTI_ERROR_NONE) {
        vm_log("enabling %s: %s", name, vm_jvmti_error_name(err));
        return -1;
    }
    return 0;
}

/* Installs the callbacks as vm.callbacks now holds them, and enables or
 * disables event ev (called name); vm.lock held. 0 or -1 with e set. */
static int switch_event(jvmtiEvent ev, int on, const char *name, mct_err *e)
{
    jvmtiError err;

    err = (*vm.jvmti)->SetEventCallbacks(vm.jvmti, &vm.callbacks, (jint)sizeof vm.callbacks);
    if (err != JVMTI_ERROR_NONE)
        return mct_err_set(e, MCT_E_JVMTI, "SetEventCallbacks: %s", vm_jvmti_error_name(err));
    err = (*vm.jvmti)->SetEventNotificationMode(vm.jvmti, on ? JVMTI_ENABLE : JVMTI_DISABLE, ev, NULL);
    if (err != JVMTI_ERROR_NONE)
        return mct_err_set(e, MCT_E_JVMTI, "%s %s: %s", on ? "enabling" : "disabling", name,
                           vm_jvmti_error_name(err));
    return 0;
}

/* Sets the callback at offset slot of the callbacks (cb: a function pointer
 * of that slot's type, or NULL) and switches event ev (named name) on or off
 * with it. */
static int set_callback(size_t slot, void (*cb)(void), jvmtiEvent ev, const char *name, mct_err *e)
{
    int rc;

    pthread_mutex_lock(&vm.lock);
    if (vm.jvmti == NULL) {
        pthread_mutex_unlock(&vm.lock);
        return mct_err_set(e, MCT_E_JVMTI, "no JVMTI environment");
    }
    memcpy((char *)&vm.callbacks + slot, &cb, sizeof cb);
    rc = switch_event(ev, cb != NULL, name, e);
    pthread_mutex_unlock(&vm.lock);
    return rc;
}

int vm_set_class_hook(jvmtiEventClassFileLoadHook hook, mct_err *e)
{
    return set_callback(offsetof(jvmtiEventCallbacks, ClassFileLoadHook), (void (*)(void))hook,
                        JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, "ClassFileLoadHook", e);
}

int vm_set_class_prepare(jvmtiEventClassPrepare cb, mct_err *e)
{
    return set_callback(offsetof(jvmtiEventCallbacks, ClassPrepare), (void (*)(void))cb,
                        JVMTI_EVENT_CLASS_PREPARE, "ClassPrepare", e);
}

int vm_set_compiled_load(jvmtiEventCompiledMethodLoad cb, mct_err *e)
{
    return set_callback(offsetof(jvmtiEventCallbacks, CompiledMethodLoad), (void (*)(void))cb,
                        JVMTI_EVENT_COMPILED_METHOD_LOAD, "CompiledMethodLoad", e);
}

int vm_replay_compiled(mct_err *e)
{
    jvmtiError err = (*vm.jvmti)->GenerateEvents(vm.jvmti, JVMTI_EVENT_COMPILED_METHOD_LOAD);

    if (err != JVMTI_ERROR_NONE)
        return mct_err_set(e, MCT_E_JVMTI, "GenerateEvents(CompiledMethodLoad): %s", vm_jvmti_error_name(err));
    return 0;
}

int vm_class_initialized(jclass k)
{
    jint status = 0;

    return (*vm.jvmti)->GetClassStatus(vm.jvmti, k, &status) == JVMTI_ERROR_NONE &&
           (status & JVMTI_CLASS_STATUS_INITIALIZED) != 0;
}

int vm_class_methods(jclass k, void (*fn)(void *arg, jmethodID m, const char *name, const char *sig),
                     void *arg, mct_err *e)
{
    jmethodID *ms = NULL;
    jint n = 0;
    jvmtiError err;

    err = (*vm.jvmti)->GetClassMethods(vm.jvmti, k, &n, &ms);
    if (err != JVMTI_ERROR_NONE)
        return mct_err_set(e, MCT_E_JVMTI, "GetClassMethods: %s", vm_jvmti_error_name(err));
    for (jint i = 0; i < n; i++) {
        char *name = NULL, *sig = NULL;

        err = (*vm.jvmti)->GetMethodName(vm.jvmti, ms[i], &name, &sig, NULL);
        if (err != JVMTI_ERROR_NONE) {
            deallocate(ms);
            return mct_err_set(e, MCT_E_JVMTI, "GetMethodName: %s", vm_jvmti_error_name(err));
        }
        fn(arg, ms[i], name, sig);
        deallocate(name);
        deallocate(sig);
    }
    deallocate(ms);
    return 0;
}

/* Gets the JVMTI environment, its capabilities and callbacks; 0 or -1. */
static int setup_jvmti(enum vm_entry how)
{
    jvmtiEnv *env = NULL;
    jvmtiError err;
    jint rc;

    rc = (*vm.jvm)->GetEnv(vm.jvm, (void **)&env, JVMTI_VERSION_1_2);
    if (rc != JNI_OK || env == NULL) {
        vm_log("this JVM offers no JVMTI 1.2 environment (GetEnv returned %d)", (int)rc);
        return -1;
    }
    __atomic_store_n(&vm.jvmti, env, __ATOMIC_RELEASE);
    if (add_capabilities() < 0)
        return -1;
    memset(&vm.callbacks, 0, sizeof vm.callbacks);
    vm.callbacks.VMInit = on_vm_init;
    vm.callbacks.VMDeath = on_vm_death;
    err = (*vm.jvmti)->SetEventCallbacks(vm.jvmti, &vm.callbacks, (jint)sizeof vm.callbacks);
    if (err != JVMTI_ERROR_NONE) {
        vm_log("SetEventCallbacks: %s", vm_jvmti_error_name(err));
        return -1;
    }
    if (how == VM_ONLOAD && enable_event(JVMTI_EVENT_VM_INIT, "VMInit") < 0)
        return -1;
    return enable_event(JVMTI_EVENT_VM_DEATH, "VMDeath");
}

/* Undoes a failed first load: the JVM may unload the library, so no
 * callback or environment of ours may survive. Called with the lock held. */
static void teardown(void)
{
    if (vm.jvmti != NULL) {
        jvmtiError err = (*vm.jvmti)->DisposeEnvironment(vm.jvmti);

        if (err != JVMTI_ERROR_NONE)
            vm_log("DisposeEnvironment: %s", vm_jvmti_error_name(err));
    }
    __atomic_store_n(&vm.jvmti, NULL, __ATOMIC_RELEASE);
    vm.hooks = NULL;
    vm.live = 0;
}

/* The first load: sets everything up; called with the lock held. */
static int first_enter(enum vm_entry how, const struct vm_hooks *hooks)
{
    JNIEnv *jni = NULL;
    jint rc;
    int code;

    vm.hooks = hooks;
    if (setup_jvmti(how) < 0) {
        teardown();
        return PROTO_RC_JVMTI;
    }
    if (how == VM_ONLOAD) {
        vm_debug("loaded at startup; serving once the JVM has started");
        return 0;
    }
    rc = (*vm.jvm)->GetEnv(vm.jvm, (void **)&jni, JNI_VERSION_1_6);
    if (rc != JNI_OK || jni == NULL) {
        vm_log("no JNI environment on the attach thread (GetEnv returned %d)", (int)rc);
        teardown();
        return PROTO_RC_JVMTI;
    }
    code = go_live(jni);
    if (code != 0)
        teardown();
    return code;
}

int vm_enter(JavaVM *jvm, const char *options, enum vm_entry how,
             const struct vm_hooks *hooks)
{
    struct agent_opts opts;
    mct_err e;
    int code = 0;

    if (opts_parse(options, &opts, &e) < 0) {
        /* A JVM started with a trace must start, traced or not. */
        if (how == VM_ONLOAD && opts_has_trace(options)) {
            vm_log("%s; the JVM runs untraced", e.msg);
            return 0;
        }
        vm_log("%s; not loaded", e.msg);
        return PROTO_RC_OPTIONS;
    }
    pthread_mutex_lock(&vm.lock);
    vm.loads++;
    vm.opts.verbose |= opts.verbose;
    if (opts.rewrite_all[0] != '\0') {
        if (how != VM_ONLOAD) {
            pthread_mutex_unlock(&vm.lock);
            vm_log("rewrite-all is a startup option (-agentpath); not loaded");
            return PROTO_RC_OPTIONS;
        }
        memcpy(vm.opts.rewrite_all, opts.rewrite_all, sizeof opts.rewrite_all);
    }
    if (opts.trace.req.cls != NULL) {
        if (how != VM_ONLOAD) {
            pthread_mutex_unlock(&vm.lock);
            vm_log("trace= is a startup option (-agentpath); attach with the mcalltree command instead; "
                   "not loaded");
            return PROTO_RC_OPTIONS;
        }
        /* One startup trace per JVM: the first stays (JAVA_TOOL_OPTIONS
         * comes before the command line), the other is said, not lost. */
        if (vm.opts.trace.req.cls != NULL)
            vm_log("a second trace= (%s.%s, out=%s) is ignored: this JVM already traces %s.%s to %s, and "
                   "takes one startup trace", opts.trace.req.cls, opts.trace.req.method, opts.trace.req.out,
                   vm.opts.trace.req.cls, vm.opts.trace.req.method, vm.opts.trace.req.out);
        else
            opts_trace_copy(&vm.opts.trace, &opts.trace);
    }
    if (opts.clock[0] != '\0')
        memcpy(vm.opts.clock, opts.clock, sizeof opts.clock);
    if (opts.probes[0] != '\0')
        memcpy(vm.opts.probes, opts.probes, sizeof opts.probes);
    vm.jvm = jvm;
    if (vm.jvmti == NULL) {
        code = first_enter(how, hooks);
    } else if (!vm.dead && how != VM_ONLOAD) {
        JNIEnv *jni = NULL;

        /* Loaded again: the listener normally runs already (live() checks);
         * or going live failed at VMInit (an unsafe socket directory since
         * removed), and this is the retry the user was told to make. */
        if ((*jvm)->GetEnv(jvm, (void **)&jni, JNI_VERSION_1_6) != JNI_OK || jni == NULL)
            code = PROTO_RC_JVMTI;
        else
            code = go_live(jni);
    }
    pthread_mutex_unlock(&vm.lock);
    return code;
}

void vm_leave(void)
{
    die();
}
