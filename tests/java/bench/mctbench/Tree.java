package mctbench;

/**
 * The traced call tree of scripts/bench: entry() makes 50 calls of tiny
 * static methods on four levels, 51 instrumented calls with itself:
 *
 *   entry            1
 *     mid            5   (a loop)
 *       leafA/B/C   15
 *         tinyP/Q/R 30
 *
 * Trace it with: mcalltree PID mctbench.Tree entry 4 'mctbench\.Tree'.
 * Every result feeds the next call, so the JIT can neither drop nor
 * overlap the calls; everything inlines once compiled.
 */
public final class Tree {
    /** Instrumented calls per entry() call, itself included. */
    public static final int CALLS = 51;
    /** Instrumented calls per mid() call, itself included. */
    public static final int MID_CALLS = 10;

    private Tree() {
    }

    public static long entry(long x) {
        long r = x;
        for (int i = 0; i < 5; i++) {
            r += mid(r + i);
        }
        return r;
    }

    /**
     * An entry method with arguments, for the --args sessions of
     * scripts/bench: a long, a String, an object and an enum constant,
     * and nothing else to trace (mcalltree PID mctbench.Tree withArgs 1
     * 'mctbench\.Tree').
     */
    public static long withArgs(long x, String s, Object o, Thread.State st) {
        return x + s.length() + st.ordinal() + (o == null ? 0 : 1);
    }

    static long mid(long x) {
        return leafA(x) ^ leafB(x + 1) + leafC(x - 1);
    }

    static long leafA(long x) {
        return tinyP(x) + tinyQ(x >>> 3);
    }

    static long leafB(long x) {
        return tinyP(x) - tinyR(x);
    }

    static long leafC(long x) {
        return tinyQ(x) ^ tinyR(x << 1);
    }

    static long tinyP(long x) {
        return x * 0x9E3779B97F4A7C15L + 7;
    }

    static long tinyQ(long x) {
        return (x ^ (x >>> 29)) * 31;
    }

    static long tinyR(long x) {
        return Long.rotateLeft(x, 13) + 3;
    }
}
