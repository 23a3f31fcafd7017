package tgt;

/** What each worker thread does per call. */
public final class Work {
    private Work() {
    }

    public static long job() {
        return step() + step();
    }

    static long step() {
        return Thread.currentThread().getName().length();
    }
}
