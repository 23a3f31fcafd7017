package mcalltree.agent;

import java.lang.ref.WeakReference;

/**
 * The probes that instrumented code calls. The agent defines this class in
 * the boot loader (from bytes compiled at build time) and binds its natives.
 *
 * A thread inside a traced call holds an entry of TABLE: the element at
 * its index (a multiple of STRIDE, so that each entry has a cache line of
 * its own) is the thread. With sampling, a thread inside an entry call
 * that is not traced holds one too, marked: the thread is the element
 * after it, which only the entry methods' own probes look at (their
 * nested calls are part of that call, not calls of their own); the other
 * probes of such a call stay in Java. A thread's entry is one of two, both found from
 * its id: the low bits of the id, or a multiplicative hash of it (ids are
 * handed out in sequence, so live threads rarely share the first, and two
 * threads that do rarely share the second too). Each entry is written only
 * by its owner (from the natives, when its call starts and ends), so a
 * thread always sees its own entry; other threads may see stale values,
 * never their own thread. The natives find the call's state through the
 * entry, so a virtual thread that moves to another carrier thread mid-call
 * keeps its state. A thread whose two entries are both held by others when
 * its call starts is not traced (counted).
 *
 * Entry methods call rootEnter, which always goes native: a traced call
 * starts there; their exits go native inside an entry call, traced or
 * not. Every other probe goes native only for a thread inside a traced
 * call: outside one, it costs Thread.currentThread(), its id and
 * two loads and compares, which the JIT inlines into the caller (TABLE is
 * final: its reference and length are constants).
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
 */
public final class Probe {
    private Probe() {
    }

    /** Entries (a power of 2) and the elements between two of them. */
    static final int ENTRIES = 1024;
    static final int STRIDE = 16;
    static final Thread[] TABLE = new Thread[ENTRIES * STRIDE];
    static final boolean COUNTING = counting0();

    /**
     * The named class of the session: each loader's copy (its own Class
     * objects), held weakly so that a loader can still be unloaded; null:
     * none. The agent replaces the array, never changes one.
     */
    static volatile WeakReference<?>[] receivers;

    /** The first entry of a thread whose id is id (its index in TABLE). */
    private static int first(long id) {
        return ((int) id & (ENTRIES - 1)) * STRIDE;
    }

    /** Its second entry. */
    private static int second(long id) {
        return (int) ((id * 0x9E3779B97F4A7C15L) >>> 54) * STRIDE;
    }

    /** The index of the current thread's entry, or -1 (not in a traced call). */
    private static int entry() {
        Thread c = Thread.currentThread();
        long id = c.getId();
        int a = first(id);
        if (TABLE[a] == c) {
            return a;
        }
        int b = second(id);
        return TABLE[b] == c ? b : -1;
    }

    /**
     * For the entry methods' probes: the index of the current thread's
     * entry in a traced call, that index + 1 in an entry call not traced
     * (sampled out), or -1 (in no entry call).
     */
    private static int held() {
        Thread c = Thread.currentThread();
        long id = c.getId();
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

    public static void enter(int id) {
        int k = entry();
        if (k >= 0 || COUNTING) {
            enter0(k, id);
        }
    }

    public static void exit(int id) {
        int k = entry();
        if (k >= 0 || COUNTING) {
            exit0(k, id);
        }
    }

    public static void fail(Throwable t, int id) {
        int k = entry();
        if (k >= 0 || COUNTING) {
            fail0(t, k, id);
        }
    }

    public static void rootEnter(int id) {
        Thread c = Thread.currentThread();
        rootEnter0(c, c.getId(), held(), id);
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

    public static void rootEnterOn(Object self, int id) {
        if (named(self)) {
            Thread c = Thread.currentThread();
            rootEnterOn0(c, c.getId(), held(), id);
            return;
        }
        int k = held();
        if (k >= 0 || COUNTING) {
            rootOther0(k, id);
        }
    }

    public static void rootExit(int id) {
        int k = held();
        if (k >= 0 || COUNTING) {
            rootExit0(k, id);
        }
    }

    public static void rootFail(Throwable t, int id) {
        int k = held();
        if (k >= 0 || COUNTING) {
            rootFail0(t, k, id);
        }
    }

    public static void rootExitOn(int id) {
        int k = held();
        if (k >= 0 || COUNTING) {
            rootExit0(k, id);
        }
    }

    public static void rootFailOn(Throwable t, int id) {
        int k = held();
        if (k >= 0 || COUNTING) {
            rootFail0(t, k, id);
        }
    }

    private static native boolean counting0();

    /**
     * tid: current.getId(), whose entries the native may take; entry: an
     * index of TABLE (held(), entry()), or -1.
     */
    private static native void rootEnter0(Thread current, long tid, int entry, int id);

    private static native void rootEnterOn0(Thread current, long tid, int entry, int id);

    private static native void rootOther0(int entry, int id);

    private static native void rootExit0(int entry, int id);

    private static native void rootFail0(Throwable t, int entry, int id);

    private static native void enter0(int entry, int id);

    private static native void exit0(int entry, int id);

    private static native void fail0(Throwable t, int entry, int id);

    /**
     * Calls the enter native n times, finding the entry first as a probe
     * does: the agent times what a probe call costs (its thread holds no
     * entry and never traces, so the native returns at once).
     */
    static void spin(int n) {
        for (int i = 0; i < n; i++) {
            enter0(entry(), -1);
        }
    }
}
