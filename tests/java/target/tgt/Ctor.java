package tgt;

/** A constructor that computes before super(...), and one that calls this(...). */
public class Ctor extends CtorBase {
    private final long v;

    public Ctor(int x) {
        super(prepare(x));
        v = base * 2;
    }

    public Ctor() {
        this(1);
    }

    static int prepare(int x) {
        return x + 1;
    }

    long value() {
        return v + new Ctor().v;
    }
}

class CtorBase {
    final long base;

    CtorBase(int b) {
        base = b;
    }
}
