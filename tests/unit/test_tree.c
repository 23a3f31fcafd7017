/* test_tree.c — call trees from probe events: merging, order, throws, frames
 * closed by their caller, truncation, probe cost subtraction, the JSON. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "methods.h"
#include "tree.h"
#include "treejson.h"

static int32_t ROOT, A, B, C;

static probe_ev ev_buf[64];
static probe_stamp st_buf[64];
static size_t n_ev;

static void ev(uint32_t kind, int32_t id, uint64_t t)
{
    st_buf[n_ev] = (probe_stamp){0};
    ev_buf[n_ev++] = (probe_ev){.t = t, .id = id, .kind = kind};
}

static tree *build(uint64_t probe_ticks)
{
    tree_opts o = {.cal = {.tick0 = 0, .ns_per_tick = 1.0, .wall0 = 1000}, .probe_ticks = probe_ticks};
    mct_err err;

    for (size_t i = 0; i < n_ev; i++)
        if (st_buf[i].cpu != 0 || st_buf[i].alloc != 0)
            o.stamps = st_buf;
    o.stamp_mask = UINT64_MAX;
    tree *t = tree_build(ev_buf, n_ev, &o, &err);

    if (t == NULL)
        fprintf(stderr, "tree_build: %s\n", err.msg);
    return t;
}

static json_t *render(tree *t, const char *exc)
{
    json_t *j = tree_to_json(t, 7, 23, "worker-1", exc, 1);

    CHECK(j != NULL);
    return j;
}

static json_int_t num(json_t *node, const char *key)
{
    return json_integer_value(json_object_get(node, key));
}

static json_t *kid(json_t *node, size_t i)
{
    return json_array_get(json_object_get(node, "children"), i);
}

/* root 0..100 calls A three times (each A calls B once), then C. */
static void test_merge_and_order(void)
{
    json_t *j, *root, *a, *b, *c;
    tree *t;

    n_ev = 0;
    ev(PROBE_ROOT_ENTER, ROOT, 0);
    ev(PROBE_ENTER, A, 10);
    ev(PROBE_ENTER, B, 12);
    ev(PROBE_EXIT, B, 15);
    ev(PROBE_EXIT, A, 20);
    ev(PROBE_ENTER, A, 30);
    ev(PROBE_ENTER, B, 31);
    ev(PROBE_EXIT, B, 41);
    ev(PROBE_EXIT, A, 45);
    ev(PROBE_ENTER, C, 50);
    ev(PROBE_EXIT, C, 55);
    ev(PROBE_ENTER, A, 60);
    ev(PROBE_EXIT, A, 62);
    ev(PROBE_ROOT_EXIT, ROOT, 100);
    t = build(0);
    CHECK(t != NULL);
    if (t == NULL)
        return;
    CHECK_INT(tree_total_ns(t), 100);
    CHECK_INT(tree_nodes(t), 4);
    j = render(t, NULL);
    CHECK_STR(json_string_value(json_object_get(j, "type")), "call");
    CHECK_INT(num(j, "seq"), 7);
    CHECK_INT(num(j, "start_ns"), 1000);
    CHECK_INT(num(json_object_get(j, "thread"), "id"), 23);
    CHECK_STR(json_string_value(json_object_get(json_object_get(j, "thread"), "name")), "worker-1");
    root = json_object_get(j, "root");
    CHECK_STR(json_string_value(json_object_get(root, "class")), "com.shop.Cart");
    CHECK_STR(json_string_value(json_object_get(root, "method")), "total");
    CHECK_STR(json_string_value(json_object_get(root, "desc")), "()J");
    CHECK_INT(num(root, "calls"), 1);
    CHECK_INT(num(root, "total_ns"), 100);
    CHECK_INT(json_array_size(json_object_get(root, "children")), 2);
    a = kid(root, 0);
    c = kid(root, 1);
    CHECK_STR(json_string_value(json_object_get(a, "method")), "a");
    CHECK_STR(json_string_value(json_object_get(c, "method")), "<init>");
    CHECK_INT(num(a, "calls"), 3);
    CHECK_INT(num(a, "total_ns"), 10 + 15 + 2);
    CHECK_INT(num(a, "min_ns"), 2);
    CHECK_INT(num(a, "max_ns"), 15);
    b = kid(a, 0);
    CHECK_INT(num(b, "calls"), 2);
    CHECK_INT(num(b, "total_ns"), 13);
    CHECK_INT(num(a, "self_ns"), 27 - 13);
    CHECK_INT(num(root, "self_ns"), 100 - 27 - 5);
    CHECK_INT(num(root, "throws"), 0);
    CHECK(json_object_get(root, "truncated") == NULL);
    CHECK(json_object_get(root, "exception") == NULL);
    json_decref(j);
    tree_free(t);
}

