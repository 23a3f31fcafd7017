/* warm.c — see warm.h. */
#include "warm.h"

#include <jvmticmlr.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "clock.h"
#include "kit.h"
#include "methods.h"
#include "vm.h"

/* since[id]: 0, not compiled before the session (nor since); HOT, compiled
 * before and not again yet; SEEN, not compiled before but compiled during
 * the session; else the tick at which it was compiled again. */
#define HOT UINT64_MAX
#define SEEN (UINT64_MAX - 1)

/* How long warm_end waits for callbacks still running before it leaves
 * the state allocated rather than free it under them. */
#define END_WAIT_NS 1000000000u

struct warm {
    size_t mask;                /* the table's slots - 1 (a power of two - 1) */
    jmethodID *keys;            /* NULL: an empty slot */
    int32_t *ids;               /* the method number bound to keys[i] */
    uint32_t n_ids;             /* since[] covers numbers below this */
    _Atomic uint64_t *since;
    _Atomic int after;          /* retransformed: events say "compiled again" */
    /* The session thread's alone: */
    uint64_t *armed;            /* tick of the last retransform of method id */
    uint8_t *stale;             /* id stopped marking: past the bound, not compiled again */
    uint64_t bound;             /* WARM_BOUND_S in ticks */
};

/* What callbacks see: the session's state, or NULL. */
static _Atomic(struct warm *) cur;
/* Callbacks running now: warm_end frees nothing while one runs. */
static _Atomic int busy;
/* The session thread's own pointer (cur is cleared first at the end). */
static struct warm *owned;
/* Our callback is installed and the event enabled. */
static int enabled;
/* What the last session found: why warm-up calls cannot be told ("" when
 * they can), and the methods that stopped marking (warm_stale). */
static char unknown[512];
static long long stale_count;
/* first_left[id]: how many more calls of entry method id are warm-up
 * (warm_first); WARM_FIRST_CALLS when its class was retransformed, 0 for
 * a method instrumented as its class loaded. The session thread's alone. */
static uint8_t *first_left;
static size_t n_first_left;
/* warm_from_start: the session traces from the JVM's start. */
static int from_start;

static size_t slot_of(const struct warm *w, jmethodID m)
{
    return (size_t)kit_hash_u64((uintptr_t)m) & w->mask;
}

/* Method id's class is retransformed: its next WARM_FIRST_CALLS calls are
 * warm-up (out of memory: not marked; the compile events' rule holds). */
static void arm_first(int32_t id)
{
    if (id < 0 || from_start)
        return;
    if ((size_t)id >= n_first_left) {
        size_t n = (size_t)id + 64u;
        uint8_t *p = realloc(first_left, n);

        if (p == NULL)
            return;
        memset(p + n_first_left, 0, n - n_first_left);
        first_left = p;
        n_first_left = n;
    }
    first_left[id] = WARM_FIRST_CALLS;
}

/* The number bound to m, or -1. */
static int32_t lookup(const struct warm *w, jmethodID m)
{
    size_t i;

    for (i = slot_of(w, m); w->keys[i] != NULL; i = (i + 1) & w->mask)
        if (w->keys[i] == m)
            return w->ids[i];
    return -1;
}

/* Method m was compiled (on its own or inlined). */
static void note(struct warm *w, jmethodID m)
{
    int32_t id = lookup(w, m);
    uint64_t hot = HOT, t;

    if (id < 0 || (uint32_t)id >= w->n_ids)
        return;
    if (!atomic_load_explicit(&w->after, memory_order_acquire)) {
        uint64_t cold = 0;

        /* From 0 only: a replayed event posted late, after the retransform,
         * must not undo the tick a newer event stored. */
        atomic_compare_exchange_strong_explicit(&w->since[id], &cold, HOT, memory_order_relaxed,
                                                memory_order_relaxed);
        return;
    }
    t = clock_ticks();
    if (t == 0 || t >= SEEN)
        t = 1;
    /* Only the first compilation after the retransform counts; a method
     * cold before is noted for warm_rearm. */
    if (!atomic_compare_exchange_strong_explicit(&w->since[id], &hot, t, memory_order_release,
                                                 memory_order_relaxed) && hot == 0)
        atomic_compare_exchange_strong_explicit(&w->since[id], &hot, SEEN, memory_order_relaxed,
                                                memory_order_relaxed);
}

