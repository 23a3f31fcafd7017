package tgt;

/** Another class that inherits SubBase.handle(): its calls are not plug.Sub's. */
final class SubOther extends SubBase {
    @Override
    protected long kind() {
        return 2;
    }
}
