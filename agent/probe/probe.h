/* probe.h — the probes: static methods of a small class the agent defines
 * in the boot loader (mcalltree/agent/Probe, agent/java), called by
 * instrumented code with the method's number, and their natives.
 *
 * A traced call writes to an event ring (one producer: the call's thread;
 * one consumer: the worker): a platform thread's own ring, or for a virtual
 * thread the ring of a state it holds during the call (it may move to
 * another OS thread). A probe appends (number, kind, ticks), and when the
 * session asks, the thread's CPU and allocation stamps beside it (the
 * probes of ordinary methods either through their natives or, with the
 * Java writer, in Java: probe_use_writer); the outermost
 * exit of an entry method publishes the call's events and the worker builds
 * the tree from them. An entry call holds an entry of the probe class's
 * table (one of two found from its thread id, each on a cache line of its
 * own), taken in Java with a CAS; outside a traced call a probe is a
 * pure-Java check, inlined by the JIT: of the count of traced calls in
 * flight (the Java side adds to it as a traced call starts and takes from
 * it as it ends, one atomic add each), then, when some thread traces, of
 * the thread against its two entries. A call whose two entries
 * are both held by other threads is not traced (counted as unslotted).
 * The probes of the methods a traced call runs never allocate, lock, log
 * or call JVMTI. Its two ends do more, once per traced call: the start
 * writes the thread into the entry with JNI (with the Java writer, also
 * the call's state and ring into the class's STATES and RINGS: two JNI
 * array stores, and a direct buffer made, with a call of ByteBuffer.order,
 * when a state first traces and when its ring changed) and, with --args, records the
 * entry method's arguments (a String's or enum name's characters copied
 * into the ring with GetStringRegion, any other object held by a JNI
 * global ref, which the worker names and frees; never a method of the
 * argument), with --trace-context reads the thread's trace context
 * through JNI fields (tctx.h: a few dozen JNI calls, no Java method) (a
 * thread's first traced call
 * also sets up its state, which allocates; a state's first traced call of
 * a session maps its ring, and the stamps beside it when the session asks
 * for them, again when the ring grew; a virtual thread's calls
 * Thread.isVirtual,
 * takes a state from the virtual threads' pool, which allocates one when
 * all are held, and keeps a JNI reference to the thread), and an entry
 * method that throws keeps a JNI reference to the exception's class (the
 * worker frees both). With --follow-async, a hand-off made in a traced
 * call takes its number from a counter all threads share (one atomic add:
 * once per hand-off, as the ends are once per call; its wrapper is
 * allocated in Java, and a site that returns the task's future keeps a JNI
 * reference to it, which the worker frees), and the run of a handed-off
 * task starts and ends as an entry call does. The count of traced calls
 * in flight is shared too (written once at each end of a traced call).
 * Nothing else the probes write is shared between threads: each thread's
 * state is its own, its fields grouped on cache lines by writer (below),
 * and its counters are summed by the worker.
 *
 * The rule of the probe path: no allocation, no lock, no logging and no
 * formatting in a probe or in what it calls, beyond the once-per-call ends
 * just listed. probe.c holds the probe path and nothing that would break
 * the rule out of it: the class's install (jvm/probe_install.c) and the
 * calibration (runtime/probe_cost.c) are elsewhere, and so are the
 * receivers (receivers.c, which lock). What probe.c does besides the probes
 * (the rings' memory, handed over without a lock) runs on the worker.
 *
 * The Java side decides which entry calls start (probe_slots): while a
 * session runs (its number and the sampling rate in slots.control) and
 * the method is one of its entry methods (it asks probe.c once per method
 * and session), the outermost entry method takes an entry, counts the
 * call as seen in the entry's slot and, with sampling
 * (probe_set_sample's sample > 1), traces it only when the entry's
 * countdown runs out (started at a phase of its own, so that threads with
 * few calls are not all traced on their first). A call not traced is
 * still one call: it holds its entry, marked (the element after the
 * thread's, which only the entry methods' probes look at), so that the
 * entry calls nested in it (recursion, an inherited entry method calling
 * the named class's own) nest in it rather than count and sample as calls
 * of their own. It never goes native: it costs what an entry call outside
 * a session costs, plus the CAS that takes the entry and the stores that
 * count it. A call the sampling traces goes native to start (a call that
 * cannot start is counted as dropped there, and gives its entry back),
 * unless its entry's slot is marked behind: its thread's ring was full at
 * an earlier call and the worker has not taken it yet; the call is then
 * dropped in Java, counted in the slot, before it starts. A state marks
 * one entry at a time (the one the worker clears once it drained the
 * state): a full state of the virtual threads' pool, which serves calls
 * of many entries, refuses the calls of other entries without marking
 * them, and a virtual thread's call takes a drained state of the pool
 * where there is one.
 *
 * The ring, its one statement of invariants (probe.c is the producer's
 * side and the rings' memory, probe_ring.c the consumer's):
 *   - Positions only grow (w, published, consumed; an event is at
 *     pos & mask). The app thread alone writes w, the events and
 *     `published`; the consumer alone writes `consumed`. Always
 *     consumed <= published <= w.
 *   - A call's events are written by its thread, then published with one
 *     release store of `published` at the outermost exit (the first event
 *     carrying the call's length, the last the session it started in). The
 *     consumer reads events only in [consumed, published), after an acquire
 *     load of `published`, and gives them back with a release store of
 *     `consumed`; the thread reads `consumed` (acquire) before reusing them.
 *   - PROBE_EXCEPTION, PROBE_THREAD and object PROBE_ARG events
     (probe_ev_ref) hold JNI global refs that the
 *     producer takes; the consumer frees them exactly once, as the call
 *     leaves the ring, whether it was built, filtered or discarded (its
 *     callback only borrows them). A ring found inconsistent (a length that
 *     does not fit) is skipped whole: its refs leak rather than freeing what
 *     may not be one.
 *   - One consumer at a time: a session holds the consumer (probe_ring.c's
 *     lock) from before it instruments until the rings are shrunk after its
 *     end; the listener's tick takes it only with a trylock.
 *   - Ring memory: a state has no ring until it traces a call (a thread
 *     whose calls are all sampled out never has one); its first traced
 *     call takes one of PROBE_RING_MIN events. Rings grow while a session
 *     runs (a call overflowed, or calls were dropped) within
 *     PROBE_RING_BUDGET for all of them: the
 *     consumer offers a bigger ring (next_ring, release) that the thread
 *     takes at the start of a call once the old one is drained, giving the
 *     old one back (old_ring, release) for the consumer to free. When the
 *     session ends the consumer frees every ring (probe_shrink), and a dead
 *     thread's state loses its ring as it becomes FREE: between sessions
 *     only the states themselves are left (about 1 KiB each: one per OS
 *     thread that made an entry call, and the virtual threads' pool, as
 *     many as were in traced calls at once). The ring changes hands without a lock: the thread
 *     says when it is in a call (in_call), the consumer when it swaps the
 *     ring (shrinking); each sets its flag, then reads the other's (both
 *     sequentially consistent), so at most one of them goes on: a call that
 *     starts while its ring is being swapped is dropped (counted), a ring
 *     whose thread is in a call is shrunk later.
 *   - A thread that ended is marked dead by its TLS destructor; the
 *     consumer frees its state once drained (letting go of the table entry
 *     it held, if it died in a call), and it is reused. */
