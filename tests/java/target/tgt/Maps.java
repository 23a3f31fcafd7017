package tgt;

import java.util.HashMap;
import java.util.Map;

/**
 * Calls into java.util.HashMap, whose methods branch: for --include-jdk; and
 * branches itself, for a JVM that does not verify application classes.
 */
public final class Maps {
    private Maps() {
    }

    private static final Map<String, Integer> COUNTS = new HashMap<>();

    public static long run() {
        int n = COUNTS.getOrDefault("k", 0);
        COUNTS.put("k", n < 1_000_000 ? n + 1 : 0);
        return n;
    }
}
