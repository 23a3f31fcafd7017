package tgt;

/**
 * The target of tests/e2e/diff.sh: "two builds" of one program, as one class
 * with a switch. Usage: tgt.Dif VARIANT, where variant "a" makes each call
 * of run() call step() 3 times, and variant "b" also calls extra() once
 * per call of run(): one more call per entry call, and nothing else
 * changes. Prints READY, then calls run() every 2 ms until killed.
 */
public final class Dif {
    private Dif() {
    }

    static volatile long sink;

    static long step(int i) {
        return i * 31L;
    }

    static long extra() {
        return 7;
    }

    static long run(boolean more) {
        long s = 0;
        for (int i = 0; i < 3; i++) {
            s += step(i);
        }
        if (more) {
            s += extra();
        }
        return s;
    }

    public static void main(String[] args) throws Exception {
        boolean more = args.length > 0 && args[0].equals("b");
        System.out.println("READY");
        for (;;) {
            sink += run(more);
            Thread.sleep(2);
        }
    }
}
