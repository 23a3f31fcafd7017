/* probe.c — see probe.h. */
#include "probe.h"

#include <linux/futex.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "methods.h"
#include "planner.h"
#include "tctx.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* A thread that never ran a traced call points here: depth is 0 forever,
 * so probes return after one load, and nothing ever writes to it. */
static probe_thread idle;

static __thread probe_thread *self __attribute__((tls_model("initial-exec"))) = &idle;

/* Probe.STRIDE: the elements of Probe.TABLE from one entry to the next
 * (an index the Java side passes is entry * STRIDE). */
#define STRIDE 16
_Static_assert(PROBE_TABLE_LEN == PROBE_ENTRIES * STRIDE, "probe.h says the table's length");
_Static_assert(sizeof(probe_slot) == PROBE_LINE && offsetof(probe_slots, slot) == PROBE_LINE,
               "Probe.java's SLOT offsets");
_Static_assert(sizeof(probe_stamp) == sizeof(probe_ev), "probe_record_ticks's scratch stamps");
_Static_assert(offsetof(probe_slot, countdown) == 8 && offsetof(probe_slot, countdown_session) == 16 &&
                   offsetof(probe_slot, nest) == 20 && offsetof(probe_slot, dropped) == 24 &&
                   offsetof(probe_slot, behind) == 32,
               "Probe.java's SEEN, COUNTDOWN, COUNTDOWN_SESSION, NEST, DROPPED, BEHIND");

/* Probe.java's DEPTH, MAX_DEPTH, W, LIMIT and NATIVES, and its events. */
_Static_assert(offsetof(probe_thread, depth) == 0 && offsetof(probe_thread, max_depth) == 4 &&
                   offsetof(probe_thread, w) == 8 && offsetof(probe_thread, limit) == 16 &&
                   offsetof(probe_thread, natives) == 76,
               "Probe.java's offsets into probe_thread");
_Static_assert(sizeof(probe_ev) == 16 && offsetof(probe_ev, id) == 8 && offsetof(probe_ev, kind) == 12 &&
                   PROBE_ENTER == 0 && PROBE_EXIT == 1,
               "Probe.java's EVENT, KIND_ENTER, KIND_EXIT");

static _Atomic uint32_t cur_session;   /* 0: no session accepts new calls */
static _Atomic int cur_depth;
static _Atomic int cur_cpu;           /* probes stamp events with the CPU clock */
static _Atomic int cur_alloc;         /* probes stamp events with the bytes allocated */
static _Atomic int cur_args;          /* entry methods pass their arguments */
static _Atomic int cur_args_len;      /* characters of a String argument kept */
static _Atomic uint64_t cur_sample;    /* trace one entry call in this many (the
                                          Java side decides, from slots.control) */
static _Atomic(probe_thread *) registry;
static _Atomic(probe_thread *) vpool;  /* the virtual threads' states, push-only */
static pthread_key_t exit_key;         /* its destructor marks a thread dead */
static jclass probe_cls;
static jobjectArray table;             /* Probe.TABLE (global ref) */
static jmethodID free_entry;           /* Probe.free */
static int counting_mode;              /* Probe.COUNTING, read once by its <clinit> */
static int writer_on;                  /* Probe.writer (probe_use_writer) */
/* The state the traced call of an entry's holder writes to (NULL: none),
 * each on a line of its own: only the entry's holder (Probe.OWNER) writes
 * it and reads it, through the index the Java side passes. */
struct entry {
    _Alignas(PROBE_LINE) _Atomic(probe_thread *) t;
};
static struct entry entries[PROBE_ENTRIES];
static probe_slots slots;              /* Probe.SLOTS */
/* The worker's wait while calls are few (probe_await_calls): it sleeps
 * on wake_seq, and a thread whose call leaves its ring an eighth full or
 * more wakes it. */
static _Atomic uint32_t wake_seq;
static _Atomic int worker_asleep;
static jmethodID is_virtual;           /* Thread.isVirtual, NULL before JDK 21 */
static probe_binding bound;            /* what probe_bind was given */
static _Atomic uint64_t count_enter, count_exit, count_fail;
static _Atomic uint64_t ring_bytes;    /* held by all rings */
static _Atomic uint32_t handoffs;      /* hand-off numbers handed out */

static const rw_probes methods_plain = {PROBE_CLASS, "enter", "exit", "fail", 0, NULL, 1};
static const rw_probes methods_root = {PROBE_CLASS, "rootEnter", "rootExit", "rootFail", 0, NULL, 0};
static const rw_probes methods_receiver = {PROBE_CLASS, "rootEnterOn", "rootExitOn", "rootFailOn", 1, NULL, 0};
static const rw_probes methods_root_args = {PROBE_CLASS, "rootEnter", "rootExit", "rootFail", 0, "arg", 0};
static const rw_probes methods_receiver_args = {PROBE_CLASS, "rootEnterOn", "rootExitOn", "rootFailOn", 1, "arg", 0};

const rw_probes *probe_methods(int root)
{
    int args = atomic_load_explicit(&cur_args, memory_order_relaxed);

    if (root == PLAN_ROOT_RECEIVER)
        return args ? &methods_receiver_args : &methods_receiver;
    if (root)
        return args ? &methods_root_args : &methods_root;
    return &methods_plain;
}

void probe_set_args(int on, int len)
{
    atomic_store_explicit(&cur_args_len, len < 1 ? 1 : len > PROBE_ARGS_LEN_MAX ? PROBE_ARGS_LEN_MAX : len,
                          memory_order_relaxed);
    atomic_store_explicit(&cur_args, on != 0, memory_order_relaxed);
}

jclass probe_class(void)
{
    return probe_cls;
}

/* --- recording ----------------------------------------------------------------- */

/* The thread's CPU clock, read through the kernel: the vDSO does not serve
 * CLOCK_THREAD_CPUTIME_ID, and perf's user-space read of a task clock
 * needs the page's cap_user_time, which a kernel that does not trust the
 * TSC for it (virtual machines) withholds. */
uint64_t probe_cpu_stamp(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return PROBE_CPU_ON | ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
}

uint64_t probe_alloc_stamp(JNIEnv *env)
{
    const volatile char *jt;
    uint64_t a1, a2;
    uintptr_t start, top;

    if (!bound.alloc_found || env == NULL)
        return 0;
    jt = (const volatile char *)env - bound.env_offset;
    /* The thread reads its own counter, but a safepoint may retire its
     * TLAB meanwhile (adding what it held to allocated_bytes, then
     * emptying it): a read whose count changed under it is read again. */
    do {
        a1 = *(const volatile uint64_t *)(jt + bound.allocated_offset);
        atomic_thread_fence(memory_order_acquire);
        start = *(const volatile uintptr_t *)(jt + bound.tlab_start_offset);
        top = *(const volatile uintptr_t *)(jt + bound.tlab_top_offset);
        atomic_thread_fence(memory_order_acquire);
        a2 = *(const volatile uint64_t *)(jt + bound.allocated_offset);
    } while (unlikely(a1 != a2));
    return PROBE_ALLOC_ON | (a1 + (top > start ? top - start : 0));
}

/* What a call's events are stamped with (probe_thread.stamp). */
enum {
    STAMP_CPU = 1,
    STAMP_ALLOC = 2,
    STAMP_WRITE = 4     /* the thread has stamps: write them (0s for what is off) */
};

