/* instrument.c — see instrument.h. */
#include "instrument.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "bytecode.h"
#include "classfile.h"
#include "clock.h"
#include "kit.h"
#include "methods.h"
#include "probe.h"
#include "rewrite.h"
#include "trivial.h"
#include "vm.h"

struct imethod {
    char *name, *desc;
    int32_t id;
    int root;
    inst_outcome *out;
    struct imethod *next;
};

/* One class the JVM defined under a name of the table: the copy of one
 * loader. Weak references, so that a loader the application drops (a
 * plugin, an undeployed web application) can still be unloaded. */
struct icopy {
    int boot;                  /* defined by the boot loader */
    jweak loader;              /* else its loader */
    jweak cls;                 /* NULL until known: retransformed, or found
                                  among the loaded classes at restore */
    int rewritten;             /* the JVM runs our bytes (or is about to) */
    uint8_t *image;            /* the class file it was loaded from, when needed */
    size_t image_len;
    int frameless;             /* the JVM's bytes lacked frames; no image yet */
    struct icopy *next;
};

/* A class name of the table: its methods get probes in every loader that
 * defines it. */
struct iclass {
    char *name;                /* internal name */
    struct imethod *methods;
    struct icopy *copies;
    size_t n_copies;
    size_t prune_at;           /* copies of dead loaders are dropped past it */
    struct iclass *all;        /* every class of the table (or leftover) */
    uint64_t left_ns;          /* a leftover since (clock_monotonic_ns) */
};

/* Copies looked at for dead loaders once there are this many (then twice
 * as many as are left). */
#define PRUNE_FIRST 64

/* Recursive: what the hook calls (AddModuleReads runs Java code) may load a
 * class, which enters the hook again on the same thread. */
static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static kit_table by_name;            /* name -> struct iclass * */
static struct iclass *all_classes;
static atomic_size_t n_rewritten;
static int32_t follow_ids[HO_KINDS]; /* the task methods' numbers (under lock) */
static int following;                 /* hand-off sites are followed (under lock) */
static int leave_trivial;             /* trivial methods are left as they are (under lock) */
static char **follow_execs;           /* the application's executor types, sorted (under lock) */
static size_t n_follow_execs;
static size_t n_unloaded;            /* rewritten copies found unloaded (under lock) */

/* Leftovers: copies rewritten as they loaded whose class was not defined
 * yet when the table was emptied (the hook had run, the JVM was still
 * defining the class: GetLoadedClasses does not list it). They are
 * restored once the class shows up: inst_restore waits a little for it,
 * then the listener's tick looks again (inst_restore_leftovers). Each keeps
 * its name, no method. Only under leftover_lock, never the hook's. */
static pthread_mutex_t leftover_lock = PTHREAD_MUTEX_INITIALIZER;
static struct iclass *leftovers;
static atomic_size_t n_leftovers;

/* How long inst_restore waits for the leftovers' classes (they are being
 * defined: moments), and how often it looks. */
#define LEFTOVER_WAIT_NS 200000000u
#define LEFTOVER_POLL_US 2000
/* A leftover whose class no loader defined this long after its session
 * ended (the definition failed after the hook) is given up. */
#define LEFTOVER_GIVE_UP_NS 60000000000ull
static jobject probe_module;         /* global ref: the boot loader's unnamed module */

static inst_load_cb load_cb;
static void *load_arg;
static inst_match_cb diag_match;
static void *diag_arg;
static _Atomic uint64_t diag_classes, diag_methods, diag_skipped, diag_bad;

/* Whether copy k is the one of loader (NULL: the boot loader). */
static int loader_of(JNIEnv *jni, const struct icopy *k, jobject loader)
{
    if (k->boot || loader == NULL)
        return k->boot && loader == NULL;
    return (*jni)->IsSameObject(jni, k->loader, loader);
}

/* Whether the loader of copy k was collected (its classes unloaded). */
static int dead(JNIEnv *jni, const struct icopy *k)
{
    return !k->boot && (*jni)->IsSameObject(jni, k->loader, NULL);
}

static void free_copy(JNIEnv *jni, struct icopy *k)
{
    if (k->rewritten)
        atomic_fetch_sub(&n_rewritten, 1);
    if (k->loader != NULL)
        (*jni)->DeleteWeakGlobalRef(jni, k->loader);
    if (k->cls != NULL)
        (*jni)->DeleteWeakGlobalRef(jni, k->cls);
    free(k->image);
    free(k);
}

