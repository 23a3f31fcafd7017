/* planner.c — see planner.h. The walk that builds a plan, its entry
 * methods and the public API. Below it: the planner's state
 * (plan_state.c), the watched sites (plan_sites.c) and resolution
 * (plan_resolve.c); above it, classes loaded later (plan_extend.c); the
 * order of their headers is at the top of plan_state.h.
 *
 *
 * The plan is built breadth first. The entry methods are level 1; the
 * methods of level k < depth that get instrumented are scanned, level by
 * level, and each call site adds its callees at level k + 1 unless they are in the plan
 * already (so a method's level is its smallest one). The plan's own array is
 * the queue: entries are appended in discovery order and levels never
 * decrease along it.
 *
 * Call sites:
 *   invokestatic, invokespecial: the method that resolution (JVMS 5.4.3.3,
 *     5.4.3.4) finds from the class named at the call site;
 *   invokevirtual, invokeinterface: that resolved method, plus, for every
 *     loaded concrete subtype C of the named class, the method JVM selection
 *     (JVMS 5.4.6) picks for C: the first declaration up C's superclass chain,
 *     else the one maximally-specific non-abstract default method. Only the
 *     implementations that would be kept are added: the resolved method is
 *     listed whatever happens to it, the implementations are not listed when
 *     left out (a call on java/lang/Object would list thousands);
 *   invokedynamic bootstrapped by LambdaMetafactory.metafactory or
 *     altMetafactory: the implementation method handle (bootstrap argument
 *     1), as invokestatic / invokespecial / invokevirtual / invokeinterface
 *     by its kind, and newInvokeSpecial as the constructor. Other bootstraps
 *     (string concatenation, records, switches) call nothing of the program;
 *   array owners ("[I".clone), <clinit> and unresolvable references are
 *     ignored. */
#include "plan_walk.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytecode.h"
#include "mtime.h"
#include "mutf8.h"

static const char R_ABSTRACT[] = "abstract: its implementations are traced";
static const char R_NATIVE[] = "native: no bytecode to instrument";
static const char R_BADCLASS[] = "class file could not be parsed";
static const char R_NOBYTES[] = "class file could not be read";
static const char N_INHERITED_RECV[] = "entry method, inherited from a superclass: traced only when the receiver "
                                       "is an instance of the class named";
static const char N_DEFAULT_RECV[] = "entry method, a default method inherited from an interface: traced only "
                                     "when the receiver is an instance of the class named";
static const char N_INHERITED_STATIC[] = "entry method, a static method inherited from a superclass: every call "
                                         "is traced, whatever class it is called through";
static const char LMF[] = "java/lang/invoke/LambdaMetafactory";

/* Bounds of the error messages' lists. */
#define MSG_NAMES 24
#define MSG_NEAR 4

long pl_append(struct ctx *x, struct cls *c, const hier_method *m, const char *cname,
               const char *name, const char *desc, int level, int status, int root,
               const char *reason)
{
    plan_method pm;
    int nomem = 0;
    long i;

    if (pl_grow_nodes(x, x->p->n + 1) < 0)
        return -1;
    memset(&pm, 0, sizeof pm);
    pm.cls = c ? c->h : NULL;
    pm.class_name = cname;
    pm.name = name;
    pm.desc = desc;
    pm.access = m ? m->access : 0;
    pm.level = level;
    pm.status = status;
    pm.root = root;
    pm.reason = reason;
    if ((i = pl_push_entry(x->p, &pm, &nomem)) < 0) {
        if (nomem)
            pl_oom(x);
        return -1;
    }
    x->nodes[i].c = c;
    x->nodes[i].m = m;
    if (x->extend) {
        pl_vec_push_index(x, &x->added, (size_t)i);
        pl_vec_push_index(x, &x->todo, (size_t)i);
    }
    return i;
}

long pl_add_method(struct ctx *x, struct sel s, int level, int root, const char *note)
{
    void **v;
    const char *why;
    int status = PLAN_INSTRUMENT;
    long i;

    pl_key_begin(&x->key, K_METHOD);
    pl_key_ptr(&x->key, s.c);
    pl_key_ptr(&x->key, s.m);
    if ((v = pl_map_slot(x, 1)) == NULL)
        return -1;
    if (*v != NULL)
        return (long)(intptr_t)*v - 1;
    /* By name: the copies of a class in several loaders are one entry
     * (the session instruments it in every loader). */
    if ((i = pl_find_entry(x->p, s.c->name, s.m->name, s.m->desc)) >= 0) {
        *v = (void *)(intptr_t)(i + 1);
        return i;
    }
    why = root ? pl_never_why(s.c->name, s.c->flags) : pl_cls_why(x, s.c);
    if (why == NULL && (s.m->access & CF_ACC_ABSTRACT))
        why = R_ABSTRACT;
    if (why == NULL && (s.m->access & CF_ACC_NATIVE))
        why = R_NATIVE;
    if (why != NULL)
        status = PLAN_EXCLUDED;
    i = pl_append(x, s.c, s.m, s.c->name, s.m->name, s.m->desc, level, status, root,
                  why ? why : note);
    if (i >= 0)
        *v = (void *)(intptr_t)(i + 1);
    return i;
}

