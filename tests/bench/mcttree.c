/* mcttree.c — the worker's cost per traced call, step by step, on the
 * shape of a real one (a tree JSON line that mcalltree wrote, e.g. a
 * Tomcat request):
 *
 *   mcttree FILE N       prints the ns per call of each step the worker
 *                        takes for every call: the tree from its events
 *                        (tree_rebuild), the model (tree_call), the
 *                        compact record (call_encode) and, for
 *                        --aggregate, the summary (tree_sum); each the
 *                        least mean of ten rounds of N calls (the
 *                        round least disturbed by the rest of the machine)
 *
 * The events are made from the line's first call: each node's calls are
 * nested in its parent's calls, spread evenly, so that the tree built from
 * them is the line's (the same nodes and calls). Methods are numbered in
 * the method table as the agent numbers them. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "call.h"
#include "methods.h"
#include "probe.h"
#include "summary.h"
#include "tree.h"

static const call_tab *src_tab;
static const mct_call *src;
static int32_t *ids;          /* method table number by node */
static probe_ev *ev;
static size_t n_ev, cap_ev;

static void die(const char *what)
{
    fprintf(stderr, "mcttree: %s\n", what);
    exit(1);
}

static void put(uint32_t kind, int32_t id)
{
    if (buf_grow(&ev, &cap_ev, n_ev, sizeof *ev, 1024) < 0)
        die("out of memory");
    ev[n_ev] = (probe_ev){.t = 100 + 10 * n_ev, .id = id, .kind = kind};
    n_ev++;
}

/* Call j of node i (of its calls in the whole tree): its children's calls
 * whose share falls in it, in order. */
static void emit(size_t i, uint64_t j, int root)
{
    const struct call_node *nd = &src->nodes[i];
    size_t c = i + 1;

    put(root ? PROBE_ROOT_ENTER : PROBE_ENTER, ids[i]);
    for (uint32_t k = 0; k < nd->n_children; k++) {
        uint64_t cc = src->nodes[c].calls;

        for (uint64_t m = cc * j / nd->calls; m < cc * (j + 1) / nd->calls; m++)
            emit(c, m, 0);
        c = call_subtree_end(src, c);
    }
    put(root ? PROBE_ROOT_EXIT : PROBE_EXIT, ids[i]);
}

static void number(void)
{
    mct_err err;

    ids = calloc(src->n_nodes, sizeof *ids);
    if (ids == NULL)
        die("out of memory");
    for (size_t i = 0; i < src->n_nodes; i++) {
        const struct call_method *m = call_tab_get(src_tab, src->nodes[i].method);
        char *cls = strdup(m->cls);

        if (cls == NULL)
            die("out of memory");
        for (char *p = cls; *p; p++)
            if (*p == '.')
                *p = '/';
        ids[i] = mt_add(cls, m->name, m->desc, 1, i == 0, &err);
        free(cls);
        if (ids[i] < 0)
            die(err.msg);
    }
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* What one round needs: the steps' state, kept across rounds. */
struct bench {
    tree *t;
    call_tab tab;
    mct_call model;
    call_defs defs;
    mct_buf out;
    sum *s;
};

/* One round of n calls: each step's ns, summed, into step. */
static void round_of(struct bench *b, long n, double step[4])
{
    tree_opts o = {.cal = {.ns_per_tick = 1.0}, .probe_ticks = 1};
    mct_err err;
    double t0;

    step[0] = step[1] = step[2] = step[3] = 0;
    for (long r = 0; r < n; r++) {
        t0 = now();
        if (b->t == NULL ? (b->t = tree_build(ev, n_ev, &o, &err)) == NULL
                         : tree_rebuild(b->t, ev, n_ev, &o, &err) < 0)
            die(err.msg);
        step[0] += now() - t0;
        t0 = now();
        if (tree_call(b->t, &b->tab, &b->model, (uint64_t)r + 1, 1, "worker", NULL, &err) < 0)
            die(err.msg);
        step[1] += now() - t0;
        t0 = now();
        b->out.len = 0;
        if (call_encode(&b->out, &b->tab, &b->defs, &b->model) < 0)
            die("encoding");
        step[2] += now() - t0;
        t0 = now();
        if (tree_sum_check(b->t, &b->tab, &err) < 0 || tree_sum(b->t, &b->tab, b->s, 0, &err) < 0)
            die(err.msg);
        step[3] += now() - t0;
    }
}

int main(int argc, char **argv)
{
    static call_tab tab_in;
    static mct_call in;
    static struct bench b;
    json_error_t jerr;
    json_t *j;
    mct_err err;
    long n;
    double step[4], best[4];

    if (argc != 3 || (n = atol(argv[2])) <= 0)
        die("usage: mcttree FILE N");
    j = json_load_file(argv[1], JSON_DISABLE_EOF_CHECK, &jerr);
    if (j == NULL)
        die(jerr.text);
    if (call_from_json(&tab_in, &in, j, &err) < 0)
        die(err.msg);
    src_tab = &tab_in;
    src = &in;
    number();
    emit(0, 0, 1);
    ev[0].kind |= (uint32_t)n_ev << 4;
    ev[n_ev - 1].kind |= 1u << 4;
    if ((b.s = sum_new(0, &err)) == NULL)
        die(err.msg);
    buf_init(&b.out);
    for (int round = 0; round < 10; round++) {
        round_of(&b, n, step);
        for (int k = 0; k < 4; k++)
            if (round == 0 || step[k] < best[k])
                best[k] = step[k];
    }
    printf("call: %zu nodes, %llu calls, %zu events; ns per call, the least mean of 10 rounds of %ld:\n",
           b.model.n_nodes, (unsigned long long)(n_ev / 2), n_ev, n);
    printf("  tree_rebuild %.0f\n  tree_call    %.0f\n  call_encode  %.0f\n  tree_sum     %.0f\n", best[0] / n,
           best[1] / n, best[2] / n, best[3] / n);
    buf_free(&b.out);
    call_defs_free(&b.defs);
    call_free(&b.model);
    call_free(&in);
    call_tab_free(&b.tab);
    call_tab_free(&tab_in);
    tree_free(b.t);
    sum_free(b.s);
    free(ids);
    free(ev);
    json_decref(j);
    return 0;
}
