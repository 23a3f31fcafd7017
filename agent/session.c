/* session.c — see session.h. */
#include "session.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "classfile.h"
#include "clock.h"
#include "diag.h"
#include "hier_jvmti.h"
#include "instrument.h"
#include "methods.h"
#include "msg.h"
#include "mutf8.h"
#include "planner.h"
#include "probe.h"
#include "server.h"
#include "tree.h"
#include "vm.h"

/* One planned method and what became of it. Allocated one by one: the
 * class file hook writes the outcome through a pointer to it. */
struct smethod {
    const plan_method *pm;
    int32_t id;                /* -1 when not numbered (excluded, or plan only) */
    int seeded;                /* its class loaded: handed to plan_extend */
    inst_outcome out;
};

struct session {
    uint32_t gen;
    int fd;
    pthread_mutex_t wlock;     /* one writer on fd at a time */
    json_t *req;
    long long client_pid;
    /* the request */
    const char *cls, *method, *desc, *regex;
    int depth, include_jdk, plan_only, verbose;
    uint64_t min_ns, count;
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
    double plan_ms, instrument_ms;
    size_t loaded_classes;
    int receiver;              /* an inherited entry method: calls on the named class only */
    /* the run */
    int64_t started_ns;
    uint64_t seq;              /* of the last call sent */
    /* calls and printed: the listener reads them (hello, busy), so they
     * are written atomically; only the session thread writes. */
    uint64_t calls, printed, filtered, dropped_base;
    uint64_t last_status_ns, last_extend_ns, last_unload_ns;
    size_t unloaded;           /* instrumented copies of classes found unloaded */
    const char *end_reason;    /* why it ends; set by the session thread only */
    int closing;               /* ending: calls still in the rings are discarded */
    int broken;                /* a write failed: nothing more is written */
    uint64_t discarded;        /* calls of the session discarded at its end */
    uint64_t checked_ns;       /* when the client was last looked at */
    char end_detail[256];
    _Atomic int death_told;    /* the VMDeath thread told the client */
    clock_cal cal;
    probe_cost probe;          /* measured as the session starts (bursts 0: not) */
    probe_ev *scratch;
    size_t scratch_cap;
    struct ready *heap;        /* drain's */
    size_t cap_heap;
    jmethodID thread_id;
};

/* The `end` gets this long: the classes are restored already, and a client
 * that does not read it must not hold the worker. */
#define END_SEND_MS 500

/* How often the session looks for instrumented classes that were
 * unloaded (inst_unloaded). */
#define UNLOAD_CHECK_NS 250000000u

/* While it drains, the worker looks for a stop or a hang-up this often. */
#define CLIENT_CHECK_NS 2000000u

/* At the end, how long the worker waits for calls still running to return,
 * so that their threads' rings can be shrunk; the listener's tick tidies
 * what is left. */
#define RECLAIM_WAIT_MS 100

static pthread_mutex_t slock = PTHREAD_MUTEX_INITIALIZER;
static struct session *current;
/* The consumer side of the rings (drain, probe_maintain, probe_shrink) has
 * one thread at a time: a session holds it from its start until its rings
 * are shrunk, after it stopped being `current`. */
static pthread_mutex_t consumer = PTHREAD_MUTEX_INITIALIZER;
static int untidy;    /* a ring was left big: on_tick tries again */
static uint32_t next_gen = 1;

static uint64_t now_ns(void)
{
    return clock_monotonic_ns();
}

static int64_t wall_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* "com/shop/Cart" -> "com.shop.Cart" into buf. */
static const char *dotted(const char *internal, char *buf, size_t size)
{
    size_t i;

    for (i = 0; internal[i] != '\0' && i + 1 < size; i++)
        buf[i] = internal[i] == '/' ? '.' : internal[i];
    buf[i] = '\0';
    return buf;
}

/* --- writing to the client ----------------------------------------------------------- */

/* Ends the session for reason (the first reason given stays): from now on
 * the calls still in the rings are discarded, not sent. */
static void end_session(struct session *s, const char *reason)
{
    if (s->end_reason == NULL)
        s->end_reason = reason;
    __atomic_store_n(&s->closing, 1, __ATOMIC_RELEASE);
}

/* Sends msg (stolen), within total_ms when > 0; on failure the session
 * ends: the client is gone, or accepted no byte for PROTO_STALL_S. What
 * follows a failed write would not be a frame: nothing more is sent. */
static int send_within(struct session *s, json_t *msg, long long total_ms)
{
    mct_err err;
    int rc = -1;

    if (msg == NULL)
        return -1;
    pthread_mutex_lock(&s->wlock);
    if (s->fd >= 0 && !s->broken) {
        rc = proto_write_within(s->fd, msg, PROTO_STALL_S * 1000LL, total_ms, &err);
        if (rc < 0) {
            s->broken = 1;
            vm_debug("session of client pid %lld: %s; the session ends", s->client_pid, err.msg);
        }
    }
    pthread_mutex_unlock(&s->wlock);
    json_decref(msg);
    if (rc < 0)
        end_session(s, "client_gone");
    return rc;
}

static int send_msg(struct session *s, json_t *msg)
{
    return send_within(s, msg, 0);
}

static void send_error(struct session *s, const mct_err *err)
{
    send_msg(s, msg_error_write(&(struct msg_error){ .code = proto_code_of_err(err->code), .message = err->msg }));
}

/* --- the plan -------------------------------------------------------------------------- */

static const char *status_name(const struct smethod *m)
{
    switch (m->pm->status) {
    case PLAN_EXCLUDED:
        return "excluded";
    case PLAN_PENDING:
        if (__atomic_load_n(&m->out.status, __ATOMIC_ACQUIRE) == INST_WAITING)
            return "pending";
        break;
    default:
        break;
    }
    switch (__atomic_load_n(&m->out.status, __ATOMIC_ACQUIRE)) {
    case INST_DONE: return "instrumented";
    case INST_SKIPPED: return "skipped";
    case INST_FAILED: return "failed";
    default: return m->id < 0 ? "planned" : "waiting";
    }
}

/* Counts of the methods by status name. */
struct tally {
    size_t instrumented, pending, skipped, failed, excluded, planned;
};

static struct tally tally(struct session *s)
{
    struct tally t = {0};
    size_t i;

    pthread_mutex_lock(&s->mlock);
    for (i = 0; i < s->n_methods; i++) {
        const char *st = status_name(s->methods[i]);

        if (strcmp(st, "instrumented") == 0)
            t.instrumented++;
        else if (strcmp(st, "pending") == 0)
            t.pending++;
        else if (strcmp(st, "excluded") == 0)
            t.excluded++;
        else if (strcmp(st, "failed") == 0)
            t.failed++;
        else if (strcmp(st, "planned") == 0)
            t.planned++;
        else
            t.skipped++;
    }
    pthread_mutex_unlock(&s->mlock);
    return t;
}

/* --- the probes' cost ------------------------------------------------------------------ */

/* Measures what a probe call costs, before instrumenting: no traced call
 * waits for it, and the JIT is not yet busy with the instrumented code.
 * Each session measures anew: the JVM's load changes. */
static void calibrate(struct session *s, JNIEnv *jni)
{
    /* When it cannot, nothing is subtracted and the client says so. */
    probe_calibrate(jni, &s->probe);
    s->cal = clock_calibration();
}

