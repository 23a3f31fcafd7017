/* plan_state.c — the planner's state (see plan_state.h): growable
 * vectors, the keyed tables, plan_build's bounds, the plan's entries, the
 * planning state's end, and the rules that keep a class out by its name. */
#include "plan_state.h"

#include <stdlib.h>
#include <string.h>

#include "mtime.h"
#include "mutf8.h"

const char pl_R_REGEX[] = "does not match the regex";
const char pl_R_JDK[] = "JDK class (add --include-jdk)";
const char pl_R_REGEX_LIMIT[] = "the regex gave up on this name (too much backtracking)";
const char pl_N_IMPL[] = "entry method, an implementation of the one named";
const char pl_OBJECT[] = "java/lang/Object";
static const char R_UNMOD[] = "class cannot be retransformed";
static const char R_TRACER[] = "tracer's own class";
static const char R_INTERNALS[] = "JVM internals: a probe there could recurse into the tracer";

/* Classes of the JDK by name, for classes not loaded yet. */
static const char *const jdk_prefixes[] = {
    "java/", "javax/", "jdk/", "sun/", "com/sun/", "org/w3c/", "org/xml/", "org/ietf/",
};

/* JVM machinery a probe must not enter, even with --include-jdk: the probe
 * is an invokestatic of a native method, whose linkage, the thread it runs
 * on and the objects it touches go through these; a probe in them could
 * recurse into the tracer or run before the tracer's thread state exists.
 * Kept short on purpose: everything else of the JDK is the user's choice. */
static const char *const internal_prefixes[] = {
    "java/lang/invoke/", "java/lang/ref/", "jdk/internal/misc/", "jdk/internal/vm/", "sun/invoke/",
};
static const char *const internal_classes[] = {
    "java/lang/Object", "java/lang/Thread",
};
static const char TRACER_PREFIX[] = "mcalltree/";

static int has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

int pl_jdk_name(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof jdk_prefixes / sizeof jdk_prefixes[0]; i++)
        if (has_prefix(name, jdk_prefixes[i]))
            return 1;
    return 0;
}

const char *pl_never_why(const char *name, int flags)
{
    size_t i;

    if (has_prefix(name, TRACER_PREFIX))
        return R_TRACER;
    if (flags & HIER_UNMODIFIABLE)
        return R_UNMOD;
    for (i = 0; i < sizeof internal_prefixes / sizeof internal_prefixes[0]; i++)
        if (has_prefix(name, internal_prefixes[i]))
            return R_INTERNALS;
    for (i = 0; i < sizeof internal_classes / sizeof internal_classes[0]; i++)
        if (strcmp(name, internal_classes[i]) == 0)
            return R_INTERNALS;
    return NULL;
}

/* plan_build reads the clock every TICKS steps of its walk (and before
 * every match and class file read), and asks whether the requester is
 * gone at most every GONE_EVERY_MS. */
#define TICKS 256
#define GONE_EVERY_MS 20

/* --- growable vectors ------------------------------------------------------------ */

int pl_vec_push(struct vec *v, void *p)
{
    if (buf_grow(&v->v, &v->cap, v->n, sizeof *v->v, 64) < 0)
        return -1;
    v->v[v->n++] = p;
    return 0;
}

char pl_none_marker;

void pl_oom(struct ctx *x)
{
    if (!x->failed)
        mct_err_set(x->err, MCT_E_NOMEM, "out of memory while planning");
    x->failed = 1;
}

int pl_stop(struct ctx *x, int force)
{
    long long now;

    if (x->failed || x->extend || (!force && ++x->ticks % TICKS != 0))
        return x->failed;
    now = mct_now_ms();
    if (now >= x->deadline) {
        mct_err_set(x->err, MCT_E_LIMIT,
                    "planning took more than %g s (limit: planning time), at level %d of %d with %zu "
                    "methods in the plan: lower the depth, or narrow the regex",
                    (double)(x->req->time_ms ? x->req->time_ms : PLAN_TIME_MS) / 1000, x->level,
                    x->req->depth, x->p->n);
        x->failed = 1;
    } else if (x->req->gone != NULL && now >= x->next_gone) {
        x->next_gone = now + GONE_EVERY_MS;
        if (x->req->gone(x->req->gone_arg)) {
            mct_err_set(x->err, MCT_E_INTR, "planning stopped at level %d of %d: the client went away",
                        x->level, x->req->depth);
            x->failed = 1;
        }
    }
    return x->failed;
}