/* Stamps the event at position pos of t's call. */
static inline void stamp_put(JNIEnv *env, probe_thread *t, uint64_t pos)
{
    probe_stamp *s = &atomic_load_explicit(&t->stamps, memory_order_relaxed)[pos & t->mask];

    s->cpu = t->stamp & STAMP_CPU ? probe_cpu_stamp() : 0;
    s->alloc = t->stamp & STAMP_ALLOC ? probe_alloc_stamp(env) : 0;
}

/* Appends an event regardless of the fast-path limit: only for the ring's
 * reserve, which start_call keeps free for exactly these writes. */
static void put(probe_thread *t, int32_t id, uint32_t kind, uint64_t ticks)
{
    probe_ev *e = &t->ring[t->w & t->mask];

    e->t = ticks;
    e->id = id;
    e->kind = kind;
    t->w++;
}

/* The ring reached the limit: mark the call, drop later enters, and keep
 * the exits of frames whose enter was recorded (they fit in the reserve). */
static __attribute__((noinline, cold)) void rec_overflow(JNIEnv *env, probe_thread *t, int32_t id, uint32_t kind)
{
    uint32_t k = PROBE_KIND(kind);
    int exitish = k == PROBE_EXIT || k == PROBE_FAIL || k == PROBE_ROOT_EXIT || k == PROBE_ROOT_FAIL;

    if (t->full_depth < 0) {
        t->full_depth = exitish ? t->depth : t->depth - 1;
        put(t, -1, PROBE_OVERFLOW, clock_ticks());
    }
    if (exitish && t->depth <= t->full_depth) {
        put(t, id, kind, clock_ticks());
        if (t->stamp)
            stamp_put(env, t, t->w - 1);
        t->full_depth = t->depth - 1;
    }
}

static inline void rec(JNIEnv *env, probe_thread *t, int32_t id, uint32_t kind)
{
    uint64_t w = t->w;

    if (likely(w < t->limit)) {
        probe_ev *e = &t->ring[w & t->mask];

        e->t = clock_ticks();
        e->id = id;
        e->kind = kind;
        if (unlikely(t->stamp))
            stamp_put(env, t, w);
        t->w = w + 1;
    } else {
        rec_overflow(env, t, id, kind);
    }
}

/* --- thread state ------------------------------------------------------------------ */

static probe_ev *ring_alloc(uint64_t cap)
{
    void *p = mmap(NULL, cap * sizeof(probe_ev), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (p == MAP_FAILED)
        return NULL;
    atomic_fetch_add_explicit(&ring_bytes, cap * sizeof(probe_ev), memory_order_relaxed);
    return p;
}

static void ring_free(probe_ev *r, uint64_t cap)
{
    if (r == NULL)
        return;
    munmap(r, cap * sizeof(probe_ev));
    atomic_fetch_sub_explicit(&ring_bytes, cap * sizeof(probe_ev), memory_order_relaxed);
}

static probe_stamp *stamps_alloc(uint64_t cap)
{
    void *p = mmap(NULL, cap * sizeof(probe_stamp), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (p == MAP_FAILED)
        return NULL;
    atomic_fetch_add_explicit(&ring_bytes, cap * sizeof(probe_stamp), memory_order_relaxed);
    return p;
}

/* Frees t's stamps (the caller owns them: the thread at the start of a
 * call, or the worker when it frees the ring). */
static void stamps_free(probe_thread *t)
{
    probe_stamp *s = atomic_load_explicit(&t->stamps, memory_order_relaxed);

    if (s == NULL)
        return;
    munmap(s, t->stamps_cap * sizeof(probe_stamp));
    atomic_fetch_sub_explicit(&ring_bytes, t->stamps_cap * sizeof(probe_stamp), memory_order_relaxed);
    atomic_store_explicit(&t->stamps, NULL, memory_order_relaxed);
    t->stamps_cap = 0;
}

uint64_t probe_ring_bytes(void)
{
    return atomic_load_explicit(&ring_bytes, memory_order_relaxed);
}

static void thread_exited(void *p)
{
    probe_thread *t = p;

    atomic_store_explicit(&t->state, PROBE_THREAD_DEAD, memory_order_release);
}

/* A reusable state of a thread that ended, or NULL. */
static probe_thread *claim_free(void)
{
    probe_thread *t;

    for (t = atomic_load_explicit(&registry, memory_order_acquire); t != NULL; t = t->next) {
        int want = PROBE_THREAD_FREE;

        if (atomic_load_explicit(&t->state, memory_order_relaxed) == PROBE_THREAD_FREE &&
            atomic_compare_exchange_strong_explicit(&t->state, &want, PROBE_THREAD_LIVE,
                                                    memory_order_acquire, memory_order_relaxed))
            return t;
    }
    return NULL;
}

/* A new state, in the registry; NULL when out of memory. Its ring comes
 * with its first traced call (start_call). */
static probe_thread *new_state(void)
{
    probe_thread *t = aligned_alloc(PROBE_LINE, sizeof *t);

    if (t == NULL)
        return NULL;
    memset(t, 0, sizeof *t);
    t->worker_cap = PROBE_RING_MIN;
    t->entry = -1;
    t->behind = -1;
    t->next = atomic_load_explicit(&registry, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&registry, &t->next, t, memory_order_release,
                                                  memory_order_relaxed))
        ;
    return t;
}

/* The slow path, once per OS thread: its state. */
static __attribute__((noinline, cold)) probe_thread *attach(void)
{
    probe_thread *t = claim_free();

    if (t == NULL && (t = new_state()) == NULL)
        return NULL;
    t->entry = -1;
    pthread_setspecific(exit_key, t);
    self = t;
    return t;
}

/* Counts one on a counter of the calling thread's own (only it writes it). */
static inline void bump(_Atomic uint64_t *n)
{
    atomic_store_explicit(n, atomic_load_explicit(n, memory_order_relaxed) + 1, memory_order_relaxed);
}

/* The call did not start: counted as dropped, the ring is free to swap. */
static int no_call(probe_thread *t)
{
    bump(&t->dropped);
    atomic_store_explicit(&t->in_call, 0, memory_order_release);
    return 0;
}

/* t's ring had no room for a call of entry k: k's slot is marked behind
 * (the mark first, then t->behind, which the worker reads to clear it once
 * t is drained), unless t already holds the mark of another entry. A
 * state holds one mark: a second would never be cleared, and a state of
 * the virtual threads' pool serves the calls of many entries. */
static void mark_behind(probe_thread *t, int k)
{
    int held = atomic_load_explicit(&t->behind, memory_order_acquire);

    if (held >= 0 && held != k)
        return;
    atomic_store_explicit(&slots.slot[k].behind, 1, memory_order_relaxed);
    atomic_store_explicit(&t->behind, k, memory_order_release);
}

/* Begins a traced call of session on t for entry k, taking a ring when t
 * has none (the worker gives rings back between sessions); returns 0 when
 * it cannot (ring full, out of memory, or the worker is swapping it). A
 * full ring marks the entry's slot behind: the Java side then drops the
 * entry's calls itself (counted) until the worker has taken t's calls.
 * Past the limit, the ring keeps room for what is written after an
 * overflow: its mark, the exits of the frames recorded (at most depth + 1
 * open, see root_enter) and the exception. */
static int start_call(probe_thread *t, uint32_t session, int depth, int k, unsigned stamp)
{
    uint64_t consumed, cap;
    uint64_t reserve = (uint64_t)depth + 4;
    probe_ev *bigger;

    /* The handshake with probe_shrink (probe.h): flag, then look. */
    atomic_store_explicit(&t->in_call, 1, memory_order_seq_cst);
    if (unlikely(atomic_load_explicit(&t->shrinking, memory_order_seq_cst)))
        return no_call(t);
    consumed = atomic_load_explicit(&t->consumed, memory_order_acquire);
    bigger = atomic_load_explicit(&t->next_ring, memory_order_acquire);
    if (unlikely(bigger != NULL) && consumed == t->w &&
        atomic_load_explicit(&t->old_ring, memory_order_acquire) == NULL) {
        atomic_store_explicit(&t->old_mask, t->mask, memory_order_relaxed);
        atomic_store_explicit(&t->old_ring, t->ring, memory_order_release);
        t->ring = bigger;
        t->mask = atomic_load_explicit(&t->next_mask, memory_order_relaxed);
        atomic_store_explicit(&t->next_ring, NULL, memory_order_release);
    }
    if (unlikely(t->ring == NULL)) {
        if ((t->ring = ring_alloc(PROBE_RING_MIN)) == NULL)
            return no_call(t);
        t->mask = PROBE_RING_MIN - 1;
    }
    cap = t->mask + 1;
    /* Stamps: as many as the ring's events when the call wants them, none
     * otherwise; changed only while the ring holds no unread event (the
     * worker reads the stamps of those), which a ring just taken never
     * does. Stamps that cannot go yet are written as 0s. */
    if (consumed == t->w && t->stamps_cap != (stamp != 0 ? cap : 0)) {
        probe_stamp *fresh;

        stamps_free(t);
        if (stamp != 0 && (fresh = stamps_alloc(cap)) != NULL) {
            t->stamps_cap = cap;
            atomic_store_explicit(&t->stamps, fresh, memory_order_release);
        }
    }
    t->stamp = t->stamps_cap == cap ? stamp | STAMP_WRITE : 0;
    if (cap - (t->w - consumed) < reserve + 16) {
        mark_behind(t, k);
        return no_call(t);
    }
    t->limit = consumed + cap - reserve;
    t->call_session = session;
    t->max_depth = depth;
    t->full_depth = -1;
    t->root_nest = 0;
    t->root_pos = t->w;
    return 1;
}

/* A direct buffer over len bytes at p, in the platform's byte order (the
 * probe class reads it so), as a global ref; NULL when the JVM threw. */
static jobject native_buffer(JNIEnv *env, void *p, jlong len)
{
    jobject b = (*env)->NewDirectByteBuffer(env, p, len), g = NULL;

    if (b != NULL) {
        jobject same = (*env)->CallObjectMethod(env, b, bound.buffer_order, bound.native_order);

        if (same != NULL)
            (*env)->DeleteLocalRef(env, same);
        if (!(*env)->ExceptionCheck(env))
            g = (*env)->NewGlobalRef(env, b);
        (*env)->DeleteLocalRef(env, b);
    }
    (*env)->ExceptionClear(env);
    return g;
}

/* For the Java writer: entry k's element of Probe.STATES and RINGS says t
 * and its ring (their buffers made once, the ring's again when the ring
 * changed); -1 when the JVM threw. */
static int writer_lanes(JNIEnv *env, probe_thread *t, int k)
{
    if (t->jstate == NULL && (t->jstate = native_buffer(env, t, (jlong)sizeof *t)) == NULL)
        return -1;
    if (t->jring == NULL || t->jring_of != t->ring || t->jring_mask != t->mask) {
        jobject r = native_buffer(env, t->ring, (jlong)((t->mask + 1) * sizeof(probe_ev)));

        if (r == NULL)
            return -1;
        if (t->jring != NULL)
            (*env)->DeleteGlobalRef(env, t->jring);
        t->jring = r;
        t->jring_of = t->ring;
        t->jring_mask = t->mask;
    }
    (*env)->SetObjectArrayElement(env, bound.states, k, t->jstate);
    (*env)->SetObjectArrayElement(env, bound.rings, k, t->jring);
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        return -1;
    }
    return 0;
}

