/* planner.c — see planner.h.
 *
 * The plan is built breadth first. The entry methods are level 1; the
 * methods of level k < depth that get instrumented are scanned, level by
 * level (their classes' bytes are prefetched in one batch per level), and
 * each call site adds its callees at level k + 1 unless they are in the plan
 * already (so a method's level is its smallest one). The plan's own array is
 * the queue: entries are appended in discovery order and levels never
 * decrease along it.
 *
 * Call sites:
 *   invokestatic, invokespecial: the method that resolution (JVMS 5.4.3.3,
 *     5.4.3.4) finds from the class named at the call site;
 *   invokevirtual, invokeinterface: that resolved method, plus, for every
 *     loaded concrete subtype C of the named class, the method JVM selection
 *     (JVMS 5.4.6) picks for C: the first declaration up C's superclass chain,
 *     else the one maximally-specific non-abstract default method. Only the
 *     implementations that would be kept are added: the resolved method is
 *     listed whatever happens to it, the implementations are not listed when
 *     left out (a call on java/lang/Object would list thousands);
 *   invokedynamic bootstrapped by LambdaMetafactory.metafactory or
 *     altMetafactory: the implementation method handle (bootstrap argument
 *     1), as invokestatic / invokespecial / invokevirtual / invokeinterface
 *     by its kind, and newInvokeSpecial as the constructor. Other bootstraps
 *     (string concatenation, records, switches) call nothing of the program;
 *   array owners ("[I".clone), <clinit> and unresolvable references are
 *     ignored.
 *
 * Whether a callee is kept is decided per class, in this order (the first
 * reason that applies is the one listed):
 *   "does not match the regex"
 *   "tracer's own class"              mcalltree/...
 *   "class cannot be retransformed"   HIER_UNMODIFIABLE (hidden, arrays, ...)
 *   "JVM internals ..."               see internal_prefixes below
 *   "JDK class (add --include-jdk)"   HIER_JDK (by name when not loaded)
 * and then per method: abstract ones are listed (their implementations come
 * from the call sites), native ones are listed. Entry methods skip the regex
 * and JDK rules, not the others. A callee whose class is not loaded is
 * PLAN_PENDING when its class name passes the class rules.
 *
 * Speed: every hierarchy answer is cached in a per-class record reached
 * through one hash table; resolutions, selections and the implementation
 * sets of virtual call sites are cached per (class, name, descriptor). The
 * implementations of a virtual call are searched only among the concrete
 * subtypes that have a kept class among their supertypes (computed once per
 * named class), so a call on java/lang/Object walks the loaded classes once
 * per plan and asks methods() only of classes near the kept ones.
 *
 * Later classes (plan_extend, plan_new_class). The plan outlives the
 * planning state: what it keeps is in struct plan, names only (no hierarchy
 * pointer survives a call). Watched call sites: every virtual or interface
 * site whose resolved method may be overridden (the sites overriders() looks
 * at, and pending ones), and the abstract or default entry methods whose
 * implementations became entries, as (owner name, method, descriptor) ->
 * smallest callee level. Each owner has the names of its subtypes (itself
 * included) recorded as 64-bit hashes in one table, hash -> owners the class
 * is a subtype of: filled from the walk overriders() makes anyway (once per
 * owner and hierarchy), and by plan_new_class for each loading class (its
 * owners are those of its direct supertypes). A loading class is then one
 * lookup per direct supertype; java/lang/Object's sites apply to every class
 * and have no set. Two names with one hash would only make a class look like
 * a subtype, instrumenting a method that dispatch may not reach: harmless.
 * plan_extend runs the same code as plan_build over a new hierarchy, with
 * its own queue (plan_new_class may append in between) and a per-entry
 * "scanned" flag that keeps a method from being scanned twice. */
#include "planner.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "bytecode.h"
#include "classfile.h"
#include "clock.h"
#include "kit.h"
#include "match.h"
#include "mutf8.h"

static const char R_REGEX[] = "does not match the regex";
static const char R_JDK[] = "JDK class (add --include-jdk)";
static const char R_ABSTRACT[] = "abstract: its implementations are traced";
static const char R_NATIVE[] = "native: no bytecode to instrument";
static const char R_UNMOD[] = "class cannot be retransformed";
static const char R_TRACER[] = "tracer's own class";
static const char R_INTERNALS[] = "JVM internals: a probe there could recurse into the tracer";
static const char R_BADCLASS[] = "class file could not be parsed";
static const char R_NOBYTES[] = "class file could not be read";
static const char R_REGEX_LIMIT[] = "the regex gave up on this name (too much backtracking)";
static const char N_IMPL[] = "entry method, an implementation of the one named";
static const char N_INHERITED_RECV[] = "entry method, inherited from a superclass: traced only when the receiver "
                                       "is an instance of the class named";
static const char N_DEFAULT_RECV[] = "entry method, a default method inherited from an interface: traced only "
                                     "when the receiver is an instance of the class named";
static const char N_INHERITED_STATIC[] = "entry method, a static method inherited from a superclass: every call "
                                         "is traced, whatever class it is called through";

static const char LMF[] = "java/lang/invoke/LambdaMetafactory";
static const char OBJECT[] = "java/lang/Object";

/* Classes of the JDK by name, for classes not loaded yet. */
static const char *const jdk_prefixes[] = {
    "java/", "javax/", "jdk/", "sun/", "com/sun/", "org/w3c/", "org/xml/", "org/ietf/",
};

/* JVM machinery a probe must not enter, even with --include-jdk: the probe
 * is an invokestatic of a native method, whose linkage, the thread it runs
 * on and the objects it touches go through these; a probe in them could
 * recurse into the tracer or run before the tracer's thread state exists.
 * Kept short on purpose: everything else of the JDK is the user's choice. */
static const char *const internal_prefixes[] = {
    "java/lang/invoke/", "java/lang/ref/", "jdk/internal/misc/", "jdk/internal/vm/", "sun/invoke/",
};
static const char *const internal_classes[] = {
    "java/lang/Object", "java/lang/Thread",
};

static const char TRACER_PREFIX[] = "mcalltree/";

/* Bounds of the error messages' lists. */
#define MSG_NAMES 24
#define MSG_NEAR 4

/* plan_build reads the clock every TICKS steps of its walk (and before
 * every match and batch of class files), and asks whether the requester is
 * gone at most every GONE_EVERY_NS. */
#define TICKS 256
#define GONE_EVERY_NS 20000000u

/* Classes whose bytes are fetched in one batch (one retransformation),
 * between two looks at the bounds. */
#define PREFETCH_CHUNK 512

/* --- growable vectors ------------------------------------------------------------ */

struct vec {
    void **v;
    size_t n, cap;
};

static int vec_push(struct vec *v, void *p)
{
    if (buf_grow(&v->v, &v->cap, v->n, sizeof *v->v, 64) < 0)
        return -1;
    v->v[v->n++] = p;
    return 0;
}

/* --- the planning state ------------------------------------------------------------ */

/* What the planner knows about one loaded class; hierarchy answers are
 * asked once and kept here. */
struct cls {
    hier_class *h;
    const char *name;           /* borrowed from the hierarchy */
    int flags;
    const hier_method *m;
    size_t nm;
    struct cls *super;
    struct cls **ifaces;
    size_t nifaces;
    signed char have_m, have_super, have_ifaces;
    signed char regex_ok;       /* -1 until asked; 2: gave up (plan_extend) */
    signed char keep;           /* -1 until decided */
    signed char above;          /* a kept class among its supertypes: -1 unknown, 2 computing */
    signed char have_rel, queued;
    struct cls **rel;           /* concrete subtypes with a kept class above them */
    size_t nrel;
    cf_class *cf;               /* parsed when one of its methods is scanned */
    int cf_failed;              /* 1: did not parse; 2: no bytes (plan_extend) */
    uint64_t nhash;             /* name_hash(name), 0 until asked */
    struct owner *owner;        /* its owner record, once it has one */
    unsigned walk, imark, smark; /* visit stamps of the three kinds of walk */
};

/* A method of a loaded class. */
struct sel {
    struct cls *c;
    const hier_method *m;
};

/* The implementations of a virtual call beyond the resolved method. */
struct vres {
    size_t n;
    struct sel *impls;
};

/* An entry of a keyed table (a kit_table of these): the key, byte strings
 * copied into an arena, and the value, in the arena too so that its address
 * survives the table's growth. */
struct mrec {
    void *val;
    size_t klen;
    unsigned char key[];
};

/* A watched call site of an owner (see the top of the file). */
struct site {
    const char *name, *desc;    /* in the plan's arena */
    int level;                  /* the callee level */
    int root;                   /* implementations are entry methods */
    struct site *next;
};

struct owner {
    struct site *sites;
    uint64_t self;              /* name_hash of its name */
    int others;                 /* a class other than itself is linked to it */
    unsigned mark;              /* plan_new_class's visit stamp */
};

/* An owner a class is (a subtype of). */
struct olink {
    struct owner *o;
    struct olink *next;
};

/* A seed waiting for its class. */
struct deferred {
    char *class_name, *name, *desc;
    int level, tries;
};

/* Entries live in blocks that never move: block b holds BLOCK0 << b. */
#define BLOCK0_LOG 6
#define BLOCK0 (1 << BLOCK0_LOG)
#define NBLOCKS 16

struct pentry {
    plan_method pub;            /* first: plan_at's pointer is the entry's */
    unsigned char scanned;      /* its call sites were followed */
};

struct plan {
    struct pentry *blocks[NBLOCKS];
    size_t n;                   /* published with release (plan_count) */
    size_t max;
    int capped;
    kit_arena arena;            /* entry strings and what plan_extend needs */
    /* the request */
    int depth, include_jdk;
    match_re *re;               /* NULL: every class matches */
    /* what later classes need; under lock */
    pthread_mutex_t lock;
    kit_table names;            /* struct mrec: 'O' owner -> struct owner *;
                                   'W' owner, name, desc -> struct site * */
    kit_table index;            /* entry index + 1 by entry_hash of its names */
    kit_table known;            /* subtypes: name hash -> struct olink ** (the
                                   list head, in the arena) */
    struct owner *object;       /* the owner record of java/lang/Object */
    unsigned stamp;
    size_t cls_from;            /* entries before it have cls NULL */
    hier_class *receiver;       /* plan_receiver; NULL once plan_extend runs */
    struct deferred *deferred;
    size_t ndeferred;
    plan_regex_seen seen;       /* plan_regex; seen.suggestion in the arena */
};