/* B throws out of A, which catches it; C (a constructor that threw before
 * super()) misses its exit and is closed by its caller's exit. */
static void test_throws(void)
{
    json_t *j, *root, *a, *b, *c;
    tree *t;

    n_ev = 0;
    ev(PROBE_ROOT_ENTER, ROOT, 0);
    ev(PROBE_ENTER, A, 10);
    ev(PROBE_ENTER, B, 11);
    ev(PROBE_FAIL, B, 14);
    ev(PROBE_ENTER, C, 15);
    ev(PROBE_EXIT, A, 20);
    ev(PROBE_EXCEPTION, -1, 0xabc0);
    ev(PROBE_ROOT_FAIL, ROOT, 30);
    t = build(0);
    CHECK(t != NULL);
    if (t == NULL)
        return;
    CHECK_INT(tree_exception(t), 0xabc0);
    j = render(t, "java.lang.IllegalStateException");
    root = json_object_get(j, "root");
    CHECK_INT(num(root, "throws"), 1);
    CHECK_STR(json_string_value(json_object_get(root, "exception")), "java.lang.IllegalStateException");
    a = kid(root, 0);
    CHECK_INT(num(a, "throws"), 0);
    b = kid(a, 0);
    c = kid(a, 1);
    CHECK_INT(num(b, "throws"), 1);
    CHECK_INT(num(b, "total_ns"), 3);
    CHECK_INT(num(c, "throws"), 1);
    CHECK_INT(num(c, "total_ns"), 5);
    json_decref(j);
    tree_free(t);
}

static void test_truncated(void)
{
    json_t *j, *root, *a;
    tree *t;

    n_ev = 0;
    ev(PROBE_ROOT_ENTER, ROOT, 0);
    ev(PROBE_ENTER, A, 10);
    ev(PROBE_OVERFLOW, -1, 12);
    ev(PROBE_EXIT, A, 20);
    ev(PROBE_ENTER, B, 21); /* cannot happen after an overflow, ignored safely */
    ev(PROBE_ROOT_EXIT, ROOT, 30);
    t = build(0);
    CHECK(t != NULL);
    if (t == NULL)
        return;
    j = render(t, NULL);
    root = json_object_get(j, "root");
    a = kid(root, 0);
    CHECK(json_is_true(json_object_get(root, "truncated")));
    CHECK(json_is_true(json_object_get(a, "truncated")));
    CHECK_INT(num(a, "total_ns"), 10);
    json_decref(j);
    tree_free(t);
}

/* With a probe cost of 2 ticks: A (no calls below) loses 2, the root (three
 * recorded calls below it) loses 2 + 3 * 4; children never exceed parents,
 * even when the raw times are smaller than the cost. */
