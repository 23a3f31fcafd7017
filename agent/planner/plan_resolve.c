/* plan_resolve.c — the planner's class records (one per loaded class, the
 * hierarchy's answers asked once), whether a class is kept, and method
 * resolution and selection as the JVM does them: JVMS 5.4.3.3 (method
 * resolution), 5.4.3.4 (interface method resolution) and 5.4.6 (method
 * selection, with the maximally-specific default methods of 5.4.3.3), plus
 * the implementations a virtual call may run.
 *
 * Whether a callee is kept is decided per class, in this order (the first
 * reason that applies is the one listed):
 *   "does not match the regex"
 *   "tracer's own class"              mcalltree/...
 *   "class cannot be retransformed"   HIER_UNMODIFIABLE (hidden, arrays, ...)
 *   "JVM internals ..."               see internal_prefixes below
 *   "JDK class (add --include-jdk)"   HIER_JDK (by name when not loaded)
 * and then per method: abstract ones are listed (their implementations come
 * from the call sites), native ones are listed. Entry methods skip the regex
 * and JDK rules, not the others. A callee whose class is not loaded is
 * PLAN_PENDING when its class name passes the class rules.
 *
 * Speed: every hierarchy answer is cached in a per-class record reached
 * through one hash table; resolutions, selections and the implementation
 * sets of virtual call sites are cached per (class, name, descriptor). The
 * implementations of a virtual call are searched only among the concrete
 * subtypes that have a kept class among their supertypes (computed once per
 * named class), so a call on java/lang/Object walks the loaded classes once
 * per plan and asks methods() only of classes near the kept ones. */
#include "plan_resolve.h"

#include <stdlib.h>
#include <string.h>

static struct sel no_sel;

/* --- class records ---------------------------------------------------------------- */

/* The record of h, created on first sight; NULL for NULL (or OOM). */
static struct cls *getcls(struct ctx *x, hier_class *h)
{
    void **v;
    struct cls *c;

    if (h == NULL || pl_stop(x, 0))
        return NULL;
    pl_key_begin(&x->key, K_CLASS);
    pl_key_ptr(&x->key, h);
    if ((v = pl_map_slot(x, 1)) == NULL)
        return NULL;
    if (*v != NULL)
        return *v;
    if ((c = kit_arena_alloc(&x->arena, sizeof *c)) == NULL) {
        pl_oom(x);
        return NULL;
    }
    memset(c, 0, sizeof *c);
    c->h = h;
    c->name = x->ops->name(x->hc, h);
    c->flags = x->ops->flags(x->hc, h);
    c->regex_ok = c->keep = c->above = -1;
    *v = c;
    return c;
}

struct cls *pl_cls_super(struct ctx *x, struct cls *c)
{
    if (!c->have_super) {
        c->super = getcls(x, x->ops->super(x->hc, c->h));
        c->have_super = 1;
    }
    return c->super;
}

static struct cls **cls_ifaces(struct ctx *x, struct cls *c, size_t *n)
{
    if (!c->have_ifaces) {
        hier_class *const *hs;
        size_t k = x->ops->interfaces(x->hc, c->h, &hs), i;

        if (k != 0 && (c->ifaces = kit_arena_alloc(&x->arena, k * sizeof *c->ifaces)) == NULL) {
            pl_oom(x);
            k = 0;
        }
        for (i = 0; i < k; i++)
            if ((c->ifaces[i] = getcls(x, hs[i])) == NULL)
                break;
        c->nifaces = i;
        c->have_ifaces = 1;
    }
    *n = c->nifaces;
    return c->ifaces;
}

const hier_method *pl_cls_methods(struct ctx *x, struct cls *c)
{
    if (!c->have_m) {
        c->nm = x->ops->methods(x->hc, c->h, &c->m);
        c->have_m = 1;
    }
    return c->m;
}

/* The method c declares with this name and descriptor, or NULL. */
static const hier_method *find_decl(struct ctx *x, struct cls *c, const char *name, const char *desc)
{
    size_t i;

    pl_cls_methods(x, c);
    for (i = 0; i < c->nm; i++)
        if (strcmp(c->m[i].name, name) == 0 && strcmp(c->m[i].desc, desc) == 0)
            return &c->m[i];
    return NULL;
}

struct cls *pl_find_class(struct ctx *x, const char *name, struct cls *from)
{
    void **v;
    hier_class *h;
    struct cls *c;