/* The figures of probe_calibrate in ns (PROTOCOL.md, `probe`), once the
 * session measured them (bursts > 0). */
static struct msg_probe probe_json(const struct session *s)
{
    const probe_cost *p = &s->probe;
    double k = s->cal.ns_per_tick;

    return (struct msg_probe){ .ns = p->ticks * k, .measured_ns = p->measured * k, .median_ns = p->median * k,
                               .floor_ns = p->floor * k, .trusted = p->trusted, .bursts = p->bursts };
}

/* What the regex decided (plan_regex) and whether only the calls on the
 * named class are traced, into the plan's summary (borrowing from the plan
 * and the request). */
static void regex_json(const struct session *s, struct msg_plan_summary *summary)
{
    plan_regex_seen seen = plan_regex(s->plan);

    summary->callee_classes = (long long)seen.callee_classes;
    summary->matched_classes = (long long)seen.matched_classes;
    summary->suggestion = seen.suggestion;
    summary->suggestion_matches = seen.suggestion != NULL ? (long long)seen.suggestion_matches : -1;
    summary->receiver = s->receiver ? s->cls : NULL;
}

static json_t *plan_json(struct session *s)
{
    struct tally t = tally(s);
    struct msg_plan p = {
        .summary = { .instrumented = (long long)t.instrumented, .pending = (long long)t.pending,
                     .skipped = (long long)t.skipped, .failed = (long long)t.failed,
                     .excluded = (long long)t.excluded, .planned = (long long)t.planned,
                     .capped = plan_capped(s->plan), .plan_ms = s->plan_ms, .instrument_ms = s->instrument_ms,
                     .loaded_classes = (long long)s->loaded_classes, .clock = clock_source(),
                     .has_probe = s->probe.bursts > 0, .probe = probe_json(s) },
    };
    struct msg_plan_method *ms;
    char **names;   /* the UTF-8 copies the methods borrow, four per method */
    char cls[1024];
    json_t *msg = NULL;
    size_t i, n = 0, count;

    regex_json(s, &p.summary);
    pthread_mutex_lock(&s->mlock);
    count = s->n_methods;
    ms = calloc(count + 1, sizeof *ms);
    names = calloc(4 * count + 1, sizeof *names);
    for (i = 0; ms != NULL && names != NULL && i < count; i++) {
        const struct smethod *m = s->methods[i];
        const char *st = status_name(m);
        const char *reason = m->pm->status == PLAN_EXCLUDED ? m->pm->reason
                             : (strcmp(st, "skipped") == 0 || strcmp(st, "failed") == 0) ? m->out.reason
                             : m->pm->reason;
        char **own = names + 4 * i;

        /* Names from class files: modified UTF-8; a reason may hold such
         * names, and be cut mid-character. */
        own[0] = mutf8_dup(dotted(m->pm->class_name, cls, sizeof cls));
        own[1] = mutf8_dup(m->pm->name);
        own[2] = mutf8_dup(m->pm->desc);
        own[3] = reason != NULL && reason[0] != '\0' ? mutf8_dup(reason) : NULL;
        if (own[0] == NULL || own[1] == NULL || own[2] == NULL)
            continue;
        ms[n++] = (struct msg_plan_method){ .cls = own[0], .method = own[1], .desc = own[2],
                                            .level = m->pm->level, .status = st, .root = m->pm->root,
                                            .id = m->id, .reason = own[3] };
    }
    pthread_mutex_unlock(&s->mlock);
    if (ms != NULL && names != NULL) {
        p.methods = ms;
        p.n_methods = n;
        msg = msg_plan_write(&p);
    }
    for (i = 0; names != NULL && i < 4 * count; i++)
        free(names[i]);
    free(names);
    free(ms);
    return msg;
}

/* A new entry for plan method pm, appended to the session's list (and to
 * the pending list when its class had not loaded); NULL when out of memory. */
static struct smethod *new_method(struct session *s, const plan_method *pm)
{
    struct smethod *m = calloc(1, sizeof *m);
    int ok;

    if (m == NULL)
        return NULL;
    m->pm = pm;
    m->id = -1;
    pthread_mutex_lock(&s->mlock);
    ok = buf_grow(&s->methods, &s->cap_methods, s->n_methods, sizeof *s->methods, 16) == 0;
    if (ok)
        s->methods[s->n_methods++] = m;
    if (ok && pm->status == PLAN_PENDING &&
        buf_grow(&s->pending, &s->cap_pending, s->n_pending, sizeof *s->pending, 16) == 0)
        s->pending[s->n_pending++] = m;
    pthread_mutex_unlock(&s->mlock);
    if (!ok) {
        free(m);
        return NULL;
    }
    return m;
}

/* Numbers m and tells the hook about it (its class in every loader that
 * defines it); locked says the caller is the hook itself. */
static int number(struct session *s, struct smethod *m, int locked, mct_err *err)
{
    const plan_method *pm = m->pm;

    m->id = mt_add(pm->class_name, pm->name, pm->desc, s->gen, pm->root, err);
    if (m->id < 0)
        return -1;
    return (locked ? inst_add_locked : inst_add)(pm->class_name, pm->name, pm->desc, m->id, pm->root, &m->out,
                                                  err);
}

/* Queues a seed for plan_extend (mlock held). */
static void queue_seed(struct session *s, const plan_method *pm)
{
    if (buf_grow(&s->seeds, &s->cap_seeds, s->n_seeds, sizeof *s->seeds, 16) == 0)
        s->seeds[s->n_seeds++] = (plan_seed){
            .class_name = pm->class_name, .name = pm->name, .desc = pm->desc, .level = pm->level};
}

