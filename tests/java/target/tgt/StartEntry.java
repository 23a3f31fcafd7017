package tgt;

/** The entry class of Start: loaded on its first call. */
public final class StartEntry {
    private StartEntry() {
    }

    public static long run(int i) {
        return twice(i) + 1;
    }

    static long twice(int i) {
        return 2L * i;
    }
}
