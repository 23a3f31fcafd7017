/* handoff.c — see handoff.h.
 *
 * A site is known by the static type the caller invokes on (javac names
 * it): the executor interfaces and classes of java.util.concurrent,
 * CompletableFuture/CompletionStage, StructuredTaskScope.fork, a servlet's
 * AsyncContext.start, and a new Thread (its constructor,
 * Thread.startVirtualThread, a Thread.Builder's start and unstarted), and
 * the executor types of the application that the caller says implement
 * Executor, and the operations of the streams (Stream and its primitive
 * kin) whose one argument is a function of a stream kind. The task is the
 * first argument; but at a stream's, one reference argument may follow it
 * (an Executor, a result, a thread's name). A thread of the application's
 * own type is a hand-off only when called through one of these types. */
#include "handoff.h"

#include <string.h>

const ho_task ho_tasks[HO_KINDS] = {
    [HO_RUN] = {"java/lang/Runnable", "run", "()V", "wrapRun", "(Ljava/lang/Runnable;I)Ljava/lang/Runnable;"},
    [HO_CALL] = {"java/util/concurrent/Callable", "call", "()Ljava/lang/Object;", "wrapCall",
                 "(Ljava/util/concurrent/Callable;I)Ljava/util/concurrent/Callable;"},
    [HO_GET] = {"java/util/function/Supplier", "get", "()Ljava/lang/Object;", "wrapGet",
                "(Ljava/util/function/Supplier;I)Ljava/util/function/Supplier;"},
    [HO_APPLY] = {"java/util/function/Function", "apply", "(Ljava/lang/Object;)Ljava/lang/Object;", "wrapApply",
                  "(Ljava/util/function/Function;I)Ljava/util/function/Function;"},
    [HO_ACCEPT] = {"java/util/function/Consumer", "accept", "(Ljava/lang/Object;)V", "wrapAccept",
                   "(Ljava/util/function/Consumer;I)Ljava/util/function/Consumer;"},
    [HO_S_APPLY] = {"java/util/function/Function", "apply", "(Ljava/lang/Object;)Ljava/lang/Object;", "streamApply",
                    "(Ljava/util/function/Function;I)Ljava/util/function/Function;", 1},
    [HO_S_TEST] = {"java/util/function/Predicate", "test", "(Ljava/lang/Object;)Z", "streamTest",
                   "(Ljava/util/function/Predicate;I)Ljava/util/function/Predicate;", 1},
    [HO_S_ACCEPT] = {"java/util/function/Consumer", "accept", "(Ljava/lang/Object;)V", "streamAccept",
                     "(Ljava/util/function/Consumer;I)Ljava/util/function/Consumer;", 1},
    [HO_S_TO_INT] = {"java/util/function/ToIntFunction", "applyAsInt", "(Ljava/lang/Object;)I", "streamToInt",
                     "(Ljava/util/function/ToIntFunction;I)Ljava/util/function/ToIntFunction;", 1},
    [HO_S_TO_LONG] = {"java/util/function/ToLongFunction", "applyAsLong", "(Ljava/lang/Object;)J", "streamToLong",
                      "(Ljava/util/function/ToLongFunction;I)Ljava/util/function/ToLongFunction;", 1},
    [HO_S_TO_DOUBLE] = {"java/util/function/ToDoubleFunction", "applyAsDouble", "(Ljava/lang/Object;)D",
                        "streamToDouble", "(Ljava/util/function/ToDoubleFunction;I)Ljava/util/function/ToDoubleFunction;",
                        1},
};

static const char *const executors[] = {
    "java/util/concurrent/Executor",        "java/util/concurrent/ExecutorService",
    "java/util/concurrent/ScheduledExecutorService", "java/util/concurrent/AbstractExecutorService",
    "java/util/concurrent/ThreadPoolExecutor", "java/util/concurrent/ForkJoinPool",
};

static const char *const stages[] = {
    "java/util/concurrent/CompletableFuture",
    "java/util/concurrent/CompletionStage",
};

static const char *const streams[] = {
    "java/util/stream/Stream", "java/util/stream/IntStream",
    "java/util/stream/LongStream", "java/util/stream/DoubleStream",
};

static const char *const builders[] = {
    "java/lang/Thread$Builder",
    "java/lang/Thread$Builder$OfPlatform",
    "java/lang/Thread$Builder$OfVirtual",
};

static int one_of(const char *s, const char *const *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, set[i]) == 0)
            return 1;
    return 0;
}

/* The end of the field descriptor of a reference at p ("L...;"), or NULL. */
static const char *ref_end(const char *p)
{
    const char *e;

    if (*p != 'L' || (e = strchr(p, ';')) == NULL)
        return NULL;
    return e + 1;
}

int ho_returns_future(const char *desc)
{
    const char *r = strrchr(desc, ')');

    return r != NULL && (strcmp(r + 1, "Ljava/util/concurrent/Future;") == 0 ||
                         strcmp(r + 1, "Ljava/util/concurrent/CompletableFuture;") == 0 ||
                         strcmp(r + 1, "Ljava/util/concurrent/CompletionStage;") == 0);
}

int ho_site(const char *owner, const char *name, const char *desc, int own_executor, int *swap)
{
    size_t len = strlen(name);
    const char *p, *end;
    int k, stream = 0;

    if (own_executor || one_of(owner, executors, sizeof executors / sizeof *executors)) {
        if (strcmp(name, "execute") != 0 && strcmp(name, "submit") != 0)
            return -1;
    } else if (one_of(owner, stages, sizeof stages / sizeof *stages)) {
        if (len <= 5 || strcmp(name + len - 5, "Async") != 0)
            return -1;
    } else if (strcmp(owner, "java/lang/Thread") == 0) {
        if (strcmp(name, "<init>") != 0 && strcmp(name, "startVirtualThread") != 0)
            return -1;
    } else if (one_of(owner, builders, sizeof builders / sizeof *builders)) {
        if (strcmp(name, "start") != 0 && strcmp(name, "unstarted") != 0)
            return -1;
    } else if (strcmp(owner, "java/util/concurrent/StructuredTaskScope") == 0) {
        if (strcmp(name, "fork") != 0)
            return -1;
    } else if (one_of(owner, streams, sizeof streams / sizeof *streams)) {
        stream = 1;
    } else if (strcmp(owner, "jakarta/servlet/AsyncContext") == 0 || strcmp(owner, "javax/servlet/AsyncContext") == 0) {
        if (strcmp(name, "start") != 0)
            return -1;
    } else {
        return -1;
    }
    if (desc[0] != '(' || (end = ref_end(desc + 1)) == NULL)
        return -1;
    for (k = 0; k < HO_KINDS; k++) {
        size_t n = strlen(ho_tasks[k].iface);

        if (ho_tasks[k].stream == stream && (size_t)(end - desc) == n + 3 &&
            strncmp(desc + 2, ho_tasks[k].iface, n) == 0)
            break;
    }
    if (k == HO_KINDS || (stream && *end != ')'))
        return -1;
    if (*end == ')') {
        *swap = 0;
        return k;
    }
    if ((p = ref_end(end)) == NULL || *p != ')')
        return -1;
    *swap = 1;
    return k;
}