/* Whether the peer of fd hung up (or shut its side down), without waiting. */
static int hung_up(int fd)
{
    struct pollfd pfd = {.fd = fd, .events = POLLRDHUP};

    return poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

/* Whether the client hung up: planning stops then (plan_request.gone). */
static int client_gone(void *arg)
{
    const struct session *s = arg;

    return hung_up(s->fd);
}

static int make_plan(struct session *s, JNIEnv *jni, hj **hier, mct_err *err)
{
    plan_request r = {
        .class_name = s->cls, .method = s->method, .desc = s->desc,
        .depth = s->depth, .regex = s->regex, .include_jdk = s->include_jdk,
        .gone = client_gone, .gone_arg = s,
    };
    uint64_t t0 = now_ns();
    size_t i, n;

    *hier = hj_new(jni, err);
    if (*hier == NULL)
        return -1;
    s->loaded_classes = hj_count(*hier);
    s->plan = plan_build(&r, &hj_ops, *hier, err);
    if (s->plan == NULL) {
        if (err->code == MCT_E_INTR)
            vm_debug("%s", err->msg);
        return -1;
    }
    s->receiver = plan_receiver(s->plan) != NULL;
    n = plan_count(s->plan);
    for (i = 0; i < n; i++)
        if (new_method(s, plan_at(s->plan, i)) == NULL)
            return mct_err_set(err, MCT_E_NOMEM, "out of memory holding a plan of %zu methods", n);
    s->plan_ms = (double)(now_ns() - t0) / 1e6;
    return 0;
}

/* The classes to retransform, each once (a snapshot has one hier_class per
 * class, so pointers identify classes). */
struct class_set {
    hier_class **seen;         /* open addressing, a power of 2 */
    size_t cap;
    jclass *classes;           /* in the order added */
    size_t n, cap_classes;
};

static int set_add_one(struct class_set *cs, hier_class *c)
{
    size_t h;

    if ((cs->n + 1) * 2 > cs->cap) {
        struct class_set bigger = {.cap = cs->cap ? cs->cap * 4 : 64};
        size_t i;

        bigger.seen = calloc(bigger.cap, sizeof *bigger.seen);
        if (bigger.seen == NULL)
            return -1;
        for (i = 0; i < cs->cap; i++)
            if (cs->seen[i] != NULL) {
                h = ((uintptr_t)cs->seen[i] >> 4) & (bigger.cap - 1);
                while (bigger.seen[h] != NULL)
                    h = (h + 1) & (bigger.cap - 1);
                bigger.seen[h] = cs->seen[i];
            }
        free(cs->seen);
        cs->seen = bigger.seen;
        cs->cap = bigger.cap;
    }
    h = ((uintptr_t)c >> 4) & (cs->cap - 1);
    while (cs->seen[h] != NULL) {
        if (cs->seen[h] == c)
            return 0;
        h = (h + 1) & (cs->cap - 1);
    }
    if (buf_grow(&cs->classes, &cs->cap_classes, cs->n, sizeof *cs->classes, 16) < 0)
        return -1;
    cs->seen[h] = c;
    cs->classes[cs->n++] = hj_class(c);
    return 0;
}

/* Adds c and the copies of its class in other loaders: a class of the plan
 * is instrumented in every loader. */
static int set_add(struct class_set *cs, hier_class *c)
{
    hier_class *k;

    for (k = hj_copy(c, NULL); k != NULL; k = hj_copy(c, k))
        if (set_add_one(cs, k) < 0)
            return -1;
    return 0;
}

static void set_free(struct class_set *cs)
{
    free(cs->seen);
    free(cs->classes);
}

/* One receivers' message per session: the JVM's stderr would fill up
 * with a loader per call. */
static _Atomic int receivers_full_told;

/* A class (signature sig) that is loaded: its instances are receivers when
 * it is a copy of the session's named class (probe_receiver_add). */
static void add_receiver(JNIEnv *jni, jclass k, const char *sig)
{
    if (probe_receiver_add(jni, k, sig) < 0 && !atomic_exchange(&receivers_full_told, 1)) {
        char *name = mutf8_dup(sig);

        vm_log("%d copies of %s are loaded (the most one session follows), or memory is short: calls of "
               "its inherited entry method on instances of the copies loaded from now on are not traced",
               PROBE_MAX_RECEIVERS, name != NULL ? name : sig);
        free(name);
    }
}

/* ClassPrepare, while the named class of the session has an inherited entry
 * method: a copy of it that loads now is known before its first instance. */
static void JNICALL on_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass k)
{
    char *sig = NULL;

    if ((*jvmti)->GetClassSignature(jvmti, k, &sig, NULL) != JVMTI_ERROR_NONE)
        return;
    add_receiver(jni, k, sig);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
}

/* The named class (a class of the snapshot) when an entry method is
 * inherited, else NULL: the copies of every loader, those loaded now and
 * those that load during the session, are the receivers of its traced
 * calls. The copies that load are watched before those loaded are listed,
 * so that none is missed in between (probe_receiver_add keeps each once).
 * 0, or -1 with err set. */
static int watch_receivers(JNIEnv *jni, jclass named, mct_err *err)
{
    jvmtiEnv *jvmti = vm_jvmti();
    jclass *loaded = NULL;
    char *sig = NULL;
    jint n = 0, i;
    jvmtiError e;
    int rc = 0;

    atomic_store(&receivers_full_told, 0);
    if (named == NULL)
        return probe_receivers_begin(jni, NULL);
    if ((e = (*jvmti)->GetClassSignature(jvmti, named, &sig, NULL)) != JVMTI_ERROR_NONE)
        return mct_err_set(err, MCT_E_JVMTI, "GetClassSignature of the named class: %s", vm_jvmti_error_name(e));
    if (probe_receivers_begin(jni, sig) < 0)
        rc = mct_err_set(err, MCT_E_NOMEM, "out of memory following the named class");
    else if (vm_set_class_prepare(on_class_prepare, err) < 0)
        rc = -1;
    else if ((e = (*jvmti)->GetLoadedClasses(jvmti, &n, &loaded)) != JVMTI_ERROR_NONE)
        rc = mct_err_set(err, MCT_E_JVMTI, "GetLoadedClasses: %s", vm_jvmti_error_name(e));
    for (i = 0; i < n; i++) {
        char *ks = NULL;

        if ((*jvmti)->GetClassSignature(jvmti, loaded[i], &ks, NULL) == JVMTI_ERROR_NONE && strcmp(ks, sig) == 0)
            add_receiver(jni, loaded[i], sig);
        if (ks != NULL)
            (*jvmti)->Deallocate(jvmti, (unsigned char *)ks);
        (*jni)->DeleteLocalRef(jni, loaded[i]);
    }
    if (loaded != NULL)
        (*jvmti)->Deallocate(jvmti, (unsigned char *)loaded);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    return rc;
}

/* Numbers the methods to instrument, tells the hook about them and
 * retransforms their loaded classes. */
static int instrument(struct session *s, JNIEnv *jni, mct_err *err)
{
    struct class_set cs = {0};
    uint64_t t0 = now_ns();
    size_t i;
    int rc = 0;

    for (i = 0; i < s->n_methods && rc == 0; i++) {
        struct smethod *m = s->methods[i];
        const plan_method *pm = m->pm;

        if (pm->status == PLAN_EXCLUDED)
            continue;
        rc = number(s, m, 0, err);
        if (rc == 0 && pm->cls != NULL && set_add(&cs, pm->cls) < 0)
            rc = mct_err_set(err, MCT_E_NOMEM, "out of memory instrumenting %zu methods", s->n_methods);
    }
    if (rc == 0)
        rc = inst_retransform(jni, cs.classes, cs.n, err);
    /* Only now: a class may be rewritten in two passes (see
     * inst_retransform), and a tree taken between them would miss it. */
    if (rc == 0)
        rc = watch_receivers(jni, plan_receiver(s->plan) ? hj_class(plan_receiver(s->plan)) : NULL, err);
    probe_session_begin(s->gen, s->depth);
    set_free(&cs);
    s->instrument_ms = (double)(now_ns() - t0) / 1e6;
    return rc;
}

/* --- classes that load later ---------------------------------------------------------- */

/* The hook, for every class that loads during the session (its lock held):
 * the methods of the class a planned call site may now run are instrumented
 * at once; they and the pending methods of the class are queued for
 * plan_extend, which plans below them on the session thread. */
