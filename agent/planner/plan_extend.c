/* plan_extend.c — the plan after plan_build: plan_extend, which plans below
 * the classes that loaded later. The watched call sites, the subtype table
 * and plan_new_class are in plan_sites.c; their design is here:
 *
 * The plan outlives the
 * planning state: what it keeps is in struct plan, names only (no hierarchy
 * pointer survives a call). Watched call sites: every virtual or interface
 * site whose resolved method may be overridden (the sites overriders() looks
 * at, and pending ones), and the abstract or default entry methods whose
 * implementations became entries, as (owner name, method, descriptor) ->
 * smallest callee level. Each owner has the names of its subtypes (itself
 * included) recorded as 64-bit hashes in one table, hash -> owners the class
 * is a subtype of: filled from the walk overriders() makes anyway (once per
 * owner and hierarchy), and by plan_new_class for each loading class (its
 * owners are those of its direct supertypes). A loading class is then one
 * lookup per direct supertype; java/lang/Object's sites apply to every class
 * and have no set. Two names with one hash would only make a class look like
 * a subtype, instrumenting a method that dispatch may not reach: harmless.
 * plan_extend runs the same code as plan_build over a new hierarchy, with
 * its own queue (plan_new_class may append in between) and a per-entry
 * "scanned" flag that keeps a method from being scanned twice. */
#include "plan_walk.h"

#include <stdlib.h>
#include <string.h>

/* Whether plan_extend scans entry i: loaded in this hierarchy, below the
 * depth, not scanned yet, to be instrumented (or pending, now that its
 * class is loaded, when that class is kept and the method has code). */
static int scannable(struct ctx *x, size_t i)
{
    struct pentry *e = pl_entry(x->p, i);
    const struct sel *n = i < x->ncap ? &x->nodes[i] : NULL;

    if (e->scanned || n == NULL || n->c == NULL || e->pub.level >= x->p->depth)
        return 0;
    if (e->pub.status == PLAN_INSTRUMENT)
        return 1;
    return e->pub.status == PLAN_PENDING && !(n->m->access & (CF_ACC_ABSTRACT | CF_ACC_NATIVE)) &&
           (e->pub.root ? pl_never_why(n->c->name, n->c->flags) == NULL : pl_cls_kept(x, n->c));
}

/* A seed whose class c is loaded: resolved from c, its entry (found by name
 * or appended) queued, and the implementations of a watched virtual site
 * added at its level. */
static void seed(struct ctx *x, struct cls *c, const char *name, const char *desc, int level)
{
    struct sel r = pl_resolve(x, c, name, desc, (c->flags & HIER_INTERFACE) != 0);
    struct vres *vr;
    long i;
    size_t k;

    if (r.m == NULL)
        return;
    i = pl_add_method(x, r, level, 0, NULL);
    if (i >= 0 && pl_grow_nodes(x, (size_t)i + 1) == 0) {
        if (x->nodes[i].c == NULL)
            x->nodes[i] = r;
        pl_vec_push_index(x, &x->todo, (size_t)i);
    }
    if (x->failed || !pl_watched(x, c->name, name, desc))
        return;
    vr = pl_overriders(x, c, r, name, desc, level);
    for (k = 0; k < vr->n && !x->failed && !x->p->capped; k++)
        pl_add_method(x, vr->impls[k], level, 0, NULL);
}

/* Scans the queue level by level to the depth (what scanning appends is
 * queued by append()). */
static void extend_levels(struct ctx *x)
{
    struct vec batch = {0};
    int level, low = PLAN_MAX_DEPTH;
    size_t k;

    for (k = 0; k < x->todo.n; k++)
        if (pl_pm_at(x->p, pl_vec_index(&x->todo, k))->level < low)
            low = pl_pm_at(x->p, pl_vec_index(&x->todo, k))->level;
    for (level = low; level < x->p->depth && !x->failed && !x->p->capped; level++) {
        batch.n = 0;
        for (k = 0; k < x->todo.n; k++) {
            size_t i = pl_vec_index(&x->todo, k);

            if (pl_pm_at(x->p, i)->level == level && scannable(x, i)) {
                pl_entry(x->p, i)->scanned = 1;
                pl_vec_push_index(x, &batch, i);
            }
        }
        pl_load_classes(x, &batch);
        for (k = 0; k < batch.n && !x->failed && !x->p->capped; k++)
            if (pl_pm_at(x->p, pl_vec_index(&batch, k))->status != PLAN_EXCLUDED)
                pl_scan(x, pl_vec_index(&batch, k));
    }
    free(batch.v);
}

