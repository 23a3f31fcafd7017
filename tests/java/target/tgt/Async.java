package tgt;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Work handed to other threads (scenario async, --follow-async): each entry
 * method hands tasks off and shows under which node they belong.
 * pool(): two tasks submitted to a fixed pool of two threads named
 * async-pool-N (a Callable and a Runnable), both waited for, each running
 * work(); chain(): a CompletableFuture chain, supplyAsync(stepA) on pool
 * async-a-N, then thenApplyAsync(stepB) on pool async-b-N, joined;
 * slow(): hands a task that sleeps 1 s to a thread async-slow-N, then
 * sleeps 100 ms itself (the task is still running when a short
 * --async-wait is over); full(): a pool of one thread and a queue of one,
 * both taken by tasks that sleep 3 s, so that a task is rejected (caught);
 * thread(): a new platform thread async-thread runs work(), joined;
 * nested(): a task on async-pool-N that hands work() to async-inner-1;
 * spy(): a task run at once by its executor on the caller's thread (Spy);
 * virtual(): a task on a virtual thread of its own (JDK 21+), waited for.
 */
public final class Async {
    private Async() {
    }

    static volatile long sink;

    private static ExecutorService pool(String name, int n) {
        AtomicInteger seq = new AtomicInteger();
        return Executors.newFixedThreadPool(n, r -> {
            Thread t = new Thread(r, name + "-" + seq.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    static final ExecutorService POOL = pool("async-pool", 2);
    static final ExecutorService A = pool("async-a", 1);
    static final ExecutorService B = pool("async-b", 1);
    static final AtomicInteger SLOWS = new AtomicInteger();
    static final ExecutorService SLOW = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "async-slow-" + SLOWS.incrementAndGet());
        t.setDaemon(true);
        return t;
    });

    public static long pool() throws Exception {
        Future<Long> f = POOL.submit(() -> work(3));
        Future<?> g = POOL.submit(() -> {
            sink += work(5);
        });
        long v = f.get();
        g.get();
        return v;
    }

    static long work(int n) {
        long x = 0;
        for (int i = 0; i < n * 1000; i++) {
            x += i ^ n;
        }
        return x;
    }

    public static long chain() {
        return CompletableFuture.supplyAsync(Async::stepA, A).thenApplyAsync(Async::stepB, B).join();
    }

    static long stepA() {
        return work(2);
    }

    static long stepB(long v) {
        return v + work(4);
    }

    public static long slow() {
        SLOW.execute(() -> nap(1000));
        nap(100);
        return work(1);
    }

    static void nap(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static final ThreadPoolExecutor FULL = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(1), r -> {
                Thread t = new Thread(r, "async-full");
                t.setDaemon(true);
                return t;
            });

    public static long thread() {
        Thread t = new Thread(() -> sink += work(6), "async-thread");
        t.start();
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return sink;
    }

    /**
     * An executor that runs each task at once on the caller's thread, and
     * prints "TASK CLASS" whenever the class of the tasks it is given
     * changes (a tracer's wrapper, or the application's own lambda).
     */
    static final class Spy implements Executor {
        private String last = "";

        @Override
        public void execute(Runnable task) {
            String name = task.getClass().getName();
            if (!name.equals(last)) {
                last = name;
                System.out.println("TASK " + name.replaceAll("/.*", ""));
            }
            task.run();
        }
    }

    static final Executor SPY = new Spy();

    public static long spy() {
        SPY.execute(() -> sink += work(1));
        return sink;
    }

    /** A virtual thread per task (JDK 21+, found by reflection: this compiles for 17). */
    static final ExecutorService VIRTUAL = virtualPerTask();

    private static ExecutorService virtualPerTask() {
        try {
            return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    public static long virtual() throws Exception {
        return VIRTUAL.submit(() -> work(2)).get();
    }

    static final ExecutorService INNER = pool("async-inner", 1);

    public static long nested() throws Exception {
        return POOL.submit(() -> INNER.submit(() -> work(2)).get()).get();
    }

    /** The scenario's loop body: which entry method to call. */
    static Runnable entry(String which) {
        switch (which == null ? "pool" : which) {
            case "chain":
                return () -> sink += chain();
            case "slow":
                return () -> sink += slow();
            case "full":
                return () -> sink += full();
            case "thread":
                return () -> sink += thread();
            case "spy":
                return () -> sink += spy();
            case "virtual":
                return () -> {
                    try {
                        sink += virtual();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                };
            case "nested":
                return () -> {
                    try {
                        sink += nested();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                };
            default:
                return () -> {
                    try {
                        sink += pool();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                };
        }
    }

    public static long full() {
        try {
            FULL.execute(() -> nap(3000));
            FULL.execute(() -> nap(3000));
            FULL.execute(() -> nap(3000));
        } catch (RejectedExecutionException e) {
            sink++;
        }
        return work(1);
    }
}
