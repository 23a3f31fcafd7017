package tgt;

import tgt.other.Util;

/**
 * A known call graph. run() calls leafA three times, constructs a Shape,
 * calls mid() (which calls leafB twice and leafC once; leafB calls deep()),
 * calls leafA once more, then Util.twice (another package).
 */
public class Shape {
    public static long run() {
        long s = 0;
        for (int i = 0; i < 3; i++) {
            s += leafA(i);
        }
        s += new Shape().mid();
        s += leafA(9);
        s += Util.twice(s);
        return s;
    }

    static long leafA(int i) {
        return i * 2L;
    }

    long mid() {
        return leafB() + leafB() + leafC();
    }

    long leafB() {
        return deep();
    }

    long leafC() {
        return 1;
    }

    long deep() {
        return 7;
    }
}
