package tgt;

/** What each virtual thread does per call: a sleep between two steps. */
public final class VWork {
    private VWork() {
    }

    public static long job() {
        long a = step();
        pause();
        return a + step();
    }

    static long step() {
        return Thread.currentThread().getName().length();
    }

    static void pause() {
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
