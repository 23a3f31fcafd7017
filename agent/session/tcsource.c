/* tcsource.c — see tcsource.h. */
#include "tcsource.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request.h"
#include "session_int.h"
#include "tctx.h"
#include "vm.h"

#define LOOK_AGAIN_NS 1000000000u

/* Where a source may be: a class (internal name), its field, and the
 * package OpenTelemetry's classes are in beside it. */
struct place {
    const char *cls, *field, *otel_pkg;
};

#define OTEL_SHADED "io/opentelemetry/javaagent/shaded/io/opentelemetry/"
#define OTEL_PLAIN "io/opentelemetry/"

/* `otel`: the Java agent's storage first (its spans are the ones the
 * agent exports), then the API's own. */
static const struct place otel_places[] = {
    {OTEL_SHADED "context/ThreadLocalContextStorage", "THREAD_LOCAL_STORAGE", OTEL_SHADED},
    {OTEL_PLAIN "context/ThreadLocalContextStorage", "THREAD_LOCAL_STORAGE", OTEL_PLAIN},
};

/* The static ThreadLocal field of initialised class k; 1 when handed to
 * the probes, 0 when k is not initialised yet, -1 with err set. */
static int use_field(JNIEnv *jni, jclass k, const struct place *pl, const char *given, mct_err *err)
{
    static const char *const sigs[] = {"Ljava/lang/ThreadLocal;", "Ljava/lang/InheritableThreadLocal;"};
    jfieldID f = NULL;
    jobject tl;
    int rc;

    /* GetStaticFieldID would initialise it: its <clinit> is the
     * application's. */
    if (!vm_class_initialized(k))
        return 0;
    for (size_t i = 0; f == NULL && i < sizeof sigs / sizeof *sigs; i++) {
        f = (*jni)->GetStaticFieldID(jni, k, pl->field, sigs[i]);
        if ((*jni)->ExceptionCheck(jni)) {
            (*jni)->ExceptionClear(jni);
            f = NULL;
        }
    }
    if (f == NULL)
        return mct_err_set(err, MCT_E_UNSUPPORTED, "--trace-context %s: the class has no static field '%s' declared "
                           "ThreadLocal or InheritableThreadLocal", given, pl->field);
    tl = (*jni)->GetStaticObjectField(jni, k, f);
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        return mct_err_set(err, MCT_E_UNSUPPORTED, "--trace-context %s: the field cannot be read", given);
    }
    rc = tctx_set(jni, tl, pl->otel_pkg, err);
    if (tl != NULL)
        (*jni)->DeleteLocalRef(jni, tl);
    if (rc < 0)
        return mct_err_wrap(err, "--trace-context %s", given);
    return 1;
}

/* Looks through the loaded classes for places[0..n) in order; 1 found, 0
 * not yet, -1 with err set. */
static int look(JNIEnv *jni, const struct place *places, size_t n, const char *given, mct_err *err)
{
    size_t count = 0;
    jclass *loaded = vm_loaded_classes(&count, err);
    int rc = 0;

    if (loaded == NULL)
        return -1;
    for (size_t p = 0; p < n && rc == 0; p++)
        for (size_t i = 0; i < count && rc == 0; i++) {
            mct_err ignored;
            char *name = vm_class_name(loaded[i], &ignored);

            if (name != NULL && strcmp(name, places[p].cls) == 0)
                rc = use_field(jni, loaded[i], &places[p], given, err);
            free(name);
        }
    vm_release_loaded(jni, loaded, count);
    return rc;
}

/* One look for s's source; as look. */
static int find(struct session *s, JNIEnv *jni, mct_err *err)
{
    const char *src = s->trace_context, *field;
    struct place pl;
    char *cls;
    size_t n;
    int rc;

    if (strcmp(src, REQ_TRACE_CONTEXT_OTEL) == 0)
        return look(jni, otel_places, sizeof otel_places / sizeof *otel_places, src, err);
    if (req_trace_context_split(src, &n, &field) < 0)
        return mct_err_set(err, MCT_E_ARG, "trace_context must be CLASS.FIELD or '%s', got '%s'",
                           REQ_TRACE_CONTEXT_OTEL, src);
    if ((cls = strndup(src, n)) == NULL)
        return mct_err_set(err, MCT_E_NOMEM, "out of memory reading --trace-context");
    for (char *c = cls; *c != '\0'; c++)
        if (*c == '.')
            *c = '/';
    pl = (struct place){.cls = cls, .field = field, .otel_pkg = OTEL_PLAIN};
    rc = look(jni, &pl, 1, src, err);
    free(cls);
    return rc;
}

int tcsource_begin(struct session *s, JNIEnv *jni, char *note, size_t size, mct_err *err)
{
    int rc;

    tctx_off();
    s->tc_pending = 0;
    if (s->trace_context == NULL)
        return 0;
    if ((rc = find(s, jni, err)) < 0)
        return -1;
    s->tc_pending = rc == 0;
    s->tc_look_ns = now_ns();
    if (!s->tc_pending)
        return 0;
    snprintf(note, size, "--trace-context %s: its class is not loaded (or initialised) yet: calls carry no "
             "trace_parent until it is (looked for every second)", s->trace_context);
    return 1;
}

/* msg without the "--trace-context SRC: " some messages start with (the
 * note names the source itself). */
static const char *why_of(const char *msg)
{
    const char *p = strncmp(msg, "--trace-context ", 16) == 0 ? strstr(msg, ": ") : NULL;

    return p != NULL ? p + 2 : msg;
}

int tcsource_tick(struct session *s, JNIEnv *jni, uint64_t now, char *note, size_t size)
{
    mct_err err;
    int rc;

    if (!s->tc_pending || now - s->tc_look_ns < LOOK_AGAIN_NS)
        return 0;
    s->tc_look_ns = now;
    if ((rc = find(s, jni, &err)) != 0)
        s->tc_pending = 0;
    if (rc == 0)
        return 0;
    if (rc > 0)
        snprintf(note, size, "--trace-context %s: found; the calls from now on carry their trace_parent",
                 s->trace_context);
    else
        snprintf(note, size, "--trace-context %s: %s; calls go on without a trace_parent", s->trace_context,
                 why_of(err.msg));
    return 1;
}

void tcsource_end(void)
{
    tctx_off();
}
