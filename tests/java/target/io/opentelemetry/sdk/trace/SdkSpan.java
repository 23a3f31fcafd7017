package io.opentelemetry.sdk.trace;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;

/** This test's copy of the OpenTelemetry SDK's SdkSpan: its context field. */
public final class SdkSpan implements Span {
    private final String name;
    private final SpanContext context;

    public SdkSpan(String name, SpanContext context) {
        this.name = name;
        this.context = context;
    }

    @Override
    public SpanContext getSpanContext() {
        return context;
    }

    @Override
    public String toString() {
        return name;
    }
}