static void JNICALL on_compiled(jvmtiEnv *jvmti, jmethodID method, jint code_size, const void *code_addr,
                                jint map_length, const jvmtiAddrLocationMap *map, const void *compile_info)
{
    const jvmtiCompiledMethodLoadRecordHeader *h;
    struct warm *w;

    (void)jvmti;
    (void)code_size;
    (void)code_addr;
    (void)map_length;
    (void)map;
    /* Counted before cur is read, so that warm_end, which clears cur
     * before it reads busy, sees this callback or this callback sees NULL. */
    atomic_fetch_add(&busy, 1);
    w = atomic_load(&cur);
    if (w != NULL) {
        note(w, method);
        for (h = compile_info; h != NULL; h = h->next) {
            const jvmtiCompiledMethodLoadInlineRecord *r = (const void *)h;
            jmethodID last = method;

            if (h->kind != JVMTI_CMLR_INLINE_INFO)
                continue;
            for (jint i = 0; i < r->numpcs; i++)
                for (jint j = 0; j < r->pcinfo[i].numstackframes; j++)
                    if (r->pcinfo[i].methods[j] != last)
                        note(w, last = r->pcinfo[i].methods[j]);
        }
    }
    atomic_fetch_sub(&busy, 1);
}

/* The bindings (jmethodID, number) collected from the classes. */
struct binds {
    uint32_t gen;
    const char *cls;            /* the class being listed (internal name) */
    int ran;                    /* it is initialized: its code may have run */
    jmethodID *ms;
    int32_t *ids;
    size_t n, cap_ms, cap_ids;
    int failed;                 /* out of memory */
};

/* vm_class_methods: binds m when it is a method of this session. */
static void bind(void *arg, jmethodID m, const char *name, const char *sig)
{
    struct binds *b = arg;
    int32_t id = mt_find(b->cls, name, sig);
    const mt_method *mm = mt_get(id);

    if (mm == NULL || atomic_load_explicit(&mm->session, memory_order_relaxed) != b->gen)
        return;
    if (buf_grow(&b->ms, &b->cap_ms, b->n, sizeof *b->ms, 16) < 0 ||
        buf_grow(&b->ids, &b->cap_ids, b->n, sizeof *b->ids, 16) < 0) {
        b->failed = 1;
        return;
    }
    b->ms[b->n] = m;
    b->ids[b->n++] = id;
    /* A class not yet initialized (a trace from the JVM's start, which
     * instruments the entry class as it is prepared) has run none of its
     * code: its first calls are the program's own cold start. */
    if (b->ran)
        arm_first(id);
}

static void warm_free(struct warm *w)
{
    if (w == NULL)
        return;
    free(w->keys);
    free(w->ids);
    free((void *)w->since);
    free(w->armed);
    free(w->stale);
    free(w);
}

/* The state for bindings b, or NULL when out of memory. */
static struct warm *warm_new(const struct binds *b)
{
    struct warm *w = calloc(1, sizeof *w);
    size_t slots = 16;

    while (slots < 2 * b->n)
        slots *= 2;
    if (w == NULL)
        return NULL;
    w->mask = slots - 1;
    w->n_ids = mt_count();
    w->keys = calloc(slots, sizeof *w->keys);
    w->ids = calloc(slots, sizeof *w->ids);
    w->since = calloc(w->n_ids + 1u, sizeof *w->since);
    w->armed = calloc(w->n_ids + 1u, sizeof *w->armed);
    w->stale = calloc(w->n_ids + 1u, sizeof *w->stale);
    w->bound = (uint64_t)(WARM_BOUND_S * 1e9 / clock_calibration().ns_per_tick);
    if (w->keys == NULL || w->ids == NULL || w->since == NULL || w->armed == NULL || w->stale == NULL) {
        warm_free(w);
        return NULL;
    }
    for (size_t k = 0; k < b->n; k++) {
        size_t i = slot_of(w, b->ms[k]);

        while (w->keys[i] != NULL && w->keys[i] != b->ms[k])
            i = (i + 1) & w->mask;
        w->keys[i] = b->ms[k];
        w->ids[i] = b->ids[k];
    }
    return w;
}

