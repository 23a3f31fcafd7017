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
 * a node never add up to more than the node, in ns as in ticks.
 *
 * CPU time (events stamped by probe_set_cpu): a frame's is the change of
 * its thread's CPU clock from its enter to its exit, less the probes' cost
 * counted as for its wall time, at most its (corrected) wall time and at
 * least its children's CPU time.
 *
 * Bytes allocated (events stamped by probe_set_alloc): a frame's are the
 * change of its thread's count from its enter to its exit (the probes
 * allocate nothing), at least its children's. */
#include "tree.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
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

/* The most slots of the children table a tree keeps for the next call
 * (16 KiB). */
#define KEEP_SLOTS 1024

/* What the look-up of a node among its siblings reads (child), apart
 * from its figures: the scan steps 8 bytes, not a node, per sibling. */
struct link {
    int32_t id;               /* the node's method */
    uint32_t next_sibling;    /* node index; 0 = none (node 0 is the root) */
};

struct node {
    uint32_t parent;          /* node index (the root's is 0, itself) */
    uint32_t first_child;     /* node indexes; 0 = none */
    uint32_t last_child;
    uint32_t kids;            /* children; beyond SCAN_KIDS they are in the table */
    uint64_t kid_ids;         /* bit id % 64 set for each child's method id */
    uint64_t calls, throws;
    uint64_t total, min, max; /* corrected ticks */
    uint64_t kids_ns;         /* its children's totals in ns, summed (finish) */
    uint64_t cpu;             /* ns of CPU time */
    uint64_t alloc;           /* bytes allocated */
    uint32_t pre;             /* its index in the model (tree_call) */
    uint8_t truncated;
};

struct frame {
    uint32_t node;
    uint64_t start;
    uint64_t child_sum;       /* corrected ticks of the calls made from it */
    uint64_t below;           /* recorded calls below it */
    uint64_t cpu_start;       /* the enter's CPU stamp (0: none) */
    uint64_t child_cpu;       /* ns of CPU time of the calls made from it */
    uint64_t alloc_start;     /* the enter's allocation stamp (0: none) */
    uint64_t child_alloc;     /* bytes allocated by the calls made from it */
};

struct tree {
    struct node *nodes;
    struct link *links;       /* by node index, as nodes */
    uint32_t n_nodes, cap_nodes;
    kit_table children;       /* node index + 1 by key(parent, id), for the
                                 children of nodes with over SCAN_KIDS */
    uint64_t start_tick;
    uintptr_t exception;
    tree_opts o;
    uint64_t mult;            /* ns = ticks * mult >> 32 */
    int warmup;               /* tree_warmup marked it */
    int cpu;                  /* the events carry CPU stamps */
    int alloc;                /* the events carry allocation stamps */
    tree_handoff *handoffs;   /* node: the node index here until tree_call */
    size_t n_handoffs, cap_handoffs;
    uint32_t *inlined;
    size_t n_inlined, cap_inlined;
    uint32_t task;            /* PROBE_TASK's hand-off number, or 0 */
    size_t open_handoffs;     /* hand-offs made in frames still open */
    size_t handed_at;         /* the hand-off the last PROBE_HANDED marked, or SIZE_MAX */
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
        struct link *l;

        if (p == NULL)
            return UINT32_MAX;
        t->nodes = p;
        if ((l = realloc(t->links, cap * sizeof *l)) == NULL)
            return UINT32_MAX;
        t->links = l;
        t->cap_nodes = cap;
    }
    /* Field by field, not memset: its rep stos cost more than the rest. */
    nd = &t->nodes[t->n_nodes];
    nd->parent = nd->first_child = nd->last_child = nd->kids = 0;
    nd->kid_ids = 0;
    nd->calls = nd->throws = nd->total = nd->min = nd->max = nd->kids_ns = nd->cpu = nd->alloc = 0;
    nd->pre = 0;
    nd->truncated = 0;
    t->links[t->n_nodes] = (struct link){.id = id};
    return t->n_nodes++;
}

