package tgt;

/**
 * Two threads whose ids are equal modulo 1024 (Probe.ENTRIES): both look
 * first at the same entry of the probe's table, so while both are in an
 * entry call one of them holds its second entry. The entry method sleeps
 * between its two steps, so that their calls overlap most of the time.
 */
public final class Sharers {
    private Sharers() {
    }

    static void start() {
        Thread a = new Thread(Sharers::loop, "sharer-a");
        Thread b;
        do {
            b = new Thread(Sharers::loop, "sharer-b");
        } while ((b.getId() & 1023) != (a.getId() & 1023));
        for (Thread t : new Thread[] {a, b}) {
            t.setDaemon(true);
            t.start();
        }
    }

    private static void loop() {
        while (true) {
            try {
                Main.sink += job();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    public static long job() throws InterruptedException {
        long s = step();
        Thread.sleep(2);
        return s + step();
    }

    static long step() {
        return Thread.currentThread().getName().length();
    }
}