static void test_probe_cost(void)
{
    json_t *j, *root, *a, *b, *c;
    tree *t;

    n_ev = 0;
    ev(PROBE_ROOT_ENTER, ROOT, 0);
    ev(PROBE_ENTER, A, 10);
    ev(PROBE_EXIT, A, 30);
    ev(PROBE_ENTER, B, 40);
    ev(PROBE_ENTER, C, 41);
    ev(PROBE_EXIT, C, 42);
    ev(PROBE_EXIT, B, 43);
    ev(PROBE_ROOT_EXIT, ROOT, 100);
    t = build(2);
    CHECK(t != NULL);
    if (t == NULL)
        return;
    j = render(t, NULL);
    root = json_object_get(j, "root");
    a = kid(root, 0);
    b = kid(root, 1);
    c = kid(b, 0);
    CHECK_INT(num(a, "total_ns"), 18);
    CHECK_INT(num(c, "total_ns"), 0);          /* 1 raw - 2: clamped */
    CHECK_INT(num(b, "total_ns"), 0);          /* 3 raw - 2 - 4 */
    CHECK_INT(num(root, "total_ns"), 100 - 2 - 3 * 4);
    CHECK(num(root, "total_ns") >= num(a, "total_ns") + num(b, "total_ns"));
    CHECK(num(b, "total_ns") >= num(c, "total_ns"));
    json_decref(j);
    tree_free(t);
}

static void evc(uint32_t kind, int32_t id, uint64_t t, uint64_t cpu_ns)
{
    ev(kind, id, t);
    st_buf[n_ev - 1].cpu = PROBE_CPU_ON | cpu_ns;
}

static void eva(uint32_t kind, int32_t id, uint64_t t, uint64_t bytes)
{
    ev(kind, id, t);
    st_buf[n_ev - 1].alloc = PROBE_ALLOC_ON | bytes;
}

/* Allocation stamps: a node's bytes are its count's change, at least its
 * children's; both encodings carry them. */
static void test_alloc(void)
{
    json_t *j, *root, *a, *b;
    call_tab tab = {0}, tab2 = {0};
    mct_call call = {0}, call2 = {0};
    call_defs defs = {0};
    mct_buf rec = {0}, l1 = {0}, l2 = {0};
    mct_err e;
    tree *t;

    n_ev = 0;
    eva(PROBE_ROOT_ENTER, ROOT, 0, 1000);
    eva(PROBE_ENTER, A, 10, 1000);
    eva(PROBE_EXIT, A, 20, 1500);        /* 500 bytes */
    eva(PROBE_ENTER, A, 30, 1600);
    eva(PROBE_EXIT, A, 40, 1700);        /* 100 more: A merges 600 */
    eva(PROBE_ENTER, B, 50, 1700);
    eva(PROBE_EXIT, B, 60, 1700);        /* none */
    eva(PROBE_ROOT_EXIT, ROOT, 100, 1800);
    t = build(0);
    CHECK(t != NULL);
    if (t == NULL)
        return;
    j = render(t, NULL);
    root = json_object_get(j, "root");
    a = kid(root, 0);
    b = kid(root, 1);
    CHECK_INT(num(a, "alloc_bytes"), 600);
    CHECK_INT(num(b, "alloc_bytes"), 0);
    CHECK_INT(num(root, "alloc_bytes"), 800);
    CHECK(json_object_get(root, "cpu_ns") == NULL);
    CHECK_INT(call_from_json(&tab, &call, j, &e), 0);
    CHECK(call.flags == CALL_F_ALLOC);
    CHECK_INT(call_encode(&rec, &tab, &defs, &call), 0);
    for (size_t at = 0; at < rec.len;) {
        uint32_t n = 0;

        CHECK_INT(proto_header_decode(rec.data + at, PROTO_REPLY, &n, &e), 0);
        CHECK(call_decode(&tab2, &call2, rec.data + at + PROTO_HEADER_LEN, n, &e) > 0);
        at += PROTO_HEADER_LEN + n;
    }
    CHECK(call2.flags == CALL_F_ALLOC);
    CHECK_INT(call_json_line(&l1, &tab, &call), 0);
    CHECK_INT(call_json_line(&l2, &tab2, &call2), 0);
    CHECK(l1.len == l2.len && memcmp(l1.data, l2.data, l1.len) == 0);
    /* A node with alloc_bytes under a root without is refused. */
    json_object_del(root, "alloc_bytes");
    CHECK_INT(call_from_json(&tab, &call, j, &e), -1);
    CHECK(strstr(e.msg, "alloc_bytes: present though the root has none") != NULL);
    json_decref(j);
    tree_free(t);
    buf_free(&rec);
    buf_free(&l1);
    buf_free(&l2);
    call_defs_free(&defs);
    call_free(&call);
    call_free(&call2);
    call_tab_free(&tab);
    call_tab_free(&tab2);
}

