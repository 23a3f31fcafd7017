package rw.calc;

/** Tax and rounding. */
public final class Price {
    private Price() {
    }

    static long tax(long v) {
        return round(v * 119 / 100);
    }

    static long round(long v) {
        return (v + 5) / 10 * 10;
    }
}