struct ctx {
    const plan_request *req;
    const hier_ops *ops;
    void *hc;
    mct_err *err;
    int failed;                 /* err is set: unwind */
    match_re *re;               /* NULL: every class matches */
    int include_jdk;
    plan *p;
    size_t max;
    int extend;                 /* plan_extend: the plan's lock is held */
    size_t base;                /* plan_extend: the plan's count when it began */
    struct sel *nodes;          /* by plan index; {NULL} for entries of other calls */
    size_t ncap;
    struct vec added;           /* plan_extend: the indexes it appended */
    struct vec todo;            /* plan_extend: its queue (seeds and appended) */
    kit_table map;              /* struct mrec, keys as below */
    kit_arena arena;
    mct_buf key;
    unsigned stamp;
    struct cls *object;         /* java/lang/Object, when loaded */
    struct vec walk, path, ifs, tmp, all;
    /* plan_build's bounds */
    uint64_t regex_left;        /* the regex's steps left over the plan */
    size_t regex_names;         /* names matched so far */
    uint64_t deadline;          /* CLOCK_MONOTONIC ns */
    uint64_t next_gone;         /* when to ask req->gone next */
    unsigned ticks;
    int level;                  /* being scanned */
    /* plan_build's regexes to suggest (see suggest) and how many callee
     * classes each matched */
    match_re *hint_re[2];
    size_t hint_n[2];
};

/* Keys of the hash tables start with one of these bytes. */
enum {
    K_CLASS = 'K',    /* hier_class*                    -> struct cls* */
    K_FIND = 'F',     /* from, name                     -> struct cls* (or &none) */
    K_METHOD = 'M',   /* cls*, hier_method*             -> plan index + 1 */
    K_PENDING = 'P',  /* class, name, desc              -> plan index + 1 */
    K_RESOLVE = 'R',  /* cls*, iface, name, desc        -> struct sel* */
    K_CHAIN = 'C',    /* cls*, name, desc               -> struct sel* */
    K_VIRTUAL = 'V',  /* cls*, name, desc               -> struct vres* */
    K_DEDUPE = 'D',   /* vres*, hier_method*            -> non-NULL */
    K_NAME = 'N',     /* a method name (error messages) -> non-NULL */
    K_CALLEE = 'E',   /* a callee class's name (plan_regex) -> non-NULL */
    /* the plan's table */
    P_OWNER = 'O',
    P_SITE = 'W'
};

static struct sel no_sel;
static char none_marker;

static void oom(struct ctx *x)
{
    if (!x->failed)
        mct_err_set(x->err, MCT_E_NOMEM, "out of memory while planning");
    x->failed = 1;
}

/* plan_build: whether planning must stop, past its time limit or because
 * the requester is gone (err set, x->failed); looks every TICKS calls, or
 * now when force. plan_extend has no such bounds. */
static int stop(struct ctx *x, int force)
{
    uint64_t now;

    if (x->failed || x->extend || (!force && ++x->ticks % TICKS != 0))
        return x->failed;
    now = clock_monotonic_ns();
    if (now >= x->deadline) {
        mct_err_set(x->err, MCT_E_LIMIT,
                    "planning took more than %g s (limit: planning time), at level %d of %d with %zu "
                    "methods in the plan: lower the depth, or narrow the regex",
                    (double)(x->req->time_ms ? x->req->time_ms : PLAN_TIME_MS) / 1000, x->level,
                    x->req->depth, x->p->n);
        x->failed = 1;
    } else if (x->req->gone != NULL && now >= x->next_gone) {
        x->next_gone = now + GONE_EVERY_NS;
        if (x->req->gone(x->req->gone_arg)) {
            mct_err_set(x->err, MCT_E_INTR, "planning stopped at level %d of %d: the client went away",
                        x->level, x->req->depth);
            x->failed = 1;
        }
    }
    return x->failed;
}

/* Whether the class of internal name `name` matches the regex: 1 or 0.
 * plan_build fails when the regex exceeds its work (err set, x->failed);
 * plan_extend takes such a name as not matching and sets *gave_up. */
static int regex_match(struct ctx *x, const char *name, int *gave_up)
{
    int r;

    *gave_up = 0;
    if (x->re == NULL)
        return 1;
    if (x->extend) {
        r = match_class(x->re, name);
        *gave_up = r == MATCH_NAME_LIMIT;
        return r == 1;
    }
    if (stop(x, 1))
        return 0;
    r = match_class_budget(x->re, name, &x->regex_left);
    x->regex_names++;
    if (r >= 0)
        return r;
    if (r == MATCH_ERROR) {
        oom(x);
    } else if (r == MATCH_NAME_LIMIT) {
        char *u = mutf8_dup(name), *s;

        for (s = u; s != NULL && *s != '\0'; s++)
            if (*s == '/')
                *s = '.';
        mct_err_set(x->err, MCT_E_LIMIT,
                    "the regex took more than %d steps to match the class name %.200s (limit: regex work "
                    "per name): nested quantifiers such as (.+)+ backtrack exponentially; simplify the "
                    "regex (a package pattern such as com\\.shop\\..* takes a few steps a name)",
                    MATCH_NAME_WORK, u ? u : "?");
        free(u);
    } else {
        mct_err_set(x->err, MCT_E_LIMIT,
                    "the regex took more than %llu steps over the %zu class names it was matched with "
                    "(limit: regex work over the plan): simplify the regex, or lower the depth so that "
                    "fewer classes are looked at",
                    (unsigned long long)(x->req->regex_work ? x->req->regex_work : PLAN_REGEX_WORK),
                    x->regex_names);
    }
    x->failed = 1;
    return 0;
}

/* --- the hash tables ------------------------------------------------------------------ */

static void key_begin(mct_buf *k, int kind)
{
    k->len = 0;
    buf_u1(k, (uint8_t)kind);
}

static void key_ptr(mct_buf *k, const void *p)
{
    buf_bytes(k, &p, sizeof p);
}

/* Strings go in with their NUL so that ("ab","c") and ("a","bc") differ. */
static void key_str(mct_buf *k, const char *s)
{
    buf_bytes(k, s, strlen(s) + 1);
}

/* The value of key k (stays at this address while the arena lives): NULL
 * if absent and !create; created as NULL if absent and create. NULL with
 * *nomem set when out of memory (a key the buffer failed to build too). */
static void **map_get(kit_table *m, kit_arena *arena, const mct_buf *key, int create, int *nomem)
{
    const unsigned char *k = key->data;
    size_t n = key->len;
    uint64_t h;
    struct mrec *r;
    kit_cursor cur;

    if (buf_failed(key)) {
        *nomem = 1;
        return NULL;
    }
    h = kit_hash(k, n, 0);
    for (r = (struct mrec *)kit_table_first(m, h, &cur); r != NULL; r = (struct mrec *)kit_table_next(m, &cur))
        if (r->klen == n && memcmp(r->key, k, n) == 0)
            return &r->val;
    if (!create)
        return NULL;
    if ((r = kit_arena_alloc(arena, sizeof *r + n)) == NULL || kit_table_add(m, h, (uintptr_t)r) < 0) {
        *nomem = 1;
        return NULL;
    }
    r->val = NULL;
    r->klen = n;
    memcpy(r->key, k, n);
    return &r->val;
}

/* The planning state's table, key in x->key; NULL with x->failed on OOM. */
static void **map_slot(struct ctx *x, int create)
{
    int nomem = 0;
    void **v = map_get(&x->map, &x->arena, &x->key, create, &nomem);

    if (nomem)
        oom(x);
    return v;
}

/* The plan's table, key in x->key; NULL with x->failed on OOM. */
static void **pmap_slot(struct ctx *x, int create)
{
    int nomem = 0;
    void **v = map_get(&x->p->names, &x->p->arena, &x->key, create, &nomem);

    if (nomem)
        oom(x);
    return v;
}

/* The hash that stands for a class name in the subtype table; never 0. */
static uint64_t name_hash(const char *name)
{
    return kit_hash_str(name, 0x243f6a8885a308d3ULL);
}

/* The owners of the class whose name hashes to h: NULL if absent and
 * !create; else the list head (NULL when empty), or NULL on OOM with
 * *nomem set. */
static struct olink **kmap_get(plan *p, uint64_t h, int create, int *nomem)
{
    kit_cursor cur;
    struct olink **head = (struct olink **)kit_table_first(&p->known, h, &cur);

    if (head != NULL || !create)
        return head;
    if ((head = kit_arena_alloc(&p->arena, sizeof *head)) == NULL ||
        kit_table_add(&p->known, h, (uintptr_t)head) < 0) {
        *nomem = 1;
        return NULL;
    }
    *head = NULL;
    return head;
}

/* Records the class whose name hashes to h as a subtype of o (unless it is
 * already, when dedupe); -1 on OOM. */
static int link_add(plan *p, uint64_t h, struct owner *o, int dedupe)
{
    int nomem = 0;
    struct olink **head = kmap_get(p, h, 1, &nomem), *l;

    if (head == NULL)
        return -1;
    for (l = dedupe ? *head : NULL; l != NULL; l = l->next)
        if (l->o == o)
            return 0;
    if ((l = kit_arena_alloc(&p->arena, sizeof *l)) == NULL)
        return -1;
    l->o = o;
    l->next = *head;
    *head = l;
    if (h != o->self)
        o->others = 1;
    return 0;
}

/* --- class records ---------------------------------------------------------------- */

static int has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int jdk_name(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof jdk_prefixes / sizeof jdk_prefixes[0]; i++)
        if (has_prefix(name, jdk_prefixes[i]))
            return 1;
    return 0;
}

/* Why a class is never instrumented, or NULL. */
static const char *never_why(const char *name, int flags)
{
    size_t i;

    if (has_prefix(name, TRACER_PREFIX))
        return R_TRACER;
    if (flags & HIER_UNMODIFIABLE)
        return R_UNMOD;
    for (i = 0; i < sizeof internal_prefixes / sizeof internal_prefixes[0]; i++)
        if (has_prefix(name, internal_prefixes[i]))
            return R_INTERNALS;
    for (i = 0; i < sizeof internal_classes / sizeof internal_classes[0]; i++)
        if (strcmp(name, internal_classes[i]) == 0)
            return R_INTERNALS;
    return NULL;
}

/* The record of h, created on first sight; NULL for NULL (or OOM). */
static struct cls *getcls(struct ctx *x, hier_class *h)
{
    void **v;
    struct cls *c;

    if (h == NULL || stop(x, 0))
        return NULL;
    key_begin(&x->key, K_CLASS);
    key_ptr(&x->key, h);
    if ((v = map_slot(x, 1)) == NULL)
        return NULL;
    if (*v != NULL)
        return *v;
    if ((c = kit_arena_alloc(&x->arena, sizeof *c)) == NULL) {
        oom(x);
        return NULL;
    }
    memset(c, 0, sizeof *c);
    c->h = h;
    c->name = x->ops->name(x->hc, h);
    c->flags = x->ops->flags(x->hc, h);
    c->regex_ok = c->keep = c->above = -1;
    *v = c;
    return c;
}

static struct cls *cls_super(struct ctx *x, struct cls *c)
{
    if (!c->have_super) {
        c->super = getcls(x, x->ops->super(x->hc, c->h));
        c->have_super = 1;
    }
    return c->super;
}

static struct cls **cls_ifaces(struct ctx *x, struct cls *c, size_t *n)
{
    if (!c->have_ifaces) {
        hier_class *const *hs;
        size_t k = x->ops->interfaces(x->hc, c->h, &hs), i;

        if (k != 0 && (c->ifaces = kit_arena_alloc(&x->arena, k * sizeof *c->ifaces)) == NULL) {
            oom(x);
            k = 0;
        }
        for (i = 0; i < k; i++)
            if ((c->ifaces[i] = getcls(x, hs[i])) == NULL)
                break;
        c->nifaces = i;
        c->have_ifaces = 1;
    }
    *n = c->nifaces;
    return c->ifaces;
}

