/* summary.c — see summary.h. */
#include "summary.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "kit.h"
#include "proto.h"

/* ---- histogram ------------------------------------------------------------ */

void sum_hist_init(struct sum_hist *h)
{
    memset(h, 0, sizeof *h);
}

void sum_hist_reset(struct sum_hist *h)
{
    for (int g = 0; g < SUM_HIST_GROUPS; g++)
        free(h->groups[g]);
    sum_hist_init(h);
}

/* The group (power of two) and bucket within it of value v. */
static void hist_index(uint64_t v, int *group, unsigned *bucket)
{
    int k;

    if (v < SUM_HIST_SUB) {
        *group = 0;
        *bucket = (unsigned)v;
        return;
    }
    k = 63 - __builtin_clzll(v);            /* 2^k <= v < 2^(k+1), k >= 7 */
    *group = k - SUM_HIST_SUB_BITS + 1;
    *bucket = (unsigned)((v >> (k - SUM_HIST_SUB_BITS)) - SUM_HIST_SUB);
}

/* The lowest value of bucket b of group g, and the bucket's width. */
static void hist_bucket(int g, unsigned b, uint64_t *lo, uint64_t *width)
{
    if (g == 0) {
        *lo = b;
        *width = 1;
        return;
    }
    *width = (uint64_t)1 << (g - 1);
    *lo = ((uint64_t)SUM_HIST_SUB + b) << (g - 1);
}

/* Adds n samples in bucket b of group g, allocating the group. */
static int hist_add(struct sum_hist *h, int g, unsigned b, uint64_t n, mct_err *e)
{
    if (h->groups[g] == NULL) {
        h->groups[g] = calloc(SUM_HIST_SUB, sizeof *h->groups[g]);
        if (h->groups[g] == NULL)
            return mct_err_set(e, MCT_E_NOMEM, "out of memory for a histogram");
    }
    h->groups[g][b] += n;
    return 0;
}

int sum_hist_record(struct sum_hist *h, uint64_t v, mct_err *e)
{
    int g;
    unsigned b;

    if (v > INT64_MAX)
        v = INT64_MAX;
    hist_index(v, &g, &b);
    if (hist_add(h, g, b, 1, e) < 0)
        return -1;
    if (h->count == 0 || v < h->min)
        h->min = v;
    if (h->count == 0 || v > h->max)
        h->max = v;
    h->count++;
    return 0;
}

int sum_hist_merge(struct sum_hist *dst, const struct sum_hist *src, mct_err *e)
{
    if (src->count == 0)
        return 0;
    for (int g = 0; g < SUM_HIST_GROUPS; g++)
        for (unsigned b = 0; src->groups[g] != NULL && b < SUM_HIST_SUB; b++)
            if (src->groups[g][b] != 0 && hist_add(dst, g, b, src->groups[g][b], e) < 0)
                return -1;
    if (dst->count == 0 || src->min < dst->min)
        dst->min = src->min;
    if (dst->count == 0 || src->max > dst->max)
        dst->max = src->max;
    dst->count += src->count;
    return 0;
}

uint64_t sum_hist_quantile(const struct sum_hist *h, double q)
{
    uint64_t rank, seen = 0;

    if (h->count == 0)
        return 0;
    if (!(q > 0))
        return h->min;
    if (q >= 1)
        return h->max;
    /* nearest rank: the smallest sample with at least q * count at or below */
    rank = (uint64_t)(q * (double)h->count);
    if ((double)rank < q * (double)h->count)
        rank++;
    if (rank < 1)
        rank = 1;
    for (int g = 0; g < SUM_HIST_GROUPS; g++) {
        for (unsigned b = 0; h->groups[g] != NULL && b < SUM_HIST_SUB; b++) {
            uint64_t lo, width, mid;

            seen += h->groups[g][b];
            if (seen < rank)
                continue;
            /* min and max are samples: exact where the bucket holds them */
            hist_bucket(g, b, &lo, &width);
            if (h->min >= lo && h->min - lo < width)
                return h->min;
            if (h->max >= lo && h->max - lo < width)
                return h->max;
            mid = lo + width / 2;
            return mid;
        }
    }
    return h->max;
}

/* ---- the summary tree ------------------------------------------------------ */

struct smethod {
    char *class_name, *method, *desc;
    uint64_t calls, calls_max, entries;
    uint64_t epoch, cur;        /* cur: its calls in the entry call of that epoch */
};

struct snode {
    char *class_name, *method, *desc;
    uint64_t calls, total_ns, self_ns, min_ns, max_ns, throws;
    uint64_t entries, calls_min, calls_max;
    int truncated, seen;
    struct sum_hist hist;       /* its total_ns per entry call */
    struct snode **kids;        /* in order of first appearance */
    size_t nkids, capkids;
    struct snode *parent;       /* NULL for a root */
    struct smethod *m;
    uint64_t epoch, cur_calls, cur_total;
};

