package tgt;

/**
 * A base class whose handle() its subclasses inherit, among them plug.Sub,
 * which tgt.Subs has several class loaders define (see there).
 */
public abstract class SubBase {
    public long handle() {
        return kind() + 1;
    }

    protected abstract long kind();
}