int warm_begin(uint32_t gen, jclass *classes, size_t n, mct_err *e)
{
    struct binds b = { .gen = gen };
    struct warm *w = NULL;
    int rc = 0;

    warm_end();
    unknown[0] = '\0';
    stale_count = 0;
    for (size_t i = 0; i < n && rc == 0 && !b.failed; i++) {
        char *name = vm_class_name(classes[i], e);

        if (name == NULL) {
            rc = -1;
            break;
        }
        b.cls = name;
        b.ran = vm_class_initialized(classes[i]);
        rc = vm_class_methods(classes[i], bind, &b, e);
        free(name);
    }
    if (rc == 0 && b.n > 0 && (b.failed || (w = warm_new(&b)) == NULL))
        rc = mct_err_set(e, MCT_E_NOMEM, "out of memory binding %zu methods to follow their compilation; "
                         "warm-up calls are not marked (give the JVM more native memory)", b.n);
    free(b.ms);
    if (rc == 0 && w != NULL) {
        owned = w;
        atomic_store(&cur, w);
        enabled = vm_set_compiled_load(on_compiled, e) == 0;
        if (!enabled || vm_replay_compiled(e) < 0) {
            warm_end();
            rc = -1;
        }
    }
    if (rc < 0) {
        snprintf(unknown, sizeof unknown, "%s", e->msg);
        stale_count = -1;
    }
    free(b.ids);
    return rc;
}

void warm_retransformed(void)
{
    uint64_t now = clock_ticks();

    if (owned == NULL)
        return;
    for (size_t i = 0; i <= owned->mask; i++)
        if (owned->keys[i] != NULL)
            owned->armed[owned->ids[i]] = now;
    atomic_store_explicit(&owned->after, 1, memory_order_release);
}

/* vm_class_methods: method m of class cls retransformed again. */
static void rearm_one(void *arg, jmethodID m, const char *name, const char *sig)
{
    const char *cls = arg;
    struct warm *w = owned;
    int32_t id = mt_find(cls, name, sig);
    uint64_t v;

    arm_first(id);
    id = w != NULL ? lookup(w, m) : -1;
    if (id < 0 || (uint32_t)id >= w->n_ids)
        return;
    /* Only a method compiled before the session: one compiled first during
     * it (a cold JVM, a trace from its start) is the JIT's ordinary
     * progress, which the first calls' rule covers (warm_first). */
    v = atomic_load_explicit(&w->since[id], memory_order_relaxed);
    if (v == 0 || v == SEEN)
        return;
    atomic_store_explicit(&w->since[id], HOT, memory_order_relaxed);
    w->armed[id] = clock_ticks();
    w->stale[id] = 0;
}

void warm_rearm(jclass *classes, size_t n)
{
    mct_err e;

    for (size_t i = 0; i < n; i++) {
        char *name = vm_class_name(classes[i], &e);

        if (name == NULL || vm_class_methods(classes[i], rearm_one, name, &e) < 0)
            vm_debug("warm-up marks after instrumenting again: %s", e.msg);
        free(name);
    }
}

void warm_from_start(int on)
{
    from_start = on;
}

int warm_first(int32_t root)
{
    if (root < 0 || (size_t)root >= n_first_left || first_left[root] == 0)
        return 0;
    first_left[root]--;
    return 1;
}

int warm_marks(int32_t id, uint64_t start)
{
    uint64_t v;

    if (owned == NULL || id < 0 || (uint32_t)id >= owned->n_ids)
        return 0;
    v = atomic_load_explicit(&owned->since[id], memory_order_acquire);
    if (v == HOT) {
        /* Not compiled again within the bound: it may never be (too big
         * once instrumented, code cache full, not compilable); marking on
         * would leave every call out of summaries and gates. */
        if (start > owned->armed[id] && start - owned->armed[id] >= owned->bound) {
            owned->stale[id] = 1;
            return 0;
        }
        return 1;
    }
    return v != SEEN && v > start;
}

long long warm_stale(void)
{
    return stale_count;
}

const char *warm_unknown(void)
{
    return unknown[0] != '\0' ? unknown : NULL;
}

void warm_end(void)
{
    uint64_t t0 = clock_monotonic_ns();
    struct timespec nap = { 0, 100000 };
    mct_err e;

    free(first_left);
    first_left = NULL;
    n_first_left = 0;
    if (owned == NULL)
        return;
    for (uint32_t id = 0; id < owned->n_ids; id++)
        stale_count += owned->stale[id];
    atomic_store(&cur, NULL);
    if (enabled && vm_set_compiled_load(NULL, &e) < 0)
        vm_log("%s", e.msg);
    enabled = 0;
    while (atomic_load(&busy) != 0) {
        if (clock_monotonic_ns() - t0 >= END_WAIT_NS) {
            /* A callback is stuck: its state stays allocated for it. */
            vm_log("a CompiledMethodLoad callback ran for over %u ms; its memory is left allocated (this "
                   "repeats at the end of each session while it stays stuck)", END_WAIT_NS / 1000000u);
            owned = NULL;
            return;
        }
        nanosleep(&nap, NULL);
    }
    warm_free(owned);
    owned = NULL;
}
