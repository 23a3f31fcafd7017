package tgt;

/**
 * Mutual recursion among twelve methods along paths that depend on the
 * data (scenario knot), as in parsers, interpreters and visitors: an entry
 * call walks WALKS paths of DEPTH steps, each step picking the next of
 * m0..m11 from a number that changes at every step and every call, so that
 * nearly every entry call takes call paths no earlier one took. A summary
 * of these calls grows with the calls unless it is bounded.
 */
public final class Knot {
    private Knot() {
    }

    static final int WALKS = 20;
    static final int DEPTH = 24;

    private static long seed = 1;

    public static long run() {
        long s = 0;
        for (int w = 0; w < WALKS; w++) {
            seed = seed * 6364136223846793005L + 1442695040888963407L;
            s += go(seed, DEPTH);
        }
        return s;
    }

    /** The next step of the walk: one of the twelve, picked by x. */
    static long go(long x, int d) {
        if (d == 0) {
            return x;
        }
        long y = x * 2862933555777941757L + 3037000493L;
        switch ((int) ((y >>> 40) % 12)) {
            case 0: return m0(y, d - 1);
            case 1: return m1(y, d - 1);
            case 2: return m2(y, d - 1);
            case 3: return m3(y, d - 1);
            case 4: return m4(y, d - 1);
            case 5: return m5(y, d - 1);
            case 6: return m6(y, d - 1);
            case 7: return m7(y, d - 1);
            case 8: return m8(y, d - 1);
            case 9: return m9(y, d - 1);
            case 10: return m10(y, d - 1);
            default: return m11(y, d - 1);
        }
    }

    static long m0(long x, int d) {
        return go(x + 1, d);
    }

    static long m1(long x, int d) {
        return go(x ^ 0x5bd1e995L, d);
    }

    static long m2(long x, int d) {
        return go(x + 3, d);
    }

    static long m3(long x, int d) {
        return go(x * 3, d);
    }

    static long m4(long x, int d) {
        return go(x - 7, d);
    }

    static long m5(long x, int d) {
        return go(x ^ (x >>> 13), d);
    }

    static long m6(long x, int d) {
        return go(x + 11, d);
    }

    static long m7(long x, int d) {
        return go(Long.rotateLeft(x, 7), d);
    }

    static long m8(long x, int d) {
        return go(x * 5, d);
    }

    static long m9(long x, int d) {
        return go(x + 13, d);
    }

    static long m10(long x, int d) {
        return go(x ^ 0x9e3779b9L, d);
    }

    static long m11(long x, int d) {
        return go(Long.rotateRight(x, 11), d);
    }
}