/* plan_build: counts the class of a callee once by name for plan_regex,
 * when the regex decides on it (eligible: nothing left it out before). */
static void count_callee(struct ctx *x, const char *name, int eligible, int matched)
{
    void **v;
    int k;

    if (x->extend || !eligible || x->failed)
        return;
    pl_key_begin(&x->key, K_CALLEE);
    pl_key_str(&x->key, name);
    if ((v = pl_map_slot(x, 1)) == NULL || *v != NULL)
        return;
    *v = &pl_none_marker;
    x->p->seen.callee_classes++;
    x->p->seen.matched_classes += matched != 0;
    for (k = 0; k < 2; k++)
        if (x->hint_re[k] != NULL && match_class(x->hint_re[k], name) == 1)
            x->hint_n[k]++;
}

/* Adds a method of a class that is not loaded yet; a virtual call site on
 * it is watched (its subtypes load after it). */
static void add_pending(struct ctx *x, const char *cname, const char *name, const char *desc, int level,
                        int virt)
{
    void **v;
    const char *why = NULL;
    int gave_up, matched;
    long i;

    if (virt && pl_watch(x, cname, NULL, name, desc, level, 0) == NULL)
        return;
    pl_key_begin(&x->key, K_PENDING);
    pl_key_str(&x->key, cname);
    pl_key_str(&x->key, name);
    pl_key_str(&x->key, desc);
    if ((v = pl_map_slot(x, 1)) == NULL || *v != NULL)
        return;
    if (x->extend && (i = pl_find_entry(x->p, cname, name, desc)) >= 0) {
        *v = (void *)(intptr_t)(i + 1);
        return;
    }
    matched = pl_regex_match(x, cname, &gave_up);
    if (!matched)
        why = gave_up ? pl_R_REGEX_LIMIT : pl_R_REGEX;
    else if ((why = pl_never_why(cname, 0)) == NULL && !x->include_jdk && pl_jdk_name(cname))
        why = pl_R_JDK;
    if (x->failed)
        return;
    count_callee(x, cname, pl_never_why(cname, 0) == NULL && (x->include_jdk || !pl_jdk_name(cname)), matched);
    i = pl_append(x, NULL, NULL, cname, name, desc, level, why ? PLAN_EXCLUDED : PLAN_PENDING, 0, why);
    if (i >= 0)
        *v = (void *)(intptr_t)(i + 1);
}

/* count_callee for a loaded class; the regex is asked only where
 * cls_kept would ask it. */
static void callee_class(struct ctx *x, struct cls *c)
{
    int eligible;

    if (x->extend || x->failed)
        return;
    eligible = pl_never_why(c->name, c->flags) == NULL && (x->include_jdk || !(c->flags & HIER_JDK));
    count_callee(x, c->name, eligible, eligible && pl_regex_ok(x, c));
}

/* One callee of a method of `from` at level - 1, as named by a call site
 * or a method handle. */
static void callee(struct ctx *x, struct cls *from, int level, const char *owner, const char *name,
                   const char *desc, int iface, int virt)
{
    struct cls *o;
    struct sel r;
    struct vres *vr;
    size_t i;

    if (owner[0] == '[' || strcmp(name, "<clinit>") == 0)
        return;
    if ((o = pl_find_class(x, owner, from)) == NULL) {
        if (!x->failed)
            add_pending(x, owner, name, desc, level, virt);
        return;
    }
    r = pl_resolve(x, o, name, desc, iface || (o->flags & HIER_INTERFACE));
    if (r.m == NULL)
        return;
    pl_add_method(x, r, level, 0, NULL);
    callee_class(x, r.c);
    if (!virt)
        return;
    vr = pl_overriders(x, o, r, name, desc, level);
    for (i = 0; i < vr->n && !x->failed && !x->p->capped; i++) {
        pl_add_method(x, vr->impls[i], level, 0, NULL);
        callee_class(x, vr->impls[i].c);
    }
}

/* The implementation method handle of a LambdaMetafactory call site; 0, or
 * -1 when the site's bootstrap method is not known (see hier_ops.unread). */
