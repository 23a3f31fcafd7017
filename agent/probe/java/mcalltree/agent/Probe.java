package mcalltree.agent;

import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Comparator;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.BinaryOperator;
import java.util.function.Consumer;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleConsumer;
import java.util.function.DoubleFunction;
import java.util.function.DoublePredicate;
import java.util.function.DoubleToIntFunction;
import java.util.function.DoubleToLongFunction;
import java.util.function.DoubleUnaryOperator;
import java.util.function.Function;
import java.util.function.IntBinaryOperator;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;
import java.util.function.IntToDoubleFunction;
import java.util.function.IntToLongFunction;
import java.util.function.IntUnaryOperator;
import java.util.function.LongBinaryOperator;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;
import java.util.function.LongPredicate;
import java.util.function.LongToDoubleFunction;
import java.util.function.LongToIntFunction;
import java.util.function.LongUnaryOperator;
import java.util.function.ObjDoubleConsumer;
import java.util.function.ObjIntConsumer;
import java.util.function.ObjLongConsumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;
import jdk.internal.vm.annotation.DontInline;
import jdk.internal.vm.annotation.ForceInline;

/**
 * The probes that instrumented code calls. The agent defines this class in
 * the boot loader (from bytes compiled at build time) and binds its natives.
 *
 * An entry call holds an entry of TABLE from its outermost entry method's
 * start to its return: it takes the entry in OWNER with a CAS, one of two
 * found from the thread's id: the low bits of the id, or a multiplicative
 * hash of it (ids are handed out in sequence, so live threads rarely share
 * the first, and two threads that do rarely share the second too). Only
 * the holder writes the entry's elements of TABLE (each entry's on a cache
 * line of its own, STRIDE apart) and its slot in SLOTS. In a traced call
 * the element at the entry's index is the thread; in an entry call not
 * traced (sampled out), the element after it, which only the entry
 * methods' own probes look at (their nested calls are part of that call,
 * not calls of their own). A thread always sees its own elements; other
 * threads may see stale values, never their own thread. The natives find
 * a traced call's state through the entry, so a virtual thread that moves
 * to another carrier thread mid-call keeps its state. A thread whose two
 * entries are both held by others when its call starts is not traced
 * (the agent counts it).
 *
 * The outermost entry method of a call counts the call as seen in its
 * entry's slot and decides here whether it is traced (SLOTS holds the
 * session and the sampling rate the agent set, and the countdown): only a
 * traced call goes native, to start (but for a call the agent could not
 * take now: the entry's slot is marked behind, and the call is dropped
 * here, counted, before it starts); its probes then go native (those of
 * ordinary methods, with the writer on, record here instead: put), and the
 * entry methods' exits give the entry back once the agent says the call
 * ended. A call not traced, and every probe outside an entry call, stays
 * in Java, inlined by the JIT into the caller. An entry probe: while no
 * thread is in a traced call (traced), one plain load and compare; else
 * Thread.currentThread(), its id, its first entry's element and, unless
 * it is there, atSecond (the second entry only while some traced call holds
 * one): three loads and compares (TABLE is final: its reference and
 * length are constants). The method keeps what its entry probe found in a
 * local of its own, and its exit probes test that: no load. Those probes
 * are ForceInline (the class is the boot loader's, which HotSpot trusts
 * with it): each counts one byte, not its size, of the inlining budget of
 * the method the JIT compiles, so an instrumented method inlines into its
 * callers as it did before (without, the probes' inlined bytecode used up
 * C2's budget and large instrumented callees were refused). fail, which
 * only an exception reaches, is never inlined: its call is the smallest
 * IR.
 *
 * An entry method the named class inherits runs for other classes too: it
 * calls rootEnterOn with its receiver, and only a call on an instance of
 * the named class (any loader's copy of it: receivers, set by the agent
 * for the session, which adds the copies that load meanwhile) is an entry
 * call. A call on another class is what a call of an ordinary instrumented
 * method would be: nothing outside a traced call, a node inside one.
 *
 * A thread's id must not change while it is in an entry call: the call
 * finds its entry again by the id (Thread.getId is not final before JDK
 * 19; a subclass that overrides it to answer differently loses its
 * entry: the agent refuses, as dropped, an entry call of a platform
 * thread it has traced before whose state is still in a call or holds an
 * entry).
 *
 * In the agent's counting mode (COUNTING, fixed when the class
 * initializes) every probe goes native.
 *
 * Hand-offs (--follow-async): a site that hands a task to another thread
 * (an executor's execute or submit, a CompletableFuture *Async stage)
 * passes the task through wrapRun, wrapCall, wrapGet, wrapApply or
 * wrapAccept first. Outside a traced call that is the thread check of the
 * other probes and the task itself back, nothing allocated; inside one the
 * agent records the hand-off and the task comes back wrapped in an
 * instance of this class, which, run on a thread in no entry call, traces
 * the run there as a call of its own that the agent puts under the node
 * that handed it off (on a thread already in a traced call, it runs as
 * part of that call). After the site returns it calls handed (or
 * handedFuture, with the task's future the site returned): a hand-off
 * whose site threw instead was rejected.
 *
 * A function given to a stream operation (map, filter, forEach...) goes
 * through streamApply, streamTest, streamAccept or streamToInt/Long/Double
 * the same way (the other function types, reduce's, collect's, sorted's
 * and the primitive streams', through the stream* wrapper named after
 * their interface, whose wrapper is a method reference to this class's
 * method of that type), but its wrapper is applied any number of times, none
 * included: on the traced thread (a sequential stream, or the caller's
 * share of a parallel one) it runs as part of the call, unmarked (no
 * inline0: a stream may have many elements); on a ForkJoin worker in no
 * entry call each application is a run of its own (up to probe.h's
 * PROBE_STREAM_RUNS of one stream per thread, the rest untraced and
 * counted), which the agent puts under the node that built the pipeline,
 * one node per thread. The JDK's stream classes are not changed.
 */