/* Drops the copies of c whose loader is gone; the lock is held. */
static void prune(JNIEnv *jni, struct iclass *c)
{
    struct icopy **p = &c->copies, *k;

    while ((k = *p) != NULL) {
        if (dead(jni, k)) {
            *p = k->next;
            n_unloaded += k->rewritten != 0;
            free_copy(jni, k);
            c->n_copies--;
        } else {
            p = &k->next;
        }
    }
    c->prune_at = c->n_copies * 2 > PRUNE_FIRST ? c->n_copies * 2 : PRUNE_FIRST;
}

/* The copy of c the hook is handed: the class being retransformed
 * (redefined), or a new class of loader; created when new, NULL when out
 * of memory. The lock is held. */
static struct icopy *copy_of(JNIEnv *jni, struct iclass *c, jclass redefined, jobject loader)
{
    struct icopy *k;

    if (redefined != NULL) {
        for (k = c->copies; k != NULL; k = k->next)
            if (k->cls != NULL && (*jni)->IsSameObject(jni, k->cls, redefined))
                return k;
        /* Loaded (and rewritten) while its class object was unknown. */
        for (k = c->copies; k != NULL; k = k->next)
            if (k->cls == NULL && loader_of(jni, k, loader)) {
                k->cls = (*jni)->NewWeakGlobalRef(jni, redefined);
                return k;
            }
    }
    if (c->n_copies >= c->prune_at)
        prune(jni, c);
    if ((k = calloc(1, sizeof *k)) == NULL)
        return NULL;
    k->boot = loader == NULL;
    if ((!k->boot && (k->loader = (*jni)->NewWeakGlobalRef(jni, loader)) == NULL) ||
        (redefined != NULL && (k->cls = (*jni)->NewWeakGlobalRef(jni, redefined)) == NULL)) {
        free_copy(jni, k);
        return NULL;
    }
    k->next = c->copies;
    c->copies = k;
    c->n_copies++;
    return k;
}

/* The table entry for name, or NULL; the lock is held. */
static struct iclass *find_class(const char *name)
{
    kit_cursor cur;
    uintptr_t v;

    for (v = kit_table_first(&by_name, kit_hash_str(name, 0), &cur); v != 0; v = kit_table_next(&by_name, &cur))
        if (strcmp(((struct iclass *)v)->name, name) == 0)
            return (struct iclass *)v;
    return NULL;
}

int inst_add_locked(const char *cls, const char *name, const char *desc, int32_t id, int root,
                    inst_outcome *out, mct_err *err)
{
    struct iclass *c = find_class(cls);
    struct imethod *m;

    if (c == NULL) {
        c = calloc(1, sizeof *c);
        if (c == NULL || (c->name = strdup(cls)) == NULL ||
            kit_table_add(&by_name, kit_hash_str(cls, 0), (uintptr_t)c) < 0) {
            if (c != NULL)
                free(c->name);
            free(c);
            return mct_err_set(err, MCT_E_NOMEM, "out of memory adding %s", cls);
        }
        c->prune_at = PRUNE_FIRST;
        c->all = all_classes;
        all_classes = c;
    }
    m = calloc(1, sizeof *m);
    if (m == NULL || (m->name = strdup(name)) == NULL || (m->desc = strdup(desc)) == NULL) {
        if (m != NULL)
            free(m->name);
        free(m);
        return mct_err_set(err, MCT_E_NOMEM, "out of memory adding %s.%s", cls, name);
    }
    m->id = id;
    m->root = root;
    m->out = out;
    out->status = INST_WAITING;
    out->reason[0] = '\0';
    m->next = c->methods;
    c->methods = m;
    return 0;
}

int inst_add(const char *cls, const char *name, const char *desc, int32_t id, int root, inst_outcome *out,
             mct_err *err)
{
    int rc;

    pthread_mutex_lock(&lock);
    rc = inst_add_locked(cls, name, desc, id, root, out, err);
    pthread_mutex_unlock(&lock);
    return rc;
}

/* --- the hook --------------------------------------------------------------------------- */

/* Hands new class bytes to the JVM in memory it allocated. */
static int give(jvmtiEnv *jvmti, const uint8_t *data, size_t len, jint *new_len, unsigned char **new_data)
{
    unsigned char *p;

    if ((*jvmti)->Allocate(jvmti, (jlong)len, &p) != JVMTI_ERROR_NONE)
        return -1;
    memcpy(p, data, len);
    *new_len = (jint)len;
    *new_data = p;
    return 0;
}

