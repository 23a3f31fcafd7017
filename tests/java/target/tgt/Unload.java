package tgt;

import java.lang.ref.WeakReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongUnaryOperator;

/**
 * Classes unloaded while a session runs, as when a web application is
 * undeployed: a worker thread calls plug.Impl.applyAsLong every few
 * milliseconds on a copy that a class loader of its own defines
 * (Loaders.load). When DIR/drop appears, the worker ends, the copy and its
 * loader are dropped and the GC runs until the loader is collected, then
 * DIR/dropped appears (DIR/stuck if it never was); when DIR/load appears, a
 * new worker calls a new copy of a new loader (a redeployment). The calls
 * run on a thread that ends with its copy: a compiled frame that stays on a
 * stack (a loop that never returns) would keep the code it inlined, and
 * with it the class, from being unloaded.
 */
public final class Unload {
    private Unload() {
    }

    /** Calls its copy until told to stop. */
    private static final class Worker extends Thread {
        private volatile boolean stop;
        private LongUnaryOperator op;
        /* Taken here, once: the main thread's loop never touches the copy. */
        final WeakReference<ClassLoader> loader;

        Worker(LongUnaryOperator op) {
            super("unload-worker");
            setDaemon(true);
            this.op = op;
            this.loader = new WeakReference<>(op.getClass().getClassLoader());
        }

        @Override
        public void run() {
            while (!stop) {
                Main.sink += op.applyAsLong(7);
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    break;
                }
            }
            op = null;
        }
    }

    /** Runs the scenario: READY, then the flags of dir until killed. */
    static void run(Path dir) throws Exception {
        Worker worker = new Worker(Loaders.load());
        worker.start();
        System.out.println("READY");
        for (;;) {
            if (Files.exists(dir.resolve("drop")) && worker != null) {
                Files.delete(dir.resolve("drop"));
                WeakReference<ClassLoader> loader = worker.loader;
                worker.stop = true;
                worker.join();
                worker = null;
                for (int i = 0; i < 100 && loader.get() != null; i++) {
                    System.gc();
                    Thread.sleep(50);
                }
                Files.createFile(dir.resolve(loader.get() == null ? "dropped" : "stuck"));
            }
            if (Files.exists(dir.resolve("load")) && worker == null) {
                Files.delete(dir.resolve("load"));
                worker = new Worker(Loaders.load());
                worker.start();
            }
            Thread.sleep(5);
        }
    }
}