#ifndef MCT_PROBE_H
#define MCT_PROBE_H

#include <jni.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "rewrite.h"

#define PROBE_CLASS "mcalltree/agent/Probe"

/* Event kinds (the low 4 bits of probe_ev.kind). */
enum probe_kind {
    PROBE_ENTER = 0,      /* a method was entered */
    PROBE_EXIT,           /* it returned */
    PROBE_FAIL,           /* it ended by an exception (its catch-all ran) */
    PROBE_ROOT_ENTER,     /* an entry method was entered; for the outermost one
                             of a call, kind >> 4 is the call's event count */
    PROBE_ROOT_EXIT,      /* for the outermost one of a call, kind >> 4 is the
                             session the call started in */
    PROBE_ROOT_FAIL,      /* likewise */
    PROBE_OVERFLOW,       /* the ring was full: later events of the call lost */
    PROBE_EXCEPTION,      /* t holds a JNI global ref to the class of the
                             exception that ended the call (the worker frees it) */
    PROBE_THREAD,         /* t holds a JNI global ref to the virtual thread
                             that made the call (the worker frees it) */
    PROBE_HANDOFF,        /* a task was handed to another thread here
                             (--follow-async): id is its task method, kind >> 4
                             its hand-off number (PROBE_HANDOFF_SEQ) */
    PROBE_INLINE,         /* the task of hand-off kind >> 4 ran here, inside
                             this call (a thread already in a traced call) */
    PROBE_TASK,           /* right after the root's enter: this call is the
                             run of the task of hand-off kind >> 4; id
                             PROBE_STREAM_CUT: its thread's last traced run
                             of that stream hand-off (else -1) */
    PROBE_HANDED,         /* the site of the frame's last hand-off returned
                             (one that does not was refused: it threw) */
    PROBE_ARG,            /* an argument of the entry method (--args), right
                             after its outermost ROOT_ENTER (and THREAD), in
                             order: kind holds its type (PROBE_ARG_TYPE) and
                             how many PROBE_ARG_CHARS events follow
                             (PROBE_ARG_EVENTS); enum probe_arg_type says
                             what id and t hold */
    PROBE_ARG_CHARS,      /* t: up to four UTF-16 code units of the argument
                             before (the first in the low 16 bits) */
    PROBE_EXT             /* an event of enum probe_ext (kind >> 4 & 15):
                             compare PROBE_XKIND(kind) with PROBE_FUTURE,
                             PROBE_CONTEXT */
};

