/* kit.c — see kit.h. */
#include "kit.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

/* --- arena -------------------------------------------------------------------- */

struct kit_chunk {
    struct kit_chunk *next;
    size_t used, cap;
    alignas(max_align_t) unsigned char mem[];
};

void kit_arena_init(kit_arena *a, size_t chunk)
{
    a->head = NULL;
    a->chunk = chunk;
}

void *kit_arena_alloc(kit_arena *a, size_t n)
{
    struct kit_chunk *c = a->head;
    size_t align = alignof(max_align_t), need;

    if (n > SIZE_MAX - align - sizeof *c)
        return NULL;
    need = n == 0 ? align : (n + align - 1) & ~(align - 1);
    if (c == NULL || c->cap - c->used < need) {
        size_t size = a->chunk ? a->chunk : KIT_ARENA_CHUNK;
        size_t cap = need > size ? need : size;

        if ((c = malloc(sizeof *c + cap)) == NULL)
            return NULL;
        c->used = 0;
        c->cap = cap;
        /* A block that fills a chunk of its own goes behind the current
         * chunk, whose free room stays in use. */
        if (a->head != NULL && need >= size) {
            c->next = a->head->next;
            a->head->next = c;
            c->used = need;
            return c->mem;
        }
        c->next = a->head;
        a->head = c;
    }
    c->used += need;
    return c->mem + c->used - need;
}

void *kit_arena_zalloc(kit_arena *a, size_t n)
{
    void *p = kit_arena_alloc(a, n);

    if (p != NULL)
        memset(p, 0, n);
    return p;
}

void *kit_arena_memdup(kit_arena *a, const void *p, size_t n)
{
    void *d = kit_arena_alloc(a, n);

    if (d != NULL && n != 0)
        memcpy(d, p, n);
    return d;
}

char *kit_arena_strdup(kit_arena *a, const char *s)
{
    return kit_arena_memdup(a, s, strlen(s) + 1);
}

void kit_arena_free(kit_arena *a)
{
    struct kit_chunk *c = a->head;

    while (c != NULL) {
        struct kit_chunk *next = c->next;

        free(c);
        c = next;
    }
    a->head = NULL;
}

/* --- hash ------------------------------------------------------------------------ */

/* The final avalanche: every input bit reaches the low bits, which the
 * table indexes with. */
static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 33);
}

uint64_t kit_hash(const void *p, size_t n, uint64_t seed)
{
    const unsigned char *s = p;
    uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ULL), w;

    for (; n >= 8; n -= 8, s += 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
        h ^= h >> 29;
    }
    w = 0;
    if (n != 0)
        memcpy(&w, s, n);
    h = mix(h ^ w ^ ((uint64_t)n << 56));
    return h ? h : 1;
}

uint64_t kit_hash_str(const char *s, uint64_t seed)
{
    return kit_hash(s, strlen(s), seed);
}

uint64_t kit_hash_u64(uint64_t k)
{
    uint64_t h = mix(k ^ 0x243f6a8885a308d3ULL);

    return h ? h : 1;
}

/* --- table ----------------------------------------------------------------------- */

#define TABLE_FIRST 16

/* The first slot from i on (probing order) holding a value under c's hash,
 * or 0; the table is at most half full, so an empty slot ends the walk. */
static uintptr_t scan(const kit_table *t, kit_cursor *c, size_t i)
{
    size_t mask = t->cap - 1;

    for (; t->slots[i].val != 0; i = (i + 1) & mask)
        if (t->slots[i].hash == c->hash) {
            c->i = i;
            return t->slots[i].val;
        }
    return 0;
}

uintptr_t kit_table_first(const kit_table *t, uint64_t hash, kit_cursor *c)
{
    c->hash = hash;
    c->i = 0;
    if (t->cap == 0)
        return 0;
    return scan(t, c, hash & (t->cap - 1));
}

uintptr_t kit_table_next(const kit_table *t, kit_cursor *c)
{
    if (t->cap == 0)
        return 0;
    return scan(t, c, (c->i + 1) & (t->cap - 1));
}

static void put(struct kit_slot *slots, size_t cap, uint64_t hash, uintptr_t val)
{
    size_t j;

    for (j = hash & (cap - 1); slots[j].val != 0; j = (j + 1) & (cap - 1))
        ;
    slots[j].hash = hash;
    slots[j].val = val;
}

/* Rehashes t into cap slots (a power of 2 above 2 * t->n); -1 on OOM. */
static int resize(kit_table *t, size_t cap)
{
    struct kit_slot *s = calloc(cap, sizeof *s);
    size_t i;

    if (s == NULL)
        return -1;
    for (i = 0; i < t->cap; i++)
        if (t->slots[i].val != 0)
            put(s, cap, t->slots[i].hash, t->slots[i].val);
    free(t->slots);
    t->slots = s;
    t->cap = cap;
    return 0;
}

int kit_table_reserve(kit_table *t, size_t n)
{
    size_t cap = t->cap ? t->cap : TABLE_FIRST;

    if (n > SIZE_MAX / 4 / sizeof *t->slots)
        return -1;
    while (n * 2 > cap)
        cap *= 2;
    return cap == t->cap ? 0 : resize(t, cap);
}

int kit_table_add(kit_table *t, uint64_t hash, uintptr_t val)
{
    if ((t->n + 1) * 2 > t->cap && kit_table_reserve(t, t->n + 1) < 0)
        return -1;
    put(t->slots, t->cap, hash, val);
    t->n++;
    return 0;
}

/* Backward-shift deletion: the values after the hole that may live in it
 * (their home slot is not between the hole and them) move back, so every
 * value stays reachable from its home slot without tombstones. */
void kit_table_del(kit_table *t, const kit_cursor *c)
{
    size_t mask = t->cap - 1, i = c->i, j = i, k;

    for (j = (j + 1) & mask; t->slots[j].val != 0; j = (j + 1) & mask) {
        k = t->slots[j].hash & mask;
        if (j > i ? (k <= i || k > j) : (k <= i && k > j)) {
            t->slots[i] = t->slots[j];
            i = j;
        }
    }
    t->slots[i].val = 0;
    t->slots[i].hash = 0;
    t->n--;
}

void kit_table_clear(kit_table *t)
{
    if (t->n > 0)
        memset(t->slots, 0, t->cap * sizeof *t->slots);
    t->n = 0;
}

void kit_table_free(kit_table *t)
{
    free(t->slots);
    t->slots = NULL;
    t->cap = 0;
    t->n = 0;
}
