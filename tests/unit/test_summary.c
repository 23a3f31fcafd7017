/* test_summary.c — protocol/summary: the histogram's quantiles against the
 * exact quantiles of sorted samples, the summary tree's exact counts on
 * hand-made calls, the methods array, slowest K, merge, the JSON round trip
 * and the rejection of malformed summaries and calls, each with its message;
 * the budget: paths without end (recursion) fold into other nodes, counted,
 * with every call and its self time still in the tree, in bounded memory;
 * CPU times and allocations per node (--cpu, --alloc); a node's buckets
 * found from a guess as by a search. */
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "call.h"
#include "summary.h"
#include "readcall.h"

/* ---- histogram ---------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Adds the summary object j to dst: its text read (sum_read_text), then
 * merged, as the several-JVM form merges them. 0 or -1 with e. */
static int merge_json(sum *dst, const json_t *j, mct_err *e)
{
    char *text = json_dumps(j, JSON_COMPACT);
    struct sum_info info;
    sum *src = text != NULL ? sum_read_text(text, strlen(text), &info, e) : NULL;
    int rc = src == NULL ? -1 : sum_merge(dst, src, e);

    sum_free(src);
    free(text);
    return rc;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* The nearest-rank q-quantile of the n sorted samples. */
static uint64_t exact_quantile(const uint64_t *sorted, size_t n, double q)
{
    size_t rank;

    if (q <= 0)
        return sorted[0];
    rank = (size_t)ceil(q * (double)n);
    return sorted[(rank < 1 ? 1 : rank > n ? n : rank) - 1];
}

enum dist { UNIFORM, LOG_UNIFORM, CONSTANT, BIMODAL, BOUNDARIES, SMALL, HUGE, ONE };
static const char *const dist_name[] = { "uniform", "log-uniform", "constant", "bimodal",
                                         "boundaries", "small", "huge", "one sample" };

static uint64_t sample(enum dist d, size_t i)
{
    switch (d) {
    case UNIFORM: return rng() % ((uint64_t)1 << 40);
    case LOG_UNIFORM: return (rng() >> 1) >> (rng() % 63);
    case CONSTANT: return 1234567;
    case BIMODAL: return i % 100 < 98 ? 1 : (uint64_t)1 << 44;
    case BOUNDARIES: {
        uint64_t p = (uint64_t)1 << (1 + i % 62);
        return p - 1 + (i / 62) % 3;            /* 2^k - 1, 2^k, 2^k + 1 */
    }
    case SMALL: return rng() % 200;
    case HUGE: return INT64_MAX - rng() % 1000000;
    default: return 42;
    }
}

/* Quantiles of every distribution against the sorted samples, directly and
 * after a merge of two halves. */
static void test_hist_quantiles(void)
{
    static const double qs[] = { 0, 0.001, 0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 1 };
    static const size_t sizes[] = { 1, 7, 1000, 100003 };

    for (int d = UNIFORM; d <= ONE; d++) {
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            size_t n = d == ONE ? 1 : sizes[si];
            uint64_t *v = malloc(n * sizeof *v);
            struct sum_hist h, a, b;
            mct_err e;

            sum_hist_init(&h);
            sum_hist_init(&a);
            sum_hist_init(&b);
            for (size_t i = 0; i < n; i++) {
                v[i] = sample(d, i);
                CHECK(sum_hist_record(&h, v[i], &e) == 0);
                CHECK(sum_hist_record(i % 2 ? &a : &b, v[i], &e) == 0);
            }
            CHECK(sum_hist_merge(&a, &b, &e) == 0);
            qsort(v, n, sizeof *v, cmp_u64);
            CHECK_INT(h.count, n);
            CHECK(h.min == v[0] && h.max == v[n - 1]);
            for (size_t qi = 0; qi < sizeof qs / sizeof qs[0]; qi++) {
                uint64_t want = exact_quantile(v, n, qs[qi]);
                uint64_t got = sum_hist_quantile(&h, qs[qi]);
                double err = fabs((double)got - (double)want);

                if (err > (double)want * SUM_HIST_REL_ERR) {
                    fprintf(stderr, "%s n=%zu q=%g: got %llu, want %llu\n", dist_name[d], n, qs[qi],
                            (unsigned long long)got, (unsigned long long)want);
                    check_failures++;
                }
                CHECK(sum_hist_quantile(&a, qs[qi]) == got);
            }
            sum_hist_reset(&h);
            sum_hist_reset(&a);
            sum_hist_reset(&b);
            CHECK_INT(h.count, 0);
            CHECK_INT(sum_hist_quantile(&h, 0.5), 0);
            free(v);
            if (d == ONE)
                break;
        }
    }
}

/* ---- the summary tree ----------------------------------------------------- */

/* A percentile within the histogram's stated error of want. */
#define CHECK_NEAR(got, want) CHECK(fabs((double)(got) - (double)(want)) <= (double)(want) * SUM_HIST_REL_ERR)

/* A call object whose root is the JSON text root. */
static json_t *call_of(const char *root)
{
    char buf[4096];
    json_error_t je;
    json_t *j;

    snprintf(buf, sizeof buf,
             "{\"type\":\"call\",\"seq\":1,\"thread\":{\"id\":1,\"name\":\"main\"},"
             "\"start_ns\":5,\"root\":%s}", root);
    j = json_loads(buf, 0, &je);
    if (j == NULL)
        fprintf(stderr, "bad test JSON: %s: %s\n", je.text, buf);
    return j;
}

/* A node's text: class C, method m, figures, children kids. */
#define NODE(c, m, calls, total, self, mn, mx, throws, kids)                                  \
    "{\"class\":\"" c "\",\"method\":\"" m "\",\"desc\":\"()V\",\"calls\":" #calls             \
    ",\"total_ns\":" #total ",\"self_ns\":" #self ",\"min_ns\":" #mn ",\"max_ns\":" #mx        \
    ",\"throws\":" #throws ",\"children\":[" kids "]}"

static int sum_adder(void *s, const call_tab *t, const mct_call *c, mct_err *e)
{
    return sum_add_call(s, t, c, e);
}

/* Reads call j and adds it to s; 0, or -1 with e set. */
static int add_json(sum *s, const json_t *j, mct_err *e)
{
    return readcall(j, sum_adder, s, e);
}

static void add(sum *s, const char *root)
{
    json_t *c = call_of(root);
    mct_err e;

    CHECK(c != NULL);
    if (add_json(s, c, &e) < 0) {
        fprintf(stderr, "adding a call: %s\n", e.msg);
        check_failures++;
    }
    json_decref(c);
}

/* The child of node named m (first match), or NULL. */
static const json_t *kid(const json_t *node, const char *m)
{
    const json_t *kids = json_object_get(node, "children");

    for (size_t i = 0; i < json_array_size(kids); i++)
        if (strcmp(json_string_value(json_object_get(json_array_get(kids, i), "method")), m) == 0)
            return json_array_get(kids, i);
    return NULL;
}

