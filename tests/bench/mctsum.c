/* mctsum.c — synthetic summaries for scripts/bench-reader: one summary
 * line of about N nodes, made by the summary module itself (the JSON the
 * agent's --aggregate writes), from C entry calls over a random tree.
 *
 *   mctsum NODES CALLS SEED    prints the summary object on stdout
 *   mctsum add CALLS           prints the ns that sum_add_call takes per
 *                              call (the --aggregate worker's summary
 *                              step), over CALLS calls of 36 nodes (46
 *                              calls of 31 methods on 4 levels, about
 *                              scripts/bench's mctbench.Tree.entry)
 *
 * The tree's shape is the same for every SEED (as the JVMs of one service
 * share their code); SEED draws the calls. The tree: node i > 0 hangs under a random earlier node of depth < 12;
 * the methods are NODES / 4 names, distinct among siblings. Each entry call
 * runs the root and every child with probability 3/4, one to three calls a
 * node, times spread over four decades, so that histograms hold several
 * buckets as real ones do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "call.h"
#include "summary.h"

struct gnode {
    unsigned parent, depth, method, first, next;
};

static unsigned long long rng;

static unsigned rnd(unsigned n)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng >> 33) % n);
}

static char names[3][64];

static int visit(sum *s, const struct gnode *g, unsigned i, int all, mct_err *e)
{
    struct sum_fig f = { .class_name = names[0], .method = names[1], .desc = "(Ljava/lang/String;I)J" };
    unsigned long long t = 100ULL << rnd(20);

    snprintf(names[0], sizeof names[0], "com.example.gen.pkg%u.Class%u", g[i].method % 7, g[i].method);
    snprintf(names[1], sizeof names[1], "method%u", g[i].method % 13);
    f.calls = 1 + rnd(3);
    f.total_ns = t + rnd(1000);
    f.self_ns = f.total_ns / 2;
    f.min_ns = f.total_ns / f.calls;
    f.max_ns = f.total_ns;
    if (sum_enter(s, &f, e) < 0)
        return -1;
    for (unsigned k = g[i].first; k != 0; k = g[k].next)
        if ((all || rnd(4) != 0) && visit(s, g, k, all, e) < 0)
            return -1;
    return sum_leave(s, e);
}

/* mctsum add CALLS. */
static int add_calls(unsigned calls)
{
    call_tab tab = { 0 };
    mct_call c = { 0 };
    struct call_node *nd;
    char cls[80], name[32];
    mct_err e;
    sum *s = sum_new(0, &e);
    struct timespec t0, t1;
    uint32_t n = 0;

    /* entry -> 5 mids -> 2 each -> 2 leaves each: 1 + 5 + 10 + 20 nodes,
     * 51 calls (the leaves' first child called twice) */
    if (s == NULL || (nd = calloc(36, sizeof *nd)) == NULL)
        return 1;
    for (uint32_t i = 0; i < 31; i++) {
        snprintf(cls, sizeof cls, "mctbench.generated.level%u.Tree%u", i < 1 ? 0 : i < 6 ? 1 : i < 16 ? 2 : 3, i);
        snprintf(name, sizeof name, "step%u", i);
        if (call_tab_define(&tab, i, cls, name, "(I)I", &e) < 0)
            return 1;
    }
    nd[n++] = (struct call_node){ .method = 0, .n_children = 5 };
    for (uint32_t a = 0; a < 5; a++) {
        nd[n++] = (struct call_node){ .method = 1 + a, .n_children = 2 };
        for (uint32_t b = 0; b < 2; b++) {
            nd[n++] = (struct call_node){ .method = 6 + a * 2 + b, .n_children = 2 };
            for (uint32_t l = 0; l < 2; l++)
                nd[n++] = (struct call_node){ .method = 16 + (a * 4 + b * 2 + l) % 15, .n_children = 0,
                                              .calls = 1 + (l == 0) };
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        nd[i].calls += nd[i].calls == 0;
        nd[i].total_ns = nd[i].self_ns = nd[i].min_ns = nd[i].max_ns = 100 + i;
    }
    c.nodes = nd;
    c.n_nodes = n;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (unsigned k = 0; k < calls; k++) {
        nd[0].total_ns = 1000 + k % 5000;
        if (sum_add_call(s, &tab, &c, &e) < 0) {
            fprintf(stderr, "mctsum: %s\n", e.msg);
            return 1;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%.1f ns per call (%u calls of %u nodes)\n",
           ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / calls, calls, n);
    c.nodes = NULL;
    free(nd);
    call_free(&c);
    call_tab_free(&tab);
    sum_free(s);
    return 0;
}

int main(int argc, char **argv)
{
    unsigned n, calls, nm;
    struct gnode *g;
    sum *s;
    mct_err e;
    mct_buf b;

    if (argc == 3 && strcmp(argv[1], "add") == 0 && atoi(argv[2]) > 0)
        return add_calls((unsigned)atoi(argv[2]));
    if (argc != 4 || (n = (unsigned)atoi(argv[1])) < 1 || (calls = (unsigned)atoi(argv[2])) < 1) {
        fprintf(stderr, "usage: mctsum NODES CALLS SEED | mctsum add CALLS\n");
        return 2;
    }
    rng = 1;
    nm = n / 4 + 1;
    g = calloc(n, sizeof *g);
    if (g == NULL || (s = sum_new(10, &e)) == NULL)
        return 1;
    for (unsigned i = 1; i < n; i++) {
        unsigned p;

        do
            p = rnd(i);
        while (g[p].depth >= 12);
        g[i].parent = p;
        g[i].depth = g[p].depth + 1;
        g[i].method = rnd(nm);
        for (unsigned k = g[p].first; k != 0; k = g[k].next)
            if (g[k].method == g[i].method) {
                g[i].method = (g[i].method + 1) % nm;
                k = g[p].first;
                if (k == 0)
                    break;
            }
        g[i].next = g[p].first;
        g[p].first = i;
    }
    rng = strtoull(argv[3], NULL, 10);
    for (unsigned c = 0; c < calls; c++)
        if (sum_begin(s, &e) < 0 || visit(s, g, 0, c == 0, &e) < 0 || sum_end(s, &e) < 0) {
            fprintf(stderr, "mctsum: %s\n", e.msg);
            return 1;
        }
    buf_init(&b);
    if (sum_write_json(s, 1, &b, &e) < 0) {
        fprintf(stderr, "mctsum: %s\n", e.msg);
        return 1;
    }
    buf_ch(&b, '\n');
    fwrite(b.data, 1, b.len, stdout);
    buf_free(&b);
    sum_free(s);
    free(g);
    return 0;
}