/* CPU stamps: a node's CPU time is its clock's change less the probes'
 * cost, within its children's CPU time and its wall time; wait_ns is the
 * rest. Both encodings carry them: the JSON read back and the compact
 * record give the same call. */
static void test_cpu(void)
{
    json_t *j, *root, *a, *b, *c;
    call_tab tab = {0}, tab2 = {0};
    mct_call call = {0}, call2 = {0};
    call_defs defs = {0};
    mct_buf rec = {0}, l1 = {0}, l2 = {0};
    mct_err e;
    tree *t;

    n_ev = 0;
    evc(PROBE_ROOT_ENTER, ROOT, 0, 5000);
    evc(PROBE_ENTER, A, 10, 5010);
    evc(PROBE_EXIT, A, 30, 5028);       /* 20 wall, 18 CPU */
    evc(PROBE_ENTER, B, 40, 5040);
    evc(PROBE_ENTER, C, 41, 5041);
    evc(PROBE_EXIT, C, 51, 5051);       /* 10 wall, 10 CPU */
    evc(PROBE_EXIT, B, 90, 5045);       /* its clock says 5, its child used 10 */
    evc(PROBE_ROOT_EXIT, ROOT, 100, 5300); /* 300 CPU in 100 wall: clamped */
    t = build(0);
    CHECK(t != NULL);
    if (t == NULL)
        return;
    j = render(t, NULL);
    root = json_object_get(j, "root");
    a = kid(root, 0);
    b = kid(root, 1);
    c = kid(b, 0);
    CHECK_INT(num(a, "cpu_ns"), 18);
    CHECK_INT(num(a, "wait_ns"), 2);
    CHECK_INT(num(c, "cpu_ns"), 10);
    CHECK_INT(num(b, "cpu_ns"), 10);
    CHECK_INT(num(b, "wait_ns"), 40);
    CHECK_INT(num(root, "cpu_ns"), 100);
    CHECK_INT(num(root, "wait_ns"), 0);

    CHECK_INT(call_from_json(&tab, &call, j, &e), 0);
    CHECK(call.flags & CALL_F_CPU);
    CHECK_INT(call_encode(&rec, &tab, &defs, &call), 0);
    for (size_t at = 0; at < rec.len;) {
        uint32_t n = 0;

        CHECK_INT(proto_header_decode(rec.data + at, PROTO_REPLY, &n, &e), 0);
        CHECK(call_decode(&tab2, &call2, rec.data + at + PROTO_HEADER_LEN, n, &e) > 0);
        at += PROTO_HEADER_LEN + n;
    }
    CHECK(call2.flags & CALL_F_CPU);
    CHECK_INT(call_json_line(&l1, &tab, &call), 0);
    CHECK_INT(call_json_line(&l2, &tab2, &call2), 0);
    CHECK(l1.len == l2.len && memcmp(l1.data, l2.data, l1.len) == 0);
    /* A reader refuses more CPU time than time, and cpu_ns on a child of a
     * root without it. */
    json_object_set_new(a, "cpu_ns", json_integer(num(a, "total_ns") + 1));
    CHECK_INT(call_from_json(&tab, &call, j, &e), -1);
    CHECK(strstr(e.msg, "is over its total_ns") != NULL);
    json_object_del(root, "cpu_ns");
    CHECK_INT(call_from_json(&tab, &call, j, &e), -1);
    CHECK(strstr(e.msg, "cpu_ns: present though the root has none") != NULL);
    /* Without stamps, none: the call is as it always was. */
    json_decref(j);
    tree_free(t);
    n_ev = 0;
    ev(PROBE_ROOT_ENTER, ROOT, 0);
    ev(PROBE_ROOT_EXIT, ROOT, 100);
    t = build(0);
    j = t != NULL ? render(t, NULL) : NULL;
    CHECK(j != NULL && json_object_get(json_object_get(j, "root"), "cpu_ns") == NULL);
    json_decref(j);
    tree_free(t);
    buf_free(&rec);
    buf_free(&l1);
    buf_free(&l2);
    call_defs_free(&defs);
    call_free(&call);
    call_free(&call2);
    call_tab_free(&tab);
    call_tab_free(&tab2);
}