struct slow {
    uint64_t ns;
    json_t *call;
};

struct sum {
    size_t k;
    uint64_t calls, not_traced;
    uint64_t warmup;            /* warm-up calls of the interval (sum_add_warmup) */
    uint64_t seen;              /* entry calls seen, traced or not (sum_add_seen) */
    struct snode top;           /* unnamed; its children are the roots */
    struct smethod **methods;   /* in order of first appearance */
    size_t nmethods, capmethods;
    kit_table method_index;     /* method_hash -> struct smethod * */
    kit_table node_index;       /* node_hash (parent and names) -> struct snode * */
    struct snode **touched;     /* nodes of the current entry call */
    size_t ntouched, captouched;
    struct smethod **mtouched;  /* methods of the current entry call */
    size_t nmtouched, capmtouched;
    uint64_t epoch;             /* the entry call being added, from 1 */
    int in_call, depth, roots_entered;
    struct snode *stack[PROTO_MAX_DEPTH + 1];
    struct slow *heap;          /* min-heap by ns, k slots */
    size_t nheap;
};

/* a + b, saturated at INT64_MAX so that every figure fits a JSON integer. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > INT64_MAX - (b > INT64_MAX ? INT64_MAX : b) ? INT64_MAX : a + b;
}

/* Makes room for one more pointer in *arr (n used, *cap allocated). */
static int grow(void *arr, size_t n, size_t *cap, mct_err *e)
{
    void **a = *(void ***)arr;

    if (n < *cap)
        return 0;
    size_t ncap = *cap > 0 ? 2 * *cap : 8;
    a = realloc(a, ncap * sizeof *a);
    if (a == NULL)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory for the summary");
    *(void ***)arr = a;
    *cap = ncap;
    return 0;
}

/* Copies the three names into *c, *m, *d; -1 with e set. */
static int copy_names(char **c, char **m, char **d, const char *cs, const char *ms, const char *ds,
                      mct_err *e)
{
    *c = strdup(cs);
    *m = strdup(ms);
    *d = strdup(ds);
    if (*c == NULL || *m == NULL || *d == NULL) {
        free(*c);
        free(*m);
        free(*d);
        return mct_err_set(e, MCT_E_NOMEM, "out of memory for the summary");
    }
    return 0;
}

static int same_key(const char *c1, const char *m1, const char *d1, const char *c2, const char *m2,
                    const char *d2)
{
    return strcmp(m1, m2) == 0 && strcmp(c1, c2) == 0 && strcmp(d1, d2) == 0;
}

/* The hash of a node's key: its parent (NULL for a root, or for a method)
 * and its names. */
static uint64_t key_hash(const void *parent, const char *c, const char *m, const char *d)
{
    return kit_hash_str(d, kit_hash_str(m, kit_hash_str(c, kit_hash_u64((uintptr_t)parent))));
}

/* The method (class, method, desc), added when new; NULL with e set. */
static struct smethod *method_get(sum *s, const char *c, const char *m, const char *d, mct_err *e)
{
    uint64_t h = key_hash(NULL, c, m, d);
    struct smethod *sm;
    kit_cursor cur;

    for (uintptr_t v = kit_table_first(&s->method_index, h, &cur); v != 0;
         v = kit_table_next(&s->method_index, &cur)) {
        sm = (struct smethod *)v;
        if (same_key(sm->class_name, sm->method, sm->desc, c, m, d))
            return sm;
    }
    if (grow(&s->methods, s->nmethods, &s->capmethods, e) < 0 ||
        kit_table_reserve(&s->method_index, s->nmethods + 1) < 0) {
        mct_err_set(e, MCT_E_NOMEM, "out of memory for the summary");
        return NULL;
    }
    sm = calloc(1, sizeof *sm);
    if (sm == NULL) {
        mct_err_set(e, MCT_E_NOMEM, "out of memory for the summary");
        return NULL;
    }
    if (copy_names(&sm->class_name, &sm->method, &sm->desc, c, m, d, e) < 0) {
        free(sm);
        return NULL;
    }
    s->methods[s->nmethods++] = sm;
    kit_table_add(&s->method_index, h, (uintptr_t)sm);     /* room reserved above */
    return sm;
}

