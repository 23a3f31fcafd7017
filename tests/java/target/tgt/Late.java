package tgt;

/** Calls a class that is only loaded once a flag appears (after planning). */
public final class Late {
    private Late() {
    }

    public static long run(boolean late) {
        return late ? LateHelper.help() : 0;
    }
}