static long long geti(const json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

/* Three entry calls of E: A 3x (B under it 2x), 5x, absent; B directly
 * under E in the third; C throws in the second. */
static void add_three(sum *s)
{
    add(s, NODE("t.E", "run", 1, 1000, 100, 1000, 1000, 0,
                NODE("t.A", "a", 3, 600, 400, 100, 300, 0, NODE("t.B", "b", 2, 200, 200, 50, 150, 0, ""))
                "," NODE("t.C", "c", 1, 300, 300, 300, 300, 0, "")));
    add(s, NODE("t.E", "run", 1, 2000, 100, 2000, 2000, 0,
                NODE("t.C", "c", 2, 900, 900, 400, 500, 1, "")
                "," NODE("t.A", "a", 5, 1000, 1000, 100, 400, 0, "")));
    add(s, NODE("t.E", "run", 1, 500, 100, 500, 500, 0, NODE("t.B", "b", 4, 400, 400, 100, 100, 0, "")));
}

static void test_counts(void)
{
    mct_err e;
    sum *s = sum_new(2, &e);
    json_t *j;
    const json_t *root, *a, *b, *c, *methods;

    add_three(s);
    CHECK_INT(sum_calls(s), 3);
    sum_add_not_traced(s, 2);
    j = sum_to_json(s, 1, &e);
    CHECK(j != NULL);
    CHECK(sum_json_check(j, &e) == 0);
    CHECK_INT(geti(j, "calls"), 3);
    CHECK_INT(geti(j, "not_traced"), 2);
    CHECK(json_is_true(json_object_get(j, "final")));
    root = json_object_get(j, "root");
    CHECK_INT(geti(root, "calls"), 3);
    CHECK_INT(geti(root, "entries"), 3);
    CHECK_INT(geti(root, "total_ns"), 3500);
    CHECK_INT(geti(root, "min_ns"), 500);
    CHECK_INT(geti(root, "max_ns"), 2000);
    CHECK_INT(geti(root, "entry_max_ns"), 2000);
    CHECK_NEAR(geti(root, "p50_ns"), 1000);
    CHECK_INT(geti(root, "p99_ns"), 2000);
    /* children in order of first appearance: A, C (first call), B (third) */
    CHECK_INT(json_array_size(json_object_get(root, "children")), 3);
    CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(root, "children"), 0), "method")), "a");
    CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(root, "children"), 1), "method")), "c");
    CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(root, "children"), 2), "method")), "b");
    a = kid(root, "a");
    CHECK_INT(geti(a, "calls"), 8);
    CHECK_INT(geti(a, "entries"), 2);
    CHECK_INT(geti(a, "calls_min"), 3);
    CHECK_INT(geti(a, "calls_max"), 5);
    CHECK_INT(geti(a, "min_ns"), 100);
    CHECK_INT(geti(a, "max_ns"), 400);
    CHECK_INT(geti(a, "self_ns"), 1400);
    CHECK_NEAR(geti(a, "p50_ns"), 600);
    CHECK_INT(geti(a, "entry_max_ns"), 1000);
    CHECK_INT(geti(kid(a, "b"), "entries"), 1);
    c = kid(root, "c");
    CHECK_INT(geti(c, "throws"), 1);
    CHECK_INT(geti(c, "calls_min"), 1);
    CHECK_INT(geti(c, "calls_max"), 2);
    b = kid(root, "b");
    CHECK_INT(geti(b, "calls_min"), 4);
    CHECK_INT(geti(b, "entries"), 1);
    /* methods: t.B.b ran 2x in the first call (under A), 4x in the third */
    methods = json_object_get(j, "methods");
    CHECK_INT(json_array_size(methods), 4);
    for (size_t i = 0; i < json_array_size(methods); i++) {
        const json_t *m = json_array_get(methods, i);
        const char *name = json_string_value(json_object_get(m, "method"));

        if (strcmp(name, "b") == 0) {
            CHECK_INT(geti(m, "calls"), 6);
            CHECK_INT(geti(m, "calls_max"), 4);
            CHECK_INT(geti(m, "entries"), 2);
        } else if (strcmp(name, "a") == 0) {
            CHECK_INT(geti(m, "calls_max"), 5);
        }
    }
    /* slowest 2: the calls of 2000 and 1000 ns, slowest first */
    CHECK_INT(json_array_size(json_object_get(j, "slowest")), 2);
    CHECK_INT(geti(json_object_get(json_array_get(json_object_get(j, "slowest"), 0), "root"), "total_ns"), 2000);
    CHECK_INT(geti(json_object_get(json_array_get(json_object_get(j, "slowest"), 1), "root"), "total_ns"), 1000);
    json_decref(j);

    /* reset keeps nothing */
    sum_reset(s);
    CHECK_INT(sum_calls(s), 0);
    j = sum_to_json(s, 0, &e);
    CHECK(json_is_null(json_object_get(j, "root")));
    CHECK_INT(json_array_size(json_object_get(j, "methods")), 0);
    CHECK_INT(json_array_size(json_object_get(j, "slowest")), 0);
    CHECK_INT(geti(j, "not_traced"), 0);
    CHECK(sum_json_check(j, &e) == 0);
    json_decref(j);
    sum_free(s);
}

/* A merge of two summaries is the summary of all their calls; truncated
 * and warmup calls count; overloads of the entry method are more roots. */
static void test_merge_and_roots(void)
{
    mct_err e;
    sum *all = sum_new(3, &e), *x = sum_new(3, &e), *y = sum_new(3, &e);
    json_t *ja, *jx;

    add_three(all);
    add_three(x);
    add(all, "{\"class\":\"t.E\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":9,"
             "\"self_ns\":9,\"min_ns\":9,\"max_ns\":9,\"throws\":0,\"truncated\":true,\"warmup\":true,"
             "\"children\":[]}");
    add(y, "{\"class\":\"t.E\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":9,"
           "\"self_ns\":9,\"min_ns\":9,\"max_ns\":9,\"throws\":0,\"truncated\":true,\"warmup\":true,"
           "\"children\":[]}");
    add(all, "{\"class\":\"t.E\",\"method\":\"run\",\"desc\":\"(I)V\",\"calls\":1,\"total_ns\":7,"
             "\"self_ns\":7,\"min_ns\":7,\"max_ns\":7,\"throws\":0,\"children\":[]}");
    add(y, "{\"class\":\"t.E\",\"method\":\"run\",\"desc\":\"(I)V\",\"calls\":1,\"total_ns\":7,"
           "\"self_ns\":7,\"min_ns\":7,\"max_ns\":7,\"throws\":0,\"children\":[]}");
    CHECK(sum_merge(x, y, &e) == 0);
    ja = sum_to_json(all, 1, &e);
    jx = sum_to_json(x, 1, &e);
    CHECK(ja != NULL && jx != NULL && json_equal(ja, jx));
    CHECK_INT(geti(ja, "calls"), 5);
    CHECK(json_is_true(json_object_get(json_object_get(ja, "root"), "truncated")));
    CHECK_INT(geti(json_object_get(ja, "root"), "entries"), 4);
    CHECK_INT(json_array_size(json_object_get(ja, "more_roots")), 1);
    CHECK(sum_json_check(ja, &e) == 0);
    json_decref(ja);
    json_decref(jx);
    sum_free(all);
    sum_free(x);
    sum_free(y);
}

/* Reads summary object j's text (sum_read) and merges it into m
 * (sum_merge), as mcalltree merge does; 0 or -1 with e. */
static int merge_text(sum *m, const json_t *j, mct_err *e)
{
    char *text = json_dumps(j, JSON_COMPACT);
    sum *r = sum_new(SUM_SLOWEST_MAX, e);
    struct sum_info info;
    jtok t;
    int rc = -1;

    if (text != NULL && r != NULL) {
        jt_init_mem(&t, text, strlen(text), SIZE_MAX);
        rc = sum_read(r, &t, SUM_READ_SLOWEST, &info, e) < 0 ? -1 : sum_merge(m, r, e);
        jt_free(&t);
    }
    free(text);
    sum_free(r);
    return rc;
}

/* A task handed off (an async node) is an async node of the summary, kept
 * when a call runs the same method under the same node synchronously (the
 * node merges both), in the summary's text read back and merged, and the
 * nodes under it are not async. */