/* Puts child c of parent into the children table (room reserved). */
static void index_child(tree *t, uint32_t parent, uint32_t c)
{
    kit_table_add(&t->children, key(parent, t->links[c].id), (uintptr_t)c + 1);
}

/* The child of parent for method id, or 0 (none: the root is no child). */
static uint32_t find_child(const tree *t, uint32_t parent, int32_t id)
{
    uint32_t c;

    if (t->nodes[parent].kids <= SCAN_KIDS) {
        for (c = t->nodes[parent].first_child; c != 0; c = t->links[c].next_sibling)
            if (t->links[c].id == id)
                return c;
    } else {
        kit_cursor cur;
        uintptr_t v;

        for (v = kit_table_first(&t->children, key(parent, id), &cur); v != 0;
             v = kit_table_next(&t->children, &cur)) {
            c = (uint32_t)(v - 1);
            if (t->links[c].id == id && t->nodes[c].parent == parent)
                return c;
        }
    }
    return 0;
}

/* The child of parent for method id, created (last in order) if new. */
static uint32_t child(tree *t, uint32_t parent, int32_t id)
{
    uint32_t kids = t->nodes[parent].kids, c;
    uint64_t bit = (uint64_t)1 << ((uint32_t)id & 63);

    /* Most of a call's nodes are new to it: with no sibling's bit set,
     * there is nothing to look up. */
    if ((t->nodes[parent].kid_ids & bit) && (c = find_child(t, parent, id)) != 0)
        return c;
    /* The new child, and the ones before it when they outgrow the scan. */
    if (kids >= SCAN_KIDS && kit_table_reserve(&t->children, t->children.n + (kids == SCAN_KIDS ? kids : 0) + 1) < 0)
        return UINT32_MAX;
    c = new_node(t, id);
    if (c == UINT32_MAX)
        return c;
    t->nodes[c].parent = parent;
    if (t->nodes[parent].last_child)
        t->links[t->nodes[parent].last_child].next_sibling = c;
    else
        t->nodes[parent].first_child = c;
    t->nodes[parent].last_child = c;
    t->nodes[parent].kids++;
    t->nodes[parent].kid_ids |= bit;
    if (kids == SCAN_KIDS) {
        uint32_t k;

        for (k = t->nodes[parent].first_child; k != 0; k = t->links[k].next_sibling)
            index_child(t, parent, k);
    } else if (kids > SCAN_KIDS) {
        index_child(t, parent, c);
    }
    return c;
}

static uint64_t ns(const tree *t, uint64_t ticks);

/* Each node's kids_ns, in one pass over the nodes (a child's index is
 * above its parent's), not one over each node's children per reader. */
static void finish(tree *t)
{
    for (uint32_t i = t->n_nodes; i-- > 1;)
        t->nodes[t->nodes[i].parent].kids_ns += ns(t, t->nodes[i].total);
}

/* The CPU time of frame f, closed at CPU stamp at, whose wall time is d ns
 * once the probes' cost (cost ns, spent on the CPU) is taken off. */
static uint64_t frame_cpu(const struct frame *f, uint64_t at, uint64_t d, uint64_t cost)
{
    uint64_t c = f->child_cpu;

    if (f->cpu_start != 0 && at != 0 && PROBE_CPU_NS(at) >= PROBE_CPU_NS(f->cpu_start) + cost)
        c = PROBE_CPU_NS(at) - PROBE_CPU_NS(f->cpu_start) - cost;
    if (c > d)
        c = d;
    return c < f->child_cpu ? f->child_cpu : c;
}

/* The bytes frame f allocated, closed at allocation stamp at. */
static uint64_t frame_alloc(const struct frame *f, uint64_t at)
{
    uint64_t a = 0;

    if (f->alloc_start != 0 && at != 0 && PROBE_ALLOC_BYTES(at) >= PROBE_ALLOC_BYTES(f->alloc_start))
        a = PROBE_ALLOC_BYTES(at) - PROBE_ALLOC_BYTES(f->alloc_start);
    return a < f->child_alloc ? f->child_alloc : a;
}

