package io.opentelemetry.api.trace;

import io.opentelemetry.context.Context;

/** This test's copy of OpenTelemetry's Span: stored under SpanContextKey.KEY. */
public interface Span {
    static Span wrap(SpanContext spanContext) {
        return new PropagatedSpan(spanContext);
    }

    SpanContext getSpanContext();

    default Context storeInContext(Context context) {
        return context.with(SpanContextKey.KEY, this);
    }
}
