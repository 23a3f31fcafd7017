/* test_treesum.c — --aggregate's two ways from a call's tree into the
 * summary give the same summary: straight (tree_sum_check, tree_sum) and
 * through the call model (tree_call, sum_add_call / sum_count_call), over
 * randomized event streams: recursion, exceptions (frames closed by a
 * caller's exit), depth cuts (ring overflow), hand-offs, CPU and
 * allocation stamps, warm-up calls counted only, the slowest kept, probe
 * costs and clock rates that make the ns conversion floor; the straight
 * way's trees built into one (tree_rebuild), as the worker builds them;
 * calls of a few shapes again and again, as a server's requests. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "methods.h"
#include "summary.h"
#include "tree.h"

#define MAX_EV 600
#define N_METHODS 11         /* over tree.c's children scanned: wide nodes too */

static int32_t ids[N_METHODS];
static uint64_t rng = 88172645463325252u;

static uint64_t rnd(uint64_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng % n;
}

struct gen {
    probe_ev ev[MAX_EV];
    probe_stamp st[MAX_EV];
    size_t n;
    uint64_t t, cpu, alloc;
    int stamps;
};

static void put(struct gen *g, uint32_t kind, int32_t id)
{
    g->t += rnd(50);
    g->cpu += rnd(40);
    g->alloc += rnd(4) == 0 ? rnd(1000) : 0;
    g->st[g->n] = g->stamps ? (probe_stamp){.cpu = PROBE_CPU_ON | g->cpu, .alloc = PROBE_ALLOC_ON | g->alloc}
                            : (probe_stamp){0};
    g->ev[g->n++] = (probe_ev){.t = g->t, .id = id, .kind = kind};
}

/* One call: the entry method (ids[0], also called recursively) and the
 * others nested at random, some frames left by an exception thrown
 * through them, some ending by their caller's exit. */
static void gen_call(struct gen *g)
{
    int32_t stack[CALL_MAX_DEPTH];
    int sp = 0, steps = 20 + (int)rnd(200), maxd = 2 + (int)rnd(CALL_MAX_DEPTH - 1);
    uint32_t seq = 1;

    g->n = 0;
    g->t = 1000 + rnd(1000);
    g->stamps = rnd(3) != 0;
    put(g, PROBE_ROOT_ENTER, ids[0]);
    stack[sp++] = ids[0];
    while (steps-- > 0 && g->n < MAX_EV - CALL_MAX_DEPTH - 8) {
        uint64_t r = rnd(100);

        if (r < 45 && sp < maxd) {
            int32_t m = ids[rnd(N_METHODS)];

            put(g, m == ids[0] ? PROBE_ROOT_ENTER : PROBE_ENTER, m);
            stack[sp++] = m;
        } else if (r < 85 && sp > 1) {
            int32_t m = stack[--sp];

            put(g, m == ids[0] ? (rnd(8) ? PROBE_ROOT_EXIT : PROBE_ROOT_FAIL) : (rnd(8) ? PROBE_EXIT : PROBE_FAIL),
                m);
        } else if (r < 88 && sp > 2) {
            /* An exception thrown through the top frames: the one below
             * catches it, and its exit closes them. */
            sp -= 1 + (int)rnd((uint64_t)sp - 2);
            put(g, stack[sp - 1] == ids[0] ? PROBE_ROOT_EXIT : PROBE_EXIT, stack[sp - 1]);
            sp--;
        } else if (r < 90) {
            put(g, PROBE_OVERFLOW, 0);
        } else if (r < 94) {
            put(g, PROBE_HANDOFF | seq << 4, ids[rnd(N_METHODS)]);
            if (rnd(3))
                put(g, PROBE_HANDED, 0);
            seq++;
        } else if (r < 96) {
            put(g, PROBE_INLINE | (uint32_t)(1 + rnd(seq)) << 4, 0);
        }
    }
    while (sp > 1) {
        int32_t m = stack[--sp];

        put(g, m == ids[0] ? PROBE_ROOT_EXIT : PROBE_EXIT, m);
    }
    put(g, rnd(6) ? PROBE_ROOT_EXIT : PROBE_ROOT_FAIL, ids[0]);
}

/* The summary's text. */
static char *text(sum *s)
{
    mct_buf b = {0};
    mct_err err;
    size_t len;

    CHECK_INT(sum_write_json(s, 1, &b, &err), 0);
    buf_ch(&b, '\0');
    return (char *)buf_steal(&b, &len);
}

/* What the summaries must hold in some rounds, so that every case is
 * compared: paths, truncation, throws, both figures, kept calls. */