static void test_async_mark(void)
{
    static const char task[] = "{\"class\":\"java.lang.Runnable\",\"method\":\"run\",\"desc\":\"()V\","
        "\"calls\":1,\"total_ns\":40,\"self_ns\":30,\"min_ns\":40,\"max_ns\":40,\"throws\":0,"
        "\"async\":true,\"handoff_ns\":2,\"queued_ns\":3,\"thread\":\"w-1\",\"children\":["
        NODE("t.A", "a", 1, 10, 10, 10, 10, 0, "") "]}";
    static const char inline_run[] = NODE("java.lang.Runnable", "run", 1, 5, 5, 5, 5, 0, "");
    char root[1024];
    mct_err e;
    sum *s = sum_new(1, &e), *m = sum_new(1, &e);
    json_t *j, *jm;

    snprintf(root, sizeof root, "{\"class\":\"t.E\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":1,"
             "\"total_ns\":100,\"self_ns\":100,\"min_ns\":100,\"max_ns\":100,\"throws\":0,\"children\":[%s]}",
             task);
    add(s, root);
    j = sum_to_json(s, 1, &e);
    CHECK(j != NULL && json_is_true(json_object_get(kid(json_object_get(j, "root"), "run"), "async")));
    CHECK(json_object_get(json_object_get(j, "root"), "async") == NULL);
    CHECK(json_object_get(kid(kid(json_object_get(j, "root"), "run"), "a"), "async") == NULL);
    CHECK(j != NULL && sum_json_check(j, &e) == 0);
    CHECK(merge_text(m, j, &e) == 0);
    jm = sum_to_json(m, 1, &e);
    CHECK(jm != NULL && json_equal(j, jm));
    json_decref(jm);
    json_decref(j);
    snprintf(root, sizeof root, "{\"class\":\"t.E\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":1,"
             "\"total_ns\":100,\"self_ns\":95,\"min_ns\":100,\"max_ns\":100,\"throws\":0,\"children\":[%s]}",
             inline_run);
    add(s, root);
    j = sum_to_json(s, 1, &e);
    CHECK(j != NULL && json_is_true(json_object_get(kid(json_object_get(j, "root"), "run"), "async")));
    CHECK_INT(geti(kid(json_object_get(j, "root"), "run"), "calls"), 2);
    json_decref(j);
    sum_free(s);
    sum_free(m);
}

/* Summaries merged from their text (sum_read, sum_merge) equal one summary over
 * all their calls: counts, both histograms, slowest; and the calls-per-entry
 * distribution is in calls_hist. A summary without histograms is refused. */
static void test_merge_json(void)
{
    mct_err e;
    sum *all = sum_new(2, &e), *x = sum_new(2, &e), *y = sum_new(2, &e), *m = sum_new(2, &e);
    json_t *jx, *jy, *ja, *jm, *a;

    add_three(all);
    add_three(all);
    add_three(x);
    add_three(y);
    jx = sum_to_json(x, 0, &e);
    jy = sum_to_json(y, 1, &e);
    CHECK(jx != NULL && jy != NULL && sum_json_check(jx, &e) == 0);
    CHECK(merge_text(m, jx, &e) == 0 && merge_text(m, jy, &e) == 0);
    ja = sum_to_json(all, 1, &e);
    jm = sum_to_json(m, 1, &e);
    CHECK(ja != NULL && jm != NULL && json_equal(ja, jm));
    a = json_object_get(kid(json_object_get(ja, "root"), "a"), "calls_hist");
    CHECK_INT(json_array_size(a), 4);           /* 3 and 5 calls, twice each */
    CHECK_INT(json_integer_value(json_array_get(a, 0)), 3);
    CHECK_INT(json_integer_value(json_array_get(a, 1)), 2);
    CHECK_INT(json_integer_value(json_array_get(a, 2)), 5);
    json_object_del(json_object_get(jx, "root"), "hist");
    CHECK(merge_text(m, jx, &e) < 0 && e.code == MCT_E_PROTO && strstr(e.msg, "older") != NULL);
    json_decref(jx);
    json_decref(jy);
    json_decref(ja);
    json_decref(jm);
    sum_free(all);
    sum_free(x);
    sum_free(y);
    sum_free(m);
}

/* A summary rendered, parsed back and checked is the same object. */
static void test_round_trip(void)
{
    mct_err e;
    sum *s = sum_new(1, &e);
    json_t *j, *back;
    char *text;

    add_three(s);
    j = sum_to_json(s, 0, &e);
    text = json_dumps(j, JSON_COMPACT);
    back = json_loads(text, 0, NULL);
    CHECK(back != NULL && sum_json_check(back, &e) == 0 && json_equal(j, back));
    free(text);
    json_decref(back);
    json_decref(j);
    sum_free(s);
}

/* Slowest K keeps the K largest whole, slowest first. */
static void test_slowest(void)
{
    static const int totals[] = { 50, 10, 90, 70, 20, 90, 30, 100, 60, 40 };
    mct_err e;
    sum *s = sum_new(3, &e);
    json_t *j;
    char root[512];

    CHECK(sum_new(SUM_SLOWEST_MAX + 1, &e) == NULL && strstr(e.msg, "at most 1000") != NULL);
    for (size_t i = 0; i < sizeof totals / sizeof totals[0]; i++) {
        snprintf(root, sizeof root,
                 "{\"class\":\"t.E\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":%d,"
                 "\"self_ns\":%d,\"min_ns\":%d,\"max_ns\":%d,\"throws\":0,\"children\":[]}",
                 totals[i], totals[i], totals[i], totals[i]);
        add(s, root);
    }
    CHECK(sum_slowest_wants(s, 91) && !sum_slowest_wants(s, 90));
    j = sum_to_json(s, 1, &e);
    CHECK_INT(json_array_size(json_object_get(j, "slowest")), 3);
    CHECK_INT(geti(json_object_get(json_array_get(json_object_get(j, "slowest"), 0), "root"), "total_ns"), 100);
    CHECK_INT(geti(json_object_get(json_array_get(json_object_get(j, "slowest"), 1), "root"), "total_ns"), 90);
    CHECK_INT(geti(json_object_get(json_array_get(json_object_get(j, "slowest"), 2), "root"), "total_ns"), 90);
    json_decref(j);
    sum_free(s);
}

/* The visitor refuses calls out of order and trees too deep. */
static void test_visitor_errors(void)
{
    struct sum_fig f = { "t.E", "run", "()V", 1, 1, 1, 1, 1, 0, 0, 0, { 0 }, 0 };
    mct_err e;
    sum *s = sum_new(0, &e);

    CHECK(sum_enter(s, &f, &e) < 0 && strstr(e.msg, "outside a call") != NULL);
    CHECK(sum_begin(s, &e) == 0);
    CHECK(sum_end(s, &e) < 0 && strstr(e.msg, "without a root") != NULL);
    for (int i = 0; i < 64; i++)
        CHECK(sum_enter(s, &f, &e) == 0);
    CHECK(sum_enter(s, &f, &e) < 0 && strstr(e.msg, "deeper than 64") != NULL);
    sum_free(s);
}

/* ---- rejection of malformed input ------------------------------------------ */

#define GOOD_NODE "\"class\":\"t.E\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":2,\"total_ns\":10," \
    "\"self_ns\":10,\"min_ns\":5,\"max_ns\":5,\"throws\":0,\"entries\":2,\"calls_min\":1,"          \
    "\"calls_max\":1,\"p50_ns\":5,\"p90_ns\":5,\"p99_ns\":5,\"entry_max_ns\":5"
#define SUMMARY_HEAD "{\"type\":\"summary\",\"final\":true,\"calls\":2,\"not_traced\":0,"
#define GOOD_METHODS "\"methods\":[{\"class\":\"t.E\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":2,\"calls_max\":1,\"entries\":2}]"