/* Closes the top frame at time `at` (CPU stamp at_cpu, allocation stamp
 * at_alloc), thrown or not, and charges its parent. */
static void close_frame(tree *t, struct frame *st, int *sp, uint64_t at, uint64_t at_cpu, uint64_t at_alloc,
                        int thrown)
{
    struct frame *f = &st[--*sp];
    struct node *nd = &t->nodes[f->node];
    uint64_t raw = at > f->start ? at - f->start : 0;
    uint64_t cost = t->o.probe_ticks * (1 + 2 * f->below);
    uint64_t d = raw > cost ? raw - cost : 0;

    /* A hand-off of the frame whose site never returned: it threw. */
    for (size_t h = t->n_handoffs; t->open_handoffs > 0 && h-- > 0;)
        if (t->handoffs[h].frame == *sp) {
            t->handoffs[h].rejected = !t->handoffs[h].handed && !t->handoffs[h].many;
            t->handoffs[h].frame = -1;
            t->open_handoffs--;
        }
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
    if (t->cpu) {
        uint64_t c = frame_cpu(f, at_cpu, ns(t, d), ns(t, cost));

        nd->cpu += c;
        if (*sp > 0)
            st[*sp - 1].child_cpu += c;
    }
    if (t->alloc) {
        uint64_t a = frame_alloc(f, at_alloc);

        nd->alloc += a;
        if (*sp > 0)
            st[*sp - 1].child_alloc += a;
    }
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

static int step(tree *t, struct frame *st, int *sp, const probe_ev *e, const probe_stamp *sm, mct_err *err)
{
    uint32_t k = PROBE_XKIND(e->kind);
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
        st[*sp] = (struct frame){.node = nd, .start = e->t, .cpu_start = sm->cpu, .alloc_start = sm->alloc};
        (*sp)++;
    } else if (is_exit(k)) {
        for (i = *sp - 1; i >= 0 && t->links[st[i].node].id != e->id; i--)
            ;
        if (i < 0)
            return 0; /* an exit without its enter: ignore */
        while (*sp > i + 1)
            close_frame(t, st, sp, e->t, sm->cpu, sm->alloc, 1);
        close_frame(t, st, sp, e->t, sm->cpu, sm->alloc, k == PROBE_FAIL || k == PROBE_ROOT_FAIL);
    } else if (k == PROBE_OVERFLOW) {
        for (i = 0; i < *sp; i++)
            t->nodes[st[i].node].truncated = 1;
    } else if (k == PROBE_EXCEPTION) {
        t->exception = (uintptr_t)e->t;
    } else if (k == PROBE_HANDOFF && *sp > 0) {
        if (buf_grow(&t->handoffs, &t->cap_handoffs, t->n_handoffs, sizeof *t->handoffs, 8) < 0)
            return mct_err_set(err, MCT_E_NOMEM, "out of memory building a call tree");
        t->handoffs[t->n_handoffs++] = (tree_handoff){.seq = PROBE_HANDOFF_SEQ(e->kind >> 4),
                                                      .method = e->id & ~PROBE_HANDOFF_MANY,
                                                      .many = (e->id & PROBE_HANDOFF_MANY) != 0,
                                                      .node = st[*sp - 1].node, .tick = e->t, .frame = *sp - 1};
        t->open_handoffs++;
    } else if (k == PROBE_HANDED) {
        /* The frame's last hand-off whose site had not returned yet. */
        for (size_t h = t->n_handoffs; h-- > 0;)
            if (t->handoffs[h].frame == *sp - 1 && !t->handoffs[h].handed) {
                t->handoffs[h].handed = 1;
                t->handed_at = h;
                break;
            }
    } else if (k == PROBE_FUTURE) {
        if (t->handed_at < t->n_handoffs)
            t->handoffs[t->handed_at].future = (void *)(uintptr_t)e->t;
        t->handed_at = SIZE_MAX;
    } else if (k == PROBE_INLINE) {
        if (buf_grow(&t->inlined, &t->cap_inlined, t->n_inlined, sizeof *t->inlined, 8) < 0)
            return mct_err_set(err, MCT_E_NOMEM, "out of memory building a call tree");
        t->inlined[t->n_inlined++] = PROBE_HANDOFF_SEQ(e->kind >> 4);
    } else if (k == PROBE_TASK) {
        t->task = PROBE_HANDOFF_SEQ(e->kind >> 4);
        /* The thread's later runs of the stream's function go untraced. */
        if (e->id == PROBE_STREAM_CUT && *sp > 0)
            t->nodes[st[0].node].truncated = 1;
    }
    return 0;
}

