package tgt;

/**
 * A hot entry method: run(n) called back to back, without a pause, on
 * several threads at once (hot-1, hot-2, ...). Each call makes n calls of
 * step, each of which calls leaf: small n gives many short calls a second,
 * large n (millions) gives calls with more events than a thread's buffer
 * holds.
 */
public final class Hot {
    private Hot() {
    }

    static void start(int threads, int n) {
        for (int i = 1; i <= threads; i++) {
            Thread t = new Thread(() -> loop(n), "hot-" + i);
            t.setDaemon(true);
            t.start();
        }
    }

    private static void loop(int n) {
        while (true) {
            Main.sink += run(n);
        }
    }

    public static long run(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += step(i);
        }
        return s;
    }

    static long step(int i) {
        return leaf(i) + 1;
    }

    static long leaf(int i) {
        return i & 3;
    }
}
