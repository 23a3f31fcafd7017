package tgt;

import java.io.IOException;
import java.io.InputStream;
import java.util.function.LongUnaryOperator;

/**
 * Method names that are not plain UTF-8 in a class file: U+1D453 ("f" in
 * mathematical italics, a legal Java identifier; a surrogate pair in
 * modified UTF-8), written as escapes so that the source is ASCII, and
 * U+0000 (modified UTF-8 C0 80) in tgt.NulName's nulXname, renamed at load.
 */
public final class Names {
    private Names() {
    }

    private static LongUnaryOperator nul;

    /** Defines tgt.NulName with the renamed method, and names the calling
     * thread with U+1D453 too. */
    static void init() throws IOException, ReflectiveOperationException {
        Thread.currentThread().setName("names-\uD835\uDC53");
        byte[] b;
        try (InputStream in = Names.class.getResourceAsStream("/tgt/NulName.class")) {
            b = in.readAllBytes();
        }
        byte[] from = {1, 0, 8, 'n', 'u', 'l', 'X', 'n', 'a', 'm', 'e'};
        byte[] to = {1, 0, 9, 'n', 'u', 'l', (byte) 0xC0, (byte) 0x80, 'n', 'a', 'm', 'e'};
        int at = find(b, from);
        if (at < 0) {
            throw new IllegalStateException("no constant nulXname in NulName.class");
        }
        byte[] patched = new byte[b.length + 1];
        System.arraycopy(b, 0, patched, 0, at);
        System.arraycopy(to, 0, patched, at, to.length);
        System.arraycopy(b, at + from.length, patched, at + to.length, b.length - at - from.length);
        ClassLoader l = new ClassLoader(Names.class.getClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (!name.equals("tgt.NulName")) {
                    return super.loadClass(name, resolve);
                }
                synchronized (getClassLoadingLock(name)) {
                    Class<?> c = findLoadedClass(name);
                    return c != null ? c : defineClass(name, patched, 0, patched.length);
                }
            }
        };
        nul = (LongUnaryOperator) l.loadClass("tgt.NulName").getDeclaredConstructor().newInstance();
    }

    private static int find(byte[] b, byte[] what) {
        outer:
        for (int i = 0; i + what.length <= b.length; i++) {
            for (int j = 0; j < what.length; j++) {
                if (b[i + j] != what[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    public static long run() {
        return \uD835\uDC53(1) + nul.applyAsLong(2);
    }

    static long \uD835\uDC53(long x) {
        return x + 1;
    }
}
