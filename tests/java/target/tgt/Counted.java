package tgt;

/** An entry method called an exact number of times (scenario counted). */
public final class Counted {
    private Counted() {
    }

    static long run() {
        return step() + step();
    }

    static long step() {
        return 7;
    }
}
