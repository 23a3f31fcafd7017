/* summary.c — see summary.h. */
#include "summary.h"

#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
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

/* Where idx is, or would go, among h's buckets lo .. hi - 1 (ascending).
 * Without a branch on the comparison: a node's time histogram has many
 * buckets, one is searched for every node of every call added, and a
 * mispredicted branch per halving was most of that search's cost. */
static inline uint32_t hist_lower(const struct sum_hist *h, uint32_t lo, uint32_t hi, unsigned idx)
{
    const uint64_t *base;
    uint32_t n = hi - lo;

    if (n == 0)
        return lo;              /* h->b may be NULL */
    base = h->b + lo;
    while (n > 1) {
        uint32_t half = n / 2;

        /* Both buckets the next halving may read, asked for now: the
         * search waits on memory, not on the comparisons. */
        __builtin_prefetch(base + half / 2);
        __builtin_prefetch(base + half + half / 2);
        base += (HIST_IDX(base[half]) < idx) * half;
        n -= half;
    }
    return (uint32_t)(base - h->b) + (HIST_IDX(*base) < idx);
}

/* Where idx is, or would go, among h's buckets; 1 when it is there. */
static inline int hist_find(const struct sum_hist *h, unsigned idx, uint32_t *pos)
{
    *pos = hist_lower(h, 0, h->n, idx);
    return *pos < h->n && HIST_IDX(h->b[*pos]) == idx;
}

_Static_assert(SUM_HIST_GROUPS * SUM_HIST_SUB <= 1u << 13, "hist_guess multiplies two bucket counts in 32 bits");

/* Position k (0..4) of the pivots of a histogram of n buckets: the first,
 * a quarter, half, three quarters, the last. */
static inline uint32_t piv_pos(uint32_t n, int k)
{
    return (uint32_t)((uint64_t)k * (n - 1) / 4);
}

/* Takes h's pivots again when buckets were added since (the lines read
 * are the ones a record just read, or near). */
static inline void hist_pivots(struct sum_hist *h)
{
    if (h->piv_n == h->n || h->n < 2)
        return;
    for (int k = 0; k < 3; k++)
        h->piv[k] = (uint16_t)HIST_IDX(h->b[piv_pos(h->n, k + 1)]);
    h->piv_n = h->n;
}

/* Where idx would be among h's buckets, from h's own fields (no bucket is
 * read): between the two pivots around it (its smallest and largest
 * samples' buckets at the ends), as if the buckets between were spread
 * evenly. A node's buckets are contiguous where most of its samples fall
 * and sparse in the tails, so the guess lands on the bucket's line or the
 * next nearly always (hist_find_near), and that line can be asked for
 * before it is read. */
static inline uint32_t hist_guess(const struct sum_hist *h, unsigned idx)
{
    unsigned lo, hi;
    uint32_t plo = 0, phi;

    if (h->n < 2)
        return 0;
    lo = hist_index(h->min);
    hi = hist_index(h->max);
    phi = h->n - 1;
    for (int k = 0; h->piv_n == h->n && k < 3; k++) {
        if (idx < h->piv[k]) {
            hi = h->piv[k];
            phi = piv_pos(h->n, k + 1);
            break;
        }
        lo = h->piv[k];
        plo = piv_pos(h->n, k + 1);
    }
    if (idx <= lo)
        return plo;
    if (idx >= hi)
        return phi;
    /* In 32 bits (indexes and counts of buckets are under 2^13): a 64-bit
     * division cost as much as the rest of the guess. */
    return plo + (idx - lo) * (phi - plo) / (hi - lo);
}

/* hist_find from the guess g: steps of 1, 2, 4 ... away from it bracket
 * idx, then a search within the bracket, so that a good guess reads a
 * line or two. */
