/* splan.c — see splan.h. */
#include "splan.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "classfile.h"
#include "instrument.h"
#include "kit.h"
#include "methods.h"
#include "mutf8.h"
#include "probe.h"
#include "vm.h"
#include "warm.h"

static uint64_t now_ns(void)
{
    return clock_monotonic_ns();
}

/* One planned method and what became of it. Allocated one by one: the
 * class file hook writes the outcome through a pointer to it. */
struct smethod {
    const plan_method *pm;
    int32_t id;                /* -1 when not numbered (excluded, or plan only) */
    int seeded;                /* its class loaded: handed to plan_extend */
    inst_outcome out;
};


/* --- the plan -------------------------------------------------------------------------- */

/* What became of a planned method, as the plan reply names it. */
enum mstatus { MS_EXCLUDED, MS_PENDING, MS_INSTRUMENTED, MS_SKIPPED, MS_FAILED, MS_TRIVIAL, MS_PLANNED, MS_WAITING };

static const char *const mstatus_names[] = {
    [MS_EXCLUDED] = "excluded", [MS_PENDING] = "pending", [MS_INSTRUMENTED] = "instrumented",
    [MS_SKIPPED] = "skipped", [MS_FAILED] = "failed", [MS_TRIVIAL] = "trivial",
    [MS_PLANNED] = "planned", [MS_WAITING] = "waiting",
};

static enum mstatus status_of(const struct smethod *m)
{
    int out = __atomic_load_n(&m->out.status, __ATOMIC_ACQUIRE);

    if (m->pm->status == PLAN_EXCLUDED)
        return MS_EXCLUDED;
    if (m->pm->status == PLAN_PENDING && out == INST_WAITING)
        return MS_PENDING;
    switch (out) {
    case INST_DONE: return MS_INSTRUMENTED;
    case INST_SKIPPED: return MS_SKIPPED;
    case INST_FAILED: return MS_FAILED;
    case INST_TRIVIAL: return MS_TRIVIAL;
    default: return m->id < 0 ? MS_PLANNED : MS_WAITING;
    }
}

struct splan_tally splan_tally(struct splan *s)
{
    struct splan_tally t = {0};
    size_t i;

    pthread_mutex_lock(&s->mlock);
    for (i = 0; i < s->n_methods; i++) {
        switch (status_of(s->methods[i])) {
        case MS_INSTRUMENTED: t.instrumented++; break;
        case MS_PENDING: t.pending++; break;
        case MS_EXCLUDED: t.excluded++; break;
        case MS_FAILED: t.failed++; break;
        case MS_PLANNED: t.planned++; break;
        case MS_TRIVIAL: t.trivial++; break;
        case MS_SKIPPED:
        case MS_WAITING: t.skipped++; break;
        }
    }
    pthread_mutex_unlock(&s->mlock);
    return t;
}

/* --- the probes' cost ------------------------------------------------------------------ */

/* Measures what a probe call costs, before instrumenting: no traced call
 * waits for it, and the JIT is not yet busy with the instrumented code.
 * Each session measures anew: the JVM's load changes. */
void splan_calibrate(struct splan *s, JNIEnv *jni)
{
    /* When it cannot, nothing is subtracted and the client says so. */
    probe_calibrate(jni, &s->probe);
    s->cal = clock_calibration();
}

/* The figures of probe_calibrate in ns (PROTOCOL.md, `probe`). */
struct msg_probe splan_probe(const struct splan *s)
{
    const probe_cost *p = &s->probe;
    double k = s->cal.ns_per_tick;

    return (struct msg_probe){ .ns = p->ticks * k, .measured_ns = p->measured * k, .median_ns = p->median * k,
                               .floor_ns = p->floor * k, .trusted = p->trusted, .bursts = p->bursts };
}

/* What the regex decided (plan_regex) and whether only the calls on the
 * named class are traced, into the plan's summary (borrowing from the plan
 * and the request). */
