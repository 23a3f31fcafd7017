package tgt;

import java.util.BitSet;

/**
 * A wrapped program whose traced calls begin with warm-up ones in a trace
 * from the JVM's start: it first runs BitSet.get hot, so that the JIT
 * compiles it, then calls WarmEntry.run N times, which calls it too; traced
 * with --include-jdk, BitSet is retransformed as WarmEntry loads, and the
 * calls until the JIT compiles its new code again are warm-up.
 * Usage: tgt.WarmStart N
 */
public final class WarmStart {
    private WarmStart() {
    }

    static volatile long sink;

    public static void main(String[] args) throws InterruptedException {
        BitSet bits = new BitSet(64);
        bits.set(3);
        for (int i = 0; i < 2_000_000; i++) {
            sink += bits.get(i & 63) ? 1 : 0;
        }
        // The compile queue drained before the entry class loads.
        Thread.sleep(500);
        int n = Integer.parseInt(args[0]);
        for (int i = 0; i < n; i++) {
            sink += WarmEntry.run(bits, i);
        }
    }
}