static const struct bad {
    const char *json;
    const char *msg;
} bad_summaries[] = {
    { "[]", "summary: not a JSON object" },
    { "{\"type\":\"call\"}", "summary: type: not \"summary\"" },
    { "{\"type\":\"summary\"}", "summary: final: missing (true or false)" },
    { "{\"type\":\"summary\",\"final\":1}", "summary: final: not true or false" },
    { "{\"type\":\"summary\",\"final\":true,\"calls\":-1}", "summary: calls: not an integer >= 0" },
    { "{\"type\":\"summary\",\"final\":true,\"calls\":1.5}", "summary: calls: not an integer >= 0" },
    { SUMMARY_HEAD "\"methods\":[],\"slowest\":[]}", "summary: root: missing" },
    { SUMMARY_HEAD "\"root\":null,\"methods\":[],\"slowest\":[]}", "summary: root: null although calls is 2" },
    { "{\"type\":\"summary\",\"final\":true,\"calls\":0,\"not_traced\":0,\"root\":{},\"methods\":[],\"slowest\":[]}",
      "summary: root: not null although calls is 0" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"children\":{}}," GOOD_METHODS ",\"slowest\":[]}",
      "summary: root.children: not an array" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"children\":[{" GOOD_NODE ",\"children\":[3]}]}," GOOD_METHODS ",\"slowest\":[]}",
      "summary: root.children[0].children[0]: not an object (a node)" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"children\":[{" GOOD_NODE ",\"calls\":\"2\",\"children\":[]}]}," GOOD_METHODS ",\"slowest\":[]}",
      "summary: root.children[0].calls: not an integer >= 0" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"class\":\"\",\"children\":[]}," GOOD_METHODS ",\"slowest\":[]}",
      "summary: root.class: a string of 0 bytes, not 1 to 65535" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"entries\":3,\"children\":[]}," GOOD_METHODS ",\"slowest\":[]}",
      "summary: root.entries: 3, not between 1 and the summary's calls (2)" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"calls_min\":2,\"children\":[]}," GOOD_METHODS ",\"slowest\":[]}",
      "summary: root.calls_min: 2, more than calls_max (1)" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"p90_ns\":4,\"children\":[]}," GOOD_METHODS ",\"slowest\":[]}",
      "summary: root.p50_ns: p50_ns <= p90_ns <= p99_ns <= entry_max_ns does not hold" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"p99_ns\":null,\"children\":[]}," GOOD_METHODS ",\"slowest\":[]}",
      "summary: root.p99_ns: not an integer >= 0" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"truncated\":1,\"children\":[]}," GOOD_METHODS ",\"slowest\":[]}",
      "summary: root.truncated: not true or false" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"async\":1,\"children\":[]}," GOOD_METHODS ",\"slowest\":[]}",
      "summary: root.async: not true or false" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"children\":[]},\"slowest\":[]}", "summary: methods: missing (an array)" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"children\":[]},\"methods\":[{\"class\":\"t.E\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":1,\"calls_max\":2,\"entries\":1}],\"slowest\":[]}",
      "summary: methods[0].calls_max: 2, more than calls (1)" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"children\":[]}," GOOD_METHODS "}", "summary: slowest: missing (an array)" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"children\":[]}," GOOD_METHODS ",\"slowest\":[{\"type\":\"call\",\"seq\":1,\"thread\":{\"id\":1,\"name\":\"m\"},\"start_ns\":1}]}",
      "summary: slowest[0].root: missing (a node)" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"children\":[]}," GOOD_METHODS ",\"slowest\":[{\"type\":\"call\",\"seq\":1,\"thread\":{\"id\":-1},\"start_ns\":1}]}",
      "summary: slowest[0].thread.id: not an integer >= 0" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"children\":[]},\"more_roots\":{}," GOOD_METHODS ",\"slowest\":[]}",
      "summary: more_roots: not an array of nodes after a root" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"children\":[]}," GOOD_METHODS ",\"slowest\":[],\"warmup\":-1}",
      "summary: warmup: not an integer >= 0" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"children\":[]}," GOOD_METHODS ",\"slowest\":[],\"seen\":\"x\"}",
      "summary: seen: not an integer >= 0" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"hist\":[5],\"children\":[]}," GOOD_METHODS ",\"slowest\":[]}",
      "summary: root.hist: not an array of bucket, count, bucket, count, ..." },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"hist\":[5,1,4,1],\"children\":[]}," GOOD_METHODS ",\"slowest\":[]}",
      "summary: root.hist: bucket 1: index 4 not ascending or past 7423" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"hist\":[5,1],\"children\":[]}," GOOD_METHODS ",\"slowest\":[]}",
      "summary: root.hist: its counts add up to 1, not entries (2)" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"calls_hist\":[1,0],\"children\":[]}," GOOD_METHODS ",\"slowest\":[]}",
      "summary: root.calls_hist: bucket 0: count 0 not between 1 and 2^51-1" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"entry_min_ns\":6,\"children\":[]}," GOOD_METHODS ",\"slowest\":[]}",
      "summary: root.entry_min_ns: 6, more than p50_ns" },
};

/* Text only sum_read sees (a document tree cannot hold a key twice). */
static const struct bad bad_texts[] = {
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"calls\":2,\"children\":[]}," GOOD_METHODS ",\"slowest\":[]}",
      "summary: root.calls: given twice" },
    { SUMMARY_HEAD "\"calls\":2,\"root\":null}", "summary: calls: given twice" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"children\":[]}," GOOD_METHODS ",\"slowest\":[]", "summary: not JSON (the line ended inside a value)" },
    { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"children\":[]}," GOOD_METHODS ",\"slowest\":[]}}", NULL },
};

/* Each malformed text is refused by sum_read with its message; a text
 * whose value is fine but is followed by more is refused by the line's end. */
static void test_read_rejections(void)
{
    static const struct bad more[] = {
        { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"children\":[],\"other\":false}," GOOD_METHODS ",\"slowest\":[]}",
          "summary: root.other: after children" },
        { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"children\":[{" GOOD_NODE ",\"children\":[]},{" GOOD_NODE
          ",\"children\":[]}]}," GOOD_METHODS ",\"slowest\":[]}",
          "summary: root.children[1]: the path of a node before it again" },
        { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"children\":[]},\"more_roots\":[{" GOOD_NODE ",\"children\":[]}],"
          GOOD_METHODS ",\"slowest\":[]}", "summary: more_roots[0]: the path of a node before it again" },
        { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"children\":[]},\"methods\":[{\"class\":\"t.E\",\"method\":\"run\","
          "\"desc\":\"()V\",\"calls\":2,\"calls_max\":1,\"entries\":2},{\"class\":\"t.E\",\"method\":\"run\","
          "\"desc\":\"()V\",\"calls\":2,\"calls_max\":1,\"entries\":2}],\"slowest\":[]}",
          "summary: methods[1]: the method of methods[0] again" },
        { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"other\":true,\"children\":[]}," GOOD_METHODS ",\"slowest\":[]}",
          "summary: root.other: true on a root" },
        { SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"children\":[{" GOOD_NODE ",\"other\":true,\"async\":true,"
          "\"children\":[]}]}," GOOD_METHODS ",\"slowest\":[]}",
          "summary: root.children[0].async: true on an other node" },
        /* "calls" after the root: its nodes' entries are checked at the end */
        { "{\"type\":\"summary\",\"final\":true,\"not_traced\":0,\"root\":{" GOOD_NODE ",\"children\":[]},"
          "\"calls\":1," GOOD_METHODS ",\"slowest\":[]}",
          "summary: root.entries: 2, not between 1 and the summary's calls (1)" },
    };

    for (size_t n = 0; n < 2; n++) {
        const struct bad *list = n == 0 ? bad_texts : more;
        size_t count = n == 0 ? sizeof bad_texts / sizeof bad_texts[0] : sizeof more / sizeof more[0];

        for (size_t i = 0; i < count; i++) {
            mct_err e;
            sum *s = sum_new(0, &e);
            struct sum_info info;
            jtok t;
            int rc;

            mct_err_clear(&e);
            jt_init_mem(&t, list[i].json, strlen(list[i].json), SIZE_MAX);
            rc = sum_read(s, &t, 0, &info, &e);
            if (rc == 0 && list[i].msg == NULL) {
                CHECK_INT(jt_next(&t), JT_ERR);         /* the '}' too many */
                CHECK(strncmp(t.err, "the end of the line expected after the value", 44) == 0);
            } else if (rc == 0 || list[i].msg == NULL ||
                       strncmp(e.msg, list[i].msg, strlen(list[i].msg)) != 0) {
                fprintf(stderr, "bad text %zu/%zu: got \"%s\", want \"%s\"\n", n, i, rc == 0 ? "(read)" : e.msg,
                        list[i].msg != NULL ? list[i].msg : "(read)");
                check_failures++;
            }
            jt_free(&t);
            sum_free(s);
        }
    }
}

