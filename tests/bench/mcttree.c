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
 *                        round least disturbed by the rest of the machine);
 *                        then the client's for every call: the record
 *                        decoded and checked (call_decode) and its JSON
 *                        line (call_json_line)
 *   mcttree FILE N KIB   the same with KIB KiB of other memory written
 *                        before each call: a worker builds its summary
 *                        between other work, its caches cold (a KIB past
 *                        the L2 leaves the summary in L3, past the L3 in
 *                        memory; the L3 is shared with the machine's
 *                        other work)
 *   mcttree -j FILE N [KIB]
 *                        the same, each call's times drawn again (each
 *                        gap between events 10 to 400 ticks), so that
 *                        the summary's histograms fill as a real
 *                        request mix fills them: hundreds of buckets a
 *                        node (by default every call is the same, a
 *                        bucket a histogram)
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
#include "proto.h"
#include "summary.h"
#include "tree.h"

static const call_tab *src_tab;
static const mct_call *src;
static int32_t *ids;          /* method table number by node */
static probe_ev *ev;
static size_t n_ev, cap_ev;
static int jitter;            /* -j */

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

/* -j: ev's times drawn again, gaps of 10 to 400 ticks (one fixed
 * sequence: runs compare). */
static void vary(void)
{
    static uint64_t x = 88172645463325252u;
    uint64_t t = 100;

    for (size_t i = 0; i < n_ev; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        t += 10 + x % 391;
        ev[i].t = t;
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
    call_tab ctab;            /* the client's */
    mct_call cmodel;
    const unsigned char *rec; /* the record's payload, in rec_frame */
    size_t rec_len;
    mct_buf rec_frame, json;
    unsigned char *evict;     /* written before each call, when not NULL */
    size_t evict_len;
};

#define STEPS 6

/* One round of n calls: each step's ns, summed, into step. */
static void round_of(struct bench *b, long n, double step[STEPS])
{
    tree_opts o = {.cal = {.ns_per_tick = 1.0}, .probe_ticks = 1};
    mct_err err;
    double t0;

    for (int k = 0; k < STEPS; k++)
        step[k] = 0;
    for (long r = 0; r < n; r++) {
        if (jitter)
            vary();
        /* A line each: what the caches held is pushed out. */
        for (size_t i = 0; i < b->evict_len; i += 64)
            b->evict[i]++;
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
        t0 = now();
        if (call_decode(&b->ctab, &b->cmodel, b->rec, b->rec_len, &err) != CALL_REC)
            die(err.msg);
        step[4] += now() - t0;
        t0 = now();
        b->json.len = 0;
        if (call_json_line(&b->json, &b->ctab, &b->cmodel) < 0)
            die("rendering");
        step[5] += now() - t0;
    }
}

/* The client's side before the rounds: the first call's frames (its
 * methods' definitions, then its record) decoded; the record kept. */
static void client_setup(struct bench *b)
{
    tree_opts o = {.cal = {.ns_per_tick = 1.0}, .probe_ticks = 1};
    call_defs defs = {0};
    mct_buf frames;
    mct_err err;
    size_t at = 0;
    tree *t = tree_build(ev, n_ev, &o, &err);

    buf_init(&frames);
    if (t == NULL || tree_call(t, &b->tab, &b->model, 1, 1, "worker", NULL, &err) < 0)
        die(err.msg);
    if (call_encode(&frames, &b->tab, &defs, &b->model) < 0)
        die("encoding");
    while (at < frames.len) {
        uint32_t len;
        const unsigned char *p = frames.data + at + PROTO_HEADER_LEN;

        if (proto_header_decode(frames.data + at, PROTO_REPLY, &len, &err) < 0)
            die(err.msg);
        if (call_decode(&b->ctab, &b->cmodel, p, len, &err) < 0)
            die(err.msg);
        if (p[0] == CALL_REC) {
            buf_bytes(&b->rec_frame, p, len);
            b->rec = b->rec_frame.data;
            b->rec_len = len;
        }
        at += PROTO_HEADER_LEN + len;
    }
    if (b->rec == NULL)
        die("no record encoded");
    buf_free(&frames);
    call_defs_free(&defs);
    tree_free(t);
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
    double step[STEPS], best[STEPS];

    if (argc > 1 && strcmp(argv[1], "-j") == 0) {
        jitter = 1;
        argc--;
        argv++;
    }
    if ((argc != 3 && argc != 4) || (n = atol(argv[2])) <= 0)
        die("usage: mcttree [-j] FILE N [KIB]");
    if (argc == 4) {
        b.evict_len = (size_t)atol(argv[3]) * 1024;
        if ((b.evict = calloc(1, b.evict_len + 1)) == NULL)
            die("out of memory");
    }
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
    buf_init(&b.rec_frame);
    buf_init(&b.json);
    client_setup(&b);
    for (int round = 0; round < 10; round++) {
        round_of(&b, n, step);
        for (int k = 0; k < STEPS; k++)
            if (round == 0 || step[k] < best[k])
                best[k] = step[k];
    }
    printf("call: %zu nodes, %llu calls, %zu events%s; ns per call, the least mean of 10 rounds of %ld",
           b.model.n_nodes, (unsigned long long)(n_ev / 2), n_ev, jitter ? " (times vary)" : "", n);
    if (b.evict != NULL)
        printf(", %zu KiB written before each", b.evict_len / 1024);
    printf(":\n");
    printf("  tree_rebuild %.0f\n  tree_call    %.0f\n  call_encode  %.0f\n  tree_sum     %.0f\n", best[0] / n,
           best[1] / n, best[2] / n, best[3] / n);
    printf("client:\n  call_decode  %.0f\n  call_json_line %.0f (%zu bytes)\n", best[4] / n, best[5] / n, b.json.len);
    buf_free(&b.out);
    buf_free(&b.rec_frame);
    buf_free(&b.json);
    call_free(&b.cmodel);
    call_tab_free(&b.ctab);
    call_defs_free(&b.defs);
    call_free(&b.model);
    call_free(&in);
    call_tab_free(&b.tab);
    call_tab_free(&tab_in);
    tree_free(b.t);
    sum_free(b.s);
    free(b.evict);
    free(ids);
    free(ev);
    json_decref(j);
    return 0;
}
