package com.shop;

import java.util.ArrayList;
import java.util.List;

/** A cart of lines with one discount. */
public final class Cart {
    private final List<Line> lines = new ArrayList<>();
    private final Discount discount;

    public Cart(Discount discount) {
        this.discount = discount;
    }

    public void add(Line line) {
        lines.add(line);
    }

    public List<Line> lines() {
        return lines;
    }

    /** The amount to pay, in cents: the lines' subtotals, discounted, with tax. */
    public long total() {
        long sum = lines.stream().mapToLong(Line::subtotal).sum();
        long discounted = discount.apply(sum);
        return discounted + Price.tax(discounted);
    }
}
