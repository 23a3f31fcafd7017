package tgt;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.function.LongUnaryOperator;

/**
 * The same class in several class loaders: plug.Impl is defined by a new
 * URLClassLoader (whose parent is the boot loader, so that it defines the
 * class itself) for every call of the entry method, and by two more loaded
 * before READY; run() calls all three copies.
 */
public final class Loaders {
    private Loaders() {
    }

    private static LongUnaryOperator first;
    private static LongUnaryOperator second;

    /** Loads the two early copies. */
    static void init() {
        first = load();
        second = load();
    }

    /** A new loader's instance of plug.Impl. */
    static LongUnaryOperator load() {
        URL classes = Loaders.class.getProtectionDomain().getCodeSource().getLocation();
        try {
            ClassLoader l = new URLClassLoader(new URL[] {classes}, null);
            return (LongUnaryOperator) l.loadClass("plug.Impl").getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    public static long run(LongUnaryOperator fresh) {
        return first.applyAsLong(1) + second.applyAsLong(2) + fresh.applyAsLong(3);
    }
}
