/* plan_sites.c — the plan's watched call sites and subtype table, and
 * plan_new_class, which uses them for a class that loads after planning
 * (the design is at the top of plan_extend.c). */
#include "plan_sites.h"

#include <stdlib.h>
#include <string.h>

/* The hash that stands for a class name in the subtype table; never 0. */
static uint64_t name_hash(const char *name)
{
    return kit_hash_str(name, 0x243f6a8885a308d3ULL);
}

/* The owners of the class whose name hashes to h: NULL if absent and
 * !create; else the list head (NULL when empty), or NULL on OOM with
 * *nomem set. */
static struct olink **kmap_get(plan *p, uint64_t h, int create, int *nomem)
{
    kit_cursor cur;
    struct olink **head = (struct olink **)kit_table_first(&p->known, h, &cur);

    if (head != NULL || !create)
        return head;
    if ((head = kit_arena_alloc(&p->arena, sizeof *head)) == NULL ||
        kit_table_add(&p->known, h, (uintptr_t)head) < 0) {
        *nomem = 1;
        return NULL;
    }
    *head = NULL;
    return head;
}

/* Records the class whose name hashes to h as a subtype of o (unless it is
 * already, when dedupe); -1 on OOM. */
static int link_add(plan *p, uint64_t h, struct owner *o, int dedupe)
{
    int nomem = 0;
    struct olink **head = kmap_get(p, h, 1, &nomem), *l;

    if (head == NULL)
        return -1;
    for (l = dedupe ? *head : NULL; l != NULL; l = l->next)
        if (l->o == o)
            return 0;
    if ((l = kit_arena_alloc(&p->arena, sizeof *l)) == NULL)
        return -1;
    l->o = o;
    l->next = *head;
    *head = l;
    if (h != o->self)
        o->others = 1;
    return 0;
}

/* --- watched call sites --------------------------------------------------------------- */

/* The owner record of a class name, created (in its own subtype set) on
 * first sight; NULL with *nomem set when out of memory. */
static struct owner *owner_of(plan *p, mct_buf *key, const char *name, int *nomem)
{
    void **v;
    struct owner *o;

    pl_key_begin(key, P_OWNER);
    pl_key_str(key, name);
    if ((v = pl_map_get(&p->names, &p->arena, key, 1, nomem)) == NULL)
        return NULL;
    if (*v != NULL)
        return *v;
    if ((o = kit_arena_alloc(&p->arena, sizeof *o)) == NULL) {
        *nomem = 1;
        return NULL;
    }
    memset(o, 0, sizeof *o);
    o->self = name_hash(name);
    *v = o;
    if (strcmp(name, pl_OBJECT) == 0)
        p->object = o;
    else if (link_add(p, o->self, o, 0) < 0)
        *nomem = 1;
    return o;
}

struct owner *pl_watch(struct ctx *x, const char *owner, struct cls *c, const char *name,
                       const char *desc, int level, int root)
{
    plan *p = x->p;
    int nomem = 0;
    struct owner *o = c != NULL && c->owner != NULL ? c->owner : owner_of(p, &x->key, owner, &nomem);
    struct site *s;
    void **v;

    if (o == NULL || nomem) {
        pl_oom(x);
        return NULL;
    }
    if (c != NULL)
        c->owner = o;
    pl_key_begin(&x->key, P_SITE);
    pl_key_str(&x->key, owner);
    pl_key_str(&x->key, name);
    pl_key_str(&x->key, desc);
    if ((v = pl_pmap_slot(x, 1)) == NULL)
        return NULL;
    if ((s = *v) != NULL) {
        if (level < s->level)
            s->level = level;
        s->root |= root;
        return o;
    }
    if ((s = kit_arena_alloc(&p->arena, sizeof *s)) == NULL ||
        (s->name = kit_arena_strdup(&p->arena, name)) == NULL ||
        (s->desc = kit_arena_strdup(&p->arena, desc)) == NULL) {
        pl_oom(x);
        return NULL;
    }
    s->level = level;
    s->root = root;
    s->next = o->sites;
    o->sites = s;
    *v = s;
    return o;
}

int pl_watched(struct ctx *x, const char *owner, const char *name, const char *desc)
{
    void **v;

    pl_key_begin(&x->key, P_SITE);
    pl_key_str(&x->key, owner);
    pl_key_str(&x->key, name);
    pl_key_str(&x->key, desc);
    return (v = pl_pmap_slot(x, 0)) != NULL && *v != NULL;
}

struct vec *pl_walk_all(struct ctx *x, struct owner *o)
{
    return o != NULL && o != x->p->object ? &x->all : NULL;
}

