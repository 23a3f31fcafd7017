/* tctx.c — see tctx.h. */
#include "tctx.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The key OpenTelemetry's API keeps the current span under
 * (SpanContextKey.KEY, a DefaultContextKey named so). */
#define OTEL_SPAN_KEY "opentelemetry-trace-span-key"
/* A Context's entries: ArrayBasedContext holds keys and values in turns. */
#define OTEL_MAX_ENTRIES 64

/* The JDK's side: how ThreadLocal.get finds a thread's value. Resolved
 * once; boot classes never unload. */
static struct {
    jclass string;                      /* global refs */
    jfieldID thread_locals, inheritable; /* Thread.threadLocals, .inheritableThreadLocals */
    jfieldID table;                      /* ThreadLocalMap.table */
    jfieldID value;                      /* ThreadLocalMap.Entry.value */
    jfieldID referent;                   /* Reference.referent: the entry's ThreadLocal */
    jfieldID hash;                       /* ThreadLocal.threadLocalHashCode */
    int ready;
} jdk;

/* A source (immutable once published). */
struct tctx_src {
    jobject tl;                 /* global ref */
    jint hash;                  /* its threadLocalHashCode */
    jfieldID map;               /* the Thread field of its map */
    char pkg[96];               /* the OpenTelemetry package prefix */
    char span_ctx_sig[160];     /* "L<pkg>api/trace/SpanContext;" */
    char flags_sig[160];        /* "L<pkg>api/trace/TraceFlags;" */
    struct tctx_src *next;      /* every source made, for reuse */
};

static _Atomic(struct tctx_src *) cur_src;
static struct tctx_src *all_srcs;  /* the session thread's */

