/* plan_sites.h — the call sites a plan watches and the subtype table
 * (plan_sites.c): what lets a class that loads later extend the plan
 * (plan_new_class) without the hierarchy. Above plan_state.h. */
#ifndef MCT_PLAN_SITES_H
#define MCT_PLAN_SITES_H

#include "plan_state.h"

/* Watches the call site owner.name:desc whose callees are at level (root:
 * its implementations are entry methods); c is the owner's class when
 * loaded (it caches the owner record). Returns the owner record, or NULL
 * with x->failed. */
struct owner *pl_watch(struct ctx *x, const char *owner, struct cls *c, const char *name,
                       const char *desc, int level, int root);

/* Whether the plan watches the call site owner.name:desc. */
int pl_watched(struct ctx *x, const char *owner, const char *name, const char *desc);

/* The collection of a walk for the subtype set of o: x->all, or NULL for
 * java/lang/Object, whose sites apply to every class. */
struct vec *pl_walk_all(struct ctx *x, struct owner *o);

/* Records the classes of x->all, the walk from o's class, as its subtypes
 * (no duplicate check while only o itself is linked to o). */
void pl_record_subtypes(struct ctx *x, struct owner *o);

/* Frees the strings of a deferred seed (not d itself). */
void pl_deferred_free(struct deferred *d);

#endif