/* The methods c declares (count in c->nm). */
static const hier_method *cls_methods(struct ctx *x, struct cls *c)
{
    if (!c->have_m) {
        c->nm = x->ops->methods(x->hc, c->h, &c->m);
        c->have_m = 1;
    }
    return c->m;
}

/* The method c declares with this name and descriptor, or NULL. */
static const hier_method *find_decl(struct ctx *x, struct cls *c, const char *name, const char *desc)
{
    size_t i;

    cls_methods(x, c);
    for (i = 0; i < c->nm; i++)
        if (strcmp(c->m[i].name, name) == 0 && strcmp(c->m[i].desc, desc) == 0)
            return &c->m[i];
    return NULL;
}

/* The loaded class named name as code in `from` sees it, or NULL. */
static struct cls *find_class(struct ctx *x, const char *name, struct cls *from)
{
    void **v;
    hier_class *h;
    struct cls *c;

    key_begin(&x->key, K_FIND);
    key_ptr(&x->key, from);
    key_str(&x->key, name);
    if ((v = map_slot(x, 1)) == NULL)
        return NULL;
    if (*v != NULL)
        return *v == &none_marker ? NULL : *v;
    h = x->ops->find(x->hc, name, from ? from->h : NULL);
    c = getcls(x, h);
    *v = c ? (void *)c : (void *)&none_marker;
    return c;
}

static int regex_ok(struct ctx *x, struct cls *c)
{
    int gave_up;

    if (c->regex_ok < 0) {
        c->regex_ok = (signed char)regex_match(x, c->name, &gave_up);
        if (gave_up)
            c->regex_ok = 2;
    }
    return c->regex_ok == 1;
}

/* Whether the methods of c may be kept as callees (cheap tests first). */
static int cls_kept(struct ctx *x, struct cls *c)
{
    if (c->keep < 0)
        c->keep = never_why(c->name, c->flags) == NULL &&
                  (x->include_jdk || !(c->flags & HIER_JDK)) && regex_ok(x, c);
    return c->keep;
}

/* Why the methods of c are not kept as callees, or NULL. */
static const char *cls_why(struct ctx *x, struct cls *c)
{
    const char *why;

    if (cls_kept(x, c))
        return NULL;
    if (!regex_ok(x, c))
        return c->regex_ok == 2 ? R_REGEX_LIMIT : R_REGEX;
    if ((why = never_why(c->name, c->flags)) != NULL)
        return why;
    return R_JDK;
}

/* Whether c or one of its supertypes is kept: only then can JVM selection
 * on c pick a method that is kept. */
static int kept_above(struct ctx *x, struct cls *c)
{
    struct cls *s, **is;
    size_t n, i;
    int r;

    if (c->above == 2)
        return 0;
    if (c->above >= 0)
        return c->above;
    c->above = 2;
    r = cls_kept(x, c);
    if (!r && (s = cls_super(x, c)) != NULL)
        r = kept_above(x, s);
    if (!r) {
        is = cls_ifaces(x, c, &n);
        for (i = 0; i < n && !r; i++)
            r = kept_above(x, is[i]);
    }
    c->above = (signed char)r;
    return r;
}

/* --- resolution and selection (JVMS 5.4.3.3, 5.4.3.4, 5.4.6) ------------------------- */

static struct sel *new_sel(struct ctx *x, struct cls *c, const hier_method *m)
{
    struct sel *s;

    if (m == NULL)
        return &no_sel;
    if ((s = kit_arena_alloc(&x->arena, sizeof *s)) == NULL) {
        oom(x);
        return &no_sel;
    }
    s->c = c;
    s->m = m;
    return s;
}

/* Appends to x->ifs every superinterface of c and of its superclasses,
 * each once. */
static void collect_ifaces(struct ctx *x, struct cls *c)
{
    unsigned stamp = ++x->stamp;
    size_t i, n, k;
    struct cls **is;

    x->ifs.n = 0;
    for (; c != NULL; c = cls_super(x, c)) {
        is = cls_ifaces(x, c, &n);
        for (k = 0; k < n; k++)
            if (is[k]->imark != stamp) {
                is[k]->imark = stamp;
                if (vec_push(&x->ifs, is[k]) < 0)
                    oom(x);
            }
    }
    /* x->ifs grows while it is walked: breadth first over superinterfaces. */
    for (i = 0; i < x->ifs.n && !x->failed; i++) {
        is = cls_ifaces(x, x->ifs.v[i], &n);
        for (k = 0; k < n; k++)
            if (is[k]->imark != stamp) {
                is[k]->imark = stamp;
                if (vec_push(&x->ifs, is[k]) < 0)
                    oom(x);
            }
    }
}

/* Whether sup is a proper superinterface of c. */
static int extends_iface(struct ctx *x, struct cls *c, struct cls *sup, unsigned stamp)
{
    struct cls **is;
    size_t n, i;

    is = cls_ifaces(x, c, &n);
    for (i = 0; i < n; i++) {
        if (is[i] == sup)
            return 1;
        if (is[i]->smark != stamp) {
            is[i]->smark = stamp;
            if (extends_iface(x, is[i], sup, stamp))
                return 1;
        }
    }
    return 0;
}

/* The maximally-specific superinterface method of c for name/desc that is
 * not abstract, when there is exactly one; else, if any_ok, any of them
 * (resolution may pick an abstract one); else none. */
static struct sel default_select(struct ctx *x, struct cls *c, const char *name, const char *desc,
                                 int any_ok)
{
    struct sel found = {0}, first = {0};
    size_t i, j, ncand = 0, nconcrete = 0;

    collect_ifaces(x, c);
    x->tmp.n = 0;
    for (i = 0; i < x->ifs.n; i++) {
        struct cls *ic = x->ifs.v[i];
        const hier_method *m = find_decl(x, ic, name, desc);

        if (m != NULL && !(m->access & (CF_ACC_STATIC | CF_ACC_PRIVATE)) && vec_push(&x->tmp, ic) < 0)
            oom(x);
    }
    ncand = x->tmp.n;
    for (i = 0; i < ncand; i++) {
        struct cls *ic = x->tmp.v[i];
        int maximal = 1;

        for (j = 0; j < ncand && maximal; j++)
            if (j != i && extends_iface(x, x->tmp.v[j], ic, ++x->stamp))
                maximal = 0;
        if (!maximal)
            continue;
        if (first.m == NULL) {
            first.c = ic;
            first.m = find_decl(x, ic, name, desc);
        }
        if (!(find_decl(x, ic, name, desc)->access & CF_ACC_ABSTRACT)) {
            found.c = ic;
            found.m = find_decl(x, ic, name, desc);
            nconcrete++;
        }
    }
    if (nconcrete == 1)
        return found;
    if (any_ok)
        return first;
    return (struct sel){0};
}

/* The method selection finds up the superclass chain of c (an instance
 * method, declared in c or its nearest superclass), or none; cached for
 * every class of the chain. */
static struct sel chain_select(struct ctx *x, struct cls *c, const char *name, const char *desc)
{
    struct sel *res = NULL;
    struct cls *y;
    size_t i;

    x->path.n = 0;
    for (y = c; y != NULL && res == NULL; y = cls_super(x, y)) {
        void **v;
        const hier_method *m;

        key_begin(&x->key, K_CHAIN);
        key_ptr(&x->key, y);
        key_str(&x->key, name);
        key_str(&x->key, desc);
        if ((v = map_slot(x, 0)) != NULL) {
            res = *v;
            break;
        }
        if (vec_push(&x->path, y) < 0) {
            oom(x);
            return no_sel;
        }
        m = find_decl(x, y, name, desc);
        if (m != NULL && !(m->access & (CF_ACC_STATIC | CF_ACC_PRIVATE)))
            res = new_sel(x, y, m);
    }
    if (res == NULL)
        res = &no_sel;
    for (i = 0; i < x->path.n && !x->failed; i++) {
        void **v;

        key_begin(&x->key, K_CHAIN);
        key_ptr(&x->key, x->path.v[i]);
        key_str(&x->key, name);
        key_str(&x->key, desc);
        if ((v = map_slot(x, 1)) != NULL)
            *v = res;
    }
    return *res;
}

/* The method JVM selection picks for an instance of the concrete class c. */
static struct sel select_for(struct ctx *x, struct cls *c, const char *name, const char *desc)
{
    struct sel s = chain_select(x, c, name, desc);

    if (s.m == NULL)
        s = default_select(x, c, name, desc, 0);
    return s;
}

/* The method a reference to owner.name:desc resolves to, or none (cached). */
static struct sel resolve(struct ctx *x, struct cls *owner, const char *name, const char *desc, int iface)
{
    void **v;
    struct cls *y;
    const hier_method *m = NULL;
    struct sel s = {0};

    key_begin(&x->key, K_RESOLVE);
    key_ptr(&x->key, owner);
    buf_u1(&x->key, (uint8_t)iface);
    key_str(&x->key, name);
    key_str(&x->key, desc);
    if ((v = map_slot(x, 0)) != NULL)
        return *(struct sel *)*v;
    if (iface) {
        if ((m = find_decl(x, owner, name, desc)) != NULL) {
            s.c = owner;
            s.m = m;
        } else if (x->object != NULL && (m = find_decl(x, x->object, name, desc)) != NULL &&
                   (m->access & CF_ACC_PUBLIC) && !(m->access & CF_ACC_STATIC)) {
            s.c = x->object;
            s.m = m;
        }
    } else {
        for (y = owner; y != NULL; y = cls_super(x, y))
            if ((m = find_decl(x, y, name, desc)) != NULL) {
                s.c = y;
                s.m = m;
                break;
            }
    }
    if (s.m == NULL)
        s = default_select(x, owner, name, desc, 1);
    key_begin(&x->key, K_RESOLVE);
    key_ptr(&x->key, owner);
    buf_u1(&x->key, (uint8_t)iface);
    key_str(&x->key, name);
    key_str(&x->key, desc);
    if ((v = map_slot(x, 1)) != NULL)
        *v = new_sel(x, s.c, s.m);
    return s;
}

/* Appends to x->walk the concrete classes among owner and its loaded
 * subtypes (transitively), depth first in the hierarchy's order; with
 * only_kept, just those with a kept class among their supertypes. With
 * all, sets it to every class visited (owner and all its subtypes). */
static void concrete_subtypes(struct ctx *x, struct cls *owner, int only_kept, struct vec *all)
{
    unsigned stamp = ++x->stamp;
    struct vec stack = {0};

    x->walk.n = 0;
    if (all != NULL)
        all->n = 0;
    if (vec_push(&stack, owner) < 0)
        oom(x);
    while (stack.n > 0 && !stop(x, 0)) {
        struct cls *c = stack.v[--stack.n];
        hier_class *const *subs;
        size_t n, i;

        if (c->walk == stamp)
            continue;
        c->walk = stamp;
        if (!(c->flags & (HIER_INTERFACE | HIER_ABSTRACT)) && (!only_kept || kept_above(x, c)) &&
            vec_push(&x->walk, c) < 0)
            oom(x);
        if (all != NULL && vec_push(all, c) < 0)
            oom(x);
        n = x->ops->subtypes(x->hc, c->h, &subs);
        for (i = n; i-- > 0;) {
            struct cls *s = getcls(x, subs[i]);

            if (s != NULL && s->walk != stamp && vec_push(&stack, s) < 0)
                oom(x);
        }
    }
    free(stack.v);
}

