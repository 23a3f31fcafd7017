/* cpool.c — see cpool.h. */
#include "cpool.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"

/* A constant the pool can be asked for: Utf8 (s, a = length), Class (a),
 * NameAndType and Methodref (a, b), Integer (v). */
struct ent {
    uint8_t tag;
    uint16_t idx;
    uint16_t a, b;
    uint32_t v;
    const char *s;   /* Utf8: the class's copy or an owned one (added) */
    int32_t next;    /* chain in the bucket, -1 ends */
};

/* The lookup table stays its own (not protocol/kit's): its chain runs
 * through ents[], which is also the pool in entry order and is rebuilt from
 * it, so it needs no slot array beside the entries, and its hash is over the
 * entry's typed fields rather than one byte string. */

struct cpool {
    const cf_class *c;
    struct ent *ents;
    size_t n, cap;
    size_t n_own;        /* ents[0..n_own) are the class's own entries */
    int32_t *buckets;
    size_t nb;           /* a power of two */
    uint32_t count;      /* constant_pool_count */
    mct_buf bytes;       /* the added entries, encoded */
};

static uint32_t hash_ent(const struct ent *e)
{
    uint32_t h = 2166136261u ^ e->tag;

    if (e->tag == CF_UTF8) {
        uint32_t i;

        for (i = 0; i < e->a; i++)
            h = (h ^ (uint8_t)e->s[i]) * 16777619u;
        return h;
    }
    h = (h ^ e->a) * 16777619u;
    h = (h ^ e->b) * 16777619u;
    h = (h ^ e->v) * 16777619u;
    return h ^ (h >> 15);
}

static int same_ent(const struct ent *x, const struct ent *y)
{
    if (x->tag != y->tag || x->a != y->a || x->b != y->b || x->v != y->v)
        return 0;
    return x->tag != CF_UTF8 || memcmp(x->s, y->s, x->a) == 0;
}

static void link_ent(cpool *p, size_t i)
{
    uint32_t h = hash_ent(&p->ents[i]) & (uint32_t)(p->nb - 1);

    p->ents[i].next = p->buckets[h];
    p->buckets[h] = (int32_t)i;
}

/* Rebuilds the chains with nb buckets; entries go in in order, so that the
 * newest entry of each chain is at its head (cpool_rollback relies on it). */
static int rehash(cpool *p, size_t nb)
{
    int32_t *b = malloc(nb * sizeof *b);
    size_t i;

    if (b == NULL)
        return -1;
    free(p->buckets);
    p->buckets = b;
    p->nb = nb;
    for (i = 0; i < nb; i++)
        b[i] = -1;
    for (i = 0; i < p->n; i++)
        link_ent(p, i);
    return 0;
}

static int push_ent(cpool *p, const struct ent *e)
{
    if (buf_grow(&p->ents, &p->cap, p->n, sizeof *p->ents, 64) < 0)
        return -1;
    p->ents[p->n++] = *e;
    if (p->n * 2 > p->nb) {
        /* On failure the entry is not kept: the caller still owns it. */
        if (rehash(p, p->nb * 2) < 0) {
            p->n--;
            return -1;
        }
        return 0;
    }
    link_ent(p, p->n - 1);
    return 0;
}

static int find_ent(const cpool *p, const struct ent *e)
{
    int32_t i = p->buckets[hash_ent(e) & (uint32_t)(p->nb - 1)];

    for (; i >= 0; i = p->ents[i].next)
        if (same_ent(&p->ents[i], e))
            return p->ents[i].idx;
    return -1;
}

cpool *cpool_new(const cf_class *c, mct_err *err)
{
    cpool *p = calloc(1, sizeof *p);
    uint16_t i;
    size_t nb = 64;

    if (p == NULL)
        goto nomem;
    p->c = c;
    p->count = c->cp_count;
    buf_init(&p->bytes);
    while (nb < (size_t)c->cp_count * 2)
        nb *= 2;
    p->nb = nb;
    p->buckets = malloc(nb * sizeof *p->buckets);
    if (p->buckets == NULL)
        goto nomem;
    memset(p->buckets, 0xff, nb * sizeof *p->buckets);
    for (i = 1; i < c->cp_count; i++) {
        const cf_cp *k = &c->cp[i];
        struct ent e = {.tag = k->tag, .idx = i};

        switch (k->tag) {
        case CF_UTF8:
            e.s = k->utf8;
            e.a = (uint16_t)k->len;
            break;
        case CF_CLASS:
            e.a = k->a;
            break;
        case CF_NAME_AND_TYPE:
        case CF_METHODREF:
            e.a = k->a;
            e.b = k->b;
            break;
        case CF_INTEGER:
            e.v = (uint32_t)k->value;
            break;
        default:
            continue;
        }
        if (push_ent(p, &e) < 0)
            goto nomem;
    }
    p->n_own = p->n;
    return p;
nomem:
    if (p != NULL)
        p->n_own = p->n; /* all borrowed from the class so far */
    cpool_free(p);
    mct_err_set(err, MCT_E_NOMEM, "out of memory indexing a constant pool");
    return NULL;
}

