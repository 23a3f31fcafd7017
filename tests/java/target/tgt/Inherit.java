package tgt;

/**
 * Entry methods a class inherits. Neither A nor B overrides
 * Base.handle(), so it runs for both; A's calls handle() on its peer, a B,
 * inside its own call. Base.serve(Object) hands over to serve(String),
 * which A and B declare, as HttpServlet.service(ServletRequest, ...) does to
 * service(HttpServletRequest, ...).
 */
public final class Inherit {
    private Inherit() {
    }

    abstract static class Base {
        Base peer;

        public long handle() {
            long s = kind() + work(3);
            if (peer != null) {
                s += peer.handle();
            }
            return s;
        }

        long work(int n) {
            return n * 2L;
        }

        abstract long kind();

        public long serve(Object request) {
            return serve((String) request);
        }

        public abstract long serve(String request);
    }

    static final class A extends Base {
        @Override
        long kind() {
            return 1;
        }

        @Override
        public long serve(String request) {
            return step(request.length());
        }

        long step(int n) {
            return inner(n) + 1;
        }

        long inner(int n) {
            return n;
        }
    }

    static final class B extends Base {
        @Override
        long kind() {
            return 2;
        }

        @Override
        public long serve(String request) {
            return request.length() * 3L;
        }
    }

    private static final A ONE_A = new A();
    private static final B ONE_B = new B();

    static {
        ONE_A.peer = ONE_B;
    }

    /** One round: each entry method called once on an A and twice on a B. */
    public static long round() {
        return ONE_A.handle() + ONE_B.handle() + ONE_B.handle() + ONE_A.serve((Object) "abc")
                + ONE_B.serve((Object) "abcd") + ONE_B.serve((Object) "x");
    }
}