#define N_SEEN 6
static const char *const seen_keys[N_SEEN] = {
    "\"children\":[{", "\"truncated\":true", "\"throws\":1", "\"cpu_ns\":", "\"alloc_bytes\":", "\"slowest\":[{",
};

/* rounds runs of calls into two summaries, one way each; their texts are
 * compared after every run. */
static void test_same(int rounds)
{
    int seen[N_SEEN] = {0};
    tree *reused = NULL;

    static const double rates[] = {1.0, 0.37, 2.5, 0.9999};
    static struct gen g;
    mct_err err;

    for (int round = 0; round < rounds; round++) {
        size_t k = rnd(4);
        sum *straight = sum_new(k, &err), *model = sum_new(k, &err);
        call_tab tab = {0}, mtab = {0};
        mct_call c = {0};
        tree_opts o = {.cal = {.tick0 = 0, .ns_per_tick = rates[rnd(4)], .wall0 = 1000},
                       .probe_ticks = rnd(4)};
        int calls = 1 + (int)rnd(30);

        for (int i = 0; i < calls; i++) {
            int counts_only = rnd(5) == 0, ok;
            tree *t;

            gen_call(&g);
            o.stamps = g.stamps ? g.st : NULL;
            o.stamp_mask = UINT64_MAX;
            t = tree_build(g.ev, g.n, &o, &err);
            CHECK(t != NULL);
            if (t == NULL) {
                fprintf(stderr, "tree_build: %s\n", err.msg);
                continue;
            }
            /* The straight way builds into one tree, as the worker does. */
            if (reused == NULL)
                reused = tree_build(g.ev, g.n, &o, &err);
            else
                CHECK_INT(tree_rebuild(reused, g.ev, g.n, &o, &err), 0);
            if (reused == NULL)
                continue;
            /* The model's way, as emit.c went before: every call. */
            ok = tree_call(t, &mtab, &c, 1, 0, "", NULL, &err) == 0;
            if (ok && counts_only)
                CHECK_INT(sum_count_call(model, &mtab, &c, &err), 0);
            else if (ok)
                CHECK_INT(sum_add_call(model, &mtab, &c, &err), 0);
            /* emit.c's way now: straight, unless the call is kept among
             * the slowest (then through its model). */
            if (!counts_only && sum_slowest_wants(straight, tree_total_ns(reused))) {
                CHECK_INT(tree_call(reused, &tab, &c, 1, 0, "", NULL, &err), ok ? 0 : -1);
                if (ok)
                    CHECK_INT(sum_add_call(straight, &tab, &c, &err), 0);
            } else {
                CHECK_INT(tree_sum_check(reused, &tab, &err), ok ? 0 : -1);
                if (ok)
                    CHECK_INT(tree_sum(reused, &tab, straight, counts_only, &err), 0);
            }
            tree_free(t);
        }
        {
            char *a = text(straight), *b = text(model);

            CHECK(a != NULL && b != NULL && strcmp(a, b) == 0);
            if (a != NULL && b != NULL && strcmp(a, b) != 0)
                fprintf(stderr, "round %d differs:\nstraight %s\nmodel    %s\n", round, a, b);
            for (int w = 0; w < N_SEEN; w++)
                seen[w] += a != NULL && strstr(a, seen_keys[w]) != NULL;
            free(a);
            free(b);
        }
        call_free(&c);
        call_tab_free(&tab);
        call_tab_free(&mtab);
        sum_free(straight);
        sum_free(model);
    }
    tree_free(reused);
    for (int w = 0; w < N_SEEN; w++)
        CHECK(seen[w] > rounds / 10);
}

/* Appends the events of the node at *p of a call's shape and of its
 * children: a digit names a method (ids), a node's children follow it in
 * parentheses; "0(1(2)3)" is the entry method calling 1, which calls 2,
 * then 3. */
static void put_shape(struct gen *g, const char **p, int root)
{
    int32_t m = ids[*(*p)++ - '0'];

    put(g, root ? PROBE_ROOT_ENTER : PROBE_ENTER, m);
    if (**p == '(') {
        for ((*p)++; **p != ')';)
            put_shape(g, p, 0);
        (*p)++;
    }
    put(g, root ? PROBE_ROOT_EXIT : PROBE_EXIT, m);
}

/* s's text is ref's, else says so. */
static void same_text(sum *s, sum *ref, const char *way, int round)
{
    char *a = text(s), *b = text(ref);

    CHECK(a != NULL && b != NULL && strcmp(a, b) == 0);
    if (a != NULL && b != NULL && strcmp(a, b) != 0)
        fprintf(stderr, "shapes round %d differs:\n%s %s\nref %s\n", round, way, a, b);
    free(a);
    free(b);
}

