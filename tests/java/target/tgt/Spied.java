package tgt;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.URLConnection;
import java.net.URLStreamHandler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.security.cert.Certificate;
import java.util.function.LongUnaryOperator;

/**
 * plug.Lam defined by a class loader of the application's own (not one of
 * the JDK's built-in loaders) whose resource lookups print "spied NAME" on
 * stdout: Java code of such a loader could block or do anything, so
 * mcalltree must never run it (URLClassLoader's own class loading does not
 * call these methods). The loader reads plug.Lam from the test classes
 * (no argument), from the directory or jar given, from the URL given
 * ("jar:file:...!/DIR/"), or defines it from the test classes' bytes,
 * without a code source ("memory") or with the one given ("define:URL",
 * as Spring Boot's loader gives "jar:nested:..." URLs that only its own
 * URL handler can open).
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

        Class<?> define(String name, byte[] b, URL source) {
            if (source == null) {
                return defineClass(name, b, 0, b.length);
            }
            CodeSource cs = new CodeSource(source, (Certificate[]) null);
            return defineClass(name, b, 0, b.length, new ProtectionDomain(cs, null));
        }
    }

    private static LongUnaryOperator lam;

    /**
     * Lets "jar:nested:..." URLs be made, as Spring Boot's launcher does by
     * registering its handler of nested: URLs (this one opens nothing).
     */
    private static void nestedUrls() {
        URL.setURLStreamHandlerFactory(protocol -> !"nested".equals(protocol) ? null : new URLStreamHandler() {
            @Override
            protected URLConnection openConnection(URL u) throws IOException {
                throw new IOException("nested: URLs are not opened here");
            }
        });
    }

    static void init(String where) {
        URL classes = Spied.class.getProtectionDomain().getCodeSource().getLocation();
        try {
            Class<?> c;
            if (where != null && (where.equals("memory") || where.startsWith("define:"))) {
                nestedUrls();
                byte[] b = Files.readAllBytes(Path.of(classes.toURI()).resolve("plug/Lam.class"));
                URL source = where.equals("memory") ? null : URI.create(where.substring(7)).toURL();
                c = new Spy(new URL[0]).define("plug.Lam", b, source);
            } else {
                URL url = where == null ? classes
                          : where.startsWith("jar:") ? URI.create(where).toURL() : Path.of(where).toUri().toURL();
                c = new Spy(new URL[] {url}).loadClass("plug.Lam");
            }
            lam = (LongUnaryOperator) c.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | IOException | URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    public static long run() {
        return lam.applyAsLong(3);
    }
}
