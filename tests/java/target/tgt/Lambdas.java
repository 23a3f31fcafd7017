package tgt;

import java.util.stream.IntStream;

/** Lambdas and method references inside a stream, under the method that made them. */
public final class Lambdas {
    private Lambdas() {
    }

    public static long run() {
        return IntStream.range(0, 5).map(Lambdas::twice).filter(x -> isSmall(x)).sum();
    }

    static int twice(int x) {
        return 2 * x;
    }

    static boolean isSmall(int x) {
        return x < 7;
    }
}
