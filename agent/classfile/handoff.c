/* handoff.c — see handoff.h.
 *
 * A site is known by the static type the caller invokes on (javac names
 * it): the executor interfaces and classes of java.util.concurrent,
 * CompletableFuture/CompletionStage, StructuredTaskScope.fork, a servlet's
 * AsyncContext.start, and a new Thread (its constructor,
 * Thread.startVirtualThread, a Thread.Builder's start and unstarted), and
 * the executor types of the application that the caller says implement
 * Executor, and the operations of the streams (Stream and its primitive
 * kin) that take a function of a stream kind last (handoff.h). Elsewhere
 * the task is the first argument, and one reference argument may follow
 * it (an Executor, a result, a thread's name). A thread of the application's
 * own type is a hand-off only when called through one of these types. */
#include "handoff.h"

#include <string.h>

/* A stream kind: the java.util.function interface I, its method and the
 * probe class's wrapper "stream" I. */
#define HO_FN "java/util/function/"
#define S(I, NAME, DESC) {HO_FN I, NAME, DESC, "stream" I, "(L" HO_FN I ";I)L" HO_FN I ";", 1}

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
    [HO_S_BI_APPLY] = S("BiFunction", "apply", "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;"),
    [HO_S_BINARY] = S("BinaryOperator", "apply", "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;"),
    [HO_S_BI_ACCEPT] = S("BiConsumer", "accept", "(Ljava/lang/Object;Ljava/lang/Object;)V"),
    [HO_S_COMPARE] = {"java/util/Comparator", "compare", "(Ljava/lang/Object;Ljava/lang/Object;)I", "streamComparator",
                      "(Ljava/util/Comparator;I)Ljava/util/Comparator;", 1},
    [HO_S_I_UNARY] = S("IntUnaryOperator", "applyAsInt", "(I)I"),
    [HO_S_I_APPLY] = S("IntFunction", "apply", "(I)Ljava/lang/Object;"),
    [HO_S_I_TEST] = S("IntPredicate", "test", "(I)Z"),
    [HO_S_I_ACCEPT] = S("IntConsumer", "accept", "(I)V"),
    [HO_S_I_TO_LONG] = S("IntToLongFunction", "applyAsLong", "(I)J"),
    [HO_S_I_TO_DOUBLE] = S("IntToDoubleFunction", "applyAsDouble", "(I)D"),
    [HO_S_I_BINARY] = S("IntBinaryOperator", "applyAsInt", "(II)I"),
    [HO_S_I_OBJ_ACCEPT] = S("ObjIntConsumer", "accept", "(Ljava/lang/Object;I)V"),
    [HO_S_L_UNARY] = S("LongUnaryOperator", "applyAsLong", "(J)J"),
    [HO_S_L_APPLY] = S("LongFunction", "apply", "(J)Ljava/lang/Object;"),
    [HO_S_L_TEST] = S("LongPredicate", "test", "(J)Z"),
    [HO_S_L_ACCEPT] = S("LongConsumer", "accept", "(J)V"),
    [HO_S_L_TO_INT] = S("LongToIntFunction", "applyAsInt", "(J)I"),
    [HO_S_L_TO_DOUBLE] = S("LongToDoubleFunction", "applyAsDouble", "(J)D"),
    [HO_S_L_BINARY] = S("LongBinaryOperator", "applyAsLong", "(JJ)J"),
    [HO_S_L_OBJ_ACCEPT] = S("ObjLongConsumer", "accept", "(Ljava/lang/Object;J)V"),
    [HO_S_D_UNARY] = S("DoubleUnaryOperator", "applyAsDouble", "(D)D"),
    [HO_S_D_APPLY] = S("DoubleFunction", "apply", "(D)Ljava/lang/Object;"),
    [HO_S_D_TEST] = S("DoublePredicate", "test", "(D)Z"),
    [HO_S_D_ACCEPT] = S("DoubleConsumer", "accept", "(D)V"),
    [HO_S_D_TO_INT] = S("DoubleToIntFunction", "applyAsInt", "(D)I"),
    [HO_S_D_TO_LONG] = S("DoubleToLongFunction", "applyAsLong", "(D)J"),
    [HO_S_D_BINARY] = S("DoubleBinaryOperator", "applyAsDouble", "(DD)D"),
    [HO_S_D_OBJ_ACCEPT] = S("ObjDoubleConsumer", "accept", "(Ljava/lang/Object;D)V"),
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

/* The stream kind of the reference argument [p, end), or -1. */
static int stream_kind(const char *p, const char *end)
{
    for (int k = 0; k < HO_KINDS; k++) {
        size_t n = strlen(ho_tasks[k].iface);

        if (ho_tasks[k].stream && (size_t)(end - p) == n + 2 && strncmp(p + 1, ho_tasks[k].iface, n) == 0)
            return k;
    }
    return -1;
}

/* A stream operation of descriptor desc: the kind of its last argument,
 * or of the one before when both are stream kinds (swap set), or -1. */
static int stream_site(const char *desc, int *swap)
{
    const char *p = desc + 1, *prev = NULL, *last = NULL, *end = NULL, *e;

    if (desc[0] != '(')
        return -1;
    while (*p != ')') {
        e = p;
        while (*e == '[')
            e++;
        if (*e == 'L') {
            if ((e = ref_end(e)) == NULL)
                return -1;
        } else if (*e == '\0') {
            return -1;
        } else {
            e++;
        }
        prev = last;
        last = p;
        end = e;
        p = e;
    }
    if (last == NULL || *last != 'L' || stream_kind(last, end) < 0)
        return -1;
    if (prev != NULL && *prev == 'L' && stream_kind(prev, last) >= 0) {
        *swap = 1;
        return stream_kind(prev, last);
    }
    *swap = 0;
    return stream_kind(last, end);
}

int ho_site(const char *owner, const char *name, const char *desc, int own_executor, int *swap)
{
    size_t len = strlen(name);
    const char *p, *end;
    int k;

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
        return stream_site(desc, swap);
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

        if (!ho_tasks[k].stream && (size_t)(end - desc) == n + 3 && strncmp(desc + 2, ho_tasks[k].iface, n) == 0)
            break;
    }
    if (k == HO_KINDS)
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
