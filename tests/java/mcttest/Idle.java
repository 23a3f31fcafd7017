package mcttest;

/** A JVM that only waits: the target of the attach tests. Prints READY and its pid. */
public final class Idle {
    private Idle() {
    }

    public static void main(String[] args) throws InterruptedException {
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        while (true) {
            Thread.sleep(60_000);
        }
    }
}
