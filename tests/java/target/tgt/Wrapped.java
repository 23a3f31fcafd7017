package tgt;

/**
 * The wrapped program of wrap.sh: calls StartEntry.run N times as soon as
 * it starts, prints the system property wrapped.prop (set through the
 * JAVA_TOOL_OPTIONS that was there before mcalltree's word), and exits with
 * STATUS. Usage: tgt.Wrapped N STATUS
 */
public final class Wrapped {
    private Wrapped() {
    }

    static volatile long sink;

    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        for (int i = 0; i < n; i++) {
            sink += StartEntry.run(i);
        }
        System.out.println("prop=" + System.getProperty("wrapped.prop"));
        System.exit(Integer.parseInt(args[1]));
    }
}