int plan_extend(plan *p, const plan_seed *seeds, size_t n, const hier_ops *ops, void *hc,
                size_t **added, size_t *n_added, mct_err *err)
{
    struct ctx x;
    struct deferred *keep = NULL;
    size_t nkeep = 0, total, k;

    *added = NULL;
    *n_added = 0;
    for (k = 0; k < n; k++)
        if (seeds[k].class_name == NULL || seeds[k].name == NULL || seeds[k].desc == NULL ||
            seeds[k].level < 1 || seeds[k].level > p->depth)
            return mct_err_set(err, MCT_E_ARG, "seed %zu: a seed needs a class, a method, a descriptor "
                               "and a level within 1..%d", k, p->depth);
    memset(&x, 0, sizeof x);
    x.ops = ops;
    x.hc = hc;
    x.err = err;
    x.re = p->re;
    x.include_jdk = p->include_jdk;
    x.max = p->max;
    x.extend = 1;
    x.p = p;
    buf_init(&x.key);
    pthread_mutex_lock(&p->lock);
    x.base = p->n;
    for (k = p->cls_from; k < p->n; k++)
        pl_pm_at(p, k)->cls = NULL;
    p->cls_from = p->n;
    p->receiver = NULL;
    x.object = pl_find_class(&x, pl_OBJECT, NULL);
    total = p->ndeferred + n;
    if (total != 0 && (keep = malloc(total * sizeof *keep)) == NULL)
        pl_oom(&x);
    /* The waiting seeds first, then the new ones; those whose class is
     * still missing wait for the next call. */
    for (k = 0; k < total && keep != NULL; k++) {
        struct deferred *d = k < p->ndeferred ? &p->deferred[k] : NULL;
        const plan_seed *s = d == NULL ? &seeds[k - p->ndeferred] : NULL;
        struct cls *c = x.failed ? NULL : pl_find_class(&x, d ? d->class_name : s->class_name, NULL);

        if (c != NULL) {
            seed(&x, c, d ? d->name : s->name, d ? d->desc : s->desc, d ? d->level : s->level);
            if (d != NULL)
                pl_deferred_free(d);
        } else if (d != NULL) {
            if (++d->tries < PLAN_SEED_TRIES || x.failed)
                keep[nkeep++] = *d;
            else
                pl_deferred_free(d);
        } else if (!x.failed) {
            struct deferred *w = &keep[nkeep];

            w->class_name = strdup(s->class_name);
            w->name = strdup(s->name);
            w->desc = strdup(s->desc);
            w->level = s->level;
            w->tries = 1;
            if (w->class_name == NULL || w->name == NULL || w->desc == NULL) {
                pl_deferred_free(w);
                pl_oom(&x);
            } else {
                nkeep++;
            }
        }
    }
    if (keep != NULL || total == 0) {
        free(p->deferred);
        p->deferred = keep;
        p->ndeferred = nkeep;
    }
    if (!x.failed)
        extend_levels(&x);
    if (x.added.n != 0 && (*added = malloc(x.added.n * sizeof **added)) != NULL) {
        for (k = 0; k < x.added.n; k++)
            (*added)[k] = pl_vec_index(&x.added, k);
        *n_added = x.added.n;
    } else if (x.added.n != 0) {
        pl_oom(&x);
    }
    pthread_mutex_unlock(&p->lock);
    pl_ctx_free(&x);
    if (x.failed)
        pl_utf8_message(err);
    return x.failed ? -1 : 0;
}

size_t plan_deferred(const plan *p)
{
    plan *q = (plan *)p;
    size_t n;

    pthread_mutex_lock(&q->lock);
    n = q->ndeferred;
    pthread_mutex_unlock(&q->lock);
    return n;
}