static void on_class_load(JNIEnv *jni, const char *name, jobject loader, const uint8_t *data, size_t len,
                          void *arg)
{
    struct session *s = arg;
    const char **ifaces = NULL;
    hier_method *declared = NULL;
    plan_seed *found = NULL;
    size_t n_found = 0, i;
    cf_class *cf;
    mct_err err;

    pthread_mutex_lock(&s->mlock);
    if (!s->ready) {
        char *copy = strdup(name);

        if (copy != NULL && buf_grow(&s->early, &s->cap_early, s->n_early, sizeof *s->early, 16) == 0)
            s->early[s->n_early++] = copy;
        else
            free(copy);
        pthread_mutex_unlock(&s->mlock);
        return;
    }
    for (i = 0; i < s->n_pending; i++) {
        struct smethod *m = s->pending[i];

        if (!m->seeded && strcmp(m->pm->class_name, name) == 0) {
            m->seeded = 1;
            queue_seed(s, m->pm);
        }
    }
    pthread_mutex_unlock(&s->mlock);
    cf = cf_parse(data, len, &err);
    if (cf == NULL)
        return;
    ifaces = calloc(cf->n_interfaces + 1u, sizeof *ifaces);
    declared = calloc(cf->n_methods + 1u, sizeof *declared);
    found = calloc(cf->n_methods + 1u, sizeof *found);
    if (ifaces != NULL && declared != NULL && found != NULL) {
        for (i = 0; i < cf->n_interfaces; i++)
            ifaces[i] = cf_class_name(cf, cf->interfaces[i]);
        for (i = 0; i < cf->n_methods; i++)
            declared[i] = (hier_method){cf->methods[i].name, cf->methods[i].desc, cf->methods[i].access};
        plan_new_class(s->plan, cf->name, cf->super_name, ifaces, cf->n_interfaces, declared, cf->n_methods,
                       found, cf->n_methods, &n_found);
    }
    for (i = 0; i < n_found; i++) {
        const plan_method *pm = plan_at(s->plan, found[i].index);
        struct smethod *m = new_method(s, pm);

        if (m == NULL || number(s, m, 1, &err) < 0)
            continue;
        pthread_mutex_lock(&s->mlock);
        m->seeded = 1;
        queue_seed(s, pm);
        s->late++;
        pthread_mutex_unlock(&s->mlock);
    }
    free(ifaces);
    free(declared);
    free(found);
    cf_free(cf);
}

/* What plan_new_class needs of a class already loaded, from the snapshot. */
static void new_loaded_class(struct session *s, JNIEnv *jni, hj *h, const char *name,
                             struct class_set *cs, plan_seed **seeds, size_t *n_seeds, size_t *cap_seeds)
{
    hier_class *c = hj_ops.find(h, name, NULL), *sup;
    hier_class *const *ifc;
    const hier_method *declared;
    const char **ifaces;
    plan_seed *found;
    size_t n_ifc, n_decl, n_found = 0, i;
    mct_err err;

    if (c == NULL)
        return;
    /* A class of the plan that another loader defined while the session
     * was set up: the hook may have seen it before its methods were
     * numbered. */
    pthread_mutex_lock(&s->mlock);
    for (i = 0; i < s->n_methods; i++)
        if (s->methods[i]->id >= 0 && strcmp(s->methods[i]->pm->class_name, name) == 0) {
            set_add(cs, c);
            break;
        }
    pthread_mutex_unlock(&s->mlock);
    sup = hj_ops.super(h, c);
    n_ifc = hj_ops.interfaces(h, c, &ifc);
    n_decl = hj_ops.methods(h, c, &declared);
    ifaces = calloc(n_ifc + 1, sizeof *ifaces);
    found = calloc(n_decl + 1, sizeof *found);
    if (ifaces != NULL && found != NULL) {
        for (i = 0; i < n_ifc; i++)
            ifaces[i] = hj_ops.name(h, ifc[i]);
        plan_new_class(s->plan, name, sup ? hj_ops.name(h, sup) : NULL, ifaces, n_ifc, declared, n_decl,
                       found, n_decl, &n_found);
    }
    for (i = 0; i < n_found; i++) {
        const plan_method *pm = plan_at(s->plan, found[i].index);
        struct smethod *m = new_method(s, pm);

        if (m == NULL || number(s, m, 0, &err) < 0 || set_add(cs, c) < 0 ||
            buf_grow(seeds, cap_seeds, *n_seeds, sizeof **seeds, 16) < 0)
            continue;
        m->seeded = 1;
        (*seeds)[(*n_seeds)++] = found[i];
        s->late++;
    }
    free(ifaces);
    free(found);
}

/* On the session thread: plans below the methods whose class loaded since,
 * instruments what that finds, and catches up with classes that loaded
 * while the session was being set up. first: the pass right after the plan
 * was sent (pending methods whose class loaded meanwhile are caught here). */
static void extend(struct session *s, JNIEnv *jni, int first)
{
    struct class_set cs = {0};
    plan_seed *seeds;
    size_t n_seeds, cap_seeds, n_early, n_added = 0, i;
    size_t *added = NULL;
    char **early;
    hj *h;
    mct_err err;

    pthread_mutex_lock(&s->mlock);
    seeds = s->seeds;
    n_seeds = s->n_seeds;
    cap_seeds = s->cap_seeds;
    early = s->early;
    n_early = s->n_early;
    s->seeds = NULL;
    s->n_seeds = s->cap_seeds = 0;
    s->early = NULL;
    s->n_early = s->cap_early = 0;
    pthread_mutex_unlock(&s->mlock);
    if (!first && n_seeds == 0 && n_early == 0 && plan_deferred(s->plan) == 0) {
        free(seeds);
        free(early);
        return;
    }
    h = hj_new(jni, &err);
    if (h == NULL) {
        vm_log("extending the plan: %s", err.msg);
    } else {
        for (i = 0; i < n_early; i++)
            new_loaded_class(s, jni, h, early[i], &cs, &seeds, &n_seeds, &cap_seeds);
        pthread_mutex_lock(&s->mlock);
        for (i = 0; first && i < s->n_pending; i++) {
            struct smethod *m = s->pending[i];
            hier_class *c;

            if (m->seeded || (c = hj_ops.find(h, m->pm->class_name, NULL)) == NULL)
                continue;
            m->seeded = 1;
            set_add(&cs, c);
            if (buf_grow(&seeds, &cap_seeds, n_seeds, sizeof *seeds, 16) == 0)
                seeds[n_seeds++] = (plan_seed){.class_name = m->pm->class_name, .name = m->pm->name,
                                               .desc = m->pm->desc, .level = m->pm->level};
        }
        pthread_mutex_unlock(&s->mlock);
        if (plan_extend(s->plan, seeds, n_seeds, &hj_ops, h, &added, &n_added, &err) < 0)
            vm_log("extending the plan: %s", err.msg);
        for (i = 0; i < n_added; i++) {
            const plan_method *pm = plan_at(s->plan, added[i]);
            struct smethod *m = new_method(s, pm);

            if (m == NULL || pm->status == PLAN_EXCLUDED)
                continue;
            if (number(s, m, 0, &err) == 0) {
                s->late++;
                if (pm->cls != NULL)
                    set_add(&cs, pm->cls);
            }
        }
        if (inst_retransform(jni, cs.classes, cs.n, &err) < 0)
            vm_log("instrumenting classes that loaded: %s", err.msg);
        hj_free(h);
    }
    set_free(&cs);
    free(added);
    free(seeds);
    for (i = 0; i < n_early; i++)
        free(early[i]);
    free(early);
}

/* --- trees ------------------------------------------------------------------------------ */

