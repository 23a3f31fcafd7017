package mcalltree.agent;

/**
 * The probes that instrumented code calls. The agent defines this class in
 * the boot loader (from bytes compiled at build time) and binds its natives.
 *
 * Entry methods call rootEnter/rootExit/rootFail, which always go native: a
 * traced call starts there. Every other instrumented method calls
 * enter/exit/fail, which go native only for a thread inside a traced call:
 * outside one, a probe costs Thread.currentThread() and a few compares,
 * which the JIT inlines into the caller.
 *
 * Each slot holds a thread inside a traced call and is written only by that
 * thread (from rootEnter0 and when its call ends), so a thread always sees
 * its own slot; other threads may see stale values, never their own thread.
 * When more threads trace than there are slots, "all" sends every probe
 * native (the natives then check the thread themselves).
 */
public final class Probe {
    private Probe() {
    }

    static Thread t0, t1, t2, t3;
    static boolean all;

    private static boolean tracing() {
        Thread c = Thread.currentThread();
        return c == t0 || c == t1 || c == t2 || c == t3 || all;
    }

    public static void enter(int id) {
        if (tracing()) {
            enter0(id);
        }
    }

    public static void exit(int id) {
        if (tracing()) {
            exit0(id);
        }
    }

    public static void fail(Throwable t, int id) {
        if (tracing()) {
            fail0(t, id);
        }
    }

    public static void rootEnter(int id) {
        rootEnter0(Thread.currentThread(), id);
    }

    public static native void rootExit(int id);

    public static native void rootFail(Throwable t, int id);

    private static native void rootEnter0(Thread current, int id);

    private static native void enter0(int id);

    private static native void exit0(int id);

    private static native void fail0(Throwable t, int id);

    /** Calls the enter native n times: the agent times what a probe's native call costs. */
    static void spin(int n) {
        for (int i = 0; i < n; i++) {
            enter0(-1);
        }
    }
}
