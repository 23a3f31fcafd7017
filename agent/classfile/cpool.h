/* cpool.h — additions to the constant pool of a parsed class, for writers
 * that put new references into its code. Each entry asked for is found among
 * the class's own entries or those added before, and appended only when it
 * is in neither. The additions can be rolled back to a mark, so that a method
 * whose rewrite is abandoned leaves nothing behind. */
#ifndef MCT_CPOOL_H
#define MCT_CPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "classfile.h"
#include "err.h"

typedef struct cpool cpool;

/* A point to roll back to. */
typedef struct cpool_mark {
    size_t n_added;
    size_t bytes;
} cpool_mark;

/* Starts additions to c's pool; c is borrowed and must outlive the result.
 * Returns NULL with err set (MCT_E_NOMEM). Free with cpool_free. */
cpool *cpool_new(const cf_class *c, mct_err *err);

void cpool_free(cpool *p);

/* Each returns the index of an entry equal to the one asked for, adding it
 * (and the entries it refers to) if needed; or -1 with err set: MCT_E_TOOBIG
 * when the pool would pass 65535 slots, MCT_E_NOMEM. Strings are modified
 * UTF-8 of len bytes (cpool_utf8, cpool_class) or NUL-terminated; they are
 * copied. cpool_class takes an internal name or an array descriptor. */
int cpool_utf8(cpool *p, const char *s, size_t len, mct_err *err);
int cpool_class(cpool *p, const char *name, size_t len, mct_err *err);
int cpool_methodref(cpool *p, const char *owner, const char *name, const char *desc, mct_err *err);
int cpool_integer(cpool *p, int32_t v, mct_err *err);

/* constant_pool_count with the additions. */
uint16_t cpool_count(const cpool *p);

/* The added entries, encoded, to write right after the class's own pool;
 * borrowed, valid until the next call on p. */
const uint8_t *cpool_added(const cpool *p, size_t *len);

/* The current point; cpool_rollback forgets every entry added after it. */
cpool_mark cpool_get_mark(const cpool *p);
void cpool_rollback(cpool *p, cpool_mark m);

#endif