/* A summary's text, read (sum_read) and written again, is the same text:
 * its percentiles as it says them, its slowest calls, its roots; also a
 * node of an older summary (no histograms), which sum_merge then refuses,
 * and keys in another order. */
static void test_read_round_trip(void)
{
    static const char older[] = SUMMARY_HEAD "\"root\":{" GOOD_NODE ",\"children\":[]}," GOOD_METHODS
                                ",\"slowest\":[],\"warmup\":0,\"seen\":2}";
    static const char reordered[] = "{\"calls\":2,\"root\":{\"desc\":\"()V\",\"class\":\"t.E\",\"method\":"
        "\"run\",\"children\":[],\"entries\":2,\"calls\":2,\"total_ns\":10,\"self_ns\":10,\"min_ns\":5,"
        "\"max_ns\":5,\"throws\":0,\"calls_min\":1,\"calls_max\":1,\"p50_ns\":5,\"p90_ns\":5,\"p99_ns\":5,"
        "\"entry_max_ns\":5,\"x\":[{\"y\":null}]},\"type\":\"summary\",\"pid\":77,\"not_traced\":0,\"final\":false,"
        "\"slowest\":[]," GOOD_METHODS "}";
    mct_err e;
    sum *x = sum_new(3, &e), *m = sum_new(0, &e);
    mct_buf a;
    struct sum_info info;
    jtok t;

    add_three(x);
    add_three(x);
    buf_init(&a);
    CHECK(sum_write_json(x, 0, &a, &e) == 0);
    for (int i = 0; i < 3; i++) {
        const char *text = i == 0 ? (const char *)a.data : i == 1 ? older : reordered;
        size_t len = i == 0 ? a.len : strlen(text);
        sum *r = sum_new(SUM_SLOWEST_MAX, &e);
        mct_buf b;

        buf_init(&b);
        jt_init_mem(&t, text, len, SIZE_MAX);
        CHECK(sum_read(r, &t, SUM_READ_SLOWEST, &info, &e) == 0);
        CHECK_INT(jt_next(&t), JT_EOL);
        CHECK(sum_write_json(r, i != 2 ? info.final : 1, &b, &e) == 0);
        if (i < 2)
            CHECK(b.len == len && memcmp(b.data, text, len) == 0);
        if (i == 0)
            CHECK_INT(sum_slowest_count(r), 3);
        if (i == 1) {
            const sum_node *root = sum_root(r);
            struct sum_view v;

            sum_node_view(r, root, &v);
            CHECK(v.hist == NULL && v.chist == NULL && v.p50_ns == 5 && v.entries == 2);
            CHECK(sum_merge(m, r, &e) < 0 && strstr(e.msg, "older") != NULL);
        }
        if (i == 2) {
            CHECK_INT(info.pid, 77);
            CHECK_INT(info.final, 0);
            CHECK_INT(sum_calls(r), 2);
        }
        jt_free(&t);
        buf_free(&b);
        sum_free(r);
    }
    buf_free(&a);
    sum_free(x);
    sum_free(m);
}

static int sum_counter(void *s, const call_tab *t, const mct_call *c, mct_err *e)
{
    return sum_count_call(s, t, c, e);
}

/* A method of summary j by name, or NULL. */
static const json_t *method_of(const json_t *j, const char *m)
{
    const json_t *arr = json_object_get(j, "methods");

    for (size_t i = 0; i < json_array_size(arr); i++)
        if (strcmp(json_string_value(json_object_get(json_array_get(arr, i), "method")), m) == 0)
            return json_array_get(arr, i);
    return NULL;
}

/* A warm-up call left out (sum_count_call) counts in the methods only:
 * the nodes and calls do not hold it; the check takes methods'
 * entries up to calls plus warmup, not more. */
static void test_count_call(void)
{
    json_t *call = call_of(NODE("a", "b", 1, 10, 4, 10, 10, 0, NODE("a", "c", 2, 6, 6, 3, 3, 0, "")));
    const json_t *b, *c;
    json_t *j;
    mct_err e;
    sum *s = sum_new(0, &e);

    CHECK(call != NULL && s != NULL);
    CHECK(add_json(s, call, &e) == 0);
    CHECK(readcall(call, sum_counter, s, &e) == 0);
    sum_add_warmup(s, 1);
    j = sum_to_json(s, 1, &e);
    CHECK(j != NULL && sum_json_check(j, &e) == 0);
    CHECK_INT(geti(j, "calls"), 1);
    CHECK_INT(geti(json_object_get(j, "root"), "entries"), 1);
    CHECK_INT(geti(json_object_get(j, "root"), "calls"), 1);
    b = method_of(j, "b");
    c = method_of(j, "c");
    CHECK(b != NULL && c != NULL);
    CHECK_INT(geti(b, "calls"), 2);
    CHECK_INT(geti(b, "entries"), 2);
    CHECK_INT(geti(c, "calls"), 4);
    CHECK_INT(geti(c, "calls_max"), 2);
    json_object_set_new(j, "warmup", json_integer(0));
    CHECK(sum_json_check(j, &e) < 0 && strstr(e.msg, "entries") != NULL);
    json_decref(j);
    json_decref(call);
    sum_free(s);
}

/* Warm-up calls and calls seen: counted apart (sum_add_warmup,
 * sum_add_seen), merged, written as "warmup" and "seen"; a summary without
 * the keys (an older agent's) still reads. */
static void test_warmup(void)
{
    json_t *call = call_of(NODE("a", "b", 1, 1, 1, 1, 1, 0, ""));
    call_tab t = {0};
    mct_call c = {0};
    sum *a, *b;
    json_t *j;
    mct_err e;

    CHECK(call != NULL && call_from_json(&t, &c, call, &e) == 0 && !call_warmup(&c));
    json_object_set_new(call, "warmup", json_true());
    CHECK(call_from_json(&t, &c, call, &e) == 0 && call_warmup(&c));
    json_decref(call);
    call_free(&c);
    call_tab_free(&t);
    a = sum_new(0, &e);
    b = sum_new(0, &e);
    CHECK(a != NULL && b != NULL);
    sum_add_warmup(a, 2);
    sum_add_warmup(b, 3);
    sum_add_seen(a, 10);
    sum_add_seen(b, 30);
    CHECK(sum_merge(a, b, &e) == 0);
    j = sum_to_json(a, 1, &e);
    CHECK(j != NULL && json_integer_value(json_object_get(j, "warmup")) == 5 && sum_json_check(j, &e) == 0);
    CHECK(json_integer_value(json_object_get(j, "seen")) == 40);
    json_object_del(j, "warmup");
    json_object_del(j, "seen");
    CHECK(sum_json_check(j, &e) == 0);
    json_decref(j);
    sum_reset(a);
    j = sum_to_json(a, 0, &e);
    CHECK(j != NULL && json_integer_value(json_object_get(j, "warmup")) == 0);
    CHECK(json_integer_value(json_object_get(j, "seen")) == 0);
    json_decref(j);
    sum_free(a);
    sum_free(b);
}

static const struct bad bad_calls[] = {
    { "{\"type\":\"summary\"}", "call: type: not \"call\"" },
    { "{\"type\":\"call\",\"seq\":1,\"start_ns\":1}", "call: thread: missing (an object)" },
    { "{\"type\":\"call\",\"seq\":1,\"thread\":{\"id\":1},\"start_ns\":1,\"root\":{\"class\":\"a\"}}",
      "call: root.method: missing (a string)" },
    { "{\"type\":\"call\",\"seq\":1,\"thread\":{\"id\":1,\"name\":7},\"start_ns\":1,\"root\":{}}",
      "call: thread.name: not a string" },
    { "{\"type\":\"call\",\"seq\":1,\"thread\":{\"id\":1},\"start_ns\":1,\"warmup\":1,\"root\":{}}",
      "call: warmup: not true or false" },
};

