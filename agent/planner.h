/* planner.h — the static call graph of an entry method, level by level to a
 * depth: which methods to instrument, and why the others are left out.
 *
 * Level 1 is the entry method (every overload of the name, or the one with
 * the given descriptor). A method at level k < depth is scanned for call
 * sites: invokevirtual, invokespecial, invokestatic, invokeinterface, and
 * invokedynamic sites bootstrapped by LambdaMetafactory (the lambda body or
 * method reference is the callee). A virtual or interface call also reaches
 * every implementation JVM method selection would pick for a loaded subtype
 * of the receiver type. A callee is kept, at level k+1 (its smallest level),
 * when its class matches the regex (full match on the dotted class name) and
 * is not a JDK class unless include_jdk. Abstract and native methods are
 * listed but not instrumented (their implementations are followed); classes
 * not loaded yet are listed as pending. The exact rules are in planner.c.
 *
 * Entry resolution: the class must be loaded; the method is looked for in
 * the class, then its superclasses, then their superinterfaces (default
 * methods); an entry found elsewhere than in the named class says so in its
 * reason. An abstract entry method is listed as excluded; its loaded
 * implementations become entry methods (JDK ones only with include_jdk), as
 * do those of an interface's default method besides the default itself.
 * Entry methods skip the regex and the JDK rule, not the others (tracer's
 * own classes, classes that cannot be retransformed, JVM internals).
 *
 * The reasons, static text: "does not match the regex", "JDK class (add
 * --include-jdk)", "abstract: its implementations are traced", "native: no
 * bytecode to instrument", "class cannot be retransformed", "tracer's own
 * class", "JVM internals: ...", "class file could not be parsed"; and as
 * notes on instrumented entry methods: "entry method, inherited from a
 * superclass", "entry method, a default method inherited from an
 * interface", "entry method, an implementation of the one named". */
#ifndef MCT_PLANNER_H
#define MCT_PLANNER_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "hier.h"

/* The most methods a plan holds; past it the plan says it was capped. */
#define PLAN_MAX_METHODS 20000

/* The deepest plan. */
#define PLAN_MAX_DEPTH 64

typedef struct plan_request {
    const char *class_name;   /* entry class, binary name with dots or slashes */
    const char *method;       /* entry method name ("<init>" allowed), or name
                                 and descriptor in one ("get(I)V") */
    const char *desc;         /* its descriptor, or NULL for every overload */
    int depth;                /* 1..PLAN_MAX_DEPTH */
    const char *regex;        /* Java-style regex on callee class names (see
                                 match.h); NULL keeps every class */
    int include_jdk;          /* also keep JDK classes */
    size_t max_methods;       /* a lower cap than PLAN_MAX_METHODS; 0 = that */
} plan_request;

enum plan_status {
    PLAN_INSTRUMENT = 0,      /* to instrument */
    PLAN_PENDING,             /* its class is not loaded yet: instrument on load
                                 (named as at the call site: once loaded, the
                                 method may turn out to be inherited) */
    PLAN_EXCLUDED             /* left out; reason says why */
};

typedef struct plan_method {
    hier_class *cls;          /* NULL when pending; borrowed from the hierarchy */
    const char *class_name;   /* internal name; owned by the plan */
    const char *name, *desc;  /* owned by the plan */
    uint16_t access;          /* CF_ACC_* (0 when pending) */
    int level;                /* 1 = entry method */
    int status;               /* enum plan_status */
    int root;                 /* an entry method */
    const char *reason;       /* PLAN_EXCLUDED (and notes): static text */
} plan_method;

typedef struct plan plan;

/* Builds the plan; returns it (free with plan_free) or NULL with err set:
 * MCT_E_NO_CLASS, MCT_E_NO_METHOD, MCT_E_BAD_REGEX, MCT_E_NOTHING (no method
 * of the plan can be instrumented), MCT_E_ARG, MCT_E_NOMEM, or whatever the
 * hierarchy's bytes() reported. Messages say what to do. */
plan *plan_build(const plan_request *req, const hier_ops *ops, void *ctx, mct_err *err);

/* The methods of the plan, ordered by level then discovery. */
size_t plan_count(const plan *p);
const plan_method *plan_at(const plan *p, size_t i);

/* Non-zero when the plan hit its cap (PLAN_MAX_METHODS or max_methods):
 * entries are then missing from its last level(s). */
int plan_capped(const plan *p);

void plan_free(plan *p);

#endif