public final class Probe implements Runnable, Callable<Object>, Supplier<Object>, Function<Object, Object>,
        Consumer<Object>, Predicate<Object>, ToIntFunction<Object>, ToLongFunction<Object>, ToDoubleFunction<Object> {
    /** A wrapped task: the task, the agent's hand-off token, its method's number. */
    private final Object task;
    private final long token;
    private final int id;
    /** A stream operation's function: applied any number of times. */
    private final boolean many;

    private Probe(Object task, long token, int id) {
        this(task, token, id, false);
    }

    private Probe(Object task, long token, int id, boolean many) {
        this.task = task;
        this.token = token;
        this.id = id;
        this.many = many;
    }

    /** Marks the method number of a stream's hand-off (probe.h PROBE_HANDOFF_MANY). */
    private static final int MANY = 1 << 30;

    /** Entries (a power of 2) and the elements between two of them. */
    static final int ENTRIES = 1024;
    static final int STRIDE = 16;
    static final Thread[] TABLE = new Thread[ENTRIES * STRIDE];
    static final boolean COUNTING = counting0();

    /**
     * Who holds each entry (at the entry's index): taken with a CAS by the
     * outermost entry call of a session, traced or not, given back when it
     * ends. Only the holder writes the entry's elements of TABLE and its
     * slot.
     */
    static final AtomicReferenceArray<Thread> OWNER = new AtomicReferenceArray<Thread>(ENTRIES * STRIDE);

    /**
     * Traced calls in flight, of all threads: added to right after the
     * native starts one and taken from right after the native ends it
     * (or the agent frees its entry), so that a thread in a traced call
     * always reads at least its own. While it reads 0 a probe needs not
     * look for its thread's entry. A plain field, changed only under
     * COUNTS, read plainly: a thread sees its own change or a later one
     * (each later change comes after COUNTS was released), so a thread in
     * a traced call never reads 0, and a thread in none may read a stale
     * count, which costs it a look-up or spares it one it would not need.
     * Its read was volatile (an AtomicInteger's get) until Tomcat showed
     * the cost: C2 keeps every load after a volatile read in place, with
     * a probe at each end of some 900 inlined calls per request; on 16
     * cores, --sample 100 kept 0.81-0.84 of the requests/s with the
     * volatile read and 0.88-0.96 with the plain one (one run each).
     */
    private static int traced;

    /**
     * Of those, the calls at their thread's second entry (its first was
     * held by another thread's entry call as it began), counted the same
     * way: while it reads 0, a thread not found at its first entry is in
     * no traced call, and the look-up stops there (a thread at its second
     * entry added to it itself). Threads rarely share a first entry, so it
     * almost always reads 0, and a thread outside a traced call, while
     * others trace, pays one load of its own entry and this load, not the
     * hash and load of its second entry too (the JIT, which has not seen
     * the second look-up run, leaves it out of line).
     */
    private static int atSecond;

    /** Held while traced and atSecond change: two per traced call. */
    private static final Object COUNTS = new Object();

    /**
     * Native memory the agent reads (probe.h, probe_slots): at 0 the
     * session that accepts calls (low 32 bits, 0: none) and the sampling
     * rate (high 32 bits); then per entry a line of its holder's counters,
     * at SLOT + index * 8, and the mark the agent sets while the worker is
     * behind on the calls of the thread that last held it.
     */
    static final ByteBuffer SLOTS = slots0().order(ByteOrder.nativeOrder());
    private static final int SLOT = 128;
    private static final int SEEN = 0;
    private static final int COUNTDOWN = 8;
    private static final int COUNTDOWN_SESSION = 16;
    private static final int NEST = 20;
    private static final int DROPPED = 24;
    private static final int BEHIND = 32;

    /**
     * Whether a method is an entry method of a session, as the agent said:
     * (session << 32) | (id << 1) | yes, at id's hash. Threads may race to
     * fill an element: each writes what the agent answered, in one store.
     */
    private static final long[] ROOTS = new long[4096];

    /**
     * The named class of the session: each loader's copy (its own Class
     * objects), held weakly so that a loader can still be unloaded; null:
     * none. The agent replaces the array, never changes one.
     */
    static volatile WeakReference<?>[] receivers;

    /** The first entry of a thread whose id is id (its index in TABLE). */
    @ForceInline
    private static int first(long id) {
        return ((int) id & (ENTRIES - 1)) * STRIDE;
    }

    /** Its second entry. */
    @ForceInline
    private static int second(long id) {
        return (int) ((id * 0x9E3779B97F4A7C15L) >>> 54) * STRIDE;
    }

    /** The index of the current thread's entry, or -1 (not in a traced call). */
    @ForceInline
    private static int entry() {
        return traced != 0 ? find() : -1;
    }

    /** What entry() answers while some thread is in a traced call. */
    @ForceInline
    private static int find() {
        Thread c = Thread.currentThread();
        long id = c.getId();
        int a = first(id);
        if (TABLE[a] == c) {
            return a;
        }
        if (atSecond == 0) {
            return -1;
        }
        int b = second(id);
        return TABLE[b] == c ? b : -1;
    }

    /**
     * Adds by (1 or -1) to the traced calls in flight, and to those at a
     * second entry when entry k is not the first of the thread whose id is
     * tid.
     */
    private static void count(int k, long tid, int by) {
        synchronized (COUNTS) {
            if (k != first(tid)) {
                atSecond += by;
            }
            traced += by;
        }
    }

    /** A traced call of the thread whose id is tid began at entry k. */
    private static void begun(int k, long tid) {
        count(k, tid, 1);
    }

    /**
     * The traced call at entry k, of thread t, ended: the entry is given
     * back.
     */
    private static void ended(int k, Thread t) {
        count(k, t.getId(), -1);
        OWNER.lazySet(k, null);
    }

    /**
     * For the entry methods' probes: the index of thread c's entry in a
     * traced call, that index + 1 in an entry call not traced (sampled
     * out), or -1 (in no entry call).
     */
    private static int held(Thread c, long id) {
        int a = first(id);
        if (TABLE[a] == c) {
            return a;
        }
        if (TABLE[a + 1] == c) {
            return a + 1;
        }
        int b = second(id);
        if (TABLE[b] == c) {
            return b;
        }
        return TABLE[b + 1] == c ? b + 1 : -1;
    }

    private static int held() {
        Thread c = Thread.currentThread();
        return held(c, c.getId());
    }

    /**
     * Returns the look-up's answer, which the method keeps in a local of
     * its own and passes to exit: a method returns in the traced call, or
     * outside any, that it was entered in (the call nests in the entry
     * method's frame, whose exit gives the entry back), so exit needs no
     * look-up of its own.
     */
    @ForceInline
    public static int enter(int id) {
        int k = entry();
        if (k >= 0 && writer) {
            put(k, id);
        } else if (k >= 0 || COUNTING) {
            enter0(k, id);
        }
        return k;
    }

    @ForceInline
    public static void exit(int k, int id) {
        if (k >= 0 && writer) {
            putExit(k, id);
        } else if (k >= 0 || COUNTING) {
            exit0(k, id);
        }
    }

    /**
     * Whether the probes of ordinary methods write a traced call's events
     * here, in Java, rather than through enter0 and exit0: the agent sets
     * it once, before the first traced call of the JVM, where that costs
     * less (probe.h, probe_use_writer), and its clock is then the JVM's
     * System.nanoTime. A plain field, read only inside a traced call: a
     * method compiled before it was set may go on calling the natives,
     * which record the same events with the same clock.
     */
    static boolean writer;

    /**
     * For the writer: the state a traced call writes to (probe.h's
     * probe_thread, from its start: depth, max_depth, w, limit, natives) and its
     * ring, as direct buffers, at the entry's number (index / STRIDE); the
     * agent sets both as it starts the call, before the entry's element of
     * TABLE. The last is the calibration's scratch state, for spin.
     */
    static final ByteBuffer[] STATES = new ByteBuffer[ENTRIES + 1];
    static final ByteBuffer[] RINGS = new ByteBuffer[ENTRIES + 1];
    private static final int DEPTH = 0;
    private static final int MAX_DEPTH = 4;
    private static final int W = 8;
    private static final int LIMIT = 16;
    /** probe_thread.natives: a call whose events are stamped is the natives'. */
    private static final int NATIVES = 76;
    /** An event: ticks, then the method's number and the kind (probe.h probe_ev). */
    private static final int EVENT = 16;
    private static final int KIND_ENTER = 0;
    private static final int KIND_EXIT = 1;

    /**
     * What enter0 does, in Java: a frame opens at the state's depth, and
     * is recorded while within the depth asked for; an event that does not
     * fit the call's share of the ring, or one to stamp, is the native's
     * (which marks the overflow). Never inlined, as fail: compiled once,
     * it is a plain call in every method that inlines the probes (its
     * buffer accesses inlined there spent C2's inlining budget of
     * Tomcat's request path: 0.21 of its requests/s traced, against 0.60
     * through the natives).
     */
    @DontInline
    private static void put(int k, int id) {
        ByteBuffer s = STATES[k / STRIDE];
        int d = s.getInt(DEPTH);
        if (d == 0) {
            return;
        }
        if (d < s.getInt(MAX_DEPTH) && !record(s, RINGS[k / STRIDE], id, KIND_ENTER)) {
            enter0(k, id);
            return;
        }
        s.putInt(DEPTH, d + 1);
    }

    /** What exit0 does, in Java. */
    @DontInline
    private static void putExit(int k, int id) {
        ByteBuffer s = STATES[k / STRIDE];
        int d = s.getInt(DEPTH);
        if (d == 0) {
            return;
        }
        if (d <= s.getInt(MAX_DEPTH) && !record(s, RINGS[k / STRIDE], id, KIND_EXIT)) {
            exit0(k, id);
            return;
        }
        s.putInt(DEPTH, d - 1);
    }

    /** Appends an event to ring r of state s; false: the native must. */
    @ForceInline
    private static boolean record(ByteBuffer s, ByteBuffer r, int id, int kind) {
        long w = s.getLong(W);
        if (w >= s.getLong(LIMIT) || s.getInt(NATIVES) != 0) {
            return false;
        }
        int o = (int) (w & (r.capacity() / EVENT - 1)) * EVENT;
        r.putLong(o, System.nanoTime());
        r.putInt(o + 8, id);
        r.putInt(o + 12, kind);
        s.putLong(W, w + 1);
        return true;
    }

    /**
     * Never inlined: it runs in every instrumented method's catch-all,
     * which the JIT compiles into each caller the method is inlined into;
     * a plain call there is the least IR, and an exception costs far more
     * than the call.
     */
    @DontInline
    public static void fail(Throwable t, int id) {
        int k = entry();
        if (k >= 0 || COUNTING) {
            fail0(t, k, id);
        }
    }

    /** How an entry method is entered (probe.c has the same numbers). */
    private static final int ROOT = 0;
    private static final int RECEIVER = 1;
    private static final int OTHER = 2;

    public static void rootEnter(int id) {
        rootEnter(id, ROOT);
    }

    public static void rootEnterOn(Object self, int id) {
        rootEnter(id, named(self) ? RECEIVER : OTHER);
    }

    /**
     * An entry method is entered: inside an entry call it nests (the
     * agent records it in a traced one; in one not sampled it is counted
     * here); else, while a session runs and id is its entry method, a call
     * starts: it takes an entry, is counted as seen, and the sampling
     * decides here whether it is traced (the agent starts it) or not (it
     * marks its entry and stays in Java).
     */
    private static void rootEnter(int id, int how) {
        Thread c = Thread.currentThread();
        long tid = c.getId();
        if (COUNTING) {
            rootNest0(-1, id, how);
            return;
        }
        int k = held(c, tid);
        if (k >= 0) {
            if ((k & (STRIDE - 1)) == 0) {
                rootNest0(k, id, how);
            } else {
                int o = SLOT + (k - 1) * 8 + NEST;
                SLOTS.putInt(o, SLOTS.getInt(o) + 1);
            }
            return;
        }
        long control = SLOTS.getLong(0);
        int s = (int) control;
        if (how == OTHER || s == 0 || !root(s, id)) {
            return;
        }
        int e = claim(c, tid);
        if (e < 0) {
            rootBegin0(c, tid, -1, id, how);
            return;
        }
        int o = SLOT + e * 8;
        SLOTS.putLong(o + SEEN, SLOTS.getLong(o + SEEN) + 1);
        long n = control >>> 32;
        if (n > 1 && !sampled(e, o, s, n)) {
            SLOTS.putInt(o + NEST, 1);
            TABLE[e + 1] = c;
            return;
        }
        if (SLOTS.getInt(o + BEHIND) != 0) {
            SLOTS.putLong(o + DROPPED, SLOTS.getLong(o + DROPPED) + 1);
            OWNER.lazySet(e, null);
            return;
        }
        if (rootBegin0(c, tid, e, id, how)) {
            begun(e, tid);
        } else {
            OWNER.lazySet(e, null);
        }
    }

    /** Whether id is an entry method of session s. */
    private static boolean root(int s, int id) {
        int i = id & (ROOTS.length - 1);
        long key = (long) s << 32 | ((long) id << 1 & 0xFFFFFFFFL);
        long v = ROOTS[i];
        if ((v | 1) == (key | 1)) {
            return (v & 1) != 0;
        }
        boolean yes = rootOf0(s, id);
        ROOTS[i] = key | (yes ? 1 : 0);
        return yes;
    }

    /** One of thread c's two entries, now held; -1 when others hold both. */
    private static int claim(Thread c, long tid) {
        int a = first(tid);
        if (take(a, c)) {
            return a;
        }
        int b = second(tid);
        return take(b, c) ? b : -1;
    }

    /**
     * Whether thread c now holds entry k: it was free, or its holder ended
     * inside a call not traced (its exit probe never ran: nothing else
     * would give the entry back; the agent gives back a traced call's).
     */
    private static boolean take(int k, Thread c) {
        Thread o = OWNER.get(k);
        if (o == null) {
            return OWNER.compareAndSet(k, null, c);
        }
        if (TABLE[k + 1] == o && !o.isAlive() && OWNER.compareAndSet(k, o, c)) {
            TABLE[k + 1] = null;
            return true;
        }
        return false;
    }

    /**
     * Whether the entry call that holds entry e (its slot at o) is traced:
     * one in n per entry, counting down from a phase of the entry's own in
     * each session s, so that threads with few calls are not all traced on
     * their first.
     */
    private static boolean sampled(int e, int o, int s, long n) {
        long left;
        if (SLOTS.getInt(o + COUNTDOWN_SESSION) != s) {
            SLOTS.putInt(o + COUNTDOWN_SESSION, s);
            left = Long.remainderUnsigned((e / STRIDE + 1) * 0x9E3779B97F4A7C15L, n) + 1;
        } else {
            left = SLOTS.getLong(o + COUNTDOWN);
        }
        if (--left > 0) {
            SLOTS.putLong(o + COUNTDOWN, left);
            return false;
        }
        SLOTS.putLong(o + COUNTDOWN, n);
        return true;
    }

    /** Whether self is an instance of a copy of the named class. */
    private static boolean named(Object self) {
        WeakReference<?>[] r = receivers;
        if (r != null) {
            for (WeakReference<?> w : r) {
                Object c = w.get();
                if (c != null && ((Class<?>) c).isInstance(self)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * An entry method returns (t: the exception that ends it, or null):
     * the outermost one of a call gives its entry back.
     */
    private static void rootLeave(Throwable t, int id) {
        int k = COUNTING ? -1 : held();
        if (k < 0 && !COUNTING) {
            return;
        }
        if (COUNTING || (k & (STRIDE - 1)) == 0) {
            if (t == null ? rootExit0(k, id) : rootFail0(t, k, id)) {
                ended(k, Thread.currentThread());
            }
            return;
        }
        int o = SLOT + (k - 1) * 8 + NEST;
        int nest = SLOTS.getInt(o) - 1;
        SLOTS.putInt(o, nest);
        if (nest == 0) {
            TABLE[k] = null;
            OWNER.lazySet(k - 1, null);
        }
    }

    public static void rootExit(int id) {
        rootLeave(null, id);
    }

    public static void rootFail(Throwable t, int id) {
        rootLeave(t, id);
    }

    public static void rootExitOn(int id) {
        rootLeave(null, id);
    }

    public static void rootFailOn(Throwable t, int id) {
        rootLeave(t, id);
    }

    /**
     * The entry method's arguments (--args): right after its entry probe,
     * each argument is passed to the method of its type, in order. Only a
     * traced call goes native, where the start of the call records them
     * (probe.c: nothing else ran in the call yet); everywhere else they
     * cost what an ordinary probe outside a traced call costs. Floats and
     * doubles go as their canonical bits (one NaN), a reference as itself
     * (the native reads it without calling any of its methods).
     */
    private static final int ARG_BOOLEAN = 0;
    private static final int ARG_BYTE = 1;
    private static final int ARG_CHAR = 2;
    private static final int ARG_SHORT = 3;
    private static final int ARG_INT = 4;
    private static final int ARG_LONG = 5;
    private static final int ARG_FLOAT = 6;
    private static final int ARG_DOUBLE = 7;

    /** A primitive argument, of type and bits, of the traced call if any. */
    @ForceInline
    private static void arg(int type, long bits) {
        int k = entry();
        if (k >= 0) {
            arg0(k, type, bits);
        }
    }

    public static void argZ(boolean v) {
        arg(ARG_BOOLEAN, v ? 1 : 0);
    }

    public static void argB(byte v) {
        arg(ARG_BYTE, v);
    }

    public static void argC(char v) {
        arg(ARG_CHAR, v);
    }

    public static void argS(short v) {
        arg(ARG_SHORT, v);
    }

    public static void argI(int v) {
        arg(ARG_INT, v);
    }

    public static void argJ(long v) {
        arg(ARG_LONG, v);
    }

    public static void argF(float v) {
        arg(ARG_FLOAT, Float.floatToIntBits(v));
    }

    public static void argD(double v) {
        arg(ARG_DOUBLE, Double.doubleToLongBits(v));
    }

    public static void argL(Object v) {
        int k = entry();
        if (k >= 0) {
            argRef0(k, v);
        }
    }

    /** A primitive argument of the traced call at entry k: its type and bits. */
    private static native void arg0(int k, int type, long bits);

    /** A reference argument of the traced call at entry k. */
    private static native void argRef0(int k, Object v);

    /**
     * The agent gives back entry k of a thread that ended inside its
     * traced call.
     */
    static void free(int k) {
        ended(k, OWNER.get(k));
    }

    /** The wrapper of task handed off in the traced call at entry k, or task. */
    private static Object handoff(Object task, int k, int id) {
        long token = handoff0(k, id);
        return token == 0 ? task : new Probe(task, token, id);
    }

    public static Runnable wrapRun(Runnable task, int id) {
        int k = entry();
        return k < 0 || task == null ? task : (Runnable) handoff(task, k, id);
    }

    @SuppressWarnings("unchecked")
    public static Callable<Object> wrapCall(Callable<Object> task, int id) {
        int k = entry();
        return k < 0 || task == null ? task : (Callable<Object>) handoff(task, k, id);
    }

    @SuppressWarnings("unchecked")
    public static Supplier<Object> wrapGet(Supplier<Object> task, int id) {
        int k = entry();
        return k < 0 || task == null ? task : (Supplier<Object>) handoff(task, k, id);
    }

    @SuppressWarnings("unchecked")
    public static Function<Object, Object> wrapApply(Function<Object, Object> task, int id) {
        int k = entry();
        return k < 0 || task == null ? task : (Function<Object, Object>) handoff(task, k, id);
    }

    @SuppressWarnings("unchecked")
    public static Consumer<Object> wrapAccept(Consumer<Object> task, int id) {
        int k = entry();
        return k < 0 || task == null ? task : (Consumer<Object>) handoff(task, k, id);
    }

    /** The holder of stream function f made in the traced call at entry k, or null (not followed). */
    private static Probe many(Object f, int k, int id) {
        long token = handoff0(k, id | MANY);
        return token == 0 ? null : new Probe(f, token, id, true);
    }

    /** The wrapper of stream function f made in the traced call at entry k, or f. */
    private static Object stream(Object f, int k, int id) {
        Probe p = many(f, k, id);
        return p == null ? f : p;
    }

    @SuppressWarnings("unchecked")
    public static Function<Object, Object> streamApply(Function<Object, Object> f, int id) {
        int k = entry();
        return k < 0 || f == null ? f : (Function<Object, Object>) stream(f, k, id);
    }

    @SuppressWarnings("unchecked")
    public static Predicate<Object> streamTest(Predicate<Object> f, int id) {
        int k = entry();
        return k < 0 || f == null ? f : (Predicate<Object>) stream(f, k, id);
    }

    @SuppressWarnings("unchecked")
    public static Consumer<Object> streamAccept(Consumer<Object> f, int id) {
        int k = entry();
        return k < 0 || f == null ? f : (Consumer<Object>) stream(f, k, id);
    }

    @SuppressWarnings("unchecked")
    public static ToIntFunction<Object> streamToInt(ToIntFunction<Object> f, int id) {
        int k = entry();
        return k < 0 || f == null ? f : (ToIntFunction<Object>) stream(f, k, id);
    }

    @SuppressWarnings("unchecked")
    public static ToLongFunction<Object> streamToLong(ToLongFunction<Object> f, int id) {
        int k = entry();
        return k < 0 || f == null ? f : (ToLongFunction<Object>) stream(f, k, id);
    }

    @SuppressWarnings("unchecked")
    public static ToDoubleFunction<Object> streamToDouble(ToDoubleFunction<Object> f, int id) {
        int k = entry();
        return k < 0 || f == null ? f : (ToDoubleFunction<Object>) stream(f, k, id);
    }

    /*
     * The other functions of streams: reduce's and sorted's, collect's
     * accumulator, the primitive streams' own. Their interfaces cannot all
     * be this class's (Predicate's and IntPredicate's negate, Function's
     * and BiFunction's andThen clash), so the wrapper is a method
     * reference to one of the instance methods below, on the holder.
     */

    public static BiFunction<Object, Object, Object> streamBiFunction(BiFunction<Object, Object, Object> f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::biApply;
    }

    public static BinaryOperator<Object> streamBinaryOperator(BinaryOperator<Object> f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::binary;
    }

    public static BiConsumer<Object, Object> streamBiConsumer(BiConsumer<Object, Object> f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::biAccept;
    }

    public static Comparator<Object> streamComparator(Comparator<Object> f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::compare;
    }

    public static IntUnaryOperator streamIntUnaryOperator(IntUnaryOperator f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::intUnary;
    }

    public static IntFunction<Object> streamIntFunction(IntFunction<Object> f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::intApply;
    }

    public static IntPredicate streamIntPredicate(IntPredicate f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::intTest;
    }

    public static IntConsumer streamIntConsumer(IntConsumer f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::intAccept;
    }

    public static IntToLongFunction streamIntToLongFunction(IntToLongFunction f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::intToLong;
    }

    public static IntToDoubleFunction streamIntToDoubleFunction(IntToDoubleFunction f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::intToDouble;
    }

    public static IntBinaryOperator streamIntBinaryOperator(IntBinaryOperator f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::intBinary;
    }

    public static ObjIntConsumer<Object> streamObjIntConsumer(ObjIntConsumer<Object> f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::objIntAccept;
    }

    public static LongUnaryOperator streamLongUnaryOperator(LongUnaryOperator f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::longUnary;
    }

    public static LongFunction<Object> streamLongFunction(LongFunction<Object> f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::longApply;
    }

    public static LongPredicate streamLongPredicate(LongPredicate f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::longTest;
    }

    public static LongConsumer streamLongConsumer(LongConsumer f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::longAccept;
    }

    public static LongToIntFunction streamLongToIntFunction(LongToIntFunction f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::longToInt;
    }

    public static LongToDoubleFunction streamLongToDoubleFunction(LongToDoubleFunction f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::longToDouble;
    }

    public static LongBinaryOperator streamLongBinaryOperator(LongBinaryOperator f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::longBinary;
    }

    public static ObjLongConsumer<Object> streamObjLongConsumer(ObjLongConsumer<Object> f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::objLongAccept;
    }

    public static DoubleUnaryOperator streamDoubleUnaryOperator(DoubleUnaryOperator f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::doubleUnary;
    }

    public static DoubleFunction<Object> streamDoubleFunction(DoubleFunction<Object> f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::doubleApply;
    }

    public static DoublePredicate streamDoublePredicate(DoublePredicate f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::doubleTest;
    }

    public static DoubleConsumer streamDoubleConsumer(DoubleConsumer f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::doubleAccept;
    }

    public static DoubleToIntFunction streamDoubleToIntFunction(DoubleToIntFunction f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::doubleToInt;
    }

    public static DoubleToLongFunction streamDoubleToLongFunction(DoubleToLongFunction f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::doubleToLong;
    }

    public static DoubleBinaryOperator streamDoubleBinaryOperator(DoubleBinaryOperator f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::doubleBinary;
    }

    public static ObjDoubleConsumer<Object> streamObjDoubleConsumer(ObjDoubleConsumer<Object> f, int id) {
        int k = entry();
        Probe p = k < 0 || f == null ? null : many(f, k, id);
        return p == null ? f : p::objDoubleAccept;
    }

    /** A hand-off site returned (its task was not refused). */
    public static void handed(int id) {
        int k = entry();
        if (k >= 0) {
            handed0(k);
        }
    }

    /**
     * A hand-off site returned the future of its task: the agent keeps it
     * (weakly) to tell, when the task never came, whether the future was
     * done without it (cancelled).
     */
    public static void handedFuture(Object future, int id) {
        int k = entry();
        if (k >= 0) {
            handedFuture0(k, future);
        }
    }

    /**
     * The task starts on this thread: traced as a call of its own when the
     * thread is in no entry call (the entry it holds, or -1), else said to
     * run inside the current call.
     */
    private int begin() {
        Thread c = Thread.currentThread();
        long tid = c.getId();
        int k = held(c, tid);
        if (k >= 0) {
            if (!many && (k & (STRIDE - 1)) == 0) {
                inline0(k, token);
            }
            return -1;
        }
        int e = claim(c, tid);
        if (e < 0) {
            return -1;
        }
        if (!taskBegin0(c, e, token, many ? id | MANY : id)) {
            OWNER.lazySet(e, null);
            return -1;
        }
        begun(e, tid);
        return e;
    }

    /** The task traced at entry e (-1: none) ended (t: what it threw, or null). */
    private void end(int e, Throwable t) {
        if (e >= 0 && taskEnd0(t, e, id)) {
            ended(e, Thread.currentThread());
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public Object call() throws Exception {
        int e = begin();
        Object r;
        try {
            r = ((Callable<Object>) task).call();
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    @Override
    public void run() {
        int e = begin();
        try {
            ((Runnable) task).run();
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
    }

    @Override
    @SuppressWarnings("unchecked")
    public Object get() {
        int e = begin();
        Object r;
        try {
            r = ((Supplier<Object>) task).get();
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Object apply(Object v) {
        int e = begin();
        Object r;
        try {
            r = ((Function<Object, Object>) task).apply(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void accept(Object v) {
        int e = begin();
        try {
            ((Consumer<Object>) task).accept(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
    }

    @Override
    @SuppressWarnings("unchecked")
    public boolean test(Object v) {
        int e = begin();
        boolean r;
        try {
            r = ((Predicate<Object>) task).test(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    @Override
    @SuppressWarnings("unchecked")
    public int applyAsInt(Object v) {
        int e = begin();
        int r;
        try {
            r = ((ToIntFunction<Object>) task).applyAsInt(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    @Override
    @SuppressWarnings("unchecked")
    public long applyAsLong(Object v) {
        int e = begin();
        long r;
        try {
            r = ((ToLongFunction<Object>) task).applyAsLong(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    @Override
    @SuppressWarnings("unchecked")
    public double applyAsDouble(Object v) {
        int e = begin();
        double r;
        try {
            r = ((ToDoubleFunction<Object>) task).applyAsDouble(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    @SuppressWarnings("unchecked")
    private Object biApply(Object v, Object w) {
        int e = begin();
        Object r;
        try {
            r = ((BiFunction<Object, Object, Object>) task).apply(v, w);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    @SuppressWarnings("unchecked")
    private Object binary(Object v, Object w) {
        int e = begin();
        Object r;
        try {
            r = ((BinaryOperator<Object>) task).apply(v, w);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    @SuppressWarnings("unchecked")
    private void biAccept(Object v, Object w) {
        int e = begin();
        try {
            ((BiConsumer<Object, Object>) task).accept(v, w);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
    }

    @SuppressWarnings("unchecked")
    private int compare(Object v, Object w) {
        int e = begin();
        int r;
        try {
            r = ((Comparator<Object>) task).compare(v, w);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    private int intUnary(int v) {
        int e = begin();
        int r;
        try {
            r = ((IntUnaryOperator) task).applyAsInt(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    @SuppressWarnings("unchecked")
    private Object intApply(int v) {
        int e = begin();
        Object r;
        try {
            r = ((IntFunction<Object>) task).apply(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    private boolean intTest(int v) {
        int e = begin();
        boolean r;
        try {
            r = ((IntPredicate) task).test(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    private void intAccept(int v) {
        int e = begin();
        try {
            ((IntConsumer) task).accept(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
    }

    private long intToLong(int v) {
        int e = begin();
        long r;
        try {
            r = ((IntToLongFunction) task).applyAsLong(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    private double intToDouble(int v) {
        int e = begin();
        double r;
        try {
            r = ((IntToDoubleFunction) task).applyAsDouble(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    private int intBinary(int v, int w) {
        int e = begin();
        int r;
        try {
            r = ((IntBinaryOperator) task).applyAsInt(v, w);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    @SuppressWarnings("unchecked")
    private void objIntAccept(Object v, int w) {
        int e = begin();
        try {
            ((ObjIntConsumer<Object>) task).accept(v, w);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
    }

    private long longUnary(long v) {
        int e = begin();
        long r;
        try {
            r = ((LongUnaryOperator) task).applyAsLong(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    @SuppressWarnings("unchecked")
    private Object longApply(long v) {
        int e = begin();
        Object r;
        try {
            r = ((LongFunction<Object>) task).apply(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    private boolean longTest(long v) {
        int e = begin();
        boolean r;
        try {
            r = ((LongPredicate) task).test(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    private void longAccept(long v) {
        int e = begin();
        try {
            ((LongConsumer) task).accept(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
    }

    private int longToInt(long v) {
        int e = begin();
        int r;
        try {
            r = ((LongToIntFunction) task).applyAsInt(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    private double longToDouble(long v) {
        int e = begin();
        double r;
        try {
            r = ((LongToDoubleFunction) task).applyAsDouble(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    private long longBinary(long v, long w) {
        int e = begin();
        long r;
        try {
            r = ((LongBinaryOperator) task).applyAsLong(v, w);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    @SuppressWarnings("unchecked")
    private void objLongAccept(Object v, long w) {
        int e = begin();
        try {
            ((ObjLongConsumer<Object>) task).accept(v, w);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
    }

    private double doubleUnary(double v) {
        int e = begin();
        double r;
        try {
            r = ((DoubleUnaryOperator) task).applyAsDouble(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    @SuppressWarnings("unchecked")
    private Object doubleApply(double v) {
        int e = begin();
        Object r;
        try {
            r = ((DoubleFunction<Object>) task).apply(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    private boolean doubleTest(double v) {
        int e = begin();
        boolean r;
        try {
            r = ((DoublePredicate) task).test(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    private void doubleAccept(double v) {
        int e = begin();
        try {
            ((DoubleConsumer) task).accept(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
    }

    private int doubleToInt(double v) {
        int e = begin();
        int r;
        try {
            r = ((DoubleToIntFunction) task).applyAsInt(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    private long doubleToLong(double v) {
        int e = begin();
        long r;
        try {
            r = ((DoubleToLongFunction) task).applyAsLong(v);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    private double doubleBinary(double v, double w) {
        int e = begin();
        double r;
        try {
            r = ((DoubleBinaryOperator) task).applyAsDouble(v, w);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
        return r;
    }

    @SuppressWarnings("unchecked")
    private void objDoubleAccept(Object v, double w) {
        int e = begin();
        try {
            ((ObjDoubleConsumer<Object>) task).accept(v, w);
        } catch (Throwable t) {
            end(e, t);
            throw t;
        }
        end(e, null);
    }

    private static native boolean counting0();

    /**
     * Records a hand-off in the traced call at entry k; its token, or 0
     * when it is not followed (no depth left, the ring full).
     */
    private static native long handoff0(int k, int id);

    /** The last hand-off site of the traced call at entry k returned. */
    private static native void handed0(int k);

    /** Likewise, returning the task's future. */
    private static native void handedFuture0(int k, Object future);

    /** The task of token runs inside the traced call at entry k. */
    private static native void inline0(int k, long token);

    /**
     * Starts tracing the task of token (id: its method, | MANY for a
     * stream's function) on thread c, which holds entry e; false when it
     * does not start.
     */
    private static native boolean taskBegin0(Thread c, int e, long token, int id);

    /** The task traced at entry k ends: true when that ends its call (always, but after a bug). */
    private static native boolean taskEnd0(Throwable t, int k, int id);

    private static native ByteBuffer slots0();

    private static native boolean rootOf0(int session, int id);

    /**
     * Starts a traced call of thread c (tid: c.getId()) that holds entry e
     * (-1: none was free); false when it did not start (counted).
     */
    private static native boolean rootBegin0(Thread c, long tid, int e, int id, int how);

    /** An entry method nests in the traced call at entry k. */
    private static native void rootNest0(int k, int id, int how);

    /** An entry method returns in the traced call at k: true when that ends the call. */
    private static native boolean rootExit0(int k, int id);

    private static native boolean rootFail0(Throwable t, int k, int id);

    private static native void enter0(int entry, int id);

    private static native void exit0(int entry, int id);

    private static native void fail0(Throwable t, int entry, int id);

    /**
     * Calls the enter native n times (n even), as the probes of n / 2
     * methods in a traced call do: an entry finds the entry first (traced
     * is never MIN_VALUE: it reads the count and goes on to look), the
     * exit uses what the entry found. The agent times what a probe call
     * costs (its thread holds no entry and never traces, so the native
     * returns at once).
     */
    static void spin(int n) {
        for (int i = 0; i < n; i += 2) {
            int k = traced == Integer.MIN_VALUE ? -1 : find();
            enter0(k, -1);
            enter0(k, -1);
        }
    }

    /**
     * The same for the writer: n / 2 methods' two probes, each found by
     * one look-up, written into the calibration's scratch state (its depth
     * held at 1 by the pairs), which records every event.
     */
    static void spinWriter(int n) {
        for (int i = 0; i < n; i += 2) {
            int k = traced == Integer.MIN_VALUE ? -1 : find();
            k = k < 0 ? ENTRIES * STRIDE : k;
            put(k, -1);
            putExit(k, -1);
        }
    }
}
