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
 *   mode NAME   ->  K mode NAME T_NS       (switch the active workers)
 *   lead NAME   ->  K lead NAME T_NS       (worker 0 runs NAME instead;
 *                                           "lead -" follows mode again)
 *   threads N   ->  K threads N T_NS       (workers 0..N-1 run, the others
 *                                           idle; at most mctbench.threads)
 *   rate R      ->  K rate R T_NS          (calls/s per worker in mode rate)
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
 *   rate      one Tree.entry call every 1/R s (rate R), in batches of 16:
 *             a steady rate of entry calls, as a service sees them
 *   empty     one empty JNI static call (libmctbench.so)
 *   tsc       one JNI static call that reads the TSC
 *   mono      one JNI static call that reads CLOCK_MONOTONIC
 *   tcpu      one JNI static call that reads CLOCK_THREAD_CPUTIME_ID (--cpu's clock)
 *   hpaced    one Handoff.entry call (8 hand-offs), paced as paced
 *   houtside  one Handoff.hand call (8 hand-offs), not under entry, in
 *             batches of 1000
 *   nanotime  one System.nanoTime() (an intrinsic, no JNI)
 *   args      one Tree.withArgs call (a long, a String of 100 characters,
 *             an object, an enum constant), paced as paced is
 *
 * Properties: mctbench.lib (path of libmctbench.so, needed by the JNI
 * modes), mctbench.threads (1: the workers started, all active at first),
 * mctbench.interval_ms (100), mctbench.batch, mctbench.gap_us. Prints
 * "READY pid" when the workers run (in mode idle).
 */
public final class Bench {
    static final String[] MODES = {"idle", "entry", "paced", "outside", "empty", "tsc", "mono", "nanotime", "rate",
        "tcpu", "hpaced", "houtside", "args"};
    static final int IDLE = 0, ENTRY = 1, PACED = 2, OUTSIDE = 3, EMPTY = 4, TSC = 5, MONO = 6, NANOTIME = 7,
            RATE = 8, TCPU = 9, HPACED = 10, HOUTSIDE = 11, ARGS = 12;

    /** withArgs's arguments: a String longer than --args keeps by default, an object. */
    static final String TEXT = "0123456789".repeat(10);
    static final Object BOX = new Object();

    static final long INTERVAL_NS = Long.getLong("mctbench.interval_ms", 100) * 1_000_000L;
    static final int PACED_BATCH = Integer.getInteger("mctbench.batch", 16);
    static final long PACED_GAP_NS = Long.getLong("mctbench.gap_us", 3000) * 1_000L;

    static volatile int mode = IDLE;
    /** Worker 0's own mode, or -1: the others'. */
    static volatile int lead = -1;
    /** Workers 0..active-1 run the mode. */
    static volatile int active;
    /** Gap between two entry calls in mode rate, in ns. */
    static volatile long rateGapNs = 1_000_000;
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

    static long handoffBatch(long x, int n) {
        for (int i = 0; i < n; i++) {
            x += Handoff.entry(x + i);
        }
        return x;
    }

    static long handBatch(long x, int n) {
        for (int i = 0; i < n; i++) {
            x += Handoff.hand(x + i);
        }
        return x;
    }

    static long argsBatch(long x, int n) {
        for (int i = 0; i < n; i++) {
            x += Tree.withArgs(x + i, TEXT, BOX, Thread.State.RUNNABLE);
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

    static void tcpuBatch(int n) {
        for (int i = 0; i < n; i++) {
            Native.tcpu(i);
        }
    }

    static long nanoBatch(long x, int n) {
        for (int i = 0; i < n; i++) {
            x += System.nanoTime();
        }
        return x;
    }

    /** n entry calls, one every gap ns from the time next; returns the
     * time of the call after them. */
    static long rateBatch(long next, long gap, int n) {
        long x = next;
        for (int i = 0; i < n; i++) {
            spinUntil(next);
            x += Tree.entry(x + i);
            next += gap;
        }
        sink += x;
        return next;
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
        long ops = 0, ns = 0, x = start, t0, t1, gap = rateGapNs, next = start;
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
            case HPACED:
                n = PACED_BATCH;
                x = handoffBatch(x, n);
                break;
            case HOUTSIDE:
                n = 1000;
                x = handBatch(x, n);
                break;
            case ARGS:
                n = PACED_BATCH;
                x = argsBatch(x, n);
                break;
            case RATE:
                n = PACED_BATCH;
                next = rateBatch(next, gap, n);
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
            case TCPU:
                n = 10000;
                tcpuBatch(n);
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
            if (m == PACED || m == HPACED || m == ARGS) {
                spinUntil(t1 + PACED_GAP_NS);
                t1 = System.nanoTime();
            }
        } while (t1 < end && modeOf(idx) == m);
        sink += x;
        Arrays.sort(batches, 0, k);
        System.out.println("I " + MODES[m] + " " + t1 + " " + idx + " " + ops + " " + ns + " "
                + batches[k / 2] + " " + n);
    }

    /** The mode worker idx runs now. */
    static int modeOf(int idx) {
        if (idx >= active) {
            return IDLE;
        }
        int l = lead;
        return idx == 0 && l >= 0 ? l : mode;
    }

    static void work(int idx) {
        long[] batches = new long[16384];

        for (;;) {
            int m = modeOf(idx);

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
        active = threads;
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

                if (m < 0 || ((m >= EMPTY && m <= MONO || m == TCPU) && lib == null)) {
                    System.out.println("E unknown or unavailable mode " + w[1]);
                    continue;
                }
                mode = m;
                System.out.println("K mode " + w[1] + " " + System.nanoTime());
            } else if (w[0].equals("lead") && w.length == 2) {
                int m = w[1].equals("-") ? -1 : Arrays.asList(MODES).indexOf(w[1]);

                if (m < 0 && !w[1].equals("-")) {
                    System.out.println("E unknown mode " + w[1]);
                    continue;
                }
                lead = m;
                System.out.println("K lead " + w[1] + " " + System.nanoTime());
            } else if ((w[0].equals("threads") || w[0].equals("rate")) && w.length == 2) {
                long v;
                try {
                    v = Long.parseLong(w[1]);
                } catch (NumberFormatException e) {
                    v = 0;
                }
                if (v < 1 || (w[0].equals("threads") && v > threads) || v > 1_000_000_000L) {
                    System.out.println("E " + w[0] + " out of range: " + w[1]);
                    continue;
                }
                if (w[0].equals("threads")) {
                    active = (int) v;
                } else {
                    rateGapNs = 1_000_000_000L / v;
                }
                System.out.println("K " + w[0] + " " + v + " " + System.nanoTime());
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
