package mctbench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The workload of scripts/bench. Worker threads run the current mode in
 * intervals (100 ms) of timed batches and print, after each interval,
 *
 *   I MODE T_END_NS THREAD OPS NS MEDIAN_BATCH_NS BATCH_OPS
 *
 * where NS is the time spent in OPS operations of the mode (their mean:
 * throughput) and MEDIAN_BATCH_NS the median time of a batch of BATCH_OPS
 * operations (robust to a batch that was preempted or interrupted).
 * Timestamps are System.nanoTime, i.e. CLOCK_MONOTONIC on Linux. The script switches modes
 * on stdin; each command is acknowledged with a timestamp:
 *
 *   mode NAME   ->  K mode NAME T_NS       (switch all workers)
 *   mark TEXT   ->  K mark TEXT T_NS
 *   quit                                   (or end of input: exit)
 *
 * Modes (an operation is):
 *   idle      nothing (sleeps, prints nothing)
 *   entry     one Tree.entry call, back to back, timed in batches of 1000
 *   paced     one Tree.entry call, timed in batches of mctbench.batch (16)
 *             with mctbench.gap_us (3000) of untimed spinning between
 *             batches, so that a tracer's worker can take every call
 *   outside   one Tree.mid call, not under entry, timed in batches of 1000
 *   empty     one empty JNI static call (libmctbench.so)
 *   tsc       one JNI static call that reads the TSC
 *   mono      one JNI static call that reads CLOCK_MONOTONIC
 *   nanotime  one System.nanoTime() (an intrinsic, no JNI)
 *
 * Properties: mctbench.lib (path of libmctbench.so, needed by the JNI
 * modes), mctbench.threads (1), mctbench.interval_ms (100), mctbench.batch,
 * mctbench.gap_us. Prints "READY pid" when the workers run (in mode idle).
 */
public final class Bench {
    static final String[] MODES = {"idle", "entry", "paced", "outside", "empty", "tsc", "mono", "nanotime"};
    static final int IDLE = 0, ENTRY = 1, PACED = 2, OUTSIDE = 3, EMPTY = 4, TSC = 5, MONO = 6, NANOTIME = 7;

    static final long INTERVAL_NS = Long.getLong("mctbench.interval_ms", 100) * 1_000_000L;
    static final int PACED_BATCH = Integer.getInteger("mctbench.batch", 16);
    static final long PACED_GAP_NS = Long.getLong("mctbench.gap_us", 3000) * 1_000L;

    static volatile int mode = IDLE;
    /** Where results go so that the JIT cannot drop the work. */
    static long sink;

    private Bench() {
    }

    // One method per mode, each with its own loop, so that each is compiled
    // on its own. Each returns its running value; the caller times it.

    static long entryBatch(long x, int n) {
        for (int i = 0; i < n; i++) {
            x += Tree.entry(x + i);
        }
        return x;
    }

    static long midBatch(long x, int n) {
        for (int i = 0; i < n; i++) {
            x += Tree.mid(x + i);
        }
        return x;
    }

    static void emptyBatch(int n) {
        for (int i = 0; i < n; i++) {
            Native.empty(i);
        }
    }

    static void tscBatch(int n) {
        for (int i = 0; i < n; i++) {
            Native.tsc(i);
        }
    }

    static void monoBatch(int n) {
        for (int i = 0; i < n; i++) {
            Native.mono(i);
        }
    }

    static long nanoBatch(long x, int n) {
        for (int i = 0; i < n; i++) {
            x += System.nanoTime();
        }
        return x;
    }

    /** Spins (untimed) until the time t. */
    static void spinUntil(long t) {
        while (System.nanoTime() < t) {
            Thread.onSpinWait();
        }
    }

    /** One interval of mode m for thread idx; prints its line. batches
     * holds the batch times. */
    static void interval(int m, int idx, long[] batches) {
        long start = System.nanoTime(), end = start + INTERVAL_NS;
        long ops = 0, ns = 0, x = start, t0, t1;
        int n, k = 0;

        do {
            t0 = System.nanoTime();
            switch (m) {
            case ENTRY:
                n = 1000;
                x = entryBatch(x, n);
                break;
            case PACED:
                n = PACED_BATCH;
                x = entryBatch(x, n);
                break;
            case OUTSIDE:
                n = 1000;
                x = midBatch(x, n);
                break;
            case EMPTY:
                n = 10000;
                emptyBatch(n);
                break;
            case TSC:
                n = 10000;
                tscBatch(n);
                break;
            case MONO:
                n = 10000;
                monoBatch(n);
                break;
            default:
                n = 10000;
                x = nanoBatch(x, n);
                break;
            }
            t1 = System.nanoTime();
            ns += t1 - t0;
            ops += n;
            if (k < batches.length) {
                batches[k++] = t1 - t0;
            }
            if (m == PACED) {
                spinUntil(t1 + PACED_GAP_NS);
                t1 = System.nanoTime();
            }
        } while (t1 < end && mode == m);
        sink += x;
        Arrays.sort(batches, 0, k);
        System.out.println("I " + MODES[m] + " " + t1 + " " + idx + " " + ops + " " + ns + " "
                + batches[k / 2] + " " + n);
    }

    static void work(int idx) {
        long[] batches = new long[16384];

        for (;;) {
            int m = mode;

            if (m == IDLE) {
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
            } else {
                interval(m, idx, batches);
            }
        }
    }

    public static void main(String[] args) throws IOException {
        String lib = System.getProperty("mctbench.lib");
        int threads = Integer.getInteger("mctbench.threads", 1);

        if (lib != null) {
            System.load(lib);
        }
        Cold.load();
        for (int i = 0; i < threads; i++) {
            final int idx = i;
            Thread t = new Thread(() -> work(idx), "bench-" + i);

            t.setDaemon(true);
            t.start();
        }
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] w = line.trim().split("\\s+", 2);

            if (w[0].equals("mode") && w.length == 2) {
                int m = Arrays.asList(MODES).indexOf(w[1]);

                if (m < 0 || (m >= EMPTY && m <= MONO && lib == null)) {
                    System.out.println("E unknown or unavailable mode " + w[1]);
                    continue;
                }
                mode = m;
                System.out.println("K mode " + w[1] + " " + System.nanoTime());
            } else if (w[0].equals("mark")) {
                System.out.println("K mark " + (w.length == 2 ? w[1] : "") + " " + System.nanoTime());
            } else if (w[0].equals("quit")) {
                break;
            } else if (!w[0].isEmpty()) {
                System.out.println("E unknown command " + line);
            }
        }
        System.out.flush();
        System.exit(0);
    }
}
