package plug;

import java.util.function.LongUnaryOperator;

/**
 * A plugin with a lambda, defined by tgt.Spied's class loader: planning a
 * class with a lambda reads its class file's bootstrap methods, which
 * mcalltree reads from the class's code source for a loader other than the
 * JDK's, without running that loader's code.
 */
public final class Lam implements LongUnaryOperator {
    @Override
    public long applyAsLong(long x) {
        LongUnaryOperator f = y -> twice(y);
        return f.applyAsLong(x) + 1;
    }

    static long twice(long x) {
        return 2 * x;
    }
}