/* --- watched call sites --------------------------------------------------------------- */

/* The owner record of a class name, created (in its own subtype set) on
 * first sight; NULL with *nomem set when out of memory. */
static struct owner *owner_of(plan *p, mct_buf *key, const char *name, int *nomem)
{
    void **v;
    struct owner *o;

    key_begin(key, P_OWNER);
    key_str(key, name);
    if ((v = map_get(&p->names, &p->arena, key, 1, nomem)) == NULL)
        return NULL;
    if (*v != NULL)
        return *v;
    if ((o = kit_arena_alloc(&p->arena, sizeof *o)) == NULL) {
        *nomem = 1;
        return NULL;
    }
    memset(o, 0, sizeof *o);
    o->self = name_hash(name);
    *v = o;
    if (strcmp(name, OBJECT) == 0)
        p->object = o;
    else if (link_add(p, o->self, o, 0) < 0)
        *nomem = 1;
    return o;
}

/* Watches the call site owner.name:desc whose callees are at level (root:
 * its implementations are entry methods); c is the owner's class when
 * loaded (it caches the owner record). Returns the owner record, or NULL
 * with x->failed. */
static struct owner *watch(struct ctx *x, const char *owner, struct cls *c, const char *name,
                           const char *desc, int level, int root)
{
    plan *p = x->p;
    int nomem = 0;
    struct owner *o = c != NULL && c->owner != NULL ? c->owner : owner_of(p, &x->key, owner, &nomem);
    struct site *s;
    void **v;

    if (o == NULL || nomem) {
        oom(x);
        return NULL;
    }
    if (c != NULL)
        c->owner = o;
    key_begin(&x->key, P_SITE);
    key_str(&x->key, owner);
    key_str(&x->key, name);
    key_str(&x->key, desc);
    if ((v = pmap_slot(x, 1)) == NULL)
        return NULL;
    if ((s = *v) != NULL) {
        if (level < s->level)
            s->level = level;
        s->root |= root;
        return o;
    }
    if ((s = kit_arena_alloc(&p->arena, sizeof *s)) == NULL ||
        (s->name = kit_arena_strdup(&p->arena, name)) == NULL ||
        (s->desc = kit_arena_strdup(&p->arena, desc)) == NULL) {
        oom(x);
        return NULL;
    }
    s->level = level;
    s->root = root;
    s->next = o->sites;
    o->sites = s;
    *v = s;
    return o;
}

/* Whether the plan watches the call site owner.name:desc. */
static int watched(struct ctx *x, const char *owner, const char *name, const char *desc)
{
    void **v;

    key_begin(&x->key, P_SITE);
    key_str(&x->key, owner);
    key_str(&x->key, name);
    key_str(&x->key, desc);
    return (v = pmap_slot(x, 0)) != NULL && *v != NULL;
}

/* The collection of a walk for the subtype set of o: x->all, or NULL for
 * java/lang/Object, whose sites apply to every class. */
static struct vec *walk_all(struct ctx *x, struct owner *o)
{
    return o != NULL && o != x->p->object ? &x->all : NULL;
}

/* Records the classes of x->all, the walk from o's class, as its subtypes
 * (no duplicate check while only o itself is linked to o). */
static void record_subtypes(struct ctx *x, struct owner *o)
{
    int dedupe;
    size_t i;

    if (walk_all(x, o) == NULL)
        return;
    dedupe = o->others;
    for (i = 0; i < x->all.n && !x->failed; i++) {
        struct cls *c = x->all.v[i];

        if (c->nhash == 0)
            c->nhash = name_hash(c->name);
        if ((dedupe || c->nhash != o->self) && link_add(x->p, c->nhash, o, dedupe) < 0)
            oom(x);
    }
}

/* The kept implementations, other than the resolved method r, that a
 * virtual call of owner.name:desc may run (cached per owner, name, desc).
 * The site is watched, with its callee level. */
static struct vres *overriders(struct ctx *x, struct cls *owner, struct sel r, const char *name,
                               const char *desc, int level)
{
    static struct vres empty;
    struct vres *vr;
    struct owner *o;
    void **v;
    size_t i;

    if ((r.m->access & (CF_ACC_FINAL | CF_ACC_PRIVATE | CF_ACC_STATIC)) || strcmp(name, "<init>") == 0)
        return &empty;
    key_begin(&x->key, K_VIRTUAL);
    key_ptr(&x->key, owner);
    key_str(&x->key, name);
    key_str(&x->key, desc);
    if ((v = map_slot(x, 0)) != NULL)
        return *v;
    if ((o = watch(x, owner->name, owner, name, desc, level, 0)) == NULL)
        return &empty;
    if (!owner->have_rel) {
        concrete_subtypes(x, owner, 1, walk_all(x, o));
        record_subtypes(x, o);
        if (x->walk.n != 0 && (owner->rel = kit_arena_alloc(&x->arena, x->walk.n * sizeof *owner->rel)) == NULL)
            oom(x);
        else if (x->walk.n != 0)
            memcpy(owner->rel, x->walk.v, x->walk.n * sizeof *owner->rel);
        owner->nrel = owner->rel ? x->walk.n : 0;
        owner->have_rel = 1;
    }
    if ((vr = kit_arena_alloc(&x->arena, sizeof *vr)) == NULL) {
        oom(x);
        return &empty;
    }
    vr->n = 0;
    vr->impls = NULL;
    {
        struct vec found = {0};

        for (i = 0; i < owner->nrel && !x->failed; i++) {
            struct sel s = select_for(x, owner->rel[i], name, desc);
            void **d;

            if (s.m == NULL || s.m == r.m || (s.m->access & CF_ACC_ABSTRACT) || !cls_kept(x, s.c))
                continue;
            key_begin(&x->key, K_DEDUPE);
            key_ptr(&x->key, vr);
            key_ptr(&x->key, s.m);
            if ((d = map_slot(x, 1)) == NULL || *d != NULL)
                continue;
            *d = &none_marker;
            if (vec_push(&found, s.c) < 0 || vec_push(&found, (void *)s.m) < 0)
                oom(x);
        }
        if (found.n != 0 && !x->failed) {
            if ((vr->impls = kit_arena_alloc(&x->arena, found.n / 2 * sizeof *vr->impls)) == NULL) {
                oom(x);
            } else {
                for (i = 0; i < found.n / 2; i++) {
                    vr->impls[i].c = found.v[2 * i];
                    vr->impls[i].m = found.v[2 * i + 1];
                }
                vr->n = found.n / 2;
            }
        }
        free(found.v);
    }
    key_begin(&x->key, K_VIRTUAL);
    key_ptr(&x->key, owner);
    key_str(&x->key, name);
    key_str(&x->key, desc);
    if ((v = map_slot(x, 1)) != NULL)
        *v = vr;
    return vr;
}

/* --- the plan ---------------------------------------------------------------------- */

/* Entry i, which exists. */
static struct pentry *entry(const plan *p, size_t i)
{
    size_t j = i + BLOCK0;
    int b = 63 - __builtin_clzll((unsigned long long)j) - BLOCK0_LOG;

    return &p->blocks[b][j - ((size_t)BLOCK0 << b)];
}

static plan_method *pm_at(const plan *p, size_t i)
{
    return &entry(p, i)->pub;
}

static uint64_t entry_hash(const char *cname, const char *name, const char *desc)
{
    return kit_hash_str(desc, kit_hash_str(name, kit_hash_str(cname, 0x13198a2e03707344ULL)));
}

/* The index of the first entry named so, or -1. */
static long find_entry(const plan *p, const char *cname, const char *name, const char *desc)
{
    kit_cursor cur;
    uintptr_t v;

    for (v = kit_table_first(&p->index, entry_hash(cname, name, desc), &cur); v != 0;
         v = kit_table_next(&p->index, &cur)) {
        const plan_method *m = pm_at(p, v - 1);

        if (strcmp(m->class_name, cname) == 0 && strcmp(m->name, name) == 0 && strcmp(m->desc, desc) == 0)
            return (long)v - 1;
    }
    return -1;
}

/* Appends a copy of m (strings copied) and publishes it; returns its index,
 * or -1 when the plan is full (capped) or out of memory (*nomem set). Only
 * one thread appends at a time (the lock, once the plan is shared). */
static long push_entry(plan *p, const plan_method *m, int *nomem)
{
    size_t i = p->n, j = i + BLOCK0;
    int b = 63 - __builtin_clzll((unsigned long long)j) - BLOCK0_LOG;
    struct pentry *e;

    if (i >= p->max) {
        __atomic_store_n(&p->capped, 1, __ATOMIC_RELAXED);
        return -1;
    }
    if (p->blocks[b] == NULL && (p->blocks[b] = malloc(((size_t)BLOCK0 << b) * sizeof *e)) == NULL) {
        *nomem = 1;
        return -1;
    }
    e = &p->blocks[b][j - ((size_t)BLOCK0 << b)];
    memset(e, 0, sizeof *e);
    e->pub = *m;
    e->pub.class_name = kit_arena_strdup(&p->arena, m->class_name);
    e->pub.name = kit_arena_strdup(&p->arena, m->name);
    e->pub.desc = kit_arena_strdup(&p->arena, m->desc);
    if (e->pub.class_name == NULL || e->pub.name == NULL || e->pub.desc == NULL) {
        *nomem = 1;
        return -1;
    }
    if (kit_table_add(&p->index, entry_hash(m->class_name, m->name, m->desc), i + 1) < 0) {
        *nomem = 1;
        return -1;
    }
    __atomic_store_n(&p->n, i + 1, __ATOMIC_RELEASE);
    return (long)i;
}

/* Makes x->nodes cover the indexes below n; -1 with x->failed. */
static int grow_nodes(struct ctx *x, size_t n)
{
    size_t cap = x->ncap ? x->ncap : 64;
    struct sel *nn;

    if (n <= x->ncap)
        return 0;
    while (cap < n)
        cap *= 2;
    if ((nn = realloc(x->nodes, cap * sizeof *nn)) == NULL) {
        oom(x);
        return -1;
    }
    memset(nn + x->ncap, 0, (cap - x->ncap) * sizeof *nn);
    x->nodes = nn;
    x->ncap = cap;
    return 0;
}

static size_t vec_index(const struct vec *v, size_t k)
{
    return (size_t)(intptr_t)v->v[k];
}

static void vec_push_index(struct ctx *x, struct vec *v, size_t i)
{
    if (vec_push(v, (void *)(intptr_t)i) < 0)
        oom(x);
}

/* Appends an entry; returns its index, or -1 when the plan is full (capped)
 * or out of memory. */
