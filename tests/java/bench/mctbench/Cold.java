package mctbench;

/**
 * Loaded when the workload starts and never called: scripts/bench traces
 * Cold.run to see what instrumenting a class costs the rest of the JVM's
 * compiled code, attached late vs with the agent loaded at the start.
 */
final class Cold {
    private Cold() {
    }

    static long run(long x) {
        return x + 1;
    }

    /** Loads and initialises the class. */
    static void load() {
    }
}