int pl_regex_match(struct ctx *x, const char *name, int *gave_up)
{
    int r;

    *gave_up = 0;
    if (x->re == NULL)
        return 1;
    if (x->extend) {
        r = match_class(x->re, name);
        *gave_up = r == MATCH_NAME_LIMIT;
        return r == 1;
    }
    if (pl_stop(x, 1))
        return 0;
    r = match_class_budget(x->re, name, &x->regex_left);
    x->regex_names++;
    if (r >= 0)
        return r;
    if (r == MATCH_ERROR) {
        pl_oom(x);
    } else if (r == MATCH_NAME_LIMIT) {
        char *u = mutf8_dup(name), *s;

        for (s = u; s != NULL && *s != '\0'; s++)
            if (*s == '/')
                *s = '.';
        mct_err_set(x->err, MCT_E_LIMIT,
                    "the regex took more than %d steps to match the class name %.200s (limit: regex work "
                    "per name): nested quantifiers such as (.+)+ backtrack exponentially; simplify the "
                    "regex (a package pattern such as com\\.shop\\..* takes a few steps a name)",
                    MATCH_NAME_WORK, u ? u : "?");
        free(u);
    } else {
        mct_err_set(x->err, MCT_E_LIMIT,
                    "the regex took more than %llu steps over the %zu class names it was matched with "
                    "(limit: regex work over the plan): simplify the regex, or lower the depth so that "
                    "fewer classes are looked at",
                    (unsigned long long)(x->req->regex_work ? x->req->regex_work : PLAN_REGEX_WORK),
                    x->regex_names);
    }
    x->failed = 1;
    return 0;
}

/* --- the hash tables ------------------------------------------------------------------ */

void pl_key_begin(mct_buf *k, int kind)
{
    k->len = 0;
    buf_u1(k, (uint8_t)kind);
}

void pl_key_ptr(mct_buf *k, const void *p)
{
    buf_bytes(k, &p, sizeof p);
}

void pl_key_str(mct_buf *k, const char *s)
{
    buf_bytes(k, s, strlen(s) + 1);
}

void **pl_map_get(kit_table *m, kit_arena *arena, const mct_buf *key, int create, int *nomem)
{
    const unsigned char *k = key->data;
    size_t n = key->len;
    uint64_t h;
    struct mrec *r;
    kit_cursor cur;

    if (buf_failed(key)) {
        *nomem = 1;
        return NULL;
    }
    h = kit_hash(k, n, 0);
    for (r = (struct mrec *)kit_table_first(m, h, &cur); r != NULL; r = (struct mrec *)kit_table_next(m, &cur))
        if (r->klen == n && memcmp(r->key, k, n) == 0)
            return &r->val;
    if (!create)
        return NULL;
    if ((r = kit_arena_alloc(arena, sizeof *r + n)) == NULL || kit_table_add(m, h, (uintptr_t)r) < 0) {
        *nomem = 1;
        return NULL;
    }
    r->val = NULL;
    r->klen = n;
    memcpy(r->key, k, n);
    return &r->val;
}

void **pl_map_slot(struct ctx *x, int create)
{
    int nomem = 0;
    void **v = pl_map_get(&x->map, &x->arena, &x->key, create, &nomem);

    if (nomem)
        pl_oom(x);
    return v;
}

void **pl_pmap_slot(struct ctx *x, int create)
{
    int nomem = 0;
    void **v = pl_map_get(&x->p->names, &x->p->arena, &x->key, create, &nomem);

    if (nomem)
        pl_oom(x);
    return v;
}

/* --- the plan ---------------------------------------------------------------------- */

struct pentry *pl_entry(const plan *p, size_t i)
{
    size_t j = i + BLOCK0;
    int b = 63 - __builtin_clzll((unsigned long long)j) - BLOCK0_LOG;

    return &p->blocks[b][j - ((size_t)BLOCK0 << b)];
}

plan_method *pl_pm_at(const plan *p, size_t i)
{
    return &pl_entry(p, i)->pub;
}