/* Copies the len events of a call from t's ring into the scratch array. */
static probe_ev *copy_call(struct session *s, const probe_thread *t, uint64_t pos, uint64_t len)
{
    uint64_t i;

    if (len > s->scratch_cap) {
        probe_ev *p = realloc(s->scratch, len * sizeof *p);

        if (p == NULL)
            return NULL;
        s->scratch = p;
        s->scratch_cap = len;
    }
    for (i = 0; i < len; i++)
        s->scratch[i] = *probe_event(t, pos + i);
    return s->scratch;
}

/* The binary name of a class from its global ref (which is freed). */
static void exception_name(JNIEnv *jni, uintptr_t ref, char *buf, size_t size)
{
    jvmtiEnv *jvmti = vm_jvmti();
    jclass k = (jclass)ref;
    char *sig = NULL;

    snprintf(buf, size, "?");
    if ((*jvmti)->GetClassSignature(jvmti, k, &sig, NULL) == JVMTI_ERROR_NONE && sig[0] == 'L') {
        size_t n = strlen(sig);

        sig[n - 1] = '\0';
        dotted(sig + 1, buf, size);
    }
    if (sig != NULL)
        (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    (*jni)->DeleteGlobalRef(jni, k);
}

/* The id and name of thread (a Thread reference). */
static void thread_info(struct session *s, JNIEnv *jni, jobject thread, int64_t *id, char *name, size_t size)
{
    jvmtiEnv *jvmti = vm_jvmti();
    jvmtiThreadInfo info;

    *id = -1;
    snprintf(name, size, "?");
    if (thread == NULL)
        return;
    memset(&info, 0, sizeof info);
    if ((*jvmti)->GetThreadInfo(jvmti, thread, &info) == JVMTI_ERROR_NONE) {
        if (info.name != NULL) {
            char *u = mutf8_dup(info.name);

            snprintf(name, size, "%s", u != NULL ? u : info.name);
            free(u);
            proto_utf8_sanitize(name); /* cut within a character */
            (*jvmti)->Deallocate(jvmti, (unsigned char *)info.name);
        }
        if (info.thread_group != NULL)
            (*jni)->DeleteLocalRef(jni, info.thread_group);
        if (info.context_class_loader != NULL)
            (*jni)->DeleteLocalRef(jni, info.context_class_loader);
    }
    if (s->thread_id == NULL) {
        jclass tc = (*jni)->FindClass(jni, "java/lang/Thread");

        /* threadId() is final (JDK 19+); getId() may be overridden. */
        if (tc != NULL) {
            s->thread_id = (*jni)->GetMethodID(jni, tc, "threadId", "()J");
            if (s->thread_id == NULL) {
                (*jni)->ExceptionClear(jni);
                s->thread_id = (*jni)->GetMethodID(jni, tc, "getId", "()J");
            }
            (*jni)->DeleteLocalRef(jni, tc);
        }
        (*jni)->ExceptionClear(jni);
    }
    if (s->thread_id != NULL) {
        *id = (*jni)->CallLongMethod(jni, thread, s->thread_id);
        if ((*jni)->ExceptionCheck(jni)) {
            (*jni)->ExceptionClear(jni);
            *id = -1;
        }
    }
}

/* Frees the references the call of len events at pos holds. */
static void free_refs(JNIEnv *jni, const probe_thread *t, uint64_t pos, uint64_t len)
{
    uint64_t i;

    for (i = 0; i < len; i++) {
        const probe_ev *e = probe_event(t, pos + i);

        if (PROBE_KIND(e->kind) == PROBE_EXCEPTION || PROBE_KIND(e->kind) == PROBE_THREAD)
            (*jni)->DeleteGlobalRef(jni, (jobject)(uintptr_t)e->t);
    }
}

/* One completed call: filter, build, render, send. *grow asks for a bigger
 * ring when the call lost events. */
static void handle_call(struct session *s, JNIEnv *jni, const probe_thread *t, uint64_t pos, uint64_t len,
                        uint64_t *grow)
{
    const probe_ev *ev = copy_call(s, t, pos, len);
    const mt_method *root;
    uintptr_t exc = 0, thread = 0;
    tree_opts o;
    tree *tr;
    uint64_t i, raw;
    int mine;
    mct_err err;

    if (ev == NULL) {
        /* Out of memory: the call is lost, not the references it holds. */
        free_refs(jni, t, pos, len);
        return;
    }
    for (i = 0; i < len; i++) {
        uint32_t k = PROBE_KIND(ev[i].kind);

        if (k == PROBE_EXCEPTION)
            exc = (uintptr_t)ev[i].t;
        else if (k == PROBE_THREAD)
            thread = (uintptr_t)ev[i].t;
        else if (k == PROBE_OVERFLOW)
            *grow = t->worker_cap * 4;
    }
    root = mt_get(ev[0].id);
    mine = PROBE_SESSION(ev[len - 1].kind) == s->gen;
    raw = clock_ns(&s->cal, ev[len - 1].t - ev[0].t);
    if (root == NULL || !mine || raw < s->min_ns) {
        if (root != NULL && mine) {
            __atomic_fetch_add(&s->calls, 1, __ATOMIC_RELAXED);
            s->filtered++;
        }
        if (exc != 0)
            (*jni)->DeleteGlobalRef(jni, (jobject)exc);
        if (thread != 0)
            (*jni)->DeleteGlobalRef(jni, (jobject)thread);
        return;
    }
    __atomic_fetch_add(&s->calls, 1, __ATOMIC_RELAXED);
    o.cal = s->cal;
    o.probe_ticks = (uint64_t)(s->probe.ticks + 0.5);
    tr = tree_build(ev, len, &o, &err);
    if (tr == NULL) {
        vm_log("dropping a traced call: %s", err.msg);
    } else if (tree_total_ns(tr) < s->min_ns) {
        s->filtered++;
    } else {
        char exname[512], tname[256];
        int64_t tid;
        json_t *msg;

        if (exc != 0) {
            exception_name(jni, exc, exname, sizeof exname);
            exc = 0;
        }
        thread_info(s, jni, thread != 0 ? (jobject)thread : t->thread, &tid, tname, sizeof tname);
        msg = tree_json(tr, ++s->seq, tid, tname, tree_exception(tr) ? exname : NULL);
        if (msg != NULL && send_msg(s, msg) == 0) {
            __atomic_fetch_add(&s->printed, 1, __ATOMIC_RELAXED);
            if (s->count > 0 && s->printed >= s->count)
                end_session(s, "count");
        }
    }
    if (exc != 0)
        (*jni)->DeleteGlobalRef(jni, (jobject)exc);
    if (thread != 0)
        (*jni)->DeleteGlobalRef(jni, (jobject)thread);
    tree_free(tr);
}

/* Reads what the client says on the session connection: `stop`, or EOF. */
static void read_client(struct session *s)
{
    mct_err err;
    json_t *msg = proto_read(s->fd, PROTO_REQUEST, 1000, &err);
    struct msg_stop stop;

    if (msg == NULL) {
        if (err.code == MCT_E_EOF || err.code == MCT_E_IO) {
            end_session(s, "client_gone");
        } else {
            send_msg(s, msg_error_new(PROTO_ERR_PROTOCOL, "%s", err.msg));
            end_session(s, "protocol_error");
        }
        return;
    }
    if (msg_stop_read(msg, &stop, &err) == 0) {
        end_session(s, "stop");
        snprintf(s->end_detail, sizeof s->end_detail, "%s", stop.reason);
    } else {
        send_msg(s, msg_error_new(PROTO_ERR_BAD_REQUEST, "a session only accepts stop, not %s",
                                  proto_type(msg)));
    }
    json_decref(msg);
}

/* Looks, without waiting, for a stop or a hang-up of the client of a
 * session that is not ending yet. */
static void check_client(struct session *s)
{
    struct pollfd pfd = {.fd = s->fd, .events = POLLIN};

    s->checked_ns = now_ns();
    if (__atomic_load_n(&s->closing, __ATOMIC_ACQUIRE))
        return;
    if (poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLIN | POLLHUP | POLLERR)))
        read_client(s);
}

