package tgt;

/**
 * Counts known exactly, for --aggregate (scenario agg): entry call i calls
 * part 3 times, branch when i is even, extra (i % 3) + 1 times, check once
 * (it throws, caught here, when i % 7 == 0) and nap once (a 2 ms sleep).
 * Over any 42 consecutive entry calls (42 = 2 * 3 * 7): part 126 calls,
 * branch 21 (in 21 entry calls), extra 84 (1 to 3 per entry call), check 42
 * with 6 throws, nap 42.
 */
public final class Agg {
    private Agg() {
    }

    private static int next;

    public static long run() {
        int i = next++;
        long s = 0;
        for (int k = 0; k < 3; k++) {
            s += part(k);
        }
        if (i % 2 == 0) {
            s += branch(i);
        }
        for (int k = 0; k <= i % 3; k++) {
            s += extra(k);
        }
        try {
            s += check(i);
        } catch (IllegalStateException e) {
            s--;
        }
        nap();
        return s;
    }

    static long part(int k) {
        return k * 7L;
    }

    static long branch(int i) {
        return i;
    }

    static long extra(int k) {
        return k + 1;
    }

    static long check(int i) {
        if (i % 7 == 0) {
            throw new IllegalStateException("every 7th call");
        }
        return 1;
    }

    static void nap() {
        try {
            Thread.sleep(2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
