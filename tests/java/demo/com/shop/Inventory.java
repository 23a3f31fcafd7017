package com.shop;

import java.util.HashMap;
import java.util.Map;

/** Stock per product; reserving more than there is throws. */
public final class Inventory {
    /** Thrown when a product runs out. */
    public static final class OutOfStockException extends Exception {
        private static final long serialVersionUID = 1L;

        OutOfStockException(String product) {
            super(product + " is out of stock");
        }
    }

    private final Map<String, Integer> stock = new HashMap<>();
    private final int initial;

    public Inventory(String[] products, int initial) {
        this.initial = initial;
        for (String p : products) {
            stock.put(p, initial);
        }
    }

    public synchronized void reserve(String product, int quantity) throws OutOfStockException {
        int left = stock.getOrDefault(product, 0);
        if (left < quantity) {
            throw new OutOfStockException(product);
        }
        stock.put(product, left - quantity);
    }

    public synchronized void restock() {
        stock.replaceAll((product, left) -> initial);
    }
}