/* parent's child (c, m, d), added last when new; NULL with e set. */
static struct snode *child_get(sum *s, struct snode *parent, const char *c, const char *m,
                               const char *d, mct_err *e)
{
    const struct snode *pkey = parent == &s->top ? NULL : parent;
    uint64_t h = key_hash(pkey, c, m, d);
    struct snode *n;
    kit_cursor cur;

    for (uintptr_t v = kit_table_first(&s->node_index, h, &cur); v != 0;
         v = kit_table_next(&s->node_index, &cur)) {
        n = (struct snode *)v;
        if (n->parent == pkey && same_key(n->class_name, n->method, n->desc, c, m, d))
            return n;
    }
    if (grow(&parent->kids, parent->nkids, &parent->capkids, e) < 0)
        return NULL;
    if (kit_table_reserve(&s->node_index, s->node_index.n + 1) < 0) {
        mct_err_set(e, MCT_E_NOMEM, "out of memory for the summary");
        return NULL;
    }
    n = calloc(1, sizeof *n);
    if (n == NULL) {
        mct_err_set(e, MCT_E_NOMEM, "out of memory for the summary");
        return NULL;
    }
    sum_hist_init(&n->hist);
    n->m = method_get(s, c, m, d, e);
    if (n->m == NULL || copy_names(&n->class_name, &n->method, &n->desc, c, m, d, e) < 0) {
        free(n);
        return NULL;
    }
    n->parent = (struct snode *)pkey;
    parent->kids[parent->nkids++] = n;
    kit_table_add(&s->node_index, h, (uintptr_t)n);        /* room reserved above */
    return n;
}

/* Frees node's subtree (node itself when not the top). */
static void node_free(struct snode *n, int top)
{
    for (size_t i = 0; i < n->nkids; i++)
        node_free(n->kids[i], 0);
    free(n->kids);
    sum_hist_reset(&n->hist);
    free(n->class_name);
    free(n->method);
    free(n->desc);
    if (!top)
        free(n);
}

sum *sum_new(size_t k, mct_err *e)
{
    sum *s;

    if (k > SUM_SLOWEST_MAX) {
        mct_err_set(e, MCT_E_ARG, "cannot keep %zu slowest calls: at most %d", k, SUM_SLOWEST_MAX);
        return NULL;
    }
    s = calloc(1, sizeof *s);
    if (s == NULL || (k > 0 && (s->heap = calloc(k, sizeof *s->heap)) == NULL)) {
        free(s);
        mct_err_set(e, MCT_E_NOMEM, "out of memory for the summary");
        return NULL;
    }
    s->k = k;
    return s;
}

void sum_reset(sum *s)
{
    node_free(&s->top, 1);
    memset(&s->top, 0, sizeof s->top);
    for (size_t i = 0; i < s->nmethods; i++) {
        free(s->methods[i]->class_name);
        free(s->methods[i]->method);
        free(s->methods[i]->desc);
        free(s->methods[i]);
    }
    s->nmethods = 0;
    kit_table_free(&s->method_index);
    kit_table_free(&s->node_index);
    for (size_t i = 0; i < s->nheap; i++)
        json_decref(s->heap[i].call);
    s->nheap = 0;
    s->ntouched = s->nmtouched = 0;
    s->calls = s->not_traced = s->warmup = s->seen = 0;
    s->in_call = s->depth = s->roots_entered = 0;
}

void sum_free(sum *s)
{
    if (s == NULL)
        return;
    sum_reset(s);
    free(s->methods);
    free(s->touched);
    free(s->mtouched);
    free(s->heap);
    free(s);
}

uint64_t sum_calls(const sum *s)
{
    return s->calls;
}

void sum_add_not_traced(sum *s, uint64_t n)
{
    s->not_traced = sat_add(s->not_traced, n);
}

void sum_add_warmup(sum *s, uint64_t n)
{
    s->warmup = sat_add(s->warmup, n);
}

void sum_add_seen(sum *s, uint64_t n)
{
    s->seen = sat_add(s->seen, n);
}

int sum_begin(sum *s, mct_err *e)
{
    if (s->in_call)
        return mct_err_set(e, MCT_E_INTERNAL, "summary: a call begun before the last one ended");
    s->in_call = 1;
    s->depth = 0;
    s->roots_entered = 0;
    s->ntouched = s->nmtouched = 0;
    s->epoch++;
    return 0;
}

