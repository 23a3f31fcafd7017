package io.opentelemetry.context;

/** This test's copy of OpenTelemetry's Scope. */
public interface Scope extends AutoCloseable {
    @Override
    void close();
}
