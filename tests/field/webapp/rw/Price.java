package rw;

/** A price with tax, in cents. */
public final class Price {
    private Price() {
    }

    public static long of(long cents) {
        return cents * 119 / 100;
    }
}
