package tgt;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The end-to-end tests' target: runs one scenario's entry method over and
 * over (every few milliseconds) until killed, after printing READY (and
 * FIRST once its first call returned).
 * Usage: tgt.Main SCENARIO [ARG]; "many N" (default 10000), "deep N"
 * (default 200) and "wide N" (default 16383) take a number, "late" and
 * "exit" a flag file; "sharers" runs two threads that share a first
 * entry of the probe's table (see Sharers); "hot T N" calls Hot.run(N) back to back on T threads
 * (default 8 and 10); "inherit" and "subs" take a directory (they call only
 * when told, see inherit and subs), and so does "unload" (see Unload);
 * "reload DIR [T]" loads plug.Impl anew on T threads (default 2) back to
 * back (see reload); "overlap N" keeps N threads (and N virtual ones)
 * inside the entry method at once (default 24); "alloc N" allocates N
 * bytes a call (default 1000000); "counted DIR" calls
 * Counted.run and Counted.nest as often as DIR/go says (see counted);
 * "spied [WHERE]" reads plug.Lam from WHERE (see Spied); "async WHICH"
 * calls one of Async's entry methods (pool, chain, slow, full, thread, nested, spy,
 * virtual, own); "asyncmore WHICH" one of AsyncMore's (queued,
 * cancel); "w3c" and "otel" set a trace context per request (see W3c; "w3c virtual"
 * serves each request on a virtual thread of its own, JDK 21+); "pstream WHICH" one of PStream's (par, seq, big, prim, red).
 */
public final class Main {
    private Main() {
    }

    static volatile long sink;

    public static void main(String[] args) throws Exception {
        String scenario = args.length > 0 ? args[0] : "shape";
        String arg = args.length > 1 ? args[1] : null;
        switch (scenario) {
            case "threads":
                Threads.start(3);
                System.out.println("READY");
                Thread.currentThread().join();
                return;
            case "sharers":
                Sharers.start();
                System.out.println("READY");
                Thread.currentThread().join();
                return;
            case "vthreads":
                VThreads.start(12);
                System.out.println("READY");
                Thread.currentThread().join();
                return;
            case "counted":
                counted(Path.of(arg));
                return;
            case "overlap":
                Overlap.start(arg == null ? 24 : Integer.parseInt(arg));
                System.out.println("READY");
                Thread.currentThread().join();
                return;
            case "hot":
                Hot.start(arg == null ? 8 : Integer.parseInt(arg),
                          args.length > 2 ? Integer.parseInt(args[2]) : 10);
                System.out.println("READY");
                Thread.currentThread().join();
                return;
            case "huge":
                Huge.start();
                System.out.println("READY");
                Thread.currentThread().join();
                return;
            case "inherit":
                inherit(Path.of(arg));
                return;
            case "unload":
                Unload.run(Path.of(arg));
                return;
            case "subs":
                subs(Path.of(arg));
                return;
            case "reload":
                reload(Path.of(arg), args.length > 2 ? Integer.parseInt(args[2]) : 2);
                return;
            case "exit":
                System.out.println("READY");
                Path flag = Path.of(arg);
                while (!Files.exists(flag)) {
                    sink += Shape.run();
                    Thread.sleep(5);
                }
                System.exit(0);
                return;
            default:
                break;
        }
        Runnable entry = entry(scenario, arg);
        System.out.println("READY");
        for (int i = 0; ; i++) {
            entry.run();
            if (i == 0) {
                /* Its classes are linked now: the planner sees their methods. */
                System.out.println("FIRST");
            }
            Thread.sleep(scenario.equals("mixed") ? 1 : 5);
        }
    }

    /**
     * Inherit.round() as often as asked: writing N to DIR/go runs N rounds,
     * then DIR/done holds N (so that a test knows how many calls it made).
     */
    private static void inherit(Path dir) throws Exception {
        Path go = dir.resolve("go");
        sink += Inherit.round();
        System.out.println("READY");
        for (;;) {
            if (Files.exists(go)) {
                int n = Integer.parseInt(Files.readString(go).trim());
                Files.delete(go);
                for (int i = 0; i < n; i++) {
                    sink += Inherit.round();
                }
                Files.writeString(dir.resolve("done.tmp"), n + "\n");
                Files.move(dir.resolve("done.tmp"), dir.resolve("done"), StandardCopyOption.ATOMIC_MOVE);
            }
            Thread.sleep(5);
        }
    }