/* Classes of named modules must read the probe class's module (the boot
 * loader's unnamed one), or calling the probes fails with an access error. */
static void add_read(jvmtiEnv *jvmti, JNIEnv *jni, jobject loader, const char *name)
{
    char pkg[1024];
    const char *slash = strrchr(name, '/');
    jobject module = NULL;
    size_t n;

    if (probe_module == NULL || slash == NULL || (n = (size_t)(slash - name)) >= sizeof pkg)
        return;
    memcpy(pkg, name, n);
    pkg[n] = '\0';
    if ((*jvmti)->GetNamedModule(jvmti, loader, pkg, &module) == JVMTI_ERROR_NONE && module != NULL) {
        jvmtiError e = (*jvmti)->AddModuleReads(jvmti, module, probe_module);

        if (e != JVMTI_ERROR_NONE)
            vm_debug("AddModuleReads for %s: %s", name, vm_jvmti_error_name(e));
        (*jni)->DeleteLocalRef(jni, module);
    }
}

/* Records what became of a method; the session may read it from another
 * thread, so the status is published after the reason. Long reasons are cut. */
static void set_outcome(inst_outcome *o, int status, const char *reason)
{
    size_t n = reason ? strnlen(reason, sizeof o->reason - 1) : 0;

    memcpy(o->reason, reason ? reason : "", n);
    o->reason[n] = '\0';
    __atomic_store_n(&o->status, status, __ATOMIC_RELEASE);
}

/* Whether a method of cf needs StackMapTable frames (a branch or a
 * handler, class file 50 or later) and has none: the JVM drops them for the
 * classes it does not verify, boot classes, and hands such bytes over at a
 * retransformation, though it verifies what comes back. */
static int frames_missing(const cf_class *cf)
{
    uint16_t i;

    if (cf->major < 50)
        return 0;
    for (i = 0; i < cf->n_methods; i++) {
        const cf_code *code = cf->methods[i].code;
        uint32_t pc = 0;
        bc_insn in;
        mct_err err;

        if (code == NULL || cf_find_attr(code->attrs, code->n_attrs, "StackMapTable") != NULL)
            continue;
        if (code->n_handlers > 0)
            return 1;
        while (pc < code->code_len && bc_decode(code->code, code->code_len, pc, &in, &err) == 0) {
            if (in.flags & BC_F_BRANCH)
                return 1;
            pc += in.len;
        }
    }
    return 0;
}

/* Whether b declares the same methods as a, with code of the same lengths:
 * the same class, whatever the constant pool's layout. */
static int same_shape(const cf_class *a, const cf_class *b)
{
    uint16_t i;

    if (strcmp(a->name, b->name) != 0 || a->n_methods != b->n_methods)
        return 0;
    for (i = 0; i < a->n_methods; i++) {
        const cf_member *ma = &a->methods[i];
        const cf_member *mb = cf_find_method(b, ma->name, ma->desc);

        if (mb == NULL || (ma->code == NULL) != (mb->code == NULL) ||
            (ma->code != NULL && ma->code->code_len != mb->code->code_len))
            return 0;
    }
    return 1;
}

/* Rewrites copy cp of class c from data; the lock is held. Returns 1 if
 * new bytes were handed to the JVM. */
