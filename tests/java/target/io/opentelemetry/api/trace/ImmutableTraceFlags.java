package io.opentelemetry.api.trace;

/** This test's copy of OpenTelemetry's ImmutableTraceFlags: hexRep, byteRep. */
final class ImmutableTraceFlags implements TraceFlags {
    private final String hexRep;
    private final byte byteRep;

    ImmutableTraceFlags(byte b) {
        this.hexRep = String.format("%02x", b & 0xff);
        this.byteRep = b;
    }
}