    pl_key_begin(&x->key, K_FIND);
    pl_key_ptr(&x->key, from);
    pl_key_str(&x->key, name);
    if ((v = pl_map_slot(x, 1)) == NULL)
        return NULL;
    if (*v != NULL)
        return *v == &pl_none_marker ? NULL : *v;
    h = x->ops->find(x->hc, name, from ? from->h : NULL);
    c = getcls(x, h);
    *v = c ? (void *)c : (void *)&pl_none_marker;
    return c;
}

int pl_regex_ok(struct ctx *x, struct cls *c)
{
    int gave_up;

    if (c->regex_ok < 0) {
        c->regex_ok = (signed char)pl_regex_match(x, c->name, &gave_up);
        if (gave_up)
            c->regex_ok = 2;
    }
    return c->regex_ok == 1;
}

int pl_cls_kept(struct ctx *x, struct cls *c)
{
    if (c->keep < 0)
        c->keep = pl_never_why(c->name, c->flags) == NULL &&
                  (x->include_jdk || !(c->flags & HIER_JDK)) && pl_regex_ok(x, c);
    return c->keep;
}

const char *pl_cls_why(struct ctx *x, struct cls *c)
{
    const char *why;

    if (pl_cls_kept(x, c))
        return NULL;
    if (!pl_regex_ok(x, c))
        return c->regex_ok == 2 ? pl_R_REGEX_LIMIT : pl_R_REGEX;
    if ((why = pl_never_why(c->name, c->flags)) != NULL)
        return why;
    return pl_R_JDK;
}

/* Whether c or one of its supertypes is kept: only then can JVM selection
 * on c pick a method that is kept. */
static int kept_above(struct ctx *x, struct cls *c)
{
    struct cls *s, **is;
    size_t n, i;
    int r;

    if (c->above == 2)
        return 0;
    if (c->above >= 0)
        return c->above;
    c->above = 2;
    r = pl_cls_kept(x, c);
    if (!r && (s = pl_cls_super(x, c)) != NULL)
        r = kept_above(x, s);
    if (!r) {
        is = cls_ifaces(x, c, &n);
        for (i = 0; i < n && !r; i++)
            r = kept_above(x, is[i]);
    }
    c->above = (signed char)r;
    return r;
}

/* --- resolution and selection (JVMS 5.4.3.3, 5.4.3.4, 5.4.6) ------------------------- */

static struct sel *new_sel(struct ctx *x, struct cls *c, const hier_method *m)
{
    struct sel *s;

    if (m == NULL)
        return &no_sel;
    if ((s = kit_arena_alloc(&x->arena, sizeof *s)) == NULL) {
        pl_oom(x);
        return &no_sel;
    }
    s->c = c;
    s->m = m;
    return s;
}

void pl_collect_ifaces(struct ctx *x, struct cls *c)
{
    unsigned stamp = ++x->stamp;
    size_t i, n, k;
    struct cls **is;

    x->ifs.n = 0;
    for (; c != NULL; c = pl_cls_super(x, c)) {
        is = cls_ifaces(x, c, &n);
        for (k = 0; k < n; k++)
            if (is[k]->imark != stamp) {
                is[k]->imark = stamp;
                if (pl_vec_push(&x->ifs, is[k]) < 0)
                    pl_oom(x);
            }
    }
    /* x->ifs grows while it is walked: breadth first over superinterfaces. */
    for (i = 0; i < x->ifs.n && !x->failed; i++) {
        is = cls_ifaces(x, x->ifs.v[i], &n);
        for (k = 0; k < n; k++)
            if (is[k]->imark != stamp) {
                is[k]->imark = stamp;
                if (pl_vec_push(&x->ifs, is[k]) < 0)
                    pl_oom(x);
            }
    }
}

/* Whether sup is a proper superinterface of c. */
static int extends_iface(struct ctx *x, struct cls *c, struct cls *sup, unsigned stamp)
{
    struct cls **is;
    size_t n, i;

    is = cls_ifaces(x, c, &n);
    for (i = 0; i < n; i++) {
        if (is[i] == sup)
            return 1;
        if (is[i]->smark != stamp) {
            is[i]->smark = stamp;
            if (extends_iface(x, is[i], sup, stamp))
                return 1;
        }
    }
    return 0;
}

/* The maximally-specific superinterface method of c for name/desc that is
 * not abstract, when there is exactly one; else, if any_ok, any of them
 * (resolution may pick an abstract one); else none. */
