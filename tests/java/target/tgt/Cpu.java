package tgt;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * Where a call's time goes (scenario cpu): spin() computes until its
 * thread has used 40 ms of CPU (by the JVM's own clock, so that a loaded
 * machine makes it longer, not less CPU), nap() sleeps 40 ms.
 */
public final class Cpu {
    private Cpu() {
    }

    static volatile long sink;

    public static long run() {
        spin();
        nap();
        return sink;
    }

    static void spin() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long end = mx.getCurrentThreadCpuTime() + 40_000_000L;
        long x = 0;
        while (mx.getCurrentThreadCpuTime() < end) {
            x += x * 31 + 7;
        }
        sink += x;
    }

    static void nap() {
        try {
            Thread.sleep(40);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
