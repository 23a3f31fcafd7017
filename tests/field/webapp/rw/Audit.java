package rw;

/** The audit trail of some checkouts. */
public final class Audit {
    private static long last;

    private Audit() {
    }

    public static synchronized void log(int id, long total) {
        last = id ^ total;
    }
}
