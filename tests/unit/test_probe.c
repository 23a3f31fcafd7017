/* test_probe.c — the probe runtime without a JVM: the natives are called
 * through fake JNI and JVMTI function tables, exactly as instrumented code
 * would call them, and the events they leave are checked. */
#include <jni.h>
#include <jvmti.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytecode.h"
#include "check.h"
#include "classfile.h"
#include "clock.h"
#include "methods.h"
#include "probe.h"
#include "tree.h"

typedef void(JNICALL *native_i)(JNIEnv *, jclass, jint);
typedef void(JNICALL *native_ti)(JNIEnv *, jclass, jthrowable, jint);

static native_i p_enter, p_exit, p_root_enter, p_root_exit;
static native_ti p_fail, p_root_fail;
static int defined_ok;
static int global_refs;

/* Distinct addresses standing for JVM objects (jobject is opaque). */
static char objects[4];
#define fake_class ((jclass)&objects[0])
#define fake_thread ((jthread)&objects[1])
#define fake_exc ((jthrowable)&objects[2])
#define fake_exc_class ((jclass)&objects[3])

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
        defined_ok = natives == 6 && cf_find_method(c, "spin", "(I)V") != NULL;
    }
    cf_free(c);
    return fake_class;
}

static jint JNICALL f_register(JNIEnv *env, jclass cls, const JNINativeMethod *m, jint n)
{
    jint i;

    for (i = 0; i < n; i++) {
        if (strcmp(m[i].name, "enter") == 0)
            p_enter = (native_i)m[i].fnPtr;
        else if (strcmp(m[i].name, "exit") == 0)
            p_exit = (native_i)m[i].fnPtr;
        else if (strcmp(m[i].name, "fail") == 0)
            p_fail = (native_ti)m[i].fnPtr;
        else if (strcmp(m[i].name, "rootEnter") == 0)
            p_root_enter = (native_i)m[i].fnPtr;
        else if (strcmp(m[i].name, "rootExit") == 0)
            p_root_exit = (native_i)m[i].fnPtr;
        else if (strcmp(m[i].name, "rootFail") == 0)
            p_root_fail = (native_ti)m[i].fnPtr;
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

static jvmtiError JNICALL f_current_thread(jvmtiEnv *env, jthread *out)
{
    *out = fake_thread;
    return JVMTI_ERROR_NONE;
}

static struct JNINativeInterface_ jni_fns;
static const struct JNINativeInterface_ *jni_obj = &jni_fns;
static JNIEnv *env = (JNIEnv *)&jni_obj;
static struct jvmtiInterface_1_ jvmti_fns;
static const struct jvmtiInterface_1_ *jvmti_obj = &jvmti_fns;
static jvmtiEnv *jvmti = (jvmtiEnv *)&jvmti_obj;

static int32_t ROOT, OTHER_ROOT, A, B, C, D;

/* The only thread state in these single-threaded tests. */
static probe_thread *me(void)
{
    return probe_threads();
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

static void test_install(void)
{
    mct_err err;

    jni_fns.DefineClass = f_define;
    jni_fns.RegisterNatives = f_register;
    jni_fns.NewGlobalRef = f_new_global;
    jni_fns.DeleteGlobalRef = f_delete_global;
    jni_fns.DeleteLocalRef = f_delete_local;
    jni_fns.GetObjectClass = f_get_class;
    jvmti_fns.GetCurrentThread = f_current_thread;
    CHECK(probe_install(env, jvmti, 0, &err) == 0);
    CHECK(defined_ok);
    CHECK(p_enter && p_exit && p_fail && p_root_enter && p_root_exit && p_root_fail);
    CHECK(probe_install(env, jvmti, 0, &err) == 0); /* idempotent */
    CHECK_STR(probe_methods(1)->enter, "rootEnter");
    CHECK_STR(probe_methods(0)->fail, "fail");
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
    CHECK_INT(global_refs, 2); /* the probe class and the Thread */
    p_enter(env, fake_class, A);
    p_enter(env, fake_class, B);
    p_enter(env, fake_class, C);
    p_exit(env, fake_class, C);
    p_exit(env, fake_class, B);
    p_exit(env, fake_class, A);
    p_root_exit(env, fake_class, ROOT);
    n = pending(me(), ev, 16);
    CHECK_INT(n, 6);
    CHECK_INT(PROBE_KIND(ev[0].kind), PROBE_ROOT_ENTER);
    CHECK_INT(PROBE_LEN(ev[0].kind), 6);
    CHECK_INT(ev[1].id, A);
    CHECK_INT(ev[2].id, B);
    CHECK_INT(PROBE_KIND(ev[3].kind), PROBE_EXIT);
    CHECK_INT(ev[3].id, B);
    CHECK_INT(PROBE_KIND(ev[5].kind), PROBE_ROOT_EXIT);
    CHECK(ev[5].t >= ev[0].t);
    CHECK_INT(me()->depth, 0);
}

static void test_foreign_roots(void)
{
    probe_ev ev[4];

    p_root_enter(env, fake_class, OTHER_ROOT); /* a root of session 2 */
    p_root_exit(env, fake_class, OTHER_ROOT);
    p_root_enter(env, fake_class, A); /* not a root */
    p_root_exit(env, fake_class, A);
    CHECK_INT(pending(me(), ev, 4), 0);
    probe_session_end();
    p_root_enter(env, fake_class, ROOT);
    p_root_exit(env, fake_class, ROOT);
    CHECK_INT(pending(me(), ev, 4), 0);
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
        json_t *j = tree_json(tr, 1, 1, "t", NULL);
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

/* A ring the worker has not drained refuses new calls (counted), and a
 * bigger ring offered by the worker is taken at the next call. */
static void test_drop_and_grow(void)
{
    probe_thread *t = me();
    probe_ev ev[8];
    uint64_t cap;
    int i;

    for (i = 0; i < (int)(PROBE_RING_MIN / 2); i++) {
        p_root_enter(env, fake_class, ROOT);
        p_root_exit(env, fake_class, ROOT);
    }
    CHECK(atomic_load(&t->dropped) > 0);
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

static void *traced_thread(void *arg)
{
    p_root_enter(env, fake_class, ROOT);
    p_root_exit(env, fake_class, ROOT);
    return probe_threads();
}

/* A thread that ends is drained, freed, and its state reused. */
static void test_thread_reuse(void)
{
    pthread_t th;
    void *first, *second;
    probe_thread *t;
    probe_ev ev[4];
    int refs;

    CHECK(pthread_create(&th, NULL, traced_thread, NULL) == 0);
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
    CHECK(pthread_create(&th, NULL, traced_thread, NULL) == 0);
    pthread_join(th, &second);
    CHECK(second == first);
}

int main(void)
{
    mct_err err;

    clock_init(0);
    ROOT = mt_add("com/shop/Cart", "total", "()J", 1, 1, &err);
    OTHER_ROOT = mt_add("com/shop/Cart", "total", "()J", 2, 1, &err);
    A = mt_add("com/shop/Cart", "a", "()V", 1, 0, &err);
    B = mt_add("com/shop/Cart", "b", "()V", 1, 0, &err);
    C = mt_add("com/shop/Cart", "c", "()V", 1, 0, &err);
    D = mt_add("com/shop/Line", "<init>", "()V", 1, 0, &err);
    test_install();
    test_outside_session();
    test_depth_limit();
    test_foreign_roots();
    test_nesting_and_missed_exit();
    test_exception();
    test_overflow();
    test_drop_and_grow();
    test_thread_reuse();
    return check_status();
}
