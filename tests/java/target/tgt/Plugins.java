package tgt;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * An interface call whose second implementation loads only once a flag
 * appears (after planning): run() calls apply() on every plugin.
 */
public final class Plugins {
    private Plugins() {
    }

    interface Plugin {
        long apply(long x);
    }

    static final class Basic implements Plugin {
        @Override
        public long apply(long x) {
            return x + 1;
        }
    }

    private static Plugin[] plugins = {new Basic()};

    public static long run() {
        long s = 0;
        for (Plugin p : plugins) {
            s += p.apply(3);
        }
        return s;
    }

    /** Loads tgt.LatePlugin and adds it once the flag exists. */
    static void loadWhen(Path flag) {
        if (plugins.length == 1 && Files.exists(flag)) {
            try {
                Plugin late = (Plugin) Class.forName("tgt.LatePlugin").getDeclaredConstructor().newInstance();
                plugins = new Plugin[] {plugins[0], late};
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