/* Whether cur, the Java thread calling an entry method, is virtual. The
 * OS thread's state remembers its platform thread, so that this costs one
 * compare for platform threads. -1 when the JVM threw. */
static int is_virtual_thread(JNIEnv *env, probe_thread *tls, jobject cur)
{
    jboolean v;

    if (tls != &idle && tls->thread != NULL && (*env)->IsSameObject(env, cur, tls->thread))
        return 0;
    if (is_virtual == NULL)
        return 0;
    v = (*env)->CallBooleanMethod(env, cur, is_virtual);
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        return -1;
    }
    return v != JNI_FALSE;
}

/* A state of the virtual threads' pool no call holds, now held: one the
 * worker has drained if any (the first idle one may still hold calls the
 * worker has not taken, and be full), else any idle one, else a new one;
 * NULL when out of memory. */
static probe_thread *claim_virtual(void)
{
    probe_thread *t;
    int pass;

    for (pass = 0; pass < 2; pass++) {
        for (t = atomic_load_explicit(&vpool, memory_order_acquire); t != NULL; t = t->vnext) {
            int idle_state = 0;

            if (pass == 0 && atomic_load_explicit(&t->consumed, memory_order_relaxed) !=
                                 atomic_load_explicit(&t->published, memory_order_relaxed))
                continue;
            if (atomic_load_explicit(&t->vbusy, memory_order_relaxed) == 0 &&
                atomic_compare_exchange_strong_explicit(&t->vbusy, &idle_state, 1, memory_order_acquire,
                                                        memory_order_relaxed))
                return t;
        }
    }
    if ((t = new_state()) == NULL)
        return NULL;
    atomic_store_explicit(&t->vbusy, 1, memory_order_relaxed);
    t->vnext = atomic_load_explicit(&vpool, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&vpool, &t->vnext, t, memory_order_release,
                                                  memory_order_relaxed))
        ;
    return t;
}

/* Frees entry k of a call that ended (the table element first, then the
 * state, so that the next holder's write comes after); the Java side then
 * lets the entry go. */
static void release_entry(JNIEnv *env, int k)
{
    (*env)->SetObjectArrayElement(env, table, k * STRIDE, NULL);
    atomic_store_explicit(&entries[k].t, NULL, memory_order_release);
}

/* What the session asked the calls' events to be stamped with. */
static unsigned session_stamps(void)
{
    return (atomic_load_explicit(&cur_cpu, memory_order_relaxed) ? STAMP_CPU : 0u) |
           (atomic_load_explicit(&cur_alloc, memory_order_relaxed) ? STAMP_ALLOC : 0u);
}

/* Starts a traced call of session for cur, which holds entry k (me: the
 * OS thread's state): picks the state the call writes to (the OS thread's
 * for a platform thread, one of the pool's for a virtual one) and lets the
 * Java side see the thread trace (the entry's element). NULL when the call
 * does not start (counted as dropped). */
