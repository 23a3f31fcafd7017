package com.shop;

/** Price arithmetic, in cents. */
public final class Price {
    private static final long TAX_PERCENT = 8;

    private Price() {
    }

    public static long of(long unitCents, int quantity) {
        return round(unitCents * quantity);
    }

    public static long tax(long cents) {
        return round(cents * TAX_PERCENT / 100);
    }

    private static long round(long cents) {
        return (cents + 2) / 5 * 5;
    }
}