/* The kinds past the 4 bits of enum probe_kind: PROBE_EXT, with which one
 * in the next 4 bits. */
enum probe_ext {
    PROBE_EXT_FUTURE = 0, /* right after a PROBE_HANDED: t holds a JNI global
                             ref to the future the hand-off site returned
                             (the worker frees it) */
    PROBE_EXT_CONTEXT     /* the trace context on the call's thread at its start
                             (--trace-context, tctx.h), right after its outermost
                             ROOT_ENTER (and THREAD), before its arguments:
                             PROBE_CONTEXT_STATUS(kind) a tctx_status; for
                             TCTX_OK, t the trace id's first 8 bytes (big-endian),
                             PROBE_CONTEXT_FLAGS(kind) its trace flags, and two
                             PROBE_CONTEXT events (status 0) follow: the trace
                             id's last 8 bytes, then the span id */
};

#define PROBE_FUTURE (PROBE_EXT | (uint32_t)PROBE_EXT_FUTURE << 4)
#define PROBE_CONTEXT (PROBE_EXT | (uint32_t)PROBE_EXT_CONTEXT << 4)
#define PROBE_CONTEXT_STATUS(k) (((k) >> 8) & 15u)
#define PROBE_CONTEXT_FLAGS(k) (((k) >> 12) & 0xffu)

/* Hand-off numbers: the low bits of a counter, enough to tell apart the
 * hand-offs in flight (a session waits for its tasks a bounded time). */
#define PROBE_HANDOFF_SEQ(x) ((uint32_t)(x) & 0x0fffffffu)

/* Set in a PROBE_HANDOFF's id (Probe.MANY): the task is a stream
 * operation's function, run any number of times, on any threads. The
 * wrapper sets it too in the id it starts a run with. */
#define PROBE_HANDOFF_MANY (1 << 30)

/* A thread traces at most PROBE_STREAM_RUNS runs of one stream hand-off
 * (the applications of its function, a parallel stream's elements); the
 * last carries PROBE_STREAM_CUT in its PROBE_TASK's id, and those after it
 * run untraced, counted as calls not traced. It remembers the hand-offs of
 * the last PROBE_STREAM_SEQS streams it ran (a pipeline's stages
 * alternate). */
#define PROBE_STREAM_RUNS 64
#define PROBE_STREAM_CUT 1
#define PROBE_STREAM_SEQS 4

/* An argument's type (PROBE_ARG): the protocol's CALL_ARG_* numbers. A
 * primitive's t is its bits (zero-extended; a float or double's canonical
 * ones, as Float.floatToIntBits); a String's or an enum constant's t is
 * how many of its characters follow (at most the session's args_len) and
 * id its length; an object's t is a JNI global ref to the object itself
 * (0: none could be taken), which the worker asks for its class and
 * identity hash, then frees: the call's thread pays one NewGlobalRef, not
 * a call into Java. */
enum probe_arg_type {
    PROBE_ARG_BOOLEAN = 0, PROBE_ARG_BYTE, PROBE_ARG_CHAR, PROBE_ARG_SHORT, PROBE_ARG_INT, PROBE_ARG_LONG,
    PROBE_ARG_FLOAT, PROBE_ARG_DOUBLE, PROBE_ARG_NULL, PROBE_ARG_STRING, PROBE_ARG_ENUM, PROBE_ARG_OBJECT
};

#define PROBE_ARG_TYPE(k) (((k) >> 4) & 15u)
#define PROBE_ARG_EVENTS(k) ((k) >> 8)

/* Most characters of a String or enum argument kept (--args-len). */
#define PROBE_ARGS_LEN_MAX 1024