static uint64_t entry_hash(const char *cname, const char *name, const char *desc)
{
    return kit_hash_str(desc, kit_hash_str(name, kit_hash_str(cname, 0x13198a2e03707344ULL)));
}

long pl_find_entry(const plan *p, const char *cname, const char *name, const char *desc)
{
    kit_cursor cur;
    uintptr_t v;

    for (v = kit_table_first(&p->index, entry_hash(cname, name, desc), &cur); v != 0;
         v = kit_table_next(&p->index, &cur)) {
        const plan_method *m = pl_pm_at(p, v - 1);

        if (strcmp(m->class_name, cname) == 0 && strcmp(m->name, name) == 0 && strcmp(m->desc, desc) == 0)
            return (long)v - 1;
    }
    return -1;
}

long pl_push_entry(plan *p, const plan_method *m, int *nomem)
{
    size_t i = p->n, j = i + BLOCK0;
    int b = 63 - __builtin_clzll((unsigned long long)j) - BLOCK0_LOG;
    struct pentry *e;

    if (i >= p->max) {
        __atomic_store_n(&p->capped, 1, __ATOMIC_RELAXED);
        return -1;
    }
    if (p->blocks[b] == NULL && (p->blocks[b] = malloc(((size_t)BLOCK0 << b) * sizeof *e)) == NULL) {
        *nomem = 1;
        return -1;
    }
    e = &p->blocks[b][j - ((size_t)BLOCK0 << b)];
    memset(e, 0, sizeof *e);
    e->pub = *m;
    e->pub.class_name = kit_arena_strdup(&p->arena, m->class_name);
    e->pub.name = kit_arena_strdup(&p->arena, m->name);
    e->pub.desc = kit_arena_strdup(&p->arena, m->desc);
    if (e->pub.class_name == NULL || e->pub.name == NULL || e->pub.desc == NULL) {
        *nomem = 1;
        return -1;
    }
    if (kit_table_add(&p->index, entry_hash(m->class_name, m->name, m->desc), i + 1) < 0) {
        *nomem = 1;
        return -1;
    }
    __atomic_store_n(&p->n, i + 1, __ATOMIC_RELEASE);
    return (long)i;
}

int pl_grow_nodes(struct ctx *x, size_t n)
{
    size_t cap = x->ncap ? x->ncap : 64;
    struct sel *nn;

    if (n <= x->ncap)
        return 0;
    while (cap < n)
        cap *= 2;
    if ((nn = realloc(x->nodes, cap * sizeof *nn)) == NULL) {
        pl_oom(x);
        return -1;
    }
    memset(nn + x->ncap, 0, (cap - x->ncap) * sizeof *nn);
    x->nodes = nn;
    x->ncap = cap;
    return 0;
}

size_t pl_vec_index(const struct vec *v, size_t k)
{
    return (size_t)(intptr_t)v->v[k];
}

void pl_vec_push_index(struct ctx *x, struct vec *v, size_t i)
{
    if (pl_vec_push(v, (void *)(intptr_t)i) < 0)
        pl_oom(x);
}

void pl_ctx_free(struct ctx *x)
{
    size_t i;

    for (i = 0; i < x->map.cap; i++) {
        const struct mrec *r = (const struct mrec *)x->map.slots[i].val;

        if (r != NULL && r->key[0] == K_CLASS && r->val != NULL)
            cf_free(((struct cls *)r->val)->cf);
    }
    kit_table_free(&x->map);
    free(x->nodes);
    free(x->added.v);
    free(x->todo.v);
    free(x->walk.v);
    free(x->path.v);
    free(x->ifs.v);
    free(x->tmp.v);
    free(x->all.v);
    buf_free(&x->key);
    kit_arena_free(&x->arena);
}

void pl_utf8_message(mct_err *err)
{
    char out[MUTF8_ROOM(MCT_ERR_MSG)];
    size_t n;

    if (mutf8_plain(err->msg))
        return;
    n = mutf8_to_utf8(err->msg, out, MUTF8_NUL_SYMBOL);
    if (n >= MCT_ERR_MSG) {
        n = MCT_ERR_MSG - 1;
        while (n > 0 && ((unsigned char)out[n] & 0xC0) == 0x80)
            n--;
    }
    memcpy(err->msg, out, n);
    err->msg[n] = '\0';
}
