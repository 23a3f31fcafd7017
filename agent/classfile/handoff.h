/* handoff.h — the call sites that hand a task to another thread: an
 * executor's execute and submit, ForkJoinPool's, CompletableFuture's
 * *Async stages, StructuredTaskScope.fork, a servlet's AsyncContext.start,
 * a new thread's Runnable, and the function given to a stream operation
 * (which a parallel stream applies on ForkJoin workers).
 * With --follow-async the rewriter passes the task of such a site through
 * a wrapper of the probe class (rewrite.h), which follows it to the thread
 * that runs it. Pure C, no state. */
#ifndef MCT_HANDOFF_H
#define MCT_HANDOFF_H

/* The task's functional interface, which says the wrapper; the HO_S_*
 * kinds are a stream operation's function (ho_task.stream). */
enum ho_kind {
    HO_RUN = 0, HO_CALL, HO_GET, HO_APPLY, HO_ACCEPT,
    HO_S_APPLY, HO_S_TEST, HO_S_ACCEPT, HO_S_TO_INT, HO_S_TO_LONG, HO_S_TO_DOUBLE,
    /* two-argument functions: reduce, collect's accumulator, sorted/min/max */
    HO_S_BI_APPLY, HO_S_BINARY, HO_S_BI_ACCEPT, HO_S_COMPARE,
    /* the primitive streams' own: IntStream's, LongStream's, DoubleStream's */
    HO_S_I_UNARY, HO_S_I_APPLY, HO_S_I_TEST, HO_S_I_ACCEPT, HO_S_I_TO_LONG, HO_S_I_TO_DOUBLE, HO_S_I_BINARY,
    HO_S_I_OBJ_ACCEPT,
    HO_S_L_UNARY, HO_S_L_APPLY, HO_S_L_TEST, HO_S_L_ACCEPT, HO_S_L_TO_INT, HO_S_L_TO_DOUBLE, HO_S_L_BINARY,
    HO_S_L_OBJ_ACCEPT,
    HO_S_D_UNARY, HO_S_D_APPLY, HO_S_D_TEST, HO_S_D_ACCEPT, HO_S_D_TO_INT, HO_S_D_TO_LONG, HO_S_D_BINARY,
    HO_S_D_OBJ_ACCEPT,
    HO_KINDS
};

/* A kind's interface method (what runs on the other thread: the async
 * node's method) and the probe class's wrapper of it (static, taking the
 * task and an int, returning the task or its wrapper). */
typedef struct ho_task {
    const char *iface, *name, *desc;
    const char *wrap, *wrap_desc;
    int stream;       /* the function of a java.util.stream operation: applied
                         any number of times (none too), on the caller's
                         thread or a parallel stream's workers */
} ho_task;

extern const ho_task ho_tasks[HO_KINDS];

/* The probe class's static void method called with the kind's task
 * method's number right after a hand-off site returned: a hand-off whose
 * site threw instead (the executor refused the task) was rejected. */
#define HO_HANDED "handed"

/* Instead of HO_HANDED after a site that returns its task's future (an
 * executor's submit, a CompletableFuture *Async stage): the probe class's
 * static void method taking that future (the rewriter dup's it) and the
 * number, so that a task whose future is done without it is known to be
 * cancelled. */
#define HO_HANDED_FUTURE "handedFuture"
#define HO_HANDED_FUTURE_DESC "(Ljava/lang/Object;I)V"

/* Whether a hand-off site of descriptor desc returns its task's future
 * (Future, CompletableFuture, CompletionStage). */
int ho_returns_future(const char *desc);

/* The kind of the task an invoke of (owner, name, desc) hands off, with
 * *swap set when one more argument follows the task (the Executor, a
 * result, a combiner), or -1 when the invoke is no hand-off. A stream
 * operation (Stream and its primitive kin) is a site when its last
 * argument is a stream kind's interface (map, filter, reduce's identity
 * and operator, sorted) or, when the one before is one too, that one (the
 * accumulator before its combiner: collect, a three-argument reduce).
 * own_executor: owner is an
 * application type known to implement java.util.concurrent.Executor, whose
 * execute and submit are hand-offs as the JDK executors' are. */
int ho_site(const char *owner, const char *name, const char *desc, int own_executor, int *swap);

#endif
