package tgt;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

/**
 * The named class of an inherited entry method in several class loaders:
 * plug.Sub, which inherits SubBase.handle(), is defined by a loader of its
 * own for each copy (two before READY, one more when asked), as a plugin's
 * or a web application's loader defines its classes; SubOther inherits
 * handle() too. A round calls handle() on each copy and on a SubOther.
 */
public final class Subs {
    private Subs() {
    }

    /** Defines the classes of package plug itself, asks its parent for the rest. */
    static final class ChildFirst extends URLClassLoader {
        static {
            registerAsParallelCapable();
        }

        ChildFirst(URL[] urls, ClassLoader parent) {
            super(urls, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith("plug.")) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    c = findClass(name);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }
    }

    private static final List<SubBase> COPIES = new ArrayList<>();
    private static final SubBase OTHER = new SubOther();

    /** An instance of plug.Sub as a new loader defines it. */
    static void loadCopy() {
        URL classes = Subs.class.getProtectionDomain().getCodeSource().getLocation();
        try {
            ClassLoader l = new ChildFirst(new URL[] {classes}, Subs.class.getClassLoader());
            Class<?> c = l.loadClass("plug.Sub");
            if (c.getClassLoader() != l) {
                throw new IllegalStateException("plug.Sub was not defined by its own loader");
            }
            COPIES.add((SubBase) c.getDeclaredConstructor().newInstance());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One round: handle() on each copy of plug.Sub, then on a SubOther. */
    static long round() {
        long s = 0;
        for (SubBase b : COPIES) {
            s += b.handle();
        }
        return s + OTHER.handle();
    }
}
