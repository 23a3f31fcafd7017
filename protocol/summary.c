/* summary.c — see summary.h. */
#include "summary.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "kit.h"
#include "proto.h"

/* What a summary's JSON holds besides its nodes, methods and slowest: a
 * few keys and numbers. */
#define SUM_JSON_TOP 1024
_Static_assert(SUM_JSON_BUDGET + SUM_SLOWEST_JSON_MAX + SUM_JSON_TOP < PROTO_MAX_REPLY,
               "a summary's JSON must fit a reply");

/* ---- histogram ------------------------------------------------------------ */

_Static_assert(SUM_HIST_GROUPS * SUM_HIST_SUB <= (1u << (64 - SUM_HIST_CNT_BITS)),
               "a bucket's index must fit above its count");

#define HIST_IDX(w) ((unsigned)((w) >> SUM_HIST_CNT_BITS))
#define HIST_CNT(w) ((w) & SUM_HIST_CNT_MAX)
#define HIST_WORD(idx, n) ((uint64_t)(idx) << SUM_HIST_CNT_BITS | (n))

void sum_hist_init(struct sum_hist *h)
{
    memset(h, 0, sizeof *h);
}

void sum_hist_reset(struct sum_hist *h)
{
    free(h->b);
    sum_hist_init(h);
}

/* The index (group * SUM_HIST_SUB + bucket) of value v's bucket: group 0
 * holds 0..127 exactly, group g >= 1 the power of two 2^(g+6). */
static unsigned hist_index(uint64_t v)
{
    int k;

    if (v < SUM_HIST_SUB)
        return (unsigned)v;
    k = 63 - __builtin_clzll(v);            /* 2^k <= v < 2^(k+1), k >= 7 */
    return (unsigned)(k - SUM_HIST_SUB_BITS + 1) * SUM_HIST_SUB +
           (unsigned)((v >> (k - SUM_HIST_SUB_BITS)) - SUM_HIST_SUB);
}

/* The lowest value of the bucket at idx, and the bucket's width. */
static void hist_bucket(unsigned idx, uint64_t *lo, uint64_t *width)
{
    unsigned g = idx / SUM_HIST_SUB, b = idx % SUM_HIST_SUB;

    if (g == 0) {
        *lo = b;
        *width = 1;
        return;
    }
    *width = (uint64_t)1 << (g - 1);
    *lo = ((uint64_t)SUM_HIST_SUB + b) << (g - 1);
}

/* Where idx is, or would go, among h's buckets; 1 when it is there. */
static int hist_find(const struct sum_hist *h, unsigned idx, uint32_t *pos)
{
    uint32_t lo = 0, hi = h->n;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (HIST_IDX(h->b[mid]) < idx)
            lo = mid + 1;
        else
            hi = mid;
    }
    *pos = lo;
    return lo < h->n && HIST_IDX(h->b[lo]) == idx;
}

/* Adds n to the count of the bucket at pos (saturated). */
static void hist_bump(struct sum_hist *h, uint32_t pos, uint64_t n)
{
    uint64_t c = HIST_CNT(h->b[pos]);

    c = n > SUM_HIST_CNT_MAX - c ? SUM_HIST_CNT_MAX : c + n;
    h->b[pos] = HIST_WORD(HIST_IDX(h->b[pos]), c);
}

/* Room for one more bucket; *grown: the bytes it took (0 when there was
 * room). 0, or -1 with e set. */
static int hist_room(struct sum_hist *h, size_t *grown, mct_err *e)
{
    size_t cap = h->cap;

    *grown = 0;
    if (h->n < h->cap)
        return 0;
    if (buf_grow(&h->b, &cap, h->n, sizeof *h->b, 4) < 0)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory for a histogram");
    *grown = (cap - h->cap) * sizeof *h->b;
    h->cap = (uint32_t)cap;
    return 0;
}

/* Adds n samples to the bucket at idx, which is at pos or goes there. */
static void hist_put(struct sum_hist *h, uint32_t pos, int found, unsigned idx, uint64_t n)
{
    if (!found) {
        memmove(h->b + pos + 1, h->b + pos, (h->n - pos) * sizeof *h->b);
        h->b[pos] = HIST_WORD(idx, 0);
        h->n++;
    }
    hist_bump(h, pos, n);
}

/* Notes min, max and the count of n samples of values lo..hi. */
static void hist_note(struct sum_hist *h, uint64_t lo, uint64_t hi, uint64_t n)
{
    if (h->count == 0 || lo < h->min)
        h->min = lo;
    if (h->count == 0 || hi > h->max)
        h->max = hi;
    h->count = n > UINT64_MAX - h->count ? UINT64_MAX : h->count + n;
}

int sum_hist_record(struct sum_hist *h, uint64_t v, mct_err *e)
{
    unsigned idx;
    uint32_t pos;
    size_t grown;
    int found;

    if (v > INT64_MAX)
        v = INT64_MAX;
    idx = hist_index(v);
    found = hist_find(h, idx, &pos);
    if (!found && hist_room(h, &grown, e) < 0)
        return -1;
    hist_put(h, pos, found, idx, 1);
    hist_note(h, v, v, 1);
    return 0;
}

int sum_hist_merge(struct sum_hist *dst, const struct sum_hist *src, mct_err *e)
{
    size_t grown;

    for (uint32_t i = 0; i < src->n; i++) {
        unsigned idx = HIST_IDX(src->b[i]);
        uint32_t pos;
        int found = hist_find(dst, idx, &pos);

        if (!found && hist_room(dst, &grown, e) < 0)
            return -1;
        hist_put(dst, pos, found, idx, HIST_CNT(src->b[i]));
    }
    if (src->count > 0)
        hist_note(dst, src->min, src->max, src->count);
    return 0;
}

void sum_hist_rank_bounds(const struct sum_hist *h, uint64_t rank, uint64_t *lo, uint64_t *hi)
{
    uint64_t seen = 0;

    *lo = h->min;
    *hi = h->max;
    for (uint32_t i = 0; i < h->n; i++) {
        uint64_t blo, width;

        seen += HIST_CNT(h->b[i]);
        if (seen < rank)
            continue;
        hist_bucket(HIST_IDX(h->b[i]), &blo, &width);
        if (blo > *lo && blo <= h->max)
            *lo = blo;
        if (blo + width - 1 < *hi && blo + width - 1 >= h->min)
            *hi = blo + width - 1;
        return;
    }
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
    for (uint32_t i = 0; i < h->n; i++) {
        uint64_t lo, width;

        seen += HIST_CNT(h->b[i]);
        if (seen < rank)
            continue;
        /* min and max are samples: exact where the bucket holds them */
        hist_bucket(HIST_IDX(h->b[i]), &lo, &width);
        if (h->min >= lo && h->min - lo < width)
            return h->min;
        if (h->max >= lo && h->max - lo < width)
            return h->max;
        /* a sample counted in a bucket near its own (summary.h: coarse)
         * may lie outside it */
        lo += width / 2;
        return lo > h->max ? h->max : lo < h->min ? h->min : lo;
    }
    return h->max;
}