static inline int hist_find_near(const struct sum_hist *h, unsigned idx, uint32_t g, uint32_t *pos)
{
    uint32_t lo, hi, step = 1;

    if (h->n == 0 || g >= h->n)
        return hist_find(h, idx, pos);
    if (HIST_IDX(h->b[g]) < idx) {
        lo = g + 1;
        while (lo + step - 1 < h->n && HIST_IDX(h->b[lo + step - 1]) < idx) {
            lo += step;
            step *= 2;
        }
        hi = lo + step - 1 < h->n ? lo + step : h->n;
    } else {
        hi = g + 1;
        while (hi > step && HIST_IDX(h->b[hi - step - 1]) >= idx) {
            hi -= step;
            step *= 2;
        }
        lo = hi > step ? hi - step : 0;
    }
    *pos = hist_lower(h, lo, hi, idx);
    return *pos < h->n && HIST_IDX(h->b[*pos]) == idx;
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

void sum_hist_bucket(const struct sum_hist *h, uint32_t i, unsigned *idx, uint64_t *count)
{
    *idx = HIST_IDX(h->b[i]);
    *count = HIST_CNT(h->b[i]);
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
    size_t idx;                 /* in s->methods and s->mc */
    size_t jlen;                /* its names' JSON text, at most */
};

/* A method's counts, in one array by its idx apart from its names: every
 * node of every call adds to its method's, and that array stays in the
 * caches where the methods' own lines, one more miss a node, would not. */
struct mcount {
    uint64_t calls, calls_max, entries;
    uint64_t epoch, cur;        /* cur: its calls in the entry call of that epoch */
};

/* What adding a call reads and writes comes first (the figures, the
 * flags, the counts per entry call, the histograms), then the links:
 * the cache lines of its nodes are most of that cost. */
struct snode {
    struct smethod *m;          /* NULL for the top and for other nodes */
    struct snode *parent;       /* NULL for a root */
    uint64_t calls, total_ns, self_ns, min_ns, max_ns, throws;
    unsigned truncated : 1, seen : 1, is_other : 1;
    unsigned async : 1;         /* reached through a hand-off: a task run on another thread */
    /* Read from a summary's text and nothing added since: its percentiles
     * are the text's (pts); the keys it came without (an older summary). */
    unsigned pts : 1, no_hist : 1, no_chist : 1, no_emin : 1;
    uint64_t entries, calls_min, calls_max;
    union {
        struct {                /* while calls are added */
            uint64_t epoch, cur_calls, cur_total;
            uint64_t xcur[SUM_X_N];     /* each figure's within the entry call of epoch */
        };
        struct {                /* a node read from a summary's text (pts) */
            uint64_t p50, p90, p99;
            uint64_t xpts[SUM_X_N][3];  /* each figure's p50, p90, p99 */
        };
    };
    struct sum_hist hist;       /* its total_ns per entry call */
    struct sum_hist chist;      /* its calls per entry call */
    struct {
        uint64_t sum;           /* over all calls */
        struct sum_hist hist;   /* per entry call, when the calls carry it */
    } x[SUM_X_N];               /* the figures of sum_xkeys */
    struct snode *first, *last, *next;  /* children in order of first appearance */
    struct snode *other;        /* the child that holds the paths past the budget */
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
    int unbounded;              /* reading a summary's text: its size bounds it */
    struct snode top;           /* unnamed; its children are the roots */
    struct smethod **methods;   /* in order of first appearance */
    size_t nmethods, capmethods;
    struct mcount *mc;          /* by method idx */
    size_t capmc;
    kit_table method_index;     /* names -> struct smethod * */
    kit_table node_index;       /* (parent, method) -> struct snode * */
    uint64_t tab_id;            /* the call tab filling by_num maps the numbers of (0: none) */
    size_t *by_num;             /* a call's method number -> its method's idx + 1 here (method_of) */
    size_t nby_num;
    struct snode **shape;       /* by place (a node's rank in its call's
                                   pre-order): the node the calls entered
                                   there last (place_node) */
    size_t nshape, capshape;    /* places filled, allocated */
    size_t place;               /* the next node's in the current call */
    struct snode **touched;     /* nodes of the current entry call */
    size_t ntouched, captouched;
    size_t *mtouched;           /* methods (idx) of the current entry call */
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
#define METHOD_BYTES (sizeof(struct smethod) + sizeof(struct mcount) + 4 * ALLOC_BYTES + 64 + sizeof(struct smethod *))
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
    return !s->unbounded && (s->bytes >= SUM_BUDGET_BYTES || s->json >= SUM_JSON_BUDGET);
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

/* Records v in node histogram h (node_hist_add): a value whose bucket h
 * has (most, once a node has seen its usual values) is counted in place,
 * inlined: a call per record cost as much as the rest of it. */
static inline __attribute__((always_inline)) int node_hist_record(sum *s, struct sum_hist *h, uint64_t v, mct_err *e)
{
    unsigned idx;
    uint32_t pos;

    if (v > INT64_MAX)
        v = INT64_MAX;
    idx = hist_index(v);
    if (hist_find_near(h, idx, hist_guess(h, idx), &pos))
        hist_bump(h, pos, 1);
    else if (node_hist_add(s, h, idx, 1, e) < 0)
        return -1;
    else
        hist_pivots(h);
    hist_note(h, v, v, 1);
    return 0;
}

/* Adds src's buckets to dst's at once, when that takes s no further than
 * its budget (the buckets node_hist_add would make, charged the same): a
 * histogram merged many times grows large, and a small one is added to it
 * by searching, each of dst's buckets moved at most once. 1 when done, 0
 * when not (past the budget: bucket by bucket), -1 with e. */
static int node_hist_union(sum *s, struct sum_hist *dst, const struct sum_hist *src, mct_err *e)
{
    uint32_t i, k, fresh = 0, lo = 0;
    size_t cap = dst->cap, bytes = 0;

    for (uint32_t j = 0; j < src->n; j++) {
        unsigned idx = HIST_IDX(src->b[j]);

        lo = hist_lower(dst, lo, dst->n, idx);
        fresh += lo == dst->n || HIST_IDX(dst->b[lo]) != idx;
    }
    while (cap < (size_t)dst->n + fresh) {
        size_t grown = cap == 0 ? 4 : cap;

        if (cap + grown > NODE_BUCKETS)
            bytes += grown * sizeof *dst->b;
        cap += grown;
    }
    if (!s->unbounded && (s->bytes + bytes >= SUM_BUDGET_BYTES ||
                          s->json + (size_t)fresh * BUCKET_JSON >= SUM_JSON_BUDGET))
        return 0;
    if (cap > dst->cap) {
        uint64_t *p = realloc(dst->b, cap * sizeof *p);

        if (p == NULL)
            return mct_err_set(e, MCT_E_NOMEM, "out of memory for a histogram");
        dst->b = p;
        dst->cap = (uint32_t)cap;
    }
    s->bytes += bytes;
    s->json += (size_t)fresh * BUCKET_JSON;
    /* from the top down: dst's buckets above each of src's move up by the
     * new ones below them */
    i = dst->n;
    k = dst->n + fresh;
    for (uint32_t j = src->n; j > 0; j--) {
        unsigned idx = HIST_IDX(src->b[j - 1]);
        uint32_t p = hist_lower(dst, 0, i, idx);
        int found = p < i && HIST_IDX(dst->b[p]) == idx;
        uint32_t above = i - p - (uint32_t)found;

        if (k != i)
            memmove(dst->b + k - above, dst->b + p + found, above * sizeof *dst->b);
        k -= above;
        i = p + (uint32_t)found;
        if (found) {
            dst->b[--k] = dst->b[--i];
            hist_bump(dst, k, HIST_CNT(src->b[j - 1]));
        } else {
            dst->b[--k] = src->b[j - 1];
        }
    }
    dst->n += fresh;
    return 1;
}

/* Adds src to node histogram dst (node_hist_add). */
static int node_hist_merge(sum *s, struct sum_hist *dst, const struct sum_hist *src, mct_err *e)
{
    int rc = node_hist_union(s, dst, src, e);

    if (rc < 0)
        return -1;
    for (uint32_t i = 0; rc == 0 && i < src->n; i++)
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
    if (buf_grow(&s->mc, &s->capmc, s->nmethods, sizeof *s->mc, 64) < 0) {
        mct_err_set(e, MCT_E_NOMEM, "out of memory for the summary");
        return NULL;
    }
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
    s->mc[sm->idx] = (struct mcount){0};
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

/* Children compared one by one (their method, an address) before the
 * index is asked: most nodes have few. */
#define CHILD_SCAN 8

/* parent's child for method m, added last when new; past the budget,
 * parent's other node instead (the entry method's roots are always
 * added). NULL with e set. */
static struct snode *child_get(sum *s, struct snode *parent, struct smethod *m, mct_err *e)
{
    struct snode *pkey = parent == &s->top ? NULL : parent;
    struct snode *n = parent->first;
    kit_cursor cur;
    uint64_t h;
    size_t nx;                  /* the figures the calls carry */

    for (int i = 0; n != NULL && i < CHILD_SCAN; n = n->next, i++)
        if (n->m == m)
            return n;
    h = node_hash(pkey, m);
    for (uintptr_t v = n == NULL ? 0 : kit_table_first(&s->node_index, h, &cur); v != 0;
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
    s->tab_id = 0;              /* by_num's methods are gone */
    for (size_t i = 0; i < s->nheap; i++)
        free(s->heap[i].json);
    s->nheap = 0;
    s->slow_json = 0;
    s->ntouched = s->nmtouched = 0;
    s->nshape = 0;              /* its nodes are gone */
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
    free(s->mc);
    free(s->by_num);
    free(s->shape);
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
    s->counts_only = 0;
    s->depth = 0;
    s->roots_entered = 0;
    s->ntouched = s->nmtouched = 0;
    s->place = 0;
    s->epoch++;
    return 0;
}

/* Method mi (its counts mc) is in the current entry call: listed once,
 * its count from 0. */
static inline int method_touch(sum *s, size_t mi, struct mcount *mc, mct_err *e)
{
    if (mc->epoch != s->epoch) {
        if (buf_grow(&s->mtouched, &s->capmtouched, s->nmtouched, sizeof *s->mtouched, 64) < 0)
            return mct_err_set(e, MCT_E_NOMEM, "out of memory for the summary");
        s->mtouched[s->nmtouched++] = mi;
        mc->epoch = s->epoch;
        mc->cur = 0;
    }
    return 0;
}

/* How many places ahead place_node asks for the node the last call
 * entered there: a worker's summary is cold (other work ran since the last
 * call), and a node's lines asked for while earlier nodes are added arrive
 * together instead of one miss after another. */
#define PLACE_AHEAD 4

/* Asks for the lines of n that adding a call touches (up to its
 * histograms). */
static inline void node_prefetch(const struct snode *n)
{
    const char *p = (const char *)n;
    size_t end = offsetof(struct snode, chist) + sizeof n->chist;

    for (size_t off = 0; off < end; off += 64)
        __builtin_prefetch(p + off, 1);
    __builtin_prefetch(p + end - 1, 1);     /* n need not start a line */
}

/* The node that a node of method m under parent enters: parent itself
 * when it is an other node (the path left the kept ones above), else
 * parent's child for m (child_get). The node entered at the same place
 * (rank in the call's pre-order) last time is taken when it is that
 * child, as it is at every place of a call shaped as the last one: most
 * calls then look nothing up among siblings. NULL with e set. */
static struct snode *place_node(sum *s, struct snode *parent, struct smethod *m, mct_err *e)
{
    size_t at = s->place++;
    struct snode *n = at < s->nshape ? s->shape[at] : NULL;

    if (at + PLACE_AHEAD < s->nshape)
        node_prefetch(s->shape[at + PLACE_AHEAD]);

    if (parent->is_other)
        n = parent;
    else if (n != NULL && n->m == m && n->parent == (parent == &s->top ? NULL : parent))
        return n;
    else if ((n = child_get(s, parent, m, e)) == NULL)
        return NULL;
    /* A cache: a place it has no room for is looked up again next time. */
    if (at <= s->nshape && (at < s->capshape || buf_grow(&s->shape, &s->capshape, at, sizeof *s->shape, 64) == 0)) {
        s->shape[at] = n;
        s->nshape = at < s->nshape ? s->nshape : at + 1;
    }
    return n;
}

/* Whether a node may be entered now (sum_enter's order and depth). */
static inline int enter_ok(sum *s, mct_err *e)
{
    if (!s->in_call)
        return mct_err_set(e, MCT_E_INTERNAL, "summary: a node entered outside a call");
    if (s->depth == 0 && s->roots_entered++ > 0)
        return mct_err_set(e, MCT_E_INTERNAL, "summary: a call with two roots");
    if (s->depth >= PROTO_MAX_DEPTH)
        return mct_err_set(e, MCT_E_PROTO, "summary: a call tree deeper than %d levels",
                           PROTO_MAX_DEPTH);
    return 0;
}

/* sum_enter of a node of method mi (its names in f unused), enter_ok. */
static int enter(sum *s, size_t mi, const struct sum_fig *f, mct_err *e)
{
    struct smethod *m = s->methods[mi];
    struct mcount *mc = &s->mc[mi];
    struct snode *parent = s->depth == 0 ? &s->top : s->stack[s->depth - 1], *n;
    int inner;                  /* below the call where its path left the kept ones */

    if (s->depth == 0 && !s->counts_only) {
        s->xcur = f->xflags & XFLAGS;
        s->xhave |= s->xcur;
        s->xlack |= ~s->xcur & XFLAGS;
    }
    if (s->counts_only) {
        if (method_touch(s, mi, mc, e) < 0)
            return -1;
        mc->calls = sat_add(mc->calls, f->calls);
        mc->cur = sat_add(mc->cur, f->calls);
        s->stack[s->depth++] = parent; /* for the depth only: no node is touched */
        return 0;
    }
    inner = parent->is_other;
    n = place_node(s, parent, m, e);
    if (n == NULL)
        return -1;
    /* A node read from a text (pts) has no epoch: its union holds its
     * percentiles, which come from its histogram now. */
    if (n->epoch != s->epoch || n->pts) {
        if (s->ntouched == s->captouched && grow(&s->touched, s->ntouched, &s->captouched, e) < 0)
            return -1;
        s->touched[s->ntouched++] = n;
        n->pts = 0;
        n->epoch = s->epoch;
        n->cur_calls = n->cur_total = 0;
        for (int x = 0; x < SUM_X_N; x++)
            n->xcur[x] = 0;
    }
    if (method_touch(s, mi, mc, e) < 0)
        return -1;
    if (!inner) {
        if (!n->seen || f->min_ns < n->min_ns)
            n->min_ns = f->min_ns;
        if (!n->seen || f->max_ns > n->max_ns)
            n->max_ns = f->max_ns;
        n->seen = 1;
        n->total_ns = sat_add(n->total_ns, f->total_ns);
        n->cur_total = sat_add(n->cur_total, f->total_ns);
        /* 0 adds nothing: a figure the calls do not carry costs no
         * cache line. */
        for (int x = 0; x < SUM_X_N; x++)
            if (f->x[x] != 0) {
                n->x[x].sum = sat_add(n->x[x].sum, f->x[x]);
                n->xcur[x] = sat_add(n->xcur[x], f->x[x]);
            }
    }
    if (n->is_other)
        s->folded = sat_add(s->folded, f->calls);
    n->calls = sat_add(n->calls, f->calls);
    n->self_ns = sat_add(n->self_ns, f->self_ns);
    n->throws = sat_add(n->throws, f->throws);
    /* Set, not or-ed: a bit-field's read-modify-write costs more. */
    if (f->truncated)
        n->truncated = 1;
    if (f->async && !n->is_other)
        n->async = 1;
    n->cur_calls = sat_add(n->cur_calls, f->calls);
    mc->calls = sat_add(mc->calls, f->calls);
    mc->cur = sat_add(mc->cur, f->calls);
    s->stack[s->depth++] = n;
    return 0;
}

int sum_enter(sum *s, const struct sum_fig *f, mct_err *e)
{
    struct smethod *m;

    if (enter_ok(s, e) < 0 || (m = method_get(s, f->class_name, f->method, f->desc, e)) == NULL)
        return -1;
    return enter(s, m->idx, f, e);
}

int sum_begin_counts(sum *s, mct_err *e)
{
    if (sum_begin(s, e) < 0)
        return -1;
    s->counts_only = 1;
    return 0;
}

static int method_load(sum *s, const call_tab *t, uint32_t id, size_t *mi, mct_err *e);

/* The method (*mi: its idx) of number id of tab t, cached by number for
 * t's filling (its id), so that a method's names are hashed once, not once
 * per node of every call, and its line is not read; 0, or -1 with e. The
 * cache read inline: a call per node cost more. */
static inline int method_of(sum *s, const call_tab *t, uint32_t id, size_t *mi, mct_err *e)
{
    if (s->tab_id == t->id && id < s->nby_num && s->by_num[id] != 0) {
        *mi = s->by_num[id] - 1;
        return 0;
    }
    return method_load(s, t, id, mi, e);
}

int sum_enter_num(sum *s, const call_tab *t, uint32_t method, const struct sum_fig *f, mct_err *e)
{
    size_t mi = 0;

    if (enter_ok(s, e) < 0 || method_of(s, t, method, &mi, e) < 0)
        return -1;
    return enter(s, mi, f, e);
}

/* sum_enter_num of node nd of a call whose flags are call_flags. */
static int enter_node(sum *s, const call_tab *t, const struct call_node *nd, unsigned call_flags, mct_err *e)
{
    struct sum_fig f;

    /* Field by field: a compound literal zeroes the whole first (rep
     * stos). */
    f.class_name = f.method = f.desc = NULL;
    f.calls = nd->calls;
    f.total_ns = nd->total_ns;
    f.self_ns = nd->self_ns;
    f.min_ns = nd->min_ns;
    f.max_ns = nd->max_ns;
    f.throws = nd->throws;
    f.truncated = (nd->flags & CALL_N_TRUNCATED) != 0;
    f.async = (nd->flags & CALL_N_ASYNC) != 0;
    f.xflags = call_flags & XFLAGS;
    f.x[SUM_X_CPU] = nd->cpu_ns;
    f.x[SUM_X_ALLOC] = nd->alloc_bytes;
    return sum_enter_num(s, t, nd->method, &f, e);
}

int sum_leave(sum *s, mct_err *e)
{
    if (!s->in_call || s->depth == 0)
        return mct_err_set(e, MCT_E_INTERNAL, "summary: a node left that was not entered");
    s->depth--;
    return 0;
}

/* How many nodes ahead sum_end asks for the line of a node's time
 * histogram its guess falls in (hist_guess), and its calls histogram's
 * first (and twice as many for the node's own lines that hold them):
 * the histograms are cold, and found one after another each would wait on
 * memory in turn. */
#define END_AHEAD 8

static inline void node_hists_prefetch(const struct snode *n)
{
    uint64_t v = n->cur_total > INT64_MAX ? INT64_MAX : n->cur_total;

    if (n->hist.n > 0)
        __builtin_prefetch(n->hist.b + hist_guess(&n->hist, hist_index(v)), 1);
    if (n->chist.n > 0)
        __builtin_prefetch(n->chist.b, 1);
}

int sum_end(sum *s, mct_err *e)
{
    if (!s->in_call || s->depth != 0 || s->roots_entered == 0)
        return mct_err_set(e, MCT_E_INTERNAL, "summary: a call ended %s",
                           !s->in_call ? "that was not begun" : s->depth != 0 ? "inside a node" :
                           "without a root");
    for (size_t i = 0; i < s->ntouched && !s->counts_only; i++) {
        struct snode *n = s->touched[i];

        if (i + 2 * END_AHEAD < s->ntouched) {
            const char *ahead = (const char *)s->touched[i + 2 * END_AHEAD];

            __builtin_prefetch(ahead + offsetof(struct snode, hist));
            __builtin_prefetch(ahead + offsetof(struct snode, chist) + sizeof(struct sum_hist) - 1);
        }
        if (i + END_AHEAD < s->ntouched)
            node_hists_prefetch(s->touched[i + END_AHEAD]);

        if (n->entries == 0 || n->cur_calls < n->calls_min)
            n->calls_min = n->cur_calls;
        if (n->entries == 0 || n->cur_calls > n->calls_max)
            n->calls_max = n->cur_calls;
        n->entries++;
        if (node_hist_record(s, &n->hist, n->cur_total, e) < 0 ||
            node_hist_record(s, &n->chist, n->cur_calls, e) < 0)
            return -1;
        for (int x = 0; x < SUM_X_N; x++)
            if ((s->xcur & sum_xkeys[x].flag) && node_hist_record(s, &n->x[x].hist, n->xcur[x], e) < 0)
                return -1;
    }
    for (size_t i = 0; i < s->nmtouched; i++) {
        struct mcount *mc = &s->mc[s->mtouched[i]];

        if (mc->cur > mc->calls_max)
            mc->calls_max = mc->cur;
        mc->entries++;
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
    if (d->pts && !d->no_hist) {  /* merged: its percentiles from the histograms */
        d->pts = 0;
        d->p50 = d->p90 = d->p99 = 0;
        memset(d->xpts, 0, sizeof d->xpts);
    }
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
    d->async |= src->async && !d->is_other;
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

        if (sk->no_hist || sk->no_chist || sk->no_emin)
            return mct_err_set(e, MCT_E_PROTO, "a node without \"hist\", \"calls_hist\" or \"entry_min_ns\" "
                               "(a summary of an older mcalltree): it cannot be merged exactly; trace again "
                               "with this version");
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
        const struct mcount *sc = &src->mc[i];
        struct smethod *dm = method_get(dst, sm->class_name, sm->method, sm->desc, e);
        struct mcount *dc;

        if (dm == NULL)
            return -1;
        dc = &dst->mc[dm->idx];
        dc->calls = sat_add(dc->calls, sc->calls);
        dc->entries = sat_add(dc->entries, sc->entries);
        if (sc->calls_max > dc->calls_max)
            dc->calls_max = sc->calls_max;
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

/* ,"key":v, v at most INT64_MAX: a reader takes a summary's numbers as
 * JSON integers (int64). */
static void put_u64(mct_buf *b, const char *key, uint64_t v)
{
    buf_key_dec(b, key, v > INT64_MAX ? (uint64_t)INT64_MAX : v);
}

/* ,"key":[index,count,index,count,...] of h's buckets, ascending: flat,
 * so that a reader's JSON tree holds no array per bucket. */
static void hist_write(mct_buf *b, const char *key, const struct sum_hist *h)
{
    buf_str(b, ",\"");
    buf_str(b, key);
    buf_str(b, "\":[");
    for (uint32_t i = 0; i < h->n; i++) {
        if (i > 0)
            buf_ch(b, ',');
        buf_dec(b, HIST_IDX(h->b[i]));
        buf_ch(b, ',');
        buf_dec(b, HIST_CNT(h->b[i]));
    }
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
    put_u64(b, "p50_ns", n->pts ? n->p50 : sum_hist_quantile(&n->hist, 0.50));
    put_u64(b, "p90_ns", n->pts ? n->p90 : sum_hist_quantile(&n->hist, 0.90));
    put_u64(b, "p99_ns", n->pts ? n->p99 : sum_hist_quantile(&n->hist, 0.99));
    put_u64(b, "entry_max_ns", n->hist.max);
    if (!n->no_emin)
        put_u64(b, "entry_min_ns", n->hist.min);
    if (!n->no_hist)
        hist_write(b, "hist", &n->hist);
    if (!n->no_chist)
        hist_write(b, "calls_hist", &n->chist);
    for (int x = 0; x < SUM_X_N; x++) {
        const struct sum_xkeys *k = &sum_xkeys[x];
        const struct sum_hist *h = &n->x[x].hist;

        if (!(w->xflags & k->flag))
            continue;
        put_u64(b, k->total, n->x[x].sum);
        if (k->rest != NULL)
            put_u64(b, k->rest, n->total_ns - n->x[x].sum);
        put_u64(b, k->p50, n->pts ? n->xpts[x][0] : sum_hist_quantile(h, 0.50));
        put_u64(b, k->p90, n->pts ? n->xpts[x][1] : sum_hist_quantile(h, 0.90));
        put_u64(b, k->p99, n->pts ? n->xpts[x][2] : sum_hist_quantile(h, 0.99));
        put_u64(b, k->entry_max, h->max);
        put_u64(b, k->entry_min, h->min);
        hist_write(b, k->hist, h);
    }
    if (n->truncated)
        buf_str(b, ",\"truncated\":true");
    if (n->async)
        buf_str(b, ",\"async\":true");
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

    /* the same time: by text, so that the order does not depend on the heap's */
    return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : strcmp(x->json, y->json);
}

/* A copy of s's slowest calls, slowest first (NULL when none, or out of
 * memory when s has some: *bad set); the caller frees it. */
static struct slow *slowest_sorted(const sum *s, int *bad)
{
    struct slow *sorted = NULL;

    *bad = 0;
    if (s->nheap > 0) {
        if ((sorted = malloc(s->nheap * sizeof *sorted)) == NULL) {
            *bad = 1;
            return NULL;
        }
        memcpy(sorted, s->heap, s->nheap * sizeof *sorted);
        qsort(sorted, s->nheap, sizeof *sorted, cmp_slow_desc);
    }
    return sorted;
}

/* Appends the slowest calls, slowest first; 0 or -1 (out of memory). */
static int slowest_write(const sum *s, mct_buf *b)
{
    int bad;
    struct slow *sorted = slowest_sorted(s, &bad);

    if (bad)
        return -1;
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

int sum_slowest_each(const sum *s, int (*fn)(void *ctx, const char *json, size_t len), void *ctx, mct_err *e)
{
    int bad, rc = 0;
    struct slow *sorted = slowest_sorted(s, &bad);

    if (bad)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory listing the slowest calls");
    for (size_t i = 0; i < s->nheap && rc == 0; i++)
        rc = fn(ctx, sorted[i].json, sorted[i].size);
    free(sorted);
    return rc;
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
            const struct mcount *mc = &s->mc[i];

            buf_printf(b, "%s{%s", i > 0 ? "," : "", w.names[i]);
            put_u64(b, "calls", mc->calls);
            put_u64(b, "calls_max", mc->calls_max);
            put_u64(b, "entries", mc->entries);
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

/* method_of's look-up, and what it keeps of it. */
static int method_load(sum *s, const call_tab *t, uint32_t id, size_t *mi, mct_err *e)
{
    const struct call_method *cm;
    struct smethod *m;

    if (s->tab_id != t->id) {
        if (s->nby_num > 0)
            memset(s->by_num, 0, s->nby_num * sizeof *s->by_num);
        s->tab_id = t->id;
    }
    cm = call_tab_get(t, id);
    if ((m = method_get(s, cm->cls, cm->name, cm->desc, e)) == NULL)
        return -1;
    if (id >= s->nby_num) {
        size_t n = t->n > id ? t->n : (size_t)id + 1;
        size_t *p = realloc(s->by_num, n * sizeof *p);

        if (p == NULL)
            return mct_err_set(e, MCT_E_NOMEM, "out of memory for the summary");
        memset(p + s->nby_num, 0, (n - s->nby_num) * sizeof *p);
        s->by_num = p;
        s->nby_num = n;
    }
    s->by_num[id] = m->idx + 1;
    *mi = m->idx;
    return 0;
}

/* Feeds node *i of c and its subtree to the visitor; *i moves past them. */
static int add_node(sum *s, const call_tab *t, const mct_call *c, size_t *i, mct_err *e)
{
    const struct call_node *nd = &c->nodes[(*i)++];

    if (enter_node(s, t, nd, c->flags, e) < 0)
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

int sum_count_call(sum *s, const call_tab *t, const mct_call *c, mct_err *e)
{
    size_t i = 0;

    return sum_begin_counts(s, e) < 0 || add_node(s, t, c, &i, e) < 0 || sum_end(s, e) < 0 ? -1 : 0;
}

/* ---- a summary's nodes, read-only ---------------------------------------------- */

const sum_node *sum_root(const sum *s)
{
    return s->top.first;
}

const sum_node *sum_node_kid(const sum_node *n)
{
    return n->first;
}

const sum_node *sum_node_next(const sum_node *n)
{
    return n->next;
}

void sum_node_view(const sum *s, const sum_node *n, struct sum_view *v)
{
    unsigned xflags = s->xhave & ~s->xlack;

    *v = (struct sum_view){
        .class_name = n->is_other ? SUM_OTHER_CLASS : n->m->class_name,
        .method = n->is_other ? SUM_OTHER_METHOD : n->m->method,
        .desc = n->is_other ? SUM_OTHER_DESC : n->m->desc,
        .calls = n->calls, .total_ns = n->total_ns, .self_ns = n->self_ns, .min_ns = n->min_ns,
        .max_ns = n->max_ns, .throws = n->throws, .entries = n->entries, .calls_min = n->calls_min,
        .calls_max = n->calls_max,
        .p50_ns = n->pts ? n->p50 : sum_hist_quantile(&n->hist, 0.50),
        .p90_ns = n->pts ? n->p90 : sum_hist_quantile(&n->hist, 0.90),
        .p99_ns = n->pts ? n->p99 : sum_hist_quantile(&n->hist, 0.99),
        .entry_min_ns = n->hist.min, .entry_max_ns = n->hist.max,
        .hist = n->no_hist || n->no_emin ? NULL : &n->hist,
        .chist = n->no_chist ? NULL : &n->chist,
        .truncated = n->truncated, .other = n->is_other, .async = n->async,
        .method_idx = n->is_other ? SUM_NO_METHOD : n->m->idx,
        .xflags = xflags,
    };
    for (int x = 0; x < SUM_X_N && xflags != 0; x++) {
        const struct sum_hist *h = &n->x[x].hist;

        if (!(xflags & sum_xkeys[x].flag))
            continue;
        v->x[x].total = n->x[x].sum;
        v->x[x].p50 = n->pts ? n->xpts[x][0] : sum_hist_quantile(h, 0.50);
        v->x[x].p90 = n->pts ? n->xpts[x][1] : sum_hist_quantile(h, 0.90);
        v->x[x].p99 = n->pts ? n->xpts[x][2] : sum_hist_quantile(h, 0.99);
        v->x[x].entry_min = h->min;
        v->x[x].entry_max = h->max;
        v->x[x].hist = h;
    }
}

size_t sum_method_count(const sum *s)
{
    return s->nmethods;
}

void sum_method_names(const sum *s, size_t i, const char **c, const char **m, const char **d)
{
    *c = s->methods[i]->class_name;
    *m = s->methods[i]->method;
    *d = s->methods[i]->desc;
}

size_t sum_method_find(const sum *s, const char *c, const char *m, const char *d)
{
    kit_cursor cur;

    for (uintptr_t v = kit_table_first(&s->method_index, names_hash(c, m, d), &cur); v != 0;
         v = kit_table_next(&s->method_index, &cur)) {
        const struct smethod *sm = (const struct smethod *)v;

        if (strcmp(sm->method, m) == 0 && strcmp(sm->class_name, c) == 0 && strcmp(sm->desc, d) == 0)
            return sm->idx;
    }
    return SUM_NO_METHOD;
}

size_t sum_slowest_count(const sum *s)
{
    return s->nheap;
}

void sum_method_counts(const sum *s, size_t i, uint64_t *calls, uint64_t *calls_max, uint64_t *entries)
{
    *calls = s->mc[i].calls;
    *calls_max = s->mc[i].calls_max;
    *entries = s->mc[i].entries;
}

void sum_totals(const sum *s, struct sum_totals *t)
{
    *t = (struct sum_totals){ .calls = s->calls, .not_traced = s->not_traced, .warmup = s->warmup,
                              .seen = s->seen, .folded = s->folded, .coarse = s->coarse,
                              .start_ns = s->span_start, .end_ns = s->span_end };
}

/* ---- reading a summary's JSON text ------------------------------------------------ */

/* Where a check is, as "root.children[2].calls" (cut short when very deep). */
struct vpath {
    const char *what;           /* "summary" */
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

/* A node's keys; the integers are NK_CALLS .. NK_EMIN. */
enum {
    NK_CLASS, NK_METHOD, NK_DESC, NK_CALLS, NK_TOTAL, NK_SELF, NK_MIN, NK_MAX, NK_THROWS,
    NK_ENTRIES, NK_CMIN, NK_CMAX, NK_P50, NK_P90, NK_P99, NK_EMAX, NK_EMIN, NK_HIST, NK_CHIST,
    NK_TRUNCATED, NK_ASYNC, NK_OTHER, NK_EXCEPTION, NK_CHILDREN, NK_N
};
static const char *const node_keys[NK_N] = {
    "class", "method", "desc", "calls", "total_ns", "self_ns", "min_ns", "max_ns", "throws",
    "entries", "calls_min", "calls_max", "p50_ns", "p90_ns", "p99_ns", "entry_max_ns", "entry_min_ns",
    "hist", "calls_hist", "truncated", "async", "other", "exception", "children"
};

/* A figure's keys (sum_xkeys), in the order they are written; a node's key
 * NK_N + x * XK_N + j is key j of figure x (node_keys_all). */
enum { XK_TOTAL, XK_REST, XK_P50, XK_P90, XK_P99, XK_EMAX, XK_EMIN, XK_HIST, XK_N };
#define NK_ALL (NK_N + SUM_X_N * XK_N)
#define NK_X(x, j) (NK_N + (x) * XK_N + (j))
_Static_assert(NK_ALL <= 64, "a node's keys seen are bits of a uint64_t");

/* All of a node's keys into keys[NK_ALL] (NULL: a figure without that key). */
static void node_keys_all(const char **keys)
{
    memcpy(keys, node_keys, sizeof node_keys);
    for (int x = 0; x < SUM_X_N; x++) {
        const struct sum_xkeys *k = &sum_xkeys[x];
        const char **f = keys + NK_X(x, 0);

        f[XK_TOTAL] = k->total;
        f[XK_REST] = k->rest;
        f[XK_P50] = k->p50;
        f[XK_P90] = k->p90;
        f[XK_P99] = k->p99;
        f[XK_EMAX] = k->entry_max;
        f[XK_EMIN] = k->entry_min;
        f[XK_HIST] = k->hist;
    }
}

/* The summary object's keys, and a method's. */
enum {
    TK_TYPE, TK_FINAL, TK_CALLS, TK_NOT_TRACED, TK_ROOT, TK_MORE, TK_METHODS, TK_SLOWEST,
    TK_WARMUP, TK_SEEN, TK_FOLDED, TK_COARSE, TK_START, TK_END, TK_PID, TK_N
};
static const char *const top_keys[TK_N] = {
    "type", "final", "calls", "not_traced", "root", "more_roots", "methods", "slowest",
    "warmup", "seen", "folded", "coarse", "start_ns", "end_ns", "pid"
};
enum { MK_CLASS, MK_METHOD, MK_DESC, MK_CALLS, MK_CMAX, MK_ENTRIES, MK_N };
static const char *const method_keys[MK_N] = { "class", "method", "desc", "calls", "calls_max", "entries" };

/* One summary's text being read. */
struct rctx {
    sum *s;                     /* NULL: checking only */
    jtok *t;
    struct vpath p;
    int flags;
    uint64_t base_calls;        /* s's calls before */
    int calls_known;
    uint64_t calls;             /* the summary's "calls", once read */
    /* nodes read before "calls": the one with the fewest (0) or most entries */
    int pend;
    uint64_t pend_entries;
    char pend_path[sizeof ((struct vpath *)0)->buf];
    uint64_t *ments;            /* each method's entries, checked at the end */
    size_t nments, capments;
    size_t *listed;             /* by method index: 1 + its place in "methods", 0 not yet */
    size_t nlisted;
    char *names[PROTO_MAX_DEPTH + 1][3];  /* names of the node at each depth (0: a method's) */
    size_t ncap[PROTO_MAX_DEPTH + 1][3];
    mct_buf rec;                /* a slowest call's text */
    const char *nkeys[NK_ALL];  /* a node's keys (node_keys_all) */
    int xknown;                 /* the root's figures are known (its children reached) */
    unsigned xflags;            /* its figures of sum_xkeys (XFLAGS bits): every node's */
};

/* The tokenizer's error, as e. */
static int syntax(struct rctx *r, mct_err *e)
{
    return mct_err_set(e, MCT_E_PROTO, "%s: not JSON (%s)", r->p.what, r->t->err);
}

/* Key k's index in keys[n] (its position expected first: *next; a NULL
 * key matches none), or -1. */
static int key_index(const char *k, const char *const *keys, int n, int *next)
{
    if (*next < n && keys[*next] != NULL && strcmp(keys[*next], k) == 0)
        return (*next)++;
    for (int i = 0; i < n; i++)
        if (keys[i] != NULL && strcmp(keys[i], k) == 0) {
            *next = i + 1;
            return i;
        }
    return -1;
}

/* The next key of an object in *key (its index in keys, -1 unknown, whose
 * value is skipped), and the kind of its value's first token in *k, checked
 * given once (*seen); 1, 0 at the object's end, -1 with e. */
static int next_key(struct rctx *r, const char *const *keys, int n, int *guess, uint64_t *seen, int *key,
                    int *k, mct_err *e)
{
    for (;;) {
        *k = jt_next(r->t);
        if (*k == JT_OBJ_END)
            return 0;
        if (*k != JT_KEY)
            return syntax(r, e);
        *key = key_index(r->t->str, keys, n, guess);
        if (*key >= 0 && (*seen & (uint64_t)1 << *key))
            return vbad(e, &r->p, keys[*key], "given twice");
        *k = jt_next(r->t);
        if (*key >= 0) {
            *seen |= (uint64_t)1 << *key;
            return 1;
        }
        if (jt_skip(r->t, *k) < 0)
            return syntax(r, e);
    }
}

/* An integer >= 0 (token k) into *v. */
static int read_int(struct rctx *r, int k, const char *key, uint64_t *v, mct_err *e)
{
    if (k == JT_ERR)
        return syntax(r, e);
    if (k != JT_INT || r->t->ival < 0)
        return vbad(e, &r->p, key, "not an integer >= 0");
    *v = (uint64_t)r->t->ival;
    return 0;
}

static int read_bool(struct rctx *r, int k, const char *key, int *v, mct_err *e)
{
    if (k == JT_ERR)
        return syntax(r, e);
    if (k != JT_TRUE && k != JT_FALSE)
        return vbad(e, &r->p, key, "not true or false");
    *v = k == JT_TRUE;
    return 0;
}

/* A non-empty string of at most 65535 bytes (token k), copied into *buf
 * (capacity *cap) unless buf is NULL. */
static int read_str(struct rctx *r, int k, const char *key, char **buf, size_t *cap, mct_err *e)
{
    if (k == JT_ERR)
        return syntax(r, e);
    if (k != JT_STR)
        return vbad(e, &r->p, key, "not a string");
    if (r->t->len == 0 || r->t->len > 65535)
        return vbad(e, &r->p, key, "a string of %zu bytes, not 1 to 65535", r->t->len);
    if (buf == NULL)
        return 0;
    if (*cap < r->t->len + 1) {
        char *p = realloc(*buf, r->t->len + 1);

        if (p == NULL)
            return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a summary");
        *buf = p;
        *cap = r->t->len + 1;
    }
    memcpy(*buf, r->t->str, r->t->len + 1);
    return 0;
}

/* A histogram (token k): index, count, ... flat, indexes ascending and in
 * range, counts from 1, into h (NULL: checked only); *total: its count. */
static int read_hist(struct rctx *r, int k, const char *key, struct sum_hist *h, uint64_t *total, mct_err *e)
{
    int64_t last = -1;
    size_t grown;

    *total = 0;
    if (k == JT_ERR)
        return syntax(r, e);
    if (k != JT_ARR)
        return vbad(e, &r->p, key, "not an array of bucket, count, bucket, count, ...");
    for (size_t i = 0; (k = jt_next(r->t)) != JT_ARR_END; i++) {
        int64_t idx = r->t->ival;

        if (k == JT_ERR)
            return syntax(r, e);
        if (k == JT_INT && (k = jt_next(r->t)) == JT_ARR_END)
            return vbad(e, &r->p, key, "not an array of bucket, count, bucket, count, ...");
        if (k == JT_ERR)
            return syntax(r, e);
        if (k != JT_INT)
            return vbad(e, &r->p, key, "bucket %zu: not two integers (bucket, count)", i);
        if (idx <= last || idx >= (int64_t)(SUM_HIST_GROUPS * SUM_HIST_SUB))
            return vbad(e, &r->p, key, "bucket %zu: index %lld not ascending or past %u", i, (long long)idx,
                        SUM_HIST_GROUPS * SUM_HIST_SUB - 1);
        if (r->t->ival < 1 || (uint64_t)r->t->ival > SUM_HIST_CNT_MAX)
            return vbad(e, &r->p, key, "bucket %zu: count %lld not between 1 and 2^51-1", i,
                        (long long)r->t->ival);
        last = idx;
        *total += (uint64_t)r->t->ival;
        if (h == NULL)
            continue;
        if (hist_room(h, &grown, e) < 0)
            return -1;
        h->b[h->n++] = HIST_WORD(idx, (uint64_t)r->t->ival);
    }
    if (h != NULL)
        h->count = *total > INT64_MAX ? INT64_MAX : *total;
    return 0;
}

/* The node of the text at depth, under parent (s's top for a root), with
 * the names read into r->names[depth] and other its "other", new: a path
 * twice (which the budget of the agent never makes) is refused, so that
 * the summary read holds what the text says. NULL with e. */
static struct snode *node_at(struct rctx *r, struct snode *parent, int depth, int other, mct_err *e)
{
    struct smethod *m;
    struct snode *d;

    if (other && parent == &r->s->top) {
        vbad(e, &r->p, "other", "true on a root (only a node under another holds the paths past the budget)");
        return NULL;
    }
    if (other) {
        d = other_get(parent, e);
    } else {
        m = method_get(r->s, r->names[depth][0], r->names[depth][1], r->names[depth][2], e);
        d = m == NULL ? NULL : child_get(r->s, parent, m, e);
    }
    if (d != NULL && d->seen) {
        vbad(e, &r->p, NULL, other ? "a second other node under its parent" :
             "the path of a node before it again (a summary holds a call path once)");
        return NULL;
    }
    return d;
}

/* Adds the figures of a node of the text (v, its keys in seen) to d, new,
 * as read; src holds its histograms. */
static int node_put(struct rctx *r, struct snode *d, struct snode *src, const uint64_t *v, uint64_t seen,
                    int other, mct_err *e)
{
    src->calls = v[NK_CALLS];
    src->total_ns = v[NK_TOTAL];
    src->self_ns = v[NK_SELF];
    src->min_ns = v[NK_MIN];
    src->max_ns = v[NK_MAX];
    src->throws = v[NK_THROWS];
    src->entries = v[NK_ENTRIES];
    src->calls_min = v[NK_CMIN];
    src->calls_max = v[NK_CMAX];
    src->seen = 1;
    src->hist.min = v[NK_EMIN];
    src->hist.max = v[NK_EMAX];
    src->chist.min = v[NK_CMIN];
    src->chist.max = v[NK_CMAX];
    /* d is new: its histograms are the ones read (node_add adds the rest) */
    r->s->json += (size_t)(src->hist.n + src->chist.n) * BUCKET_JSON;
    d->hist = src->hist;
    d->chist = src->chist;
    sum_hist_init(&src->hist);
    sum_hist_init(&src->chist);
    for (int x = 0; x < SUM_X_N; x++) {
        if (!(r->xflags & sum_xkeys[x].flag))
            continue;
        src->x[x].sum = v[NK_X(x, XK_TOTAL)];
        src->x[x].hist.min = v[NK_X(x, XK_EMIN)];
        src->x[x].hist.max = v[NK_X(x, XK_EMAX)];
        r->s->json += (size_t)src->x[x].hist.n * BUCKET_JSON;
        d->x[x].hist = src->x[x].hist;
        sum_hist_init(&src->x[x].hist);
    }
    if (node_add(r->s, d, src, r->calls_known ? sat_add(r->base_calls, r->calls) : UINT64_MAX, e) < 0)
        return -1;
    if (d->is_other && !other)
        r->s->folded = sat_add(r->s->folded, src->calls);
    d->pts = 1;
    d->p50 = v[NK_P50];
    d->p90 = v[NK_P90];
    d->p99 = v[NK_P99];
    d->no_hist = !(seen & (uint64_t)1 << NK_HIST);
    d->no_chist = !(seen & (uint64_t)1 << NK_CHIST);
    d->no_emin = !(seen & (uint64_t)1 << NK_EMIN);
    d->hist.min = v[NK_EMIN];
    d->hist.max = v[NK_EMAX];
    for (int x = 0; x < SUM_X_N; x++)
        for (int j = 0; j < 3 && (r->xflags & sum_xkeys[x].flag); j++)
            d->xpts[x][j] = v[NK_X(x, XK_P50 + j)];
    return 0;
}

/* Checks the figures of sum_xkeys of a node (v, its keys in seen; totals
 * of its histograms at totals[x]): present exactly when the root's, each
 * with its percentiles ordered and its histogram adding up to entries. */
static int xfigs_check(struct rctx *r, const uint64_t *v, uint64_t seen, int other, const uint64_t *totals,
                       mct_err *e)
{
    static const int ints[] = { XK_TOTAL, XK_P50, XK_P90, XK_P99, XK_EMIN, XK_EMAX };

    for (int x = 0; x < SUM_X_N; x++) {
        const struct sum_xkeys *k = &sum_xkeys[x];
        const uint64_t *xv = v + NK_X(x, 0);
        uint64_t fig = xv[XK_TOTAL], total = v[NK_TOTAL], entries = v[NK_ENTRIES];

        if (!(r->xflags & k->flag)) {
            if (seen & (uint64_t)1 << NK_X(x, XK_TOTAL))
                return vbad(e, &r->p, k->total, "present though the root has none before its children");
            continue;
        }
        for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
            if (!(seen & (uint64_t)1 << NK_X(x, ints[i])))
                return vbad(e, &r->p, r->nkeys[NK_X(x, ints[i])], "missing (an integer >= 0)");
        if (!(seen & (uint64_t)1 << NK_X(x, XK_HIST)))
            return vbad(e, &r->p, k->hist, "missing (an array of bucket, count, ...)");
        if (other ? totals[x] < entries : totals[x] != entries)
            return vbad(e, &r->p, k->hist, "its counts add up to %llu, not entries (%llu)",
                        (unsigned long long)totals[x], (unsigned long long)entries);
        if (xv[XK_EMIN] > xv[XK_P50] || xv[XK_P50] > xv[XK_P90] || xv[XK_P90] > xv[XK_P99] ||
            xv[XK_P99] > xv[XK_EMAX])
            return vbad(e, &r->p, k->p50, "%s <= %s <= %s <= %s <= %s does not hold", k->entry_min, k->p50,
                        k->p90, k->p99, k->entry_max);
        if (k->within_total && fig > total)
            return vbad(e, &r->p, k->total, "%llu, more than total_ns (%llu)", (unsigned long long)fig,
                        (unsigned long long)total);
        if (k->rest != NULL && (seen & (uint64_t)1 << NK_X(x, XK_REST)) && xv[XK_REST] != total - fig)
            return vbad(e, &r->p, k->rest, "%llu, not total_ns - %s (%llu)", (unsigned long long)xv[XK_REST],
                        k->total, (unsigned long long)(total - fig));
    }
    return 0;
}

/* Checks what a node's keys say together (all of them read). */
static int node_check(struct rctx *r, const uint64_t *v, uint64_t seen, int other, const uint64_t *totals,
                      mct_err *e)
{
    for (int i = NK_CLASS; i <= NK_DESC; i++)
        if (!(seen & (uint64_t)1 << i))
            return vbad(e, &r->p, node_keys[i], "missing (a string)");
    for (int i = NK_CALLS; i <= NK_EMAX; i++)
        if (!(seen & (uint64_t)1 << i))
            return vbad(e, &r->p, node_keys[i], "missing (an integer >= 0)");
    if (r->calls_known && (v[NK_ENTRIES] < 1 || v[NK_ENTRIES] > r->calls))
        return vbad(e, &r->p, "entries", "%llu, not between 1 and the summary's calls (%lld)",
                    (unsigned long long)v[NK_ENTRIES], (long long)r->calls);
    if (!r->calls_known && (!r->pend || (r->pend_entries > 0 && (v[NK_ENTRIES] == 0 ||
                                                                  v[NK_ENTRIES] > r->pend_entries)))) {
        r->pend = 1;
        r->pend_entries = v[NK_ENTRIES];
        memcpy(r->pend_path, r->p.buf, r->p.len + 1);
    }
    if (v[NK_CMIN] > v[NK_CMAX])
        return vbad(e, &r->p, "calls_min", "%llu, more than calls_max (%llu)",
                    (unsigned long long)v[NK_CMIN], (unsigned long long)v[NK_CMAX]);
    if (v[NK_P50] > v[NK_P90] || v[NK_P90] > v[NK_P99] || v[NK_P99] > v[NK_EMAX])
        return vbad(e, &r->p, "p50_ns", "p50_ns <= p90_ns <= p99_ns <= entry_max_ns does not hold");
    if ((seen & (uint64_t)1 << NK_EMIN) && v[NK_EMIN] > v[NK_P50])
        return vbad(e, &r->p, "entry_min_ns", "%llu, more than p50_ns", (unsigned long long)v[NK_EMIN]);
    for (int i = 0; i < 2; i++)
        if ((seen & (uint64_t)1 << (NK_HIST + i)) && (other ? totals[i] < v[NK_ENTRIES] : totals[i] != v[NK_ENTRIES]))
            return vbad(e, &r->p, node_keys[NK_HIST + i], "its counts add up to %llu, not entries (%llu)",
                        (unsigned long long)totals[i], (unsigned long long)v[NK_ENTRIES]);
    /* a root without children leaves its figures unknown: said just below */
    if (r->xknown && xfigs_check(r, v, seen, other, totals + 2, e) < 0)
        return -1;
    if (!(seen & (uint64_t)1 << NK_CHILDREN))
        return vbad(e, &r->p, "children", "missing (an array of nodes)");
    return 0;
}

static int read_node(struct rctx *r, int k, struct snode *parent, struct snode *fold, int depth, mct_err *e);

/* The root's figures (its keys read before its children: seen) are every
 * node's; s is charged for them from its first node on. */
static void root_figures(struct rctx *r, uint64_t seen)
{
    r->xknown = 1;
    for (int x = 0; x < SUM_X_N; x++)
        if (seen & (uint64_t)1 << NK_X(x, XK_TOTAL))
            r->xflags |= sum_xkeys[x].flag;
    r->s->xhave |= r->xflags;
    r->s->xlack |= ~r->xflags & XFLAGS;
}

/* A node's children (token k), under d, or folded into fold. */
static int read_kids(struct rctx *r, int k, struct snode *d, struct snode *fold, int depth, mct_err *e)
{
    if (k == JT_ERR)
        return syntax(r, e);
    if (k != JT_ARR)
        return vbad(e, &r->p, "children", "not an array");
    for (size_t i = 0; (k = jt_next(r->t)) != JT_ARR_END; i++) {
        size_t mark = vpush(&r->p, "%schildren[%zu]", r->p.len > 0 ? "." : "", i);

        if (read_node(r, k, d, fold, depth + 1, e) < 0)
            return -1;
        vpop(&r->p, mark);
    }
    return 0;
}

/* The node whose first token is k, at depth (1: a root), under parent
 * (s's top for a root), or, with fold, into the other node that takes its
 * subtree (its calls, self time and throws). */
static int read_node(struct rctx *r, int k, struct snode *parent, struct snode *fold, int depth, mct_err *e)
{
    uint64_t v[NK_ALL] = { 0 }, totals[2 + SUM_X_N] = { 0 };
    uint64_t seen = 0;
    int truncated = 0, async = 0, other = 0, kids = 0, key, guess = 0, more, rc = -1;
    struct snode src = { 0 }, *d = NULL;

    if (k == JT_ERR)
        return syntax(r, e);
    if (k != JT_OBJ)
        return vbad(e, &r->p, NULL, "not an object (a node)");
    if (depth > PROTO_MAX_DEPTH)
        return vbad(e, &r->p, NULL, "nested deeper than %d levels", PROTO_MAX_DEPTH);
    while ((more = next_key(r, r->nkeys, NK_ALL, &guess, &seen, &key, &k, e)) > 0) {
        const char *name = r->nkeys[key];
        int xk = key < NK_N ? -1 : (key - NK_N) % XK_N, x = xk < 0 ? 0 : (key - NK_N) / XK_N;

        switch (key) {
        case NK_CLASS:
        case NK_METHOD:
        case NK_DESC:
            more = read_str(r, k, name, &r->names[depth][key], &r->ncap[depth][key], e);
            break;
        case NK_EXCEPTION:
            more = read_str(r, k, name, NULL, NULL, e);
            break;
        case NK_TRUNCATED:
            more = read_bool(r, k, name, &truncated, e);
            break;
        case NK_ASYNC:
            more = read_bool(r, k, name, &async, e);
            break;
        case NK_OTHER:
            more = read_bool(r, k, name, &other, e);
            break;
        case NK_HIST:
        case NK_CHIST:
            more = read_hist(r, k, name, fold != NULL ? NULL : key == NK_HIST ? &src.hist : &src.chist,
                             &totals[key - NK_HIST], e);
            break;
        case NK_CHILDREN:
            for (int i = NK_CLASS; i <= NK_DESC && more >= 0; i++)
                if (!(seen & (uint64_t)1 << i))
                    more = vbad(e, &r->p, node_keys[i], "missing (a string)");
            if (more >= 0 && depth == 1 && !r->xknown)
                root_figures(r, seen);
            if (more >= 0 && fold == NULL && (d = node_at(r, parent, depth, other, e)) == NULL)
                more = -1;
            if (more >= 0)
                more = read_kids(r, k, d, fold != NULL || !d->is_other ? fold : d, depth, e);
            kids = 1;
            break;
        default:
            if (xk == XK_HIST)
                more = read_hist(r, k, name, fold != NULL ? NULL : &src.x[x].hist, &totals[2 + x], e);
            else
                more = read_int(r, k, name, &v[key], e);
            break;
        }
        if (more < 0)
            goto out;
        if (kids && (key == NK_OTHER || key <= NK_DESC)) {
            vbad(e, &r->p, name, "after children (give a node's names and \"other\" before its children)");
            goto out;
        }
        if (kids && xk == XK_TOTAL) {
            vbad(e, &r->p, name, "after children (give a node's figures before its children: the root's say "
                 "which every node carries)");
            goto out;
        }
    }
    if (more < 0 || node_check(r, v, seen, other, totals, e) < 0)
        goto out;
    src.truncated = truncated != 0;
    src.async = async != 0;
    if (other && async) {
        vbad(e, &r->p, "async", "true on an other node (it folds paths, not one task)");
        goto out;
    }
    if (fold != NULL) {
        fold->calls = sat_add(fold->calls, v[NK_CALLS]);
        fold->self_ns = sat_add(fold->self_ns, v[NK_SELF]);
        fold->throws = sat_add(fold->throws, v[NK_THROWS]);
        fold->truncated |= src.truncated;
        if (!other)
            r->s->folded = sat_add(r->s->folded, v[NK_CALLS]);
        rc = 0;
    } else {
        rc = node_put(r, d, &src, v, seen, other, e);
    }
out:
    sum_hist_reset(&src.hist);
    sum_hist_reset(&src.chist);
    for (int x = 0; x < SUM_X_N; x++)
        sum_hist_reset(&src.x[x].hist);
    return rc;
}

/* A method of the list (token k, the i-th). */
static int read_method(struct rctx *r, int k, size_t i, mct_err *e)
{
    uint64_t v[MK_N] = { 0 };
    uint64_t seen = 0;
    int key, guess = 0, more;
    struct smethod *dm;
    struct mcount *dc;

    if (k == JT_ERR)
        return syntax(r, e);
    if (k != JT_OBJ)
        return vbad(e, &r->p, NULL, "not an object");
    while ((more = next_key(r, method_keys, MK_N, &guess, &seen, &key, &k, e)) > 0) {
        if (key <= MK_DESC)
            more = read_str(r, k, method_keys[key], &r->names[0][key], &r->ncap[0][key], e);
        else
            more = read_int(r, k, method_keys[key], &v[key], e);
        if (more < 0)
            return -1;
    }
    if (more < 0)
        return -1;
    for (int j = 0; j < MK_N; j++)
        if (!(seen & (uint64_t)1 << j))
            return vbad(e, &r->p, method_keys[j], j <= MK_DESC ? "missing (a string)" : "missing (an integer >= 0)");
    if (v[MK_CMAX] > v[MK_CALLS])
        return vbad(e, &r->p, "calls_max", "%llu, more than calls (%llu)", (unsigned long long)v[MK_CMAX],
                    (unsigned long long)v[MK_CALLS]);
    if (buf_grow(&r->ments, &r->capments, r->nments, sizeof *r->ments, 16) < 0)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a summary");
    r->ments[r->nments++] = v[MK_ENTRIES];
    if ((dm = method_get(r->s, r->names[0][0], r->names[0][1], r->names[0][2], e)) == NULL)
        return -1;
    if (dm->idx < r->nlisted && r->listed[dm->idx] != 0)
        return vbad(e, &r->p, NULL, "the method of methods[%zu] again (a summary lists a method once)",
                    r->listed[dm->idx] - 1);
    if (dm->idx >= r->nlisted) {
        size_t cap = dm->idx + 1 > 2 * r->nlisted ? dm->idx + 1 : 2 * r->nlisted;
        size_t *p = realloc(r->listed, cap * sizeof *p);

        if (p == NULL)
            return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a summary");
        memset(p + r->nlisted, 0, (cap - r->nlisted) * sizeof *p);
        r->listed = p;
        r->nlisted = cap;
    }
    r->listed[dm->idx] = i + 1;
    dc = &r->s->mc[dm->idx];
    dc->calls = sat_add(dc->calls, v[MK_CALLS]);
    dc->entries = sat_add(dc->entries, v[MK_ENTRIES]);
    if (v[MK_CMAX] > dc->calls_max)
        dc->calls_max = v[MK_CMAX];
    return 0;
}

/* The slowest calls (token k): each a call object, checked, kept (flags). */
static int read_slowest(struct rctx *r, int k, size_t *n, mct_err *e)
{
    if (k == JT_ERR)
        return syntax(r, e);
    if (k != JT_ARR)
        return vbad(e, &r->p, "slowest", "not an array");
    for (*n = 0;; (*n)++) {
        const char *text;
        size_t len;
        json_error_t je;
        json_t *c;
        char at[32];
        int rc;

        buf_reset(&r->rec);
        r->t->rec = &r->rec;
        k = jt_next(r->t);
        rc = k == JT_ARR_END ? 0 : jt_skip(r->t, k);
        r->t->rec = NULL;
        if (k == JT_ARR_END)
            return 0;
        if (rc < 0 || k == JT_ERR)
            return syntax(r, e);
        if (buf_failed(&r->rec))
            return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a summary");
        if (*n >= SUM_SLOWEST_MAX)
            return vbad(e, &r->p, "slowest", "%zu calls, more than a summary keeps", *n + 1);
        text = (const char *)r->rec.data;
        len = r->rec.len;
        while (len > 0 && (*text == ',' || *text == ' ' || *text == '\t' || *text == '\r'))
            text++, len--;
        c = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
        snprintf(at, sizeof at, "slowest[%zu]", *n);
        if (c == NULL)
            return mct_err_set(e, MCT_E_PROTO, "%s: %s: not JSON (%s)", r->p.what, at, je.text);
        rc = call_json_check_at(c, "summary", at, e);
        if (rc == 0 && (r->flags & SUM_READ_SLOWEST)) {
            uint64_t ns = (uint64_t)json_integer_value(json_object_get(json_object_get(c, "root"), "total_ns"));
            char *keep;

            if (sum_slowest_wants(r->s, ns)) {
                if ((keep = json_dumps(c, JSON_COMPACT | JSON_PRESERVE_ORDER)) == NULL)
                    rc = mct_err_set(e, MCT_E_NOMEM, "out of memory keeping one of the slowest calls");
                else
                    slowest_keep(r->s, ns, keep, strlen(keep));
            }
        }
        json_decref(c);
        if (rc < 0)
            return -1;
    }
}

/* Checks what the summary's keys say together, all read. */
static int top_check(struct rctx *r, const uint64_t *v, uint64_t seen, int root_null, size_t nslow, mct_err *e)
{
    static const int req[] = { TK_TYPE, TK_FINAL, TK_CALLS, TK_NOT_TRACED };
    static const char *const what[] = { "missing (\"summary\")", "missing (true or false)",
                                        "missing (an integer >= 0)", "missing (an integer >= 0)" };

    for (size_t i = 0; i < sizeof req / sizeof req[0]; i++)
        if (!(seen & (uint64_t)1 << req[i]))
            return vbad(e, &r->p, top_keys[req[i]], "%s", what[i]);
    if (!(seen & (uint64_t)1 << TK_ROOT))
        return vbad(e, &r->p, "root", "missing (a node, or null when calls is 0)");
    if (root_null != (v[TK_CALLS] == 0))
        return vbad(e, &r->p, "root", v[TK_CALLS] == 0 ? "not null although calls is 0" :
                    "null although calls is %llu", (unsigned long long)v[TK_CALLS]);
    if (r->pend && (r->pend_entries < 1 || r->pend_entries > v[TK_CALLS])) {
        memcpy(r->p.buf, r->pend_path, sizeof r->p.buf);
        r->p.len = strlen(r->p.buf);
        return vbad(e, &r->p, "entries", "%llu, not between 1 and the summary's calls (%lld)",
                    (unsigned long long)r->pend_entries, (long long)v[TK_CALLS]);
    }
    if (!(seen & (uint64_t)1 << TK_METHODS))
        return vbad(e, &r->p, "methods", "missing (an array)");
    for (size_t i = 0; i < r->nments; i++)
        if (r->ments[i] > sat_add(v[TK_CALLS], v[TK_WARMUP])) {
            size_t mark = vpush(&r->p, "methods[%zu]", i);
            int rc = vbad(e, &r->p, "entries", "%llu, more than the summary's calls and warm-up calls (%llu)",
                          (unsigned long long)r->ments[i], (unsigned long long)(v[TK_CALLS] + v[TK_WARMUP]));

            vpop(&r->p, mark);
            return rc;
        }
    if (!(seen & (uint64_t)1 << TK_SLOWEST))
        return vbad(e, &r->p, "slowest", "missing (an array)");
    /* the span as sum_write_json writes it: both, end_ns not 0 */
    if (!(seen & (uint64_t)1 << TK_START) != !(seen & (uint64_t)1 << TK_END))
        return vbad(e, &r->p, seen & (uint64_t)1 << TK_START ? "end_ns" : "start_ns",
                    "missing (the span's other end is given)");
    if ((seen & (uint64_t)1 << TK_END) && (v[TK_END] == 0 || v[TK_END] < v[TK_START]))
        return vbad(e, &r->p, "end_ns", "%llu, 0 or before start_ns", (unsigned long long)v[TK_END]);
    if (nslow > v[TK_CALLS])
        return vbad(e, &r->p, "slowest", "%zu calls, more than the summary's calls", nslow);
    return 0;
}

/* One list of the summary (key, token k): its roots, methods or slowest. */
static int read_list(struct rctx *r, int key, int k, int root_null, size_t *nslow, mct_err *e)
{
    struct snode *top = &r->s->top;

    if (key == TK_SLOWEST)
        return read_slowest(r, k, nslow, e);
    if (k == JT_ERR)
        return syntax(r, e);
    if (k != JT_ARR || (key == TK_MORE && root_null))
        return vbad(e, &r->p, top_keys[key], key == TK_MORE ? "not an array of nodes after a root" :
                    "not an array");
    for (size_t i = 0; (k = jt_next(r->t)) != JT_ARR_END; i++) {
        size_t mark = vpush(&r->p, "%s[%zu]", top_keys[key], i);
        int rc = key == TK_MORE ? read_node(r, k, top, NULL, 1, e) : read_method(r, k, i, e);

        if (rc < 0)
            return -1;
        vpop(&r->p, mark);
    }
    return 0;
}

/* sum_read over r. */
static int read_summary(struct rctx *r, struct sum_info *info, mct_err *e)
{
    uint64_t v[TK_N] = { 0 };
    uint64_t seen = 0;
    int key, k, guess = 0, more, root_null = 1;
    size_t nslow = 0;

    if (r->flags & SUM_READ_TYPE_READ) {
        seen |= (uint64_t)1 << TK_TYPE;
        guess = TK_FINAL;
    } else if ((k = jt_next(r->t)) != JT_OBJ) {
        return k == JT_ERR ? syntax(r, e) : vbad(e, &r->p, NULL, "not a JSON object");
    }
    while ((more = next_key(r, top_keys, TK_N, &guess, &seen, &key, &k, e)) > 0) {
        switch (key) {
        case TK_TYPE:
            if (k == JT_ERR)
                return syntax(r, e);
            if (k != JT_STR || strcmp(r->t->str, "summary") != 0)
                return vbad(e, &r->p, "type", "not \"summary\"");
            break;
        case TK_FINAL:
            more = read_bool(r, k, "final", &info->final, e);
            break;
        case TK_PID:
            if (k == JT_INT)
                info->pid = r->t->ival;
            else if (jt_skip(r->t, k) < 0)
                more = syntax(r, e);
            break;
        case TK_ROOT:
            if (k == JT_NULL)
                break;
            root_null = 0;
            if (r->calls_known && r->calls == 0)
                return vbad(e, &r->p, "root", "not null although calls is 0");
            vpush(&r->p, "root");
            more = read_node(r, k, &r->s->top, NULL, 1, e);
            if (more >= 0)
                vpop(&r->p, 0);
            break;
        case TK_MORE:
        case TK_METHODS:
        case TK_SLOWEST:
            more = read_list(r, key, k, root_null, &nslow, e);
            break;
        default:
            more = read_int(r, k, top_keys[key], &v[key], e);
            if (more >= 0 && key == TK_CALLS) {
                r->calls_known = 1;
                r->calls = v[key];
            }
            break;
        }
        if (more < 0)
            return -1;
        if (key == TK_ROOT && r->calls_known && root_null && r->calls > 0)
            return vbad(e, &r->p, "root", "null although calls is %llu", (unsigned long long)r->calls);
    }
    if (more < 0 || top_check(r, v, seen, root_null, nslow, e) < 0)
        return -1;
    info->slowest = nslow;
    r->s->calls = sat_add(r->s->calls, v[TK_CALLS]);
    r->s->not_traced = sat_add(r->s->not_traced, v[TK_NOT_TRACED]);
    r->s->warmup = sat_add(r->s->warmup, v[TK_WARMUP]);
    r->s->seen = sat_add(r->s->seen, v[TK_SEEN]);
    r->s->folded = sat_add(r->s->folded, v[TK_FOLDED]);
    r->s->coarse = sat_add(r->s->coarse, v[TK_COARSE]);
    if (v[TK_END] != 0)
        sum_set_span(r->s, (int64_t)v[TK_START], (int64_t)v[TK_END]);
    return 0;
}

int sum_read(sum *s, jtok *t, int flags, struct sum_info *info, mct_err *e)
{
    struct rctx *r = calloc(1, sizeof *r);
    int rc;

    *info = (struct sum_info){ 0 };
    if (r == NULL)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a summary");
    if (s->in_call) {
        free(r);
        return mct_err_set(e, MCT_E_INTERNAL, "summary: merged in the middle of a call");
    }
    r->s = s;
    r->t = t;
    r->flags = flags;
    r->p.what = "summary";
    node_keys_all(r->nkeys);
    buf_init(&r->rec);
    r->base_calls = s->calls;
    s->unbounded++;
    rc = read_summary(r, info, e);
    s->unbounded--;
    for (int d = 0; d <= PROTO_MAX_DEPTH; d++)
        for (int i = 0; i < 3; i++)
            free(r->names[d][i]);
    free(r->ments);
    free(r->listed);
    buf_free(&r->rec);
    free(r);
    return rc;
}

sum *sum_read_text(const void *text, size_t n, struct sum_info *info, mct_err *e)
{
    sum *s = sum_new(SUM_SLOWEST_MAX, e);
    jtok t;
    int rc;

    if (s == NULL)
        return NULL;
    jt_init_mem(&t, text, n, SIZE_MAX);
    rc = sum_read(s, &t, SUM_READ_SLOWEST, info, e);
    if (rc == 0 && jt_next(&t) != JT_EOL)
        rc = mct_err_set(e, MCT_E_PROTO, "summary: %s", t.failed ? t.err : "more than one JSON value");
    jt_free(&t);
    if (rc < 0) {
        sum_free(s);
        return NULL;
    }
    return s;
}

/* sum_read of j's text into s, with flags. */
static int read_json(sum *s, const json_t *j, int flags, mct_err *e)
{
    char *text = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
    struct sum_info info;
    jtok t;
    int rc;

    if (text == NULL)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a summary");
    jt_init_mem(&t, text, strlen(text), SIZE_MAX);
    rc = sum_read(s, &t, flags, &info, e);
    jt_free(&t);
    free(text);
    return rc;
}

int sum_json_check(const json_t *j, mct_err *e)
{
    sum *s = sum_new(0, e);
    int rc = s == NULL ? -1 : read_json(s, j, 0, e);

    sum_free(s);
    return rc;
}
