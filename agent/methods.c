/* methods.c — see methods.h. The table is a fixed directory of blocks
 * allocated on demand; a block, once published, never moves. */
#include "methods.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "mutf8.h"

#define BLOCK_BITS 12
#define BLOCK_SIZE (1u << BLOCK_BITS)
#define N_BLOCKS (MT_MAX_METHODS / BLOCK_SIZE)

static _Atomic(mt_method *) blocks[N_BLOCKS];
static _Atomic uint32_t count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* (class, name, descriptor) -> number + 1, open addressing; under lock. */
static uint32_t *index_slots;
static uint32_t index_cap;

static uint32_t hash3(const char *a, const char *b, const char *c)
{
    uint32_t h = 2166136261u;
    const char *s[3] = {a, b, c};
    int i;

    for (i = 0; i < 3; i++) {
        const char *p;

        for (p = s[i]; *p; p++)
            h = (h ^ (unsigned char)*p) * 16777619u;
        h = (h ^ 0xff) * 16777619u;
    }
    return h;
}

static mt_method *at(uint32_t id)
{
    return &atomic_load_explicit(&blocks[id >> BLOCK_BITS], memory_order_relaxed)[id & (BLOCK_SIZE - 1)];
}

/* The slot of (cls, name, desc) in the index: its number + 1, or 0 where it
 * would go. The lock is held; cls is dotted. */
static uint32_t *slot_of(const char *cls, const char *name, const char *desc)
{
    uint32_t h = hash3(cls, name, desc) & (index_cap - 1);

    while (index_slots[h] != 0) {
        const mt_method *m = at(index_slots[h] - 1);

        if (strcmp(m->name, name) == 0 && strcmp(m->desc, desc) == 0 && strcmp(m->cls, cls) == 0)
            break;
        h = (h + 1) & (index_cap - 1);
    }
    return &index_slots[h];
}

/* Keeps the index at most half full; 0 or -1. */
static int grow_index(uint32_t n)
{
    uint32_t cap = index_cap ? index_cap : 1024, *old = index_slots, old_cap = index_cap, i;

    if ((n + 1) * 2 <= index_cap)
        return 0;
    while ((n + 1) * 2 > cap)
        cap *= 2;
    index_slots = calloc(cap, sizeof *index_slots);
    if (index_slots == NULL) {
        index_slots = old;
        return -1;
    }
    index_cap = cap;
    for (i = 0; i < old_cap; i++)
        if (old[i] != 0) {
            const mt_method *m = at(old[i] - 1);

            *slot_of(m->cls, m->name, m->desc) = old[i];
        }
    free(old);
    return 0;
}

int32_t mt_add(const char *cls, const char *name, const char *desc, uint32_t session, int root,
               mct_err *err)
{
    uint32_t id, *slot;
    mt_method *b, *m;
    char *c, *n, *d;

    c = strdup(cls);
    if (c != NULL)
        mutf8_binary_name(c, strlen(c));
    if (c == NULL)
        return mct_err_set(err, MCT_E_NOMEM, "out of memory numbering methods");
    pthread_mutex_lock(&lock);
    id = atomic_load_explicit(&count, memory_order_relaxed);
    if (grow_index(id) < 0) {
        free(c);
        goto nomem;
    }
    slot = slot_of(c, name, desc);
    if (*slot != 0) {
        m = at(*slot - 1);
        atomic_store_explicit(&m->root, (uint8_t)(root != 0), memory_order_relaxed);
        atomic_store_explicit(&m->session, session, memory_order_relaxed);
        free(c);
        pthread_mutex_unlock(&lock);
        return (int32_t)(*slot - 1);
    }
    if (id >= MT_MAX_METHODS) {
        free(c);
        pthread_mutex_unlock(&lock);
        return mct_err_set(err, MCT_E_NOMEM, "the agent numbered %u methods, its limit: restart the JVM", id);
    }
    b = atomic_load_explicit(&blocks[id >> BLOCK_BITS], memory_order_relaxed);
    if (b == NULL) {
        b = calloc(BLOCK_SIZE, sizeof *b);
        if (b == NULL) {
            free(c);
            goto nomem;
        }
        atomic_store_explicit(&blocks[id >> BLOCK_BITS], b, memory_order_release);
    }
    n = strdup(name);
    d = strdup(desc);
    if (n == NULL || d == NULL) {
        free(c);
        free(n);
        free(d);
        goto nomem;
    }
    m = &b[id & (BLOCK_SIZE - 1)];
    m->cls = c;
    m->name = n;
    m->desc = d;
    atomic_store_explicit(&m->session, session, memory_order_relaxed);
    atomic_store_explicit(&m->root, (uint8_t)(root != 0), memory_order_relaxed);
    *slot = id + 1;
    atomic_store_explicit(&count, id + 1, memory_order_release);
    pthread_mutex_unlock(&lock);
    return (int32_t)id;
nomem:
    pthread_mutex_unlock(&lock);
    return mct_err_set(err, MCT_E_NOMEM, "out of memory numbering methods");
}

const mt_method *mt_get(int32_t id)
{
    mt_method *b;

    if (id < 0 || (uint32_t)id >= atomic_load_explicit(&count, memory_order_acquire))
        return NULL;
    b = atomic_load_explicit(&blocks[(uint32_t)id >> BLOCK_BITS], memory_order_acquire);
    return &b[(uint32_t)id & (BLOCK_SIZE - 1)];
}

uint32_t mt_count(void)
{
    return atomic_load_explicit(&count, memory_order_acquire);
}
