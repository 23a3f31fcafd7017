package tgt;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

/**
 * Streams inside a traced call (scenario pstream, --follow-async): the
 * functions given to a stream's operations run on the ForkJoin common
 * pool's workers when the stream is parallel.
 * par(): a parallel map(pmap).collect over SMALL elements, then each(): a
 * parallel forEach(peach) over them; pmap and peach each call work(), and
 * on the caller's thread wait (2 s at most) until a worker ran one of the
 * stream's elements, so that both the caller and a worker have a share.
 * The loop also calls each() outside any traced call (direct), and peach
 * prints "WRAPPED inside|outside true|false" when it changes: whether
 * the agent's wrapper (mcalltree.agent.Probe) is on its stack.
 * seq(): the same map and a forEach(take) on a sequential stream.
 * big(): a parallel mapToLong(tiny).sum() over BIG elements; tiny waits
 * as pmap does, until a worker ran an element.
 * prim(): the primitive streams' own functions, shared likewise: a
 * parallel IntStream's map(imap) in ints() (imap spies as peach does;
 * the loop calls ints() outside any traced call too), then a LongStream's
 * filter(ltest) in longs().
 * red(): the two-argument functions, shared likewise: a parallel
 * reduce(0, acc, comb) (acc on each element), then collect(ArrayList::new,
 * cacc, addAll) in col() (cacc on each element), then max(cmp) in most()
 * (cmp on SMALL - 1 pairs), an IntStream's reduce(isum) in ired() and a
 * reduce(osum) in ored() (SMALL - 1 pairs each), and a sequential
 * LongStream's reduce(0, lsum) in ltotal() (SMALL elements, no worker).
 */
public final class PStream {
    private PStream() {
    }

    static final int SMALL = 16;
    static final int BIG = 10_000;
    static final List<Integer> LIST = IntStream.range(0, SMALL).boxed().collect(Collectors.toList());
    static final List<Integer> LOTS = IntStream.range(0, BIG).boxed().collect(Collectors.toList());

    static volatile long sink;
    static volatile boolean stolen;
    static volatile boolean direct;
    private static String last = "";

    public static long par() {
        stolen = false;
        List<Long> r = LIST.parallelStream().map(PStream::pmap).collect(Collectors.toList());
        return r.size() + each();
    }

    static long each() {
        stolen = false;
        LIST.parallelStream().forEach(PStream::peach);
        return sink;
    }

    static long pmap(Integer x) {
        steal();
        return work(x);
    }

    static void peach(Integer x) {
        spy();
        steal();
        sink += work(x);
    }

    /** On a worker: says so; on the caller: waits until a worker did. */
    static void steal() {
        if (Thread.currentThread() instanceof ForkJoinWorkerThread) {
            stolen = true;
            return;
        }
        long end = System.nanoTime() + 2_000_000_000L;
        while (!stolen && System.nanoTime() - end < 0) {
            LockSupport.parkNanos(100_000);
        }
    }

    static void spy() {
        boolean wrapped = StackWalker.getInstance()
                .walk(s -> s.anyMatch(f -> f.getClassName().equals("mcalltree.agent.Probe")));
        String line = "WRAPPED " + (direct ? "outside " : "inside ") + wrapped;
        synchronized (PStream.class) {
            if (!line.equals(last)) {
                last = line;
                System.out.println(line);
            }
        }
    }

    static long work(int n) {
        long x = 0;
        for (int i = 0; i < 20_000 + n; i++) {
            x += i ^ n;
        }
        return x;
    }

    public static long seq() {
        List<Long> r = LIST.stream().map(PStream::seqWork).collect(Collectors.toList());
        r.stream().forEach(PStream::take);
        return sink;
    }

    static long seqWork(Integer x) {
        return work(x);
    }

    static void take(Long v) {
        sink += v;
    }

    public static long big() {
        stolen = false;
        return LOTS.parallelStream().mapToLong(PStream::tiny).sum();
    }

    static long tiny(Integer x) {
        if (!stolen) {
            steal();
        }
        return x ^ 5;
    }

    static Runnable entry(String which) {
        switch (which == null ? "par" : which) {
            case "seq":
                return () -> sink += seq();
            case "big":
                return () -> sink += big();
            case "par":
                return () -> {
                    sink += par();
                    direct = true;
                    sink += each();
                    direct = false;
                };
            case "prim":
                return () -> {
                    sink += prim();
                    direct = true;
                    sink += ints();
                    direct = false;
                };
            case "red":
                return () -> sink += red();
            default:
                throw new IllegalArgumentException("pstream: no entry " + which);
        }
    }

    public static long prim() {
        return ints() + longs();
    }

    static long ints() {
        stolen = false;
        return IntStream.range(0, SMALL).parallel().map(PStream::imap).sum();
    }

    static int imap(int x) {
        spy();
        steal();
        return (int) work(x);
    }

    static long longs() {
        stolen = false;
        return LongStream.range(0, SMALL).parallel().filter(PStream::ltest).count();
    }

    static boolean ltest(long x) {
        steal();
        return work((int) x) % 2 == 0;
    }

    public static long red() {
        stolen = false;
        long r = LIST.parallelStream().reduce(0L, PStream::acc, PStream::comb);
        return r + col() + most() + ired() + ored() + ltotal();
    }

    static Long acc(Long a, Integer x) {
        steal();
        return a + work(x);
    }

    static Long comb(Long a, Long b) {
        return a + b;
    }

    static long col() {
        stolen = false;
        ArrayList<Long> r = LIST.parallelStream().collect(ArrayList::new, PStream::cacc, ArrayList::addAll);
        return r.size();
    }

    static void cacc(ArrayList<Long> to, Integer x) {
        steal();
        to.add(work(x));
    }

    static long most() {
        stolen = false;
        return LIST.parallelStream().max(PStream::cmp).orElse(0);
    }

    static int cmp(Integer a, Integer b) {
        steal();
        return Long.compare(work(a), work(b));
    }

    static long ired() {
        stolen = false;
        return IntStream.range(0, SMALL).parallel().reduce(PStream::isum).orElse(0);
    }

    static int isum(int a, int b) {
        steal();
        return (int) (work(a) + b);
    }

    static long ored() {
        stolen = false;
        return LIST.parallelStream().reduce(PStream::osum).orElse(0);
    }

    static Integer osum(Integer a, Integer b) {
        steal();
        return (int) work(a) + b;
    }

    static long ltotal() {
        return LongStream.range(0, SMALL).reduce(0L, PStream::lsum);
    }

    static long lsum(long a, long b) {
        return a + b;
    }
}