/* Recursion of the entry method nests; an exit without an enter is ignored. */
static void test_recursion(void)
{
    json_t *j, *root, *inner;
    tree *t;

    n_ev = 0;
    ev(PROBE_ROOT_ENTER, ROOT, 0);
    ev(PROBE_EXIT, B, 1);
    ev(PROBE_ROOT_ENTER, ROOT, 5);
    ev(PROBE_ROOT_ENTER, ROOT, 6);
    ev(PROBE_ROOT_EXIT, ROOT, 7);
    ev(PROBE_ROOT_EXIT, ROOT, 9);
    ev(PROBE_ROOT_EXIT, ROOT, 20);
    t = build(0);
    CHECK(t != NULL);
    if (t == NULL)
        return;
    j = render(t, NULL);
    root = json_object_get(j, "root");
    inner = kid(root, 0);
    CHECK_INT(num(root, "total_ns"), 20);
    CHECK_INT(num(inner, "calls"), 1);
    CHECK_INT(num(inner, "total_ns"), 4);
    CHECK_INT(num(kid(inner, 0), "total_ns"), 1);
    json_decref(j);
    tree_free(t);
}

/* levels nested calls of A under the entry method (levels - 1 of them), as
 * a tree; NULL when it could not be built. */
static tree *chain(int levels)
{
    static probe_ev big[2 * 128];
    tree_opts o = {.cal = {.ns_per_tick = 1.0}};
    mct_err err = {0};
    tree *t;
    size_t n = 0;
    int i;

    big[n++] = (probe_ev){.t = 0, .id = ROOT, .kind = PROBE_ROOT_ENTER};
    for (i = 1; i < levels; i++)
        big[n++] = (probe_ev){.t = (uint64_t)i, .id = A, .kind = PROBE_ENTER};
    for (i = 1; i < levels; i++)
        big[n++] = (probe_ev){.t = 1000 + (uint64_t)i, .id = A, .kind = PROBE_EXIT};
    big[n++] = (probe_ev){.t = 2000, .id = ROOT, .kind = PROBE_ROOT_EXIT};
    t = tree_build(big, n, &o, &err);
    if (t == NULL)
        CHECK(strstr(err.msg, "nests deeper than 64 levels") != NULL);
    return t;
}

/* A tree the call model can hold is written in both encodings, which hold
 * the same call; one it cannot (deeper than 64 levels) is refused once, by
 * the tree builder, so that neither encoding is written: the JSON of a
 * call can no longer be sent where its compact record could not. */
