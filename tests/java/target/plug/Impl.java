package plug;

import java.util.function.LongUnaryOperator;

/**
 * A plugin: tgt.Loaders loads it with new class loaders that do not
 * delegate to the application's (each defines its own plug.Impl), and calls
 * it through a JDK interface.
 */
public final class Impl implements LongUnaryOperator {
    @Override
    public long applyAsLong(long x) {
        return twice(x) + 1;
    }

    static long twice(long x) {
        return 2 * x;
    }
}