static int rewrite_class(jvmtiEnv *jvmti, JNIEnv *jni, struct iclass *c, struct icopy *cp, jclass redefined,
                         jobject loader, const uint8_t *data, size_t len, jint *new_len,
                         unsigned char **new_data)
{
    mct_err err;
    cf_class *cf = cf_parse(data, len, &err);
    rw_target *targets = NULL;
    rw_outcome *outcomes = NULL;
    struct imethod **who = NULL;
    struct imethod *m;
    size_t n = 0, k;
    uint8_t *out = NULL;
    size_t out_len = 0;
    int given = 0;

    for (m = c->methods; m != NULL; m = m->next)
        n++;
    if (cf == NULL) {
        for (m = c->methods; m != NULL; m = m->next)
            set_outcome(m->out, INST_SKIPPED, err.msg);
        return 0;
    }
    if (frames_missing(cf)) {
        cf_class *img = cp->image != NULL ? cf_parse(cp->image, cp->image_len, &err) : NULL;

        if (img != NULL && same_shape(cf, img)) {
            cf_free(cf);
            cf = img;
        } else if (img == NULL && cp->image == NULL && redefined != NULL) {
            /* Left as it is until inst_retransform has read its class file:
             * rewriting these bytes would skip the methods that branch, and
             * trees taken meanwhile would miss them. */
            for (m = c->methods; m != NULL; m = m->next)
                set_outcome(m->out, INST_SKIPPED,
                            "the JVM kept no StackMapTable and the class file could not be read");
            cp->frameless = 1;
            cf_free(cf);
            return 0;
        } else {
            cf_free(img);
        }
    }
    targets = calloc(n, sizeof *targets);
    outcomes = calloc(n, sizeof *outcomes);
    who = calloc(n, sizeof *who);
    if (targets == NULL || outcomes == NULL || who == NULL)
        goto out;
    n = 0;
    for (m = c->methods; m != NULL; m = m->next) {
        const cf_member *cm = cf_find_method(cf, m->name, m->desc);

        if (cm == NULL) {
            set_outcome(m->out, INST_SKIPPED, "the loaded class has no such method");
            continue;
        }
        if (leave_trivial && !m->root && cf_trivial(cf, cm)) {
            set_outcome(m->out, INST_TRIVIAL, TRIVIAL_REASON);
            continue;
        }
        targets[n].method = (uint16_t)(cm - cf->methods);
        targets[n].id = m->id;
        targets[n].probes = probe_methods(m->root);
        targets[n].handoff = following ? follow_ids : NULL;
        targets[n].executors = (const char *const *)follow_execs;
        targets[n].n_executors = following ? n_follow_execs : 0;
        who[n++] = m;
    }
    if (n == 0)
        goto out;
    if (rw_rewrite(cf, targets, n, outcomes, &out, &out_len, &err) < 0) {
        for (k = 0; k < n; k++)
            set_outcome(who[k]->out, INST_SKIPPED, err.msg);
        goto out;
    }
    if (out != NULL && give(jvmti, out, out_len, new_len, new_data) == 0) {
        given = 1;
        add_read(jvmti, jni, loader, c->name);
        if (!cp->rewritten) {
            cp->rewritten = 1;
            atomic_fetch_add(&n_rewritten, 1);
        }
    }
    for (k = 0; k < n; k++) {
        if (outcomes[k].status == RW_REWRITTEN && given)
            set_outcome(who[k]->out, INST_DONE, NULL);
        else
            set_outcome(who[k]->out, INST_SKIPPED,
                        outcomes[k].status == RW_REWRITTEN ? "out of memory" : outcomes[k].reason);
    }
out:
    free(out);
    free(targets);
    free(outcomes);
    free(who);
    cf_free(cf);
    return given;
}

/* The diagnostic mode: every method with code, numbered on the fly. */
static void rewrite_all(jvmtiEnv *jvmti, JNIEnv *jni, jobject loader, const char *name,
                        const uint8_t *data, size_t len, jint *new_len, unsigned char **new_data)
{
    mct_err err;
    cf_class *cf = cf_parse(data, len, &err);
    rw_target *targets;
    rw_outcome *outcomes;
    uint8_t *out = NULL;
    size_t out_len, n = 0, k;
    uint16_t i;

    if (cf == NULL) {
        atomic_fetch_add(&diag_bad, 1);
        vm_log("cannot parse %s: %s", name, err.msg);
        return;
    }
    targets = calloc(cf->n_methods + 1u, sizeof *targets);
    outcomes = calloc(cf->n_methods + 1u, sizeof *outcomes);
    if (targets != NULL && outcomes != NULL) {
        for (i = 0; i < cf->n_methods; i++) {
            int32_t id;

            if (cf->methods[i].code == NULL)
                continue;
            id = mt_add(name, cf->methods[i].name, cf->methods[i].desc, 0, 0, &err);
            if (id < 0)
                break;
            targets[n].method = i;
            targets[n].id = id;
            targets[n].probes = probe_methods(0);
            n++;
        }
        if (n > 0 && rw_rewrite(cf, targets, n, outcomes, &out, &out_len, &err) == 0 && out != NULL &&
            give(jvmti, out, out_len, new_len, new_data) == 0) {
            add_read(jvmti, jni, loader, name);
            atomic_fetch_add(&diag_classes, 1);
            for (k = 0; k < n; k++) {
                if (outcomes[k].status == RW_REWRITTEN) {
                    atomic_fetch_add(&diag_methods, 1);
                } else {
                    atomic_fetch_add(&diag_skipped, 1);
                    vm_debug("skipped %s.%s%s: %s", name, cf->methods[targets[k].method].name,
                             cf->methods[targets[k].method].desc, outcomes[k].reason);
                }
            }
        } else if (n > 0) {
            atomic_fetch_add(&diag_bad, 1);
            vm_log("cannot rewrite %s: %s", name, out == NULL ? "no method rewritten" : err.msg);
        }
    }
    free(out);
    free(targets);
    free(outcomes);
    cf_free(cf);
}