/* ---- the summary tree ------------------------------------------------------ */

const struct sum_xkeys sum_xkeys[SUM_X_N] = {
    [SUM_X_CPU] = { CALL_F_CPU, 1, "cpu", "cpu_ns", "wait_ns", "cpu_p50_ns", "cpu_p90_ns", "cpu_p99_ns",
                    "cpu_entry_min_ns", "cpu_entry_max_ns", "cpu_hist" },
    [SUM_X_ALLOC] = { CALL_F_ALLOC, 0, "alloc", "alloc_bytes", NULL, "alloc_p50_bytes", "alloc_p90_bytes",
                      "alloc_p99_bytes", "alloc_entry_min_bytes", "alloc_entry_max_bytes", "alloc_hist" },
};

/* The CALL_F_* of every figure of sum_xkeys. */
#define XFLAGS (CALL_F_CPU | CALL_F_ALLOC)

struct smethod {
    char *class_name, *method, *desc;
    size_t idx;                 /* in s->methods */
    size_t jlen;                /* its names' JSON text, at most */
    uint64_t calls, calls_max, entries;
    uint64_t epoch, cur;        /* cur: its calls in the entry call of that epoch */
};

struct snode {
    struct smethod *m;          /* NULL for the top and for other nodes */
    struct snode *parent;       /* NULL for a root */
    struct snode *first, *last, *next;  /* children in order of first appearance */
    struct snode *other;        /* the child that holds the paths past the budget */
    uint64_t calls, total_ns, self_ns, min_ns, max_ns, throws;
    uint64_t entries, calls_min, calls_max;
    uint64_t epoch, cur_calls, cur_total;
    struct sum_hist hist;       /* its total_ns per entry call */
    struct sum_hist chist;      /* its calls per entry call */
    struct {
        uint64_t sum, cur;      /* over all calls; within the entry call of epoch */
        struct sum_hist hist;   /* per entry call, when the calls carry it */
    } x[SUM_X_N];               /* the figures of sum_xkeys */
    unsigned truncated : 1, seen : 1, is_other : 1;
};

struct slow {
    uint64_t ns;
    char *json;                 /* the call's compact JSON (malloc'd) */
    size_t size;                /* its bytes */
};

struct sum {
    size_t k;
    uint64_t calls, not_traced;
    uint64_t warmup;            /* warm-up calls of the interval (sum_add_warmup) */
    uint64_t seen;              /* entry calls seen, traced or not (sum_add_seen) */
    uint64_t folded;            /* calls folded into other nodes */
    uint64_t coarse;            /* samples counted in a bucket near theirs */
    int64_t span_start, span_end; /* wall-clock ns covered (sum_set_span) */
    unsigned xhave, xlack;      /* the figures (XFLAGS) some call carried, some lacked */
    unsigned xcur;              /* those the call being added carries */
    size_t bytes, json;         /* charged to the budget: memory, JSON text */
    struct snode top;           /* unnamed; its children are the roots */
    struct smethod **methods;   /* in order of first appearance */
    size_t nmethods, capmethods;
    kit_table method_index;     /* names -> struct smethod * */
    kit_table node_index;       /* (parent, method) -> struct snode * */
    struct snode **touched;     /* nodes of the current entry call */
    size_t ntouched, captouched;
    struct smethod **mtouched;  /* methods of the current entry call */
    size_t nmtouched, capmtouched;
    uint64_t epoch;             /* the entry call being added, from 1 */
    int in_call, depth, roots_entered;
    int counts_only;            /* the call being added counts in methods only (sum_count_call) */
    struct snode *stack[PROTO_MAX_DEPTH + 1];
    struct slow *heap;          /* min-heap by ns, k slots */
    size_t nheap;
    size_t slow_json;           /* the heap's calls' JSON, in bytes */
};

/* A node's share of the budget: itself and the first buckets of its
 * histograms, two and one per figure the calls carry (blocks of the
 * allocator, ALLOC_BYTES each besides), twice (for the other node it may
 * get), and its slot in the index; a method's; the JSON of a node (keys,
 * punctuation, 13 numbers of up to 19 digits, and 7 more a figure) and of
 * a method, names aside. */
#define ALLOC_BYTES 16
#define NODE_BUCKETS 4
#define HIST_BYTES (NODE_BUCKETS * sizeof(uint64_t) + ALLOC_BYTES)
#define NODE_BYTES(nx) (2 * (sizeof(struct snode) + (2 + (nx)) * HIST_BYTES + ALLOC_BYTES) + 64)
#define METHOD_BYTES (sizeof(struct smethod) + 4 * ALLOC_BYTES + 64 + sizeof(struct smethod *))
#define NODE_JSON(nx) (640 + (nx) * 280)
#define BUCKET_JSON 42          /* index,count, of up to 20 digits each */
#define METHOD_JSON 160

/* a + b, saturated at INT64_MAX so that every figure fits a JSON integer. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > INT64_MAX - (b > INT64_MAX ? INT64_MAX : b) ? INT64_MAX : a + b;
}

/* Whether s has spent its budget: a new path folds, a new bucket is not
 * made. */
static int over_budget(const sum *s)
{
    return s->bytes >= SUM_BUDGET_BYTES || s->json >= SUM_JSON_BUDGET;
}

/* Adds n samples to bucket idx of node histogram h, within s's budget:
 * past it, into the nearest bucket h has (counted coarse). 0 or -1 with e. */
static int node_hist_add(sum *s, struct sum_hist *h, unsigned idx, uint64_t n, mct_err *e)
{
    uint32_t pos;
    size_t grown = 0;
    int found = hist_find(h, idx, &pos);

    if (!found && h->n == h->cap && h->cap >= NODE_BUCKETS && over_budget(s)) {
        if (pos == h->n || (pos > 0 && idx - HIST_IDX(h->b[pos - 1]) <= HIST_IDX(h->b[pos]) - idx))
            pos--;
        hist_bump(h, pos, n);
        s->coarse = sat_add(s->coarse, n);
        return 0;
    }
    if (!found && hist_room(h, &grown, e) < 0)
        return -1;
    if (h->cap > NODE_BUCKETS)
        s->bytes += grown;
    if (!found)
        s->json += BUCKET_JSON;
    hist_put(h, pos, found, idx, n);
    return 0;
}

/* Records v in node histogram h (node_hist_add). */
static int node_hist_record(sum *s, struct sum_hist *h, uint64_t v, mct_err *e)
{
    if (v > INT64_MAX)
        v = INT64_MAX;
    if (node_hist_add(s, h, hist_index(v), 1, e) < 0)
        return -1;
    hist_note(h, v, v, 1);
    return 0;
}

/* Adds src to node histogram dst (node_hist_add). */
static int node_hist_merge(sum *s, struct sum_hist *dst, const struct sum_hist *src, mct_err *e)
{
    for (uint32_t i = 0; i < src->n; i++)
        if (node_hist_add(s, dst, HIST_IDX(src->b[i]), HIST_CNT(src->b[i]), e) < 0)
            return -1;
    if (src->count > 0)
        hist_note(dst, src->min, src->max, src->count);
    return 0;
}