    /**
     * Counted.run() and Counted.nest(1) as often as asked each, and nothing
     * else, as inherit does
     * (DIR/go, DIR/done).
     */
    private static void counted(Path dir) throws Exception {
        Path go = dir.resolve("go");
        sink += Counted.step();
        System.out.println("READY");
        for (;;) {
            if (Files.exists(go)) {
                int n = Integer.parseInt(Files.readString(go).trim());
                Files.delete(go);
                for (int i = 0; i < n; i++) {
                    sink += Counted.run();
                    sink += Counted.nest(1);
                }
                Files.writeString(dir.resolve("done.tmp"), n + "\n");
                Files.move(dir.resolve("done.tmp"), dir.resolve("done"), StandardCopyOption.ATOMIC_MOVE);
            }
            Thread.sleep(5);
        }
    }

    /**
     * Subs.round() as often as asked, as inherit does (DIR/go, DIR/done);
     * DIR/load makes one more loader define plug.Sub, then DIR/loaded
     * exists.
     */
    private static void subs(Path dir) throws Exception {
        Path go = dir.resolve("go");
        Path load = dir.resolve("load");
        Subs.loadCopy();
        Subs.loadCopy();
        sink += Subs.round();
        System.out.println("READY");
        for (;;) {
            if (Files.exists(load)) {
                Files.delete(load);
                Subs.loadCopy();
                Files.writeString(dir.resolve("loaded"), "1\n");
            }
            if (Files.exists(go)) {
                int n = Integer.parseInt(Files.readString(go).trim());
                Files.delete(go);
                for (int i = 0; i < n; i++) {
                    sink += Subs.round();
                }
                Files.writeString(dir.resolve("done.tmp"), n + "\n");
                Files.move(dir.resolve("done.tmp"), dir.resolve("done"), StandardCopyOption.ATOMIC_MOVE);
            }
            Thread.sleep(5);
        }
    }

    /**
     * Reload's threads; Reload.keep follows whether DIR/keep exists. The
     * copies no thread keeps are unloaded every 2 s (System.gc), so that a
     * session's snapshot holds a bounded number of them.
     */
    private static void reload(Path dir, int threads) throws Exception {
        Path keep = dir.resolve("keep");
        long gcAt = System.nanoTime();
        Reload.start(threads);
        System.out.println("READY");
        for (;;) {
            Reload.keep = Files.exists(keep);
            if (!Reload.keep && System.nanoTime() - gcAt > 2_000_000_000L) {
                System.gc();
                gcAt = System.nanoTime();
            }
            Thread.sleep(5);
        }
    }

    private static Runnable entry(String scenario, String arg) throws Exception {
        switch (scenario) {
            case "shape":
                return () -> sink += Shape.run();
            case "poly":
                return () -> sink += Poly.run();
            case "lambdas":
                return () -> sink += Lambdas.run();
            case "fail":
                return () -> {
                    try {
                        sink += Fail.run();
                    } catch (IllegalStateException e) {
                        sink++;
                    }
                    sink += Fail.runCaught();
                };
            case "rec":
                return () -> sink += Rec.run() + Rec.fact(5);
            case "sleepy":
                return () -> sink += Sleepy.run();
            case "cpu":
                return () -> sink += Cpu.run();
            case "async":
                return Async.entry(arg);
            case "asyncmore":
                return AsyncMore.entry(arg);
            case "pstream":
                return PStream.entry(arg);
            case "alloc":
                Alloc.size = arg == null ? 1_000_000 : Integer.parseInt(arg);
                return () -> sink += Alloc.run();
            case "args":
                return () -> sink += Args.run();
            case "mixed":
                int[] n = {0};
                return () -> sink += Mixed.run(n[0]++);
            case "late":
                Path flag = Path.of(arg);
                return () -> sink += Late.run(Files.exists(flag));
            case "plugins":
                Path plugin = Path.of(arg);
                return () -> {
                    Plugins.loadWhen(plugin);
                    sink += Plugins.run();
                };
            case "maps":
                return () -> sink += Maps.run();
            case "ctor":
                return () -> sink += new Ctor(3).value();
            case "many":
                int calls = arg == null ? 10000 : Integer.parseInt(arg);
                return () -> sink += Many.run(calls);
            case "deep":
                int levels = arg == null ? 200 : Integer.parseInt(arg);
                return () -> sink += Deep.run(levels);
            case "through":
                return () -> sink += Through.run();
            case "wide":
                return Wide.entry(arg == null ? 16383 : Integer.parseInt(arg));
            case "loaders":
                Loaders.init();
                return () -> sink += Loaders.run(Loaders.load());
            case "names":
                Names.init();
                return () -> sink += Names.run();
            case "agg":
                return () -> sink += Agg.run();
            case "knot":
                return () -> sink += Knot.run();
            case "spied":
                Spied.init(arg);
                return () -> sink += Spied.run();
            case "w3c":
                return "virtual".equals(arg) ? W3c.onVirtual(W3c.entry()) : W3c.entry();
            case "otel":
                return W3c.otel();

            default:
                throw new IllegalArgumentException("unknown scenario " + scenario);
        }
    }
}