int tree_rebuild(tree *t, const probe_ev *ev, size_t n, const tree_opts *o, mct_err *err)
{
    static const probe_stamp no_stamp;
    const probe_stamp *first;
    struct frame st[MAX_STACK];
    int sp = 0;
    size_t i;

    /* What the last call left goes; its arrays stay, and the children
     * table's slots (a server's calls have nodes that wide, and growing
     * the table from nothing cost every call), unless they grew past
     * KEEP_SLOTS. */
    if (t->children.cap > KEEP_SLOTS)
        kit_table_free(&t->children);
    else
        kit_table_clear(&t->children);
    *t = (struct tree){.nodes = t->nodes, .links = t->links, .cap_nodes = t->cap_nodes, .handoffs = t->handoffs,
                       .cap_handoffs = t->cap_handoffs, .inlined = t->inlined, .cap_inlined = t->cap_inlined,
                       .children = t->children};
    if (n < 2 || PROBE_KIND(ev[0].kind) != PROBE_ROOT_ENTER)
        return mct_err_set(err, MCT_E_INTERNAL, "a traced call of %zu events does not start with its entry method",
                           n);
    if (new_node(t, ev[0].id) == UINT32_MAX)
        return mct_err_set(err, MCT_E_NOMEM, "out of memory building a call tree");
    t->o = *o;
    t->mult = (uint64_t)(o->cal.ns_per_tick * 4294967296.0 + 0.5);
    t->start_tick = ev[0].t;
    t->handed_at = SIZE_MAX;
    first = o->stamps != NULL ? &o->stamps[o->stamp_pos & o->stamp_mask] : &no_stamp;
    t->cpu = first->cpu != 0;
    t->alloc = first->alloc != 0;
    st[sp++] = (struct frame){.node = 0, .start = ev[0].t, .cpu_start = first->cpu, .alloc_start = first->alloc};
    for (i = 1; i < n; i++) {
        const probe_stamp *sm = o->stamps != NULL ? &o->stamps[(o->stamp_pos + i) & o->stamp_mask] : &no_stamp;

        if (step(t, st, &sp, &ev[i], sm, err) < 0)
            return -1;
    }
    if (sp > 0) {
        /* The call's own exit was lost (it cannot be, short of a bug):
         * close what is open at the last timestamp, as truncated. */
        uint64_t last = ev[n - 1].t;
        int j;

        for (j = 0; j < sp; j++)
            t->nodes[st[j].node].truncated = 1;
        while (sp > 0)
            close_frame(t, st, &sp, last, 0, 0, 1);
    }
    finish(t);
    return 0;
}

tree *tree_build(const probe_ev *ev, size_t n, const tree_opts *o, mct_err *err)
{
    tree *t = calloc(1, sizeof *t);

    if (t == NULL) {
        mct_err_set(err, MCT_E_NOMEM, "out of memory building a call tree");
        return NULL;
    }
    if (tree_rebuild(t, ev, n, o, err) < 0) {
        tree_free(t);
        return NULL;
    }
    return t;
}

