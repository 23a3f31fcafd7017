package tgt.other;

/** A callee in another package, for regex tests. */
public final class Util {
    private Util() {
    }

    public static long twice(long x) {
        return 2 * x;
    }
}
