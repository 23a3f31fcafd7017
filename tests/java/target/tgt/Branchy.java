package tgt;

import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * The target of tests/e2e/diff_stats.sh: a request mix that branches.
 * handle() runs for one random request: half() (5 ms) on 1 call in 2,
 * seventh() on 1 in 7, rare() on 1 in 100, and get() on every call, whose
 * cache misses 1 in 10 and then calls load(). The seed differs in every
 * JVM, as a real mix does. Usage: tgt.Branchy VARIANT, the "builds":
 * "a" as above; "extra": seventh() calls step() twice, not once (one more
 * call per reached node); "share": seventh() on 2 calls in 7; "slow": half()
 * takes 6.5 ms (+30 %). Prints READY, then handles requests until killed.
 */
public final class Branchy {
    private Branchy() {
    }

    static volatile long sink;
    static String variant = "a";

    static long step(long x) {
        return x * 31 + 7;
    }

    static long half(long r) {
        LockSupport.parkNanos(variant.equals("slow") ? 6_500_000L : 5_000_000L);
        return step(r);
    }

    static long seventh(long r) {
        long s = step(r);
        if (variant.equals("extra")) {
            s += step(s);
        }
        return s;
    }

    static long rare(long r) {
        return step(r) ^ r;
    }

    static long load(long key) {
        return step(key);
    }

    static long get(long key, boolean hit) {
        return hit ? key : load(key);
    }

    static long handle(long r) {
        long s = get(r, r % 10 != 0);
        if (r % 2 == 0) {
            s += half(r);
        }
        if (r % 7 == 0 || (variant.equals("share") && r % 7 == 1)) {
            s += seventh(r);
        }
        if (r % 100 == 0) {
            s += rare(r);
        }
        return s;
    }

    public static void main(String[] args) throws Exception {
        SplittableRandom rnd = new SplittableRandom(System.nanoTime());
        variant = args.length > 0 ? args[0] : "a";
        System.out.println("READY");
        for (;;) {
            sink += handle(rnd.nextLong(1_000_000_000L));
            LockSupport.parkNanos(200_000L);
        }
    }
}
