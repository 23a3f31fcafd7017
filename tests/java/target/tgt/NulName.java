package tgt;

import java.util.function.LongUnaryOperator;

/**
 * A template: tgt.Names defines it from its class file with the method
 * nulXname renamed to "nul\0name" (U+0000 is legal in a class file, and
 * javac cannot write it). The app's loader never loads this class itself.
 */
public final class NulName implements LongUnaryOperator {
    @Override
    public long applyAsLong(long x) {
        return nulXname(x);
    }

    static long nulXname(long x) {
        return x + 3;
    }
}
