/* probe_ring.c — the rings' consumer (probe.h states the ring's
 * invariants): takes the completed calls from every thread's ring in the
 * order they ended, frees the references they hold, grows the rings that
 * need it and frees them all once a session ends. */
#include "probe.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "clock.h"
#include "vm.h"

/* At the end, how long the consumer waits for calls still running to
 * return, so that their threads' rings can be shrunk; probe_tidy does what
 * is left. */
#define RECLAIM_WAIT_MS 100

/* One consumer at a time (probe.h); what follows is its. */
static pthread_mutex_t consumer = PTHREAD_MUTEX_INITIALIZER;
static int untidy;             /* a ring was left big: probe_tidy tries again */
static probe_ev *scratch;      /* the call handed over, copied */
static size_t scratch_cap;
static struct ready *heap;     /* probe_drain's */
static size_t cap_heap;
static uint32_t fill;          /* probe_drain_fill's */

/* A thread with completed calls in a drain pass: where its next call is,
 * and when that call's entry method returned. */
struct ready {
    probe_thread *t;
    uint64_t c, p;             /* its next call; its last published event (when the pass began) */
    uint64_t len, end;         /* that call's events; the tick of its root's exit */
    uint64_t grow;             /* the ring it asks for (probe_maintain) */
};

/* The growth rule: the ring t asks for, four times its own, when a call
 * overflowed it (probe_maintain caps that at PROBE_RING_MAX) or, up to
 * PROBE_RING_DROP_MAX, when calls were dropped or a pass found it more
 * than half full (the next hiccup of the worker would drop calls: at tens
 * of thousands of calls a second a thread's first ring holds a few ms);
 * else 0. */
static uint64_t wanted(const probe_thread *t, int overflowed)
{
    if (overflowed || t->worker_cap < PROBE_RING_DROP_MAX)
        return t->worker_cap * 4;
    return 0;
}

/* The number of events of the call at position c of t's ring, p being the
 * end of its published calls; 0 when the ring is inconsistent (said on the
 * JVM's stderr): the caller skips to p, and the references those events may
 * hold leak, since freeing what may not be one would crash the JVM. */
static uint64_t call_len(const probe_thread *t, uint64_t c, uint64_t p)
{
    uint64_t len = PROBE_LEN(probe_event(t, c)->kind);

    if (len < 2 || len > p - c) {
        vm_log("a thread's event ring is inconsistent; its events are discarded");
        return 0;
    }
    return len;
}

/* Frees the references the call of len events at pos holds: the one place
 * that does. */
static void free_refs(JNIEnv *jni, const probe_thread *t, uint64_t pos, uint64_t len)
{
    uint64_t i;

    for (i = 0; i < len; i++) {
        jobject ref = probe_ev_ref(probe_event(t, pos + i));

        if (ref != NULL)
            (*jni)->DeleteGlobalRef(jni, ref);
    }
}

/* Copies the len events of a call from t's ring into the scratch array;
 * NULL when out of memory. */
static probe_ev *copy_call(const probe_thread *t, uint64_t pos, uint64_t len)
{
    uint64_t at = pos & t->mask, head = t->mask + 1 - at;

    if (buf_room(&scratch, &scratch_cap, len, sizeof *scratch, 64) < 0)
        return NULL;
    /* At most two runs: up to the ring's end, then from its start. */
    if (head > len)
        head = len;
    memcpy(scratch, &t->ring[at], head * sizeof *scratch);
    memcpy(scratch + head, t->ring, (len - head) * sizeof *scratch);
    return scratch;
}

/* Reads the call at r->c: 1, or 0 when r has no more calls (r->c < r->p
 * with an inconsistent length: the rest is skipped). */
static int next_call(struct ready *r)
{
    if (r->c >= r->p)
        return 0;
    r->len = call_len(r->t, r->c, r->p);
    if (r->len == 0) {
        r->c = r->p;
        return 0;
    }
    r->end = probe_event(r->t, r->c + r->len - 1)->t;
    return 1;
}

/* Hands r's next call to the sink (copied, or, while it discards, as a
 * discarded call), frees its references and gives its events back to the
 * thread. A call that cannot be copied (out of memory) is lost. */
static void take_call(JNIEnv *jni, const probe_sink *sink, struct ready *r)
{
    probe_call call = {
        .len = r->len,
        .session = PROBE_SESSION(probe_event(r->t, r->c + r->len - 1)->kind),
        .thread = r->t->thread,
    };
    int handed = 1, refs = 1;   /* refs: some event holds one (unknown: 1) */

    if (!sink->discarding(sink->arg)) {
        uint64_t i;

        call.ev = copy_call(r->t, r->c, r->len);
        /* Read in place: the app thread lets go of them only when its
         * ring holds no unread event. */
        call.stamps = atomic_load_explicit(&r->t->stamps, memory_order_acquire);
        call.stamp_pos = r->c;
        call.stamp_mask = r->t->mask;
        handed = call.ev != NULL;
        refs = !handed;
        for (i = 0; handed && i < r->len; i++) {
            uint32_t k = PROBE_KIND(call.ev[i].kind);

            refs |= probe_ev_ref(&call.ev[i]) != NULL;
            if (k == PROBE_EXCEPTION)
                call.exception = (jclass)(uintptr_t)call.ev[i].t;
            else if (k == PROBE_THREAD)
                call.thread = (jobject)(uintptr_t)call.ev[i].t;
            else if (k == PROBE_OVERFLOW)
                r->grow = wanted(r->t, 1);
        }
    }
    if (handed)
        sink->call(sink->arg, jni, &call);
    /* Most calls hold none: no second pass over their events then. */
    if (refs)
        free_refs(jni, r->t, r->c, r->len);
    r->c += r->len;
    atomic_store_explicit(&r->t->consumed, r->c, memory_order_release);
}