#define PROBE_KIND(k) ((k) & 15u)
/* The kind with an extension's sub-kind: PROBE_FUTURE, PROBE_CONTEXT or
 * PROBE_KIND(k). */
#define PROBE_XKIND(k) (PROBE_KIND(k) == PROBE_EXT ? (k) & 0xffu : PROBE_KIND(k))
#define PROBE_LEN(k) ((k) >> 4)
#define PROBE_SESSION(k) ((k) >> 4)

typedef struct probe_ev {
    uint64_t t;           /* clock_ticks() */
    int32_t id;           /* method number (methods.h) */
    uint32_t kind;
} probe_ev;

/* The JNI global ref event e holds (the worker frees it once), or NULL. */
static inline void *probe_ev_ref(const probe_ev *e)
{
    uint32_t k = PROBE_XKIND(e->kind);

    if (k == PROBE_EXCEPTION || k == PROBE_THREAD || k == PROBE_FUTURE ||
        (k == PROBE_ARG && PROBE_ARG_TYPE(e->kind) == PROBE_ARG_OBJECT))
        return (void *)(uintptr_t)e->t;
    return NULL;
}

/* An event's stamps, when the session asked for them (probe_set_cpu,
 * probe_set_alloc): in an array beside the ring, at the event's index, so
 * that a session without them writes and holds none. Only a platform
 * thread's calls are stamped; the stamps of PROBE_OVERFLOW, EXCEPTION and
 * THREAD events mean nothing. */
typedef struct probe_stamp {
    uint64_t cpu;         /* PROBE_CPU_ON | the thread's CPU time, or 0 */
    uint64_t alloc;       /* PROBE_ALLOC_ON | the bytes it allocated, or 0 */
} probe_stamp;

/* An event's CPU stamp: PROBE_CPU_ON and the thread's CPU clock in ns
 * (the low 63 bits); 0 for none. */
#define PROBE_CPU_ON (UINT64_C(1) << 63)
#define PROBE_CPU_NS(c) ((c) & ~PROBE_CPU_ON)

/* An event's allocation stamp: PROBE_ALLOC_ON and the bytes the thread
 * allocated since it started (the low 63 bits); 0 for none. */
#define PROBE_ALLOC_ON (UINT64_C(1) << 63)
#define PROBE_ALLOC_BYTES(a) ((a) & ~PROBE_ALLOC_ON)

/* The cache line size the per-thread state is laid out for (two 64-byte
 * lines: the adjacent-line prefetcher moves them in pairs). */
#define PROBE_LINE 128

/* Per-thread state, grouped by who writes a field and how often, so that
 * the worker's reads do not take lines the thread writes per event, and
 * the thread's do not take the worker's. Fields written by both sides are
 * atomics. Allocated PROBE_LINE-aligned (probe.c). */
