package tgt;

/** Many calls in one call of the entry method: more probe events than a thread's first buffer holds. */
public final class Many {
    private Many() {
    }

    public static long run(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += leaf(i);
        }
        return s;
    }

    static long leaf(int i) {
        return i & 1;
    }
}