static long append(struct ctx *x, struct cls *c, const hier_method *m, const char *cname,
                   const char *name, const char *desc, int level, int status, int root,
                   const char *reason)
{
    plan_method pm;
    int nomem = 0;
    long i;

    if (grow_nodes(x, x->p->n + 1) < 0)
        return -1;
    memset(&pm, 0, sizeof pm);
    pm.cls = c ? c->h : NULL;
    pm.class_name = cname;
    pm.name = name;
    pm.desc = desc;
    pm.access = m ? m->access : 0;
    pm.level = level;
    pm.status = status;
    pm.root = root;
    pm.reason = reason;
    if ((i = push_entry(x->p, &pm, &nomem)) < 0) {
        if (nomem)
            oom(x);
        return -1;
    }
    x->nodes[i].c = c;
    x->nodes[i].m = m;
    if (x->extend) {
        vec_push_index(x, &x->added, (size_t)i);
        vec_push_index(x, &x->todo, (size_t)i);
    }
    return i;
}

/* Adds a method of a loaded class unless already there (plan_extend: by
 * name as well); returns its index, or -1 when it could not be added. A
 * root gets `note` as its reason when instrumented. */
static long add_method(struct ctx *x, struct sel s, int level, int root, const char *note)
{
    void **v;
    const char *why;
    int status = PLAN_INSTRUMENT;
    long i;

    key_begin(&x->key, K_METHOD);
    key_ptr(&x->key, s.c);
    key_ptr(&x->key, s.m);
    if ((v = map_slot(x, 1)) == NULL)
        return -1;
    if (*v != NULL)
        return (long)(intptr_t)*v - 1;
    /* By name: the copies of a class in several loaders are one entry
     * (the session instruments it in every loader). */
    if ((i = find_entry(x->p, s.c->name, s.m->name, s.m->desc)) >= 0) {
        *v = (void *)(intptr_t)(i + 1);
        return i;
    }
    why = root ? never_why(s.c->name, s.c->flags) : cls_why(x, s.c);
    if (why == NULL && (s.m->access & CF_ACC_ABSTRACT))
        why = R_ABSTRACT;
    if (why == NULL && (s.m->access & CF_ACC_NATIVE))
        why = R_NATIVE;
    if (why != NULL)
        status = PLAN_EXCLUDED;
    i = append(x, s.c, s.m, s.c->name, s.m->name, s.m->desc, level, status, root,
               why ? why : note);
    if (i >= 0)
        *v = (void *)(intptr_t)(i + 1);
    return i;
}

/* plan_build: counts the class of a callee once by name for plan_regex,
 * when the regex decides on it (eligible: nothing left it out before). */
static void count_callee(struct ctx *x, const char *name, int eligible, int matched)
{
    void **v;
    int k;

    if (x->extend || !eligible || x->failed)
        return;
    key_begin(&x->key, K_CALLEE);
    key_str(&x->key, name);
    if ((v = map_slot(x, 1)) == NULL || *v != NULL)
        return;
    *v = &none_marker;
    x->p->seen.callee_classes++;
    x->p->seen.matched_classes += matched != 0;
    for (k = 0; k < 2; k++)
        if (x->hint_re[k] != NULL && match_class(x->hint_re[k], name) == 1)
            x->hint_n[k]++;
}

/* Adds a method of a class that is not loaded yet; a virtual call site on
 * it is watched (its subtypes load after it). */
static void add_pending(struct ctx *x, const char *cname, const char *name, const char *desc, int level,
                        int virt)
{
    void **v;
    const char *why = NULL;
    int gave_up, matched;
    long i;

    if (virt && watch(x, cname, NULL, name, desc, level, 0) == NULL)
        return;
    key_begin(&x->key, K_PENDING);
    key_str(&x->key, cname);
    key_str(&x->key, name);
    key_str(&x->key, desc);
    if ((v = map_slot(x, 1)) == NULL || *v != NULL)
        return;
    if (x->extend && (i = find_entry(x->p, cname, name, desc)) >= 0) {
        *v = (void *)(intptr_t)(i + 1);
        return;
    }
    matched = regex_match(x, cname, &gave_up);
    if (!matched)
        why = gave_up ? R_REGEX_LIMIT : R_REGEX;
    else if ((why = never_why(cname, 0)) == NULL && !x->include_jdk && jdk_name(cname))
        why = R_JDK;
    if (x->failed)
        return;
    count_callee(x, cname, never_why(cname, 0) == NULL && (x->include_jdk || !jdk_name(cname)), matched);
    i = append(x, NULL, NULL, cname, name, desc, level, why ? PLAN_EXCLUDED : PLAN_PENDING, 0, why);
    if (i >= 0)
        *v = (void *)(intptr_t)(i + 1);
}

/* count_callee for a loaded class; the regex is asked only where
 * cls_kept would ask it. */
static void callee_class(struct ctx *x, struct cls *c)
{
    int eligible;

    if (x->extend || x->failed)
        return;
    eligible = never_why(c->name, c->flags) == NULL && (x->include_jdk || !(c->flags & HIER_JDK));
    count_callee(x, c->name, eligible, eligible && regex_ok(x, c));
}

/* One callee of a method of `from` at level - 1, as named by a call site
 * or a method handle. */
static void callee(struct ctx *x, struct cls *from, int level, const char *owner, const char *name,
                   const char *desc, int iface, int virt)
{
    struct cls *o;
    struct sel r;
    struct vres *vr;
    size_t i;

    if (owner[0] == '[' || strcmp(name, "<clinit>") == 0)
        return;
    if ((o = find_class(x, owner, from)) == NULL) {
        if (!x->failed)
            add_pending(x, owner, name, desc, level, virt);
        return;
    }
    r = resolve(x, o, name, desc, iface || (o->flags & HIER_INTERFACE));
    if (r.m == NULL)
        return;
    add_method(x, r, level, 0, NULL);
    callee_class(x, r.c);
    if (!virt)
        return;
    vr = overriders(x, o, r, name, desc, level);
    for (i = 0; i < vr->n && !x->failed && !x->p->capped; i++) {
        add_method(x, vr->impls[i], level, 0, NULL);
        callee_class(x, vr->impls[i].c);
    }
}

/* The implementation method handle of a LambdaMetafactory call site. */
static void lambda(struct ctx *x, struct cls *from, int level, uint16_t index)
{
    const cf_bootstrap *bsm;
    const char *iname, *idesc;
    uint8_t kind;
    cf_ref bref, ref;

    if (cf_invoke_dynamic(from->cf, index, &bsm, &iname, &idesc) < 0 ||
        cf_method_handle(from->cf, bsm->method, &kind, &bref) < 0 || bref.tag == CF_FIELDREF ||
        strcmp(bref.owner, LMF) != 0 ||
        (strcmp(bref.name, "metafactory") != 0 && strcmp(bref.name, "altMetafactory") != 0) ||
        bsm->n_args < 2 || cf_method_handle(from->cf, bsm->args[1], &kind, &ref) < 0)
        return;
    switch (kind) {
    case CF_REF_INVOKE_STATIC:
    case CF_REF_INVOKE_SPECIAL:
    case CF_REF_NEW_INVOKE_SPECIAL:
        callee(x, from, level, ref.owner, ref.name, ref.desc, ref.tag == CF_INTERFACE_METHODREF, 0);
        break;
    case CF_REF_INVOKE_VIRTUAL:
    case CF_REF_INVOKE_INTERFACE:
        callee(x, from, level, ref.owner, ref.name, ref.desc, ref.tag == CF_INTERFACE_METHODREF, 1);
        break;
    default:
        break;
    }
}

/* Adds the callees of every call site of plan entry i (level k) at k + 1. */
static void scan(struct ctx *x, size_t i)
{
    struct cls *c = x->nodes[i].c;
    const hier_method *hm = x->nodes[i].m;
    int level = pm_at(x->p, i)->level + 1;
    const cf_member *m;
    const cf_code *code;
    uint32_t pc = 0;

    if (c->cf == NULL || (m = cf_find_method(c->cf, hm->name, hm->desc)) == NULL || m->code == NULL)
        return;
    code = m->code;
    while (pc < code->code_len && !stop(x, 0) && !x->p->capped) {
        bc_insn in;
        cf_ref ref;

        if (bc_decode(code->code, code->code_len, pc, &in, x->err) < 0) {
            x->failed = 1;
            mct_err_wrap(x->err, "while scanning %s.%s%s", c->name, hm->name, hm->desc);
            return;
        }
        switch (in.op) {
        case BC_INVOKEVIRTUAL:
        case BC_INVOKEINTERFACE:
        case BC_INVOKESPECIAL:
        case BC_INVOKESTATIC:
            if (cf_member_ref(c->cf, in.index, &ref) == 0 && ref.tag != CF_FIELDREF)
                callee(x, c, level, ref.owner, ref.name, ref.desc, ref.tag == CF_INTERFACE_METHODREF,
                       in.op == BC_INVOKEVIRTUAL || in.op == BC_INVOKEINTERFACE);
            break;
        case BC_INVOKEDYNAMIC:
            lambda(x, c, level, in.index);
            break;
        default:
            break;
        }
        pc += in.len;
    }
}

/* plan_extend holds the plan's lock except while the hierarchy reads class
 * bytes (which may run the ClassFileLoadHook, hence plan_new_class, on this
 * thread). */
static void unlock(struct ctx *x)
{
    if (x->extend)
        pthread_mutex_unlock(&x->p->lock);
}

static void relock(struct ctx *x)
{
    if (x->extend)
        pthread_mutex_lock(&x->p->lock);
}

/* Reads and parses the classes of the entries in todo (plan indexes) to be
 * scanned, announcing them to the hierarchy first. A class that does not
 * parse leaves the methods this call appended of it excluded; plan_build
 * fails when it holds an entry method, or when bytes() fails; plan_extend
 * excludes the methods it appended of a class bytes() fails for. */