static void test_rejections(void)
{
    for (size_t i = 0; i < sizeof bad_summaries / sizeof bad_summaries[0]; i++) {
        json_t *j = json_loads(bad_summaries[i].json, 0, NULL);
        mct_err e;

        mct_err_clear(&e);
        CHECK(j != NULL);
        if (sum_json_check(j, &e) == 0 || strncmp(e.msg, bad_summaries[i].msg, strlen(bad_summaries[i].msg)) != 0) {
            fprintf(stderr, "bad summary %zu: got \"%s\", want \"%s\"\n", i, e.msg, bad_summaries[i].msg);
            check_failures++;
        }
        json_decref(j);
    }
    for (size_t i = 0; i < sizeof bad_calls / sizeof bad_calls[0]; i++) {
        json_t *j = json_loads(bad_calls[i].json, 0, NULL);
        mct_err e;
        sum *s = sum_new(1, &e);

        mct_err_clear(&e);
        if (add_json(s, j, &e) == 0 || strncmp(e.msg, bad_calls[i].msg, strlen(bad_calls[i].msg)) != 0) {
            fprintf(stderr, "bad call %zu: got \"%s\", want \"%s\"\n", i, e.msg, bad_calls[i].msg);
            check_failures++;
        }
        CHECK_INT(sum_calls(s), 0);
        sum_free(s);
        json_decref(j);
    }
    /* nodes deeper than 64 levels */
    {
        char buf[16384] = "";
        size_t len = 0;
        json_t *j;
        mct_err e;

        len += (size_t)snprintf(buf + len, sizeof buf - len,
                                "{\"type\":\"call\",\"seq\":1,\"thread\":{\"id\":1},\"start_ns\":1,\"root\":");
        for (int d = 0; d < 65; d++)
            len += (size_t)snprintf(buf + len, sizeof buf - len,
                                    "{\"class\":\"a\",\"method\":\"b\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":1,"
                                    "\"self_ns\":1,\"min_ns\":1,\"max_ns\":1,\"throws\":0,\"children\":[");
        for (int d = 0; d < 65; d++)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "]}");
        snprintf(buf + len, sizeof buf - len, "}");
        j = json_loads(buf, 0, NULL);
        CHECK(j != NULL);
        CHECK(call_json_check(j, &e) < 0 && strstr(e.msg, "nested deeper than 64 levels") != NULL);
        json_decref(j);
    }
}

/* ---- CPU times and allocations (--cpu, --alloc) ------------------------------ */

/* A node's text with CPU time cpu and allocation alloc. */
#define XNODE(c, m, total, cpu, alloc, kids)                                                   \
    "{\"class\":\"" c "\",\"method\":\"" m "\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":" #total \
    ",\"self_ns\":" #total ",\"min_ns\":" #total ",\"max_ns\":" #total ",\"throws\":0,\"cpu_ns\":" #cpu \
    ",\"wait_ns\":0,\"alloc_bytes\":" #alloc ",\"children\":[" kids "]}"

/* Three calls of E, each with S under it; S's CPU time 10, 20, 30 and its
 * bytes 1000, 2000, 3000. */
static void add_xthree(sum *s)
{
    add(s, XNODE("t.E", "run", 100, 50, 5000, XNODE("t.S", "spin", 40, 10, 1000, "")));
    add(s, XNODE("t.E", "run", 100, 60, 6000, XNODE("t.S", "spin", 40, 20, 2000, "")));
    add(s, XNODE("t.E", "run", 100, 70, 7000, XNODE("t.S", "spin", 40, 30, 3000, "")));
}

/* Each node's figures summed and per entry call, merged exactly; written
 * only when every call carried them; a malformed one refused by name. */
static void test_xfigs(void)
{
    static const struct {
        const char *key, *value, *msg;      /* spin's key set to value (NULL: removed) */
    } bad[] = {
        { "cpu_hist", NULL, "summary: root.children[0].cpu_hist: missing" },
        { "cpu_ns", "241", "summary: root.children[0].cpu_ns: 241, more than total_ns (240)" },
        { "wait_ns", "1", "summary: root.children[0].wait_ns: 1, not total_ns - cpu_ns (120)" },
        { "alloc_p50_bytes", "99999", "summary: root.children[0].alloc_p50_bytes: alloc_entry_min_bytes <= " },
        { "alloc_p90_bytes", NULL, "summary: root.children[0].alloc_p90_bytes: missing" },
        { "alloc_hist", "[1,1]", "summary: root.children[0].alloc_hist: its counts add up to 1, not entries (6)" },
    };
    mct_err e;
    sum *s = sum_new(0, &e), *m = sum_new(0, &e), *part = sum_new(0, &e);
    json_t *j, *jm, *root;
    const json_t *spin;

    add_xthree(s);
    j = sum_to_json(s, 1, &e);
    CHECK(j != NULL && sum_json_check(j, &e) == 0);
    root = json_object_get(j, "root");
    spin = kid(root, "spin");
    CHECK_INT(geti(root, "cpu_ns"), 180);
    CHECK_INT(geti(root, "wait_ns"), 120);
    CHECK_INT(geti(root, "alloc_bytes"), 18000);
    CHECK_INT(geti(spin, "cpu_ns"), 60);
    CHECK_INT(geti(spin, "cpu_p50_ns"), 20);
    CHECK_INT(geti(spin, "cpu_p99_ns"), 30);
    CHECK_INT(geti(spin, "cpu_entry_min_ns"), 10);
    CHECK_NEAR(geti(spin, "alloc_p50_bytes"), 2000);
    CHECK_INT(geti(spin, "alloc_entry_max_bytes"), 3000);
    CHECK_INT(geti(spin, "alloc_entry_min_bytes"), 1000);
    /* two summaries merged are the summary of all their calls */
    CHECK(merge_json(m, j, &e) == 0 && merge_json(m, j, &e) == 0);
    add_xthree(s);
    json_decref(j);
    j = sum_to_json(s, 1, &e);
    jm = sum_to_json(m, 1, &e);
    CHECK(j != NULL && jm != NULL && json_equal(j, jm));
    json_decref(jm);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *c = json_deep_copy(j), *k = (json_t *)kid(json_object_get(c, "root"), "spin");

        if (bad[i].value == NULL)
            json_object_del(k, bad[i].key);
        else
            json_object_set_new(k, bad[i].key, json_loads(bad[i].value, JSON_DECODE_ANY, NULL));
        mct_err_clear(&e);
        if (sum_json_check(c, &e) == 0 || strncmp(e.msg, bad[i].msg, strlen(bad[i].msg)) != 0) {
            fprintf(stderr, "bad figure %zu: got \"%s\", want \"%s\"\n", i, e.msg, bad[i].msg);
            check_failures++;
        }
        json_decref(c);
    }
    /* on a node whose root has none */
    json_object_del(json_object_get(j, "root"), "cpu_ns");
    CHECK(sum_json_check(j, &e) < 0 && strstr(e.msg, "root.children[0].cpu_ns: present though the root has none") != NULL);
    json_decref(j);
    /* a call without CPU times: the summary has none, its allocations stay */
    add(s, "{\"class\":\"t.E\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":9,\"self_ns\":9,"
           "\"min_ns\":9,\"max_ns\":9,\"throws\":0,\"alloc_bytes\":1,\"children\":[]}");
    j = sum_to_json(s, 1, &e);
    CHECK(j != NULL && sum_json_check(j, &e) == 0);
    CHECK(json_object_get(json_object_get(j, "root"), "cpu_ns") == NULL);
    CHECK(json_object_get(kid(json_object_get(j, "root"), "spin"), "cpu_p50_ns") == NULL);
    CHECK_INT(geti(json_object_get(j, "root"), "alloc_bytes"), 36001);
    /* nor does a merge with a summary without them */
    add_xthree(part);
    CHECK(merge_json(part, j, &e) == 0);
    json_decref(j);
    j = sum_to_json(part, 1, &e);
    CHECK(j != NULL && json_object_get(json_object_get(j, "root"), "cpu_ns") == NULL &&
          json_object_get(json_object_get(j, "root"), "alloc_bytes") != NULL);
    json_decref(j);
    sum_free(s);
    sum_free(m);
    sum_free(part);
}

