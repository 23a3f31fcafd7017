package tgt;

/** An exception thrown three levels below the entry method. */
public final class Fail {
    private Fail() {
    }

    public static long run() {
        return a();
    }

    /** Same chain, but a() catches what c() throws. */
    public static long runCaught() {
        return aCatching();
    }

    static long a() {
        return b() + 1;
    }

    static long aCatching() {
        try {
            return b();
        } catch (IllegalStateException e) {
            return -1;
        }
    }

    static long b() {
        return c() + 1;
    }

    static long c() {
        throw new IllegalStateException("c failed");
    }
}
