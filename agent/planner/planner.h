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
 * reason. A non-static entry method found elsewhere than in the named
 * class is PLAN_ROOT_RECEIVER: it runs for instances of other classes too,
 * and only its calls on an instance of the named class are to be traced
 * (plan_receiver). An abstract entry method is listed as excluded; its loaded
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
 * superclass: traced only when the receiver is an instance of the class
 * named", "entry method, a default method inherited from an interface:
 * traced only when ..." (the same), "entry method, a static method
 * inherited from a superclass: every call is traced, whatever class it is
 * called through", "entry method, an implementation of the one named",
 * "lambdas and method references of C not followed: WHY" (the hierarchy
 * could not read C's bootstrap methods, hier_ops.unread; appended to
 * another note); and "class file could not be read" and "the regex gave up on this name (too
 * much backtracking)" (plan_extend only, see below).
 *
 * Bounds (plan_build): the regex may take MATCH_NAME_WORK steps on one
 * class name (match.h) and regex_work over the plan; planning may take
 * time_ms; and it stops as soon as the requester is gone (the callback
 * says so, asked every few milliseconds). Planning then fails with
 * MCT_E_LIMIT naming the bound ("limit: regex work per name", "limit: regex
 * work over the plan", "limit: planning time") and what to do, or MCT_E_INTR
 * ("the client went away"): a capped plan would silently lack the methods
 * the user asked for.
 *
 * Names: the request's are UTF-8 (as in JSON), the hierarchy's modified
 * UTF-8 (as in class files); plan_build converts the request's (mutf8.h),
 * and the plan's names are modified UTF-8. Error messages are UTF-8. */
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
    uint64_t regex_work;      /* the regex's steps over the plan; 0 = PLAN_REGEX_WORK */
    uint64_t time_ms;         /* planning's time limit; 0 = PLAN_TIME_MS */
    int (*gone)(void *arg);   /* NULL, or non-zero when the requester went
                                 away: planning stops */
    void *gone_arg;
} plan_request;

/* The regex's work over a plan, in match.h's steps: about 1.5 s of
 * matching, 500,000 class names at 100 steps (a usual pattern takes fewer),
 * 500 names near MATCH_NAME_WORK. */
#define PLAN_REGEX_WORK 50000000u

/* Planning's time limit, well within the client's wait for the plan. */
#define PLAN_TIME_MS 30000

enum plan_status {
    PLAN_INSTRUMENT = 0,      /* to instrument */
    PLAN_PENDING,             /* its class is not loaded yet: instrument on load
                                 (named as at the call site: once loaded, the
                                 method may turn out to be inherited) */
    PLAN_EXCLUDED             /* left out; reason says why */
};

/* How an entry method's calls are traced (plan_method.root). */
enum plan_root {
    PLAN_ROOT = 1,            /* every call */
    PLAN_ROOT_RECEIVER = 2    /* a method the named class inherits: only calls
                                 whose receiver is an instance of it */
};

typedef struct plan_method {
    hier_class *cls;          /* NULL when pending; borrowed from the hierarchy
                                 given to the call that appended the entry, and
                                 only until the next plan_extend (see below) */
    const char *class_name;   /* internal name; owned by the plan */
    const char *name, *desc;  /* owned by the plan */
    uint16_t access;          /* CF_ACC_* (0 when pending) */
    int level;                /* 1 = entry method */
    int status;               /* enum plan_status */
    int root;                 /* 0, or an entry method: enum plan_root */
    const char *reason;       /* PLAN_EXCLUDED (and notes): static text, or
                                 owned by the plan */
} plan_method;

typedef struct plan plan;

/* Builds the plan; returns it (free with plan_free) or NULL with err set:
 * MCT_E_NO_CLASS, MCT_E_NO_METHOD, MCT_E_BAD_REGEX, MCT_E_NOTHING (no method
 * of the plan can be instrumented), MCT_E_ARG, MCT_E_NOMEM, or whatever the
 * hierarchy's bytes() reported, MCT_E_LIMIT or MCT_E_INTR (see Bounds).
 * Messages say what to do. */
plan *plan_build(const plan_request *req, const hier_ops *ops, void *ctx, mct_err *err);