int sum_enter(sum *s, const struct sum_fig *f, mct_err *e)
{
    struct snode *parent, *n;

    if (!s->in_call)
        return mct_err_set(e, MCT_E_INTERNAL, "summary: a node entered outside a call");
    if (s->depth == 0 && s->roots_entered++ > 0)
        return mct_err_set(e, MCT_E_INTERNAL, "summary: a call with two roots");
    if (s->depth >= PROTO_MAX_DEPTH)
        return mct_err_set(e, MCT_E_PROTO, "summary: a call tree deeper than %d levels",
                           PROTO_MAX_DEPTH);
    parent = s->depth == 0 ? &s->top : s->stack[s->depth - 1];
    n = child_get(s, parent, f->class_name, f->method, f->desc, e);
    if (n == NULL)
        return -1;
    if (n->epoch != s->epoch) {
        if (grow(&s->touched, s->ntouched, &s->captouched, e) < 0)
            return -1;
        s->touched[s->ntouched++] = n;
        n->epoch = s->epoch;
        n->cur_calls = n->cur_total = 0;
    }
    if (n->m->epoch != s->epoch) {
        if (grow(&s->mtouched, s->nmtouched, &s->capmtouched, e) < 0)
            return -1;
        s->mtouched[s->nmtouched++] = n->m;
        n->m->epoch = s->epoch;
        n->m->cur = 0;
    }
    if (!n->seen || f->min_ns < n->min_ns)
        n->min_ns = f->min_ns;
    if (!n->seen || f->max_ns > n->max_ns)
        n->max_ns = f->max_ns;
    n->seen = 1;
    n->calls = sat_add(n->calls, f->calls);
    n->total_ns = sat_add(n->total_ns, f->total_ns);
    n->self_ns = sat_add(n->self_ns, f->self_ns);
    n->throws = sat_add(n->throws, f->throws);
    n->truncated |= f->truncated;
    n->cur_calls = sat_add(n->cur_calls, f->calls);
    n->cur_total = sat_add(n->cur_total, f->total_ns);
    n->m->calls = sat_add(n->m->calls, f->calls);
    n->m->cur = sat_add(n->m->cur, f->calls);
    s->stack[s->depth++] = n;
    return 0;
}

int sum_leave(sum *s, mct_err *e)
{
    if (!s->in_call || s->depth == 0)
        return mct_err_set(e, MCT_E_INTERNAL, "summary: a node left that was not entered");
    s->depth--;
    return 0;
}

int sum_end(sum *s, mct_err *e)
{
    if (!s->in_call || s->depth != 0 || s->roots_entered == 0)
        return mct_err_set(e, MCT_E_INTERNAL, "summary: a call ended %s",
                           !s->in_call ? "that was not begun" : s->depth != 0 ? "inside a node" :
                           "without a root");
    for (size_t i = 0; i < s->ntouched; i++) {
        struct snode *n = s->touched[i];

        if (n->entries == 0 || n->cur_calls < n->calls_min)
            n->calls_min = n->cur_calls;
        if (n->entries == 0 || n->cur_calls > n->calls_max)
            n->calls_max = n->cur_calls;
        n->entries++;
        if (sum_hist_record(&n->hist, n->cur_total, e) < 0)
            return -1;
    }
    for (size_t i = 0; i < s->nmtouched; i++) {
        struct smethod *m = s->mtouched[i];

        if (m->cur > m->calls_max)
            m->calls_max = m->cur;
        m->entries++;
    }
    s->calls++;
    s->in_call = 0;
    return 0;
}

/* ---- slowest K: a min-heap by root total_ns --------------------------------- */

static void heap_swap(struct slow *a, struct slow *b)
{
    struct slow t = *a;

    *a = *b;
    *b = t;
}

static void heap_down(struct slow *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;

        if (l < n && h[l].ns < h[m].ns)
            m = l;
        if (r < n && h[r].ns < h[m].ns)
            m = r;
        if (m == i)
            return;
        heap_swap(&h[i], &h[m]);
        i = m;
    }
}

int sum_slowest_wants(const sum *s, uint64_t total_ns)
{
    return s->k > 0 && (s->nheap < s->k || total_ns > s->heap[0].ns);
}

int sum_slowest_offer(sum *s, uint64_t total_ns, json_t *call, mct_err *e)
{
    size_t i;

    (void)e;
    if (!sum_slowest_wants(s, total_ns))
        return 0;
    json_incref(call);
    if (s->nheap == s->k) {
        json_decref(s->heap[0].call);
        s->heap[0] = (struct slow){ total_ns, call };
        heap_down(s->heap, s->nheap, 0);
        return 0;
    }
    i = s->nheap++;
    s->heap[i] = (struct slow){ total_ns, call };
    while (i > 0 && s->heap[(i - 1) / 2].ns > s->heap[i].ns) {
        heap_swap(&s->heap[(i - 1) / 2], &s->heap[i]);
        i = (i - 1) / 2;
    }
    return 0;
}

/* ---- merge ------------------------------------------------------------------ */

