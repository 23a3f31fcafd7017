package tgt;

import java.lang.reflect.Method;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Many threads inside the entry method at once: n platform threads
 * (overlap-1..n) and, on JDK 21+, n virtual ones (ov-1..n) call job, which
 * waits in the middle of each call until every one of them is inside its
 * own call (a barrier of all the threads), round after round.
 */
public final class Overlap {
    private Overlap() {
    }

    private static CyclicBarrier all;

    static void start(int n) throws ReflectiveOperationException {
        Method virtual = null;
        Object builder = null;
        try {
            Class<?> builderClass = Class.forName("java.lang.Thread$Builder");
            builder = Thread.class.getMethod("ofVirtual").invoke(null);
            builder = builderClass.getMethod("name", String.class, long.class).invoke(builder, "ov-", 1L);
            virtual = builderClass.getMethod("start", Runnable.class);
        } catch (ClassNotFoundException | NoSuchMethodException e) {
            virtual = null;
        }
        all = new CyclicBarrier(virtual == null ? n : 2 * n);
        for (int i = 1; i <= n; i++) {
            Thread t = new Thread(Overlap::loop, "overlap-" + i);
            t.setDaemon(true);
            t.start();
        }
        for (int i = 0; virtual != null && i < n; i++) {
            virtual.invoke(builder, (Runnable) Overlap::loop);
        }
    }

    private static void loop() {
        while (true) {
            Main.sink += job();
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    static long job() {
        long s = step(1);
        try {
            all.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
            all.reset();
        }
        return s + step(2);
    }

    static long step(int k) {
        return k * 31L;
    }
}