void cpool_free(cpool *p)
{
    size_t i;

    if (p == NULL)
        return;
    for (i = p->n_own; i < p->n; i++)
        if (p->ents[i].tag == CF_UTF8)
            free((char *)p->ents[i].s);
    free(p->ents);
    free(p->buckets);
    buf_free(&p->bytes);
    free(p);
}

/* Finds e or appends it (its encoding too); returns the index or -1. */
static int intern(cpool *p, struct ent *e, mct_err *err)
{
    int idx = find_ent(p, e);
    char *copy = NULL;

    if (idx >= 0)
        return idx;
    if (p->count >= 65535)
        return mct_err_set(err, MCT_E_TOOBIG, "the constant pool of %s is full (65535 slots)", p->c->name);
    if (e->tag == CF_UTF8) {
        copy = malloc(e->a ? e->a : 1);
        if (copy == NULL)
            return mct_err_set(err, MCT_E_NOMEM, "out of memory adding a constant");
        memcpy(copy, e->s, e->a);
        e->s = copy;
    }
    e->idx = (uint16_t)p->count;
    if (push_ent(p, e) < 0) {
        free(copy);
        return mct_err_set(err, MCT_E_NOMEM, "out of memory adding a constant");
    }
    buf_u1(&p->bytes, e->tag);
    switch (e->tag) {
    case CF_UTF8:
        buf_u2(&p->bytes, e->a);
        buf_bytes(&p->bytes, e->s, e->a);
        break;
    case CF_CLASS:
        buf_u2(&p->bytes, e->a);
        break;
    case CF_INTEGER:
        buf_u4(&p->bytes, e->v);
        break;
    default:
        buf_u2(&p->bytes, e->a);
        buf_u2(&p->bytes, e->b);
        break;
    }
    if (buf_failed(&p->bytes))
        return mct_err_set(err, MCT_E_NOMEM, "out of memory adding a constant");
    p->count++;
    return e->idx;
}

int cpool_utf8(cpool *p, const char *s, size_t len, mct_err *err)
{
    struct ent e = {.tag = CF_UTF8, .s = s, .a = (uint16_t)len};

    if (len > 65535)
        return mct_err_set(err, MCT_E_TOOBIG, "a constant of %zu bytes is too long", len);
    return intern(p, &e, err);
}

int cpool_class(cpool *p, const char *name, size_t len, mct_err *err)
{
    int n = cpool_utf8(p, name, len, err);
    struct ent e = {.tag = CF_CLASS};

    if (n < 0)
        return -1;
    e.a = (uint16_t)n;
    return intern(p, &e, err);
}

int cpool_methodref(cpool *p, const char *owner, const char *name, const char *desc, mct_err *err)
{
    int c = cpool_class(p, owner, strlen(owner), err);
    int n = c < 0 ? -1 : cpool_utf8(p, name, strlen(name), err);
    int d = n < 0 ? -1 : cpool_utf8(p, desc, strlen(desc), err);
    struct ent nat = {.tag = CF_NAME_AND_TYPE}, ref = {.tag = CF_METHODREF};
    int k;

    if (d < 0)
        return -1;
    nat.a = (uint16_t)n;
    nat.b = (uint16_t)d;
    k = intern(p, &nat, err);
    if (k < 0)
        return -1;
    ref.a = (uint16_t)c;
    ref.b = (uint16_t)k;
    return intern(p, &ref, err);
}

int cpool_integer(cpool *p, int32_t v, mct_err *err)
{
    struct ent e = {.tag = CF_INTEGER, .v = (uint32_t)v};

    return intern(p, &e, err);
}

uint16_t cpool_count(const cpool *p)
{
    return (uint16_t)p->count;
}

const uint8_t *cpool_added(const cpool *p, size_t *len)
{
    *len = p->bytes.len;
    return p->bytes.data;
}

cpool_mark cpool_get_mark(const cpool *p)
{
    cpool_mark m = {.n_added = p->n - p->n_own, .bytes = p->bytes.len};

    return m;
}

void cpool_rollback(cpool *p, cpool_mark m)
{
    while (p->n > p->n_own + m.n_added) {
        struct ent *e = &p->ents[p->n - 1];
        uint32_t h = hash_ent(e) & (uint32_t)(p->nb - 1);

        /* The newest entry heads its chain. */
        p->buckets[h] = e->next;
        if (e->tag == CF_UTF8)
            free((char *)e->s);
        p->n--;
        p->count--;
    }
    if (m.bytes < p->bytes.len)
        p->bytes.len = m.bytes;
}
