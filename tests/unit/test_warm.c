/* test_warm.c — the warm-up rule (agent/warm.c) without a JVM: the vm.h
 * calls it makes are faked here (classes and methods are plain structs, the
 * CompiledMethodLoad callback is called directly), so that which calls are
 * marked can be checked against the rule in warm.h: compiled before and not
 * again, cold before, compiled again, the bound, a retransform again, the
 * first calls of an entry method, and a JVM that cannot tell. */
#include <jvmti.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clock.h"
#include "methods.h"
#include "vm.h"
#include "warm.h"

/* A fake class: its methods' jmethodIDs are the addresses of ids[i]. */
struct fake_class {
    const char *name;
    const char *names[4];
    char ids[4];
    int n;
};

static struct fake_class cart = { "com/shop/Cart", { "total", "big", "cold", "other" }, {0}, 4 };
static jvmtiEventCompiledMethodLoad callback;
static jmethodID compiled_now[4];   /* what the replay reports */
static int n_compiled_now;
static int refuse_event;             /* vm_set_compiled_load fails */

#define MID(i) ((jmethodID)&cart.ids[i])

char *vm_class_name(jclass k, mct_err *e)
{
    (void)e;
    return strdup(((struct fake_class *)(void *)k)->name);
}

int vm_class_initialized(jclass k)
{
    (void)k;
    return 1;
}

int vm_class_methods(jclass k, void (*fn)(void *arg, jmethodID m, const char *name, const char *sig), void *arg,
                     mct_err *e)
{
    struct fake_class *c = (void *)k;

    (void)e;
    for (int i = 0; i < c->n; i++)
        fn(arg, (jmethodID)&c->ids[i], c->names[i], "()V");
    return 0;
}

int vm_set_compiled_load(jvmtiEventCompiledMethodLoad cb, mct_err *e)
{
    if (cb != NULL && refuse_event)
        return mct_err_set(e, MCT_E_JVMTI, "SetEventNotificationMode: JVMTI_ERROR_MUST_POSSESS_CAPABILITY");
    callback = cb;
    return 0;
}

int vm_replay_compiled(mct_err *e)
{
    (void)e;
    for (int i = 0; i < n_compiled_now; i++)
        callback(NULL, compiled_now[i], 0, NULL, 0, NULL, NULL);
    return 0;
}

void vm_log(const char *fmt, ...)
{
    (void)fmt;
}

void vm_debug(const char *fmt, ...)
{
    (void)fmt;
}

static void compiled(jmethodID m)
{
    CHECK(callback != NULL);
    if (callback != NULL)
        callback(NULL, m, 0, NULL, 0, NULL, NULL);
}

int main(void)
{
    jclass classes[] = { (jclass)(void *)&cart };
    uint64_t bound, t;
    int32_t total, big, cold;
    mct_err err;

    clock_init(0);
    bound = (uint64_t)(WARM_BOUND_S * 1e9 / clock_calibration().ns_per_tick);
    total = mt_add("com/shop/Cart", "total", "()V", 1, 1, &err);
    big = mt_add("com/shop/Cart", "big", "()V", 1, 0, &err);
    cold = mt_add("com/shop/Cart", "cold", "()V", 1, 0, &err);
    CHECK(total >= 0 && big >= 0 && cold >= 0);

    /* Nothing bound: nothing enabled, nothing marked. */
    CHECK_INT(warm_begin(2, classes, 1, &err), 0);
    CHECK(callback == NULL);
    CHECK(!warm_marks(total, clock_ticks()));
    /* Not a method of this session: its first calls are not armed (nor
     * are those of a class not initialized yet: test_warm fakes them all). */
    CHECK(!warm_first(total));
    warm_end();

    /* total and big were compiled before the session, cold was not. */
    compiled_now[0] = MID(0);
    compiled_now[1] = MID(1);
    n_compiled_now = 2;
    CHECK_INT(warm_begin(1, classes, 1, &err), 0);
    CHECK(callback != NULL);
    CHECK(warm_unknown() == NULL);
    warm_retransformed();
    t = clock_ticks();
    CHECK(warm_marks(total, t));
    CHECK(warm_marks(big, t));
    CHECK(!warm_marks(cold, t));
    /* total compiled again: calls begun after that are not marked, those
     * begun before still are. */
    compiled(MID(0));
    CHECK(!warm_marks(total, clock_ticks() + 1));
    CHECK(warm_marks(total, t));
    /* cold compiled during the session never marks. */
    compiled(MID(2));
    CHECK(!warm_marks(cold, clock_ticks()));
    CHECK(!warm_marks(cold, t));
    /* big is never compiled again: it marks until the bound, then not. */
    CHECK(warm_marks(big, t + bound / 2));
    CHECK(!warm_marks(big, t + bound + bound / 100));
    /* The first WARM_FIRST_CALLS calls of an entry method are warm-up,
     * whatever the compile events say; the next are not. */
    for (int k = 0; k < WARM_FIRST_CALLS; k++)
        CHECK(warm_first(cold));
    CHECK(!warm_first(cold));
    /* Retransformed again: total lost its new code, big starts a new
     * bound; cold, first compiled during the session (the JIT's ordinary
     * progress, as in a cold JVM), does not mark again, but its first
     * calls count anew. */
    warm_rearm(classes, 1);
    t = clock_ticks();
    CHECK(warm_marks(total, t));
    CHECK(!warm_marks(cold, t));
    CHECK(warm_first(cold));
    CHECK(warm_marks(big, t + bound / 2));
    compiled(MID(0));
    CHECK(!warm_marks(total, clock_ticks() + 1));
    CHECK(!warm_marks(big, t + bound + bound / 100));
    warm_end();
    CHECK(callback == NULL);
    /* big stopped marking (twice: counted once). */
    CHECK_INT(warm_stale(), 1);
    CHECK(!warm_marks(total, t));

    /* A JVM that cannot give the event: nothing marked, and why. */
    refuse_event = 1;
    CHECK_INT(warm_begin(1, classes, 1, &err), -1);
    CHECK(warm_unknown() != NULL && strstr(warm_unknown(), "MUST_POSSESS_CAPABILITY") != NULL);
    CHECK_INT(warm_stale(), -1);
    warm_retransformed();
    CHECK(!warm_marks(total, clock_ticks()));
    warm_end();
    CHECK(warm_unknown() != NULL);
    refuse_event = 0;
    CHECK_INT(warm_begin(1, classes, 1, &err), 0);
    CHECK(warm_unknown() == NULL);
    warm_end();
    return check_status();
}