static int lambda(struct ctx *x, struct cls *from, int level, uint16_t index)
{
    const cf_bootstrap *bsm;
    const char *iname, *idesc;
    uint8_t kind;
    cf_ref bref, ref;

    if (cf_invoke_dynamic(from->cf, index, &bsm, &iname, &idesc) < 0)
        return -1;
    if (cf_method_handle(from->cf, bsm->method, &kind, &bref) < 0 || bref.tag == CF_FIELDREF ||
        strcmp(bref.owner, LMF) != 0 ||
        (strcmp(bref.name, "metafactory") != 0 && strcmp(bref.name, "altMetafactory") != 0) ||
        bsm->n_args < 2 || cf_method_handle(from->cf, bsm->args[1], &kind, &ref) < 0)
        return 0;
    switch (kind) {
    case CF_REF_INVOKE_STATIC:
    case CF_REF_INVOKE_SPECIAL:
    case CF_REF_NEW_INVOKE_SPECIAL:
        callee(x, from, level, ref.owner, ref.name, ref.desc, ref.tag == CF_INTERFACE_METHODREF, 0);
        break;
    case CF_REF_INVOKE_VIRTUAL:
    case CF_REF_INVOKE_INTERFACE:
        callee(x, from, level, ref.owner, ref.name, ref.desc, ref.tag == CF_INTERFACE_METHODREF, 1);
        break;
    default:
        break;
    }
    return 0;
}

/* plan_build: notes on plan entry i, a method of class c with a call site
 * whose bootstrap method is not known, that the lambdas and method
 * references of c are not followed, and why (the hierarchy's words). A
 * later plan_extend leaves its entries as they are: the plan was sent. */
static void note_unread(struct ctx *x, size_t i, struct cls *c)
{
    plan_method *pm = pl_pm_at(x->p, i);
    const char *why = x->ops->unread != NULL ? x->ops->unread(x->hc, c->h) : NULL;
    char name[1024], text[2048], *note;
    size_t n;

    if (why == NULL || x->extend)
        return;
    mutf8_binary_copy(c->name, name, sizeof name);
    snprintf(text, sizeof text, "%s%slambdas and method references of %s not followed: %s",
             pm->reason != NULL ? pm->reason : "", pm->reason != NULL ? "; " : "", name, why);
    n = strlen(text) + 1;
    if ((note = kit_arena_alloc(&x->p->arena, n)) == NULL) {
        pl_oom(x);
        return;
    }
    memcpy(note, text, n);
    pm->reason = note;
}

void pl_scan(struct ctx *x, size_t i)
{
    struct cls *c = x->nodes[i].c;
    const hier_method *hm = x->nodes[i].m;
    int level = pl_pm_at(x->p, i)->level + 1;
    const cf_member *m;
    const cf_code *code;
    uint32_t pc = 0;
    int unread = 0;

    if (c->cf == NULL || (m = cf_find_method(c->cf, hm->name, hm->desc)) == NULL || m->code == NULL)
        return;
    code = m->code;
    while (pc < code->code_len && !pl_stop(x, 0) && !x->p->capped) {
        bc_insn in;
        cf_ref ref;

        if (bc_decode(code->code, code->code_len, pc, &in, x->err) < 0) {
            x->failed = 1;
            mct_err_wrap(x->err, "while scanning %s.%s%s", c->name, hm->name, hm->desc);
            return;
        }
        switch (in.op) {
        case BC_INVOKEVIRTUAL:
        case BC_INVOKEINTERFACE:
        case BC_INVOKESPECIAL:
        case BC_INVOKESTATIC:
            if (cf_member_ref(c->cf, in.index, &ref) == 0 && ref.tag != CF_FIELDREF)
                callee(x, c, level, ref.owner, ref.name, ref.desc, ref.tag == CF_INTERFACE_METHODREF,
                       in.op == BC_INVOKEVIRTUAL || in.op == BC_INVOKEINTERFACE);
            break;
        case BC_INVOKEDYNAMIC:
            if (lambda(x, c, level, in.index) < 0)
                unread = 1;
            break;
        default:
            break;
        }
        pc += in.len;
    }
    if (unread)
        note_unread(x, i, c);
}

/* plan_extend holds the plan's lock except while the hierarchy reads class
 * bytes (which may load classes, so run the ClassFileLoadHook, hence
 * plan_new_class, on this thread). */
static void unlock(struct ctx *x)
{
    if (x->extend)
        pthread_mutex_unlock(&x->p->lock);
}

static void relock(struct ctx *x)
{
    if (x->extend)
        pthread_mutex_lock(&x->p->lock);
}

