package io.opentelemetry.context;

/** This test's copy of OpenTelemetry's ContextKey. */
public interface ContextKey<T> {
    static <T> ContextKey<T> named(String name) {
        return new DefaultContextKey<>(name);
    }
}
