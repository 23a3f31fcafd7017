package tgt;

/**
 * Interface and abstract calls: run() calls price() through the Pricer
 * interface on three implementations, so the tree shows which one ran.
 */
public final class Poly {
    private Poly() {
    }

    interface Pricer {
        long price(int x);
    }

    abstract static class Base implements Pricer {
        @Override
        public long price(int x) {
            return base(x) + extra(x);
        }

        long base(int x) {
            return x;
        }

        abstract long extra(int x);
    }

    static final class Cheap extends Base {
        @Override
        long extra(int x) {
            return 1;
        }
    }

    static final class Dear extends Base {
        @Override
        long extra(int x) {
            return 100;
        }

        @Override
        public long price(int x) {
            return super.price(x) * 2;
        }
    }

    static final class Flat implements Pricer {
        @Override
        public long price(int x) {
            return 5;
        }
    }

    private static final Pricer[] PRICERS = {new Cheap(), new Dear(), new Flat()};

    public static long run() {
        long s = 0;
        for (Pricer p : PRICERS) {
            s += p.price(3);
        }
        return s;
    }
}
