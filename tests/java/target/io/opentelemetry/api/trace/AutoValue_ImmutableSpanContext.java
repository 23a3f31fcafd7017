package io.opentelemetry.api.trace;

/**
 * This test's copy of the class AutoValue generates for OpenTelemetry's
 * ImmutableSpanContext: a field per property.
 */
final class AutoValue_ImmutableSpanContext implements SpanContext {
    private final String traceId;
    private final String spanId;
    private final TraceFlags traceFlags;
    private final Object traceState;
    private final boolean remote;

    AutoValue_ImmutableSpanContext(String traceId, String spanId, TraceFlags traceFlags, Object traceState,
                                   boolean remote) {
        this.traceId = traceId;
        this.spanId = spanId;
        this.traceFlags = traceFlags;
        this.traceState = traceState;
        this.remote = remote;
    }

    @Override
    public String getTraceId() {
        return traceId;
    }

    @Override
    public String getSpanId() {
        return spanId;
    }
}