void pl_record_subtypes(struct ctx *x, struct owner *o)
{
    int dedupe;
    size_t i;

    if (pl_walk_all(x, o) == NULL)
        return;
    dedupe = o->others;
    for (i = 0; i < x->all.n && !x->failed; i++) {
        struct cls *c = x->all.v[i];

        if (c->nhash == 0)
            c->nhash = name_hash(c->name);
        if ((dedupe || c->nhash != o->self) && link_add(x->p, c->nhash, o, dedupe) < 0)
            pl_oom(x);
    }
}

void pl_deferred_free(struct deferred *d)
{
    free(d->class_name);
    free(d->name);
    free(d->desc);
}

/* Up to this many owners without allocating. */
#define NEW_OWNERS 32

int plan_new_class(plan *p, const char *name, const char *super_name, const char *const *interfaces,
                   size_t n_ifaces, const hier_method *declared, size_t n_declared, plan_seed *out,
                   size_t max, size_t *n_out)
{
    struct owner *few[NEW_OWNERS], **owners = few;
    size_t n = 0, cap = NEW_OWNERS, k, j;
    int nomem = 0, regex = -1;
    unsigned stamp;
    uint64_t h;

    *n_out = 0;
    if (name == NULL)
        return 0;
    pthread_mutex_lock(&p->lock);
    stamp = ++p->stamp;
    /* java/lang/Object's sites apply to every class. */
    if (p->object != NULL) {
        p->object->mark = stamp;
        owners[n++] = p->object;
    }
    /* The owners of its direct supertypes are its owners. */
    for (k = 0; k <= n_ifaces && !nomem; k++) {
        const char *t = k == 0 ? super_name : interfaces[k - 1];
        struct olink **head, *l;

        if (t == NULL || (head = kmap_get(p, name_hash(t), 0, &nomem)) == NULL)
            continue;
        for (l = *head; l != NULL; l = l->next) {
            if (l->o->mark == stamp)
                continue;
            l->o->mark = stamp;
            if (n == cap) {
                struct owner **more = malloc(2 * cap * sizeof *more);

                if (more == NULL) {
                    nomem = 1;
                    break;
                }
                memcpy(more, owners, n * sizeof *more);
                if (owners != few)
                    free(owners);
                owners = more;
                cap *= 2;
            }
            owners[n++] = l->o;
        }
    }
    h = name_hash(name);
    for (k = 0; k < n; k++)
        if (owners[k] != p->object && link_add(p, h, owners[k], 1) < 0)
            nomem = 1;
    if (n == 0 || nomem || pl_never_why(name, 0) != NULL || (!p->include_jdk && pl_jdk_name(name)))
        goto done;
    for (k = 0; k < n_declared && *n_out < max; k++) {
        const hier_method *m = &declared[k];
        plan_method pm;
        int level = 0, root = 0;
        long i;

        if ((m->access & (CF_ACC_ABSTRACT | CF_ACC_STATIC | CF_ACC_PRIVATE | CF_ACC_NATIVE)) ||
            m->name[0] == '<')
            continue;
        for (j = 0; j < n; j++) {
            const struct site *s;

            for (s = owners[j]->sites; s != NULL; s = s->next)
                if (strcmp(s->name, m->name) == 0 && strcmp(s->desc, m->desc) == 0) {
                    if (level == 0 || s->level < level)
                        level = s->level;
                    root |= s->root;
                }
        }
        if (level == 0)
            continue;
        if (!root) {
            if (regex < 0)
                regex = p->re == NULL || match_class(p->re, name) == 1;
            if (!regex)
                continue;
        }
        if (pl_find_entry(p, name, m->name, m->desc) >= 0)
            continue;
        memset(&pm, 0, sizeof pm);
        pm.class_name = name;
        pm.name = m->name;
        pm.desc = m->desc;
        pm.access = m->access;
        pm.level = root ? 1 : level;
        pm.status = PLAN_INSTRUMENT;
        pm.root = root;
        pm.reason = root ? pl_N_IMPL : NULL;
        if ((i = pl_push_entry(p, &pm, &nomem)) < 0)
            break;
        out[*n_out].class_name = pl_pm_at(p, (size_t)i)->class_name;
        out[*n_out].name = pl_pm_at(p, (size_t)i)->name;
        out[*n_out].desc = pl_pm_at(p, (size_t)i)->desc;
        out[*n_out].level = pm.level;
        out[*n_out].index = (size_t)i;
        ++*n_out;
    }
done:
    pthread_mutex_unlock(&p->lock);
    if (owners != few)
        free(owners);
    return nomem ? -1 : 0;
}