static void regex_summary(const struct splan *s, struct msg_plan_summary *summary)
{
    plan_regex_seen seen = plan_regex(s->plan);

    summary->callee_classes = (long long)seen.callee_classes;
    summary->matched_classes = (long long)seen.matched_classes;
    summary->suggestion = seen.suggestion;
    summary->suggestion_matches = seen.suggestion != NULL ? (long long)seen.suggestion_matches : -1;
    summary->receiver = s->receiver ? s->cls : NULL;
}

json_t *splan_json(struct splan *s)
{
    struct splan_tally t = splan_tally(s);
    struct msg_plan p = {
        .summary = { .instrumented = (long long)t.instrumented, .pending = (long long)t.pending,
                     .skipped = (long long)t.skipped, .failed = (long long)t.failed,
                     .excluded = (long long)t.excluded, .planned = (long long)t.planned,
                     .trivial = (long long)t.trivial, .capped = plan_capped(s->plan), .plan_ms = s->plan_ms,
                     .instrument_ms = s->instrument_ms,
                     .loaded_classes = (long long)s->loaded_classes, .clock = clock_source(),
                     .probes = probe_writer() ? "java" : "native",
                     .has_probe = s->probe.bursts > 0, .probe = splan_probe(s) },
    };
    struct msg_plan_method *ms;
    char **names;   /* the UTF-8 copies the methods borrow, four per method */
    char cls[1024];
    json_t *msg = NULL;
    size_t i, n = 0, count;

    regex_summary(s, &p.summary);
    pthread_mutex_lock(&s->mlock);
    count = s->n_methods;
    ms = calloc(count + 1, sizeof *ms);
    names = calloc(4 * count + 1, sizeof *names);
    for (i = 0; ms != NULL && names != NULL && i < count; i++) {
        const struct smethod *m = s->methods[i];
        enum mstatus st = status_of(m);
        /* What the hook found, where it left the method as it is. */
        const char *reason = st == MS_SKIPPED || st == MS_FAILED || st == MS_TRIVIAL ? m->out.reason : m->pm->reason;
        char **own = names + 4 * i;

        /* Names from class files: modified UTF-8; a reason may hold such
         * names, and be cut mid-character. */
        own[0] = mutf8_dup(mutf8_binary_copy(m->pm->class_name, cls, sizeof cls));
        own[1] = mutf8_dup(m->pm->name);
        own[2] = mutf8_dup(m->pm->desc);
        own[3] = reason != NULL && reason[0] != '\0' ? mutf8_dup(reason) : NULL;
        if (own[0] == NULL || own[1] == NULL || own[2] == NULL)
            continue;
        ms[n++] = (struct msg_plan_method){ .cls = own[0], .method = own[1], .desc = own[2],
                                            .level = m->pm->level, .status = mstatus_names[st], .root = m->pm->root,
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
static struct smethod *new_method(struct splan *s, const plan_method *pm)
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
static int number(struct splan *s, struct smethod *m, int locked, mct_err *err)
{
    const plan_method *pm = m->pm;

    m->id = mt_add(pm->class_name, pm->name, pm->desc, s->gen, pm->root, err);
    if (m->id < 0)
        return -1;
    return (locked ? inst_add_locked : inst_add)(pm->class_name, pm->name, pm->desc, m->id, pm->root, &m->out,
                                                  err);
}

/* Queues a seed for plan_extend (mlock held). */
static void queue_seed(struct splan *s, const plan_method *pm)
{
    if (buf_grow(&s->seeds, &s->cap_seeds, s->n_seeds, sizeof *s->seeds, 16) == 0)
        s->seeds[s->n_seeds++] = (plan_seed){
            .class_name = pm->class_name, .name = pm->name, .desc = pm->desc, .level = pm->level};
}

int splan_make(struct splan *s, JNIEnv *jni, hj **hier, int (*gone)(void *), void *gone_arg, mct_err *err)
{
    plan_request r = {
        .class_name = s->cls, .method = s->method, .desc = s->desc,
        .depth = s->depth, .regex = s->regex, .include_jdk = s->include_jdk,
        .gone = gone, .gone_arg = gone_arg,
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
    kit_table seen;            /* the hier_class pointers added */
    jclass *classes;           /* in the order added */
    size_t n, cap_classes;
};

static int set_add_one(struct class_set *cs, hier_class *c)
{
    uint64_t h = kit_hash_u64((uintptr_t)c);
    kit_cursor cur;
    uintptr_t v;

    for (v = kit_table_first(&cs->seen, h, &cur); v != 0; v = kit_table_next(&cs->seen, &cur))
        if (v == (uintptr_t)c)
            return 0;
    if (buf_grow(&cs->classes, &cs->cap_classes, cs->n, sizeof *cs->classes, 16) < 0 ||
        kit_table_add(&cs->seen, h, (uintptr_t)c) < 0)
        return -1;
    cs->classes[cs->n++] = hj_class(c);
    return 0;
}

/* Adds c and the copies of its class in other loaders that declare the
 * method name desc: a class of the plan is instrumented in every loader,
 * and only a class the hook will rewrite is retransformed (a
 * retransformation that changes nothing still discards compiled code). */
static int set_add(struct class_set *cs, hier_class *c, const char *name, const char *desc)
{
    hier_class *k;

    for (k = hj_copy(c, NULL); k != NULL; k = hj_copy(c, k))
        if (hj_declares(k, name, desc) && set_add_one(cs, k) < 0)
            return -1;
    return 0;
}

static void set_free(struct class_set *cs)
{
    kit_table_free(&cs->seen);
    free(cs->classes);
}

/* One receivers' message per session: the JVM's stderr would fill up
 * with a loader per call. */
static _Atomic int receivers_full_told;

/* A class (internal name name) that is loaded: its instances are
 * receivers when it is a copy of the session's named class
 * (probe_receiver_add). */
static void add_receiver(JNIEnv *jni, jclass k, const char *name)
{
    if (probe_receiver_add(jni, k, name) < 0 && !atomic_exchange(&receivers_full_told, 1)) {
        char *u = mutf8_dup(name);

        vm_log("%d copies of %s are loaded (the most one session follows), or memory is short: calls of "
               "its inherited entry method on instances of the copies loaded from now on are not traced",
               PROBE_MAX_RECEIVERS, u != NULL ? mutf8_binary_name(u, strlen(u)) : name);
        free(u);
    }
}

/* ClassPrepare, while the named class of the session has an inherited entry
 * method: a copy of it that loads now is known before its first instance. */
static void JNICALL on_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass k)
{
    mct_err err;
    char *name = vm_class_name(k, &err);

    (void)jvmti;
    (void)thread;
    if (name != NULL)
        add_receiver(jni, k, name);
    free(name);
}

/* The named class (a class of the snapshot) when an entry method is
 * inherited, else NULL: the copies of every loader, those loaded now and
 * those that load during the session, are the receivers of its traced
 * calls. The copies that load are watched before those loaded are listed,
 * so that none is missed in between (probe_receiver_add keeps each once).
 * 0, or -1 with err set. */
static int watch_receivers(JNIEnv *jni, jclass named, mct_err *err)
{
    jclass *loaded = NULL;
    char *name;
    size_t n = 0, i;
    int rc = 0;

    atomic_store(&receivers_full_told, 0);
    if (named == NULL)
        return probe_receivers_begin(jni, NULL);
    if ((name = vm_class_name(named, err)) == NULL)
        return -1;
    if (probe_receivers_begin(jni, name) < 0)
        rc = mct_err_set(err, MCT_E_NOMEM, "out of memory following the named class");
    else if (vm_set_class_prepare(on_class_prepare, err) < 0)
        rc = -1;
    else if ((loaded = vm_loaded_classes(&n, err)) == NULL)
        rc = -1;
    for (i = 0; i < n; i++) {
        mct_err ignored;
        char *k = vm_class_name(loaded[i], &ignored);

        if (k != NULL && strcmp(k, name) == 0)
            add_receiver(jni, loaded[i], name);
        free(k);
    }
    vm_release_loaded(jni, loaded, n);
    free(name);
    return rc;
}

/* The names of the application's loaded types below
 * java.util.concurrent.Executor in hier (borrowed from it) into *out (the
 * caller frees the array), *n of them; 0, or -1 when out of memory. Only
 * what JVMTI says of classes already loaded is read: nothing is loaded,
 * initialised or run. A type of the JDK is left to handoff.c's names. */
static int own_executors(hj *hier, const char ***out, size_t *n)
{
    hier_class *root = hj_ops.find(hier, "java/util/concurrent/Executor", NULL);
    hier_class **seen = NULL;
    size_t n_seen = 0, cap_seen = 0, cap = 0, i, k, j;
    const char **names = NULL;
    int rc = 0;

    *out = NULL;
    *n = 0;
    if (root == NULL)
        return 0;
    if (buf_grow(&seen, &cap_seen, 0, sizeof *seen, 16) < 0)
        return -1;
    seen[n_seen++] = root;
    for (i = 0; i < n_seen && rc == 0; i++) {
        hier_class *const *subs;
        size_t n_subs = hj_ops.subtypes(hier, seen[i], &subs);

        if (i > 0 && !(hj_ops.flags(hier, seen[i]) & HIER_JDK)) {
            if (buf_grow(&names, &cap, *n, sizeof *names, 16) < 0)
                rc = -1;
            else
                names[(*n)++] = hj_ops.name(hier, seen[i]);
        }
        for (k = 0; k < n_subs && rc == 0; k++) {
            for (j = 0; j < n_seen && seen[j] != subs[k]; j++)
                ;
            if (j < n_seen)
                continue;
            if (buf_grow(&seen, &cap_seen, n_seen, sizeof *seen, 16) < 0)
                rc = -1;
            else
                seen[n_seen++] = subs[k];
        }
    }
    free(seen);
    if (rc < 0) {
        free(names);
        *n = 0;
        return -1;
    }
    *out = names;
    return 0;
}

/* --follow-async: numbers the methods the handed-off tasks run (their
 * nodes' methods) and tells the hook to rewrite the hand-off sites, those
 * on the application's executor types of hier included. */
static int follow(struct splan *s, hj *hier, mct_err *err)
{
    int32_t ids[HO_KINDS];
    const char **execs;
    size_t n;
    int k, rc;

    for (k = 0; k < HO_KINDS; k++)
        if ((ids[k] = mt_add(ho_tasks[k].iface, ho_tasks[k].name, ho_tasks[k].desc, s->gen, 0, err)) < 0)
            return -1;
    if (own_executors(hier, &execs, &n) < 0)
        return mct_err_set(err, MCT_E_NOMEM, "out of memory listing the application's executor types");
    rc = inst_follow(ids, execs, n);
    free(execs);
    return rc < 0 ? mct_err_set(err, MCT_E_NOMEM, "out of memory following hand-offs") : 0;
}

/* Numbers the methods to instrument, tells the hook about them and
 * retransforms their loaded classes. */
int splan_instrument(struct splan *s, JNIEnv *jni, hj *hier, mct_err *err)
{
    struct class_set cs = {0};
    uint64_t t0 = now_ns();
    mct_err werr;
    size_t i;
    int rc = 0;

    if (s->follow_async)
        rc = follow(s, hier, err);
    inst_trivial(s->skip_trivial);
    for (i = 0; i < s->n_methods && rc == 0; i++) {
        struct smethod *m = s->methods[i];
        const plan_method *pm = m->pm;

        if (pm->status == PLAN_EXCLUDED)
            continue;
        rc = number(s, m, 0, err);
        if (rc == 0 && pm->cls != NULL && set_add(&cs, pm->cls, pm->name, pm->desc) < 0)
            rc = mct_err_set(err, MCT_E_NOMEM, "out of memory instrumenting %zu methods", s->n_methods);
    }
    /* Which of them run compiled now, before the retransform discards
     * their code (warm.h); without it no call is marked warm-up. */
    if (rc == 0 && warm_begin(s->gen, cs.classes, cs.n, &werr) < 0)
        vm_debug("warm-up calls cannot be told: %s", werr.msg);
    if (rc == 0)
        rc = inst_retransform(jni, cs.classes, cs.n, err);
    warm_retransformed();
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
    struct splan *s = arg;
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
static void new_loaded_class(struct splan *s, JNIEnv *jni, hj *h, const char *name,
                             struct class_set *cs, plan_seed **seeds, size_t *n_seeds, size_t *cap_seeds)
{
    hier_class *c = hj_ops.find(h, name, NULL), *sup;
    hier_class *const *ifc;
    const hier_method *declared;
    const plan_method **mine = NULL;
    const char **ifaces;
    plan_seed *found;
    size_t n_ifc, n_decl, n_found = 0, n_mine = 0, cap_mine = 0, i;
    mct_err err;

    if (c == NULL)
        return;
    /* A class of the plan that another loader defined while the session
     * was set up: the hook may have seen it before its methods were
     * numbered. Listed under the lock, looked up in the JVM (hj_declares)
     * without it: the hook waits on it. */
    pthread_mutex_lock(&s->mlock);
    for (i = 0; i < s->n_methods; i++)
        if (s->methods[i]->id >= 0 && strcmp(s->methods[i]->pm->class_name, name) == 0 &&
            buf_grow(&mine, &cap_mine, n_mine, sizeof *mine, 16) == 0)
            mine[n_mine++] = s->methods[i]->pm;
    pthread_mutex_unlock(&s->mlock);
    for (i = 0; i < n_mine; i++)
        set_add(cs, c, mine[i]->name, mine[i]->desc);
    free(mine);
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

        if (m == NULL || number(s, m, 0, &err) < 0 || set_add(cs, c, pm->name, pm->desc) < 0 ||
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
void splan_extend(struct splan *s, JNIEnv *jni, int first)
{
    struct class_set cs = {0};
    plan_seed *seeds;
    size_t n_seeds, cap_seeds, n_early, n_added = 0, n_first, i;
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
        n_first = n_seeds;
        pthread_mutex_lock(&s->mlock);
        for (i = 0; first && i < s->n_pending; i++) {
            struct smethod *m = s->pending[i];

            if (m->seeded || hj_ops.find(h, m->pm->class_name, NULL) == NULL)
                continue;
            m->seeded = 1;
            if (buf_grow(&seeds, &cap_seeds, n_seeds, sizeof *seeds, 16) == 0)
                seeds[n_seeds++] = (plan_seed){.class_name = m->pm->class_name, .name = m->pm->name,
                                               .desc = m->pm->desc, .level = m->pm->level};
        }
        pthread_mutex_unlock(&s->mlock);
        /* Looked up in the JVM (hj_declares) without the lock the hook waits on. */
        for (i = n_first; i < n_seeds; i++)
            set_add(&cs, hj_ops.find(h, seeds[i].class_name, NULL), seeds[i].name, seeds[i].desc);
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
                    set_add(&cs, pm->cls, pm->name, pm->desc);
            }
        }
        /* Some of them may be instrumented already: retransformed again,
         * their methods lose their new compiled code too. */
        warm_rearm(cs.classes, cs.n);
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


/* --- the session's side ----------------------------------------------------------------- */

void splan_init(struct splan *s, uint32_t gen, const char *cls, const char *method, const char *desc,
                const char *regex, int depth, int include_jdk)
{
    memset(s, 0, sizeof *s);
    s->gen = gen;
    s->cls = cls;
    s->method = method;
    s->desc = desc;
    s->regex = regex;
    s->depth = depth;
    s->include_jdk = include_jdk;
    pthread_mutex_init(&s->mlock, NULL);
}

void splan_watch_loads(struct splan *s)
{
    inst_set_load_callback(on_class_load, s);
}

void splan_unwatch_loads(void)
{
    inst_set_load_callback(NULL, NULL);
}

void splan_ready(struct splan *s)
{
    pthread_mutex_lock(&s->mlock);
    s->ready = 1;
    pthread_mutex_unlock(&s->mlock);
}

size_t splan_late(struct splan *s)
{
    size_t late;

    pthread_mutex_lock(&s->mlock);
    late = s->late;
    pthread_mutex_unlock(&s->mlock);
    return late;
}

void splan_free(struct splan *s)
{
    size_t i;

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
}