/* A summary with figures read from its text (sum_read) writes that text
 * again and shows them (sum_node_view); a root's figures after its
 * children, which say which every node carries, are refused. */
static void test_xfigs_read(void)
{
    mct_err e;
    sum *s = sum_new(0, &e), *r = sum_new(SUM_SLOWEST_MAX, &e);
    mct_buf a, b;
    struct sum_info info;
    struct sum_view v;
    json_t *j, *root;
    jtok t;

    add_xthree(s);
    buf_init(&a);
    buf_init(&b);
    CHECK(sum_write_json(s, 1, &a, &e) == 0);
    jt_init_mem(&t, (const char *)a.data, a.len, SIZE_MAX);
    CHECK(sum_read(r, &t, SUM_READ_SLOWEST, &info, &e) == 0);
    jt_free(&t);
    CHECK(sum_write_json(r, 1, &b, &e) == 0);
    CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
    sum_node_view(r, sum_node_kid(sum_root(r)), &v);
    CHECK(v.xflags == (sum_xkeys[SUM_X_CPU].flag | sum_xkeys[SUM_X_ALLOC].flag));
    CHECK_INT(v.x[SUM_X_CPU].total, 60);
    CHECK_INT(v.x[SUM_X_CPU].p50, 20);
    CHECK_INT(v.x[SUM_X_ALLOC].entry_max, 3000);
    CHECK(v.x[SUM_X_CPU].hist != NULL && v.x[SUM_X_CPU].hist->count == 3);
    j = json_loadb((const char *)a.data, a.len, 0, NULL);
    root = json_object_get(j, "root");
    CHECK(root != NULL && json_object_set(root, "cpu", json_object_get(root, "cpu_ns")) == 0 &&
          json_object_del(root, "cpu_ns") == 0 && json_object_set(root, "cpu_ns", json_object_get(root, "cpu")) == 0);
    CHECK(sum_json_check(j, &e) < 0 && strstr(e.msg, "summary: root.children[0].cpu_ns: present though the "
                                                "root has none before its children") != NULL);
    json_decref(j);
    buf_reset(&a);
    sum_reset(s);
    add(s, XNODE("t.E", "run", 100, 50, 5000, ""));
    CHECK(sum_write_json(s, 1, &a, &e) == 0);
    j = json_loadb((const char *)a.data, a.len, 0, NULL);
    root = json_object_get(j, "root");
    CHECK(root != NULL && json_object_set(root, "cpu", json_object_get(root, "cpu_ns")) == 0 &&
          json_object_del(root, "cpu_ns") == 0 && json_object_set(root, "cpu_ns", json_object_get(root, "cpu")) == 0);
    CHECK(sum_json_check(j, &e) < 0 && strstr(e.msg, "summary: root.cpu_ns: after children") != NULL);
    json_decref(j);
    buf_free(&a);
    buf_free(&b);
    sum_free(s);
    sum_free(r);
}

/* ---- the budget -------------------------------------------------------------- */

/* The heap in use (0 where glibc cannot say, e.g. under ASan). */
static size_t heap_used(void)
{
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 33)
    return mallinfo2().uordblks;
#else
    return 0;
#endif
}

/* Walks of the test's mutual recursion: twelve methods, the next picked by
 * an LCG, so that nearly every call takes paths no earlier one took. */
#define WALK_DEPTH 40
static uint64_t walk_seed = 1, walk_scale = 1;

/* Adds one entry call: root t.K.run, then a chain of WALK_DEPTH methods
 * m0..m11, each 1 call of total (depth left) * 10 ns, self 10 ns (times
 * walk_scale). Counts
 * what it fed into *calls and *self; per method into per_method. */
static void add_walk(sum *s, uint64_t *calls, uint64_t *self, uint64_t per_method[12])
{
    static const char *const names[12] = { "m0", "m1", "m2", "m3", "m4", "m5",
                                           "m6", "m7", "m8", "m9", "m10", "m11" };
    mct_err e;
    int ok = sum_begin(s, &e) == 0;
    struct sum_fig f = { "t.K", "run", "()J", 1, (WALK_DEPTH + 1) * 10 * walk_scale, 10 * walk_scale, 0, 0, 0, 0, 0, { 0 }, 0 };

    f.min_ns = f.max_ns = f.total_ns;
    ok = ok && sum_enter(s, &f, &e) == 0;
    for (int d = 0; d < WALK_DEPTH && ok; d++) {
        int m;

        walk_seed = walk_seed * 6364136223846793005ull + 1442695040888963407ull;
        m = (int)((walk_seed >> 40) % 12);
        f = (struct sum_fig){ "t.K", names[m], "(J)J", 1, (uint64_t)(WALK_DEPTH - d) * 10 * walk_scale,
                              10 * walk_scale, 0, 0, 0, 0, 0, { 0 }, 0 };
        f.min_ns = f.max_ns = f.total_ns;
        ok = sum_enter(s, &f, &e) == 0;
        per_method[m]++;
    }
    for (int d = 0; d <= WALK_DEPTH && ok; d++)
        ok = sum_leave(s, &e) == 0;
    ok = ok && sum_end(s, &e) == 0;
    if (!ok) {
        fprintf(stderr, "add_walk: %s\n", e.msg);
        check_failures++;
    }
    *calls += WALK_DEPTH + 1;
    *self += (WALK_DEPTH + 1) * 10 * walk_scale;
}

/* Over the nodes of n: their calls and self time, the calls of other nodes,
 * the nodes that are not other nodes. Checks that other nodes are named and
 * have no children. */
static void tally(const json_t *n, uint64_t *calls, uint64_t *self, uint64_t *other_calls, size_t *kept)
{
    const json_t *kids = json_object_get(n, "children");

    *calls += (uint64_t)geti(n, "calls");
    *self += (uint64_t)geti(n, "self_ns");
    if (json_is_true(json_object_get(n, "other"))) {
        *other_calls += (uint64_t)geti(n, "calls");
        CHECK_STR(json_string_value(json_object_get(n, "class")), SUM_OTHER_CLASS);
        CHECK_STR(json_string_value(json_object_get(n, "method")), SUM_OTHER_METHOD);
        CHECK_INT(json_array_size(kids), 0);
    } else {
        ++*kept;
    }
    for (size_t i = 0; i < json_array_size(kids); i++)
        tally(json_array_get(kids, i), calls, self, other_calls, kept);
}

/* Checks j (a summary of fed calls, fed self time, per_method calls of
 * m0..m11): every call and its self time are in the tree, the other nodes
 * hold folded calls, the methods are exact. Returns the nodes kept. */
static size_t check_folded(const json_t *j, uint64_t fed_calls, uint64_t fed_self, const uint64_t per_method[12])
{
    uint64_t calls = 0, self = 0, other = 0;
    size_t kept = 0;
    const json_t *methods = json_object_get(j, "methods");
    mct_err e;

    CHECK(sum_json_check(j, &e) == 0);
    tally(json_object_get(j, "root"), &calls, &self, &other, &kept);
    CHECK_INT(calls, fed_calls);
    CHECK_INT(self, fed_self);
    CHECK(other > 0);
    CHECK_INT(geti(j, "folded"), other);
    for (size_t i = 0; i < json_array_size(methods); i++) {
        const json_t *m = json_array_get(methods, i);
        const char *name = json_string_value(json_object_get(m, "method"));

        if (name[0] == 'm' && name[1] != '\0')
            CHECK_INT(geti(m, "calls"), per_method[atoi(name + 1)]);
    }
    return kept;
}

/* Mutual recursion along new paths: the summary stops making nodes at its
 * budget, folds the rest into other nodes (counted in "folded"), keeps every
 * call and its self time, its methods exact, its JSON under the budget, its
 * memory bounded; more calls make no more nodes. */