void pl_load_classes(struct ctx *x, const struct vec *todo)
{
    size_t k;

    /* A class file read may take a while (JVMTI, Java code): the bounds are
     * looked at before each. */
    for (k = 0; k < todo->n && !pl_stop(x, 1); k++) {
        size_t i = pl_vec_index(todo, k);
        struct cls *c = x->nodes[i].c;
        const uint8_t *data;
        size_t len;
        mct_err perr;
        int rc;

        if (c->cf != NULL || c->cf_failed)
            continue;
        unlock(x);
        rc = x->ops->bytes(x->hc, c->h, &data, &len, x->extend ? &perr : x->err);
        relock(x);
        if (rc < 0 && x->extend) {
            c->cf_failed = 2;
            continue;
        }
        if (rc < 0) {
            x->failed = 1;
            mct_err_wrap(x->err, "while reading the class file of %s", c->name);
            break;
        }
        if ((c->cf = cf_parse(data, len, &perr)) == NULL) {
            if ((!x->extend && pl_pm_at(x->p, i)->root) || perr.code == MCT_E_NOMEM) {
                *x->err = perr;
                x->failed = 1;
                mct_err_wrap(x->err, "while parsing the class file of %s", c->name);
                break;
            }
            c->cf_failed = 1;
        }
    }
    for (k = 0; k < todo->n; k++) {
        size_t i = pl_vec_index(todo, k);
        plan_method *pm = pl_pm_at(x->p, i);
        int f = x->nodes[i].c->cf_failed;

        if (f && i >= x->base && pm->status == PLAN_INSTRUMENT) {
            pm->status = PLAN_EXCLUDED;
            pm->reason = f == 2 ? R_NOBYTES : R_BADCLASS;
        }
    }
}

/* --- the entry methods -------------------------------------------------------------- */

/* A message under construction, cut at MCT_ERR_MSG. */
struct msg {
    char s[MCT_ERR_MSG];
    size_t n;
};

__attribute__((format(printf, 2, 3))) static void msg_add(struct msg *m, const char *fmt, ...)
{
    va_list ap;
    int k;

    if (m->n >= sizeof m->s - 1)
        return;
    va_start(ap, fmt);
    k = vsnprintf(m->s + m->n, sizeof m->s - m->n, fmt, ap);
    va_end(ap);
    if (k > 0)
        m->n = m->n + (size_t)k < sizeof m->s ? m->n + (size_t)k : sizeof m->s - 1;
}

/* Adds the binary name (dots) of an internal name. */
static void msg_class(struct msg *m, const char *iname)
{
    for (; *iname != '\0' && m->n < sizeof m->s - 1; iname++)
        m->s[m->n++] = *iname == '/' ? '.' : *iname;
    m->s[m->n] = '\0';
}

/* The classes in which the entry method is looked for, in order: the class,
 * its superclasses, then their superinterfaces (breadth first). */
static void entry_search_order(struct ctx *x, struct cls *c, struct vec *out)
{
    struct cls *y;
    size_t i;

    for (y = c; y != NULL; y = pl_cls_super(x, y))
        if (pl_vec_push(out, y) < 0)
            pl_oom(x);
    pl_collect_ifaces(x, c);
    for (i = 0; i < x->ifs.n; i++)
        if (pl_vec_push(out, x->ifs.v[i]) < 0)
            pl_oom(x);
}

/* Whether m, declared in y, is a member of the requested class c. */
static int inherited(struct cls *c, struct cls *y, const hier_method *m)
{
    if (y == c)
        return 1;
    if (m->access & CF_ACC_PRIVATE)
        return 0;
    if ((y->flags & HIER_INTERFACE) && (m->access & CF_ACC_STATIC))
        return 0;
    return m->name[0] != '<';
}

/* Case-insensitive edit distance of two short strings (capped). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), i, j, row[65];

    if (la > 64 || lb > 64)
        return 99;
    for (j = 0; j <= lb; j++)
        row[j] = j;
    for (i = 1; i <= la; i++) {
        size_t diag = row[0];

        row[0] = i;
        for (j = 1; j <= lb; j++) {
            size_t up = row[j];
            int same = (a[i - 1] | 0x20) == (b[j - 1] | 0x20);
            size_t best = diag + (same ? 0 : 1);

            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static int near_name(const char *want, const char *have)
{
    size_t lw = strlen(want), d = edit_distance(want, have);

    if (d <= (lw <= 4 ? 1u : lw <= 8 ? 2u : 3u))
        return 1;
    return lw >= 3 && (strcasestr(have, want) != NULL || (strlen(have) >= 3 && strcasestr(want, have) != NULL));
}

/* Fills err with MCT_E_NO_METHOD: what was looked for, near names, the
 * class's own methods or the overloads of the name. */
