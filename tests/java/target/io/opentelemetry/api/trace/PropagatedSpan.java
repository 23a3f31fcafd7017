package io.opentelemetry.api.trace;

/** This test's copy of OpenTelemetry's PropagatedSpan: its spanContext field. */
final class PropagatedSpan implements Span {
    private final SpanContext spanContext;

    PropagatedSpan(SpanContext spanContext) {
        this.spanContext = spanContext;
    }

    @Override
    public SpanContext getSpanContext() {
        return spanContext;
    }
}