static void test_budget(void)
{
    uint64_t calls = 0, self = 0, per_method[12] = { 0 };
    size_t before = heap_used(), kept1, kept2, grew;
    mct_err e;
    sum *s = sum_new(0, &e);
    json_t *j;
    mct_buf text;

    for (int i = 0; i < 3000; i++)
        add_walk(s, &calls, &self, per_method);
    grew = heap_used() - before;
    CHECK(grew <= SUM_BUDGET_BYTES + ((size_t)2 << 20));
    CHECK(sum_folded(s) > 0);
    j = sum_to_json(s, 1, &e);
    CHECK(j != NULL);
    kept1 = check_folded(j, calls, self, per_method);
    CHECK(kept1 > 1000);
    json_decref(j);
    for (int i = 0; i < 1000; i++)
        add_walk(s, &calls, &self, per_method);
    j = sum_to_json(s, 1, &e);
    kept2 = check_folded(j, calls, self, per_method);
    CHECK_INT(kept2, kept1);
    CHECK_INT(geti(j, "folded"), sum_folded(s));
    json_decref(j);
    /* durations never seen: past the budget, samples go to the nearest
     * bucket, counted; the percentiles stay ordered, within min..max */
    for (walk_scale = 2; walk_scale < 600; walk_scale += 3)
        add_walk(s, &calls, &self, per_method);
    walk_scale = 1;
    j = sum_to_json(s, 1, &e);
    check_folded(j, calls, self, per_method);
    CHECK(geti(j, "coarse") > 0);
    json_decref(j);
    buf_init(&text);
    CHECK(sum_write_json(s, 1, &text, &e) == 0);
    CHECK(text.len < SUM_JSON_BUDGET);
    buf_free(&text);
    sum_free(s);
}

/* Two summaries at their budget merged: what dst cannot hold folds; every
 * call and its self time stay, entries never exceed the calls. sum_take
 * into an empty summary moves (the JSON is the same) and empties src. */
static void test_budget_merge_and_take(void)
{
    uint64_t calls = 0, self = 0, per_method[12] = { 0 };
    mct_err e;
    sum *a = sum_new(0, &e), *b = sum_new(0, &e), *empty = sum_new(0, &e);
    json_t *ja, *jb;

    for (int i = 0; i < 2500; i++)
        add_walk(a, &calls, &self, per_method);
    for (int i = 0; i < 2500; i++)
        add_walk(b, &calls, &self, per_method);
    CHECK(sum_merge(a, b, &e) == 0);
    ja = sum_to_json(a, 1, &e);
    check_folded(ja, calls, self, per_method);
    json_decref(ja);

    ja = sum_to_json(a, 1, &e);
    sum_add_not_traced(empty, 7);
    CHECK(sum_take(empty, a, &e) == 0);
    CHECK_INT(sum_calls(a), 0);
    jb = sum_to_json(empty, 1, &e);
    CHECK_INT(geti(jb, "not_traced"), 7);
    json_object_set_new(jb, "not_traced", json_integer(0));
    CHECK(json_equal(ja, jb));
    json_decref(ja);
    json_decref(jb);
    /* into a summary that holds calls: a merge */
    CHECK(sum_take(empty, b, &e) == 0);
    CHECK_INT(sum_calls(empty), 7500);
    CHECK_INT(sum_calls(b), 0);
    sum_free(a);
    sum_free(b);
    sum_free(empty);
}

/* A node's histogram looks for a value's bucket from a guess (between
 * its pivots); whatever the guess, it holds the buckets and counts that
 * sum_hist_record's search gives the same values: values drawn from each
 * distribution, and from one that widens on both sides as it goes (new
 * buckets below and above, found stepping both ways). */
static void test_hist_guess(void)
{
    for (int d = UNIFORM; d <= ONE + 1; d++) {
        mct_err e;
        sum *s = sum_new(0, &e);
        struct sum_hist want;
        const struct sum_hist *got;
        struct sum_view v;
        int bad = 0;

        sum_hist_init(&want);
        for (size_t i = 0; i < 20000; i++) {
            struct sum_fig f = { "t.G", "run", "()V", 1, 0, 0, 0, 0, 0, 0, 0, { 0 }, 0 };

            /* ONE + 1: widening, 1 ms wide first, to 1 s */
            f.total_ns = d <= ONE ? sample((enum dist)d, i) : 1000000000 + (rng() % 2 ? 1 : -1) * (int64_t)(rng() % (1000000 + 50 * i));
            if (f.total_ns > INT64_MAX)
                f.total_ns = INT64_MAX;
            f.self_ns = f.min_ns = f.max_ns = f.total_ns;
            if (sum_begin(s, &e) < 0 || sum_enter(s, &f, &e) < 0 || sum_leave(s, &e) < 0 || sum_end(s, &e) < 0 ||
                sum_hist_record(&want, f.total_ns, &e) < 0)
                bad = 1;
        }
        sum_node_view(s, sum_root(s), &v);
        got = v.hist;
        bad |= got == NULL || got->n != want.n || got->count != want.count || got->min != want.min ||
               got->max != want.max;
        for (uint32_t i = 0; !bad && i < want.n; i++) {
            unsigned gi, wi;
            uint64_t gc, wc;

            sum_hist_bucket(got, i, &gi, &gc);
            sum_hist_bucket(&want, i, &wi, &wc);
            bad = gi != wi || gc != wc;
        }
        if (bad) {
            fprintf(stderr, "guessed buckets of %s differ from the searched ones\n",
                    d <= ONE ? dist_name[d] : "widening");
            check_failures++;
        }
        sum_hist_reset(&want);
        sum_free(s);
    }
}

/* A histogram keeps only its buckets in use. */
static void test_hist_sparse(void)
{
    struct sum_hist h;
    mct_err e;

    sum_hist_init(&h);
    for (int i = 0; i < 1000; i++)
        CHECK(sum_hist_record(&h, 5000000, &e) == 0);
    CHECK_INT(h.n, 1);
    CHECK(sum_hist_record(&h, 3, &e) == 0 && sum_hist_record(&h, (uint64_t)1 << 40, &e) == 0);
    CHECK_INT(h.n, 3);
    CHECK_NEAR(sum_hist_quantile(&h, 0.5), 5000000);
    CHECK_INT(sum_hist_quantile(&h, 0), 3);
    CHECK_INT(sum_hist_quantile(&h, 1), (uint64_t)1 << 40);
    sum_hist_reset(&h);
}

/* `slowest` keeps at most SUM_SLOWEST_JSON_MAX bytes of calls. */
static void test_slowest_bytes(void)
{
    /* names are at most CALL_STR_MAX bytes: many calls of long ones */
    size_t big = 60000;
    char *name = malloc(big + 1);
    mct_err e;
    sum *s = sum_new(SUM_SLOWEST_MAX, &e);
    json_t *j;

    memset(name, 'x', big);
    name[big] = '\0';
    for (int i = 0; i < 400; i++) {
        json_t *c = call_of(NODE("t.E", "run", 1, 1000, 1000, 1000, 1000, 0, ""));

        json_object_set_new(json_object_get(c, "thread"), "name", json_string(name));
        json_object_set_new(json_object_get(c, "root"), "total_ns", json_integer(1000 + i));
        CHECK(add_json(s, c, &e) == 0);
        json_decref(c);
    }
    j = sum_to_json(s, 1, &e);
    CHECK(json_array_size(json_object_get(j, "slowest")) > 0);
    CHECK(json_array_size(json_object_get(j, "slowest")) * big <= SUM_SLOWEST_JSON_MAX);
    json_decref(j);
    sum_free(s);
    free(name);
}

int main(void)
{
    test_hist_quantiles();
    test_counts();
    test_merge_and_roots();
    test_async_mark();
    test_count_call();
    test_round_trip();
    test_merge_json();
    test_slowest();
    test_visitor_errors();
    test_rejections();
    test_read_rejections();
    test_read_round_trip();
    test_warmup();
    test_hist_sparse();
    test_budget();
    test_budget_merge_and_take();
    test_slowest_bytes();
    test_xfigs();
    test_xfigs_read();
    test_hist_guess();
    return check_status();
}
