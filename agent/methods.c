/* methods.c — see methods.h. The table is a fixed directory of blocks
 * allocated on demand; a block, once published, never moves. */
#include "methods.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_BITS 12
#define BLOCK_SIZE (1u << BLOCK_BITS)
#define N_BLOCKS (MT_MAX_METHODS / BLOCK_SIZE)

static _Atomic(mt_method *) blocks[N_BLOCKS];
static _Atomic uint32_t count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* "com/shop/Cart" -> "com.shop.Cart" (a new string). */
static char *dotted(const char *internal)
{
    char *s = strdup(internal);
    char *p;

    if (s != NULL)
        for (p = s; *p; p++)
            if (*p == '/')
                *p = '.';
    return s;
}

int32_t mt_add(const char *cls, const char *name, const char *desc, uint32_t session, int root,
               mct_err *err)
{
    uint32_t id;
    mt_method *b, *m;
    char *c, *n, *d;

    pthread_mutex_lock(&lock);
    id = atomic_load_explicit(&count, memory_order_relaxed);
    if (id >= MT_MAX_METHODS) {
        pthread_mutex_unlock(&lock);
        return mct_err_set(err, MCT_E_NOMEM, "the agent numbered %u methods, its limit: restart the JVM", id);
    }
    b = atomic_load_explicit(&blocks[id >> BLOCK_BITS], memory_order_relaxed);
    if (b == NULL) {
        b = calloc(BLOCK_SIZE, sizeof *b);
        if (b == NULL)
            goto nomem;
        atomic_store_explicit(&blocks[id >> BLOCK_BITS], b, memory_order_release);
    }
    c = dotted(cls);
    n = strdup(name);
    d = strdup(desc);
    if (c == NULL || n == NULL || d == NULL) {
        free(c);
        free(n);
        free(d);
        goto nomem;
    }
    m = &b[id & (BLOCK_SIZE - 1)];
    m->cls = c;
    m->name = n;
    m->desc = d;
    m->session = session;
    m->root = (uint8_t)(root != 0);
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
