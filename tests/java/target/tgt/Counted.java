package tgt;

/**
 * Entry methods called an exact number of times (scenario counted): run,
 * and nest, whose every call makes one nested call of itself.
 */
public final class Counted {
    private Counted() {
    }

    static long run() {
        return step() + step();
    }

    static long nest(int n) {
        return n > 0 ? nest(n - 1) + 1 : step();
    }

    static long step() {
        return 7;
    }
}
