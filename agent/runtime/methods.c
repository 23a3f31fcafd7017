/* methods.c — see methods.h. The table is a fixed directory of blocks
 * allocated on demand; a block, once published, never moves. It is not a
 * protocol/kit table on purpose: probes read it by number with no lock, so
 * nothing in it may move or be rehashed; only the writers' index by names
 * (under the lock) is a kit table. */
#include "methods.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"
#include "mutf8.h"

#define BLOCK_BITS 12
#define BLOCK_SIZE (1u << BLOCK_BITS)
#define N_BLOCKS (MT_MAX_METHODS / BLOCK_SIZE)

static _Atomic(mt_method *) blocks[N_BLOCKS];
static _Atomic uint32_t count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* (class, name, descriptor) -> number + 1; under lock. Only mt_add uses it:
 * the probes read the blocks above by number, without a lock. */
static kit_table by_names;

static uint64_t hash3(const char *cls, const char *name, const char *desc)
{
    return kit_hash_str(desc, kit_hash_str(name, kit_hash_str(cls, 0)));
}

static mt_method *at(uint32_t id)
{
    return &atomic_load_explicit(&blocks[id >> BLOCK_BITS], memory_order_relaxed)[id & (BLOCK_SIZE - 1)];
}

/* The number + 1 of (cls, name, desc), or 0. The lock is held; cls is
 * dotted. */
static uint32_t find(const char *cls, const char *name, const char *desc)
{
    kit_cursor cur;
    uintptr_t v;

    for (v = kit_table_first(&by_names, hash3(cls, name, desc), &cur); v != 0; v = kit_table_next(&by_names, &cur)) {
        const mt_method *m = at((uint32_t)v - 1);

        if (strcmp(m->name, name) == 0 && strcmp(m->desc, desc) == 0 && strcmp(m->cls, cls) == 0)
            return (uint32_t)v;
    }
    return 0;
}

int32_t mt_add(const char *cls, const char *name, const char *desc, uint32_t session, int root,
               mct_err *err)
{
    uint32_t id, found;
    mt_method *b, *m;
    char *c, *n, *d;

    c = strdup(cls);
    if (c != NULL)
        mutf8_binary_name(c, strlen(c));
    if (c == NULL)
        return mct_err_set(err, MCT_E_NOMEM, "out of memory numbering methods");
    pthread_mutex_lock(&lock);
    id = atomic_load_explicit(&count, memory_order_relaxed);
    if (kit_table_reserve(&by_names, (size_t)id + 1) < 0) {
        free(c);
        goto nomem;
    }
    if ((found = find(c, name, desc)) != 0) {
        m = at(found - 1);
        atomic_store_explicit(&m->root, (uint8_t)(root != 0), memory_order_relaxed);
        atomic_store_explicit(&m->session, session, memory_order_relaxed);
        free(c);
        pthread_mutex_unlock(&lock);
        return (int32_t)(found - 1);
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
    kit_table_add(&by_names, hash3(c, name, desc), (uintptr_t)id + 1); /* cannot fail: room reserved */
    atomic_store_explicit(&count, id + 1, memory_order_release);
    pthread_mutex_unlock(&lock);
    return (int32_t)id;
nomem:
    pthread_mutex_unlock(&lock);
    return mct_err_set(err, MCT_E_NOMEM, "out of memory numbering methods");
}

int32_t mt_find(const char *cls, const char *name, const char *desc)
{
    char *dotted = strdup(cls);
    uint32_t found;

    if (dotted == NULL)
        return -1;
    mutf8_binary_name(dotted, strlen(dotted));
    pthread_mutex_lock(&lock);
    found = find(dotted, name, desc);
    pthread_mutex_unlock(&lock);
    free(dotted);
    return (int32_t)found - 1;
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
