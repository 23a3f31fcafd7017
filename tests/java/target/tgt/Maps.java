package tgt;

import java.util.HashMap;
import java.util.Map;

/** Calls into java.util.HashMap, whose methods branch: for --include-jdk. */
public final class Maps {
    private Maps() {
    }

    private static final Map<String, Integer> COUNTS = new HashMap<>();

    public static long run() {
        int n = COUNTS.getOrDefault("k", 0);
        COUNTS.put("k", n + 1);
        return n;
    }
}
