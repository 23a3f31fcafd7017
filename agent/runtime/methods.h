/* methods.h — the method table: every instrumented method gets a number, and
 * probes pass that number, which indexes this table directly (no hashing on
 * the hot path). A method keeps its number for the agent's life: a later
 * session that instruments it again gets the same number (the table grows
 * with the distinct methods ever instrumented, not with the sessions), and
 * marks it as its own. Code still running the probes of an ended session
 * then only ever reports real calls of the same methods. Appends take a
 * lock; reads are lock-free. */
#ifndef MCT_METHODS_H
#define MCT_METHODS_H

#include <stdatomic.h>
#include <stdint.h>

#include "err.h"

/* Room for this many numbers over the agent's life. */
#define MT_MAX_METHODS (1u << 22)

typedef struct mt_method {
    const char *cls;           /* binary name with dots ("com.shop.Cart$Line"); owned */
    const char *name;          /* owned */
    const char *desc;          /* owned */
    _Atomic uint32_t session;  /* the latest session that numbered it */
    _Atomic uint8_t root;      /* an entry method of that session */
} mt_method;

/* Numbers a method (cls as an internal name with slashes) for session, an
 * entry method when root; returns its number (>= 0: the one it already had,
 * if any), or -1 with err set when out of memory or numbers. */
int32_t mt_add(const char *cls, const char *name, const char *desc, uint32_t session, int root,
               mct_err *err);

/* The number of the method (cls as an internal name with slashes), or -1
 * when it was never numbered (or memory is short). Takes the lock. */
int32_t mt_find(const char *cls, const char *name, const char *desc);

/* The method of number id, or NULL when id was never handed out. Safe from
 * any thread, without locks. */
const mt_method *mt_get(int32_t id);

/* How many numbers were handed out. */
uint32_t mt_count(void);

#endif
