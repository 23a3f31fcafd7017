package io.opentelemetry.api.trace;

/** This test's copy of OpenTelemetry's TraceFlags. */
public interface TraceFlags {
    static TraceFlags fromByte(byte b) {
        return new ImmutableTraceFlags(b);
    }
}
