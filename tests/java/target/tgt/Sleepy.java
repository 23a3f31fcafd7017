package tgt;

/** A callee that sleeps 50 ms, and a quick one. */
public final class Sleepy {
    private Sleepy() {
    }

    public static long run() {
        nap();
        return quick();
    }

    static void nap() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static long quick() {
        return 42;
    }
}