static int node_merge(sum *dst, struct snode *d, const struct snode *src, mct_err *e)
{
    for (size_t i = 0; i < src->nkids; i++) {
        const struct snode *sk = src->kids[i];
        struct snode *dk = child_get(dst, d, sk->class_name, sk->method, sk->desc, e);

        if (dk == NULL)
            return -1;
        if (!dk->seen || sk->min_ns < dk->min_ns)
            dk->min_ns = sk->min_ns;
        if (!dk->seen || sk->max_ns > dk->max_ns)
            dk->max_ns = sk->max_ns;
        dk->seen |= sk->seen;
        dk->calls = sat_add(dk->calls, sk->calls);
        dk->total_ns = sat_add(dk->total_ns, sk->total_ns);
        dk->self_ns = sat_add(dk->self_ns, sk->self_ns);
        dk->throws = sat_add(dk->throws, sk->throws);
        dk->truncated |= sk->truncated;
        if (sk->entries > 0) {
            if (dk->entries == 0 || sk->calls_min < dk->calls_min)
                dk->calls_min = sk->calls_min;
            if (dk->entries == 0 || sk->calls_max > dk->calls_max)
                dk->calls_max = sk->calls_max;
        }
        dk->entries = sat_add(dk->entries, sk->entries);
        if (sum_hist_merge(&dk->hist, &sk->hist, e) < 0 || node_merge(dst, dk, sk, e) < 0)
            return -1;
    }
    return 0;
}

int sum_merge(sum *dst, const sum *src, mct_err *e)
{
    if (dst->in_call || src->in_call)
        return mct_err_set(e, MCT_E_INTERNAL, "summary: merged in the middle of a call");
    if (node_merge(dst, &dst->top, &src->top, e) < 0)
        return -1;
    for (size_t i = 0; i < src->nmethods; i++) {
        const struct smethod *sm = src->methods[i];
        struct smethod *dm = method_get(dst, sm->class_name, sm->method, sm->desc, e);

        if (dm == NULL)
            return -1;
        dm->calls = sat_add(dm->calls, sm->calls);
        dm->entries = sat_add(dm->entries, sm->entries);
        if (sm->calls_max > dm->calls_max)
            dm->calls_max = sm->calls_max;
    }
    for (size_t i = 0; i < src->nheap; i++)
        if (sum_slowest_offer(dst, src->heap[i].ns, src->heap[i].call, e) < 0)
            return -1;
    dst->calls = sat_add(dst->calls, src->calls);
    dst->not_traced = sat_add(dst->not_traced, src->not_traced);
    dst->warmup = sat_add(dst->warmup, src->warmup);
    dst->seen = sat_add(dst->seen, src->seen);
    return 0;
}

/* ---- writing ------------------------------------------------------------------ */

/* obj[key] = v; -1 when out of memory. */
static int put(json_t *obj, const char *key, json_t *v)
{
    return v == NULL || json_object_set_new(obj, key, v) < 0 ? -1 : 0;
}

static int put_int(json_t *obj, const char *key, uint64_t v)
{
    return put(obj, key, json_integer((json_int_t)(v > INT64_MAX ? INT64_MAX : v)));
}

static int put_names(json_t *o, const char *c, const char *m, const char *d)
{
    return put(o, "class", json_string(c)) | put(o, "method", json_string(m)) |
           put(o, "desc", json_string(d));
}