static void no_method(struct ctx *x, struct cls *c, const struct vec *order, const char *name,
                      const char *desc)
{
    struct msg m = {.n = 0};
    size_t i, k, shown = 0, more = 0, near = 0;

    m.s[0] = '\0';
    msg_class(&m, c->name);
    msg_add(&m, " has no method %s%s (its superclasses and interfaces were searched too).", name,
            desc ? desc : "");
    /* The overloads of the name, when a descriptor was given. */
    for (i = 0; i < order->n; i++) {
        struct cls *y = order->v[i];

        pl_cls_methods(x, y);
        for (k = 0; k < y->nm; k++)
            if (strcmp(y->m[k].name, name) == 0 && inherited(c, y, &y->m[k])) {
                if (shown++ == 0)
                    msg_add(&m, " %s has these descriptors: %s", name, y->m[k].desc);
                else
                    msg_add(&m, ", %s", y->m[k].desc);
                if (shown == MSG_NAMES)
                    goto overloads_done;
            }
    }
overloads_done:
    if (shown != 0) {
        mct_err_set(x->err, MCT_E_NO_METHOD, "%s; give one of them, or none for every overload", m.s);
        return;
    }
    for (i = 0; i < order->n && near < MSG_NEAR; i++) {
        struct cls *y = order->v[i];

        for (k = 0; k < y->nm && near < MSG_NEAR; k++) {
            void **v;

            if (!inherited(c, y, &y->m[k]) || !near_name(name, y->m[k].name))
                continue;
            pl_key_begin(&x->key, K_NAME);
            pl_key_str(&x->key, y->m[k].name);
            if ((v = pl_map_slot(x, 1)) == NULL || *v != NULL)
                continue;
            *v = &pl_none_marker;
            msg_add(&m, "%s%s", near++ ? ", " : " Did you mean ", y->m[k].name);
        }
    }
    if (near != 0)
        msg_add(&m, "?");
    /* The class's own method names, each once. */
    for (k = 0; k < c->nm; k++) {
        void **v;

        if (strcmp(c->m[k].name, "<clinit>") == 0)
            continue;
        pl_key_begin(&x->key, K_NAME);
        buf_u1(&x->key, 1);
        pl_key_str(&x->key, c->m[k].name);
        if ((v = pl_map_slot(x, 1)) == NULL || *v != NULL)
            continue;
        *v = &pl_none_marker;
        if (shown == MSG_NAMES) {
            more++;
            continue;
        }
        msg_add(&m, "%s%s", shown++ ? ", " : " Its methods: ", c->m[k].name);
    }
    if (more != 0)
        msg_add(&m, " and %zu more", more);
    mct_err_set(x->err, MCT_E_NO_METHOD, "%s", m.s);
}

/* Adds "; did you mean A, B or C?" naming up to MSG_NEAR loaded classes
 * whose simple name (after the package) is simple. */
static void suggest_same_simple(struct ctx *x, struct msg *m, const char *simple)
{
    const char *near[MSG_NEAR];
    size_t n = 0, i, k, more = 0;
    hier_class *h;

    for (i = 0; (h = x->ops->nth(x->hc, i)) != NULL; i++) {
        const char *name = x->ops->name(x->hc, h), *slash = strrchr(name, '/');
        int seen = 0;

        if (slash == NULL || strcmp(slash + 1, simple) != 0)
            continue;
        for (k = 0; k < n && !seen; k++)
            seen = strcmp(near[k], name) == 0;
        if (seen)
            continue;
        if (n == MSG_NEAR)
            more++;
        else
            near[n++] = name;
    }
    for (k = 0; k < n; k++) {
        msg_add(m, "%s", k == 0 ? "; did you mean " : k + 1 < n || more != 0 ? ", " : " or ");
        msg_class(m, near[k]);
    }
    if (more != 0)
        msg_add(m, " or one of %zu more", more);
    if (n != 0)
        msg_add(m, "?");
}

/* Fills err with MCT_E_NO_CLASS, suggesting Outer$Inner for Outer.Inner,
 * else loaded classes of the same simple name in other packages. */
static void no_class(struct ctx *x, char *iname, int unlinked)
{
    struct msg m = {.n = 0};
    const char *slash = strrchr(iname, '/');
    const char *simple = slash != NULL ? slash + 1 : iname;
    size_t i;

    m.s[0] = '\0';
    msg_add(&m, "class ");
    msg_class(&m, iname);
    if (unlinked) {
        msg_add(&m, " is loaded but not linked yet in the target JVM (classes link on first use): run code "
                    "that uses it first");
        mct_err_set(x->err, MCT_E_NO_CLASS, "%s", m.s);
        return;
    }
    msg_add(&m, " is not loaded in the target JVM: classes load on first use, so run code that uses "
                "it first (or check the name: nested classes are written Outer$Inner)");
    for (i = strlen(iname); i-- > 0;) {
        if (iname[i] != '/')
            continue;
        iname[i] = '$';
        if (x->ops->find(x->hc, iname, NULL) != NULL) {
            msg_add(&m, "; did you mean ");
            msg_class(&m, iname);
            msg_add(&m, "?");
            mct_err_set(x->err, MCT_E_NO_CLASS, "%s", m.s);
            return;
        }
    }
    /* iname's slashes are dollars now; simple, after the last, is as it was. */
    suggest_same_simple(x, &m, simple);
    mct_err_set(x->err, MCT_E_NO_CLASS, "%s", m.s);
}

