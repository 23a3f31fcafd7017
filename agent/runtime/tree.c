/* tree.c — see tree.h.
 *
 * Probe cost: a probe call costs about c ticks, of which the part after its
 * clock read belongs to the interval it opens and the part before to the one
 * it closes. A call's measured interval therefore holds c of its own probes
 * plus 2c for every recorded call below it, which is what is subtracted;
 * a call is never made shorter than the (corrected) calls made from it.
 *
 * All of it is integer ticks, converted to ns by an integer floor at the end:
 * sums are exact and floor(a) + floor(b) <= floor(a + b), so the children of
 * a node never add up to more than the node, in ns as in ticks. */
#include "tree.h"

#include <stdlib.h>
#include <string.h>

#include "kit.h"
#include "methods.h"
#include "mutf8.h"
#include "proto.h"

/* A call nests at most as deep as the protocol carries (the probes record
 * no deeper: the depth is at most PROTO_MAX_DEPTH levels); a deeper one is
 * refused here rather than built into a tree no reader accepts. */
#define MAX_STACK PROTO_MAX_DEPTH

/* A node's children are found by a scan while they are this few (most
 * nodes: cheaper than hashing), by the children table beyond. */
#define SCAN_KIDS 8

struct node {
    int32_t id;
    uint32_t parent;          /* node index (the root's is 0, itself) */
    uint32_t first_child;     /* node indexes; 0 = none (node 0 is the root) */
    uint32_t last_child;
    uint32_t next_sibling;
    uint32_t kids;            /* children; beyond SCAN_KIDS they are in the table */
    uint64_t calls, throws;
    uint64_t total, min, max; /* corrected ticks */
    uint8_t truncated;
};

struct frame {
    uint32_t node;
    uint64_t start;
    uint64_t child_sum;       /* corrected ticks of the calls made from it */
    uint64_t below;           /* recorded calls below it */
};

struct tree {
    struct node *nodes;
    uint32_t n_nodes, cap_nodes;
    kit_table children;       /* node index + 1 by key(parent, id), for the
                                 children of nodes with over SCAN_KIDS */
    uint64_t start_tick;
    uintptr_t exception;
    tree_opts o;
    uint64_t mult;            /* ns = ticks * mult >> 32 */
    int warmup;               /* tree_warmup marked it */
};

/* The children table's hash of the child of parent for method id. */
static uint64_t key(uint32_t parent, int32_t id)
{
    return kit_hash_u64((uint64_t)parent << 32 | (uint32_t)id);
}

static uint32_t new_node(tree *t, int32_t id)
{
    struct node *nd;

    if (t->n_nodes == t->cap_nodes) {
        uint32_t cap = t->cap_nodes ? t->cap_nodes * 2 : 64;
        struct node *p = realloc(t->nodes, cap * sizeof *p);

        if (p == NULL)
            return UINT32_MAX;
        t->nodes = p;
        t->cap_nodes = cap;
    }
    nd = &t->nodes[t->n_nodes];
    memset(nd, 0, sizeof *nd);
    nd->id = id;
    return t->n_nodes++;
}

/* Puts child c of parent into the children table (room reserved). */
static void index_child(tree *t, uint32_t parent, uint32_t c)
{
    kit_table_add(&t->children, key(parent, t->nodes[c].id), (uintptr_t)c + 1);
}

/* The child of parent for method id, created (last in order) if new. */
static uint32_t child(tree *t, uint32_t parent, int32_t id)
{
    uint32_t kids = t->nodes[parent].kids, c;

    if (kids <= SCAN_KIDS) {
        for (c = t->nodes[parent].first_child; c != 0; c = t->nodes[c].next_sibling)
            if (t->nodes[c].id == id)
                return c;
    } else {
        kit_cursor cur;
        uintptr_t v;

        for (v = kit_table_first(&t->children, key(parent, id), &cur); v != 0;
             v = kit_table_next(&t->children, &cur)) {
            c = (uint32_t)(v - 1);
            if (t->nodes[c].id == id && t->nodes[c].parent == parent)
                return c;
        }
    }
    /* The new child, and the ones before it when they outgrow the scan. */
    if (kids >= SCAN_KIDS && kit_table_reserve(&t->children, t->children.n + (kids == SCAN_KIDS ? kids : 0) + 1) < 0)
        return UINT32_MAX;
    c = new_node(t, id);
    if (c == UINT32_MAX)
        return c;
    t->nodes[c].parent = parent;
    if (t->nodes[parent].last_child)
        t->nodes[t->nodes[parent].last_child].next_sibling = c;
    else
        t->nodes[parent].first_child = c;
    t->nodes[parent].last_child = c;
    t->nodes[parent].kids++;
    if (kids == SCAN_KIDS) {
        uint32_t k;

        for (k = t->nodes[parent].first_child; k != 0; k = t->nodes[k].next_sibling)
            index_child(t, parent, k);
    } else if (kids > SCAN_KIDS) {
        index_child(t, parent, c);
    }
    return c;
}

