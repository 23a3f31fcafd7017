package mctbench;

/**
 * The natives of tests/bench/libmctbench.so, shaped like mcalltree's probes
 * (static, an int argument, no result): what the floor of a probe costs when
 * called from JIT-compiled code on this machine.
 */
final class Native {
    private Native() {
    }

    /** Does nothing: one JNI call. */
    static native void empty(int id);

    /** Reads the TSC (rdtsc) into a global: one JNI call and one clock read. */
    static native void tsc(int id);

    /** Reads CLOCK_MONOTONIC into a global: the clock where there is no invariant TSC. */
    static native void mono(int id);

    /** Reads the thread's CPU clock into a global: what a probe adds with --cpu. */
    static native void tcpu(int id);
}