/* Adds the implementations of the abstract or interface entry method e
 * (found for the requested class c) as entry methods; counts those left
 * out. The site is watched for implementations that load later. */
static void add_implementations(struct ctx *x, struct cls *c, struct sel e, size_t *jdk, size_t *unmod)
{
    size_t i;
    struct vec list = {0};
    struct owner *o = pl_watch(x, c->name, c, e.m->name, e.m->desc, 1, 1);

    if (o == NULL)
        return;
    pl_concrete_subtypes(x, c, 0, pl_walk_all(x, o));
    pl_record_subtypes(x, o);
    for (i = 0; i < x->walk.n; i++)
        if (pl_vec_push(&list, x->walk.v[i]) < 0)
            pl_oom(x);
    for (i = 0; i < list.n && !x->failed && !x->p->capped; i++) {
        struct sel s = pl_select_for(x, list.v[i], e.m->name, e.m->desc);

        if (s.m == NULL || (s.m->access & CF_ACC_ABSTRACT))
            continue;
        if (pl_never_why(s.c->name, s.c->flags) != NULL) {
            ++*unmod;
            continue;
        }
        if ((s.c->flags & HIER_JDK) && !x->include_jdk) {
            ++*jdk;
            continue;
        }
        pl_add_method(x, s, 1, 1, pl_N_IMPL);
    }
    free(list.v);
}

/* Finds the entry class cname (binary name, modified UTF-8) and its methods
 * and adds the roots; -1 with err set. */
static int add_roots(struct ctx *x, const char *cname, const char *method, const char *desc)
{
    size_t len = strlen(cname), i, k, jdk = 0, unmod = 0;
    char *iname = kit_arena_alloc(&x->arena, len + 1);
    struct cls *c;
    struct vec order = {0}, found = {0};
    int ok = 0;

    if (iname == NULL) {
        pl_oom(x);
        return -1;
    }
    for (i = 0; i <= len; i++)
        iname[i] = cname[i] == '.' ? '/' : cname[i];
    /* An entry class not linked yet is waited for like one not loaded
     * (--wait): its methods are not known before. */
    if ((c = pl_find_class(x, iname, NULL)) == NULL || (c->flags & HIER_UNLINKED)) {
        if (!x->failed)
            no_class(x, iname, c != NULL);
        x->failed = 1;
        return -1;
    }
    entry_search_order(x, c, &order);
    /* Every overload (or the one descriptor), the first declaration of each
     * descriptor in search order. */
    for (i = 0; i < order.n && !x->failed; i++) {
        struct cls *y = order.v[i];

        pl_cls_methods(x, y);
        for (k = 0; k < y->nm; k++) {
            const hier_method *m = &y->m[k];
            size_t j;
            int seen = 0;

            if (strcmp(m->name, method) != 0 || (desc && strcmp(m->desc, desc) != 0) || !inherited(c, y, m))
                continue;
            for (j = 0; j < found.n && !seen; j += 2)
                seen = strcmp(((const hier_method *)found.v[j + 1])->desc, m->desc) == 0;
            if (!seen && (pl_vec_push(&found, y) < 0 || pl_vec_push(&found, (void *)m) < 0))
                pl_oom(x);
        }
    }
    if (found.n == 0 && !x->failed) {
        no_method(x, c, &order, method, desc);
        x->failed = 1;
    }
    for (i = 0; i < found.n && !x->failed && !x->p->capped; i += 2) {
        struct sel e = {found.v[i], found.v[i + 1]};
        int iface = (e.c->flags & HIER_INTERFACE) != 0, root = PLAN_ROOT;
        const char *note = NULL;

        /* A method the named class inherits runs for instances of other
         * classes too: only calls on an instance of the named class are
         * its calls (a static one cannot tell). */
        if (e.c != c && (e.m->access & CF_ACC_STATIC)) {
            note = N_INHERITED_STATIC;
        } else if (e.c != c) {
            note = iface ? N_DEFAULT_RECV : N_INHERITED_RECV;
            root = PLAN_ROOT_RECEIVER;
            x->p->receiver = c->h;
        }
        pl_add_method(x, e, 1, root, note);
        if (((e.m->access & CF_ACC_ABSTRACT) ||
             ((e.c->flags & HIER_INTERFACE) && !(e.m->access & (CF_ACC_STATIC | CF_ACC_PRIVATE)))) &&
            pl_never_why(e.c->name, e.c->flags) == NULL)
            add_implementations(x, c, e, &jdk, &unmod);
    }
    for (i = 0; i < x->p->n; i++)
        ok |= pl_pm_at(x->p, i)->status == PLAN_INSTRUMENT;
    if (!ok && !x->failed && x->p->capped) {
        mct_err_set(x->err, MCT_E_NOTHING, "nothing to instrument: the plan's cap of %zu methods was "
                    "reached before an entry method could be added", x->max);
        x->failed = 1;
    }
    if (!ok && !x->failed) {
        struct msg m = {.n = 0};

        m.s[0] = '\0';
        msg_add(&m, "nothing to instrument: ");
        for (i = 0; i < x->p->n && i < 4; i++) {
            const plan_method *pm = pl_pm_at(x->p, i);

            if (i)
                msg_add(&m, "; ");
            msg_class(&m, pm->class_name);
            msg_add(&m, ".%s%s is %s", pm->name, pm->desc,
                    pm->reason == R_NATIVE ? "native (it has no bytecode)" : pm->reason);
            if (pm->reason == R_ABSTRACT) {
                if (jdk + unmod == 0)
                    msg_add(&m, ", but no loaded class implements it (classes load on first use)");
                else
                    msg_add(&m, ", but none of its loaded implementations can be traced "
                                "(%zu in JDK classes: add --include-jdk; %zu in classes that "
                                "cannot be retransformed, such as lambdas)", jdk, unmod);
            }
        }
        if (x->p->n > 4)
            msg_add(&m, "; and %zu more", x->p->n - 4);
        mct_err_set(x->err, MCT_E_NOTHING, "%s", m.s);
        x->failed = 1;
    }
    free(order.v);
    free(found.v);
    return x->failed ? -1 : 0;
}

