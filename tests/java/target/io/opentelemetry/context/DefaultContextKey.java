package io.opentelemetry.context;

/** This test's copy of OpenTelemetry's DefaultContextKey: its name field. */
final class DefaultContextKey<T> implements ContextKey<T> {
    private final String name;

    DefaultContextKey(String name) {
        this.name = name;
    }

    @Override
    public String toString() {
        return name;
    }
}
