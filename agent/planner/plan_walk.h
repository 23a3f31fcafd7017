/* plan_walk.h — the walk that adds methods to a plan and scans their call
 * sites (planner.c), which plan_build and plan_extend both run. Above
 * plan_resolve.h. */
#ifndef MCT_PLAN_WALK_H
#define MCT_PLAN_WALK_H

#include "plan_resolve.h"
#include "plan_state.h"

/* Appends an entry; returns its index, or -1 when the plan is full (capped)
 * or out of memory. */
long pl_append(struct ctx *x, struct cls *c, const hier_method *m, const char *cname,
               const char *name, const char *desc, int level, int status, int root,
               const char *reason);

/* Adds a method of a loaded class unless already there (plan_extend: by
 * name as well); returns its index, or -1 when it could not be added. A
 * root gets `note` as its reason when instrumented. */
long pl_add_method(struct ctx *x, struct sel s, int level, int root, const char *note);

/* Adds the callees of every call site of plan entry i (level k) at k + 1. */
void pl_scan(struct ctx *x, size_t i);

/* Reads and parses the classes of the entries in todo (plan indexes) to be
 * scanned, announcing them to the hierarchy first. A class that does not
 * parse leaves the methods this call appended of it excluded; plan_build
 * fails when it holds an entry method, or when bytes() fails; plan_extend
 * excludes the methods it appended of a class bytes() fails for. */
void pl_load_classes(struct ctx *x, const struct vec *todo);

#endif
