/* plan_state.h — the planner's state and the helpers every planner file
 * uses: the planning state (struct ctx, owning what its arena and tables
 * hold), the plan (struct plan, what survives planning), their growable
 * vectors, keyed tables and entries, the bounds of plan_build, and the
 * rules that keep a class out by its name. The bottom of the planner's
 * files, which include one another in this order only:
 *   plan_state.h < plan_sites.h < plan_resolve.h < plan_walk.h
 * (plan_state.c, plan_sites.c, plan_resolve.c, planner.c; plan_extend.c on
 * top). Only the planner's files include these. Everything here runs under
 * plan_build, or under the plan's lock (plan_extend, plan_new_class). */
#ifndef MCT_PLAN_STATE_H
#define MCT_PLAN_STATE_H

#include <pthread.h>
#include <stdint.h>

#include "buf.h"
#include "classfile.h"
#include "kit.h"
#include "match.h"
#include "planner.h"

/* A growable array of pointers (or of plan indexes, cast). */
struct vec {
    void **v;
    size_t n, cap;
};

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
    signed char have_rel;
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
    long long deadline;         /* mct_now_ms */
    long long next_gone;        /* when to ask req->gone next (mct_now_ms) */
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

/* --- plan_state.c: vectors, tables and bounds, the plan's entries ------------ */


/* The value of a table entry that records a negative answer. */
extern char pl_none_marker;

/* Reasons shared by the files (compared by address). */
extern const char pl_R_REGEX[];
extern const char pl_R_JDK[];
extern const char pl_R_REGEX_LIMIT[];
extern const char pl_N_IMPL[];
extern const char pl_OBJECT[];

/* Appends p to v; -1 when out of memory. */
int pl_vec_push(struct vec *v, void *p);

/* Sets err to "out of memory" (once) and x->failed. */
void pl_oom(struct ctx *x);

/* plan_build: whether planning must stop, past its time limit or because
 * the requester is gone (err set, x->failed); looks every TICKS calls, or
 * now when force. plan_extend has no such bounds. */
int pl_stop(struct ctx *x, int force);

/* Whether the class of internal name `name` matches the regex: 1 or 0.
 * plan_build fails when the regex exceeds its work (err set, x->failed);
 * plan_extend takes such a name as not matching and sets *gave_up. */
int pl_regex_match(struct ctx *x, const char *name, int *gave_up);

/* Starts the key of a table in k with its kind (K_*, P_*). */
void pl_key_begin(mct_buf *k, int kind);

/* Adds a pointer to the key in k. */
void pl_key_ptr(mct_buf *k, const void *p);

/* Strings go in with their NUL so that ("ab","c") and ("a","bc") differ. */
void pl_key_str(mct_buf *k, const char *s);

/* The value of key k (stays at this address while the arena lives): NULL
 * if absent and !create; created as NULL if absent and create. NULL with
 * *nomem set when out of memory (a key the buffer failed to build too). */
void **pl_map_get(kit_table *m, kit_arena *arena, const mct_buf *key, int create, int *nomem);

/* The planning state's table, key in x->key; NULL with x->failed on OOM. */
void **pl_map_slot(struct ctx *x, int create);

/* The plan's table, key in x->key; NULL with x->failed on OOM. */
void **pl_pmap_slot(struct ctx *x, int create);

/* Entry i, which exists. */
struct pentry *pl_entry(const plan *p, size_t i);

/* The public part of entry i, which exists. */
plan_method *pl_pm_at(const plan *p, size_t i);

/* The index of the first entry named so, or -1. */
long pl_find_entry(const plan *p, const char *cname, const char *name, const char *desc);

/* Appends a copy of m (strings copied) and publishes it; returns its index,
 * or -1 when the plan is full (capped) or out of memory (*nomem set). Only
 * one thread appends at a time (the lock, once the plan is shared). */
long pl_push_entry(plan *p, const plan_method *m, int *nomem);

/* Makes x->nodes cover the indexes below n; -1 with x->failed. */
int pl_grow_nodes(struct ctx *x, size_t n);

/* The plan index stored at position k of v. */
size_t pl_vec_index(const struct vec *v, size_t k);

/* Appends the plan index i to v; x->failed when out of memory. */
void pl_vec_push_index(struct ctx *x, struct vec *v, size_t i);

/* Frees the planning state (not the plan). */
void pl_ctx_free(struct ctx *x);

/* Turns err's message, whose names are modified UTF-8, into UTF-8 (cut at
 * a character when it grows past the buffer). */
void pl_utf8_message(mct_err *err);

/* Whether the class name is a JDK one by its package. */
int pl_jdk_name(const char *name);

/* Why a class is never instrumented, or NULL. */
const char *pl_never_why(const char *name, int flags);

#endif
