package mcalltree.agent;

import java.lang.ref.WeakReference;

/**
 * The probes that instrumented code calls. The agent defines this class in
 * the boot loader (from bytes compiled at build time) and binds its natives.
 *
 * A thread inside a traced call owns a slot: t0..t7 holds it there. Each
 * slot is written only by its owner (from the natives, when its call starts
 * and ends), so a thread always sees its own slot; other threads may see
 * stale values, never their own thread. The natives find the call's state
 * through the slot, so a virtual thread that moves to another carrier
 * thread mid-call keeps its state. When more platform threads trace than
 * there are slots, "all" sends their probes native, where the OS thread's
 * own state is used (slot -1).
 *
 * Entry methods call rootEnter/rootExit/rootFail, which always go native: a
 * traced call starts there. Every other instrumented method calls
 * enter/exit/fail, which go native only for a thread inside a traced call:
 * outside one, a probe costs Thread.currentThread() and a few compares,
 * which the JIT inlines into the caller.
 *
 * An entry method the named class inherits runs for other classes too: it
 * calls rootEnterOn with its receiver, and only a call on an instance of
 * the named class (any loader's copy of it: receivers, set by the agent
 * for the session, which adds the copies that load meanwhile) is an entry
 * call. A call on another class is what a call of an ordinary instrumented
 * method would be: nothing outside a traced call, a node inside one. Its
 * exit probes, rootExitOn and rootFailOn, go native only for a thread
 * inside a traced call, as exit and fail do: a thread in a traced call
 * always sees its slot, or "all", which the agent clears only while no
 * call without a slot runs.
 */
public final class Probe {
    private Probe() {
    }

    static Thread t0, t1, t2, t3, t4, t5, t6, t7;
    static boolean all;
    /**
     * The named class of the session: each loader's copy (its own Class
     * objects), held weakly so that a loader can still be unloaded; null:
     * none. The agent replaces the array, never changes one.
     */
    static volatile WeakReference<?>[] receivers;

    /** The slot of the current thread, or -1. */
    private static int slot() {
        Thread c = Thread.currentThread();
        if (c == t0) {
            return 0;
        }
        if (c == t1) {
            return 1;
        }
        if (c == t2) {
            return 2;
        }
        if (c == t3) {
            return 3;
        }
        if (c == t4) {
            return 4;
        }
        if (c == t5) {
            return 5;
        }
        if (c == t6) {
            return 6;
        }
        return c == t7 ? 7 : -1;
    }

    public static void enter(int id) {
        int k = slot();
        if (k >= 0 || all) {
            enter0(k, id);
        }
    }

    public static void exit(int id) {
        int k = slot();
        if (k >= 0 || all) {
            exit0(k, id);
        }
    }

    public static void fail(Throwable t, int id) {
        int k = slot();
        if (k >= 0 || all) {
            fail0(t, k, id);
        }
    }

    public static void rootEnter(int id) {
        rootEnter0(Thread.currentThread(), slot(), id);
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
            rootEnterOn0(Thread.currentThread(), slot(), id);
            return;
        }
        int k = slot();
        if (k >= 0 || all) {
            rootOther0(k, id);
        }
    }

    public static void rootExit(int id) {
        rootExit0(slot(), id);
    }

    public static void rootFail(Throwable t, int id) {
        rootFail0(t, slot(), id);
    }

    public static void rootExitOn(int id) {
        int k = slot();
        if (k >= 0 || all) {
            rootExit0(k, id);
        }
    }

    public static void rootFailOn(Throwable t, int id) {
        int k = slot();
        if (k >= 0 || all) {
            rootFail0(t, k, id);
        }
    }

    private static native void rootEnter0(Thread current, int slot, int id);

    private static native void rootEnterOn0(Thread current, int slot, int id);

    private static native void rootOther0(int slot, int id);

    private static native void rootExit0(int slot, int id);

    private static native void rootFail0(Throwable t, int slot, int id);

    private static native void enter0(int slot, int id);

    private static native void exit0(int slot, int id);

    private static native void fail0(Throwable t, int slot, int id);

    /**
     * Calls the enter native n times, finding the slot first as a probe
     * does: the agent times what a probe call costs (its thread has no slot
     * and never traces, so the native returns at once).
     */
    static void spin(int n) {
        for (int i = 0; i < n; i++) {
            enter0(slot(), -1);
        }
    }
}