static __attribute__((noinline)) probe_thread *begin_call(JNIEnv *env, probe_thread *me, jobject cur, int k,
                                                          uint32_t session, int depth)
{
    probe_thread *t;
    int virt, ok;

    /* A platform thread already in an entry call whose probes did not find
     * its entry: its id changed (Probe.java). */
    if (me->depth > 0 || me->entry >= 0) {
        bump(&me->dropped);
        return NULL;
    }
    virt = is_virtual_thread(env, me, cur);
    if (virt > 0) {
        t = claim_virtual();
    } else {
        t = me;
        if (virt == 0 && t->thread == NULL)
            t->thread = (*env)->NewGlobalRef(env, cur);
    }
    if (virt < 0 || t == NULL) {
        bump(&me->dropped);
        return NULL;
    }
    ok = start_call(t, session, depth, k, virt ? 0u : session_stamps());
    if (ok && writer_on && writer_lanes(env, t, k) < 0)
        ok = no_call(t);
    if (!ok) {
        if (virt)
            atomic_store_explicit(&t->vbusy, 0, memory_order_release);
        return NULL;
    }
    t->natives = session_stamps() != 0;
    t->entry = k;
    t->call_thread_ref = virt;
    atomic_store_explicit(&entries[k].t, t, memory_order_release);
    (*env)->SetObjectArrayElement(env, table, k * STRIDE, cur);
    return t;
}

/* The call's entry goes back when the call ends (and a virtual thread's
 * state to the pool). */
static void end_call(JNIEnv *env, probe_thread *t)
{
    int k = t->entry;

    t->entry = -1;
    release_entry(env, k);
    if (t->call_thread_ref)
        atomic_store_explicit(&t->vbusy, 0, memory_order_release);
}

/* The state of the current call for the entry the Java side found (an index
 * of Probe.TABLE, -1: none). */
static inline probe_thread *state_of(jint k)
{
    probe_thread *t;

    if ((uint32_t)k >= PROBE_TABLE_LEN || (uint32_t)k % STRIDE != 0)
        return &idle;
    t = atomic_load_explicit(&entries[(uint32_t)k / STRIDE].t, memory_order_relaxed);
    return t != NULL ? t : &idle;
}

