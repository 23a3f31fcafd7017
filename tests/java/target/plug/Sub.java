package plug;

/**
 * A plugin's subclass of tgt.SubBase: tgt.Subs has a loader per copy
 * define it (it inherits handle()).
 */
public final class Sub extends tgt.SubBase {
    @Override
    protected long kind() {
        return 7;
    }
}