/* Closes the top frame at time `at`, thrown or not, and charges its parent. */
static void close_frame(tree *t, struct frame *st, int *sp, uint64_t at, int thrown)
{
    struct frame *f = &st[--*sp];
    struct node *nd = &t->nodes[f->node];
    uint64_t raw = at > f->start ? at - f->start : 0;
    uint64_t cost = t->o.probe_ticks * (1 + 2 * f->below);
    uint64_t d = raw > cost ? raw - cost : 0;

    if (d < f->child_sum)
        d = f->child_sum;
    if (nd->calls == 0 || d < nd->min)
        nd->min = d;
    if (d > nd->max)
        nd->max = d;
    nd->calls++;
    nd->total += d;
    if (thrown)
        nd->throws++;
    if (*sp > 0) {
        st[*sp - 1].child_sum += d;
        st[*sp - 1].below += 1 + f->below;
    }
}

static int is_enter(uint32_t k)
{
    return k == PROBE_ENTER || k == PROBE_ROOT_ENTER;
}

static int is_exit(uint32_t k)
{
    return k == PROBE_EXIT || k == PROBE_FAIL || k == PROBE_ROOT_EXIT || k == PROBE_ROOT_FAIL;
}

static int step(tree *t, struct frame *st, int *sp, const probe_ev *e, mct_err *err)
{
    uint32_t k = PROBE_KIND(e->kind);
    int i;

    if (is_enter(k)) {
        uint32_t nd;

        if (*sp == 0)
            return mct_err_set(err, MCT_E_INTERNAL, "an event follows the end of the traced call");
        if (*sp == MAX_STACK)
            return mct_err_set(err, MCT_E_INTERNAL, "traced call nests deeper than %d levels", MAX_STACK);
        nd = child(t, st[*sp - 1].node, e->id);
        if (nd == UINT32_MAX)
            return mct_err_set(err, MCT_E_NOMEM, "out of memory building a call tree");
        st[*sp] = (struct frame){.node = nd, .start = e->t};
        (*sp)++;
    } else if (is_exit(k)) {
        for (i = *sp - 1; i >= 0 && t->nodes[st[i].node].id != e->id; i--)
            ;
        if (i < 0)
            return 0; /* an exit without its enter: ignore */
        while (*sp > i + 1)
            close_frame(t, st, sp, e->t, 1);
        close_frame(t, st, sp, e->t, k == PROBE_FAIL || k == PROBE_ROOT_FAIL);
    } else if (k == PROBE_OVERFLOW) {
        for (i = 0; i < *sp; i++)
            t->nodes[st[i].node].truncated = 1;
    } else if (k == PROBE_EXCEPTION) {
        t->exception = (uintptr_t)e->t;
    }
    return 0;
}

tree *tree_build(const probe_ev *ev, size_t n, const tree_opts *o, mct_err *err)
{
    struct frame st[MAX_STACK];
    int sp = 0;
    tree *t;
    size_t i;

    if (n < 2 || PROBE_KIND(ev[0].kind) != PROBE_ROOT_ENTER) {
        mct_err_set(err, MCT_E_INTERNAL, "a traced call of %zu events does not start with its entry method", n);
        return NULL;
    }
    t = calloc(1, sizeof *t);
    if (t == NULL || new_node(t, ev[0].id) == UINT32_MAX) {
        tree_free(t);
        mct_err_set(err, MCT_E_NOMEM, "out of memory building a call tree");
        return NULL;
    }
    t->o = *o;
    t->mult = (uint64_t)(o->cal.ns_per_tick * 4294967296.0 + 0.5);
    t->start_tick = ev[0].t;
    st[sp++] = (struct frame){.node = 0, .start = ev[0].t};
    for (i = 1; i < n; i++) {
        if (step(t, st, &sp, &ev[i], err) < 0) {
            tree_free(t);
            return NULL;
        }
    }
    if (sp > 0) {
        /* The call's own exit was lost (it cannot be, short of a bug):
         * close what is open at the last timestamp, as truncated. */
        uint64_t last = ev[n - 1].t;
        int j;

        for (j = 0; j < sp; j++)
            t->nodes[st[j].node].truncated = 1;
        while (sp > 0)
            close_frame(t, st, &sp, last, 1);
    }
    return t;
}

void tree_free(tree *t)
{
    if (t == NULL)
        return;
    free(t->nodes);
    kit_table_free(&t->children);
    free(t);
}

