package tgt;

/** Recursion below the entry method, and of an entry method itself. */
public final class Rec {
    private Rec() {
    }

    public static long run() {
        return fact(5);
    }

    public static long fact(int n) {
        return n <= 1 ? 1 : n * fact(n - 1);
    }
}