static void test_depth(void)
{
    tree *t = chain(CALL_MAX_DEPTH), *deeper = chain(CALL_MAX_DEPTH + 1);
    call_tab tab = {0}, back_tab = {0};
    mct_call c = {0}, back = {0};
    call_defs defs = {0};
    mct_buf b = {0}, line = {0}, back_line = {0};
    size_t pos = 0;
    mct_err err;
    int rc = -1;

    CHECK(t != NULL && deeper == NULL);
    if (t == NULL)
        goto out;
    CHECK_INT(tree_call(t, &tab, &c, 1, 2, "main", NULL, &err), 0);
    CHECK_INT(c.n_nodes, CALL_MAX_DEPTH);
    CHECK_INT(call_encode(&b, &tab, &defs, &c), 0);
    while (pos < b.len) {
        uint32_t len;

        CHECK_INT(proto_header_decode(b.data + pos, PROTO_REPLY, &len, &err), 0);
        rc = call_decode(&back_tab, &back, b.data + pos + PROTO_HEADER_LEN, len, &err);
        CHECK(rc > 0);
        pos += PROTO_HEADER_LEN + len;
    }
    CHECK_INT(rc, CALL_REC);
    CHECK_INT(call_json_line(&line, &tab, &c), 0);
    CHECK_INT(call_json_line(&back_line, &back_tab, &back), 0);
    CHECK(line.len == back_line.len && memcmp(line.data, back_line.data, line.len) == 0);
out:
    tree_free(t);
    tree_free(deeper);
    call_free(&c);
    call_free(&back);
    call_tab_free(&tab);
    call_tab_free(&back_tab);
    call_defs_free(&defs);
    buf_free(&b);
    buf_free(&line);
    buf_free(&back_line);
}

static void test_bad_events(void)
{
    tree_opts o = {.cal = {.ns_per_tick = 1.0}};
    mct_err err;

    n_ev = 0;
    ev(PROBE_ENTER, A, 0);
    ev(PROBE_EXIT, A, 1);
    CHECK(tree_build(ev_buf, n_ev, &o, &err) == NULL);
    n_ev = 0;
    ev(PROBE_ROOT_ENTER, ROOT, 0);
    ev(PROBE_ROOT_EXIT, ROOT, 1);
    ev(PROBE_ENTER, A, 2);
    CHECK(tree_build(ev_buf, n_ev, &o, &err) == NULL);
    CHECK(strstr(err.msg, "follows the end") != NULL);
}

/* A wide tree: many distinct children under one parent stay merged (past
 * the few found by a scan, through the children table), in order; and
 * again when the tree is rebuilt from another wide call. */
