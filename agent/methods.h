/* methods.h — the method table: every instrumented method gets a number, and
 * probes pass that number, which indexes this table directly (no hashing on
 * the hot path). Numbers are never reused while the agent lives, so code that
 * still runs the probes of an ended session cannot be mistaken for the
 * current one. Appends take a lock; reads are lock-free. */
#ifndef MCT_METHODS_H
#define MCT_METHODS_H

#include <stdint.h>

#include "err.h"

/* Room for this many numbers over the agent's life. */
#define MT_MAX_METHODS (1u << 22)

typedef struct mt_method {
    const char *cls;     /* binary name with dots ("com.shop.Cart$Line"); owned */
    const char *name;    /* owned */
    const char *desc;    /* owned */
    uint32_t session;    /* the session that numbered it */
    uint8_t root;        /* an entry method of that session */
} mt_method;

/* Numbers a method (cls as an internal name with slashes); returns the
 * number (>= 0), or -1 with err set when out of memory or numbers. */
int32_t mt_add(const char *cls, const char *name, const char *desc, uint32_t session, int root,
               mct_err *err);

/* The method of number id, or NULL when id was never handed out. Safe from
 * any thread, without locks. */
const mt_method *mt_get(int32_t id);

/* How many numbers were handed out. */
uint32_t mt_count(void);

#endif