static json_t *node_json(const struct snode *n)
{
    json_t *o = json_object(), *kids = json_array();
    int rc;

    if (o == NULL || kids == NULL) {
        json_decref(o);
        json_decref(kids);
        return NULL;
    }
    rc = put_names(o, n->class_name, n->method, n->desc);
    rc |= put_int(o, "calls", n->calls) | put_int(o, "total_ns", n->total_ns) |
          put_int(o, "self_ns", n->self_ns) | put_int(o, "min_ns", n->min_ns) |
          put_int(o, "max_ns", n->max_ns) | put_int(o, "throws", n->throws) |
          put_int(o, "entries", n->entries) | put_int(o, "calls_min", n->calls_min) |
          put_int(o, "calls_max", n->calls_max) |
          put_int(o, "p50_ns", sum_hist_quantile(&n->hist, 0.50)) |
          put_int(o, "p90_ns", sum_hist_quantile(&n->hist, 0.90)) |
          put_int(o, "p99_ns", sum_hist_quantile(&n->hist, 0.99)) |
          put_int(o, "entry_max_ns", n->hist.max);
    if (n->truncated)
        rc |= put(o, "truncated", json_true());
    for (size_t i = 0; i < n->nkids && rc == 0; i++)
        rc = json_array_append_new(kids, node_json(n->kids[i]));
    rc |= put(o, "children", kids);
    if (rc != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static int cmp_slow_desc(const void *a, const void *b)
{
    const struct slow *x = a, *y = b;

    return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

json_t *sum_to_json(const sum *s, int final, mct_err *e)
{
    json_t *o = json_object(), *methods = json_array(), *slowest = json_array(), *more = NULL;
    struct slow *sorted = s->nheap > 0 ? malloc(s->nheap * sizeof *sorted) : NULL;
    int rc = o == NULL || methods == NULL || slowest == NULL || (s->nheap > 0 && sorted == NULL);

    if (rc == 0) {
        rc = put(o, "type", json_string("summary")) | put(o, "final", json_boolean(final)) |
             put_int(o, "calls", s->calls) | put_int(o, "not_traced", s->not_traced) |
             put(o, "root", s->top.nkids > 0 ? node_json(s->top.kids[0]) : json_null());
    }
    if (rc == 0 && s->top.nkids > 1) {
        rc = (more = json_array()) == NULL;
        for (size_t i = 1; i < s->top.nkids && rc == 0; i++)
            rc = json_array_append_new(more, node_json(s->top.kids[i]));
        if (rc == 0) {
            rc = put(o, "more_roots", more);
            more = NULL;
        }
    }
    for (size_t i = 0; i < s->nmethods && rc == 0; i++) {
        const struct smethod *m = s->methods[i];
        json_t *mo = json_object();

        rc = mo == NULL;
        if (rc == 0)
            rc = put_names(mo, m->class_name, m->method, m->desc) | put_int(mo, "calls", m->calls) |
                 put_int(mo, "calls_max", m->calls_max) | put_int(mo, "entries", m->entries);
        rc = json_array_append_new(methods, mo) < 0 || rc;
    }
    if (rc == 0 && s->nheap > 0) {
        memcpy(sorted, s->heap, s->nheap * sizeof *sorted);
        qsort(sorted, s->nheap, sizeof *sorted, cmp_slow_desc);
        for (size_t i = 0; i < s->nheap && rc == 0; i++)
            rc = json_array_append(slowest, sorted[i].call);
    }
    free(sorted);
    if (rc == 0) {
        rc = put(o, "methods", methods) | put(o, "slowest", slowest) | put_int(o, "warmup", s->warmup) |
             put_int(o, "seen", s->seen);
        methods = slowest = NULL;
    }
    json_decref(methods);
    json_decref(slowest);
    json_decref(more);
    if (rc != 0) {
        json_decref(o);
        mct_err_set(e, MCT_E_NOMEM, "out of memory writing the summary");
        return NULL;
    }
    return o;
}

/* ---- reading: checks of untrusted summaries and calls --------------------------- */

/* Where a check is, as "root.children[2].calls" (cut short when very deep). */
struct vpath {
    const char *what;           /* "summary", "call" */
    char buf[400];
    size_t len;
};

/* Appends a formatted component to p; returns the length to restore. */
static size_t vpush(struct vpath *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t vpush(struct vpath *p, const char *fmt, ...)
{
    size_t mark = p->len;
    va_list ap;
    int n;

    if (p->len + 1 >= sizeof p->buf)
        return mark;
    va_start(ap, fmt);
    n = vsnprintf(p->buf + p->len, sizeof p->buf - p->len, fmt, ap);
    va_end(ap);
    p->len = n < 0 ? p->len : p->len + (size_t)n >= sizeof p->buf ? sizeof p->buf - 1 : p->len + (size_t)n;
    return mark;
}

static void vpop(struct vpath *p, size_t mark)
{
    p->len = mark;
    p->buf[mark] = '\0';
}

/* Sets e to "<what>: <path>.<key>: <message>"; returns -1. */
static int vbad(mct_err *e, const struct vpath *p, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int vbad(mct_err *e, const struct vpath *p, const char *key, const char *fmt, ...)
{
    char msg[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (p->len == 0 && key == NULL)
        return mct_err_set(e, MCT_E_PROTO, "%s: %s", p->what, msg);
    return mct_err_set(e, MCT_E_PROTO, "%s: %s%s%s: %s", p->what, p->buf,
                       p->len > 0 && key != NULL ? "." : "", key != NULL ? key : "", msg);
}

/* obj[key] as an integer >= 0 into *v (optional: absent leaves *v). */
static int vint(const json_t *obj, const char *key, int optional, uint64_t *v, const struct vpath *p,
                mct_err *e)
{
    const json_t *j = json_object_get(obj, key);

    if (j == NULL) {
        if (optional)
            return 0;
        return vbad(e, p, key, "missing (an integer >= 0)");
    }
    if (!json_is_integer(j) || json_integer_value(j) < 0)
        return vbad(e, p, key, "not an integer >= 0");
    *v = (uint64_t)json_integer_value(j);
    return 0;
}

/* obj[key] as a non-empty string of at most 65535 bytes. */
static int vstr(const json_t *obj, const char *key, int optional, const struct vpath *p, mct_err *e)
{
    const json_t *j = json_object_get(obj, key);

    if (j == NULL)
        return optional ? 0 : vbad(e, p, key, "missing (a string)");
    if (!json_is_string(j))
        return vbad(e, p, key, "not a string");
    if (json_string_length(j) == 0 || json_string_length(j) > 65535)
        return vbad(e, p, key, "a string of %zu bytes, not 1 to 65535", json_string_length(j));
    if (strlen(json_string_value(j)) != json_string_length(j))
        return vbad(e, p, key, "holds a NUL character");
    return 0;
}

/* obj[key], when present, is a boolean. */
static int vbool(const json_t *obj, const char *key, int optional, const struct vpath *p, mct_err *e)
{
    const json_t *j = json_object_get(obj, key);

    if (j == NULL)
        return optional ? 0 : vbad(e, p, key, "missing (true or false)");
    return json_is_boolean(j) ? 0 : vbad(e, p, key, "not true or false");
}

/* Checks a node at depth (1 = root) of a summary of summary_calls entry
 * calls. (A call's nodes are call_from_json's.) */
static int vnode(const json_t *n, int depth, long long summary_calls, struct vpath *p, mct_err *e)
{
    static const char *const ints[] = { "calls", "total_ns", "self_ns", "min_ns", "max_ns", "throws" };
    const json_t *kids;
    uint64_t v, entries, cmin, cmax, p50, p90, p99, emax;

    if (!json_is_object(n))
        return vbad(e, p, NULL, "not an object (a node)");
    if (depth > PROTO_MAX_DEPTH)
        return vbad(e, p, NULL, "nested deeper than %d levels", PROTO_MAX_DEPTH);
    if (vstr(n, "class", 0, p, e) < 0 || vstr(n, "method", 0, p, e) < 0 ||
        vstr(n, "desc", 0, p, e) < 0 || vstr(n, "exception", 1, p, e) < 0 ||
        vbool(n, "truncated", 1, p, e) < 0)
        return -1;
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (vint(n, ints[i], 0, &v, p, e) < 0)
            return -1;
    if (vint(n, "entries", 0, &entries, p, e) < 0 || vint(n, "calls_min", 0, &cmin, p, e) < 0 ||
        vint(n, "calls_max", 0, &cmax, p, e) < 0 || vint(n, "p50_ns", 0, &p50, p, e) < 0 ||
        vint(n, "p90_ns", 0, &p90, p, e) < 0 || vint(n, "p99_ns", 0, &p99, p, e) < 0 ||
        vint(n, "entry_max_ns", 0, &emax, p, e) < 0)
        return -1;
    if (entries < 1 || entries > (uint64_t)summary_calls)
        return vbad(e, p, "entries", "%llu, not between 1 and the summary's calls (%lld)",
                    (unsigned long long)entries, summary_calls);
    if (cmin > cmax)
        return vbad(e, p, "calls_min", "%llu, more than calls_max (%llu)",
                    (unsigned long long)cmin, (unsigned long long)cmax);
    if (p50 > p90 || p90 > p99 || p99 > emax)
        return vbad(e, p, "p50_ns", "p50_ns <= p90_ns <= p99_ns <= entry_max_ns does not hold");
    kids = json_object_get(n, "children");
    if (kids == NULL)
        return vbad(e, p, "children", "missing (an array of nodes)");
    if (!json_is_array(kids))
        return vbad(e, p, "children", "not an array");
    for (size_t i = 0; i < json_array_size(kids); i++) {
        size_t mark = vpush(p, "%schildren[%zu]", p->len > 0 ? "." : "", i);

        if (vnode(json_array_get(kids, i), depth + 1, summary_calls, p, e) < 0)
            return -1;
        vpop(p, mark);
    }
    return 0;
}

/* The "type" of obj is want. */
static int vtype(const json_t *obj, const char *want, const struct vpath *p, mct_err *e)
{
    const json_t *t = json_object_get(obj, "type");

    if (!json_is_object(obj))
        return vbad(e, p, NULL, "not a JSON object");
    if (t == NULL)
        return vbad(e, p, "type", "missing (\"%s\")", want);
    if (!json_is_string(t) || strcmp(json_string_value(t), want) != 0)
        return vbad(e, p, "type", "not \"%s\"", want);
    return 0;
}

int sum_json_check(const json_t *j, mct_err *e)
{
    struct vpath p = { .what = "summary" };
    const json_t *root, *arr;
    uint64_t calls, v;

    if (vtype(j, "summary", &p, e) < 0 || vbool(j, "final", 0, &p, e) < 0 ||
        vint(j, "calls", 0, &calls, &p, e) < 0 || vint(j, "not_traced", 0, &v, &p, e) < 0 ||
        vint(j, "warmup", 1, &v, &p, e) < 0 || vint(j, "seen", 1, &v, &p, e) < 0)
        return -1;
    root = json_object_get(j, "root");
    if (root == NULL)
        return vbad(e, &p, "root", "missing (a node, or null when calls is 0)");
    if (json_is_null(root) != (calls == 0))
        return vbad(e, &p, "root", calls == 0 ? "not null although calls is 0" :
                    "null although calls is %llu", (unsigned long long)calls);
    if (!json_is_null(root)) {
        size_t mark = vpush(&p, "root");

        if (vnode(root, 1, (long long)calls, &p, e) < 0)
            return -1;
        vpop(&p, mark);
    }
    arr = json_object_get(j, "more_roots");
    if (arr != NULL && (!json_is_array(arr) || json_is_null(root)))
        return vbad(e, &p, "more_roots", "not an array of nodes after a root");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        size_t mark = vpush(&p, "more_roots[%zu]", i);

        if (vnode(json_array_get(arr, i), 1, (long long)calls, &p, e) < 0)
            return -1;
        vpop(&p, mark);
    }
    arr = json_object_get(j, "methods");
    if (arr == NULL || !json_is_array(arr))
        return vbad(e, &p, "methods", arr == NULL ? "missing (an array)" : "not an array");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *m = json_array_get(arr, i);
        size_t mark = vpush(&p, "methods[%zu]", i);
        uint64_t mc, cmax, entries;

        if (!json_is_object(m))
            return vbad(e, &p, NULL, "not an object");
        if (vstr(m, "class", 0, &p, e) < 0 || vstr(m, "method", 0, &p, e) < 0 ||
            vstr(m, "desc", 0, &p, e) < 0 || vint(m, "calls", 0, &mc, &p, e) < 0 ||
            vint(m, "calls_max", 0, &cmax, &p, e) < 0 || vint(m, "entries", 0, &entries, &p, e) < 0)
            return -1;
        if (cmax > mc)
            return vbad(e, &p, "calls_max", "%llu, more than calls (%llu)",
                        (unsigned long long)cmax, (unsigned long long)mc);
        if (entries > calls)
            return vbad(e, &p, "entries", "%llu, more than the summary's calls (%llu)",
                        (unsigned long long)entries, (unsigned long long)calls);
        vpop(&p, mark);
    }
    arr = json_object_get(j, "slowest");
    if (arr == NULL || !json_is_array(arr))
        return vbad(e, &p, "slowest", arr == NULL ? "missing (an array)" : "not an array");
    if (json_array_size(arr) > SUM_SLOWEST_MAX || json_array_size(arr) > calls)
        return vbad(e, &p, "slowest", "%zu calls, more than %s", json_array_size(arr),
                    json_array_size(arr) > calls ? "the summary's calls" : "a summary keeps");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        char at[32];

        snprintf(at, sizeof at, "slowest[%zu]", i);
        if (call_json_check_at(json_array_get(arr, i), "summary", at, e) < 0)
            return -1;
    }
    return 0;
}

/* Feeds node *i of c and its subtree to the visitor; *i moves past them. */
static int add_node(sum *s, const call_tab *t, const mct_call *c, size_t *i, mct_err *e)
{
    const struct call_node *nd = &c->nodes[(*i)++];
    const struct call_method *m = call_tab_get(t, nd->method);
    struct sum_fig f = {
        .class_name = m->cls, .method = m->name, .desc = m->desc,
        .calls = nd->calls, .total_ns = nd->total_ns, .self_ns = nd->self_ns,
        .min_ns = nd->min_ns, .max_ns = nd->max_ns, .throws = nd->throws,
        .truncated = (nd->flags & CALL_N_TRUNCATED) != 0,
    };

    if (sum_enter(s, &f, e) < 0)
        return -1;
    for (uint32_t k = 0; k < nd->n_children; k++)
        if (add_node(s, t, c, i, e) < 0)
            return -1;
    return sum_leave(s, e);
}

int sum_add_call(sum *s, const call_tab *t, const mct_call *c, mct_err *e)
{
    uint64_t total = c->nodes[0].total_ns;
    size_t i = 0;
    json_t *j;
    int rc;

    if (sum_begin(s, e) < 0 || add_node(s, t, c, &i, e) < 0 || sum_end(s, e) < 0)
        return -1;
    if (!sum_slowest_wants(s, total))
        return 0;
    j = call_json(t, c);
    if (j == NULL)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory keeping one of the slowest calls");
    rc = sum_slowest_offer(s, total, j, e);
    json_decref(j);
    return rc;
}