static uint64_t ns(const tree *t, uint64_t ticks)
{
    return (uint64_t)(((unsigned __int128)ticks * t->mult) >> 32);
}

uint64_t tree_total_ns(const tree *t)
{
    return ns(t, t->nodes[0].total);
}

/* The wall-clock start of the call, in ns since the epoch. */
static int64_t tree_start_ns(const tree *t)
{
    return clock_wall_ns(&t->o.cal, t->start_tick);
}

uintptr_t tree_exception(const tree *t)
{
    return t->exception;
}

size_t tree_nodes(const tree *t)
{
    return t->n_nodes;
}

int tree_warmup(tree *t, int (*marks)(int32_t id, uint64_t start))
{
    for (uint32_t i = 0; i < t->n_nodes && !t->warmup; i++)
        t->warmup = marks(t->nodes[i].id, t->start_tick) != 0;
    return t->warmup;
}

/* Renders node i and its subtree; returns NULL when out of memory. */
static json_t *node_json(const tree *t, uint32_t i)
{
    const struct node *nd = &t->nodes[i];
    const mt_method *m = mt_get(nd->id);
    json_t *o = json_object();
    json_t *kids = json_array();
    uint64_t total = ns(t, nd->total), child_total = 0;
    uint32_t c;

    if (o == NULL || kids == NULL)
        goto fail;
    for (c = nd->first_child; c != 0; c = t->nodes[c].next_sibling) {
        json_t *k = node_json(t, c);

        if (k == NULL || json_array_append_new(kids, k) < 0)
            goto fail;
        child_total += ns(t, t->nodes[c].total);
    }
    /* Names from class files: modified UTF-8. */
    if (json_object_set_new(o, "class", mutf8_json(m ? m->cls : "?")) < 0 ||
        json_object_set_new(o, "method", mutf8_json(m ? m->name : "?")) < 0 ||
        json_object_set_new(o, "desc", mutf8_json(m ? m->desc : "?")) < 0 ||
        json_object_set_new(o, "calls", json_integer((json_int_t)nd->calls)) < 0 ||
        json_object_set_new(o, "total_ns", json_integer((json_int_t)total)) < 0 ||
        json_object_set_new(o, "self_ns", json_integer((json_int_t)(total > child_total ? total - child_total : 0))) < 0 ||
        json_object_set_new(o, "min_ns", json_integer((json_int_t)ns(t, nd->min))) < 0 ||
        json_object_set_new(o, "max_ns", json_integer((json_int_t)ns(t, nd->max))) < 0 ||
        json_object_set_new(o, "throws", json_integer((json_int_t)nd->throws)) < 0)
        goto fail;
    if (nd->truncated && json_object_set_new(o, "truncated", json_true()) < 0)
        goto fail;
    if (json_object_set_new(o, "children", kids) < 0) {
        kids = NULL;
        goto fail;
    }
    return o;
fail:
    json_decref(kids);
    json_decref(o);
    return NULL;
}

/* sum_enter's name for s (modified UTF-8): s itself when it is plain
 * UTF-8 already (the usual case, no allocation), else a copy in *owned. */
static const char *visit_name(const char *s, char **owned)
{
    *owned = NULL;
    if (mutf8_plain(s))
        return s;
    *owned = mutf8_dup(s);
    return *owned;
}

/* Enters node i, its subtree, and leaves it. */
static int visit_node(const tree *t, uint32_t i, sum *s, mct_err *err)
{
    const struct node *nd = &t->nodes[i];
    const mt_method *m = mt_get(nd->id);
    uint64_t total = ns(t, nd->total), child_total = 0;
    char *oc, *om, *od;
    struct sum_fig f;
    uint32_t c;
    int rc;

    for (c = nd->first_child; c != 0; c = t->nodes[c].next_sibling)
        child_total += ns(t, t->nodes[c].total);
    f = (struct sum_fig){
        .class_name = visit_name(m ? m->cls : "?", &oc),
        .method = visit_name(m ? m->name : "?", &om),
        .desc = visit_name(m ? m->desc : "?", &od),
        .calls = nd->calls, .total_ns = total,
        .self_ns = total > child_total ? total - child_total : 0,
        .min_ns = ns(t, nd->min), .max_ns = ns(t, nd->max), .throws = nd->throws,
        .truncated = nd->truncated,
    };
    if (f.class_name == NULL || f.method == NULL || f.desc == NULL)
        rc = mct_err_set(err, MCT_E_NOMEM, "out of memory summarising a call");
    else
        rc = sum_enter(s, &f, err);
    free(oc);
    free(om);
    free(od);
    if (rc < 0)
        return -1;
    for (c = nd->first_child; c != 0; c = t->nodes[c].next_sibling)
        if (visit_node(t, c, s, err) < 0)
            return -1;
    return sum_leave(s, err);
}