static struct sel default_select(struct ctx *x, struct cls *c, const char *name, const char *desc,
                                 int any_ok)
{
    struct sel found = {0}, first = {0};
    size_t i, j, ncand = 0, nconcrete = 0;

    pl_collect_ifaces(x, c);
    x->tmp.n = 0;
    for (i = 0; i < x->ifs.n; i++) {
        struct cls *ic = x->ifs.v[i];
        const hier_method *m = find_decl(x, ic, name, desc);

        if (m != NULL && !(m->access & (CF_ACC_STATIC | CF_ACC_PRIVATE)) && pl_vec_push(&x->tmp, ic) < 0)
            pl_oom(x);
    }
    ncand = x->tmp.n;
    for (i = 0; i < ncand; i++) {
        struct cls *ic = x->tmp.v[i];
        int maximal = 1;

        for (j = 0; j < ncand && maximal; j++)
            if (j != i && extends_iface(x, x->tmp.v[j], ic, ++x->stamp))
                maximal = 0;
        if (!maximal)
            continue;
        if (first.m == NULL) {
            first.c = ic;
            first.m = find_decl(x, ic, name, desc);
        }
        if (!(find_decl(x, ic, name, desc)->access & CF_ACC_ABSTRACT)) {
            found.c = ic;
            found.m = find_decl(x, ic, name, desc);
            nconcrete++;
        }
    }
    if (nconcrete == 1)
        return found;
    if (any_ok)
        return first;
    return (struct sel){0};
}

/* The method selection finds up the superclass chain of c (an instance
 * method, declared in c or its nearest superclass), or none; cached for
 * every class of the chain. */
static struct sel chain_select(struct ctx *x, struct cls *c, const char *name, const char *desc)
{
    struct sel *res = NULL;
    struct cls *y;
    size_t i;

    x->path.n = 0;
    for (y = c; y != NULL && res == NULL; y = pl_cls_super(x, y)) {
        void **v;
        const hier_method *m;

        pl_key_begin(&x->key, K_CHAIN);
        pl_key_ptr(&x->key, y);
        pl_key_str(&x->key, name);
        pl_key_str(&x->key, desc);
        if ((v = pl_map_slot(x, 0)) != NULL) {
            res = *v;
            break;
        }
        if (pl_vec_push(&x->path, y) < 0) {
            pl_oom(x);
            return no_sel;
        }
        m = find_decl(x, y, name, desc);
        if (m != NULL && !(m->access & (CF_ACC_STATIC | CF_ACC_PRIVATE)))
            res = new_sel(x, y, m);
    }
    if (res == NULL)
        res = &no_sel;
    for (i = 0; i < x->path.n && !x->failed; i++) {
        void **v;

        pl_key_begin(&x->key, K_CHAIN);
        pl_key_ptr(&x->key, x->path.v[i]);
        pl_key_str(&x->key, name);
        pl_key_str(&x->key, desc);
        if ((v = pl_map_slot(x, 1)) != NULL)
            *v = res;
    }
    return *res;
}

struct sel pl_select_for(struct ctx *x, struct cls *c, const char *name, const char *desc)
{
    struct sel s = chain_select(x, c, name, desc);

    if (s.m == NULL)
        s = default_select(x, c, name, desc, 0);
    return s;
}

/* Puts the key of a resolution's cache entry in x->key (built again after
 * the search, which uses x->key too). */
static void resolve_key(struct ctx *x, struct cls *owner, const char *name, const char *desc, int iface)
{
    pl_key_begin(&x->key, K_RESOLVE);
    pl_key_ptr(&x->key, owner);
    buf_u1(&x->key, (uint8_t)iface);
    pl_key_str(&x->key, name);
    pl_key_str(&x->key, desc);
}

struct sel pl_resolve(struct ctx *x, struct cls *owner, const char *name, const char *desc, int iface)
{
    void **v;
    struct cls *y;
    const hier_method *m = NULL;
    struct sel s = {0};

    resolve_key(x, owner, name, desc, iface);
    if ((v = pl_map_slot(x, 0)) != NULL)
        return *(struct sel *)*v;
    if (iface) {
        if ((m = find_decl(x, owner, name, desc)) != NULL) {
            s.c = owner;
            s.m = m;
        } else if (x->object != NULL && (m = find_decl(x, x->object, name, desc)) != NULL &&
                   (m->access & CF_ACC_PUBLIC) && !(m->access & CF_ACC_STATIC)) {
            s.c = x->object;
            s.m = m;
        }
    } else {
        for (y = owner; y != NULL; y = pl_cls_super(x, y))
            if ((m = find_decl(x, y, name, desc)) != NULL) {
                s.c = y;
                s.m = m;
                break;
            }
    }
    if (s.m == NULL)
        s = default_select(x, owner, name, desc, 1);
    resolve_key(x, owner, name, desc, iface);
    if ((v = pl_map_slot(x, 1)) != NULL)
        *v = new_sel(x, s.c, s.m);
    return s;
}

