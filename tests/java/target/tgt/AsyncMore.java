package tgt;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * More work handed to other threads (scenario asyncmore, --follow-async),
 * where the target's own behaviour sets a lower bound on the figures:
 * queued(): sleeps 30 ms, then hands two tasks to a pool of one thread
 * (async-one-1): the first waits until both were handed off and then
 * holds the thread 50 ms (hold), so the second (a Callable) waits in the
 * queue at least 50 ms, and was handed off at least 30 ms into the call.
 */
public final class AsyncMore {
    private AsyncMore() {
    }

    static volatile long sink;

    static final ExecutorService ONE = Executors.newFixedThreadPool(1, r -> {
        Thread t = new Thread(r, "async-one-1");
        t.setDaemon(true);
        return t;
    });

    public static long queued() throws Exception {
        Async.nap(30);
        CountDownLatch go = new CountDownLatch(1);
        ONE.execute(() -> hold(go));
        Future<Long> f = ONE.submit(() -> Async.work(1));
        go.countDown();
        return f.get();
    }

    static void hold(CountDownLatch go) {
        try {
            go.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Async.nap(50);
    }

    /** The scenario's loop body: which entry method to call. */
    static Runnable entry(String which) {
        return () -> {
            try {
                sink += queued();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
    }
}