/* r's calls of this pass are taken: its housekeeping. */
static void done_thread(JNIEnv *jni, const probe_sink *sink, const struct ready *r)
{
    atomic_store_explicit(&r->t->consumed, r->c, memory_order_release);
    probe_maintain(r->t, jni, sink->discarding(sink->arg) ? 0 : r->grow);
}

/* Restores the heap order (the earliest end first) below h[i]. */
static void sift_down(struct ready *h, size_t n, size_t i)
{
    for (;;) {
        size_t m = i, l = 2 * i + 1, r = l + 1;
        struct ready tmp;

        if (l < n && h[l].end < h[m].end)
            m = l;
        if (r < n && h[r].end < h[m].end)
            m = r;
        if (m == i)
            return;
        tmp = h[i];
        h[i] = h[m];
        h[m] = tmp;
        i = m;
    }
}

/* The order is that in which the entry methods returned (so that the
 * session's seq follows it): a heap of the threads on their next call's
 * end, each thread's calls being in that order already. */
uint64_t probe_drain(JNIEnv *jni, const probe_sink *sink)
{
    probe_thread *t;
    uint64_t taken = 0;
    size_t n = 0, i;

    fill = 0;
    for (t = probe_threads(); t != NULL; t = t->next) {
        struct ready r = {.t = t};
        uint64_t dropped = atomic_load_explicit(&t->dropped, memory_order_relaxed);

        r.c = atomic_load_explicit(&t->consumed, memory_order_acquire);
        r.p = atomic_load_explicit(&t->published, memory_order_acquire);
        if (t->worker_cap > 0) {
            uint64_t f = (r.p - r.c) * PROBE_FILL_ONE / t->worker_cap;

            fill = f > fill ? (uint32_t)f : fill;
        }
        if (dropped != t->worker_dropped) {
            t->worker_dropped = dropped;
            r.grow = wanted(t, 0);
        } else if (r.p - r.c > t->worker_cap / 2) {
            r.grow = wanted(t, 0);
        }
        if (next_call(&r)) {
            if (buf_grow(&heap, &cap_heap, n, sizeof *heap, 16) == 0) {
                heap[n++] = r;
                continue;
            }
            /* Out of memory: this thread's calls now, in their order. */
            do {
                take_call(jni, sink, &r);
                taken++;
            } while (next_call(&r));
        }
        done_thread(jni, sink, &r);
    }
    for (i = n / 2; i-- > 0;)
        sift_down(heap, n, i);
    while (n > 0) {
        take_call(jni, sink, &heap[0]);
        taken++;
        if (!next_call(&heap[0])) {
            done_thread(jni, sink, &heap[0]);
            heap[0] = heap[--n];
        }
        sift_down(heap, n, 0);
    }
    return taken;
}

uint32_t probe_drain_fill(void)
{
    return fill;
}

void probe_consumer_begin(void)
{
    pthread_mutex_lock(&consumer);
}

/* With the rings held and no session tracing (every call in the rings is
 * an ended session's): frees what the calls left hold and frees every
 * ring, so that a session leaves no ring memory behind.
 * Returns how many threads are still in a call: their rings wait for a
 * later tidy_rings. */
static size_t tidy_rings(JNIEnv *jni)
{
    probe_thread *t;
    size_t left = 0;

    for (t = probe_threads(); t != NULL; t = t->next) {
        uint64_t c = atomic_load_explicit(&t->consumed, memory_order_acquire);
        uint64_t p = atomic_load_explicit(&t->published, memory_order_acquire);

        while (c < p) {
            uint64_t len = call_len(t, c, p);

            if (len == 0) {
                c = p;
                break;
            }
            free_refs(jni, t, c, len);
            c += len;
        }
        atomic_store_explicit(&t->consumed, c, memory_order_release);
        probe_maintain(t, jni, 0);
        if (!probe_shrink(t))
            left++;
    }
    return left;
}

void probe_consumer_end(JNIEnv *jni)
{
    uint64_t until = clock_monotonic_ns() + (uint64_t)RECLAIM_WAIT_MS * 1000000u;
    size_t left;

    while ((left = tidy_rings(jni)) > 0 && clock_monotonic_ns() < until)
        usleep(2000);
    if (left > 0)
        vm_debug("%zu thread(s) still in a traced call keep their event ring for now", left);
    free(scratch);
    scratch = NULL;
    scratch_cap = 0;
    free(heap);
    heap = NULL;
    cap_heap = 0;
    __atomic_store_n(&untidy, left > 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&consumer);
}

void probe_tidy(JNIEnv *jni)
{
    if (!__atomic_load_n(&untidy, __ATOMIC_ACQUIRE) || pthread_mutex_trylock(&consumer) != 0)
        return;
    __atomic_store_n(&untidy, tidy_rings(jni) > 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&consumer);
}