typedef struct probe_thread {
    /* written by the app thread only, per event; the worker reads them only
     * of a dead thread's state (probe_maintain) */
    _Alignas(PROBE_LINE) int32_t depth; /* instrumented frames open in the traced call; 0 = not tracing */
    int32_t max_depth;            /* record frames up to this depth */
    uint64_t w;                   /* next write position (monotonic) */
    uint64_t limit;               /* fast-path bound on w for this call */
    uint64_t root_pos;            /* position of the call's root enter event */
    uint32_t call_session;        /* the session the current call started in */
    int32_t full_depth;           /* after an overflow: exits at depth <= this are still recorded */
    uint32_t root_nest;           /* entry methods open (recursion nests) */
    int root_named;               /* the outermost one is an inherited entry method
                                     called on an instance of the named class */
    int root_ext;                 /* the second one raised max_depth by one (see root_enter) */
    int entry;                    /* the Probe table entry held during a traced call, or -1 */
    int call_thread_ref;          /* the current call records its thread (PROBE_THREAD) */
    uint64_t args_pos;            /* where the entry method's next argument goes: the
                                     call's events so far are its start and arguments */
    unsigned stamp;               /* the current call's stamps (probe.c's STAMP_*); 0: none */
    int natives;                  /* the Java writer leaves the call's events to the
                                     natives: its session stamps events (Probe.put) */
    int32_t root_depth[64];       /* depth at which each open entry method was entered */
    uint32_t stream_seq[PROBE_STREAM_SEQS]; /* the stream hand-offs whose functions this
                                     thread ran lately (probe.c stream_run) */
    uint32_t stream_runs[PROBE_STREAM_SEQS]; /* how many of their runs it traced */
    unsigned stream_next;         /* the element of stream_seq to reuse next */
    /* the ring (NULL: none yet): written by the app thread when it takes
     * one and by the worker when it frees it (never both: in_call /
     * shrinking), read by both per event */
    _Alignas(PROBE_LINE) probe_ev *ring;
    uint64_t mask;                /* ring capacity - 1 (a power of 2) */
    /* the stamps beside the ring (NULL: none), as many as its events:
     * taken or let go by the app thread at the start of a call when the
     * ring holds no unread event (released before the call's events;
     * the worker reads them after `published`), freed by the worker with
     * the ring */
    _Atomic(probe_stamp *) stamps;
    uint64_t stamps_cap;
    jobject thread;               /* global ref to the platform Thread, NULL for a
                                     virtual threads' state (each call names its thread);
                                     set when it first traces, cleared by the worker */
    /* for the Java writer (probe_use_writer), kept by the app thread: direct
     * buffers over this state and over its ring (global refs, NULL: none
     * yet), and the ring the second was made for */
    jobject jstate, jring;
    probe_ev *jring_of;
    uint64_t jring_mask;
    struct probe_thread *next;    /* registry, push-only */
    struct probe_thread *vnext;   /* the virtual threads' pool, push-only */
    /* written by the app thread once or twice per call, read by the worker */
    _Alignas(PROBE_LINE) _Atomic uint64_t published; /* events before this are complete calls */
    _Atomic int in_call;          /* the app thread is in a traced call (ring, mask, w are its) */
    /* written by the app thread per entry call that reaches the natives;
     * read by the worker only when it counts, not per pass as `published` */
    _Alignas(PROBE_LINE) _Atomic uint64_t seen; /* entry calls seen in sessions whose two
                                     entries were held (the others count in probe_slot) */
    _Atomic uint64_t dropped;     /* calls not traced: the ring was full, the call could
                                     not start (out of memory, the JVM threw) */
    _Atomic uint64_t unslotted;   /* calls not traced: both table entries were held */
    /* written by the worker, read by the app thread at the start of a call */
    _Alignas(PROBE_LINE) _Atomic uint64_t consumed; /* the worker is done with events before this */
    _Atomic int shrinking;        /* the worker is swapping the ring (ring, mask are its) */
    uint64_t worker_cap;          /* capacity of the newest ring it gave the thread */
    uint64_t worker_dropped;      /* `dropped` when the worker last looked */
    /* rarely written, by either side */
    _Alignas(PROBE_LINE) _Atomic(probe_ev *) next_ring; /* a bigger ring offered by the worker */
    _Atomic uint64_t next_mask;
    _Atomic(probe_ev *) old_ring; /* a ring the app thread gave back */
    _Atomic uint64_t old_mask;
    _Atomic int state;            /* enum probe_thread_state */
    _Atomic int vbusy;            /* a virtual thread's call holds this pool state */
    _Atomic int behind;           /* the entry whose slot a full ring marked behind, or -1 */
} probe_thread;

enum probe_thread_state {
    PROBE_THREAD_LIVE = 0,
    PROBE_THREAD_DEAD,            /* the thread ended; the worker drains and frees */
    PROBE_THREAD_FREE             /* reusable by a new thread */
};

/* The global ref of the probe class (NULL before probe_install binds it). */
jclass probe_class(void);

/* The probe methods the rewriter calls, for a method whose plan_method.root
 * is root: 0 (not an entry method), PLAN_ROOT, or PLAN_ROOT_RECEIVER (its
 * entry probe takes the receiver: a call is traced only when it is an
 * instance of a class probe_receiver_add added; inside a traced call,
 * a call on another class is an ordinary call; outside one, its exit
 * probes stay in Java, as those of an ordinary method do). */
const rw_probes *probe_methods(int root);

/* Entry calls are traced one in `sample` (1, or 0: every one; see the
 * top), from the session that begins next, or the running one. Called by
 * the session before probe_session_begin. */
void probe_set_sample(uint64_t sample);

/* Whether the entry methods pass their arguments to the probes (the
 * rewriter's rw_probes.arg, for classes instrumented from now on) and the
 * start of a traced call records them, Strings and enum names cut to len
 * characters (1..PROBE_ARGS_LEN_MAX). Called by the session before it
 * instruments. */
void probe_set_args(int on, int len);