/* A call not built because the session ends: its references are freed, and
 * it counts as discarded when it is this session's. */
static void discard_call(struct session *s, JNIEnv *jni, const probe_thread *t, uint64_t pos, uint64_t len)
{
    free_refs(jni, t, pos, len);
    if (PROBE_SESSION(probe_event(t, pos + len - 1)->kind) == s->gen)
        s->discarded++;
}

/* The number of events of the call at position c of t's ring, p being the
 * end of its published calls; 0 when the ring is inconsistent (said on the
 * JVM's stderr): the caller skips to p, and the references those events may
 * hold leak, since freeing what may not be one would crash the JVM. */
static uint64_t call_len(const probe_thread *t, uint64_t c, uint64_t p)
{
    uint64_t len = PROBE_LEN(probe_event(t, c)->kind);

    if (len < 2 || len > p - c) {
        vm_log("a thread's event ring is inconsistent; its events are discarded");
        return 0;
    }
    return len;
}

/* A thread with completed calls in a drain pass: where its next call is,
 * and when that call's entry method returned. */
struct ready {
    probe_thread *t;
    uint64_t c, p;             /* its next call; its last published event (when the pass began) */
    uint64_t len, end;         /* that call's events; the tick of its root's exit */
    uint64_t grow;             /* the ring it asks for (probe_maintain) */
};

/* Reads the call at r->c: 1, or 0 when r has no more calls (r->c < r->p
 * with an inconsistent length: the rest is skipped). */
static int next_call(struct ready *r)
{
    if (r->c >= r->p)
        return 0;
    r->len = call_len(r->t, r->c, r->p);
    if (r->len == 0) {
        r->c = r->p;
        return 0;
    }
    r->end = probe_event(r->t, r->c + r->len - 1)->t;
    return 1;
}

/* Hands r's next call to handle_call, or, once the session is ending,
 * discards it; gives its events back to the thread, and looks at the
 * client every CLIENT_CHECK_NS. */
static void take_call(struct session *s, JNIEnv *jni, struct ready *r)
{
    if (__atomic_load_n(&s->closing, __ATOMIC_ACQUIRE))
        discard_call(s, jni, r->t, r->c, r->len);
    else
        handle_call(s, jni, r->t, r->c, r->len, &r->grow);
    r->c += r->len;
    atomic_store_explicit(&r->t->consumed, r->c, memory_order_release);
    if (now_ns() - s->checked_ns >= CLIENT_CHECK_NS)
        check_client(s);
}

/* r's calls of this pass are taken: its housekeeping. */
static void done_thread(struct session *s, JNIEnv *jni, const struct ready *r)
{
    atomic_store_explicit(&r->t->consumed, r->c, memory_order_release);
    probe_maintain(r->t, jni, __atomic_load_n(&s->closing, __ATOMIC_ACQUIRE) ? 0 : r->grow);
}

/* Restores the heap order (the earliest end first) below h[i]. */
static void sift_down(struct ready *h, size_t n, size_t i)
{
    for (;;) {
        size_t m = i, l = 2 * i + 1, r = l + 1;
        struct ready tmp;

        if (l < n && h[l].end < h[m].end)
            m = l;
        if (r < n && h[r].end < h[m].end)
            m = r;
        if (m == i)
            return;
        tmp = h[i];
        h[i] = h[m];
        h[m] = tmp;
        i = m;
    }
}

/* Takes every call completed when the pass begins, from every thread, in
 * the order their entry method returned (so that seq follows it: a heap of
 * the threads on their next call's end, each thread's calls being in that
 * order already), or, once the session is ending, discards them; returns
 * how many calls it took. The client is looked at every CLIENT_CHECK_NS
 * meanwhile, so that a stop or a hang-up ends the session within a call or
 * two, however full the rings. */
static uint64_t drain(struct session *s, JNIEnv *jni)
{
    probe_thread *t;
    uint64_t taken = 0;
    size_t n = 0, i;

    s->cal = clock_calibration();
    for (t = probe_threads(); t != NULL; t = t->next) {
        struct ready r = {.t = t};
        uint64_t dropped = atomic_load_explicit(&t->dropped, memory_order_relaxed);

        r.c = atomic_load_explicit(&t->consumed, memory_order_acquire);
        r.p = atomic_load_explicit(&t->published, memory_order_acquire);
        if (dropped != t->worker_dropped) {
            t->worker_dropped = dropped;
            if (t->worker_cap < PROBE_RING_DROP_MAX)
                r.grow = t->worker_cap * 4;
        }
        if (next_call(&r)) {
            if (buf_grow(&s->heap, &s->cap_heap, n, sizeof *s->heap, 16) == 0) {
                s->heap[n++] = r;
                continue;
            }
            /* Out of memory: this thread's calls now, in their order. */
            do {
                take_call(s, jni, &r);
                taken++;
            } while (next_call(&r));
        }
        done_thread(s, jni, &r);
    }
    for (i = n / 2; i-- > 0;)
        sift_down(s->heap, n, i);
    while (n > 0) {
        take_call(s, jni, &s->heap[0]);
        taken++;
        if (!next_call(&s->heap[0])) {
            done_thread(s, jni, &s->heap[0]);
            s->heap[0] = s->heap[--n];
        }
        sift_down(s->heap, n, 0);
    }
    return taken;
}

/* Calls of the entry method that were not traced: rings not drained yet,
 * and virtual threads that found no free slot. */
static uint64_t dropped_total(void)
{
    probe_thread *t;
    uint64_t n = probe_unslotted();

    for (t = probe_threads(); t != NULL; t = t->next)
        n += atomic_load_explicit(&t->dropped, memory_order_relaxed);
    return n;
}

static void send_status(struct session *s, const char *note)
{
    struct tally t = tally(s);
    struct msg_status m = {
        .calls = (long long)s->calls, .printed = (long long)s->printed, .filtered = (long long)s->filtered,
        .dropped = (long long)(dropped_total() - s->dropped_base), .instrumented = (long long)t.instrumented,
        .pending = (long long)t.pending, .instrumented_classes = (long long)inst_rewritten_classes(),
        .unloaded_classes = (long long)s->unloaded, .note = note,
    };

    pthread_mutex_lock(&s->mlock);
    m.late = (long long)s->late;
    pthread_mutex_unlock(&s->mlock);
    send_msg(s, msg_status_write(&m));
}

/* Waits at most a millisecond for the client when the last drain found
 * nothing, so that busy threads' rings are taken again at once. */
