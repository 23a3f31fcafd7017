/* splan.h — the session's plan: what the session planned, numbered and
 * instrumented, and what became of each method (the `plan` message), and
 * the classes that load while it runs (late classes): the hook's callback
 * extends the plan below a class that loads, and the session thread plans
 * and instruments what that finds (splan_extend). It also owns the
 * receivers of an inherited entry method (copies of the named class, watched
 * with ClassPrepare) and the probes' measured cost the plan reports.
 *
 * Threads and locks: the session thread calls every function here; the
 * class file hook (instrument.c) calls the load callback splan_watch_loads
 * installs, under the hook's lock, on the thread that loads the class, and
 * the ClassPrepare callback runs on any thread (it only touches the
 * probes' receivers, which lock themselves). mlock guards the method
 * lists, the seeds and early classes the hook queues, `ready` and `late`;
 * the hook takes it under its own lock, so nothing here takes the hook's
 * lock (inst_add, inst_retransform) while holding mlock. The listener never
 * looks here (session.c shows the request, under slock). An smethod's
 * outcome is written by the hook through inst_outcome (atomically) and
 * read with acquire. */
#ifndef MCT_SPLAN_H
#define MCT_SPLAN_H

#include <jansson.h>
#include <jni.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "err.h"
#include "hier_jvmti.h"
#include "msg.h"
#include "planner.h"
#include "probe.h"
#include "probe_cost.h"

struct smethod;

struct splan {
    /* the request (borrowed from it) and the session's number */
    uint32_t gen;
    const char *cls, *method, *desc, *regex;
    int depth, include_jdk;
    int follow_async;           /* hand-off sites are followed (set before splan_instrument) */
    int skip_trivial;           /* trivial methods are left as they are (set before splan_instrument) */
    /* the plan; the hook adds to it as classes load (under mlock) */
    plan *plan;
    pthread_mutex_t mlock;
    int ready;                 /* instrumented: the hook may extend the plan */
    struct smethod **methods;  /* one per plan entry, in plan order */
    size_t n_methods, cap_methods;
    struct smethod **pending;  /* those whose class had not loaded */
    size_t n_pending, cap_pending;
    plan_seed *seeds;          /* for the next plan_extend */
    size_t n_seeds, cap_seeds;
    char **early;              /* classes that loaded before `ready` */
    size_t n_early, cap_early;
    size_t late;               /* methods instrumented after the plan was sent */
    /* what the plan message reports */
    double plan_ms, instrument_ms;
    size_t loaded_classes;
    int receiver;              /* an inherited entry method: calls on the named class only */
    clock_cal cal;             /* the session thread refreshes it as it drains */
    probe_cost probe;          /* measured as the session starts (bursts 0: not) */
};

/* Counts of the methods by status name (PROTOCOL.md, `plan`). */
struct splan_tally {
    size_t instrumented, pending, skipped, failed, excluded, planned, trivial;
};

/* Sets s up for session gen with the request's fields (borrowed: they
 * must outlive s). */
void splan_init(struct splan *s, uint32_t gen, const char *cls, const char *method, const char *desc,
                const char *regex, int depth, int include_jdk);

/* Frees what s holds (the plan, the methods, what the hook queued); the
 * load callback must be gone (splan_unwatch_loads). */
void splan_free(struct splan *s);

/* From now on the hook tells s of every class that loads (kept until s is
 * ready, then planned below); splan_unwatch_loads stops it. */
void splan_watch_loads(struct splan *s);
void splan_unwatch_loads(void);

/* Plans from the request over a snapshot of the loaded classes (*hier,
 * which the caller frees, even on failure); gone(gone_arg) says the client
 * left (planning stops). 0, or -1 with err set. */
int splan_make(struct splan *s, JNIEnv *jni, hj **hier, int (*gone)(void *), void *gone_arg, mct_err *err);

/* Measures the probes' cost (before instrumenting). */
void splan_calibrate(struct splan *s, JNIEnv *jni);

/* Numbers the methods to instrument, tells the hook about them (with
 * follow_async, the application's executor types among hier's classes
 * too), retransforms their loaded classes, follows the receivers and
 * starts the probes for the session. 0, or -1 with err set. */
int splan_instrument(struct splan *s, JNIEnv *jni, hj *hier, mct_err *err);

/* The plan was sent: the hook may extend it from now on. */
void splan_ready(struct splan *s);

/* Plans and instruments below the classes loaded since the last call;
 * first: the pass right after the plan was sent. */
void splan_extend(struct splan *s, JNIEnv *jni, int first);

/* The methods counted by status; methods instrumented after the plan was
 * sent. */
struct splan_tally splan_tally(struct splan *s);
size_t splan_late(struct splan *s);

/* The `plan` message: a new reference, NULL when out of memory. */
json_t *splan_json(struct splan *s);

/* The probes' figures in ns (PROTOCOL.md, `probe`), once measured. */
struct msg_probe splan_probe(const struct splan *s);

#endif