static void load_classes(struct ctx *x, const struct vec *todo)
{
    struct vec batch = {0};
    size_t k;

    for (k = 0; k < todo->n; k++) {
        struct cls *c = x->nodes[vec_index(todo, k)].c;

        if (!c->queued && c->cf == NULL && !c->cf_failed) {
            c->queued = 1;
            if (vec_push(&batch, c->h) < 0) {
                oom(x);
                break;
            }
        }
    }
    if (batch.n != 0 && x->ops->prefetch != NULL && !x->failed) {
        hier_class **hs = malloc(batch.n * sizeof *hs);

        if (hs == NULL) {
            oom(x);
        } else {
            for (k = 0; k < batch.n; k++)
                hs[k] = batch.v[k];
            /* In chunks, so that the bounds are looked at in between. */
            for (k = 0; k < batch.n && !stop(x, 1); k += PREFETCH_CHUNK) {
                unlock(x);
                x->ops->prefetch(x->hc, hs + k, batch.n - k < PREFETCH_CHUNK ? batch.n - k : PREFETCH_CHUNK);
                relock(x);
            }
            free(hs);
        }
    }
    for (k = 0; k < todo->n && !stop(x, 0); k++) {
        size_t i = vec_index(todo, k);
        struct cls *c = x->nodes[i].c;
        const uint8_t *data;
        size_t len;
        mct_err perr;
        int rc;

        if (c->cf != NULL || c->cf_failed)
            continue;
        unlock(x);
        rc = x->ops->bytes(x->hc, c->h, &data, &len, x->extend ? &perr : x->err);
        relock(x);
        if (rc < 0 && x->extend) {
            c->cf_failed = 2;
            continue;
        }
        if (rc < 0) {
            x->failed = 1;
            mct_err_wrap(x->err, "while reading the class file of %s", c->name);
            break;
        }
        if ((c->cf = cf_parse(data, len, &perr)) == NULL) {
            if ((!x->extend && pm_at(x->p, i)->root) || perr.code == MCT_E_NOMEM) {
                *x->err = perr;
                x->failed = 1;
                mct_err_wrap(x->err, "while parsing the class file of %s", c->name);
                break;
            }
            c->cf_failed = 1;
        }
    }
    for (k = 0; k < todo->n; k++) {
        size_t i = vec_index(todo, k);
        plan_method *pm = pm_at(x->p, i);
        int f = x->nodes[i].c->cf_failed;

        if (f && i >= x->base && pm->status == PLAN_INSTRUMENT) {
            pm->status = PLAN_EXCLUDED;
            pm->reason = f == 2 ? R_NOBYTES : R_BADCLASS;
        }
    }
    free(batch.v);
}

/* --- the entry methods -------------------------------------------------------------- */

/* A message under construction, cut at MCT_ERR_MSG. */
struct msg {
    char s[MCT_ERR_MSG];
    size_t n;
};

__attribute__((format(printf, 2, 3))) static void msg_add(struct msg *m, const char *fmt, ...)
{
    va_list ap;
    int k;

    if (m->n >= sizeof m->s - 1)
        return;
    va_start(ap, fmt);
    k = vsnprintf(m->s + m->n, sizeof m->s - m->n, fmt, ap);
    va_end(ap);
    if (k > 0)
        m->n = m->n + (size_t)k < sizeof m->s ? m->n + (size_t)k : sizeof m->s - 1;
}

/* Adds the binary name (dots) of an internal name. */
static void msg_class(struct msg *m, const char *iname)
{
    for (; *iname != '\0' && m->n < sizeof m->s - 1; iname++)
        m->s[m->n++] = *iname == '/' ? '.' : *iname;
    m->s[m->n] = '\0';
}

/* The classes in which the entry method is looked for, in order: the class,
 * its superclasses, then their superinterfaces (breadth first). */
static void entry_search_order(struct ctx *x, struct cls *c, struct vec *out)
{
    struct cls *y;
    size_t i;

    for (y = c; y != NULL; y = cls_super(x, y))
        if (vec_push(out, y) < 0)
            oom(x);
    collect_ifaces(x, c);
    for (i = 0; i < x->ifs.n; i++)
        if (vec_push(out, x->ifs.v[i]) < 0)
            oom(x);
}

/* Whether m, declared in y, is a member of the requested class c. */
static int inherited(struct cls *c, struct cls *y, const hier_method *m)
{
    if (y == c)
        return 1;
    if (m->access & CF_ACC_PRIVATE)
        return 0;
    if ((y->flags & HIER_INTERFACE) && (m->access & CF_ACC_STATIC))
        return 0;
    return m->name[0] != '<';
}

/* Case-insensitive edit distance of two short strings (capped). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), i, j, row[65];

    if (la > 64 || lb > 64)
        return 99;
    for (j = 0; j <= lb; j++)
        row[j] = j;
    for (i = 1; i <= la; i++) {
        size_t diag = row[0];

        row[0] = i;
        for (j = 1; j <= lb; j++) {
            size_t up = row[j];
            int same = (a[i - 1] | 0x20) == (b[j - 1] | 0x20);
            size_t best = diag + (same ? 0 : 1);

            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static int near_name(const char *want, const char *have)
{
    size_t lw = strlen(want), d = edit_distance(want, have);

    if (d <= (lw <= 4 ? 1u : lw <= 8 ? 2u : 3u))
        return 1;
    return lw >= 3 && (strcasestr(have, want) != NULL || (strlen(have) >= 3 && strcasestr(want, have) != NULL));
}

/* Fills err with MCT_E_NO_METHOD: what was looked for, near names, the
 * class's own methods or the overloads of the name. */
static void no_method(struct ctx *x, struct cls *c, const struct vec *order, const char *name,
                      const char *desc)
{
    struct msg m = {.n = 0};
    size_t i, k, shown = 0, more = 0, near = 0;

    m.s[0] = '\0';
    msg_class(&m, c->name);
    msg_add(&m, " has no method %s%s (its superclasses and interfaces were searched too).", name,
            desc ? desc : "");
    /* The overloads of the name, when a descriptor was given. */
    for (i = 0; i < order->n; i++) {
        struct cls *y = order->v[i];

        cls_methods(x, y);
        for (k = 0; k < y->nm; k++)
            if (strcmp(y->m[k].name, name) == 0 && inherited(c, y, &y->m[k])) {
                if (shown++ == 0)
                    msg_add(&m, " %s has these descriptors: %s", name, y->m[k].desc);
                else
                    msg_add(&m, ", %s", y->m[k].desc);
                if (shown == MSG_NAMES)
                    goto overloads_done;
            }
    }
overloads_done:
    if (shown != 0) {
        mct_err_set(x->err, MCT_E_NO_METHOD, "%s; give one of them, or none for every overload", m.s);
        return;
    }
    for (i = 0; i < order->n && near < MSG_NEAR; i++) {
        struct cls *y = order->v[i];

        for (k = 0; k < y->nm && near < MSG_NEAR; k++) {
            void **v;

            if (!inherited(c, y, &y->m[k]) || !near_name(name, y->m[k].name))
                continue;
            key_begin(&x->key, K_NAME);
            key_str(&x->key, y->m[k].name);
            if ((v = map_slot(x, 1)) == NULL || *v != NULL)
                continue;
            *v = &none_marker;
            msg_add(&m, "%s%s", near++ ? ", " : " Did you mean ", y->m[k].name);
        }
    }
    if (near != 0)
        msg_add(&m, "?");
    /* The class's own method names, each once. */
    for (k = 0; k < c->nm; k++) {
        void **v;

        if (strcmp(c->m[k].name, "<clinit>") == 0)
            continue;
        key_begin(&x->key, K_NAME);
        buf_u1(&x->key, 1);
        key_str(&x->key, c->m[k].name);
        if ((v = map_slot(x, 1)) == NULL || *v != NULL)
            continue;
        *v = &none_marker;
        if (shown == MSG_NAMES) {
            more++;
            continue;
        }
        msg_add(&m, "%s%s", shown++ ? ", " : " Its methods: ", c->m[k].name);
    }
    if (more != 0)
        msg_add(&m, " and %zu more", more);
    mct_err_set(x->err, MCT_E_NO_METHOD, "%s", m.s);
}

/* Fills err with MCT_E_NO_CLASS, suggesting Outer$Inner for Outer.Inner. */
static void no_class(struct ctx *x, char *iname)
{
    struct msg m = {.n = 0};
    size_t i;

    m.s[0] = '\0';
    msg_add(&m, "class ");
    msg_class(&m, iname);
    msg_add(&m, " is not loaded in the target JVM: classes load on first use, so run code that uses "
                "it first (or check the name: nested classes are written Outer$Inner)");
    for (i = strlen(iname); i-- > 0;) {
        if (iname[i] != '/')
            continue;
        iname[i] = '$';
        if (x->ops->find(x->hc, iname, NULL) != NULL) {
            msg_add(&m, "; did you mean ");
            msg_class(&m, iname);
            msg_add(&m, "?");
            break;
        }
    }
    mct_err_set(x->err, MCT_E_NO_CLASS, "%s", m.s);
}

/* Adds the implementations of the abstract or interface entry method e
 * (found for the requested class c) as entry methods; counts those left
 * out. The site is watched for implementations that load later. */
static void add_implementations(struct ctx *x, struct cls *c, struct sel e, size_t *jdk, size_t *unmod)
{
    size_t i;
    struct vec list = {0};
    struct owner *o = watch(x, c->name, c, e.m->name, e.m->desc, 1, 1);

    if (o == NULL)
        return;
    concrete_subtypes(x, c, 0, walk_all(x, o));
    record_subtypes(x, o);
    for (i = 0; i < x->walk.n; i++)
        if (vec_push(&list, x->walk.v[i]) < 0)
            oom(x);
    for (i = 0; i < list.n && !x->failed && !x->p->capped; i++) {
        struct sel s = select_for(x, list.v[i], e.m->name, e.m->desc);

        if (s.m == NULL || (s.m->access & CF_ACC_ABSTRACT))
            continue;
        if (never_why(s.c->name, s.c->flags) != NULL) {
            ++*unmod;
            continue;
        }
        if ((s.c->flags & HIER_JDK) && !x->include_jdk) {
            ++*jdk;
            continue;
        }
        add_method(x, s, 1, 1, N_IMPL);
    }
    free(list.v);
}

/* Finds the entry class cname (binary name, modified UTF-8) and its methods
 * and adds the roots; -1 with err set. */