/* --- the public functions ---------------------------------------------------------- */

/* A malloc'd modified UTF-8 copy of the first n bytes of the UTF-8 s. */
static char *to_mutf8(const char *s, size_t n)
{
    char *in = strndup(s, n), *out = in ? malloc(MUTF8_FROM_ROOM(n)) : NULL;

    if (out != NULL)
        mutf8_from_utf8(in, out);
    free(in);
    return out;
}

/* A regex written as a plain name ("com.shop", "com\\.shop", "Cart": name
 * characters, '$' and dots, a dot escaped or not) matches only the class of that
 * very name, which is rarely what was meant. Compiles into hint_re the
 * regexes plan_regex may suggest instead: the package of that name
 * ("com\\.shop\\..*") and, for a name without a dot, the class of that
 * simple name in any package (".*\\.Cart"). Nothing for any other regex, or
 * when out of memory (a suggestion is a nicety). */
static void suggest_compile(struct ctx *x, const char *re)
{
    size_t n = strlen(re), k = 0, i;
    char *esc = malloc(2 * n + 1), *cand;
    int dots = 0;
    mct_err ignored;

    if (esc == NULL)
        return;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)re[i];

        if (c == '.' || (c == '\\' && re[i + 1] == '.')) {
            i += c == '\\';
            esc[k++] = '\\';
            esc[k++] = '.';
            dots = 1;
        } else if (c == '$') {
            /* A nested class's separator; an anchor in a regex. */
            esc[k++] = '\\';
            esc[k++] = '$';
        } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                   c >= 0x80) {
            esc[k++] = (char)c;
        } else {
            free(esc);
            return;
        }
    }
    while (k >= 2 && esc[k - 2] == '\\' && esc[k - 1] == '.')
        k -= 2;
    esc[k] = '\0';
    if (k > 0 && (cand = malloc(k + 8)) != NULL) {
        snprintf(cand, k + 8, "%s\\..*", esc);
        x->hint_re[0] = match_compile(cand, &ignored);
        if (!dots) {
            snprintf(cand, k + 8, ".*\\.%s", esc);
            x->hint_re[1] = match_compile(cand, &ignored);
        }
        free(cand);
    }
    free(esc);
}

/* After plan_build's walk: the suggestion, when the regex matched none of
 * the callee classes and a hint matched some. */
static void suggest_pick(struct ctx *x)
{
    int k;

    for (k = 0; k < 2; k++) {
        if (x->hint_re[k] != NULL && x->p->seen.matched_classes == 0 && x->hint_n[k] > 0 &&
            x->p->seen.suggestion == NULL) {
            x->p->seen.suggestion = kit_arena_strdup(&x->p->arena, match_pattern(x->hint_re[k]));
            x->p->seen.suggestion_matches = x->hint_n[k];
        }
        match_free(x->hint_re[k]);
        x->hint_re[k] = NULL;
    }
}

