package tgt;

import java.lang.reflect.Method;

/**
 * The entry method on virtual threads (JDK 21+, reached by reflection: the
 * targets compile for Java 17), which sleep in the middle of each call and
 * so may continue on another carrier thread.
 */
public final class VThreads {
    private VThreads() {
    }

    static void start(int n) throws ReflectiveOperationException {
        Class<?> builderClass = Class.forName("java.lang.Thread$Builder");
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        builder = builderClass.getMethod("name", String.class, long.class).invoke(builder, "vt-", 1L);
        Method start = builderClass.getMethod("start", Runnable.class);
        for (int i = 0; i < n; i++) {
            start.invoke(builder, (Runnable) VThreads::loop);
        }
    }

    private static void loop() {
        while (true) {
            Main.sink += VWork.job();
            try {
                Thread.sleep(3);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
