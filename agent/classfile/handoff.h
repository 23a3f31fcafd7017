/* handoff.h — the call sites that hand a task to another thread: an
 * executor's execute and submit, ForkJoinPool's, CompletableFuture's
 * *Async stages, StructuredTaskScope.fork, a servlet's AsyncContext.start,
 * and a new thread's Runnable.
 * With --follow-async the rewriter passes the task of such a site through
 * a wrapper of the probe class (rewrite.h), which follows it to the thread
 * that runs it. Pure C, no state. */
#ifndef MCT_HANDOFF_H
#define MCT_HANDOFF_H

/* The task's functional interface, which says the wrapper. */
enum ho_kind { HO_RUN = 0, HO_CALL, HO_GET, HO_APPLY, HO_ACCEPT, HO_KINDS };

/* A kind's interface method (what runs on the other thread: the async
 * node's method) and the probe class's wrapper of it (static, taking the
 * task and an int, returning the task or its wrapper). */
typedef struct ho_task {
    const char *iface, *name, *desc;
    const char *wrap, *wrap_desc;
} ho_task;

extern const ho_task ho_tasks[HO_KINDS];

/* The probe class's static void method called with the kind's task
 * method's number right after a hand-off site returned: a hand-off whose
 * site threw instead (the executor refused the task) was rejected. */
#define HO_HANDED "handed"

/* The kind of the task an invoke of (owner, name, desc) hands off, with
 * *swap set when one more argument follows the task (the Executor, a
 * result), or -1 when the invoke is no hand-off. */
int ho_site(const char *owner, const char *name, const char *desc, int *swap);

#endif
