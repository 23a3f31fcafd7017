package mcttest;

/**
 * The target of the control-character tests: javac drops control characters
 * from identifiers, so the test replaces the bytes "evXilYxZZ" of this class
 * file by "ev", ESC, "il", BEL, "x" and the C1 control CSI (U+009B, two bytes
 * in UTF-8): a method name that would drive a terminal. run() calls it every
 * few milliseconds. Prints READY.
 */
public final class Ctl {
    private Ctl() {
    }

    static volatile long sink;

    static int evXilYxZZ() {
        return 1;
    }

    static void run() {
        sink += evXilYxZZ();
    }

    public static void main(String[] args) throws InterruptedException {
        System.out.println("READY");
        System.out.flush();
        while (true) {
            run();
            Thread.sleep(5);
        }
    }
}
