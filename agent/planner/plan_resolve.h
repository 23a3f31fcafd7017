/* plan_resolve.h — class records, whether a class is kept, and JVMS
 * method resolution and selection (plan_resolve.c). Above plan_sites.h
 * (a virtual call's site is watched as it is resolved). */
#ifndef MCT_PLAN_RESOLVE_H
#define MCT_PLAN_RESOLVE_H

#include "plan_sites.h"
#include "plan_state.h"

/* The superclass of c, or NULL (asked once). */
struct cls *pl_cls_super(struct ctx *x, struct cls *c);

/* The methods c declares (count in c->nm). */
const hier_method *pl_cls_methods(struct ctx *x, struct cls *c);

/* The loaded class named name as code in `from` sees it, or NULL. */
struct cls *pl_find_class(struct ctx *x, const char *name, struct cls *from);

/* Whether the name of c matches the regex (matched once; 2 in
 * c->regex_ok when the regex gave up in plan_extend). */
int pl_regex_ok(struct ctx *x, struct cls *c);

/* Whether the methods of c may be kept as callees (cheap tests first). */
int pl_cls_kept(struct ctx *x, struct cls *c);

/* Why the methods of c are not kept as callees, or NULL. */
const char *pl_cls_why(struct ctx *x, struct cls *c);

/* Appends to x->ifs every superinterface of c and of its superclasses,
 * each once. */
void pl_collect_ifaces(struct ctx *x, struct cls *c);

/* The method JVM selection picks for an instance of the concrete class c. */
struct sel pl_select_for(struct ctx *x, struct cls *c, const char *name, const char *desc);

/* The method a reference to owner.name:desc resolves to, or none (cached). */
struct sel pl_resolve(struct ctx *x, struct cls *owner, const char *name, const char *desc, int iface);

/* Appends to x->walk the concrete classes among owner and its loaded
 * subtypes (transitively), depth first in the hierarchy's order; with
 * only_kept, just those with a kept class among their supertypes. With
 * all, sets it to every class visited (owner and all its subtypes). */
void pl_concrete_subtypes(struct ctx *x, struct cls *owner, int only_kept, struct vec *all);

/* The kept implementations, other than the resolved method r, that a
 * virtual call of owner.name:desc may run (cached per owner, name, desc).
 * The site is watched, with its callee level. */
struct vres *pl_overriders(struct ctx *x, struct cls *owner, struct sel r, const char *name,
                           const char *desc, int level);

#endif
