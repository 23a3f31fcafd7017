package tgt;

/** Calls that alternate between slow (30 ms) and fast (about nothing). */
public final class Mixed {
    private Mixed() {
    }

    public static long run(int i) {
        if (i % 2 == 0) {
            Sleepy.nap();
            return 30;
        }
        return Sleepy.quick();
    }
}
