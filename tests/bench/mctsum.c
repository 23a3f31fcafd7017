/* mctsum.c — synthetic summaries for scripts/bench-reader: one summary
 * line of about N nodes, made by the summary module itself (the JSON the
 * agent's --aggregate writes), from C entry calls over a random tree.
 *
 *   mctsum NODES CALLS SEED    prints the summary object on stdout
 *
 * The tree's shape is the same for every SEED (as the JVMs of one service
 * share their code); SEED draws the calls. The tree: node i > 0 hangs under a random earlier node of depth < 12;
 * the methods are NODES / 4 names, distinct among siblings. Each entry call
 * runs the root and every child with probability 3/4, one to three calls a
 * node, times spread over four decades, so that histograms hold several
 * buckets as real ones do. */
#include <stdio.h>
#include <stdlib.h>

#include "buf.h"
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

int main(int argc, char **argv)
{
    unsigned n, calls, nm;
    struct gnode *g;
    sum *s;
    mct_err e;
    mct_buf b;

    if (argc != 4 || (n = (unsigned)atoi(argv[1])) < 1 || (calls = (unsigned)atoi(argv[2])) < 1) {
        fprintf(stderr, "usage: mctsum NODES CALLS SEED\n");
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