/* A field of class k, or NULL (the NoSuchFieldError cleared). */
static jfieldID field(JNIEnv *env, jclass k, const char *name, const char *sig, int is_static)
{
    jfieldID f = is_static ? (*env)->GetStaticFieldID(env, k, name, sig) : (*env)->GetFieldID(env, k, name, sig);

    if (f == NULL || (*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        return NULL;
    }
    return f;
}

/* A JDK class as a local ref, or NULL (cleared). */
static jclass jdk_class(JNIEnv *env, const char *name)
{
    jclass k = (*env)->FindClass(env, name);

    if (k == NULL || (*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        return NULL;
    }
    return k;
}

static int jdk_init(JNIEnv *env, mct_err *e)
{
    jclass th = jdk_class(env, "java/lang/Thread"), tl = jdk_class(env, "java/lang/ThreadLocal"),
           map = jdk_class(env, "java/lang/ThreadLocal$ThreadLocalMap"),
           ent = jdk_class(env, "java/lang/ThreadLocal$ThreadLocalMap$Entry"),
           ref = jdk_class(env, "java/lang/ref/Reference"), str = jdk_class(env, "java/lang/String");
    int ok = th && tl && map && ent && ref && str;

    if (ok) {
        jdk.thread_locals = field(env, th, "threadLocals", "Ljava/lang/ThreadLocal$ThreadLocalMap;", 0);
        jdk.inheritable = field(env, th, "inheritableThreadLocals", "Ljava/lang/ThreadLocal$ThreadLocalMap;", 0);
        jdk.table = field(env, map, "table", "[Ljava/lang/ThreadLocal$ThreadLocalMap$Entry;", 0);
        jdk.value = field(env, ent, "value", "Ljava/lang/Object;", 0);
        jdk.referent = field(env, ref, "referent", "Ljava/lang/Object;", 0);
        jdk.hash = field(env, tl, "threadLocalHashCode", "I", 0);
        ok = jdk.thread_locals && jdk.inheritable && jdk.table && jdk.value && jdk.referent && jdk.hash &&
             (jdk.string = (*env)->NewGlobalRef(env, str)) != NULL;
    }
    {
        jobject locals[] = {th, tl, map, ent, ref, str};

        for (size_t i = 0; i < sizeof locals / sizeof *locals; i++)
            if (locals[i] != NULL)
                (*env)->DeleteLocalRef(env, locals[i]);
    }
    if (!ok)
        return mct_err_set(e, MCT_E_JVMTI, "this JDK's ThreadLocal is not laid out as expected "
                           "(Thread.threadLocals, ThreadLocalMap.table, Entry.value)");
    jdk.ready = 1;
    return 0;
}

/* Whether tl's class is ThreadLocal, InheritableThreadLocal (*inheritable
 * set) or the JDK's withInitial subclass. */
static int tl_class_ok(JNIEnv *env, jobject tl, int *inheritable)
{
    static const char *const ok[] = {"java/lang/ThreadLocal", "java/lang/InheritableThreadLocal",
                                     "java/lang/ThreadLocal$SuppliedThreadLocal"};
    jclass k = (*env)->GetObjectClass(env, tl);
    int found = 0;

    for (size_t i = 0; k != NULL && i < sizeof ok / sizeof *ok && !found; i++) {
        jclass c = jdk_class(env, ok[i]);

        if (c != NULL && (*env)->IsSameObject(env, k, c)) {
            found = 1;
            *inheritable = i == 1;
        }
        if (c != NULL)
            (*env)->DeleteLocalRef(env, c);
    }
    if (k != NULL)
        (*env)->DeleteLocalRef(env, k);
    return found;
}

int tctx_set(JNIEnv *env, jobject tl, const char *otel_pkg, mct_err *e)
{
    struct tctx_src *s;
    int inheritable = 0;

    if (!jdk.ready && jdk_init(env, e) < 0)
        return -1;
    if (tl == NULL)
        return mct_err_set(e, MCT_E_UNSUPPORTED, "the field holds null, not a ThreadLocal");
    if (!tl_class_ok(env, tl, &inheritable))
        return mct_err_set(e, MCT_E_UNSUPPORTED, "the field holds a subclass of ThreadLocal, whose "
                           "value is its own code's: name a field holding a java.lang.ThreadLocal or "
                           "InheritableThreadLocal");
    for (s = all_srcs; s != NULL; s = s->next)
        if (strcmp(s->pkg, otel_pkg) == 0 && (*env)->IsSameObject(env, s->tl, tl))
            break;
    if (s == NULL) {
        if ((s = calloc(1, sizeof *s)) == NULL)
            return mct_err_set(e, MCT_E_NOMEM, "out of memory reading --trace-context");
        if ((s->tl = (*env)->NewGlobalRef(env, tl)) == NULL) {
            free(s);
            return mct_err_set(e, MCT_E_NOMEM, "out of memory reading --trace-context");
        }
        s->hash = (*env)->GetIntField(env, tl, jdk.hash);
        s->map = inheritable ? jdk.inheritable : jdk.thread_locals;
        snprintf(s->pkg, sizeof s->pkg, "%s", otel_pkg);
        snprintf(s->span_ctx_sig, sizeof s->span_ctx_sig, "L%sapi/trace/SpanContext;", otel_pkg);
        snprintf(s->flags_sig, sizeof s->flags_sig, "L%sapi/trace/TraceFlags;", otel_pkg);
        s->next = all_srcs;
        all_srcs = s;
    }
    atomic_store_explicit(&cur_src, s, memory_order_release);
    return 0;
}

void tctx_off(void)
{
    atomic_store_explicit(&cur_src, NULL, memory_order_release);
}

int tctx_wanted(void)
{
    return atomic_load_explicit(&cur_src, memory_order_relaxed) != NULL;
}

/* The value of s's ThreadLocal on thread cur (a local ref), or NULL:
 * ThreadLocalMap.getEntry's probe, by fields. */
static jobject tl_value(JNIEnv *env, const struct tctx_src *s, jobject cur)
{
    jobject map = (*env)->GetObjectField(env, cur, s->map), table = NULL, v = NULL;
    jsize len, i, n;

    if (map != NULL)
        table = (*env)->GetObjectField(env, map, jdk.table);
    len = table != NULL ? (*env)->GetArrayLength(env, table) : 0;
    /* The table's length is a power of two (ThreadLocalMap): else not
     * the map this reads. */
    if (len <= 0 || (len & (len - 1)) != 0)
        len = 0;
    for (i = len > 0 ? s->hash & (len - 1) : 0, n = 0; n < len; n++, i = (i + 1) & (len - 1)) {
        jobject ent = (*env)->GetObjectArrayElement(env, table, i), key;
        int same;

        if (ent == NULL)
            break;
        key = (*env)->GetObjectField(env, ent, jdk.referent);
        same = key != NULL && (*env)->IsSameObject(env, key, s->tl);
        if (key != NULL)
            (*env)->DeleteLocalRef(env, key);
        if (same)
            v = (*env)->GetObjectField(env, ent, jdk.value);
        (*env)->DeleteLocalRef(env, ent);
        if (same)
            break;
    }
    if (table != NULL)
        (*env)->DeleteLocalRef(env, table);
    if (map != NULL)
        (*env)->DeleteLocalRef(env, map);
    return v;
}

/* Longest traceparent read: a later version may append fields. */
#define TRACEPARENT_MAX 128

/* The n ASCII characters of String str into out (NUL-terminated, size >
 * n); whether str is exactly that long and ASCII. */
static int ascii(JNIEnv *env, jstring str, char *out, jsize n)
{
    jchar u[TRACEPARENT_MAX];

    if (n >= TRACEPARENT_MAX || (*env)->GetStringLength(env, str) != n)
        return 0;
    (*env)->GetStringRegion(env, str, 0, n, u);
    if ((*env)->ExceptionCheck(env))
        return 0;
    for (jsize i = 0; i < n; i++) {
        if (u[i] == 0 || u[i] > 0x7e)
            return 0;
        out[i] = (char)u[i];
    }
    out[n] = '\0';
    return 1;
}

/* A traceparent String value. */
static enum tctx_status from_string(JNIEnv *env, jstring v, struct call_parent *p)
{
    char s[TRACEPARENT_MAX];
    jsize n = (*env)->GetStringLength(env, v);

    return ascii(env, v, s, n) && call_parent_read(s, (size_t)n, p) == 0 ? TCTX_OK : TCTX_BAD;
}

/* Object field name (of sig) of obj as a local ref, or NULL; *bad set when
 * obj's class has no such field. */
static jobject get_obj(JNIEnv *env, jobject obj, const char *name, const char *sig, int *bad)
{
    jclass k = (*env)->GetObjectClass(env, obj);
    jfieldID f = k != NULL ? field(env, k, name, sig, 0) : NULL;
    jobject v = f != NULL ? (*env)->GetObjectField(env, obj, f) : NULL;

    if (k != NULL)
        (*env)->DeleteLocalRef(env, k);
    if (f == NULL)
        *bad = 1;
    return v;
}

/* Whether key is the span's ContextKey (a DefaultContextKey by its name). */
static int span_key(JNIEnv *env, jobject key)
{
    char name[sizeof OTEL_SPAN_KEY];
    int bad = 0, is;
    jobject s = get_obj(env, key, "name", "Ljava/lang/String;", &bad);

    is = s != NULL && ascii(env, s, name, (jsize)strlen(OTEL_SPAN_KEY)) && strcmp(name, OTEL_SPAN_KEY) == 0;
    if (s != NULL)
        (*env)->DeleteLocalRef(env, s);
    return is;
}

/* The span's SpanContext (SdkSpan.context, PropagatedSpan.spanContext)
 * into *p. */
static enum tctx_status from_span(JNIEnv *env, const struct tctx_src *s, jobject span, struct call_parent *p)
{
    char tp[CALL_TRACEPARENT_LEN + 1], tid[33], sid[17];
    int bad = 0, no_ctx = 0, ok;
    jobject sc = get_obj(env, span, "context", s->span_ctx_sig, &no_ctx), t = NULL, sp = NULL, fl = NULL;
    jclass fk;
    jfieldID bf;
    jbyte flags = 0;

    if (no_ctx)
        sc = get_obj(env, span, "spanContext", s->span_ctx_sig, &bad);
    if (sc == NULL)
        return TCTX_BAD;
    t = get_obj(env, sc, "traceId", "Ljava/lang/String;", &bad);
    sp = get_obj(env, sc, "spanId", "Ljava/lang/String;", &bad);
    fl = get_obj(env, sc, "traceFlags", s->flags_sig, &bad);
    fk = fl != NULL ? (*env)->GetObjectClass(env, fl) : NULL;
    bf = fk != NULL ? field(env, fk, "byteRep", "B", 0) : NULL;
    if (bf != NULL)
        flags = (*env)->GetByteField(env, fl, bf);
    ok = !bad && bf != NULL && t != NULL && sp != NULL && ascii(env, t, tid, 32) && ascii(env, sp, sid, 16);
    if (ok)
        snprintf(tp, sizeof tp, "00-%s-%s-%02x", tid, sid, (unsigned)(uint8_t)flags);
    {
        jobject locals[] = {sc, t, sp, fl, fk};

        for (size_t i = 0; i < sizeof locals / sizeof *locals; i++)
            if (locals[i] != NULL)
                (*env)->DeleteLocalRef(env, locals[i]);
    }
    if (!ok)
        return TCTX_BAD;
    /* The invalid span (all-zero ids: Span.getInvalid()) is no span. */
    if (strspn(tid, "0") == 32 || strspn(sid, "0") == 16)
        return TCTX_NONE;
    return call_parent_read(tp, CALL_TRACEPARENT_LEN, p) == 0 ? TCTX_OK : TCTX_BAD;
}

/* An OpenTelemetry Context value: the span under the span key. */
static enum tctx_status from_otel(JNIEnv *env, const struct tctx_src *s, jobject ctx, struct call_parent *p)
{
    int bad = 0;
    jobject entries = get_obj(env, ctx, "entries", "[Ljava/lang/Object;", &bad);
    enum tctx_status st = bad ? TCTX_BAD : TCTX_NONE;
    jsize n = entries != NULL ? (*env)->GetArrayLength(env, entries) : 0;

    for (jsize i = 0; i + 1 < n && i < OTEL_MAX_ENTRIES; i += 2) {
        jobject key = (*env)->GetObjectArrayElement(env, entries, i), span;
        int found = key != NULL && span_key(env, key);

        if (key != NULL)
            (*env)->DeleteLocalRef(env, key);
        if (!found)
            continue;
        span = (*env)->GetObjectArrayElement(env, entries, i + 1);
        st = span != NULL ? from_span(env, s, span, p) : TCTX_NONE;
        if (span != NULL)
            (*env)->DeleteLocalRef(env, span);
        break;
    }
    if (entries != NULL)
        (*env)->DeleteLocalRef(env, entries);
    return st;
}

enum tctx_status tctx_read(JNIEnv *env, jobject cur, struct call_parent *p)
{
    const struct tctx_src *s = atomic_load_explicit(&cur_src, memory_order_acquire);
    enum tctx_status st = TCTX_NONE;
    jobject v;

    if (s == NULL || cur == NULL)
        return TCTX_NONE;
    v = tl_value(env, s, cur);
    if (v != NULL) {
        st = (*env)->IsInstanceOf(env, v, jdk.string) ? from_string(env, v, p) : from_otel(env, s, v, p);
        (*env)->DeleteLocalRef(env, v);
    }
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        st = TCTX_BAD;
    }
    return st;
}
