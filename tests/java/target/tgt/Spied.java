package tgt;

import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.function.LongUnaryOperator;

/**
 * plug.Lam defined by a class loader of the application's own (not one of
 * the JDK's built-in loaders) whose resource lookups print "spied NAME" on
 * stdout: Java code of such a loader could block or do anything, so
 * mcalltree must never run it (URLClassLoader's own class loading does not
 * call these methods).
 */
public final class Spied {
    private Spied() {
    }

    static final class Spy extends URLClassLoader {
        Spy(URL[] urls) {
            super(urls, null);
        }

        @Override
        public URL getResource(String name) {
            System.out.println("spied " + name);
            return super.getResource(name);
        }

        @Override
        public InputStream getResourceAsStream(String name) {
            System.out.println("spied " + name);
            return super.getResourceAsStream(name);
        }
    }

    private static LongUnaryOperator lam;

    static void init() {
        URL classes = Spied.class.getProtectionDomain().getCodeSource().getLocation();
        try {
            ClassLoader l = new Spy(new URL[] {classes});
            lam = (LongUnaryOperator) l.loadClass("plug.Lam").getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    public static long run() {
        return lam.applyAsLong(3);
    }
}