static int add_roots(struct ctx *x, const char *cname, const char *method, const char *desc)
{
    size_t len = strlen(cname), i, k, jdk = 0, unmod = 0;
    char *iname = kit_arena_alloc(&x->arena, len + 1);
    struct cls *c;
    struct vec order = {0}, found = {0};
    int ok = 0;

    if (iname == NULL) {
        oom(x);
        return -1;
    }
    for (i = 0; i <= len; i++)
        iname[i] = cname[i] == '.' ? '/' : cname[i];
    if ((c = find_class(x, iname, NULL)) == NULL) {
        if (!x->failed)
            no_class(x, iname);
        x->failed = 1;
        return -1;
    }
    entry_search_order(x, c, &order);
    /* Every overload (or the one descriptor), the first declaration of each
     * descriptor in search order. */
    for (i = 0; i < order.n && !x->failed; i++) {
        struct cls *y = order.v[i];

        cls_methods(x, y);
        for (k = 0; k < y->nm; k++) {
            const hier_method *m = &y->m[k];
            size_t j;
            int seen = 0;

            if (strcmp(m->name, method) != 0 || (desc && strcmp(m->desc, desc) != 0) || !inherited(c, y, m))
                continue;
            for (j = 0; j < found.n && !seen; j += 2)
                seen = strcmp(((const hier_method *)found.v[j + 1])->desc, m->desc) == 0;
            if (!seen && (vec_push(&found, y) < 0 || vec_push(&found, (void *)m) < 0))
                oom(x);
        }
    }
    if (found.n == 0 && !x->failed) {
        no_method(x, c, &order, method, desc);
        x->failed = 1;
    }
    for (i = 0; i < found.n && !x->failed && !x->p->capped; i += 2) {
        struct sel e = {found.v[i], found.v[i + 1]};
        int iface = (e.c->flags & HIER_INTERFACE) != 0, root = PLAN_ROOT;
        const char *note = NULL;

        /* A method the named class inherits runs for instances of other
         * classes too: only calls on an instance of the named class are
         * its calls (a static one cannot tell). */
        if (e.c != c && (e.m->access & CF_ACC_STATIC)) {
            note = N_INHERITED_STATIC;
        } else if (e.c != c) {
            note = iface ? N_DEFAULT_RECV : N_INHERITED_RECV;
            root = PLAN_ROOT_RECEIVER;
            x->p->receiver = c->h;
        }
        add_method(x, e, 1, root, note);
        if (((e.m->access & CF_ACC_ABSTRACT) ||
             ((e.c->flags & HIER_INTERFACE) && !(e.m->access & (CF_ACC_STATIC | CF_ACC_PRIVATE)))) &&
            never_why(e.c->name, e.c->flags) == NULL)
            add_implementations(x, c, e, &jdk, &unmod);
    }
    for (i = 0; i < x->p->n; i++)
        ok |= pm_at(x->p, i)->status == PLAN_INSTRUMENT;
    if (!ok && !x->failed && x->p->capped) {
        mct_err_set(x->err, MCT_E_NOTHING, "nothing to instrument: the plan's cap of %zu methods was "
                    "reached before an entry method could be added", x->max);
        x->failed = 1;
    }
    if (!ok && !x->failed) {
        struct msg m = {.n = 0};

        m.s[0] = '\0';
        msg_add(&m, "nothing to instrument: ");
        for (i = 0; i < x->p->n && i < 4; i++) {
            const plan_method *pm = pm_at(x->p, i);

            if (i)
                msg_add(&m, "; ");
            msg_class(&m, pm->class_name);
            msg_add(&m, ".%s%s is %s", pm->name, pm->desc,
                    pm->reason == R_NATIVE ? "native (it has no bytecode)" : pm->reason);
            if (pm->reason == R_ABSTRACT) {
                if (jdk + unmod == 0)
                    msg_add(&m, ", but no loaded class implements it (classes load on first use)");
                else
                    msg_add(&m, ", but none of its loaded implementations can be traced "
                                "(%zu in JDK classes: add --include-jdk; %zu in classes that "
                                "cannot be retransformed, such as lambdas)", jdk, unmod);
            }
        }
        if (x->p->n > 4)
            msg_add(&m, "; and %zu more", x->p->n - 4);
        mct_err_set(x->err, MCT_E_NOTHING, "%s", m.s);
        x->failed = 1;
    }
    free(order.v);
    free(found.v);
    return x->failed ? -1 : 0;
}

/* --- the public functions ---------------------------------------------------------- */

/* Frees the planning state (not the plan). */
static void ctx_free(struct ctx *x)
{
    size_t i;

    for (i = 0; i < x->map.cap; i++) {
        const struct mrec *r = (const struct mrec *)x->map.slots[i].val;

        if (r != NULL && r->key[0] == K_CLASS && r->val != NULL)
            cf_free(((struct cls *)r->val)->cf);
    }
    kit_table_free(&x->map);
    free(x->nodes);
    free(x->added.v);
    free(x->todo.v);
    free(x->walk.v);
    free(x->path.v);
    free(x->ifs.v);
    free(x->tmp.v);
    free(x->all.v);
    buf_free(&x->key);
    kit_arena_free(&x->arena);
}

/* Turns err's message, whose names are modified UTF-8, into UTF-8 (cut at
 * a character when it grows past the buffer). */
static void utf8_message(mct_err *err)
{
    char out[MUTF8_ROOM(MCT_ERR_MSG)];
    size_t n;

    if (mutf8_plain(err->msg))
        return;
    n = mutf8_to_utf8(err->msg, out, MUTF8_NUL_SYMBOL);
    if (n >= MCT_ERR_MSG) {
        n = MCT_ERR_MSG - 1;
        while (n > 0 && ((unsigned char)out[n] & 0xC0) == 0x80)
            n--;
    }
    memcpy(err->msg, out, n);
    err->msg[n] = '\0';
}

/* A malloc'd modified UTF-8 copy of the first n bytes of the UTF-8 s. */
static char *to_mutf8(const char *s, size_t n)
{
    char *in = strndup(s, n), *out = in ? malloc(MUTF8_FROM_ROOM(n)) : NULL;

    if (out != NULL)
        mutf8_from_utf8(in, out);
    free(in);
    return out;
}

/* A regex written as a plain name ("com.shop", "com\\.shop", "Cart": name
 * characters, '$' and dots, a dot escaped or not) matches only the class of that
 * very name, which is rarely what was meant. Compiles into hint_re the
 * regexes plan_regex may suggest instead: the package of that name
 * ("com\\.shop\\..*") and, for a name without a dot, the class of that
 * simple name in any package (".*\\.Cart"). Nothing for any other regex, or
 * when out of memory (a suggestion is a nicety). */
static void suggest_compile(struct ctx *x, const char *re)
{
    size_t n = strlen(re), k = 0, i;
    char *esc = malloc(2 * n + 1), *cand;
    int dots = 0;
    mct_err ignored;

    if (esc == NULL)
        return;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)re[i];

        if (c == '.' || (c == '\\' && re[i + 1] == '.')) {
            i += c == '\\';
            esc[k++] = '\\';
            esc[k++] = '.';
            dots = 1;
        } else if (c == '$') {
            /* A nested class's separator; an anchor in a regex. */
            esc[k++] = '\\';
            esc[k++] = '$';
        } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                   c >= 0x80) {
            esc[k++] = (char)c;
        } else {
            free(esc);
            return;
        }
    }
    while (k >= 2 && esc[k - 2] == '\\' && esc[k - 1] == '.')
        k -= 2;
    esc[k] = '\0';
    if (k > 0 && (cand = malloc(k + 8)) != NULL) {
        snprintf(cand, k + 8, "%s\\..*", esc);
        x->hint_re[0] = match_compile(cand, &ignored);
        if (!dots) {
            snprintf(cand, k + 8, ".*\\.%s", esc);
            x->hint_re[1] = match_compile(cand, &ignored);
        }
        free(cand);
    }
    free(esc);
}

/* After plan_build's walk: the suggestion, when the regex matched none of
 * the callee classes and a hint matched some. */
static void suggest_pick(struct ctx *x)
{
    int k;

    for (k = 0; k < 2; k++) {
        if (x->hint_re[k] != NULL && x->p->seen.matched_classes == 0 && x->hint_n[k] > 0 &&
            x->p->seen.suggestion == NULL) {
            x->p->seen.suggestion = kit_arena_strdup(&x->p->arena, match_pattern(x->hint_re[k]));
            x->p->seen.suggestion_matches = x->hint_n[k];
        }
        match_free(x->hint_re[k]);
        x->hint_re[k] = NULL;
    }
}

plan *plan_build(const plan_request *req, const hier_ops *ops, void *hc, mct_err *err)
{
    struct ctx x;
    char *cname = NULL, *method = NULL, *desc = NULL;
    const char *paren;
    size_t from = 0, i, k;
    int level;
    plan *p;

    if (req == NULL || ops == NULL || req->class_name == NULL || req->method == NULL ||
        req->class_name[0] == '\0' || req->method[0] == '\0') {
        mct_err_set(err, MCT_E_ARG, "a plan needs a class and a method name");
        return NULL;
    }
    if (req->depth < 1 || req->depth > PLAN_MAX_DEPTH) {
        mct_err_set(err, MCT_E_ARG, "depth %d is outside 1..%d (1 = the entry method only)", req->depth,
                    PLAN_MAX_DEPTH);
        return NULL;
    }
    /* "get(I)Ljava/lang/Object;" in one string, or name and descriptor;
     * in modified UTF-8, as the hierarchy's names are. */
    paren = req->desc == NULL ? strchr(req->method, '(') : NULL;
    cname = to_mutf8(req->class_name, strlen(req->class_name));
    method = to_mutf8(req->method, paren ? (size_t)(paren - req->method) : strlen(req->method));
    if (paren != NULL || req->desc != NULL)
        desc = to_mutf8(paren ? paren : req->desc, strlen(paren ? paren : req->desc));
    if (cname == NULL || method == NULL || ((paren != NULL || req->desc != NULL) && desc == NULL)) {
        mct_err_set(err, MCT_E_NOMEM, "out of memory while planning");
        goto fail;
    }
    if (desc != NULL && cf_desc_check(desc) != 0) {
        mct_err_set(err, MCT_E_ARG, "'%s' is not a method descriptor (such as (ILjava/lang/String;)V)",
                    paren ? paren : req->desc);
        goto fail;
    }
    memset(&x, 0, sizeof x);
    x.req = req;
    x.ops = ops;
    x.hc = hc;
    x.err = err;
    x.include_jdk = req->include_jdk;
    x.max = req->max_methods && req->max_methods < PLAN_MAX_METHODS ? req->max_methods : PLAN_MAX_METHODS;
    x.regex_left = req->regex_work ? req->regex_work : PLAN_REGEX_WORK;
    x.deadline = clock_monotonic_ns() + (req->time_ms ? req->time_ms : PLAN_TIME_MS) * 1000000u;
    x.level = 1;
    buf_init(&x.key);
    if (req->regex != NULL && (x.re = match_compile(req->regex, err)) == NULL)
        goto fail;
    if ((p = calloc(1, sizeof *p)) == NULL || pthread_mutex_init(&p->lock, NULL) != 0) {
        free(p);
        match_free(x.re);
        mct_err_set(err, MCT_E_NOMEM, "out of memory while planning");
        goto fail;
    }
    p->re = x.re;
    p->max = x.max;
    p->depth = req->depth;
    p->include_jdk = req->include_jdk;
    x.p = p;
    if (req->regex != NULL)
        suggest_compile(&x, req->regex);
    x.object = find_class(&x, OBJECT, NULL);
    if (add_roots(&x, cname, method, desc) == 0) {
        struct vec todo = {0};

        for (level = 1; level < req->depth && !stop(&x, 1) && !p->capped; level++) {
            size_t to = p->n;

            x.level = level;
            todo.n = 0;
            for (i = from; i < to; i++)
                if (pm_at(p, i)->status == PLAN_INSTRUMENT)
                    vec_push_index(&x, &todo, i);
            load_classes(&x, &todo);
            for (k = 0; k < todo.n && !x.failed && !p->capped; k++) {
                i = vec_index(&todo, k);
                if (pm_at(p, i)->status != PLAN_INSTRUMENT)
                    continue;
                entry(p, i)->scanned = 1;
                scan(&x, i);
            }
            from = to;
        }
        free(todo.v);
    }
    suggest_pick(&x);
    ctx_free(&x);
    free(cname);
    free(method);
    free(desc);
    if (x.failed) {
        plan_free(p);
        utf8_message(err);
        return NULL;
    }
    return p;
fail:
    free(cname);
    free(method);
    free(desc);
    return NULL;
}

/* Whether plan_extend scans entry i: loaded in this hierarchy, below the
 * depth, not scanned yet, to be instrumented (or pending, now that its
 * class is loaded, when that class is kept and the method has code). */