/* The 8 bytes at p, big-endian. */
static uint64_t load_be64(const uint8_t *p)
{
    uint64_t v = 0;

    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

/* --- the natives ---------------------------------------------------------------------- */

static void JNICALL n_enter(JNIEnv *env, jclass cls, jint k, jint id)
{
    probe_thread *t = state_of(k);

    if (likely(t->depth == 0))
        return;
    if (++t->depth <= t->max_depth)
        rec(env, t, id, PROBE_ENTER);
}

static inline void leave(JNIEnv *env, probe_thread *t, jint id, uint32_t kind)
{
    if (t->depth <= t->max_depth)
        rec(env, t, id, kind);
    t->depth--;
}

static void JNICALL n_exit(JNIEnv *env, jclass cls, jint k, jint id)
{
    probe_thread *t = state_of(k);

    if (likely(t->depth == 0))
        return;
    leave(env, t, id, PROBE_EXIT);
}

static void JNICALL n_fail(JNIEnv *env, jclass cls, jthrowable ex, jint k, jint id)
{
    probe_thread *t = state_of(k);

    if (t->depth == 0)
        return;
    leave(env, t, id, PROBE_FAIL);
}

/* How an entry method is entered (Probe.ROOT, RECEIVER, OTHER): a call of
 * it; a call of an inherited one on an instance of the named class; a
 * call of an inherited one on another class (inside a traced call an
 * ordinary call, outside none). */
enum { ENTER_ROOT, ENTER_RECEIVER, ENTER_OTHER };

/* An entry method is entered in t's traced call (its start, or nested);
 * cur: the calling thread, at the start. */
static void root_enter(JNIEnv *env, probe_thread *t, jobject cur, jint id, int how)
{
    uint32_t nest = t->root_nest;

    t->depth++;
    if (nest < 64)
        t->root_depth[nest] = t->depth;
    if (nest == 0)
        t->root_named = how == ENTER_RECEIVER;
    /* The named class's own entry method called right from the one it
     * inherits (a servlet's service(HttpServletRequest, ...) from
     * HttpServlet.service(ServletRequest, ...)) is the same call: it costs
     * no level of the depth. Only for the outermost pair: then at most
     * max_depth + 1 frames are recorded, which the ring's reserve holds
     * (start_call); a pair nested deeper costs its level. */
    if (nest == 1) {
        t->root_ext = how == ENTER_ROOT && t->root_named && t->depth == 2 && t->max_depth < PLAN_MAX_DEPTH;
        t->max_depth += t->root_ext;
    }
    t->root_nest++;
    if (t->depth <= t->max_depth)
        rec(env, t, id, how == ENTER_OTHER ? PROBE_ENTER : PROBE_ROOT_ENTER);
    /* A pool state serves one virtual thread after another: the call
     * names its own (the worker frees the reference). */
    if (t->root_nest == 1 && t->call_thread_ref) {
        jobject g = (*env)->NewGlobalRef(env, cur);

        if (g != NULL)
            put(t, -1, PROBE_THREAD, (uint64_t)(uintptr_t)g);
    }
    /* Its arguments, if it passes them, come next (n_arg). */
    t->args_pos = t->root_nest == 1 ? t->w : UINT64_MAX;
}

/* The trace context st, p its thread held as traced call t started:
 * right after its start, before its arguments, within the ring's room. */
static void record_context(probe_thread *t, enum tctx_status st, const struct call_parent *p)
{
    if (t->w != t->args_pos || t->w > t->limit || t->limit - t->w < 3)
        return;
    if (st == TCTX_OK) {
        put(t, 0, PROBE_CONTEXT | TCTX_OK << 8 | (uint32_t)p->flags << 12, load_be64(p->trace_id));
        put(t, 0, PROBE_CONTEXT, load_be64(p->trace_id + 8));
        put(t, 0, PROBE_CONTEXT, load_be64(p->span_id));
    } else {
        put(t, 0, PROBE_CONTEXT | TCTX_BAD << 8, 0);
    }
    t->args_pos = t->w;
}

/* The session that accepts calls now, if id is one of its entry methods;
 * else 0. */
static uint32_t session_of(jint id)
{
    uint32_t s = atomic_load_explicit(&cur_session, memory_order_acquire);
    const mt_method *m;

    if (s == 0 || (m = mt_get(id)) == NULL || !atomic_load_explicit(&m->root, memory_order_relaxed) ||
        atomic_load_explicit(&m->session, memory_order_relaxed) != s)
        return 0;
    return s;
}

static jboolean JNICALL n_root_of(JNIEnv *env, jclass cls, jint session, jint id)
{
    return session != 0 && session_of(id) == (uint32_t)session ? JNI_TRUE : JNI_FALSE;
}

/* An entry call the Java side counted as seen and chose to trace starts
 * (cur: the thread, tid: its id, e: the entry it holds, -1: both of its
 * entries were held, counted here as seen and unslotted). */
static jboolean JNICALL n_root_begin(JNIEnv *env, jclass cls, jobject cur, jlong tid, jint e, jint id, jint how)
{
    uint32_t s = session_of(id);
    probe_thread *me, *t;
    struct call_parent p;
    enum tctx_status st = TCTX_NONE;

    if (how == ENTER_OTHER || s == 0)
        return JNI_FALSE;
    if ((me = self) == &idle && (me = attach()) == NULL)
        return JNI_FALSE;
    if ((uint32_t)e >= PROBE_TABLE_LEN || (uint32_t)e % STRIDE != 0) {
        bump(&me->seen);
        bump(&me->unslotted);
        return JNI_FALSE;
    }
    /* Read before the call begins: what the JVM runs meanwhile (an
     * exception's constructor, were a field missing) is not the call's. */
    if (tctx_wanted())
        st = tctx_read(env, cur, &p);
    if ((t = begin_call(env, me, cur, e / STRIDE, s, atomic_load_explicit(&cur_depth, memory_order_relaxed))) == NULL)
        return JNI_FALSE;
    root_enter(env, t, cur, id, how);
    if (st != TCTX_NONE)
        record_context(t, st, &p);
    return JNI_TRUE;
}

static void JNICALL n_root_nest(JNIEnv *env, jclass cls, jint k, jint id, jint how)
{
    probe_thread *t = state_of(k);

    if (t->depth > 0)
        root_enter(env, t, NULL, id, how);
}

/* Wakes the worker, asleep in probe_await_calls, when t's ring (its call
 * just published) is an eighth full or more: a ring less full waits for
 * the worker's timer (the rest of the ring is the time the worker has to
 * wake up and take the calls). At most one thread pays the system call
 * per sleep; while the worker is awake, this is a fence and a load. */
static void wake_worker(const probe_thread *t)
{
    /* published, then asleep; the worker stores asleep, then reads
     * published: one of the two sees the other's store. */
    atomic_thread_fence(memory_order_seq_cst);
    if (likely(!atomic_load_explicit(&worker_asleep, memory_order_relaxed)) ||
        (t->w - atomic_load_explicit(&t->consumed, memory_order_relaxed)) * 8 < t->mask + 1)
        return;
    if (atomic_exchange_explicit(&worker_asleep, 0, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&wake_seq, 1, memory_order_release);
        syscall(SYS_futex, &wake_seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    }
}

/* The call is complete: its length goes into its first event, and the
 * worker may now read it. */
static void finish_call(JNIEnv *env, probe_thread *t)
{
    probe_ev *first = &t->ring[t->root_pos & t->mask];

    first->kind |= (uint32_t)(t->w - t->root_pos) << 4;
    t->depth = 0;
    atomic_store_explicit(&t->published, t->w, memory_order_release);
    wake_worker(t);
    atomic_store_explicit(&t->in_call, 0, memory_order_release);
    end_call(env, t);
}

/* An entry method returns; 1 when that ends the call. Frames whose exit
 * was missed (a constructor that threw before super()) are closed here:
 * depth comes back to the entry method's own. */
static int root_leave(JNIEnv *env, probe_thread *t, jint id, uint32_t kind, jthrowable ex)
{
    uint32_t nest = t->root_nest - 1;
    int32_t d = nest < 64 ? t->root_depth[nest] : t->depth;

    if (t->root_nest == 1 && ex != NULL) {
        jclass k = (*env)->GetObjectClass(env, ex);

        if (k != NULL) {
            jobject g = (*env)->NewGlobalRef(env, k);

            (*env)->DeleteLocalRef(env, k);
            if (g != NULL)
                put(t, -1, PROBE_EXCEPTION, (uint64_t)(uintptr_t)g);
        }
    }
    t->depth = d;
    /* The call's last event says which session it belongs to: a call that
     * outlived its session is not taken by the next one. */
    if (t->root_nest == 1)
        kind |= t->call_session << 4;
    if (d <= t->max_depth)
        rec(env, t, id, kind);
    if (nest == 1 && t->root_ext) {
        t->max_depth--;
        t->root_ext = 0;
    }
    t->depth = d - 1;
    if (--t->root_nest > 0)
        return 0;
    finish_call(env, t);
    return 1;
}

static jboolean JNICALL n_root_exit(JNIEnv *env, jclass cls, jint k, jint id)
{
    probe_thread *t = state_of(k);

    return t->depth > 0 && root_leave(env, t, id, PROBE_ROOT_EXIT, NULL) ? JNI_TRUE : JNI_FALSE;
}

static jboolean JNICALL n_root_fail(JNIEnv *env, jclass cls, jthrowable ex, jint k, jint id)
{
    probe_thread *t = state_of(k);

    return t->depth > 0 && root_leave(env, t, id, PROBE_ROOT_FAIL, ex) ? JNI_TRUE : JNI_FALSE;
}

/* --- hand-offs (--follow-async) -------------------------------------------------------
 * A token says where a wrapped task belongs: the session (bits 40..), the
 * levels of depth left below the node that handed it off (bits 28..39) and
 * its hand-off number (the low 28 bits); 0 is none. */
#define TOKEN_SEQ(x) PROBE_HANDOFF_SEQ(x)
#define TOKEN_LEVELS(x) ((int)(((uint64_t)(x) >> 28) & 0xfff))
#define TOKEN_SESSION(x) ((uint32_t)((uint64_t)(x) >> 40))

/* A task whose method is id is handed off in the traced call at k: the
 * hand-off is recorded at the current frame, and the task followed, when
 * a level is left for it and the ring has room (else 0). */
static jlong JNICALL n_handoff(JNIEnv *env, jclass cls, jint k, jint id)
{
    probe_thread *t = state_of(k);
    uint32_t seq;

    if (t->depth == 0 || t->depth >= t->max_depth || t->w >= t->limit)
        return 0;
    seq = PROBE_HANDOFF_SEQ(atomic_fetch_add_explicit(&handoffs, 1, memory_order_relaxed) + 1);
    if (seq == 0)
        seq = 1;
    rec(env, t, id, PROBE_HANDOFF | seq << 4);
    return (jlong)((uint64_t)t->call_session << 40 | (uint64_t)(t->max_depth - t->depth) << 28 | seq);
}

/* The site of the last hand-off of the traced call at k returned. */
static void JNICALL n_handed(JNIEnv *env, jclass cls, jint k)
{
    probe_thread *t = state_of(k);

    if (t->depth > 0 && t->depth < t->max_depth && t->w < t->limit)
        rec(env, t, -1, PROBE_HANDED);
}

/* Likewise, the site returned the task's future: a JNI global ref to it
 * follows (PROBE_FUTURE), when the ring has room for both. */
static void JNICALL n_handed_future(JNIEnv *env, jclass cls, jint k, jobject future)
{
    probe_thread *t = state_of(k);
    jobject g;

    if (t->depth == 0 || t->depth >= t->max_depth || t->w >= t->limit)
        return;
    rec(env, t, -1, PROBE_HANDED);
    if (future != NULL && t->w < t->limit && (g = (*env)->NewGlobalRef(env, future)) != NULL)
        put(t, -1, PROBE_FUTURE, (uint64_t)(uintptr_t)g);
}

/* The task of token runs inside the traced call at k. */
static void JNICALL n_inline(JNIEnv *env, jclass cls, jint k, jlong token)
{
    probe_thread *t = state_of(k);

    if (t->depth > 0 && t->w < t->limit)
        rec(env, t, -1, PROBE_INLINE | TOKEN_SEQ(token) << 4);
}

/* A run of stream hand-off seq starts on me's thread: how many of its
 * runs the thread traced before, with this one counted; past
 * PROBE_STREAM_RUNS, counted as a call not traced. */
static uint32_t stream_run(probe_thread *me, uint32_t seq)
{
    unsigned i;

    for (i = 0; i < PROBE_STREAM_SEQS && me->stream_seq[i] != seq; i++)
        ;
    if (i == PROBE_STREAM_SEQS) {
        i = me->stream_next++ % PROBE_STREAM_SEQS;
        me->stream_seq[i] = seq;
        me->stream_runs[i] = 0;
    }
    if (me->stream_runs[i] < PROBE_STREAM_RUNS + 1)
        me->stream_runs[i]++;
    if (me->stream_runs[i] > PROBE_STREAM_RUNS)
        bump(&me->dropped);
    return me->stream_runs[i];
}

/* The task of token (its method id, with PROBE_HANDOFF_MANY for a stream's
 * function) starts on thread cur, which holds entry e and is in no entry
 * call: traced as a call of its own, of the levels left to it, while its
 * session runs (a stream's, up to PROBE_STREAM_RUNS on this thread). */
static jboolean JNICALL n_task_begin(JNIEnv *env, jclass cls, jobject cur, jint e, jlong token, jint id)
{
    uint32_t s = TOKEN_SESSION(token), n = 0;
    probe_thread *me, *t;

    if (s == 0 || s != atomic_load_explicit(&cur_session, memory_order_acquire) || TOKEN_LEVELS(token) < 1 ||
        (uint32_t)e >= PROBE_TABLE_LEN || (uint32_t)e % STRIDE != 0)
        return JNI_FALSE;
    if ((me = self) == &idle && (me = attach()) == NULL)
        return JNI_FALSE;
    if ((id & PROBE_HANDOFF_MANY) && (n = stream_run(me, TOKEN_SEQ(token))) > PROBE_STREAM_RUNS)
        return JNI_FALSE;
    id &= ~PROBE_HANDOFF_MANY;
    if ((t = begin_call(env, me, cur, e / STRIDE, s, TOKEN_LEVELS(token))) == NULL)
        return JNI_FALSE;
    root_enter(env, t, cur, id, ENTER_ROOT);
    rec(env, t, n == PROBE_STREAM_RUNS ? PROBE_STREAM_CUT : -1, PROBE_TASK | TOKEN_SEQ(token) << 4);
    return JNI_TRUE;
}

static jboolean JNICALL n_task_end(JNIEnv *env, jclass cls, jthrowable ex, jint k, jint id)
{
    probe_thread *t = state_of(k);

    return t->depth > 0 && root_leave(env, t, id, ex != NULL ? PROBE_ROOT_FAIL : PROBE_ROOT_EXIT, ex) ? JNI_TRUE
                                                                                                       : JNI_FALSE;
}

/* The state of the traced call at entry k when an argument of its
 * outermost entry method may be recorded now, with room for n events:
 * nothing but its start and its arguments so far (a nested entry method's
 * arguments, and those after one that did not fit, are not recorded);
 * NULL otherwise. */
static probe_thread *arg_state(jint k, uint64_t n)
{
    probe_thread *t = state_of(k);

    if (t->depth == 0 || t->w != t->args_pos)
        return NULL;
    if (t->w > t->limit || t->limit - t->w < n) {
        t->args_pos = UINT64_MAX;
        return NULL;
    }
    return t;
}

static void JNICALL n_arg(JNIEnv *env, jclass cls, jint k, jint type, jlong bits)
{
    probe_thread *t = arg_state(k, 1);
    uint64_t v = (uint64_t)bits;

    if (t == NULL || (uint32_t)type > PROBE_ARG_DOUBLE)
        return;
    /* Narrow types as their own bits, zero-extended (the Java side widened
     * them to long). */
    if (type == PROBE_ARG_BYTE)
        v &= 0xffu;
    else if (type == PROBE_ARG_CHAR || type == PROBE_ARG_SHORT)
        v &= 0xffffu;
    else if (type == PROBE_ARG_INT || type == PROBE_ARG_FLOAT)
        v &= 0xffffffffu;
    put(t, 0, PROBE_ARG | (uint32_t)type << 4, v);
    t->args_pos = t->w;
}

/* Records String s (borrowed) as an argument of type: its length, and
 * its first characters, as many as the session keeps and the ring holds. */
static void arg_chars(JNIEnv *env, probe_thread *t, jstring s, uint32_t type)
{
    jchar buf[PROBE_ARGS_LEN_MAX + 3];
    jsize len = (*env)->GetStringLength(env, s);
    uint64_t n = (uint64_t)atomic_load_explicit(&cur_args_len, memory_order_relaxed), room, i;

    if (n > (uint64_t)len)
        n = (uint64_t)len;
    room = (t->limit - t->w - 1) * 4;
    if (n > room)
        n = room;
    (*env)->GetStringRegion(env, s, 0, (jsize)n, buf);
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        n = 0;
    }
    buf[n] = buf[n + 1] = buf[n + 2] = 0;
    put(t, len, PROBE_ARG | type << 4 | (uint32_t)((n + 3) / 4) << 8, n);
    for (i = 0; i < n; i += 4)
        put(t, 0, PROBE_ARG_CHARS,
            (uint64_t)buf[i] | (uint64_t)buf[i + 1] << 16 | (uint64_t)buf[i + 2] << 32 | (uint64_t)buf[i + 3] << 48);
}

/* A reference argument: read through JNI only (a String's characters, an
 * enum constant's name field), never by calling one of its methods; any
 * other object is held (a global ref) for the worker to name. */
static void JNICALL n_arg_ref(JNIEnv *env, jclass cls, jint k, jobject v)
{
    probe_thread *t = arg_state(k, 1);

    if (t == NULL)
        return;
    if (v == NULL) {
        put(t, 0, PROBE_ARG | PROBE_ARG_NULL << 4, 0);
    } else if ((*env)->IsInstanceOf(env, v, bound.string_class)) {
        arg_chars(env, t, v, PROBE_ARG_STRING);
    } else if ((*env)->IsInstanceOf(env, v, bound.enum_class)) {
        jobject name = (*env)->GetObjectField(env, v, bound.enum_name);

        if (name != NULL) {
            arg_chars(env, t, name, PROBE_ARG_ENUM);
            (*env)->DeleteLocalRef(env, name);
        } else {
            put(t, 0, PROBE_ARG | PROBE_ARG_ENUM << 4, 0);
        }
    } else {
        jobject g = (*env)->NewGlobalRef(env, v);

        put(t, 0, PROBE_ARG | PROBE_ARG_OBJECT << 4, (uint64_t)(uintptr_t)g);
    }
    t->args_pos = t->w;
}

/* Counting natives for the diagnostic mode (which passes no arguments:
 * it rewrites with probe_methods(0)). */
static void JNICALL c_arg(JNIEnv *env, jclass cls, jint k, jint type, jlong bits)
{
}

static void JNICALL c_arg_ref(JNIEnv *env, jclass cls, jint k, jobject v)
{
}

static void JNICALL c_enter(JNIEnv *env, jclass cls, jint k, jint id)
{
    atomic_fetch_add_explicit(&count_enter, 1, memory_order_relaxed);
}

static void JNICALL c_root_nest(JNIEnv *env, jclass cls, jint k, jint id, jint how)
{
    atomic_fetch_add_explicit(&count_enter, 1, memory_order_relaxed);
}

static jboolean JNICALL c_root_begin(JNIEnv *env, jclass cls, jobject cur, jlong tid, jint e, jint id, jint how)
{
    atomic_fetch_add_explicit(&count_enter, 1, memory_order_relaxed);
    return JNI_FALSE;
}

static jboolean JNICALL c_root_exit(JNIEnv *env, jclass cls, jint k, jint id)
{
    atomic_fetch_add_explicit(&count_exit, 1, memory_order_relaxed);
    return JNI_FALSE;
}

static jboolean JNICALL c_root_fail(JNIEnv *env, jclass cls, jthrowable ex, jint k, jint id)
{
    atomic_fetch_add_explicit(&count_fail, 1, memory_order_relaxed);
    return JNI_FALSE;
}

static void JNICALL c_exit(JNIEnv *env, jclass cls, jint k, jint id)
{
    atomic_fetch_add_explicit(&count_exit, 1, memory_order_relaxed);
}

static void JNICALL c_fail(JNIEnv *env, jclass cls, jthrowable ex, jint k, jint id)
{
    atomic_fetch_add_explicit(&count_fail, 1, memory_order_relaxed);
}

static jboolean JNICALL n_counting(JNIEnv *env, jclass cls)
{
    return counting_mode ? JNI_TRUE : JNI_FALSE;
}

/* Probe.SLOTS: the slots, as a direct buffer (NULL, and the JVM throws,
 * when it has none: the class does not initialize). */
static jobject JNICALL n_slots(JNIEnv *env, jclass cls)
{
    return (*env)->NewDirectByteBuffer(env, &slots, (jlong)sizeof slots);
}

/* The threads' counters are their own (probe.h): the worker sums them. */
uint64_t probe_dropped(void)
{
    probe_thread *t;
    uint64_t n = 0;

    int i;

    for (t = probe_threads(); t != NULL; t = t->next)
        n += atomic_load_explicit(&t->dropped, memory_order_relaxed) +
             atomic_load_explicit(&t->unslotted, memory_order_relaxed);
    for (i = 0; i < PROBE_ENTRIES; i++)
        n += atomic_load_explicit(&slots.slot[i].dropped, memory_order_relaxed);
    return n;
}

uint64_t probe_seen(void)
{
    probe_thread *t;
    uint64_t n = 0;
    int i;

    for (t = probe_threads(); t != NULL; t = t->next)
        n += atomic_load_explicit(&t->seen, memory_order_relaxed);
    for (i = 0; i < PROBE_ENTRIES; i++)
        n += atomic_load_explicit(&slots.slot[i].seen, memory_order_relaxed);
    return n;
}

void probe_counts(uint64_t *enters, uint64_t *exits, uint64_t *fails)
{
    *enters = atomic_load(&count_enter);
    *exits = atomic_load(&count_exit);
    *fails = atomic_load(&count_fail);
}

/* --- sessions and the worker's side ------------------------------------------------- */

/* What the Java side reads of session and the sampling rate, in one load. */
static void set_control(uint32_t session)
{
    uint64_t n = atomic_load_explicit(&cur_sample, memory_order_relaxed);

    if (n > UINT32_MAX)
        n = UINT32_MAX;
    atomic_store_explicit(&slots.control, session | n << 32, memory_order_release);
}

void probe_set_cpu(int on)
{
    atomic_store_explicit(&cur_cpu, on != 0, memory_order_relaxed);
}

int probe_set_alloc(int on, const char **why)
{
    if (on && !bound.alloc_found) {
        *why = bound.alloc_missing != NULL ? bound.alloc_missing : "the probes are not installed";
        return -1;
    }
    atomic_store_explicit(&cur_alloc, on != 0, memory_order_relaxed);
    return 0;
}

void probe_set_sample(uint64_t sample)
{
    atomic_store_explicit(&cur_sample, sample, memory_order_relaxed);
    set_control(atomic_load_explicit(&cur_session, memory_order_acquire));
}

void probe_session_begin(uint32_t session, int depth)
{
    atomic_store_explicit(&cur_depth, depth, memory_order_relaxed);
    atomic_store_explicit(&cur_session, session, memory_order_release);
    set_control(session);
}

void probe_session_end(JNIEnv *jni)
{
    atomic_store_explicit(&slots.control, 0, memory_order_seq_cst);
    atomic_store_explicit(&cur_session, 0, memory_order_seq_cst);
    probe_receivers_begin(jni, NULL);
}

void probe_await_calls(uint64_t ns)
{
    uint32_t seq = atomic_load_explicit(&wake_seq, memory_order_acquire);
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};

    atomic_store_explicit(&worker_asleep, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    for (const probe_thread *t = probe_threads(); t != NULL; t = t->next)
        if (atomic_load_explicit(&t->published, memory_order_relaxed) !=
            atomic_load_explicit(&t->consumed, memory_order_relaxed)) {
            atomic_store_explicit(&worker_asleep, 0, memory_order_relaxed);
            return;
        }
    /* A wake between the load of seq and the wait changed it: no wait. */
    syscall(SYS_futex, &wake_seq, FUTEX_WAIT_PRIVATE, seq, &ts, NULL, 0);
    atomic_store_explicit(&worker_asleep, 0, memory_order_relaxed);
}

probe_thread *probe_threads(void)
{
    return atomic_load_explicit(&registry, memory_order_acquire);
}

void probe_maintain(probe_thread *t, JNIEnv *jni, uint64_t want_cap)
{
    probe_ev *old = atomic_load_explicit(&t->old_ring, memory_order_acquire);
    uint64_t cap = t->worker_cap;
    int behind = atomic_load_explicit(&t->behind, memory_order_acquire);

    /* Its calls taken, the entry it marked behind may start calls again
     * (unless it marked it anew meanwhile). */
    if (behind >= 0 && atomic_load_explicit(&t->consumed, memory_order_acquire) ==
                           atomic_load_explicit(&t->published, memory_order_acquire)) {
        atomic_store_explicit(&slots.slot[behind].behind, 0, memory_order_relaxed);
        atomic_compare_exchange_strong_explicit(&t->behind, &behind, -1, memory_order_acq_rel,
                                                memory_order_relaxed);
    }

    if (old != NULL) {
        ring_free(old, atomic_load_explicit(&t->old_mask, memory_order_relaxed) + 1);
        atomic_store_explicit(&t->old_ring, NULL, memory_order_release);
    }
    if (want_cap > PROBE_RING_MAX)
        want_cap = PROBE_RING_MAX;
    if (want_cap > cap && atomic_load_explicit(&t->next_ring, memory_order_acquire) == NULL &&
        atomic_load_explicit(&t->state, memory_order_acquire) == PROBE_THREAD_LIVE) {
        uint64_t c = cap;
        probe_ev *r = NULL;

        while (c < want_cap)
            c *= 2;
        /* Within the budget, as big as it allows. */
        while (c > cap && probe_ring_bytes() + c * sizeof(probe_ev) > PROBE_RING_BUDGET)
            c /= 2;
        if (c > cap)
            r = ring_alloc(c);
        if (r != NULL) {
            atomic_store_explicit(&t->next_mask, c - 1, memory_order_relaxed);
            atomic_store_explicit(&t->next_ring, r, memory_order_release);
            t->worker_cap = c;
        }
    }
    if (atomic_load_explicit(&t->state, memory_order_acquire) == PROBE_THREAD_DEAD &&
        atomic_load_explicit(&t->consumed, memory_order_acquire) ==
            atomic_load_explicit(&t->published, memory_order_acquire)) {
        probe_ev *offered = atomic_exchange_explicit(&t->next_ring, NULL, memory_order_acq_rel);

        if (offered != NULL) {
            ring_free(offered, atomic_load_explicit(&t->next_mask, memory_order_relaxed) + 1);
            t->worker_cap = t->mask + 1;
        }
        /* Without JNI, what needs it waits for a later pass: a state
         * marked FREE while its entry is held would keep it forever. */
        if (jni == NULL && (t->thread != NULL || t->entry >= 0))
            return;
        if (t->thread != NULL) {
            (*jni)->DeleteGlobalRef(jni, t->thread);
            t->thread = NULL;
        }
        /* Its thread is gone, even if it died inside a traced call: its
         * entry has no holder left. */
        if (t->entry >= 0) {
            release_entry(jni, t->entry);
            (*jni)->CallStaticVoidMethod(jni, probe_cls, free_entry, (jint)(t->entry * STRIDE));
            (*jni)->ExceptionClear(jni);
        }
        t->entry = -1;
        t->depth = 0;
        t->w = atomic_load_explicit(&t->published, memory_order_relaxed);
        ring_free(t->ring, t->mask + 1);
        stamps_free(t);
        t->ring = NULL;
        t->mask = 0;
        t->worker_cap = PROBE_RING_MIN;
        atomic_store_explicit(&t->in_call, 0, memory_order_release);
        atomic_store_explicit(&t->state, PROBE_THREAD_FREE, memory_order_release);
    }
}

int probe_shrink(probe_thread *t)
{
    probe_ev *offered, *old;
    int done = 0;

    /* The handshake with start_call (probe.h): flag, then look. */
    atomic_store_explicit(&t->shrinking, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&t->in_call, memory_order_seq_cst) == 0 &&
        atomic_load_explicit(&t->consumed, memory_order_acquire) ==
            atomic_load_explicit(&t->published, memory_order_acquire)) {
        offered = atomic_exchange_explicit(&t->next_ring, NULL, memory_order_acq_rel);
        if (offered != NULL)
            ring_free(offered, atomic_load_explicit(&t->next_mask, memory_order_relaxed) + 1);
        old = atomic_exchange_explicit(&t->old_ring, NULL, memory_order_acq_rel);
        if (old != NULL)
            ring_free(old, atomic_load_explicit(&t->old_mask, memory_order_relaxed) + 1);
        /* Empty (consumed == published == w): positions carry over to the
         * ring its next traced call takes. */
        ring_free(t->ring, t->mask + 1);
        stamps_free(t);
        t->ring = NULL;
        t->mask = 0;
        t->worker_cap = PROBE_RING_MIN;
        done = 1;
    }
    atomic_store_explicit(&t->shrinking, 0, memory_order_release);
    return done;
}