static void run_loop(struct session *s, JNIEnv *jni)
{
    uint64_t taken = 0;

    while (s->end_reason == NULL) {
        struct pollfd pfd = {.fd = s->fd, .events = POLLIN};
        int r = poll(&pfd, 1, taken > 0 ? 0 : 1);
        uint64_t now;

        if (r < 0 && errno != EINTR) {
            end_session(s, "internal_error");
            break;
        }
        if (r > 0 && (pfd.revents & (POLLIN | POLLHUP | POLLERR)))
            read_client(s);
        s->checked_ns = now_ns();
        if (s->end_reason != NULL)
            break;
        taken = drain(s, jni);
        now = now_ns();
        if (now - s->last_extend_ns >= 50000000u) {
            s->last_extend_ns = now;
            extend(s, jni, 0);
        }
        if (now - s->last_unload_ns >= UNLOAD_CHECK_NS) {
            size_t unloaded = inst_unloaded(jni);

            s->last_unload_ns = now;
            /* Said at once, verbose or not: the session may trace nothing
             * from now on (until the classes load again). */
            if (unloaded > s->unloaded) {
                s->unloaded = unloaded;
                send_status(s, "instrumented classes were unloaded: their class loader was collected");
            }
        }
        if (s->verbose && now - s->last_status_ns >= 1000000000u) {
            s->last_status_ns = now;
            send_status(s, s->calls == 0 ? "no call of the entry method has completed yet" : NULL);
        }
    }
}

/* With `consumer` held and no session tracing (every call in the rings is
 * an ended session's): frees what the calls left hold and shrinks every ring
 * back to its first size, so that a session leaves no memory behind.
 * Returns how many threads are still in a call: their rings (and "all",
 * while one runs without a slot) wait for a later tidy_rings. */
static size_t tidy_rings(JNIEnv *jni)
{
    probe_thread *t;
    size_t left = 0;

    for (t = probe_threads(); t != NULL; t = t->next) {
        uint64_t c = atomic_load_explicit(&t->consumed, memory_order_acquire);
        uint64_t p = atomic_load_explicit(&t->published, memory_order_acquire);

        while (c < p) {
            uint64_t len = call_len(t, c, p);

            if (len == 0) {
                c = p;
                break;
            }
            free_refs(jni, t, c, len);
            c += len;
        }
        atomic_store_explicit(&t->consumed, c, memory_order_release);
        probe_maintain(t, jni, 0);
        if (!probe_shrink(t))
            left++;
    }
    if (!probe_release_all(jni) && left == 0)
        left = 1;
    return left;
}

/* After a session: tidies the rings, waiting a little for the calls still
 * running to return; what is left is the listener's (on_tick). Releases
 * `consumer`. */
static void reclaim_rings(JNIEnv *jni)
{
    uint64_t until = now_ns() + (uint64_t)RECLAIM_WAIT_MS * 1000000u;
    size_t left;

    while ((left = tidy_rings(jni)) > 0 && now_ns() < until)
        usleep(2000);
    if (left > 0)
        vm_debug("%zu thread(s) still in a traced call keep their event ring for now", left);
    __atomic_store_n(&untidy, left > 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&consumer);
}

/* --- the session thread ------------------------------------------------------------------ */

/* The request r (read by msg_trace_read from s->req, whose strings it
 * borrows for the session's life) into s. */
static void read_request(struct session *s, const struct msg_trace *r)
{
    s->cls = r->cls;
    s->method = r->method;
    s->desc = r->desc;
    s->regex = r->regex;
    s->depth = r->depth;
    s->include_jdk = r->include_jdk;
    s->plan_only = r->plan_only;
    s->verbose = r->verbose;
    s->min_ns = (uint64_t)r->min_ns;
    s->count = (uint64_t)r->count;
    s->client_pid = r->client_pid;
}

/* Once per agent: the probe class, the hook, and the probes' cost. */
static int prepare(JNIEnv *jni, mct_err *err)
{
    static int ready;

    if (ready)
        return 0;
    clock_init(strcmp(vm_options()->clock, "monotonic") == 0);
    if (probe_install(jni, vm_jvmti(), 0, err) < 0 || inst_init(jni, err) < 0)
        return -1;
    ready = 1;
    return 0;
}

/* Ends the session: restores the classes, discards the calls left, sends
 * the `end` (when the session ran), lets the next session in, shrinks the
 * rings and frees s. instrumented: the session holds `consumer`. */
static void finish(struct session *s, JNIEnv *jni, int instrumented)
{
    mct_err err;
    int restored = 0;
    struct msg_end end;
    size_t i;

    __atomic_store_n(&s->closing, 1, __ATOMIC_RELEASE);
    inst_set_load_callback(NULL, NULL);
    if (instrumented && vm_set_class_prepare(NULL, &err) < 0)
        vm_log("%s", err.msg);
    probe_session_end(jni);
    if (instrumented) {
        size_t before;

        s->unloaded = inst_unloaded(jni);
        before = inst_rewritten_classes();

        if (inst_restore(jni, &err) < 0)
            vm_log("restoring classes: %s", err.msg);
        restored = (int)before;
        drain(s, jni); /* frees the exception refs of calls that ended meanwhile */
    }
    if (s->end_reason != NULL && !s->death_told) {
        uint64_t busy = instrumented ? dropped_total() - s->dropped_base : 0;
        /* The client's stop reason, maybe cut mid-character. */
        char *detail = s->end_detail[0] != '\0' ? mutf8_dup(s->end_detail) : NULL;

        msg_end_init(&end, s->end_reason);
        end.calls = (long long)s->calls;
        end.printed = (long long)s->printed;
        end.filtered = (long long)s->filtered;
        end.dropped = (long long)(busy + s->discarded);
        end.discarded = (long long)s->discarded;
        end.restored_classes = restored;
        end.instrumented_classes = (long long)inst_rewritten_classes();
        end.unloaded_classes = (long long)s->unloaded;
        end.detail = detail;
        if (s->probe.bursts > 0) {
            end.has_probe = 1;
            end.probe = probe_json(s);
            end.probe_ns = end.probe.ns;
        }
        send_within(s, msg_end_write(&end), END_SEND_MS);
        free(detail);
    }
    pthread_mutex_lock(&slock);
    current = NULL;
    pthread_mutex_unlock(&slock);
    pthread_mutex_lock(&s->wlock);
    close(s->fd);
    s->fd = -1;
    pthread_mutex_unlock(&s->wlock);
    if (instrumented)
        reclaim_rings(jni);
    pthread_mutex_destroy(&s->wlock);
    for (i = 0; i < s->n_methods; i++)
        free(s->methods[i]);
    free(s->methods);
    free(s->pending);
    free(s->seeds);
    for (i = 0; i < s->n_early; i++)
        free(s->early[i]);
    free(s->early);
    pthread_mutex_destroy(&s->mlock);
    plan_free(s->plan);
    free(s->scratch);
    free(s->heap);
    json_decref(s->req);
    free(s);
}