static void JNICALL hook(jvmtiEnv *jvmti, JNIEnv *jni, jclass redefined, jobject loader,
                         const char *name, jobject pd, jint len, const unsigned char *data,
                         jint *new_len, unsigned char **new_data)
{
    struct iclass *c;

    if (name == NULL || len <= 0 || probe_class() == NULL)
        return;
    pthread_mutex_lock(&lock);
    if (redefined == NULL && load_cb != NULL)
        load_cb(jni, name, loader, data, (size_t)len, load_arg);
    c = find_class(name);
    if (c != NULL) {
        struct icopy *cp = copy_of(jni, c, redefined, loader);

        if (cp != NULL)
            rewrite_class(jvmti, jni, c, cp, redefined, loader, data, (size_t)len, new_len, new_data);
    } else if (redefined == NULL && diag_match != NULL && diag_match(name, diag_arg))
        rewrite_all(jvmti, jni, loader, name, data, (size_t)len, new_len, new_data);
    pthread_mutex_unlock(&lock);
}

/* Frees the executor types' names (under lock). */
static void drop_execs(void)
{
    for (size_t i = 0; i < n_follow_execs; i++)
        free(follow_execs[i]);
    free(follow_execs);
    follow_execs = NULL;
    n_follow_execs = 0;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int inst_follow(const int32_t *ids, const char *const *executors, size_t n)
{
    char **names = n > 0 ? calloc(n, sizeof *names) : NULL;
    size_t i, kept = 0;

    if (n > 0 && names == NULL)
        return -1;
    for (i = 0; i < n; i++)
        if ((names[i] = strdup(executors[i])) == NULL) {
            while (i > 0)
                free(names[--i]);
            free(names);
            return -1;
        }
    if (n > 0)
        qsort(names, n, sizeof *names, cmp_name);
    for (i = 0; i < n; i++)
        if (kept > 0 && strcmp(names[kept - 1], names[i]) == 0)
            free(names[i]);
        else
            names[kept++] = names[i];
    pthread_mutex_lock(&lock);
    drop_execs();
    following = ids != NULL;
    if (ids != NULL)
        memcpy(follow_ids, ids, sizeof follow_ids);
    follow_execs = names;
    n_follow_execs = kept;
    pthread_mutex_unlock(&lock);
    return 0;
}

void inst_trivial(int leave)
{
    pthread_mutex_lock(&lock);
    leave_trivial = leave;
    pthread_mutex_unlock(&lock);
}

int inst_init(JNIEnv *jni, mct_err *err)
{
    jvmtiEnv *jvmti = vm_jvmti();
    jclass pc = probe_class();

    /* Modules exist from JNI 9 on; before, GetModule is not in the table. */
    if (probe_module == NULL && pc != NULL && (*jni)->GetVersion(jni) >= JNI_VERSION_9) {
        jobject m = (*jni)->GetModule(jni, pc);

        if (m != NULL) {
            probe_module = (*jni)->NewGlobalRef(jni, m);
            (*jni)->DeleteLocalRef(jni, m);
        }
    }
    if (jvmti == NULL)
        return mct_err_set(err, MCT_E_JVMTI, "no JVMTI environment");
    return vm_set_class_hook(hook, err);
}

void inst_set_load_callback(inst_load_cb cb, void *arg)
{
    pthread_mutex_lock(&lock);
    load_cb = cb;
    load_arg = arg;
    pthread_mutex_unlock(&lock);
}

void inst_set_rewrite_all(inst_match_cb match, void *arg)
{
    pthread_mutex_lock(&lock);
    diag_match = match;
    diag_arg = arg;
    pthread_mutex_unlock(&lock);
}

void inst_diag_counts(uint64_t *classes, uint64_t *methods, uint64_t *skipped, uint64_t *bad)
{
    *classes = atomic_load(&diag_classes);
    *methods = atomic_load(&diag_methods);
    *skipped = atomic_load(&diag_skipped);
    *bad = atomic_load(&diag_bad);
}

size_t inst_rewritten_classes(void)
{
    return atomic_load(&n_rewritten);
}

size_t inst_unloaded(JNIEnv *jni)
{
    struct iclass *c;
    size_t n;

    pthread_mutex_lock(&lock);
    for (c = all_classes; c != NULL; c = c->all)
        prune(jni, c);
    n = n_unloaded;
    pthread_mutex_unlock(&lock);
    return n;
}

/* --- retransformation ------------------------------------------------------------------- */

/* Marks the methods of the table class of classes[i] (arg: classes) as
 * refused by the JVM; the class runs its original code. */
static void refused(void *arg, JNIEnv *jni, size_t i, const char *name, jvmtiError e)
{
    jclass k = ((jclass *)arg)[i];
    struct iclass *c;
    struct icopy *cp;
    char reason[160];

    snprintf(reason, sizeof reason, "the JVM refused the rewritten class: %s", vm_jvmti_error_name(e));
    pthread_mutex_lock(&lock);
    for (c = all_classes; c != NULL; c = c->all) {
        struct imethod *m;

        for (cp = c->copies; cp != NULL; cp = cp->next) {
            if (cp->cls == NULL || !(*jni)->IsSameObject(jni, cp->cls, k))
                continue;
            for (m = c->methods; m != NULL; m = m->next)
                set_outcome(m->out, INST_FAILED, reason);
            if (cp->rewritten) {
                cp->rewritten = 0;
                atomic_fetch_sub(&n_rewritten, 1);
            }
        }
    }
    pthread_mutex_unlock(&lock);
}

/* Retransforms n classes, one by one when the batch is refused. */
static int retransform_batch(JNIEnv *jni, jclass *classes, size_t n, mct_err *err)
{
    static const struct vm_retransform_ops ops = {.refused = refused};

    return vm_retransform(jni, classes, n, &ops, classes, err);
}

/* The copies whose bytes lacked frames get their class file read (Java
 * code runs: not under the lock); returns their classes as local refs in
 * *out (caller frees the array and the refs). A listed copy stays valid
 * without the lock: the reference taken keeps its loader alive, so prune
 * leaves it, and only inst_restore, on the caller's thread, frees it. */
static size_t read_images(JNIEnv *jni, jclass **out)
{
    struct iclass *c;
    struct icopy *cp, **todo = NULL;
    char **names = NULL;
    jclass *classes = NULL;
    size_t n = 0, room = 0, room_names = 0, room_classes = 0, i, done = 0;

    pthread_mutex_lock(&lock);
    for (c = all_classes; c != NULL; c = c->all)
        for (cp = c->copies; cp != NULL; cp = cp->next) {
            jclass k;

            if (!cp->frameless || cp->cls == NULL)
                continue;
            if (buf_grow(&todo, &room, n, sizeof *todo, 16) < 0 ||
                buf_grow(&names, &room_names, n, sizeof *names, 16) < 0 ||
                buf_grow(&classes, &room_classes, n, sizeof *classes, 16) < 0)
                goto listed;
            cp->frameless = 0;
            if ((k = (*jni)->NewLocalRef(jni, cp->cls)) == NULL)
                continue;
            names[n] = c->name;
            classes[n] = k;
            todo[n++] = cp;
        }
listed:
    pthread_mutex_unlock(&lock);
    for (i = 0; i < n; i++) {
        size_t len = 0;
        mct_err why;
        uint8_t *bytes = vm_read_class_file(jni, classes[i], names[i], &len, &why);

        if (bytes == NULL) {
            (*jni)->DeleteLocalRef(jni, classes[i]);
            continue;
        }
        pthread_mutex_lock(&lock);
        todo[i]->image = bytes;
        todo[i]->image_len = len;
        pthread_mutex_unlock(&lock);
        classes[done++] = classes[i];
    }
    free(todo);
    free(names);
    *out = classes;
    return done;
}

int inst_retransform(JNIEnv *jni, jclass *classes, size_t n, mct_err *err)
{
    jclass *again = NULL;
    size_t n_again;
    int rc = retransform_batch(jni, classes, n, err);

    /* The JVM keeps no StackMapTable for the classes it does not verify
     * (boot classes; all of them with -Xverify:none), so what it handed over
     * could not be rewritten where the verifier needs frames: once more,
     * from the class files those classes were loaded from. */
    n_again = rc == 0 ? read_images(jni, &again) : 0;
    if (n_again > 0)
        rc = retransform_batch(jni, again, n_again, err);
    if (again != NULL)
        vm_release_locals(jni, (jobject *)again, n_again);
    free(again);
    return rc;
}

/* The loaded classes of the table's copies that were rewritten at load
 * time, found by name and loader among the loaded classes. */
static void find_load_time_classes(JNIEnv *jni, struct iclass *list)
{
    size_t n = 0, i;
    jclass *loaded;
    struct iclass *c;
    struct icopy *cp;
    int missing = 0;
    mct_err err;

    for (c = list; c != NULL && !missing; c = c->all)
        for (cp = c->copies; cp != NULL && !missing; cp = cp->next)
            missing = cp->rewritten && cp->cls == NULL && !dead(jni, cp);
    if (!missing)
        return;
    loaded = vm_loaded_classes(&n, &err);
    if (loaded == NULL) {
        vm_log("looking for classes rewritten as they loaded: %s", err.msg);
        return;
    }
    for (i = 0; i < n; i++) {
        char *name = vm_class_name(loaded[i], &err);
        jobject loader = NULL;

        /* Without its loader a class could be taken for another. */
        if (name != NULL && vm_class_loader(loaded[i], &loader, &err) == 0) {
            for (c = list; c != NULL; c = c->all) {
                if (strcmp(c->name, name) != 0)
                    continue;
                for (cp = c->copies; cp != NULL; cp = cp->next)
                    if (cp->rewritten && cp->cls == NULL && loader_of(jni, cp, loader))
                        cp->cls = (*jni)->NewWeakGlobalRef(jni, loaded[i]);
            }
            if (loader != NULL)
                (*jni)->DeleteLocalRef(jni, loader);
        }
        free(name);
    }
    vm_release_loaded(jni, loaded, n);
}

static void free_class(JNIEnv *jni, struct iclass *c)
{
    struct imethod *m, *next;
    struct icopy *cp, *cnext;

    for (cp = c->copies; cp != NULL; cp = cnext) {
        cnext = cp->next;
        free_copy(jni, cp);
    }
    for (m = c->methods; m != NULL; m = next) {
        next = m->next;
        free(m->name);
        free(m->desc);
        free(m);
    }
    free(c->name);
    free(c);
}

/* What restore_found learns of the classes the JVM would not restore. */
struct restore_failures {
    size_t n;
    char first[300];           /* the first one: its class and the JVMTI error */
};

static void restore_refused(void *arg, JNIEnv *jni, size_t i, const char *name, jvmtiError e)
{
    struct restore_failures *f = arg;

    (void)jni;
    (void)i;
    vm_log("cannot restore class %s: %s; it keeps its instrumented code", name, vm_jvmti_error_name(e));
    if (f->n++ == 0)
        snprintf(f->first, sizeof f->first, "%s: %s", name, vm_jvmti_error_name(e));
}

/* Retransforms the copies of list that were rewritten and whose class is
 * known or found now, so that the JVM runs their original bytes; each
 * class the JVM refuses is named on the JVM's stderr with its error.
 * Returns 0, or -1 with err set naming how many could not be restored. */
static int restore_found(JNIEnv *jni, struct iclass *list, mct_err *err)
{
    static const struct vm_retransform_ops ops = {.refused = restore_refused};
    struct restore_failures failed = {0};
    mct_err why;
    struct iclass *c;
    struct icopy *cp;
    jclass *classes;
    size_t n = 0, i;
    int rc;

    find_load_time_classes(jni, list);
    for (c = list; c != NULL; c = c->all)
        for (cp = c->copies; cp != NULL; cp = cp->next)
            n += cp->rewritten && cp->cls != NULL;
    if (n == 0)
        return 0;
    classes = calloc(n + 1, sizeof *classes);
    if (classes == NULL)
        return mct_err_set(err, MCT_E_NOMEM, "out of memory restoring %zu classes", n);
    /* Strong references for the call; a copy whose class was unloaded
     * meanwhile has nothing to restore. */
    n = 0;
    for (c = list; c != NULL; c = c->all)
        for (cp = c->copies; cp != NULL; cp = cp->next)
            if (cp->rewritten && cp->cls != NULL && (classes[n] = (*jni)->NewGlobalRef(jni, cp->cls)) != NULL)
                n++;
    rc = vm_retransform(jni, classes, n, &ops, &failed, &why);
    for (i = 0; i < n; i++)
        (*jni)->DeleteGlobalRef(jni, classes[i]);
    free(classes);
    if (rc < 0)
        return mct_err_set(err, MCT_E_JVMTI, "%zu classes could not be restored: %s", n, why.msg);
    if (failed.n > 0)
        return mct_err_set(err, MCT_E_JVMTI, "%zu of %zu classes could not be restored (%s%s)", failed.n, n,
                           failed.first, failed.n > 1 ? ", and others named on the JVM's stderr" : "");
    return 0;
}

/* After restore_found: frees the classes of list, but keeps (as leftovers,
 * leftover_lock held) the copies rewritten at load whose class was not
 * found and whose loader lives, unless they waited past the give-up. */
static void keep_leftovers(JNIEnv *jni, struct iclass *list, uint64_t now)
{
    struct iclass *c, *next;
    struct icopy **p, *cp;

    for (c = list; c != NULL; c = next) {
        next = c->all;
        if (c->left_ns == 0)
            c->left_ns = now;
        for (p = &c->copies; (cp = *p) != NULL;) {
            if (cp->rewritten && cp->cls == NULL && !dead(jni, cp) && now - c->left_ns < LEFTOVER_GIVE_UP_NS) {
                p = &cp->next;
                continue;
            }
            if (cp->rewritten && cp->cls == NULL && !dead(jni, cp))
                vm_log("a class %s that a loader began to define as a session ended was not defined %llu s "
                       "later; no longer waited for", c->name, LEFTOVER_GIVE_UP_NS / 1000000000ull);
            *p = cp->next;
            free_copy(jni, cp);
            c->n_copies--;
        }
        if (c->copies == NULL) {
            free_class(jni, c);
            continue;
        }
        c->all = leftovers;
        leftovers = c;
        atomic_fetch_add(&n_leftovers, c->n_copies);
    }
}

/* Looks for the leftovers' classes once, and restores those found
 * (leftover_lock held). */
static void retry_leftovers(JNIEnv *jni)
{
    struct iclass *list = leftovers;
    mct_err err;

    leftovers = NULL;
    atomic_store(&n_leftovers, 0);
    if (restore_found(jni, list, &err) < 0)
        vm_log("restoring classes defined after their session ended: %s", err.msg);
    keep_leftovers(jni, list, clock_monotonic_ns());
}

int inst_restore(JNIEnv *jni, mct_err *err)
{
    struct iclass *list, *c;
    struct imethod *m, *mnext;
    uint64_t until;
    int rc;

    pthread_mutex_lock(&lock);
    list = all_classes;
    all_classes = NULL;
    following = 0;
    leave_trivial = 0;
    drop_execs();
    kit_table_free(&by_name);
    n_unloaded = 0;
    pthread_mutex_unlock(&lock);

    /* From now on the hook rewrites no class of list: its copies are final. */
    pthread_mutex_lock(&leftover_lock);
    rc = restore_found(jni, list, err);
    for (c = list; c != NULL; c = c->all) {
        for (m = c->methods; m != NULL; m = mnext) {
            mnext = m->next;
            free(m->name);
            free(m->desc);
            free(m);
        }
        c->methods = NULL;
    }
    keep_leftovers(jni, list, clock_monotonic_ns());
    until = clock_monotonic_ns() + LEFTOVER_WAIT_NS;
    while (leftovers != NULL && clock_monotonic_ns() < until) {
        usleep(LEFTOVER_POLL_US);
        retry_leftovers(jni);
    }
    if (leftovers != NULL)
        vm_debug("%zu class(es) rewritten as the session ended are not defined yet; restored once they are",
                 atomic_load(&n_leftovers));
    pthread_mutex_unlock(&leftover_lock);
    return rc;
}

size_t inst_restore_leftovers(JNIEnv *jni)
{
    size_t n = atomic_load(&n_leftovers);

    if (n == 0 || pthread_mutex_trylock(&leftover_lock) != 0)
        return n;
    if (leftovers != NULL)
        retry_leftovers(jni);
    n = atomic_load(&n_leftovers);
    pthread_mutex_unlock(&leftover_lock);
    return n;
}
