package tgt;

/**
 * The entry method's arguments (scenario args): run() calls call(...) with
 * one argument of every primitive type, a String of 100 characters, a
 * short one outside ASCII (and beyond the BMP), null, an enum constant and
 * a Bomb (and an int[]), whose toString, hashCode and equals print "BOMB TOUCHED" and
 * throw: --args must read them without calling any of its methods (the
 * class prints the Bomb's System.identityHashCode as it initializes). The
 * long and double in the middle take two slots each, and call is an
 * instance method (its arguments start at slot 1).
 */
public final class Args {
    enum Color { RED, GREEN }

    /** An object nothing may call: each of its methods says so and throws. */
    static final class Bomb {
        static volatile int touched;

        private static RuntimeException touch(String what) {
            touched++;
            System.out.println("BOMB TOUCHED: " + what + " (" + touched + " times)");
            return new IllegalStateException("Bomb." + what + " was called");
        }

        @Override
        public String toString() {
            throw touch("toString");
        }

        @Override
        public int hashCode() {
            throw touch("hashCode");
        }

        @Override
        public boolean equals(Object o) {
            throw touch("equals");
        }
    }

    static final String LONG = "0123456789".repeat(10);
    static final String WIDE = "h\u00e9llo \u2713 \ud83d\ude00";
    static final Bomb BOMB = new Bomb();
    static final int[] INTS = {1, 2, 3};
    static volatile long sink;

    static {
        System.out.println("BOMB identityHashCode " + System.identityHashCode(BOMB));
    }

    private Args() {
    }

    /** The wrap form's program: calls run() n times (default 20), then exits. */
    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 20;

        for (int i = 0; i < n; i++) {
            run();
        }
        System.out.println("sink " + sink);
    }

    public static long run() {
        return new Args().call(true, (byte) -7, 'q', (short) -300, 123456789, -9876543210L, 1.5f, -2.25,
                LONG, WIDE, null, Color.GREEN, BOMB, INTS);
    }

    long call(boolean z, byte b, char c, short s, int i, long j, float f, double d, String str, String wide,
              Object nul, Color color, Object bomb, int[] ints) {
        sink += (z ? 1 : 0) + b + c + s + i + j + (long) f + (long) d + str.length() + wide.length()
                + (nul == null ? 1 : 0) + color.ordinal() + (bomb == BOMB ? 1 : 0) + ints.length;
        return sink;
    }
}
