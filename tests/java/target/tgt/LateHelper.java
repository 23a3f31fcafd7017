package tgt;

/** Loaded only when Late.run(true) first runs. */
public final class LateHelper {
    private LateHelper() {
    }

    public static long help() {
        return inner() + 1;
    }

    static long inner() {
        return 2;
    }
}