/* Makes room for one more pointer in *arr (n used, *cap allocated). */
static int grow(void *arr, size_t n, size_t *cap, mct_err *e)
{
    if (buf_grow(arr, cap, n, sizeof(void *), 8) < 0)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory for the summary");
    return 0;
}

/* The bytes of s as a JSON string's contents, at most. */
static size_t json_len(const char *s)
{
    size_t n = 0;

    for (; *s != '\0'; s++)
        n += *s == '"' || *s == '\\' ? 2 : (unsigned char)*s < 0x20 ? 6 : 1;
    return n;
}

/* The hash of a method's names. */
static uint64_t names_hash(const char *c, const char *m, const char *d)
{
    return kit_hash_str(d, kit_hash_str(m, kit_hash_str(c, 0)));
}

/* The hash of a node's key: its parent (NULL for a root) and its method. */
static uint64_t node_hash(const struct snode *parent, const struct smethod *m)
{
    return kit_hash_u64(kit_hash_u64((uintptr_t)parent) + (uintptr_t)m);
}

/* The method (class, method, desc), added when new; NULL with e set. */
static struct smethod *method_get(sum *s, const char *c, const char *m, const char *d, mct_err *e)
{
    uint64_t h = names_hash(c, m, d);
    struct smethod *sm;
    kit_cursor cur;

    for (uintptr_t v = kit_table_first(&s->method_index, h, &cur); v != 0;
         v = kit_table_next(&s->method_index, &cur)) {
        sm = (struct smethod *)v;
        if (strcmp(sm->method, m) == 0 && strcmp(sm->class_name, c) == 0 && strcmp(sm->desc, d) == 0)
            return sm;
    }
    if (grow(&s->methods, s->nmethods, &s->capmethods, e) < 0)
        return NULL;
    if (kit_table_reserve(&s->method_index, s->nmethods + 1) < 0 || (sm = calloc(1, sizeof *sm)) == NULL) {
        mct_err_set(e, MCT_E_NOMEM, "out of memory for the summary");
        return NULL;
    }
    sm->class_name = strdup(c);
    sm->method = strdup(m);
    sm->desc = strdup(d);
    if (sm->class_name == NULL || sm->method == NULL || sm->desc == NULL) {
        free(sm->class_name);
        free(sm->method);
        free(sm->desc);
        free(sm);
        mct_err_set(e, MCT_E_NOMEM, "out of memory for the summary");
        return NULL;
    }
    sm->idx = s->nmethods;
    sm->jlen = json_len(c) + json_len(m) + json_len(d);
    s->bytes += METHOD_BYTES + strlen(c) + strlen(m) + strlen(d) + 3;
    s->json += METHOD_JSON + sm->jlen;
    s->methods[s->nmethods++] = sm;
    kit_table_add(&s->method_index, h, (uintptr_t)sm);     /* room reserved above */
    return sm;
}

/* Appends n to parent's children. */
static void add_kid(struct snode *parent, struct snode *n)
{
    if (parent->last != NULL)
        parent->last->next = n;
    else
        parent->first = n;
    parent->last = n;
}

/* The other node under parent (not the top), made when new (its memory was
 * charged with parent); NULL with e set. */
static struct snode *other_get(struct snode *parent, mct_err *e)
{
    struct snode *n;

    if (parent->other != NULL)
        return parent->other;
    n = calloc(1, sizeof *n);
    if (n == NULL) {
        mct_err_set(e, MCT_E_NOMEM, "out of memory for the summary");
        return NULL;
    }
    n->is_other = 1;
    n->parent = parent;
    add_kid(parent, n);
    parent->other = n;
    return n;
}

/* parent's child for method m, added last when new; past the budget,
 * parent's other node instead (the entry method's roots are always
 * added). NULL with e set. */
static struct snode *child_get(sum *s, struct snode *parent, struct smethod *m, mct_err *e)
{
    struct snode *pkey = parent == &s->top ? NULL : parent;
    uint64_t h = node_hash(pkey, m);
    struct snode *n;
    kit_cursor cur;
    size_t nx;                  /* the figures the calls carry */

    for (uintptr_t v = kit_table_first(&s->node_index, h, &cur); v != 0;
         v = kit_table_next(&s->node_index, &cur)) {
        n = (struct snode *)v;
        if (n->parent == pkey && n->m == m)
            return n;
    }
    if (pkey != NULL && over_budget(s))
        return other_get(parent, e);
    if (kit_table_reserve(&s->node_index, s->node_index.n + 1) < 0 || (n = calloc(1, sizeof *n)) == NULL) {
        mct_err_set(e, MCT_E_NOMEM, "out of memory for the summary");
        return NULL;
    }
    n->m = m;
    n->parent = pkey;
    add_kid(parent, n);
    kit_table_add(&s->node_index, h, (uintptr_t)n);        /* room reserved above */
    nx = __builtin_popcount(s->xhave);
    s->bytes += NODE_BYTES(nx);
    s->json += 2 * NODE_JSON(nx) + m->jlen + strlen(SUM_OTHER_CLASS SUM_OTHER_METHOD SUM_OTHER_DESC);
    return n;
}

/* Frees node's subtree (node itself when not the top). */
static void node_free(struct snode *n, int top)
{
    struct snode *k = n->first;

    while (k != NULL) {
        struct snode *next = k->next;

        node_free(k, 0);
        k = next;
    }
    sum_hist_reset(&n->hist);
    sum_hist_reset(&n->chist);
    for (int x = 0; x < SUM_X_N; x++)
        sum_hist_reset(&n->x[x].hist);
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
        free(s->heap[i].json);
    s->nheap = 0;
    s->slow_json = 0;
    s->ntouched = s->nmtouched = 0;
    s->calls = s->not_traced = s->warmup = s->seen = s->folded = s->coarse = 0;
    s->span_start = s->span_end = 0;
    s->xhave = s->xlack = 0;
    s->bytes = s->json = 0;
    s->in_call = s->depth = s->roots_entered = 0;
}

