package tgt;

/** The entry method called on several named threads at once. */
public final class Threads {
    private Threads() {
    }

    static void start(int n) {
        for (int i = 1; i <= n; i++) {
            Thread t = new Thread(Threads::loop, "worker-" + i);
            t.setDaemon(true);
            t.start();
        }
    }

    private static void loop() {
        while (true) {
            Main.sink += Work.job();
            try {
                Thread.sleep(3);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