void tree_free(tree *t)
{
    if (t == NULL)
        return;
    free(t->nodes);
    free(t->links);
    free(t->handoffs);
    free(t->inlined);
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

const tree_handoff *tree_handoffs(const tree *t, size_t *n)
{
    *n = t->n_handoffs;
    return t->handoffs;
}

const uint32_t *tree_inlined(const tree *t, size_t *n)
{
    *n = t->n_inlined;
    return t->inlined;
}

uint32_t tree_task(const tree *t)
{
    return t->task;
}

uint64_t tree_start_tick(const tree *t)
{
    return t->start_tick;
}

int tree_warmup(tree *t, int first, int (*marks)(int32_t id, uint64_t start))
{
    t->warmup = first != 0;
    for (uint32_t i = 0; i < t->n_nodes && !t->warmup; i++)
        t->warmup = marks(t->links[i].id, t->start_tick) != 0;
    return t->warmup;
}

/* The model's name for s (modified UTF-8): s itself when it is plain
 * UTF-8 already (the usual case, no allocation), else a copy in *owned. */
static const char *visit_name(const char *s, char **owned)
{
    *owned = NULL;
    if (mutf8_plain(s))
        return s;
    *owned = mutf8_dup(s);
    return *owned;
}

/* tree_define of node i's method, its look-up read inline: the model and
 * the summary ask for every node, and nearly all are defined already. */
static int define(const tree *t, uint32_t i, call_tab *tab, mct_err *err)
{
    if (call_tab_get(tab, (uint32_t)t->links[i].id) != NULL)
        return 0;
    return tree_define(tab, t->links[i].id, err);
}

int tree_define(call_tab *tab, int32_t num, mct_err *err)
{
    uint32_t id = (uint32_t)num;
    const mt_method *m;
    char *oc, *om, *od;
    const char *cls, *name, *desc;
    int rc;

    if (call_tab_get(tab, id) != NULL)
        return 0;
    m = mt_get(num);
    cls = visit_name(m ? m->cls : "?", &oc);
    name = visit_name(m ? m->name : "?", &om);
    desc = visit_name(m ? m->desc : "?", &od);
    if (cls == NULL || name == NULL || desc == NULL)
        rc = mct_err_set(err, MCT_E_NOMEM, "out of memory rendering a call");
    else
        rc = call_tab_define(tab, id, cls, name, desc, err);
    free(oc);
    free(om);
    free(od);
    return rc;
}

/* Node nd's total, self and CPU times in ns, as the model holds them:
 * the one rule of its figures, for the model (figures) and for the
 * summary (sum_figures). */
static void times(const tree *t, const struct node *nd, uint64_t *total, uint64_t *self, uint64_t *cpu)
{
    *total = ns(t, nd->total);
    *self = *total > nd->kids_ns ? *total - nd->kids_ns : 0;
    *cpu = nd->cpu < *total ? nd->cpu : *total;
}

/* Node i as the model holds it, into *cn. Field by field: a compound
 * literal zeroes the whole node first (rep stos), which cost more than
 * the rest of it. */
static void figures(const tree *t, uint32_t i, struct call_node *cn)
{
    const struct node *nd = &t->nodes[i];

    times(t, nd, &cn->total_ns, &cn->self_ns, &cn->cpu_ns);
    cn->method = (uint32_t)t->links[i].id;
    cn->n_children = nd->kids;
    cn->flags = nd->truncated ? CALL_N_TRUNCATED : 0u;
    cn->calls = nd->calls;
    cn->min_ns = ns(t, nd->min);
    cn->max_ns = ns(t, nd->max);
    cn->throws = nd->throws;
    cn->alloc_bytes = nd->alloc;
    cn->handoff_ns = 0;
    cn->queued_ns = 0;
    cn->thread = 0;
}

/* Node nd's figures into f, which holds the call's own (xflags), as
 * sum_add_call takes them from the model's node. */
static void sum_figures(const tree *t, const struct node *nd, struct sum_fig *f)
{
    times(t, nd, &f->total_ns, &f->self_ns, &f->x[SUM_X_CPU]);
    f->calls = nd->calls;
    f->min_ns = ns(t, nd->min);
    f->max_ns = ns(t, nd->max);
    f->throws = nd->throws;
    f->truncated = nd->truncated;
    f->x[SUM_X_ALLOC] = nd->alloc;
}

/* Node i and its subtree, in pre-order, from *at on; *at moves past them. */
static int fill(const tree *t, uint32_t i, call_tab *tab, mct_call *c, size_t *at, mct_err *err)
{
    const struct node *nd = &t->nodes[i];
    uint32_t k;

    t->nodes[i].pre = (uint32_t)*at;
    figures(t, i, &c->nodes[(*at)++]);
    if (define(t, i, tab, err) < 0)
        return -1;
    for (k = nd->first_child; k != 0; k = t->links[k].next_sibling)
        if (fill(t, k, tab, c, at, err) < 0)
            return -1;
    return 0;
}

int tree_call(const tree *t, call_tab *tab, mct_call *c, uint64_t seq, int64_t thread_id, const char *thread_name,
              const char *exception, mct_err *err)
{
    char *owned = NULL;
    const char *exc = exception != NULL ? visit_name(exception, &owned) : NULL;
    size_t at = 0;
    int rc;

    c->flags = (t->warmup ? CALL_F_WARMUP : 0u) | (t->cpu ? CALL_F_CPU : 0u) | (t->alloc ? CALL_F_ALLOC : 0u);
    c->seq = seq;
    c->thread_id = thread_id;
    c->start_ns = (uint64_t)tree_start_ns(t);
    if ((exception != NULL && exc == NULL) || call_set_names(c, thread_name, exc) < 0 ||
        call_nodes(c, t->n_nodes) == NULL || call_args(c, 0) < 0) {
        free(owned);
        return mct_err_set(err, MCT_E_NOMEM, "out of memory rendering a call");
    }
    free(owned);
    /* Whatever the model holds, both encodings hold: a call it cannot is
     * refused here, once, for both. */
    rc = fill(t, 0, tab, c, &at, err);
    for (size_t i = 0; rc == 0 && i < t->n_handoffs; i++)
        t->handoffs[i].node = t->nodes[t->handoffs[i].node].pre;
    if (rc == 0 && call_check(tab, c, err) < 0)
        rc = mct_err_wrap(err, "the call cannot be sent");
    return rc;
}

int tree_sum_check(const tree *t, call_tab *tab, mct_err *err)
{
    for (uint32_t i = 0; i < t->n_nodes; i++)
        if (define(t, i, tab, err) < 0)
            return -1;
    /* call_check's bound on every figure: the root's bounds its nodes'. */
    if (tree_start_ns(t) < 0 || ns(t, t->nodes[0].total) > INT64_MAX || t->nodes[0].alloc > INT64_MAX)
        return mct_err_set(err, MCT_E_PROTO, "the call cannot be sent: a figure over %lld", (long long)INT64_MAX);
    return 0;
}

int tree_sum(const tree *t, const call_tab *tab, sum *s, int counts_only, mct_err *err)
{
    struct sum_fig f = {.xflags = (t->cpu ? CALL_F_CPU : 0u) | (t->alloc ? CALL_F_ALLOC : 0u)};
    uint32_t i = 0;

    if ((counts_only ? sum_begin_counts(s, err) : sum_begin(s, err)) < 0)
        return -1;
    /* In pre-order, without recursion: a call per node cost more than the
     * rest of the walk. */
    for (;;) {
        sum_figures(t, &t->nodes[i], &f);
        if (sum_enter_num(s, tab, (uint32_t)t->links[i].id, &f, err) < 0)
            return -1;
        if (t->nodes[i].first_child != 0) {
            i = t->nodes[i].first_child;
            continue;
        }
        /* Leaves i, and each node whose last child it was. */
        for (;;) {
            if (sum_leave(s, err) < 0)
                return -1;
            if (i == 0)
                return sum_end(s, err);
            if (t->links[i].next_sibling != 0)
                break;
            i = t->nodes[i].parent;
        }
        i = t->links[i].next_sibling;
    }
}
