package com.shop;

/** One product in a cart, with its quantity and unit price in cents. */
public final class Line {
    private final String product;
    private final int quantity;
    private final long unitCents;

    public Line(String product, int quantity, long unitCents) {
        this.product = product;
        this.quantity = quantity;
        this.unitCents = unitCents;
    }

    public String product() {
        return product;
    }

    public int quantity() {
        return quantity;
    }

    public long subtotal() {
        return Price.of(unitCents, quantity);
    }
}
