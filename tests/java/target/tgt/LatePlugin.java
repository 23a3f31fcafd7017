package tgt;

/** The implementation of Plugins.Plugin that loads late. */
public final class LatePlugin implements Plugins.Plugin {
    @Override
    public long apply(long x) {
        return twice(x);
    }

    static long twice(long x) {
        return 2 * x;
    }
}