static void test_wide(void)
{
    static probe_ev big[2 + 2 * 3000];
    tree_opts o = {.cal = {.ns_per_tick = 1.0}};
    int32_t ids[100];
    mct_err err;
    size_t n = 0;
    tree *t;
    int i;

    for (i = 0; i < 100; i++) {
        char name[16];

        snprintf(name, sizeof name, "m%d", i);
        ids[i] = mt_add("com/shop/Wide", name, "()V", 1, 0, &err);
    }
    big[n++] = (probe_ev){.t = 0, .id = ROOT, .kind = PROBE_ROOT_ENTER};
    for (i = 0; i < 3000; i++) {
        big[n++] = (probe_ev){.t = 10 + 2 * (uint64_t)i, .id = ids[i % 100], .kind = PROBE_ENTER};
        big[n++] = (probe_ev){.t = 11 + 2 * (uint64_t)i, .id = ids[i % 100], .kind = PROBE_EXIT};
    }
    big[n++] = (probe_ev){.t = 10000, .id = ROOT, .kind = PROBE_ROOT_EXIT};
    t = tree_build(big, n, &o, &err);
    CHECK(t != NULL);
    if (t != NULL) {
        json_t *j = render(t, NULL), *root = json_object_get(j, "root");

        CHECK_INT(tree_nodes(t), 101);
        CHECK_INT(json_array_size(json_object_get(root, "children")), 100);
        for (i = 0; i < 100 && j != NULL; i++) {
            char name[16];

            snprintf(name, sizeof name, "m%d", i);
            CHECK_STR(json_string_value(json_object_get(kid(root, (size_t)i), "method")), name);
            CHECK_INT(num(kid(root, (size_t)i), "calls"), 30);
        }
        json_decref(j);
    }
    /* The same tree rebuilt from another wide call (its children table
     * kept, emptied): 60 of the methods, the last first. */
    n = 0;
    big[n++] = (probe_ev){.t = 0, .id = ROOT, .kind = PROBE_ROOT_ENTER};
    for (i = 0; i < 600; i++) {
        big[n++] = (probe_ev){.t = 10 + 2 * (uint64_t)i, .id = ids[99 - i % 60], .kind = PROBE_ENTER};
        big[n++] = (probe_ev){.t = 11 + 2 * (uint64_t)i, .id = ids[99 - i % 60], .kind = PROBE_EXIT};
    }
    big[n++] = (probe_ev){.t = 10000, .id = ROOT, .kind = PROBE_ROOT_EXIT};
    if (t != NULL && tree_rebuild(t, big, n, &o, &err) == 0) {
        json_t *j = render(t, NULL), *root = json_object_get(j, "root");

        CHECK_INT(tree_nodes(t), 61);
        CHECK_INT(json_array_size(json_object_get(root, "children")), 60);
        for (i = 0; i < 60 && j != NULL; i++) {
            char name[16];

            snprintf(name, sizeof name, "m%d", 99 - i);
            CHECK_STR(json_string_value(json_object_get(kid(root, (size_t)i), "method")), name);
            CHECK_INT(num(kid(root, (size_t)i), "calls"), 10);
        }
        json_decref(j);
    } else {
        CHECK(0);
    }
    tree_free(t);
}

/* Checks SPEC 3's arithmetic on a rendered node and its subtree: self is
 * total minus the children, and the children never exceed the node. */
static void check_node(json_t *n)
{
    json_t *kids = json_object_get(n, "children");
    json_int_t kids_total = 0;
    size_t i;

    for (i = 0; i < json_array_size(kids); i++) {
        check_node(json_array_get(kids, i));
        kids_total += num(json_array_get(kids, i), "total_ns");
    }
    CHECK(kids_total <= num(n, "total_ns"));
    CHECK_INT(num(n, "self_ns"), num(n, "total_ns") - kids_total);
    CHECK(num(n, "min_ns") <= num(n, "max_ns"));
    CHECK(num(n, "min_ns") * num(n, "calls") <= num(n, "total_ns"));
}

/* Random trees, a TSC-like tick (0.37 ns) and random probe costs: the
 * invariants hold on every node, whatever the rounding. */
static void test_invariants(void)
{
    static probe_ev big[4096];
    unsigned seed = 12345;
    int round;

    for (round = 0; round < 300; round++) {
        tree_opts o = {.cal = {.ns_per_tick = 0.37 + (round % 7) * 0.9}};
        int32_t stack[8];
        int sp = 0;
        size_t n = 0;
        uint64_t now = 0;
        mct_err err;
        tree *t;
        json_t *j;

        o.probe_ticks = (seed = seed * 1103515245 + 12345) >> 28;
        big[n++] = (probe_ev){.t = now, .id = ROOT, .kind = PROBE_ROOT_ENTER};
        while (n < 4000) {
            unsigned r = (seed = seed * 1103515245 + 12345) >> 16;

            now += r % 5;
            if (sp < 8 && (r & 3) != 0) {
                stack[sp] = (int32_t)(1 + (r >> 4) % 3);
                big[n++] = (probe_ev){.t = now, .id = stack[sp++], .kind = PROBE_ENTER};
            } else if (sp > 0) {
                sp--;
                big[n++] = (probe_ev){.t = now, .id = stack[sp], .kind = (r & 64) ? PROBE_FAIL : PROBE_EXIT};
            } else {
                break;
            }
        }
        while (sp > 0) {
            sp--;
            big[n++] = (probe_ev){.t = ++now, .id = stack[sp], .kind = PROBE_EXIT};
        }
        big[n++] = (probe_ev){.t = now + 3, .id = ROOT, .kind = PROBE_ROOT_EXIT};
        t = tree_build(big, n, &o, &err);
        CHECK(t != NULL);
        if (t == NULL)
            continue;
        j = tree_to_json(t, 1, 1, "t", NULL, 1);
        check_node(json_object_get(j, "root"));
        json_decref(j);
        tree_free(t);
    }
}