void sum_set_span(sum *s, int64_t start_ns, int64_t end_ns)
{
    s->span_start = start_ns;
    s->span_end = end_ns;
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

uint64_t sum_folded(const sum *s)
{
    return s->folded;
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

/* Method m is in the current entry call: listed once, its count from 0. */
static int method_touch(sum *s, struct smethod *m, mct_err *e)
{
    if (m->epoch != s->epoch) {
        if (grow(&s->mtouched, s->nmtouched, &s->capmtouched, e) < 0)
            return -1;
        s->mtouched[s->nmtouched++] = m;
        m->epoch = s->epoch;
        m->cur = 0;
    }
    return 0;
}

int sum_enter(sum *s, const struct sum_fig *f, mct_err *e)
{
    struct snode *parent, *n;
    struct smethod *m;
    int inner;                  /* below the call where its path left the kept ones */

    if (!s->in_call)
        return mct_err_set(e, MCT_E_INTERNAL, "summary: a node entered outside a call");
    if (s->depth == 0 && s->roots_entered++ > 0)
        return mct_err_set(e, MCT_E_INTERNAL, "summary: a call with two roots");
    if (s->depth >= PROTO_MAX_DEPTH)
        return mct_err_set(e, MCT_E_PROTO, "summary: a call tree deeper than %d levels",
                           PROTO_MAX_DEPTH);
    parent = s->depth == 0 ? &s->top : s->stack[s->depth - 1];
    if (s->depth == 0 && !s->counts_only) {
        s->xcur = f->xflags & XFLAGS;
        s->xhave |= s->xcur;
        s->xlack |= ~s->xcur & XFLAGS;
    }
    m = method_get(s, f->class_name, f->method, f->desc, e);
    if (m == NULL)
        return -1;
    if (s->counts_only) {
        if (method_touch(s, m, e) < 0)
            return -1;
        m->calls = sat_add(m->calls, f->calls);
        m->cur = sat_add(m->cur, f->calls);
        s->stack[s->depth++] = parent; /* for the depth only: no node is touched */
        return 0;
    }
    inner = parent->is_other;
    n = inner ? parent : child_get(s, parent, m, e);
    if (n == NULL)
        return -1;
    if (n->epoch != s->epoch) {
        if (grow(&s->touched, s->ntouched, &s->captouched, e) < 0)
            return -1;
        s->touched[s->ntouched++] = n;
        n->epoch = s->epoch;
        n->cur_calls = n->cur_total = 0;
        for (int x = 0; x < SUM_X_N; x++)
            n->x[x].cur = 0;
    }
    if (method_touch(s, m, e) < 0)
        return -1;
    if (!inner) {
        if (!n->seen || f->min_ns < n->min_ns)
            n->min_ns = f->min_ns;
        if (!n->seen || f->max_ns > n->max_ns)
            n->max_ns = f->max_ns;
        n->seen = 1;
        n->total_ns = sat_add(n->total_ns, f->total_ns);
        n->cur_total = sat_add(n->cur_total, f->total_ns);
        for (int x = 0; x < SUM_X_N; x++) {
            n->x[x].sum = sat_add(n->x[x].sum, f->x[x]);
            n->x[x].cur = sat_add(n->x[x].cur, f->x[x]);
        }
    }
    if (n->is_other)
        s->folded = sat_add(s->folded, f->calls);
    n->calls = sat_add(n->calls, f->calls);
    n->self_ns = sat_add(n->self_ns, f->self_ns);
    n->throws = sat_add(n->throws, f->throws);
    n->truncated |= f->truncated != 0;
    n->cur_calls = sat_add(n->cur_calls, f->calls);
    m->calls = sat_add(m->calls, f->calls);
    m->cur = sat_add(m->cur, f->calls);
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
    for (size_t i = 0; i < s->ntouched && !s->counts_only; i++) {
        struct snode *n = s->touched[i];

        if (n->entries == 0 || n->cur_calls < n->calls_min)
            n->calls_min = n->cur_calls;
        if (n->entries == 0 || n->cur_calls > n->calls_max)
            n->calls_max = n->cur_calls;
        n->entries++;
        if (node_hist_record(s, &n->hist, n->cur_total, e) < 0 ||
            node_hist_record(s, &n->chist, n->cur_calls, e) < 0)
            return -1;
        for (int x = 0; x < SUM_X_N; x++)
            if ((s->xcur & sum_xkeys[x].flag) && node_hist_record(s, &n->x[x].hist, n->x[x].cur, e) < 0)
                return -1;
    }
    for (size_t i = 0; i < s->nmtouched; i++) {
        struct smethod *m = s->mtouched[i];

        if (m->cur > m->calls_max)
            m->calls_max = m->cur;
        m->entries++;
    }
    s->calls += !s->counts_only;
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

/* Keeps json (a call's compact JSON of size bytes, stolen) among the
 * slowest when it is one of them and fits SUM_SLOWEST_JSON_MAX, else frees
 * it. */
static void slowest_keep(sum *s, uint64_t total_ns, char *json, size_t size)
{
    size_t i, out;

    out = s->nheap == s->k ? s->heap[0].size + 1 : 0;
    if (!sum_slowest_wants(s, total_ns) || s->slow_json - out + size + 1 > SUM_SLOWEST_JSON_MAX) {
        free(json);
        return;
    }
    s->slow_json = s->slow_json - out + size + 1;
    if (s->nheap == s->k) {
        free(s->heap[0].json);
        s->heap[0] = (struct slow){ total_ns, json, size };
        heap_down(s->heap, s->nheap, 0);
        return;
    }
    i = s->nheap++;
    s->heap[i] = (struct slow){ total_ns, json, size };
    while (i > 0 && s->heap[(i - 1) / 2].ns > s->heap[i].ns) {
        heap_swap(&s->heap[(i - 1) / 2], &s->heap[i]);
        i = (i - 1) / 2;
    }
}

void sum_slowest_limit(sum *s, size_t k)
{
    if (k >= s->k)
        return;
    while (s->nheap > k) {
        s->slow_json -= s->heap[0].size + 1;
        free(s->heap[0].json);
        s->heap[0] = s->heap[--s->nheap];
        heap_down(s->heap, s->nheap, 0);
    }
    s->k = k;
}

/* ---- merge ------------------------------------------------------------------ */

/* Adds the figures of src to d, which holds the same path (or the other
 * node it folds into); entries at most max_entries. */
static int node_add(sum *dst, struct snode *d, const struct snode *src, uint64_t max_entries, mct_err *e)
{
    if (!d->seen || src->min_ns < d->min_ns)
        d->min_ns = src->min_ns;
    if (!d->seen || src->max_ns > d->max_ns)
        d->max_ns = src->max_ns;
    d->seen |= src->seen;
    d->calls = sat_add(d->calls, src->calls);
    d->total_ns = sat_add(d->total_ns, src->total_ns);
    d->self_ns = sat_add(d->self_ns, src->self_ns);
    d->throws = sat_add(d->throws, src->throws);
    d->truncated |= src->truncated;
    if (src->entries > 0) {
        if (d->entries == 0 || src->calls_min < d->calls_min)
            d->calls_min = src->calls_min;
        if (d->entries == 0 || src->calls_max > d->calls_max)
            d->calls_max = src->calls_max;
    }
    d->entries = sat_add(d->entries, src->entries);
    if (d->entries > max_entries)
        d->entries = max_entries;
    for (int x = 0; x < SUM_X_N; x++) {
        d->x[x].sum = sat_add(d->x[x].sum, src->x[x].sum);
        if (node_hist_merge(dst, &d->x[x].hist, &src->x[x].hist, e) < 0)
            return -1;
    }
    if (node_hist_merge(dst, &d->hist, &src->hist, e) < 0)
        return -1;
    return node_hist_merge(dst, &d->chist, &src->chist, e);
}

/* Adds the subtree under src, which folds into dst's other node o: its
 * calls, self time and throws. */
static void node_fold(sum *dst, struct snode *o, const struct snode *src)
{
    for (const struct snode *sk = src->first; sk != NULL; sk = sk->next) {
        o->calls = sat_add(o->calls, sk->calls);
        o->self_ns = sat_add(o->self_ns, sk->self_ns);
        o->throws = sat_add(o->throws, sk->throws);
        o->truncated |= sk->truncated;
        if (!sk->is_other)
            dst->folded = sat_add(dst->folded, sk->calls);
        node_fold(dst, o, sk);
    }
}

/* Adds src's children to d's, within dst's budget. */
static int node_merge(sum *dst, struct snode *d, const struct snode *src, uint64_t max_entries, mct_err *e)
{
    for (const struct snode *sk = src->first; sk != NULL; sk = sk->next) {
        struct snode *dk;

        if (sk->is_other) {
            dk = other_get(d, e);
        } else {
            struct smethod *m = method_get(dst, sk->m->class_name, sk->m->method, sk->m->desc, e);

            dk = m == NULL ? NULL : child_get(dst, d, m, e);
        }
        if (dk == NULL || node_add(dst, dk, sk, max_entries, e) < 0)
            return -1;
        if (dk->is_other) {
            if (!sk->is_other)
                dst->folded = sat_add(dst->folded, sk->calls);
            node_fold(dst, dk, sk);
        } else if (node_merge(dst, dk, sk, max_entries, e) < 0) {
            return -1;
        }
    }
    return 0;
}

int sum_merge(sum *dst, const sum *src, mct_err *e)
{
    if (dst->in_call || src->in_call)
        return mct_err_set(e, MCT_E_INTERNAL, "summary: merged in the middle of a call");
    dst->xhave |= src->xhave;   /* first: the nodes it makes are charged for them */
    dst->xlack |= src->xlack;
    if (node_merge(dst, &dst->top, &src->top, sat_add(dst->calls, src->calls), e) < 0)
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
    for (size_t i = 0; i < src->nheap; i++) {
        char *json;

        if (!sum_slowest_wants(dst, src->heap[i].ns))
            continue;
        if ((json = malloc(src->heap[i].size + 1)) == NULL)
            return mct_err_set(e, MCT_E_NOMEM, "out of memory for the summary");
        memcpy(json, src->heap[i].json, src->heap[i].size + 1);
        slowest_keep(dst, src->heap[i].ns, json, src->heap[i].size);
    }
    dst->calls = sat_add(dst->calls, src->calls);
    dst->not_traced = sat_add(dst->not_traced, src->not_traced);
    dst->warmup = sat_add(dst->warmup, src->warmup);
    dst->seen = sat_add(dst->seen, src->seen);
    dst->folded = sat_add(dst->folded, src->folded);
    dst->coarse = sat_add(dst->coarse, src->coarse);
    return 0;
}

int sum_take(sum *dst, sum *src, mct_err *e)
{
    if (dst->top.first == NULL && dst->nmethods == 0 && dst->nheap == 0 && dst->k == src->k &&
        !dst->in_call && !src->in_call) {
        /* Nothing to merge with: swap, then add dst's counts. */
        sum t = *dst;

        *dst = *src;
        *src = t;
        dst->not_traced = sat_add(dst->not_traced, src->not_traced);
        dst->warmup = sat_add(dst->warmup, src->warmup);
        dst->seen = sat_add(dst->seen, src->seen);
    } else if (sum_merge(dst, src, e) < 0) {
        return -1;
    }
    sum_reset(src);
    return 0;
}

/* ---- writing ------------------------------------------------------------------ */

/* Each method's names as JSON, `"class":"..","method":"..","desc":".."`,
 * escaped once for all its nodes. */
struct wctx {
    mct_buf *b;
    char **names;               /* by smethod idx; caller frees */
    unsigned xflags;            /* the figures written: those every call carried */
};

/* The names c, m, d as that JSON text (malloc'd), or NULL (out of memory,
 * not UTF-8). */
static char *names_json(const char *c, const char *m, const char *d)
{
    json_t *o = json_pack("{s:s,s:s,s:s}", "class", c, "method", m, "desc", d);
    char *t = o != NULL ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

    json_decref(o);
    if (t != NULL) {
        size_t n = strlen(t);

        memmove(t, t + 1, n - 2);       /* without the braces */
        t[n - 2] = '\0';
    }
    return t;
}

static void put_u64(mct_buf *b, const char *key, uint64_t v)
{
    buf_printf(b, ",\"%s\":%" PRIu64, key, v > INT64_MAX ? (uint64_t)INT64_MAX : v);
}

/* ,"key":[index,count,index,count,...] of h's buckets, ascending: flat,
 * so that a reader's JSON tree holds no array per bucket. */
static void hist_write(mct_buf *b, const char *key, const struct sum_hist *h)
{
    buf_printf(b, ",\"%s\":[", key);
    for (uint32_t i = 0; i < h->n; i++)
        buf_printf(b, "%s%u,%" PRIu64, i > 0 ? "," : "", HIST_IDX(h->b[i]), HIST_CNT(h->b[i]));
    buf_ch(b, ']');
}

static void node_write(struct wctx *w, const struct snode *n)
{
    static const char other[] = "\"class\":\"" SUM_OTHER_CLASS "\",\"method\":\"" SUM_OTHER_METHOD
                                "\",\"desc\":\"" SUM_OTHER_DESC "\"";
    mct_buf *b = w->b;

    buf_ch(b, '{');
    buf_str(b, n->is_other ? other : w->names[n->m->idx]);
    put_u64(b, "calls", n->calls);
    put_u64(b, "total_ns", n->total_ns);
    put_u64(b, "self_ns", n->self_ns);
    put_u64(b, "min_ns", n->min_ns);
    put_u64(b, "max_ns", n->max_ns);
    put_u64(b, "throws", n->throws);
    put_u64(b, "entries", n->entries);
    put_u64(b, "calls_min", n->calls_min);
    put_u64(b, "calls_max", n->calls_max);
    put_u64(b, "p50_ns", sum_hist_quantile(&n->hist, 0.50));
    put_u64(b, "p90_ns", sum_hist_quantile(&n->hist, 0.90));
    put_u64(b, "p99_ns", sum_hist_quantile(&n->hist, 0.99));
    put_u64(b, "entry_max_ns", n->hist.max);
    put_u64(b, "entry_min_ns", n->hist.min);
    hist_write(b, "hist", &n->hist);
    hist_write(b, "calls_hist", &n->chist);
    for (int x = 0; x < SUM_X_N; x++) {
        const struct sum_xkeys *k = &sum_xkeys[x];
        const struct sum_hist *h = &n->x[x].hist;

        if (!(w->xflags & k->flag))
            continue;
        put_u64(b, k->total, n->x[x].sum);
        if (k->rest != NULL)
            put_u64(b, k->rest, n->total_ns - n->x[x].sum);
        put_u64(b, k->p50, sum_hist_quantile(h, 0.50));
        put_u64(b, k->p90, sum_hist_quantile(h, 0.90));
        put_u64(b, k->p99, sum_hist_quantile(h, 0.99));
        put_u64(b, k->entry_max, h->max);
        put_u64(b, k->entry_min, h->min);
        hist_write(b, k->hist, h);
    }
    if (n->truncated)
        buf_str(b, ",\"truncated\":true");
    if (n->is_other)
        buf_str(b, ",\"other\":true");
    buf_str(b, ",\"children\":[");
    for (const struct snode *k = n->first; k != NULL; k = k->next) {
        if (k != n->first)
            buf_ch(b, ',');
        node_write(w, k);
    }
    buf_str(b, "]}");
}

static int cmp_slow_desc(const void *a, const void *b)
{
    const struct slow *x = a, *y = b;

    return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

/* Appends the slowest calls, slowest first; 0 or -1 (out of memory). */
static int slowest_write(const sum *s, mct_buf *b)
{
    struct slow *sorted = NULL;

    if (s->nheap > 0) {
        if ((sorted = malloc(s->nheap * sizeof *sorted)) == NULL)
            return -1;
        memcpy(sorted, s->heap, s->nheap * sizeof *sorted);
        qsort(sorted, s->nheap, sizeof *sorted, cmp_slow_desc);
    }
    buf_str(b, ",\"slowest\":[");
    for (size_t i = 0; i < s->nheap; i++) {
        if (i > 0)
            buf_ch(b, ',');
        buf_bytes(b, sorted[i].json, sorted[i].size);
    }
    buf_ch(b, ']');
    free(sorted);
    return 0;
}

int sum_write_json(const sum *s, int final, mct_buf *b, mct_err *e)
{
    struct wctx w = { b, calloc(s->nmethods + 1, sizeof(char *)), s->xhave & ~s->xlack };
    int bad = w.names == NULL;

    for (size_t i = 0; i < s->nmethods && !bad; i++) {
        const struct smethod *m = s->methods[i];

        bad = (w.names[i] = names_json(m->class_name, m->method, m->desc)) == NULL;
    }
    if (!bad) {
        buf_printf(b, "{\"type\":\"summary\",\"final\":%s", final ? "true" : "false");
        put_u64(b, "calls", s->calls);
        put_u64(b, "not_traced", s->not_traced);
        buf_str(b, ",\"root\":");
        if (s->top.first == NULL)
            buf_str(b, "null");
        else
            node_write(&w, s->top.first);
        if (s->top.first != NULL && s->top.first->next != NULL) {
            buf_str(b, ",\"more_roots\":[");
            for (const struct snode *r = s->top.first->next; r != NULL; r = r->next) {
                if (r != s->top.first->next)
                    buf_ch(b, ',');
                node_write(&w, r);
            }
            buf_ch(b, ']');
        }
        buf_str(b, ",\"methods\":[");
        for (size_t i = 0; i < s->nmethods; i++) {
            const struct smethod *m = s->methods[i];

            buf_printf(b, "%s{%s", i > 0 ? "," : "", w.names[i]);
            put_u64(b, "calls", m->calls);
            put_u64(b, "calls_max", m->calls_max);
            put_u64(b, "entries", m->entries);
            buf_ch(b, '}');
        }
        buf_ch(b, ']');
        bad = slowest_write(s, b) < 0;
        put_u64(b, "warmup", s->warmup);
        put_u64(b, "seen", s->seen);
        if (s->folded > 0)
            put_u64(b, "folded", s->folded);
        if (s->coarse > 0)
            put_u64(b, "coarse", s->coarse);
        if (s->span_end != 0)
            buf_printf(b, ",\"start_ns\":%lld,\"end_ns\":%lld", (long long)s->span_start, (long long)s->span_end);
        buf_ch(b, '}');
    }
    for (size_t i = 0; w.names != NULL && i < s->nmethods; i++)
        free(w.names[i]);
    free(w.names);
    if (bad || buf_failed(b))
        return mct_err_set(e, MCT_E_NOMEM, "writing the summary: out of memory, or a name not UTF-8");
    return 0;
}

json_t *sum_to_json(const sum *s, int final, mct_err *e)
{
    mct_buf b;
    json_t *j = NULL;
    json_error_t je;

    buf_init(&b);
    if (sum_write_json(s, final, &b, e) == 0) {
        j = json_loadb((const char *)b.data, b.len, 0, &je);
        if (j == NULL)
            mct_err_set(e, MCT_E_NOMEM, "writing the summary: %s", je.text);
    }
    buf_free(&b);
    return j;
}

/* ---- reading: checks of untrusted summaries and calls --------------------------- */

/* An integer of a checked object (0 when absent). */
static uint64_t jint(const json_t *o, const char *key)
{
    return (uint64_t)json_integer_value(json_object_get(o, key));
}

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

/* Checks the optional histogram at key of node n: index, count, ... (flat),
 * indexes ascending and in range, counts from 1, adding up to entries
 * (an other node's entries are approximate: at most). */
static int vhist(const json_t *n, const char *key, uint64_t entries, const struct vpath *p, mct_err *e)
{
    const json_t *h = json_object_get(n, key);
    uint64_t total = 0;
    json_int_t last = -1;

    if (h == NULL)
        return 0;
    if (!json_is_array(h) || json_array_size(h) % 2 != 0)
        return vbad(e, p, key, "not an array of bucket, count, bucket, count, ...");
    for (size_t i = 0; i < json_array_size(h) / 2; i++) {
        const json_t *ji = json_array_get(h, 2 * i), *jc = json_array_get(h, 2 * i + 1);
        json_int_t idx = json_integer_value(ji), c = json_integer_value(jc);

        if (!json_is_integer(ji) || !json_is_integer(jc))
            return vbad(e, p, key, "bucket %zu: not two integers (bucket, count)", i);
        if (idx <= last || idx >= (json_int_t)(SUM_HIST_GROUPS * SUM_HIST_SUB))
            return vbad(e, p, key, "bucket %zu: index %lld not ascending or past %u", i, (long long)idx,
                        SUM_HIST_GROUPS * SUM_HIST_SUB - 1);
        if (c < 1 || (uint64_t)c > SUM_HIST_CNT_MAX)
            return vbad(e, p, key, "bucket %zu: count %lld not between 1 and 2^51-1", i, (long long)c);
        last = idx;
        total += (uint64_t)c;
    }
    if (json_is_true(json_object_get(n, "other")) ? total < entries : total != entries)
        return vbad(e, p, key, "its counts add up to %llu, not entries (%llu)",
                    (unsigned long long)total, (unsigned long long)entries);
    return 0;
}

/* The figures of sum_xkeys node n carries (XFLAGS bits). */
static unsigned vxflags(const json_t *n)
{
    unsigned f = 0;

    for (int x = 0; x < SUM_X_N; x++)
        if (json_object_get(n, sum_xkeys[x].total) != NULL)
            f |= sum_xkeys[x].flag;
    return f;
}

/* Checks the figures of sum_xkeys of node n, which has entries and
 * total_ns: present exactly when the root's (xflags), each with its
 * percentiles ordered and its histogram. */
static int vxfigs(const json_t *n, unsigned xflags, uint64_t entries, uint64_t total, const struct vpath *p,
                  mct_err *e)
{
    for (int x = 0; x < SUM_X_N; x++) {
        const struct sum_xkeys *k = &sum_xkeys[x];
        uint64_t fig, rest, p50, p90, p99, emin, emax;

        if (!(xflags & k->flag)) {
            if (json_object_get(n, k->total) != NULL)
                return vbad(e, p, k->total, "present though the root has none");
            continue;
        }
        if (vint(n, k->total, 0, &fig, p, e) < 0 || vint(n, k->p50, 0, &p50, p, e) < 0 ||
            vint(n, k->p90, 0, &p90, p, e) < 0 || vint(n, k->p99, 0, &p99, p, e) < 0 ||
            vint(n, k->entry_min, 0, &emin, p, e) < 0 || vint(n, k->entry_max, 0, &emax, p, e) < 0 ||
            vhist(n, k->hist, entries, p, e) < 0)
            return -1;
        if (json_object_get(n, k->hist) == NULL)
            return vbad(e, p, k->hist, "missing (an array of bucket, count, ...)");
        if (emin > p50 || p50 > p90 || p90 > p99 || p99 > emax)
            return vbad(e, p, k->p50, "%s <= %s <= %s <= %s <= %s does not hold", k->entry_min, k->p50, k->p90,
                        k->p99, k->entry_max);
        if (k->within_total && fig > total)
            return vbad(e, p, k->total, "%llu, more than total_ns (%llu)", (unsigned long long)fig,
                        (unsigned long long)total);
        rest = total - fig;
        if (k->rest != NULL && vint(n, k->rest, 1, &rest, p, e) < 0)
            return -1;
        if (k->rest != NULL && rest != total - fig)
            return vbad(e, p, k->rest, "%llu, not total_ns - %s (%llu)", (unsigned long long)rest, k->total,
                        (unsigned long long)(total - fig));
    }
    return 0;
}

/* Checks a node at depth (1 = root) of a summary of summary_calls entry
 * calls, whose root carries the figures xflags. (A call's nodes are
 * call_from_json's.) */
static int vnode(const json_t *n, int depth, long long summary_calls, unsigned xflags, struct vpath *p,
                 mct_err *e)
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
        vbool(n, "truncated", 1, p, e) < 0 || vbool(n, "other", 1, p, e) < 0)
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
    if (vint(n, "entry_min_ns", 1, &v, p, e) < 0)
        return -1;
    if (json_object_get(n, "entry_min_ns") != NULL && v > p50)
        return vbad(e, p, "entry_min_ns", "%llu, more than p50_ns", (unsigned long long)v);
    if (vhist(n, "hist", entries, p, e) < 0 || vhist(n, "calls_hist", entries, p, e) < 0 ||
        vxfigs(n, xflags, entries, jint(n, "total_ns"), p, e) < 0)
        return -1;
    kids = json_object_get(n, "children");
    if (kids == NULL)
        return vbad(e, p, "children", "missing (an array of nodes)");
    if (!json_is_array(kids))
        return vbad(e, p, "children", "not an array");
    for (size_t i = 0; i < json_array_size(kids); i++) {
        size_t mark = vpush(p, "%schildren[%zu]", p->len > 0 ? "." : "", i);

        if (vnode(json_array_get(kids, i), depth + 1, summary_calls, xflags, p, e) < 0)
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
    uint64_t calls, v, warmup = 0;

    if (vtype(j, "summary", &p, e) < 0 || vbool(j, "final", 0, &p, e) < 0 ||
        vint(j, "calls", 0, &calls, &p, e) < 0 || vint(j, "not_traced", 0, &v, &p, e) < 0 ||
        vint(j, "warmup", 1, &warmup, &p, e) < 0 || vint(j, "seen", 1, &v, &p, e) < 0 ||
        vint(j, "folded", 1, &v, &p, e) < 0 || vint(j, "coarse", 1, &v, &p, e) < 0)
        return -1;
    root = json_object_get(j, "root");
    if (root == NULL)
        return vbad(e, &p, "root", "missing (a node, or null when calls is 0)");
    if (json_is_null(root) != (calls == 0))
        return vbad(e, &p, "root", calls == 0 ? "not null although calls is 0" :
                    "null although calls is %llu", (unsigned long long)calls);
    if (!json_is_null(root)) {
        size_t mark = vpush(&p, "root");

        if (vnode(root, 1, (long long)calls, vxflags(root), &p, e) < 0)
            return -1;
        vpop(&p, mark);
    }
    arr = json_object_get(j, "more_roots");
    if (arr != NULL && (!json_is_array(arr) || json_is_null(root)))
        return vbad(e, &p, "more_roots", "not an array of nodes after a root");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        size_t mark = vpush(&p, "more_roots[%zu]", i);

        if (vnode(json_array_get(arr, i), 1, (long long)calls, vxflags(root), &p, e) < 0)
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
        /* Methods count warm-up calls also when calls leaves them out. */
        if (entries > calls + warmup)
            return vbad(e, &p, "entries", "%llu, more than the summary's calls and warm-up calls (%llu)",
                        (unsigned long long)entries, (unsigned long long)(calls + warmup));
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
        .xflags = c->flags & XFLAGS, .x = { [SUM_X_CPU] = nd->cpu_ns, [SUM_X_ALLOC] = nd->alloc_bytes },
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
    size_t i = 0, len;
    mct_buf text;
    uint8_t *json;

    if (sum_begin(s, e) < 0 || add_node(s, t, c, &i, e) < 0 || sum_end(s, e) < 0)
        return -1;
    if (!sum_slowest_wants(s, total))
        return 0;
    /* Its JSON text, as a call line has it, without the newline. */
    buf_init(&text);
    if (call_json_line(&text, t, c) == 0 && text.len > 0)
        text.data[--text.len] = '\0';
    json = buf_steal(&text, &len);
    if (json == NULL)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory keeping one of the slowest calls");
    slowest_keep(s, total, (char *)json, len);
    return 0;
}

/* ---- reading a summary back (merging) --------------------------------------- */

int sum_hist_from_json(struct sum_hist *h, const json_t *a, uint64_t min, uint64_t max, mct_err *e)
{
    size_t cnt = json_array_size(a) / 2;

    sum_hist_init(h);
    if (cnt == 0)
        return 0;
    if ((h->b = malloc(cnt * sizeof *h->b)) == NULL)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory for a histogram");
    h->cap = h->n = (uint32_t)cnt;
    for (size_t i = 0; i < cnt; i++) {
        uint64_t c = (uint64_t)json_integer_value(json_array_get(a, 2 * i + 1));

        h->b[i] = HIST_WORD((unsigned)json_integer_value(json_array_get(a, 2 * i)), c);
        h->count = sat_add(h->count, c);
    }
    h->min = min;
    h->max = max;
    return 0;
}

/* Adds the calls, self time and throws of the nodes under j to other node o. */
static void json_fold(sum *dst, struct snode *o, const json_t *j)
{
    const json_t *kids = json_object_get(j, "children");

    for (size_t i = 0; i < json_array_size(kids); i++) {
        const json_t *k = json_array_get(kids, i);

        o->calls = sat_add(o->calls, jint(k, "calls"));
        o->self_ns = sat_add(o->self_ns, jint(k, "self_ns"));
        o->throws = sat_add(o->throws, jint(k, "throws"));
        o->truncated |= json_is_true(json_object_get(k, "truncated"));
        if (!json_is_true(json_object_get(k, "other")))
            dst->folded = sat_add(dst->folded, jint(k, "calls"));
        json_fold(dst, o, k);
    }
}

/* Adds the checked node j under d (dst's top for a root), then its
 * children; 0 or -1 with e. */
static int json_node_add(sum *dst, struct snode *parent, const json_t *j, uint64_t max_entries, mct_err *e)
{
    struct snode src = { 0 }, *d;
    const json_t *kids = json_object_get(j, "children");
    int rc;

    if (json_object_get(j, "hist") == NULL || json_object_get(j, "calls_hist") == NULL ||
        json_object_get(j, "entry_min_ns") == NULL)
        return mct_err_set(e, MCT_E_PROTO, "a node without \"hist\", \"calls_hist\" or \"entry_min_ns\" "
                           "(a summary of an older mcalltree): it cannot be merged exactly; trace again "
                           "with this version");
    if (json_is_true(json_object_get(j, "other")) && parent != &dst->top) {
        d = other_get(parent, e);
    } else {
        struct smethod *m = method_get(dst, json_string_value(json_object_get(j, "class")),
                                       json_string_value(json_object_get(j, "method")),
                                       json_string_value(json_object_get(j, "desc")), e);

        d = m == NULL ? NULL : child_get(dst, parent, m, e);
    }
    if (d == NULL)
        return -1;
    src.calls = jint(j, "calls");
    src.total_ns = jint(j, "total_ns");
    src.self_ns = jint(j, "self_ns");
    src.min_ns = jint(j, "min_ns");
    src.max_ns = jint(j, "max_ns");
    src.throws = jint(j, "throws");
    src.entries = jint(j, "entries");
    src.calls_min = jint(j, "calls_min");
    src.calls_max = jint(j, "calls_max");
    src.truncated = json_is_true(json_object_get(j, "truncated"));
    src.seen = 1;
    rc = sum_hist_from_json(&src.hist, json_object_get(j, "hist"), jint(j, "entry_min_ns"),
                            jint(j, "entry_max_ns"), e);
    if (rc == 0)
        rc = sum_hist_from_json(&src.chist, json_object_get(j, "calls_hist"), src.calls_min, src.calls_max, e);
    for (int x = 0; x < SUM_X_N; x++) {
        const struct sum_xkeys *k = &sum_xkeys[x];

        src.x[x].sum = jint(j, k->total);
        if (rc == 0 && json_object_get(j, k->total) != NULL)
            rc = sum_hist_from_json(&src.x[x].hist, json_object_get(j, k->hist), jint(j, k->entry_min),
                                    jint(j, k->entry_max), e);
    }
    if (rc == 0)
        rc = node_add(dst, d, &src, max_entries, e);
    sum_hist_reset(&src.hist);
    sum_hist_reset(&src.chist);
    for (int x = 0; x < SUM_X_N; x++)
        sum_hist_reset(&src.x[x].hist);
    if (rc < 0)
        return -1;
    if (d->is_other) {
        if (!json_is_true(json_object_get(j, "other")))
            dst->folded = sat_add(dst->folded, src.calls);
        json_fold(dst, d, j);
        return 0;
    }
    for (size_t i = 0; i < json_array_size(kids); i++)
        if (json_node_add(dst, d, json_array_get(kids, i), max_entries, e) < 0)
            return -1;
    return 0;
}

int sum_add_json(sum *dst, const json_t *j, mct_err *e)
{
    uint64_t calls = jint(j, "calls"), max_entries = sat_add(dst->calls, calls);
    const json_t *more = json_object_get(j, "more_roots"), *arr;

    if (dst->in_call)
        return mct_err_set(e, MCT_E_INTERNAL, "summary: merged in the middle of a call");
    if (calls > 0) {            /* first: the nodes it makes are charged for them */
        unsigned xf = vxflags(json_object_get(j, "root"));

        dst->xhave |= xf;
        dst->xlack |= ~xf & XFLAGS;
    }
    if (!json_is_null(json_object_get(j, "root")) &&
        json_node_add(dst, &dst->top, json_object_get(j, "root"), max_entries, e) < 0)
        return -1;
    for (size_t i = 0; i < json_array_size(more); i++)
        if (json_node_add(dst, &dst->top, json_array_get(more, i), max_entries, e) < 0)
            return -1;
    arr = json_object_get(j, "methods");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *jm = json_array_get(arr, i);
        struct smethod *dm = method_get(dst, json_string_value(json_object_get(jm, "class")),
                                        json_string_value(json_object_get(jm, "method")),
                                        json_string_value(json_object_get(jm, "desc")), e);

        if (dm == NULL)
            return -1;
        dm->calls = sat_add(dm->calls, jint(jm, "calls"));
        dm->entries = sat_add(dm->entries, jint(jm, "entries"));
        if (jint(jm, "calls_max") > dm->calls_max)
            dm->calls_max = jint(jm, "calls_max");
    }
    arr = json_object_get(j, "slowest");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *c = json_array_get(arr, i);
        uint64_t ns = jint(json_object_get(c, "root"), "total_ns");
        char *text;

        if (!sum_slowest_wants(dst, ns))
            continue;
        if ((text = json_dumps(c, JSON_COMPACT | JSON_PRESERVE_ORDER)) == NULL)
            return mct_err_set(e, MCT_E_NOMEM, "out of memory keeping one of the slowest calls");
        slowest_keep(dst, ns, text, strlen(text));
    }
    dst->calls = max_entries;
    dst->not_traced = sat_add(dst->not_traced, jint(j, "not_traced"));
    dst->warmup = sat_add(dst->warmup, jint(j, "warmup"));
    dst->seen = sat_add(dst->seen, jint(j, "seen"));
    dst->folded = sat_add(dst->folded, jint(j, "folded"));
    dst->coarse = sat_add(dst->coarse, jint(j, "coarse"));
    return 0;
}

int sum_count_call(sum *s, const call_tab *t, const mct_call *c, mct_err *e)
{
    size_t i = 0;
    int rc;

    s->counts_only = 1;
    rc = sum_begin(s, e) < 0 || add_node(s, t, c, &i, e) < 0 || sum_end(s, e) < 0 ? -1 : 0;
    s->counts_only = 0;
    return rc;
}
