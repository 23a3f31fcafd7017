package com.shop;

/** What a cart takes off its sum; two implementations. */
public interface Discount {
    long apply(long cents);

    /** No discount. */
    final class None implements Discount {
        @Override
        public long apply(long cents) {
            return cents;
        }
    }

    /** A percentage off. */
    final class Percent implements Discount {
        private final int percent;

        public Percent(int percent) {
            this.percent = percent;
        }

        @Override
        public long apply(long cents) {
            return cents - Price.of(cents * percent / 100, 1);
        }
    }
}