static int scannable(struct ctx *x, size_t i)
{
    struct pentry *e = entry(x->p, i);
    const struct sel *n = i < x->ncap ? &x->nodes[i] : NULL;

    if (e->scanned || n == NULL || n->c == NULL || e->pub.level >= x->p->depth)
        return 0;
    if (e->pub.status == PLAN_INSTRUMENT)
        return 1;
    return e->pub.status == PLAN_PENDING && !(n->m->access & (CF_ACC_ABSTRACT | CF_ACC_NATIVE)) &&
           (e->pub.root ? never_why(n->c->name, n->c->flags) == NULL : cls_kept(x, n->c));
}

/* A seed whose class c is loaded: resolved from c, its entry (found by name
 * or appended) queued, and the implementations of a watched virtual site
 * added at its level. */
static void seed(struct ctx *x, struct cls *c, const char *name, const char *desc, int level)
{
    struct sel r = resolve(x, c, name, desc, (c->flags & HIER_INTERFACE) != 0);
    struct vres *vr;
    long i;
    size_t k;

    if (r.m == NULL)
        return;
    i = add_method(x, r, level, 0, NULL);
    if (i >= 0 && grow_nodes(x, (size_t)i + 1) == 0) {
        if (x->nodes[i].c == NULL)
            x->nodes[i] = r;
        vec_push_index(x, &x->todo, (size_t)i);
    }
    if (x->failed || !watched(x, c->name, name, desc))
        return;
    vr = overriders(x, c, r, name, desc, level);
    for (k = 0; k < vr->n && !x->failed && !x->p->capped; k++)
        add_method(x, vr->impls[k], level, 0, NULL);
}

/* Scans the queue level by level to the depth (what scanning appends is
 * queued by append()). */
static void extend_levels(struct ctx *x)
{
    struct vec batch = {0};
    int level, low = PLAN_MAX_DEPTH;
    size_t k;

    for (k = 0; k < x->todo.n; k++)
        if (pm_at(x->p, vec_index(&x->todo, k))->level < low)
            low = pm_at(x->p, vec_index(&x->todo, k))->level;
    for (level = low; level < x->p->depth && !x->failed && !x->p->capped; level++) {
        batch.n = 0;
        for (k = 0; k < x->todo.n; k++) {
            size_t i = vec_index(&x->todo, k);

            if (pm_at(x->p, i)->level == level && scannable(x, i)) {
                entry(x->p, i)->scanned = 1;
                vec_push_index(x, &batch, i);
            }
        }
        load_classes(x, &batch);
        for (k = 0; k < batch.n && !x->failed && !x->p->capped; k++)
            if (pm_at(x->p, vec_index(&batch, k))->status != PLAN_EXCLUDED)
                scan(x, vec_index(&batch, k));
    }
    free(batch.v);
}

static void deferred_free(struct deferred *d)
{
    free(d->class_name);
    free(d->name);
    free(d->desc);
}

int plan_extend(plan *p, const plan_seed *seeds, size_t n, const hier_ops *ops, void *hc,
                size_t **added, size_t *n_added, mct_err *err)
{
    struct ctx x;
    struct deferred *keep = NULL;
    size_t nkeep = 0, total, k;

    *added = NULL;
    *n_added = 0;
    for (k = 0; k < n; k++)
        if (seeds[k].class_name == NULL || seeds[k].name == NULL || seeds[k].desc == NULL ||
            seeds[k].level < 1 || seeds[k].level > p->depth)
            return mct_err_set(err, MCT_E_ARG, "seed %zu: a seed needs a class, a method, a descriptor "
                               "and a level within 1..%d", k, p->depth);
    memset(&x, 0, sizeof x);
    x.ops = ops;
    x.hc = hc;
    x.err = err;
    x.re = p->re;
    x.include_jdk = p->include_jdk;
    x.max = p->max;
    x.extend = 1;
    x.p = p;
    buf_init(&x.key);
    pthread_mutex_lock(&p->lock);
    x.base = p->n;
    for (k = p->cls_from; k < p->n; k++)
        pm_at(p, k)->cls = NULL;
    p->cls_from = p->n;
    p->receiver = NULL;
    x.object = find_class(&x, OBJECT, NULL);
    total = p->ndeferred + n;
    if (total != 0 && (keep = malloc(total * sizeof *keep)) == NULL)
        oom(&x);
    /* The waiting seeds first, then the new ones; those whose class is
     * still missing wait for the next call. */
    for (k = 0; k < total && keep != NULL; k++) {
        struct deferred *d = k < p->ndeferred ? &p->deferred[k] : NULL;
        const plan_seed *s = d == NULL ? &seeds[k - p->ndeferred] : NULL;
        struct cls *c = x.failed ? NULL : find_class(&x, d ? d->class_name : s->class_name, NULL);

        if (c != NULL) {
            seed(&x, c, d ? d->name : s->name, d ? d->desc : s->desc, d ? d->level : s->level);
            if (d != NULL)
                deferred_free(d);
        } else if (d != NULL) {
            if (++d->tries < PLAN_SEED_TRIES || x.failed)
                keep[nkeep++] = *d;
            else
                deferred_free(d);
        } else if (!x.failed) {
            struct deferred *w = &keep[nkeep];

            w->class_name = strdup(s->class_name);
            w->name = strdup(s->name);
            w->desc = strdup(s->desc);
            w->level = s->level;
            w->tries = 1;
            if (w->class_name == NULL || w->name == NULL || w->desc == NULL) {
                deferred_free(w);
                oom(&x);
            } else {
                nkeep++;
            }
        }
    }
    if (keep != NULL || total == 0) {
        free(p->deferred);
        p->deferred = keep;
        p->ndeferred = nkeep;
    }
    if (!x.failed)
        extend_levels(&x);
    if (x.added.n != 0 && (*added = malloc(x.added.n * sizeof **added)) != NULL) {
        for (k = 0; k < x.added.n; k++)
            (*added)[k] = vec_index(&x.added, k);
        *n_added = x.added.n;
    } else if (x.added.n != 0) {
        oom(&x);
    }
    pthread_mutex_unlock(&p->lock);
    ctx_free(&x);
    if (x.failed)
        utf8_message(err);
    return x.failed ? -1 : 0;
}

size_t plan_deferred(const plan *p)
{
    plan *q = (plan *)p;
    size_t n;

    pthread_mutex_lock(&q->lock);
    n = q->ndeferred;
    pthread_mutex_unlock(&q->lock);
    return n;
}

/* Up to this many owners without allocating. */
#define NEW_OWNERS 32

int plan_new_class(plan *p, const char *name, const char *super_name, const char *const *interfaces,
                   size_t n_ifaces, const hier_method *declared, size_t n_declared, plan_seed *out,
                   size_t max, size_t *n_out)
{
    struct owner *few[NEW_OWNERS], **owners = few;
    size_t n = 0, cap = NEW_OWNERS, k, j;
    int nomem = 0, regex = -1;
    unsigned stamp;
    uint64_t h;

    *n_out = 0;
    if (name == NULL)
        return 0;
    pthread_mutex_lock(&p->lock);
    stamp = ++p->stamp;
    /* java/lang/Object's sites apply to every class. */
    if (p->object != NULL) {
        p->object->mark = stamp;
        owners[n++] = p->object;
    }
    /* The owners of its direct supertypes are its owners. */
    for (k = 0; k <= n_ifaces && !nomem; k++) {
        const char *t = k == 0 ? super_name : interfaces[k - 1];
        struct olink **head, *l;

        if (t == NULL || (head = kmap_get(p, name_hash(t), 0, &nomem)) == NULL)
            continue;
        for (l = *head; l != NULL; l = l->next) {
            if (l->o->mark == stamp)
                continue;
            l->o->mark = stamp;
            if (n == cap) {
                struct owner **more = malloc(2 * cap * sizeof *more);

                if (more == NULL) {
                    nomem = 1;
                    break;
                }
                memcpy(more, owners, n * sizeof *more);
                if (owners != few)
                    free(owners);
                owners = more;
                cap *= 2;
            }
            owners[n++] = l->o;
        }
    }
    h = name_hash(name);
    for (k = 0; k < n; k++)
        if (owners[k] != p->object && link_add(p, h, owners[k], 1) < 0)
            nomem = 1;
    if (n == 0 || nomem || never_why(name, 0) != NULL || (!p->include_jdk && jdk_name(name)))
        goto done;
    for (k = 0; k < n_declared && *n_out < max; k++) {
        const hier_method *m = &declared[k];
        plan_method pm;
        int level = 0, root = 0;
        long i;

        if ((m->access & (CF_ACC_ABSTRACT | CF_ACC_STATIC | CF_ACC_PRIVATE | CF_ACC_NATIVE)) ||
            m->name[0] == '<')
            continue;
        for (j = 0; j < n; j++) {
            const struct site *s;

            for (s = owners[j]->sites; s != NULL; s = s->next)
                if (strcmp(s->name, m->name) == 0 && strcmp(s->desc, m->desc) == 0) {
                    if (level == 0 || s->level < level)
                        level = s->level;
                    root |= s->root;
                }
        }
        if (level == 0)
            continue;
        if (!root) {
            if (regex < 0)
                regex = p->re == NULL || match_class(p->re, name) == 1;
            if (!regex)
                continue;
        }
        if (find_entry(p, name, m->name, m->desc) >= 0)
            continue;
        memset(&pm, 0, sizeof pm);
        pm.class_name = name;
        pm.name = m->name;
        pm.desc = m->desc;
        pm.access = m->access;
        pm.level = root ? 1 : level;
        pm.status = PLAN_INSTRUMENT;
        pm.root = root;
        pm.reason = root ? N_IMPL : NULL;
        if ((i = push_entry(p, &pm, &nomem)) < 0)
            break;
        out[*n_out].class_name = pm_at(p, (size_t)i)->class_name;
        out[*n_out].name = pm_at(p, (size_t)i)->name;
        out[*n_out].desc = pm_at(p, (size_t)i)->desc;
        out[*n_out].level = pm.level;
        out[*n_out].index = (size_t)i;
        ++*n_out;
    }
done:
    pthread_mutex_unlock(&p->lock);
    if (owners != few)
        free(owners);
    return nomem ? -1 : 0;
}

size_t plan_count(const plan *p)
{
    return __atomic_load_n(&p->n, __ATOMIC_ACQUIRE);
}

const plan_method *plan_at(const plan *p, size_t i)
{
    return i < plan_count(p) ? pm_at(p, i) : NULL;
}

hier_class *plan_receiver(const plan *p)
{
    return p->receiver;
}

plan_regex_seen plan_regex(const plan *p)
{
    return p->seen;
}

int plan_capped(const plan *p)
{
    return __atomic_load_n(&p->capped, __ATOMIC_RELAXED);
}

void plan_free(plan *p)
{
    size_t i;

    if (p == NULL)
        return;
    for (i = 0; i < NBLOCKS; i++)
        free(p->blocks[i]);
    for (i = 0; i < p->ndeferred; i++)
        deferred_free(&p->deferred[i]);
    free(p->deferred);
    kit_table_free(&p->names);
    kit_table_free(&p->index);
    kit_table_free(&p->known);
    match_free(p->re);
    kit_arena_free(&p->arena);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