static void JNICALL session_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    struct session *s = arg;
    struct tally t;
    hj *hier = NULL;
    mct_err err;
    int instrumented = 0;

    if (prepare(jni, &err) < 0) {
        send_error(s, &err);
        finish(s, jni, 0);
        return;
    }
    /* From now on, classes that load are noted, so that none is missed
     * between the snapshot of the loaded classes and the instrumentation. */
    if (!s->plan_only)
        inst_set_load_callback(on_class_load, s);
    if (make_plan(s, jni, &hier, &err) < 0) {
        hj_free(hier);
        send_error(s, &err);
        finish(s, jni, 0);
        return;
    }
    if (s->plan_only) {
        hj_free(hier);
        send_msg(s, plan_json(s));
        s->end_reason = "plan";
        finish(s, jni, 0);
        return;
    }
    calibrate(s, jni);
    /* The rings are this session's once the last one has shrunk them. */
    pthread_mutex_lock(&consumer);
    s->dropped_base = dropped_total();
    instrumented = 1;
    if (instrument(s, jni, &err) < 0) {
        hj_free(hier);
        send_error(s, &err);
        finish(s, jni, instrumented);
        return;
    }
    hj_free(hier);
    t = tally(s);
    if (t.instrumented == 0 && t.pending == 0) {
        mct_err_set(&err, MCT_E_NOTHING,
                    "no method of the plan could be instrumented (run with --plan to see why)");
        send_msg(s, plan_json(s));
        send_error(s, &err);
        finish(s, jni, instrumented);
        return;
    }
    if (send_msg(s, plan_json(s)) == 0) {
        pthread_mutex_lock(&s->mlock);
        s->ready = 1;
        pthread_mutex_unlock(&s->mlock);
        extend(s, jni, 1);
        s->last_status_ns = s->last_extend_ns = s->last_unload_ns = now_ns();
        run_loop(s, jni);
    }
    finish(s, jni, instrumented);
}

/* --- the listener's side ---------------------------------------------------------------- */

static void reply_and_close(int fd, json_t *msg)
{
    mct_err err;

    if (msg != NULL) {
        proto_write(fd, msg, &err);
        json_decref(msg);
    }
    close(fd);
}

/* Whether session s is ending: it says so, or its client hung up (slock
 * held, so s->fd is still open). */
static int ending(const struct session *s)
{
    return __atomic_load_n(&s->closing, __ATOMIC_ACQUIRE) || hung_up(s->fd);
}

/* A trace request, on the listener thread: starts its session, answers
 * busy, or, while the running session is ending (its client is gone, it
 * restores the classes), asks the listener to offer it again (SERVER_LATER),
 * so that a client started right after another was interrupted gets its
 * session, not "busy". */
static enum server_verdict on_trace(int fd, json_t *req, const struct server_peer *peer, int last)
{
    struct session *s;
    struct msg_trace r;
    JNIEnv *jni;
    mct_err err;

    if (diag_active()) {
        reply_and_close(fd, msg_error_new(PROTO_ERR_UNSUPPORTED, "this JVM runs the agent's diagnostic "
                                                                 "rewrite-all mode, which cannot trace"));
        json_decref(req);
        return SERVER_TAKEN;
    }
    if (msg_trace_read(req, &r, &err) < 0) {
        reply_and_close(fd, msg_error_new(PROTO_ERR_PROTOCOL, "%s", err.msg));
        json_decref(req);
        return SERVER_TAKEN;
    }
    pthread_mutex_lock(&slock);
    if (current != NULL && !last && ending(current)) {
        pthread_mutex_unlock(&slock);
        return SERVER_LATER;
    }
    if (current != NULL) {
        reply_and_close(fd, msg_error_new(PROTO_ERR_BUSY,
                                          "another mcalltree session is running in this JVM: %s.%s depth %d, "
                                          "client pid %lld, %llu calls printed; wait for it to end or stop it",
                                          current->cls, current->method, current->depth, current->client_pid,
                                          (unsigned long long)__atomic_load_n(&current->printed, __ATOMIC_RELAXED)));
        pthread_mutex_unlock(&slock);
        json_decref(req);
        return SERVER_TAKEN;
    }
    s = calloc(1, sizeof *s);
    jni = vm_jni();
    if (s == NULL || jni == NULL) {
        pthread_mutex_unlock(&slock);
        free(s);
        reply_and_close(fd, msg_error_new(PROTO_ERR_INTERNAL, "the agent cannot start a session"));
        json_decref(req);
        return SERVER_TAKEN;
    }
    s->fd = fd;
    s->req = req;
    s->gen = next_gen++;
    pthread_mutex_init(&s->wlock, NULL);
    pthread_mutex_init(&s->mlock, NULL);
    read_request(s, &r);
    s->started_ns = wall_ns();
    current = s;
    pthread_mutex_unlock(&slock);
    if (vm_start_thread(jni, "mcalltree session", session_main, s, &err) < 0) {
        pthread_mutex_lock(&slock);
        current = NULL;
        pthread_mutex_unlock(&slock);
        reply_and_close(fd, msg_error_new(PROTO_ERR_INTERNAL, "%s", err.msg));
        pthread_mutex_destroy(&s->wlock);
        pthread_mutex_destroy(&s->mlock);
        json_decref(req);
        free(s);
    }
    return SERVER_TAKEN;
}

static json_t *on_info(struct msg_hello *h)
{
    json_t *msg;

    h->instrumented_classes = (long long)inst_rewritten_classes();
    pthread_mutex_lock(&slock);
    h->has_session = current != NULL;
    if (current != NULL)
        h->session = (struct msg_session){
            .cls = current->cls, .method = current->method, .depth = current->depth, .regex = current->regex,
            .client_pid = current->client_pid, .started_ns = current->started_ns,
            .calls = (long long)__atomic_load_n(&current->calls, __ATOMIC_RELAXED),
            .printed = (long long)__atomic_load_n(&current->printed, __ATOMIC_RELAXED),
        };
    /* Under slock: the strings are the request's, which the session frees. */
    msg = msg_hello_write(h);
    pthread_mutex_unlock(&slock);
    return msg;
}

/* The listener's tick: restores the classes a session's end found still
 * being defined, and shrinks the rings a session's end left big (their
 * threads were in a call), unless a session holds them. */
static void on_tick(void)
{
    JNIEnv *jni = vm_jni();

    if (jni != NULL)
        inst_restore_leftovers(jni);
    if (!__atomic_load_n(&untidy, __ATOMIC_ACQUIRE) || pthread_mutex_trylock(&consumer) != 0)
        return;
    if (jni != NULL)
        __atomic_store_n(&untidy, tidy_rings(jni) > 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&consumer);
}

void session_register(void)
{
    static const struct server_session_ops ops = {
        .trace = on_trace,
        .session = on_info,
        .tick = on_tick,
    };

    server_set_session_ops(&ops);
}

void session_vm_death(void)
{
    struct session *s;

    pthread_mutex_lock(&slock);
    s = current;
    if (s != NULL && !s->death_told) {
        struct msg_end m;
        json_t *end;
        mct_err err;

        msg_end_init(&m, "jvm_exit");
        m.calls = (long long)__atomic_load_n(&s->calls, __ATOMIC_RELAXED);
        m.printed = (long long)__atomic_load_n(&s->printed, __ATOMIC_RELAXED);
        end = msg_end_write(&m);

        /* Written here, on the dying JVM's thread, without touching the
         * session's state (its own thread may be running). */
        s->death_told = 1;
        pthread_mutex_lock(&s->wlock);
        if (end != NULL && s->fd >= 0 && !s->broken)
            proto_write_within(s->fd, end, END_SEND_MS, END_SEND_MS, &err);
        pthread_mutex_unlock(&s->wlock);
        json_decref(end);
    }
    pthread_mutex_unlock(&slock);
}