/* Whether the probes also stamp each event of a platform thread's call
 * with the thread's CPU time (probe_ev.cpu), from the session that begins
 * next: one clock read per probe when on, none when off. A virtual
 * thread's calls are not stamped: its carrier's clock also runs for the
 * other virtual threads it carries while this one is unmounted, which the
 * probes cannot see. Called by the session before it measures the probes'
 * cost (which then includes the read). */
void probe_set_cpu(int on);

/* The calling thread's CPU stamp (PROBE_CPU_ON | its CPU time in ns). */
uint64_t probe_cpu_stamp(void);

/* Whether the probes also stamp each event of a platform thread's call
 * with the bytes the thread allocated (probe_ev.alloc), from the session
 * that begins next; as probe_set_cpu for virtual threads (a carrier's
 * counter counts every virtual thread it carries). 0, or -1 when on is
 * asked and probe_bind found no allocation counter in this JVM (nothing
 * changes then; *why says why, a static string). */
int probe_set_alloc(int on, const char **why);

/* The bytes the thread of env allocated since it started, as a probe
 * stamps it (PROBE_ALLOC_ON | bytes); 0 when probe_bind found no counter. */
uint64_t probe_alloc_stamp(JNIEnv *env);

/* Starts accepting traced calls of session `session` (its entry methods are
 * those numbered with that session and root set), recording up to depth
 * levels. Called by the session before instrumenting. */
void probe_session_begin(uint32_t session, int depth);

/* Stops starting new traced calls; calls in flight still complete. Clears
 * the receivers. */
void probe_session_end(JNIEnv *jni);

/* The receivers of the traced calls of PLAN_ROOT_RECEIVER entry methods
 * (receivers.c):
 * instances of the session's named class, that is, of any loader's copy of
 * it (or of their subclasses). The probe class holds the copies themselves
 * (never a name: the entry method's loader may see none of them), weakly,
 * so that their loaders can still be unloaded, until probe_session_end.
 *
 * probe_receivers_begin names the class by its internal name
 * ("com/shop/Cart"; NULL: none), with no copy yet; call it before
 * probe_session_begin. 0, or -1 when out of memory (no call then is a
 * receiver's). */
int probe_receivers_begin(JNIEnv *jni, const char *name);

/* A class whose internal name is name, just prepared or already loaded: when it
 * is a copy of the session's named class, its instances are receivers from
 * now on (copies whose class was unloaded meanwhile are dropped). Any
 * thread. Returns 1 when added, 0 when it is not the named class or is
 * held already, -1 when PROBE_MAX_RECEIVERS copies are held already or out
 * of memory: calls on that copy are not traced (the caller says so). */
int probe_receiver_add(JNIEnv *jni, jclass cls, const char *name);

/* Copies of the named class held at once (each call of an inherited entry
 * method on another class looks at each of them). */
#define PROBE_MAX_RECEIVERS 32

/* The registry of threads that ever ran a traced call (newest first). */
probe_thread *probe_threads(void);

/* The event at position pos of t's ring (the caller is the worker and pos is
 * in [consumed, published)). */
static inline const probe_ev *probe_event(const probe_thread *t, uint64_t pos)
{
    return &t->ring[pos & t->mask];
}

/* Consumer housekeeping for one thread after consuming: frees a returned ring,
 * offers a bigger one when want_cap exceeds the current capacity (capped,
 * and only while all rings stay within PROBE_RING_BUDGET), and frees a dead
 * thread's resources once drained, its global ref and table entry included
 * (then it may be reused). With jni NULL, a dead thread that holds a global
 * ref or an entry is left for a later call with jni. */
void probe_maintain(probe_thread *t, JNIEnv *jni, uint64_t want_cap);

/* Worker, once a session ended (no new call starts) and t is drained: frees
 * t's ring, with any bigger ring offered to it (its next traced call takes
 * a new one). Returns 1 when t holds no ring, 0 when t is in a call: try
 * again later. */
int probe_shrink(probe_thread *t);

/* Bytes held by all rings now. */
uint64_t probe_ring_bytes(void);

/* Ring capacities in events: every thread starts small; a ring grows when
 * a call overflowed it (up to MAX) or calls were dropped because the worker
 * had not taken the earlier ones yet (up to DROP_MAX). */
#define PROBE_RING_MIN (1u << 12)
#define PROBE_RING_DROP_MAX (1u << 18)
#define PROBE_RING_MAX (1u << 22)
/* What all rings may hold together, in bytes: a ring does not grow beyond
 * it (the calls that do not fit are then dropped or truncated, and counted
 * as such). A state's first ring of a session is always given. */
#define PROBE_RING_BUDGET ((uint64_t)256 << 20)

