package io.opentelemetry.context;

/**
 * This test's copy of OpenTelemetry's ThreadLocalContextStorage: the
 * current Context in THREAD_LOCAL_STORAGE, a ThreadLocal.withInitial.
 */
enum ThreadLocalContextStorage {
    INSTANCE;

    private static final ThreadLocal<Context> THREAD_LOCAL_STORAGE = ThreadLocal.withInitial(Context::root);

    Scope attach(Context toAttach) {
        Context before = current();
        THREAD_LOCAL_STORAGE.set(toAttach);
        return () -> THREAD_LOCAL_STORAGE.set(before);
    }

    Context current() {
        return THREAD_LOCAL_STORAGE.get();
    }
}
