package tgt;

/**
 * The scenarios of tracing from the start and of waiting for a class
 * (start.sh, trace_wait.sh): StartEntry loads only when Start first calls it.
 * Usage: tgt.Start later MS  (READY, then after MS ms calls StartEntry.run
 *                             every 5 ms until killed, FIRST after the first)
 *        tgt.Start now N     (calls StartEntry.run N times at once, exits 0)
 *        tgt.Start never MS  (READY, exits 0 after MS ms, StartEntry unused)
 *        tgt.Start unlinked MS (as later, but StartEntry is loaded, not
 *                             linked, before READY)
 */
public final class Start {
    private Start() {
    }

    static volatile long sink;

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        long n = Long.parseLong(args[1]);
        if (mode.equals("now")) {
            for (int i = 0; i < n; i++) {
                sink += StartEntry.run(i);
            }
            return;
        }
        if (mode.equals("unlinked")) {
            Class.forName("tgt.StartEntry", false, Start.class.getClassLoader());
        }
        System.out.println("READY");
        Thread.sleep(n);
        if (mode.equals("never")) {
            return;
        }
        for (int i = 0; ; i++) {
            sink += StartEntry.run(i);
            if (i == 0) {
                System.out.println("FIRST");
            }
            Thread.sleep(5);
        }
    }
}
