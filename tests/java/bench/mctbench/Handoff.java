package mctbench;

import java.util.concurrent.Executor;

/**
 * Hand-offs for scripts/bench (--follow-async): hand() gives HANDOFFS
 * tasks to an executor that drops them, so that what is timed is the
 * hand-off site alone (the wrapper, the probes around it), not a task's
 * run. entry() calls hand() once.
 *
 * Trace it with: mcalltree --follow-async PID mctbench.Handoff entry 2
 * 'mctbench\.Handoff'.
 */
public final class Handoff {
    /** Hand-offs per hand() call. */
    public static final int HANDOFFS = 8;

    static final Executor DROP = new Drop();
    static final Runnable TASK = new Task();

    private Handoff() {
    }

    /** An executor that drops its task. */
    static final class Drop implements Executor {
        @Override
        public void execute(Runnable task) {
        }
    }

    static final class Task implements Runnable {
        @Override
        public void run() {
        }
    }

    public static long entry(long x) {
        return hand(x);
    }

    static long hand(long x) {
        Executor e = DROP;
        for (int i = 0; i < HANDOFFS; i++) {
            e.execute(TASK);
        }
        return x + 1;
    }
}
