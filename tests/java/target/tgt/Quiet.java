package tgt;

import java.util.concurrent.locks.LockSupport;
import java.util.function.IntUnaryOperator;

/**
 * The target of plan_quiet.sh: a class whose methods the JIT compiled.
 * "tgt.Quiet park" calls work() until it is compiled, prints READY and
 * parks every thread, so that the JIT falls quiet. "tgt.Quiet loop" runs a
 * loop inside spin() that never returns and prints "RATE n", the
 * iterations of the last half second, twice a second.
 */
public final class Quiet {
    private Quiet() {
    }

    static volatile long sink;
    static volatile long iterations;

    /** The planned entry method: a call, a lambda, a loop. */
    static long work(int n) {
        IntUnaryOperator sq = x -> x * x + 1;
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += step(sq.applyAsInt(i));
        }
        return s;
    }

    static long step(int x) {
        return x ^ (x >>> 3);
    }

    /** Never returns: its frame is the one a retransformation would leave interpreted. */
    static void spin() {
        long n = 0;
        while (true) {
            n += work(16);
            iterations++;
        }
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "park";
        if (mode.equals("loop")) {
            Thread t = new Thread(Quiet::spin, "spin");
            t.setDaemon(true);
            t.start();
            System.out.println("READY");
            long last = 0;
            while (true) {
                Thread.sleep(500);
                long now = iterations;
                System.out.println("RATE " + (now - last));
                last = now;
            }
        }
        for (int i = 0; i < 200_000; i++) {
            sink += work(16);
        }
        System.out.println("READY");
        while (true) {
            LockSupport.park();
        }
    }
}