/* Names as class files hold them (modified UTF-8: a surrogate pair, the
 * two bytes of U+0000, a lone surrogate) render as UTF-8; before, such a
 * name made the whole tree unrenderable. */
static void test_names(void)
{
    mct_err err;
    int32_t r = mt_add("tgt/\xed\xa0\xb5\xed\xb1\x93", "nul\xc0\x80name", "(Ltgt/\xed\xa0\xb5;)V", 1, 1, &err);
    json_t *j, *root;
    tree *t;

    CHECK(r >= 0);
    n_ev = 0;
    ev(PROBE_ROOT_ENTER, r, 0);
    ev(PROBE_ENTER, A, 10);
    ev(PROBE_EXIT, A, 20);
    ev(PROBE_ROOT_EXIT, r, 30);
    t = build(0);
    CHECK(t != NULL);
    if (t == NULL)
        return;
    j = tree_to_json(t, 1, 1, "main", "java.lang.Illegal\xc0\x80State", 1);
    CHECK(j != NULL);
    root = json_object_get(j, "root");
    CHECK_STR(json_string_value(json_object_get(root, "class")), "tgt.\xf0\x9d\x91\x93");
    CHECK_STR(json_string_value(json_object_get(root, "method")), "nul\xe2\x90\x80name");
    CHECK_STR(json_string_value(json_object_get(root, "desc")), "(Ltgt/\xef\xbf\xbd;)V");
    CHECK_STR(json_string_value(json_object_get(root, "exception")), "java.lang.Illegal\xe2\x90\x80State");
    CHECK_STR(json_string_value(json_object_get(kid(root, 0), "method")), "a");
    json_decref(j);
    tree_free(t);
}

int main(void)
{
    mct_err err;

    ROOT = mt_add("com/shop/Cart", "total", "()J", 1, 1, &err);
    A = mt_add("com/shop/Cart", "a", "()V", 1, 0, &err);
    B = mt_add("com/shop/Price", "b", "(J)J", 1, 0, &err);
    C = mt_add("com/shop/Line", "<init>", "()V", 1, 0, &err);
    CHECK(ROOT == 0 && C == 3);
    CHECK(mt_get(4) == NULL);
    CHECK(mt_get(-1) == NULL);
    /* A method keeps its number across sessions, which mark it as theirs. */
    CHECK_INT(mt_add("com/shop/Price", "b", "(J)J", 7, 1, &err), B);
    CHECK_INT(atomic_load(&mt_get(B)->session), 7);
    CHECK_INT(atomic_load(&mt_get(B)->root), 1);
    CHECK_INT(mt_add("com/shop/Price", "b", "(J)J", 1, 0, &err), B);
    CHECK_INT(atomic_load(&mt_get(B)->root), 0);
    CHECK_INT(mt_add("com/shop/Price", "b", "(I)J", 1, 0, &err), 4);
    CHECK_INT(mt_add("com.shop.Price", "b", "(J)J", 1, 0, &err), B); /* dotted or not, one class */
    CHECK_INT(mt_count(), 5);
    CHECK_STR(mt_get(4)->cls, "com.shop.Price");
    test_merge_and_order();
    test_throws();
    test_cpu();
    test_alloc();
    test_truncated();
    test_probe_cost();
    test_recursion();
    test_depth();
    test_bad_events();
    test_wide();
    test_invariants();
    test_names();
    return check_status();
}