/* --- what the class install and the calibration need ------------------------------- */

const probe_native probe_natives[PROBE_N_NATIVES] = {
    {"counting0", "()Z", n_counting, n_counting},
    {"slots0", "()Ljava/nio/ByteBuffer;", n_slots, n_slots},
    {"rootOf0", "(II)Z", n_root_of, n_root_of},
    {"rootBegin0", "(Ljava/lang/Thread;JIII)Z", n_root_begin, c_root_begin},
    {"rootNest0", "(III)V", n_root_nest, c_root_nest},
    {"rootExit0", "(II)Z", n_root_exit, c_root_exit},
    {"rootFail0", "(Ljava/lang/Throwable;II)Z", n_root_fail, c_root_fail},
    {"enter0", "(II)V", n_enter, c_enter},
    {"exit0", "(II)V", n_exit, c_exit},
    {"fail0", "(Ljava/lang/Throwable;II)V", n_fail, c_fail},
    /* the diagnostic mode never follows a hand-off: no session runs */
    {"handoff0", "(II)J", n_handoff, n_handoff},
    {"inline0", "(IJ)V", n_inline, n_inline},
    {"handed0", "(I)V", n_handed, n_handed},
    {"handedFuture0", "(ILjava/lang/Object;)V", n_handed_future, n_handed_future},
    {"taskBegin0", "(Ljava/lang/Thread;IJI)Z", n_task_begin, n_task_begin},
    {"taskEnd0", "(Ljava/lang/Throwable;II)Z", n_task_end, n_task_end},
    {"arg0", "(IIJ)V", n_arg, c_arg},
    {"argRef0", "(ILjava/lang/Object;)V", n_arg_ref, c_arg_ref},
};

