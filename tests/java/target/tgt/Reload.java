package tgt;

import java.util.Arrays;
import java.util.function.LongUnaryOperator;

/**
 * A plugin host reloading all the time: on each of several threads, a new
 * class loader's copy of plug.Impl (Loaders.load) for every call of run,
 * one after the other. While keep is set, a thread also keeps the copies
 * it loads (up to KEEP) and run calls each of them again: a copy loaded as
 * a session ends is still called when the next session runs.
 */
public final class Reload {
    private Reload() {
    }

    static final int KEEP = 400;
    static volatile boolean keep;

    public static long run(LongUnaryOperator fresh, LongUnaryOperator[] kept, int n) {
        long s = fresh.applyAsLong(1);
        for (int i = 0; i < n; i++) {
            s += kept[i].applyAsLong(2);
        }
        return s;
    }

    /** Starts the threads (daemons). */
    static void start(int threads) {
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(Reload::loop, "reload-" + t);
            th.setDaemon(true);
            th.start();
        }
    }

    private static void loop() {
        LongUnaryOperator[] kept = new LongUnaryOperator[KEEP];
        int n = 0;
        for (;;) {
            LongUnaryOperator fresh = Loaders.load();
            if (!keep) {
                Arrays.fill(kept, 0, n, null);
                n = 0;
            } else if (n < KEEP) {
                kept[n++] = fresh;
            }
            Main.sink += run(fresh, kept, n);
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
