package tgt;

/**
 * What a call allocates (scenario alloc [N]): big() allocates one byte
 * array of N elements, a million by default (1,000,016 bytes with its
 * 16-byte header, kept in a static field so that the JIT cannot leave it
 * out), none() allocates nothing.
 */
public final class Alloc {
    private Alloc() {
    }

    static volatile Object keep;
    static volatile long sink;
    static int size = 1_000_000;

    public static long run() {
        big();
        none();
        return sink;
    }

    static void big() {
        keep = new byte[size];
    }

    static void none() {
        long x = sink;
        for (int i = 0; i < 1000; i++) {
            x = x * 31 + i;
        }
        sink = x;
    }
}