/* The entries of Probe.TABLE (Probe.ENTRIES). */
#define PROBE_ENTRIES 1024

/* What the Java side of the probe class writes in native memory
 * (Probe.SLOTS, a direct buffer over `slots` in probe.c; Probe.java's
 * offsets follow this layout). Each entry's slot is written by the
 * entry's holder only (Probe.OWNER), with plain stores; the worker reads
 * `seen`. */
typedef struct probe_slot {
    _Alignas(PROBE_LINE) uint64_t seen; /* entry calls its holders started */
    uint64_t countdown;                 /* entry calls until the next one sampled */
    uint32_t countdown_session;         /* the session countdown counts for */
    uint32_t nest;                      /* entry methods open in a call not sampled */
    uint64_t dropped;                   /* calls not started: marked behind */
    /* set by a call whose thread's ring was full, cleared by the worker
     * once it took that ring's calls (probe_maintain): until then the
     * entry's calls are dropped in Java */
    _Atomic uint32_t behind;
} probe_slot;

typedef struct probe_slots {
    /* the session that accepts calls (low 32 bits; 0: none) and the
     * sampling rate (high 32 bits), read by the Java side in one load */
    _Alignas(PROBE_LINE) _Atomic uint64_t control;
    probe_slot slot[PROBE_ENTRIES];
} probe_slots;

/* --- for the class install (jvm/probe_install.c) and the calibration
 * (runtime/probe_cost.c); none of it runs on the probe path --- */

/* Elements of Probe.TABLE (Probe.ENTRIES * Probe.STRIDE). */
#define PROBE_TABLE_LEN (PROBE_ENTRIES * 16)

/* A native of the probe class: its Java name and signature, and its C
 * function when tracing and in the diagnostic counting mode. */
typedef struct probe_native {
    const char *name, *sig;
    void *tracing, *counting;
} probe_native;

#define PROBE_N_NATIVES 18
extern const probe_native probe_natives[PROBE_N_NATIVES];

/* Before the probe class initializes (it asks counting0 as it does): the
 * natives' mode, and the key whose destructor marks a thread dead. 0, or
 * pthread_key_create's error number. */
int probe_prepare(int counting);

/* What the probe path needs of the JVM, found once by probe_install; all
 * global refs or IDs the probe path keeps for the JVM's life. */
typedef struct probe_binding {
    jclass cls;                 /* the probe class */
    jobjectArray table;         /* Probe.TABLE, PROBE_TABLE_LEN elements */
    jfieldID receivers_field;   /* Probe.receivers */
    jclass weak_ref_class;      /* java.lang.ref.WeakReference */
    jmethodID weak_ref_init;    /* its constructor */
    jmethodID is_virtual;       /* Thread.isVirtual, NULL before JDK 21 */
    jmethodID free_entry;       /* Probe.free(int): lets an entry go */
    /* For the arguments (--args), read without calling their methods: */
    jclass string_class;        /* java.lang.String */
    jclass enum_class;          /* java.lang.Enum */
    jfieldID enum_name;         /* Enum.name */
    /* The JVM's own count of the bytes a thread allocated (HotSpot: the
     * thread's allocated_bytes plus what its TLAB holds, as ThreadMXBean
     * counts them), at offsets from the JavaThread, found from the JVM's
     * gHotSpotVMStructs; alloc_found 0: none (--alloc refused). */
    int alloc_found;
    const char *alloc_missing;  /* with alloc_found 0: why (a static string) */
    ptrdiff_t env_offset;       /* JNIEnv * - JavaThread * */
    ptrdiff_t allocated_offset; /* jlong: bytes of retired TLABs and allocations outside one */
    ptrdiff_t tlab_start_offset, tlab_top_offset; /* HeapWord *: the TLAB's used part */
    /* For the Java writer: */
    jobjectArray states, rings; /* Probe.STATES, Probe.RINGS (PROBE_ENTRIES + 1) */
    jfieldID writer;            /* Probe.writer */
    jmethodID buffer_order;     /* ByteBuffer.order(ByteOrder) */
    jobject native_order;       /* ByteOrder.nativeOrder() (global ref) */
} probe_binding;

/* Hands b to the probe path (copied); probe_class() is b->cls from now on. */
void probe_bind(const probe_binding *b);

/* What probe_bind was given (all NULL before). */
const probe_binding *probe_bound(void);

/* Ticks that recording n events into ring (cap events, a power of 2, the
 * caller's scratch) takes, the way a probe records them. */
