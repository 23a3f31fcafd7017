package tgt;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.SdkSpan;
import java.lang.reflect.Method;

/**
 * --trace-context's targets. Each request sets its thread's trace context,
 * calls handle(req) (the traced entry method; --args tells a test which
 * request a call served), then takes the context back, as a server's
 * tracing filter does.
 * <ul>
 * <li>scenario w3c: the application's own ThreadLocal&lt;String&gt; TRACEPARENT
 * (and the InheritableThreadLocal INHERITED) holds the request's W3C
 * traceparent, by req % 8: 0 and 4 a valid one,
 * flags 01; 3 valid, flags 00; 7 a later version (01) with a field
 * appended, valid; 1 and 5 none; 2 an all-zero trace id and 6 uppercase
 * hex, both invalid.</li>
 * <li>scenario otel: OpenTelemetry's API storage, as this test's own copy of
 * its classes lays it out (tests/java/target/io/opentelemetry: the real
 * class and field names), by req % 4: 0 an SDK span (SdkSpan.context), 2 a
 * propagated one (PropagatedSpan.spanContext), both flags 01; 1 the root
 * context (no span); 3 the invalid span (all-zero ids: no span).</li>
 * </ul>
 * The ids derive from req: traceId(req), spanId(req).
 */
public final class W3c {
    /** The application's traceparent holder (scenario w3c). */
    static final ThreadLocal<String> TRACEPARENT = new ThreadLocal<>();
    /** The same value, inherited by threads this one starts (scenario w3c). */
    static final InheritableThreadLocal<String> INHERITED = new InheritableThreadLocal<>();
    /** A ThreadLocal subclass: --trace-context refuses it. */
    static final ThreadLocal<String> SUBCLASSED = new ThreadLocal<>() {
        @Override
        protected String initialValue() {
            return "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        }
    };
    /** Not a ThreadLocal: --trace-context refuses it. */
    static final String NOT_THREAD_LOCAL = "x";

    static volatile long sink;

    private W3c() {
    }

    /** The wrap form's program: n requests of scenario w3c (default 400), a few ms apart, then exits. */
    public static void main(String[] args) throws InterruptedException {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 400;
        Runnable r = entry();

        for (int i = 0; i < n; i++) {
            r.run();
            Thread.sleep(5);
        }
    }

    static String traceId(int req) {
        return String.format("4bf92f3577b34da6a3ce%012x", req);
    }

    static String spanId(int req) {
        return String.format("00f067aa%08x", req);
    }

    /** Request req's traceparent in scenario w3c, or null. */
    static String traceparent(int req) {
        switch (req % 8) {
            case 1:
            case 5:
                return null;
            case 2:
                return "00-00000000000000000000000000000000-" + spanId(req) + "-01";
            case 6:
                return "00-" + traceId(req).toUpperCase() + "-" + spanId(req) + "-01";
            case 3:
                return "00-" + traceId(req) + "-" + spanId(req) + "-00";
            case 7:
                return "01-" + traceId(req) + "-" + spanId(req) + "-01-later";
            default:
                return "00-" + traceId(req) + "-" + spanId(req) + "-01";
        }
    }

    /** The traced entry method. */
    static int handle(int req) {
        return work(req) + 1;
    }

    static int work(int req) {
        return req * 3;
    }

    /** Scenario w3c's request loop body. */
    static Runnable entry() {
        int[] next = {0};
        return () -> {
            int req = next[0]++;
            String tp = traceparent(req);
            if (tp != null) {
                TRACEPARENT.set(tp);
                INHERITED.set(tp);
            }
            try {
                sink += handle(req);
            } finally {
                TRACEPARENT.remove();
                INHERITED.remove();
            }
        };
    }

    /**
     * r run on a virtual thread of its own each time (JDK 21+, reached by
     * reflection: the targets build on older JDKs too).
     */
    static Runnable onVirtual(Runnable r) throws ReflectiveOperationException {
        Method start = Thread.class.getMethod("startVirtualThread", Runnable.class);
        return () -> {
            try {
                ((Thread) start.invoke(null, r)).join();
            } catch (ReflectiveOperationException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        };
    }

    /** Scenario otel's context of request req. */
    static Context otelContext(int req) {
        TraceFlags sampled = TraceFlags.fromByte((byte) 1);
        switch (req % 4) {
            case 0:
                return new SdkSpan("request " + req, SpanContext.create(traceId(req), spanId(req), sampled))
                    .storeInContext(Context.root());
            case 2:
                return Span.wrap(SpanContext.create(traceId(req), spanId(req), sampled)).storeInContext(Context.root());
            case 3:
                return Span.wrap(SpanContext.getInvalid()).storeInContext(Context.root());
            default:
                return Context.root();
        }
    }

    /** Scenario otel's request loop body. */
    static Runnable otel() {
        Context.current(); // the storage class initialised before READY
        int[] next = {0};
        return () -> {
            int req = next[0]++;
            try (Scope s = otelContext(req).makeCurrent()) {
                sink += handle(req);
            }
        };
    }
}