int tree_visit(const tree *t, sum *s, mct_err *err)
{
    if (sum_begin(s, err) < 0 || visit_node(t, 0, s, err) < 0)
        return -1;
    return sum_end(s, err);
}

/* A modified UTF-8 string as a compact string (UTF-8). */
static int put_name(crec_buf *b, const char *s)
{
    char *owned;
    const char *u = visit_name(s, &owned);

    if (u == NULL)
        return -1;
    crec_put_str(b, u, strlen(u));
    free(owned);
    return 0;
}

/* Defines the methods of node i and its subtree that defs lacks. */
static int define(const tree *t, uint32_t i, crec_buf *b, crec_defs *defs)
{
    const struct node *nd = &t->nodes[i];
    uint32_t c;

    if (!crec_defs_has(defs, (uint32_t)nd->id)) {
        const mt_method *m = mt_get(nd->id);
        size_t start = crec_frame_begin(b, CREC_DEF);

        crec_put_u32(b, (uint32_t)nd->id);
        if (put_name(b, m ? m->cls : "?") < 0 || put_name(b, m ? m->name : "?") < 0 ||
            put_name(b, m ? m->desc : "?") < 0 || crec_frame_end(b, start) < 0 ||
            crec_defs_add(defs, (uint32_t)nd->id) < 0)
            return -1;
    }
    for (c = nd->first_child; c != 0; c = t->nodes[c].next_sibling)
        if (define(t, c, b, defs) < 0)
            return -1;
    return 0;
}

/* Node i and its subtree, in pre-order, at w (room for all of them); the
 * end of what was written. */
static unsigned char *put_node(const tree *t, uint32_t i, unsigned char *w)
{
    const struct node *nd = &t->nodes[i];
    uint64_t total = ns(t, nd->total), child_total = 0;
    uint32_t c;

    for (c = nd->first_child; c != 0; c = t->nodes[c].next_sibling)
        child_total += ns(t, t->nodes[c].total);
    w = crec_be32(w, (uint32_t)nd->id);
    *w++ = nd->truncated ? CREC_N_TRUNCATED : 0;
    w = crec_be32(w, nd->kids);
    w = crec_be64(w, nd->calls);
    w = crec_be64(w, total);
    w = crec_be64(w, total > child_total ? total - child_total : 0);
    w = crec_be64(w, ns(t, nd->min));
    w = crec_be64(w, ns(t, nd->max));
    w = crec_be64(w, nd->throws);
    for (c = nd->first_child; c != 0; c = t->nodes[c].next_sibling)
        w = put_node(t, c, w);
    return w;
}

int tree_crec(const tree *t, crec_buf *b, crec_defs *defs, uint64_t seq, int64_t thread_id,
              const char *thread_name, const char *exception, unsigned flags)
{
    unsigned char *w;
    size_t start;

    if (define(t, 0, b, defs) < 0)
        return -1;
    start = crec_frame_begin(b, CREC_CALL);
    crec_put_u8(b, flags);
    crec_put_u64(b, seq);
    crec_put_u64(b, (uint64_t)thread_id);
    crec_put_u64(b, (uint64_t)tree_start_ns(t));
    crec_put_str(b, thread_name ? thread_name : "", thread_name ? strlen(thread_name) : 0);
    if (exception != NULL) {
        if (put_name(b, exception) < 0)
            b->failed = 1;
    } else {
        crec_put_str(b, "", 0);
    }
    crec_put_u32(b, t->n_nodes);
    w = crec_reserve(b, (size_t)t->n_nodes * CREC_NODE_BYTES);
    if (w != NULL)
        put_node(t, 0, w);
    return crec_frame_end(b, start);
}

json_t *tree_json(const tree *t, uint64_t seq, int64_t thread_id, const char *thread_name,
                  const char *exception)
{
    json_t *root = node_json(t, 0);
    json_t *call, *th;

    if (root == NULL)
        return NULL;
    if (exception != NULL && json_object_set_new(root, "exception", mutf8_json(exception)) < 0) {
        json_decref(root);
        return NULL;
    }
    th = json_pack("{s:I, s:s}", "id", (json_int_t)thread_id, "name", thread_name ? thread_name : "");
    call = json_pack("{s:s, s:I, s:o, s:I, s:o}", "type", "call", "seq", (json_int_t)seq, "thread", th,
                     "start_ns", (json_int_t)tree_start_ns(t), "root", root);
    if (call != NULL && t->warmup && json_object_set_new(call, "warmup", json_true()) < 0) {
        json_decref(call);
        return NULL;
    }
    return call;
}