plan *plan_build(const plan_request *req, const hier_ops *ops, void *hc, mct_err *err)
{
    struct ctx x;
    char *cname = NULL, *method = NULL, *desc = NULL;
    const char *paren;
    size_t from = 0, i, k;
    int level;
    plan *p;

    if (req == NULL || ops == NULL || req->class_name == NULL || req->method == NULL ||
        req->class_name[0] == '\0' || req->method[0] == '\0') {
        mct_err_set(err, MCT_E_ARG, "a plan needs a class and a method name");
        return NULL;
    }
    if (req->depth < 1 || req->depth > PLAN_MAX_DEPTH) {
        mct_err_set(err, MCT_E_ARG, "depth %d is outside 1..%d (1 = the entry method only)", req->depth,
                    PLAN_MAX_DEPTH);
        return NULL;
    }
    /* "get(I)Ljava/lang/Object;" in one string, or name and descriptor;
     * in modified UTF-8, as the hierarchy's names are. */
    paren = req->desc == NULL ? strchr(req->method, '(') : NULL;
    cname = to_mutf8(req->class_name, strlen(req->class_name));
    method = to_mutf8(req->method, paren ? (size_t)(paren - req->method) : strlen(req->method));
    if (paren != NULL || req->desc != NULL)
        desc = to_mutf8(paren ? paren : req->desc, strlen(paren ? paren : req->desc));
    if (cname == NULL || method == NULL || ((paren != NULL || req->desc != NULL) && desc == NULL)) {
        mct_err_set(err, MCT_E_NOMEM, "out of memory while planning");
        goto fail;
    }
    if (desc != NULL && cf_desc_check(desc) != 0) {
        mct_err_set(err, MCT_E_ARG, "'%s' is not a method descriptor (such as (ILjava/lang/String;)V)",
                    paren ? paren : req->desc);
        goto fail;
    }
    memset(&x, 0, sizeof x);
    x.req = req;
    x.ops = ops;
    x.hc = hc;
    x.err = err;
    x.include_jdk = req->include_jdk;
    x.max = req->max_methods && req->max_methods < PLAN_MAX_METHODS ? req->max_methods : PLAN_MAX_METHODS;
    x.regex_left = req->regex_work ? req->regex_work : PLAN_REGEX_WORK;
    x.deadline = mct_now_ms() + (long long)(req->time_ms ? req->time_ms : PLAN_TIME_MS);
    x.level = 1;
    buf_init(&x.key);
    if (req->regex != NULL && (x.re = match_compile(req->regex, err)) == NULL)
        goto fail;
    if ((p = calloc(1, sizeof *p)) == NULL || pthread_mutex_init(&p->lock, NULL) != 0) {
        free(p);
        match_free(x.re);
        mct_err_set(err, MCT_E_NOMEM, "out of memory while planning");
        goto fail;
    }
    p->re = x.re;
    p->max = x.max;
    p->depth = req->depth;
    p->include_jdk = req->include_jdk;
    x.p = p;
    if (req->regex != NULL)
        suggest_compile(&x, req->regex);
    x.object = pl_find_class(&x, pl_OBJECT, NULL);
    if (add_roots(&x, cname, method, desc) == 0) {
        struct vec todo = {0};

        for (level = 1; level < req->depth && !pl_stop(&x, 1) && !p->capped; level++) {
            size_t to = p->n;

            x.level = level;
            todo.n = 0;
            for (i = from; i < to; i++)
                if (pl_pm_at(p, i)->status == PLAN_INSTRUMENT)
                    pl_vec_push_index(&x, &todo, i);
            pl_load_classes(&x, &todo);
            for (k = 0; k < todo.n && !x.failed && !p->capped; k++) {
                i = pl_vec_index(&todo, k);
                if (pl_pm_at(p, i)->status != PLAN_INSTRUMENT)
                    continue;
                pl_entry(p, i)->scanned = 1;
                pl_scan(&x, i);
            }
            from = to;
        }
        free(todo.v);
    }
    suggest_pick(&x);
    pl_ctx_free(&x);
    free(cname);
    free(method);
    free(desc);
    if (x.failed) {
        plan_free(p);
        pl_utf8_message(err);
        return NULL;
    }
    return p;
fail:
    free(cname);
    free(method);
    free(desc);
    return NULL;
}

size_t plan_count(const plan *p)
{
    return __atomic_load_n(&p->n, __ATOMIC_ACQUIRE);
}

const plan_method *plan_at(const plan *p, size_t i)
{
    return i < plan_count(p) ? pl_pm_at(p, i) : NULL;
}

hier_class *plan_receiver(const plan *p)
{
    return p->receiver;
}

plan_regex_seen plan_regex(const plan *p)
{
    return p->seen;
}

int plan_capped(const plan *p)
{
    return __atomic_load_n(&p->capped, __ATOMIC_RELAXED);
}

void plan_free(plan *p)
{
    size_t i;

    if (p == NULL)
        return;
    for (i = 0; i < NBLOCKS; i++)
        free(p->blocks[i]);
    for (i = 0; i < p->ndeferred; i++)
        pl_deferred_free(&p->deferred[i]);
    free(p->deferred);
    kit_table_free(&p->names);
    kit_table_free(&p->index);
    kit_table_free(&p->known);
    match_free(p->re);
    kit_arena_free(&p->arena);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
