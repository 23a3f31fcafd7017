package com.shop;

import java.util.Random;

/**
 * The demo program: a little shop that checks out a cart every few
 * milliseconds, forever. Cart.total() is the method worth tracing:
 *
 *   mcalltree PID com.shop.Cart total 4 'com\.shop\..*'
 *
 * Prints READY and its pid once the first cart is checked out.
 */
public final class Shop {
    private static final String[] PRODUCTS = {"apple", "bread", "cheese", "dates", "eggs"};

    private final Inventory inventory = new Inventory(PRODUCTS, 1_000);
    private final Random random = new Random(42);
    private long revenue;

    private Cart fillCart() {
        Discount discount = random.nextInt(4) == 0 ? new Discount.Percent(10) : new Discount.None();
        Cart cart = new Cart(discount);
        int lines = 1 + random.nextInt(4);
        for (int i = 0; i < lines; i++) {
            String product = PRODUCTS[random.nextInt(PRODUCTS.length)];
            cart.add(new Line(product, 1 + random.nextInt(3), 50 + random.nextInt(500)));
        }
        return cart;
    }

    /** Reserves the cart's goods and books its total; false when out of stock. */
    boolean checkout(Cart cart) {
        try {
            for (Line line : cart.lines()) {
                inventory.reserve(line.product(), line.quantity());
            }
        } catch (Inventory.OutOfStockException e) {
            inventory.restock();
            return false;
        }
        revenue += cart.total();
        return true;
    }

    public static void main(String[] args) throws InterruptedException {
        Shop shop = new Shop();
        shop.checkout(shop.fillCart());
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        while (true) {
            shop.checkout(shop.fillCart());
            Thread.sleep(5);
        }
    }
}
