package tgt;

import java.util.List;

/**
 * An exception thrown by a lambda's callee through JDK frames that are not
 * instrumented (List.forEach), caught above them (run) or not (sum).
 */
public final class Through {
    private Through() {
    }

    private static final List<Integer> ITEMS = List.of(1, 2, 3);

    public static long run() {
        try {
            return sum();
        } catch (IllegalArgumentException e) {
            return -1;
        }
    }

    static long sum() {
        long[] s = {0};
        ITEMS.forEach(x -> s[0] += check(x));
        return s[0];
    }

    static long check(int x) {
        if (x == 3) {
            throw new IllegalArgumentException("three");
        }
        return x;
    }
}