/* The methods of the plan: plan_build's ordered by level then discovery,
 * then what plan_extend and plan_new_class appended. An entry never moves:
 * the pointer plan_at returns stays valid until plan_free, and its index
 * never changes. */
size_t plan_count(const plan *p);
const plan_method *plan_at(const plan *p, size_t i);

/* Non-zero when the plan hit its cap (PLAN_MAX_METHODS or max_methods):
 * entries are then missing from its last level(s). The cap covers what
 * plan_extend and plan_new_class append too. */
int plan_capped(const plan *p);

/* What plan_build saw of the regex (plan_extend adds nothing): the
 * distinct classes (by name) of the methods its call sites reach that the
 * regex decides on, i.e. not left out first for another reason (a JDK
 * class without include_jdk, the tracer's, JVM internals), and how many of
 * them it matched. When it matched none and is written as a plain name
 * ("com.shop", "Cart"), suggestion is a regex that matches some of them:
 * that package ("com\\.shop\\..*"), else for a name without a dot that
 * class in any package (".*\\.Cart"); else NULL. */
typedef struct plan_regex_seen {
    size_t callee_classes;
    size_t matched_classes;
    const char *suggestion;     /* UTF-8 (as the request's regex); owned by the plan */
    size_t suggestion_matches;  /* the callee classes it matches */
} plan_regex_seen;
plan_regex_seen plan_regex(const plan *p);

/* The named class when an entry method is PLAN_ROOT_RECEIVER (the class
 * whose instances its traced calls have as receiver), else NULL. Borrowed
 * from the hierarchy given to plan_build, like plan_method.cls: read it
 * right after plan_build; plan_extend sets it to NULL. */
hier_class *plan_receiver(const plan *p);

/* --- classes that load after planning ---------------------------------------
 *
 * plan_build sees the classes loaded when it runs. Two kinds of classes load
 * later: the classes of PLAN_PENDING methods, and new subtypes of the
 * receiver types of planned virtual and interface calls. For them the plan
 * keeps the request (depth, regex, include_jdk), the set of its methods by
 * name, and every virtual or interface call site it resolved (the class
 * named at the site, method name, descriptor, callee level) with the names
 * of that class's subtypes it has seen (loaded at planning, or passed to
 * plan_new_class since), so that:
 *   - plan_new_class, as a class loads (in the ClassFileLoadHook), appends
 *     the methods of that class that a planned call site may run;
 *   - plan_extend, given a later hierarchy once classes have loaded, plans
 *     below methods that became usable (pending methods whose class loaded,
 *     what plan_new_class returned): their call sites are followed to the
 *     depth by the rules of plan_build.
 *
 * Hierarchies: each plan_build or plan_extend call may be given a different
 * hierarchy, and the one of an earlier call may be freed as soon as that call
 * has returned: the plan keeps no hier_class pointer from one call to the
 * next, except plan_method.cls of the entries the last call appended.
 * plan_extend first sets cls to NULL on every entry appended by earlier
 * calls; read cls right after the call that appended the entry (to
 * instrument it), never later. Entries plan_new_class appends have cls NULL.
 *
 * Threads: plan_new_class and plan_extend may run at the same time on
 * different threads; a lock in the plan serializes them (plan_extend calls
 * must not overlap one another: one thread extends). plan_extend does not
 * hold it while it calls the hierarchy's bytes() (which may load classes,
 * so that the ClassFileLoadHook runs on the same thread and calls
 * plan_new_class), but holds it during the hierarchy's other
 * calls: those must not load classes (hier_jvmti's do not). plan_count,
 * plan_at and plan_capped may be called from any thread at any time: an
 * entry is complete once counted, and its fields do not change afterwards,
 * except cls (above), and the status and reason of an entry appended by a
 * plan_extend that is still running (a class whose file cannot be read or
 * parsed gets its new methods excluded). plan_free when no call runs. */

/* A method that has just become usable: its class is loaded (or loading),
 * named as in the plan. */
typedef struct plan_seed {
    const char *class_name;   /* internal name */
    const char *name, *desc;
    int level;                /* its level in the plan, 1..depth */
    size_t index;             /* plan_new_class: the entry it appended;
                                 plan_extend ignores it */
} plan_seed;