void pl_concrete_subtypes(struct ctx *x, struct cls *owner, int only_kept, struct vec *all)
{
    unsigned stamp = ++x->stamp;
    struct vec stack = {0};

    x->walk.n = 0;
    if (all != NULL)
        all->n = 0;
    if (pl_vec_push(&stack, owner) < 0)
        pl_oom(x);
    while (stack.n > 0 && !pl_stop(x, 0)) {
        struct cls *c = stack.v[--stack.n];
        hier_class *const *subs;
        size_t n, i;

        if (c->walk == stamp)
            continue;
        c->walk = stamp;
        if (!(c->flags & (HIER_INTERFACE | HIER_ABSTRACT)) && (!only_kept || kept_above(x, c)) &&
            pl_vec_push(&x->walk, c) < 0)
            pl_oom(x);
        if (all != NULL && pl_vec_push(all, c) < 0)
            pl_oom(x);
        n = x->ops->subtypes(x->hc, c->h, &subs);
        for (i = n; i-- > 0;) {
            struct cls *s = getcls(x, subs[i]);

            if (s != NULL && s->walk != stamp && pl_vec_push(&stack, s) < 0)
                pl_oom(x);
        }
    }
    free(stack.v);
}

struct vres *pl_overriders(struct ctx *x, struct cls *owner, struct sel r, const char *name,
                           const char *desc, int level)
{
    static struct vres empty;
    struct vres *vr;
    struct owner *o;
    void **v;
    size_t i;

    if ((r.m->access & (CF_ACC_FINAL | CF_ACC_PRIVATE | CF_ACC_STATIC)) || strcmp(name, "<init>") == 0)
        return &empty;
    pl_key_begin(&x->key, K_VIRTUAL);
    pl_key_ptr(&x->key, owner);
    pl_key_str(&x->key, name);
    pl_key_str(&x->key, desc);
    if ((v = pl_map_slot(x, 0)) != NULL)
        return *v;
    if ((o = pl_watch(x, owner->name, owner, name, desc, level, 0)) == NULL)
        return &empty;
    if (!owner->have_rel) {
        pl_concrete_subtypes(x, owner, 1, pl_walk_all(x, o));
        pl_record_subtypes(x, o);
        if (x->walk.n != 0 && (owner->rel = kit_arena_alloc(&x->arena, x->walk.n * sizeof *owner->rel)) == NULL)
            pl_oom(x);
        else if (x->walk.n != 0)
            memcpy(owner->rel, x->walk.v, x->walk.n * sizeof *owner->rel);
        owner->nrel = owner->rel ? x->walk.n : 0;
        owner->have_rel = 1;
    }
    if ((vr = kit_arena_alloc(&x->arena, sizeof *vr)) == NULL) {
        pl_oom(x);
        return &empty;
    }
    vr->n = 0;
    vr->impls = NULL;
    {
        struct vec found = {0};

        for (i = 0; i < owner->nrel && !x->failed; i++) {
            struct sel s = pl_select_for(x, owner->rel[i], name, desc);
            void **d;

            if (s.m == NULL || s.m == r.m || (s.m->access & CF_ACC_ABSTRACT) || !pl_cls_kept(x, s.c))
                continue;
            pl_key_begin(&x->key, K_DEDUPE);
            pl_key_ptr(&x->key, vr);
            pl_key_ptr(&x->key, s.m);
            if ((d = pl_map_slot(x, 1)) == NULL || *d != NULL)
                continue;
            *d = &pl_none_marker;
            if (pl_vec_push(&found, s.c) < 0 || pl_vec_push(&found, (void *)s.m) < 0)
                pl_oom(x);
        }
        if (found.n != 0 && !x->failed) {
            if ((vr->impls = kit_arena_alloc(&x->arena, found.n / 2 * sizeof *vr->impls)) == NULL) {
                pl_oom(x);
            } else {
                for (i = 0; i < found.n / 2; i++) {
                    vr->impls[i].c = found.v[2 * i];
                    vr->impls[i].m = found.v[2 * i + 1];
                }
                vr->n = found.n / 2;
            }
        }
        free(found.v);
    }
    pl_key_begin(&x->key, K_VIRTUAL);
    pl_key_ptr(&x->key, owner);
    pl_key_str(&x->key, name);
    pl_key_str(&x->key, desc);
    if ((v = pl_map_slot(x, 1)) != NULL)
        *v = vr;
    return vr;
}