int probe_prepare(int counting)
{
    static int key_made;
    int rc;

    if (!key_made) {
        rc = pthread_key_create(&exit_key, thread_exited);
        if (rc != 0)
            return rc;
        key_made = 1;
    }
    counting_mode = counting;
    return 0;
}

const probe_binding *probe_bound(void)
{
    return &bound;
}

void probe_bind(const probe_binding *b)
{
    table = b->table;
    free_entry = b->free_entry;
    bound = *b;
    is_virtual = b->is_virtual;
    probe_cls = b->cls;
}

int probe_writer_scratch(JNIEnv *jni)
{
    static probe_thread scratch __attribute__((aligned(PROBE_LINE)));
    static probe_ev ring[PROBE_RING_MIN];

    if (scratch.jstate == NULL) {
        scratch.depth = 1;
        scratch.max_depth = INT32_MAX;
        scratch.limit = INT64_MAX; /* Java compares it as a long */
        scratch.ring = ring;
        scratch.mask = PROBE_RING_MIN - 1;
        scratch.entry = -1;
        if ((scratch.jstate = native_buffer(jni, &scratch, (jlong)sizeof scratch)) == NULL)
            return -1;
    }
    return writer_lanes(jni, &scratch, PROBE_ENTRIES);
}

int probe_use_writer(JNIEnv *jni)
{
    (*jni)->SetStaticBooleanField(jni, probe_cls, bound.writer, JNI_TRUE);
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        return -1;
    }
    writer_on = 1;
    return 0;
}

int probe_writer(void)
{
    return writer_on;
}

int probe_stamping(void)
{
    return session_stamps() != 0;
}

uint64_t probe_record_ticks(probe_ev *ring, uint64_t cap, int n)
{
    probe_thread scratch;
    uint64_t t0, t1;
    int r;

    memset(&scratch, 0, sizeof scratch);
    scratch.ring = ring;
    scratch.mask = cap - 1;
    scratch.limit = UINT64_MAX;
    /* With stamps asked for, their reads and writes are part of the cost;
     * the scratch ring serves as their scratch too (nothing reads it). */
    if (session_stamps() != 0) {
        atomic_store_explicit(&scratch.stamps, (probe_stamp *)(void *)ring, memory_order_relaxed);
        scratch.stamp = session_stamps() | STAMP_WRITE;
    }
    t0 = clock_ticks();
    for (r = 0; r < n; r++)
        rec(NULL, &scratch, 1, PROBE_ENTER);
    t1 = clock_ticks();
    return t1 - t0;
}
