package tgt;

import java.util.concurrent.CompletableFuture;
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
 * queue at least 50 ms, and was handed off at least 30 ms into the call;
 * cancel(): tasks cancelled before they ran (see there).
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
        boolean cancel = "cancel".equals(which);
        return () -> {
            try {
                sink += cancel ? cancel() : queued();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
    }

    /**
     * While the pool's thread is held (hold), a Callable submitted to it is
     * cancelled (Future.cancel) and a supplyAsync stage on it completed
     * (CompletableFuture.complete) before they ran: neither will ever run.
     * The call waits for the held thread's task.
     */
    public static long cancel() throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        Future<?> h = ONE.submit(() -> hold(go));
        Future<Long> f = ONE.submit(() -> Async.work(1));
        f.cancel(false);
        CompletableFuture<Long> c = CompletableFuture.supplyAsync(() -> Async.work(2), ONE);
        c.complete(0L);
        go.countDown();
        h.get();
        return c.join();
    }
}
