package io.opentelemetry.api.trace;

/** This test's copy of OpenTelemetry's SpanContext. */
public interface SpanContext {
    static SpanContext create(String traceIdHex, String spanIdHex, TraceFlags traceFlags) {
        return new AutoValue_ImmutableSpanContext(traceIdHex, spanIdHex, traceFlags, null, false);
    }

    static SpanContext getInvalid() {
        return create("00000000000000000000000000000000", "0000000000000000", TraceFlags.fromByte((byte) 0));
    }

    String getTraceId();

    String getSpanId();
}