uint64_t probe_record_ticks(probe_ev *ring, uint64_t cap, int n);

/* The Java writer: the probes of ordinary methods in a traced call write
 * its events in Java (Probe.put: System.nanoTime and stores into direct
 * buffers over the call's state and ring, no JNI transition) rather than
 * calling enter0 and exit0; what they leave to the natives (an event past
 * the call's share of the ring, a session that stamps events, a call's
 * two ends, failures, hand-offs) the natives record as before, into the
 * same state. Both must read one clock: the writer's is CLOCK_MONOTONIC
 * (what System.nanoTime reads on Linux), so it is used only with the
 * agent's clock monotonic, chosen before the JVM's first traced call.
 *
 * probe_writer_scratch points the class's calibration slot (Probe.STATES
 * and RINGS at PROBE_ENTRIES) at a scratch state that records every
 * event, for Probe.spinWriter; -1 when the JVM threw. */
int probe_writer_scratch(JNIEnv *jni);

/* Turns the writer on, for good (the class's Probe.writer); before the
 * first traced call, with the clock monotonic. -1 when the JVM threw. */
int probe_use_writer(JNIEnv *jni);

/* Whether the writer is on. */
int probe_writer(void);

/* Whether the session that begins next stamps events (whose calls the
 * writer leaves to the natives). */
int probe_stamping(void);

/* --- the consumer's side (probe_ring.c) --- */

/* A completed call, as the consumer hands it over. */
typedef struct probe_call {
    const probe_ev *ev;   /* its events in order, copied (valid during the
                             callback); NULL when the call is discarded */
    const probe_stamp *stamps; /* their stamps, in the ring (read in place,
                             valid during the callback): event i's is
                             stamps[(stamp_pos + i) & stamp_mask]; NULL: none */
    uint64_t stamp_pos, stamp_mask;
    uint64_t len;         /* its event count (at least 2) */
    uint32_t session;     /* the session it started in */
    jobject thread;       /* the Thread that made it; NULL: unknown (borrowed) */
    jclass exception;     /* the class of the exception that ended it, or NULL
                             (borrowed) */
} probe_call;

/* Where probe_drain hands the calls. */
typedef struct probe_sink {
    /* Whether the calls are discarded now rather than handed over (the
     * session ends); asked before each call. */
    int (*discarding)(void *arg);
    /* Each call, in the order their entry method returned (a discarded one
     * with ev NULL). Its references are freed after it returns. */
    void (*call)(void *arg, JNIEnv *jni, const probe_call *call);
    void *arg;
} probe_sink;

/* Waits until no earlier session holds the rings, then holds them. */
void probe_consumer_begin(void);

/* With the rings held: takes every call completed when the pass begins,
 * from every thread, to sink, and grows the rings that need it (not while
 * discarding). Returns how many calls it took. */
uint64_t probe_drain(JNIEnv *jni, const probe_sink *sink);

/* How full the fullest ring was when the last probe_drain began: its
 * events not taken yet, in PROBE_FILL_ONE parts of its capacity (the
 * worker's cue for how soon to drain again). */
#define PROBE_FILL_ONE 1024u
uint32_t probe_drain_fill(void);

/* With the rings held, once passes find no call: waits up to ns, or until
 * a thread whose call leaves its ring an eighth full wakes it; returns at
 * once when some ring holds a call not taken. A timer wake-up every
 * millisecond cost an idle session's worker 3 % of a core (2-core KVM
 * guest), most of it the wake-up itself. */
void probe_await_calls(uint64_t ns);

/* The session ended (no new call starts) and its calls were taken: frees
 * what calls left in the rings hold and frees every ring, waiting a
 * little for calls still running to return; lets the rings go. What is
 * left is done by probe_tidy. */
void probe_consumer_end(JNIEnv *jni);

/* The listener's tick: finishes what probe_consumer_end left, unless a
 * session holds the rings. */
void probe_tidy(JNIEnv *jni);

/* Calls of the entry method not traced since the JVM started, other than
 * those the sampling left out: rings not drained in time, calls that could
 * not start, and threads whose two table entries were both held (summed
 * over the threads' counters). */
uint64_t probe_dropped(void);

/* Entry calls seen since the JVM started while a session of their entry
 * method ran, traced or not (sampled out, dropped, unslotted). */
uint64_t probe_seen(void);

/* Counting mode: totals of enter, exit (returns) and fail (exceptional) probe
 * calls since probe_install. */
void probe_counts(uint64_t *enters, uint64_t *exits, uint64_t *fails);

#endif