/* Extends the plan below the seeds (strings borrowed for the call), with
 * the hierarchy ops/ctx taken after their classes loaded:
 *   - a seed's class is looked up by name (from NULL); a seed whose class
 *     the hierarchy does not have yet is deferred: kept by the plan and
 *     retried by the next plan_extend calls (up to PLAN_SEED_TRIES of them,
 *     then dropped; plan_deferred counts them), so call plan_extend again,
 *     with a newer hierarchy and possibly no seed, while plan_deferred is
 *     not 0;
 *   - the seed is resolved from its class as a call site would be (a
 *     method inherited from a superclass or a default method is found
 *     there); the method found is the seed's entry, appended at the seed's
 *     level when it is not in the plan by name; when the plan holds a
 *     virtual or interface call site naming the seed's class, method and
 *     descriptor, the kept implementations in the class's loaded subtypes
 *     are added too, at the seed's level;
 *   - every such entry whose level is below the depth, whose class is kept
 *     and not scanned yet is scanned like plan_build scans a method (an
 *     entry keeps its status: a pending one stays PLAN_PENDING), and so are
 *     the methods this appends, level by level to the depth, with
 *     plan_build's rules: the regex, the JDK rule, the exclusions, virtual
 *     dispatch over the subtypes loaded in this hierarchy, lambdas.
 * A method already in the plan by name (class, method, descriptor) is never
 * appended again and keeps its level and status; new entries are appended
 * at the end. *added is set to a malloc'd array (caller frees; NULL when
 * none) of the *n_added indexes this call appended, ascending (plan_new_class
 * may append entries in between, from another thread). A class whose file
 * cannot be read is not a failure: its new methods are excluded ("class file
 * could not be read"). Returns 0, or -1 with err set (MCT_E_ARG for a seed
 * level outside 1..depth, MCT_E_NOMEM); *added is filled even then: the
 * entries appended before the failure are in the plan. */
#define PLAN_SEED_TRIES 5
int plan_extend(plan *p, const plan_seed *seeds, size_t n, const hier_ops *ops, void *ctx,
                size_t **added, size_t *n_added, mct_err *err);

/* The number of seeds waiting for their class (see plan_extend). */
size_t plan_deferred(const plan *p);

/* A class is loading: name (internal), its direct superclass (NULL for
 * java/lang/Object), its direct superinterfaces and the methods it declares,
 * as its class file says; all borrowed for the call. Appends and returns in
 * out (at most max; n_declared always suffices) the methods of the class
 * that a planned virtual or interface call site may now run. A declared
 * method is returned when:
 *   - it is not abstract, static, private, native, nor a constructor or
 *     class initializer;
 *   - a call site of the plan has its name and descriptor, and the site's
 *     class is java/lang/Object, or the loading class's superclass or one of
 *     its direct superinterfaces is the site's class or a subtype of it the
 *     plan has seen;
 *   - the class passes the rules: not the tracer's own nor JVM internals,
 *     not a JDK class by name unless include_jdk, and matching the regex
 *     (except for the implementations of an abstract or interface entry
 *     method, which become entry methods, root set, like plan_build's);
 *   - it is not in the plan by name, and the plan is not capped.
 * It is appended as PLAN_INSTRUMENT at the smallest level of the sites it
 * implements (1 for an entry method), cls NULL; out[i].index is its index.
 * The class is recorded as a subtype of those sites' classes whatever it
 * declares and whether or not it passes the rules, so that its own subtypes
 * are found when they load. Call it for every class that loads while the
 * plan is in use, including classes of pending methods (whose pending
 * entries are not returned), then give what it returned, once the class has
 * loaded, to plan_extend as seeds.
 * Made for the ClassFileLoadHook: it asks no hierarchy, waits only for the
 * plan's lock (plan_extend holds it while it plans, not while it reads
 * class bytes), and costs a few hash lookups for a class that matches
 * nothing. Returns 0, or -1 when out of memory (what was appended is
 * returned and stays valid). */
int plan_new_class(plan *p, const char *name, const char *super_name, const char *const *interfaces,
                   size_t n_ifaces, const hier_method *declared, size_t n_declared, plan_seed *out,
                   size_t max, size_t *n_out);

void plan_free(plan *p);

#endif
