package io.opentelemetry.context;

/**
 * This test's copy of the OpenTelemetry API's Context (open-telemetry/
 * opentelemetry-java, context/): the names and field layout --trace-context
 * reads, not the behaviour.
 */
public interface Context {
    static Context root() {
        return ArrayBasedContext.root();
    }

    static Context current() {
        return ThreadLocalContextStorage.INSTANCE.current();
    }

    <V> V get(ContextKey<V> key);

    <V> Context with(ContextKey<V> key, V value);

    default Scope makeCurrent() {
        return ThreadLocalContextStorage.INSTANCE.attach(this);
    }
}