/* Calls of a few shapes, again and again with other times, both ways,
 * and each call into a summary of its own merged into a third (sum_merge
 * looks every node up): the summary finds a node where the last call's
 * shape put it only when it is the one a look-up finds. The shapes put a
 * method where another's shape has another (1, 4), or under another
 * parent (2 under 1, under 4, under the root), a method twice under one
 * node, a method under itself; the summaries are emptied now and then
 * (sum_reset). */
static void test_shapes(int rounds)
{
    static const char *const shapes[] = {
        "0(1(2)3)", "0(123)", "0(4(2)3)", "0(1(2)3(1(2)))", "0(1(1(1)))", "0(1(2)1(2)5)", "0(4(3)1(2))",
    };
    static struct gen g;
    mct_err err;

    for (int round = 0; round < rounds; round++) {
        sum *straight = sum_new(0, &err), *model = sum_new(0, &err), *ref = sum_new(0, &err);
        sum *one = sum_new(0, &err);
        call_tab tab = {0}, mtab = {0};
        mct_call c = {0};
        tree_opts o = {.cal = {.ns_per_tick = 1.0, .wall0 = 1000}, .probe_ticks = 1, .stamp_mask = UINT64_MAX};
        tree *t = NULL;

        for (int i = 0; i < 40; i++) {
            const char *p = shapes[rnd(sizeof shapes / sizeof *shapes)];
            int counts_only = rnd(8) == 0;

            if (rnd(12) == 0) {
                sum_reset(straight);
                sum_reset(model);
                sum_reset(ref);
            }
            g.n = 0;
            g.t = 1000;
            g.stamps = rnd(2) != 0;
            put_shape(&g, &p, 1);
            o.stamps = g.stamps ? g.st : NULL;
            if (t == NULL)
                CHECK((t = tree_build(g.ev, g.n, &o, &err)) != NULL);
            else
                CHECK_INT(tree_rebuild(t, g.ev, g.n, &o, &err), 0);
            if (t == NULL)
                break;
            CHECK_INT(tree_call(t, &mtab, &c, 1, 0, "", NULL, &err), 0);
            CHECK_INT(counts_only ? sum_count_call(model, &mtab, &c, &err) : sum_add_call(model, &mtab, &c, &err), 0);
            sum_reset(one);
            CHECK_INT(counts_only ? sum_count_call(one, &mtab, &c, &err) : sum_add_call(one, &mtab, &c, &err), 0);
            CHECK_INT(sum_merge(ref, one, &err), 0);
            CHECK_INT(tree_sum_check(t, &tab, &err), 0);
            CHECK_INT(tree_sum(t, &tab, straight, counts_only, &err), 0);
        }
        same_text(straight, ref, "straight", round);
        same_text(model, ref, "model", round);
        tree_free(t);
        call_free(&c);
        call_tab_free(&tab);
        call_tab_free(&mtab);
        sum_free(straight);
        sum_free(model);
        sum_free(ref);
        sum_free(one);
    }
}

/* A call tree_call refuses (it starts before the clock's epoch: a start_ns
 * that JSON cannot hold) is refused straight too, the summary untouched. */
static void test_refused(void)
{
    static struct gen g;
    tree_opts o = {.cal = {.tick0 = 1u << 30, .ns_per_tick = 1.0, .wall0 = 0}};
    call_tab tab = {0};
    mct_call c = {0};
    mct_err err;
    tree *t;

    gen_call(&g);
    t = tree_build(g.ev, g.n, &o, &err);
    CHECK(t != NULL);
    if (t == NULL)
        return;
    CHECK_INT(tree_call(t, &tab, &c, 1, 0, "", NULL, &err), -1);
    CHECK_INT(tree_sum_check(t, &tab, &err), -1);
    CHECK(strstr(err.msg, "cannot be sent") != NULL);
    tree_free(t);
    call_free(&c);
    call_tab_free(&tab);
}

int main(void)
{
    static const char *const names[N_METHODS][3] = {
        {"app/Shop", "checkout", "()V"}, {"app/Cart", "total", "()J"}, {"app/Price", "of", "(J)J"},
        {"app/Line", "<init>", "()V"},   {"app/Tax", "rate", "()D"},   {"app/Cart", "total", "(I)J"},
        {"app/Cart", "add", "()V"},      {"app/Cart", "drop", "()V"},  {"app/Stock", "hold", "()Z"},
        {"app/Stock", "free", "()V"},    {"app/Log", "line", "(Ljava/lang/String;)V"},
    };
    mct_err err;

    for (int i = 0; i < N_METHODS; i++)
        CHECK((ids[i] = mt_add(names[i][0], names[i][1], names[i][2], 1, i == 0, &err)) >= 0);
    test_same(400);
    test_shapes(50);
    test_refused();
    return check_status();
}
