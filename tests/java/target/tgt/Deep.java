package tgt;

/** Recursion deeper than any depth the user may ask for (64 levels). */
public final class Deep {
    private Deep() {
    }

    public static long run(int n) {
        return down(n);
    }

    static long down(int n) {
        return n <= 0 ? 0 : 1 + down(n - 1);
    }
}
