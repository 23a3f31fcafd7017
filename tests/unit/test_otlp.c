/* test_otlp.c — the OTLP/HTTP JSON encoder (traces, W3C parent, metrics) and
 * the rows encoder over a call built with call.h, read back with jansson. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "call.h"
#include "check.h"
#include "otlp.h"
#include "rows.h"
#include "summary.h"

#define START 1700000000123456789ULL

/* A.run -> { B.x (3 calls), C.y -> { D.z } }, pre-order. */
static void build(call_tab *t, mct_call *c, const char *exception)
{
    static const char *names[4][2] = {{"p.A", "run"}, {"p.B", "x"}, {"p.C", "y"}, {"p.D", "z"}};
    static const uint32_t kids[4] = {2, 0, 1, 0};
    static const uint64_t calls[4] = {1, 3, 1, 1}, total[4] = {1000, 600, 300, 100};
    struct call_node *n;
    mct_err e;

    n = call_nodes(c, 4);
    CHECK(n != NULL);
    for (int i = 0; i < 4; i++) {
        uint32_t id;

        CHECK(call_tab_intern(t, names[i][0], names[i][1], "()V", &id, &e) == 0);
        n[i] = (struct call_node){.method = id, .n_children = kids[i], .calls = calls[i], .total_ns = total[i],
                                  .self_ns = total[i] / 2, .min_ns = total[i] / calls[i] / 2,
                                  .max_ns = total[i] / calls[i], .throws = i == 3};
    }
    c->seq = 7;
    c->start_ns = START;
    c->thread_id = 23;
    CHECK(call_set_names(c, "main \"1\"", exception) == 0);
    CHECK(call_check(t, c, &e) == 0);
}

static json_t *load(const mct_buf *b)
{
    json_error_t err;
    json_t *j = json_loadb((const char *)b->data, b->len, 0, &err);

    if (j == NULL)
        fprintf(stderr, "not JSON: %s: %.*s\n", err.text, (int)b->len, (const char *)b->data);
    CHECK(j != NULL);
    return j;
}

static const char *sval(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* The value of attribute key in the array attrs, as text. */
static const char *attr(const json_t *attrs, const char *key)
{
    size_t i;
    json_t *a;

    json_array_foreach(attrs, i, a) {
        if (strcmp(sval(a, "key"), key) == 0) {
            json_t *v = json_object_get(a, "value");
            json_t *s = json_object_get(v, "stringValue");

            if (s == NULL)
                s = json_object_get(v, "intValue");
            if (s == NULL)
                return json_is_true(json_object_get(v, "boolValue")) ? "true" : "false";
            return json_string_value(s);
        }
    }
    return NULL;
}

static void test_traces(void)
{
    call_tab t = {0};
    mct_call c = {0};
    mct_buf b;
    const uint64_t key[2] = {1, 2};
    struct otlp_resource r = {.service = "svc", .host = "h1", .pid = 1201, .runtime_name = "OpenJDK"};
    json_t *j, *rs, *spans;
    char want[32];

    build(&t, &c, "java.io.IOException");
    buf_init(&b);
    otlp_traces_begin(&b, &r);
    CHECK_INT(otlp_trace_spans(&b, &t, &c, key, NULL, 1), 4);
    otlp_traces_end(&b);
    j = load(&b);
    rs = json_array_get(json_object_get(j, "resourceSpans"), 0);
    CHECK_STR(attr(json_object_get(json_object_get(rs, "resource"), "attributes"), "service.name"), "svc");
    CHECK_STR(attr(json_object_get(json_object_get(rs, "resource"), "attributes"), "process.pid"), "1201");
    CHECK(attr(json_object_get(json_object_get(rs, "resource"), "attributes"), "process.runtime.version") == NULL);
    spans = json_object_get(json_array_get(json_object_get(rs, "scopeSpans"), 0), "spans");
    CHECK_INT(json_array_size(spans), 4);
    if (json_array_size(spans) == 4) {
        const json_t *a = json_array_get(spans, 0), *bx = json_array_get(spans, 1), *cy = json_array_get(spans, 2),
                     *dz = json_array_get(spans, 3);

        CHECK_INT(strlen(sval(a, "traceId")), 32);
        CHECK_INT(strlen(sval(a, "spanId")), 16);
        CHECK_STR(sval(dz, "traceId"), sval(a, "traceId"));
        CHECK(json_object_get(a, "parentSpanId") == NULL);
        CHECK_STR(sval(bx, "parentSpanId"), sval(a, "spanId"));
        CHECK_STR(sval(cy, "parentSpanId"), sval(a, "spanId"));
        CHECK_STR(sval(dz, "parentSpanId"), sval(cy, "spanId"));
        CHECK(strcmp(sval(bx, "spanId"), sval(cy, "spanId")) != 0);
        CHECK_STR(sval(a, "name"), "p.A.run");
        /* the layout: children one after another from the parent's start */
        snprintf(want, sizeof want, "%llu", START);
        CHECK_STR(sval(a, "startTimeUnixNano"), want);
        CHECK_STR(sval(bx, "startTimeUnixNano"), want);
        snprintf(want, sizeof want, "%llu", START + 1000);
        CHECK_STR(sval(a, "endTimeUnixNano"), want);
        snprintf(want, sizeof want, "%llu", START + 600);
        CHECK_STR(sval(cy, "startTimeUnixNano"), want);
        CHECK_STR(sval(dz, "startTimeUnixNano"), want);
        snprintf(want, sizeof want, "%llu", START + 900);
        CHECK_STR(sval(cy, "endTimeUnixNano"), want);
        CHECK_STR(attr(json_object_get(bx, "attributes"), "mcalltree.calls"), "3");
        CHECK_STR(attr(json_object_get(bx, "attributes"), "mcalltree.min_ns"), "100");
        CHECK_STR(attr(json_object_get(bx, "attributes"), "mcalltree.max_ns"), "200");
        CHECK_STR(attr(json_object_get(a, "attributes"), "thread.name"), "main \"1\"");
        CHECK_STR(attr(json_object_get(a, "attributes"), "exception.type"), "java.io.IOException");
        CHECK_INT(json_integer_value(json_object_get(json_object_get(a, "status"), "code")), 2);
        CHECK(json_object_get(bx, "status") == NULL);
    }
    json_decref(j);

    /* under a W3C parent: its trace, the root a child of its span */
    {
        struct otlp_parent p;
        mct_err e;

        CHECK(otlp_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", &p, &e) == 0);
        buf_reset(&b);
        otlp_traces_begin(&b, &r);
        CHECK_INT(otlp_trace_spans(&b, &t, &c, key, &p, 1), 4);
        otlp_traces_end(&b);
        j = load(&b);
        spans = json_object_get(
            json_array_get(json_object_get(json_array_get(json_object_get(j, "resourceSpans"), 0), "scopeSpans"), 0),
            "spans");
        CHECK_STR(sval(json_array_get(spans, 0), "traceId"), "4bf92f3577b34da6a3ce929d0e0e4736");
        CHECK_STR(sval(json_array_get(spans, 0), "parentSpanId"), "00f067aa0ba902b7");
        CHECK_STR(sval(json_array_get(spans, 3), "traceId"), "4bf92f3577b34da6a3ce929d0e0e4736");
        json_decref(j);
        CHECK(otlp_traceparent("00-00000000000000000000000000000000-00f067aa0ba902b7-01", &p, &e) < 0);
        CHECK(strstr(e.msg, "all-zero") != NULL);
        CHECK(otlp_traceparent("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", &p, &e) < 0);
        CHECK(otlp_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", &p, &e) < 0);
        CHECK_INT(e.code, MCT_E_ARG);
    }

    /* the call's own parent (read on its thread at its start): the same */
    {
        static const char tp[] = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

        CHECK_INT(call_parent_read(tp, strlen(tp), &c.parent), 0);
        c.flags |= CALL_F_PARENT;
        buf_reset(&b);
        otlp_traces_begin(&b, &r);
        CHECK_INT(otlp_trace_spans(&b, &t, &c, key, NULL, 1), 4);
        otlp_traces_end(&b);
        j = load(&b);
        spans = json_object_get(
            json_array_get(json_object_get(json_array_get(json_object_get(j, "resourceSpans"), 0), "scopeSpans"), 0),
            "spans");
        CHECK_STR(sval(json_array_get(spans, 0), "traceId"), "0af7651916cd43dd8448eb211c80319c");
        CHECK_STR(sval(json_array_get(spans, 0), "parentSpanId"), "b7ad6b7169203331");
        CHECK_STR(sval(json_array_get(spans, 2), "traceId"), "0af7651916cd43dd8448eb211c80319c");
        CHECK(strcmp(sval(json_array_get(spans, 2), "parentSpanId"), "b7ad6b7169203331") != 0);
        json_decref(j);
        c.flags &= ~CALL_F_PARENT;
    }
    buf_free(&b);
    call_free(&c);
    call_tab_free(&t);
}

static void test_rows(void)
{
    call_tab t = {0};
    mct_call c = {0};
    mct_buf b;
    struct rows_src src = {.host = "h1", .pid = 1201, .session = "h1:1201:1"};
    json_t *row[4];
    char *line, *save = NULL;
    int n = 0;

    build(&t, &c, NULL);
    buf_init(&b);
    CHECK_INT(rows_call(&b, &src, &t, &c), 4);
    buf_ch(&b, '\0');
    for (line = strtok_r((char *)b.data, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        CHECK(n < 4);
        if (n < 4)
            row[n++] = json_loads(line, 0, NULL);
    }
    CHECK_INT(n, 4);
    if (n == 4) {
        uint64_t ha = rows_path_hash(0, "p.A", "run", "()V"), hc = rows_path_hash(ha, "p.C", "y", "()V");

        CHECK_STR(sval(row[3], "path"), "p.A.run()V / p.C.y()V / p.D.z()V");
        CHECK_INT(json_integer_value(json_object_get(row[3], "depth")), 2);
        CHECK_INT(json_integer_value(json_object_get(row[3], "node")), 3);
        CHECK(json_integer_value(json_object_get(row[0], "path_hash")) == (json_int_t)ha);
        CHECK(json_integer_value(json_object_get(row[2], "path_hash")) == (json_int_t)hc);
        CHECK(json_integer_value(json_object_get(row[3], "parent_hash")) == (json_int_t)hc);
        CHECK_INT(json_integer_value(json_object_get(row[0], "parent_hash")), 0);
        CHECK_INT(json_integer_value(json_object_get(row[1], "calls")), 3);
        CHECK_INT(json_integer_value(json_object_get(row[3], "throws")), 1);
        CHECK_STR(sval(row[1], "class"), "p.B");
        CHECK_STR(sval(row[1], "desc"), "()V");
        CHECK_STR(sval(row[1], "host"), "h1");
        CHECK_STR(sval(row[1], "thread"), "main \"1\"");
        CHECK_STR(sval(row[1], "time"), "2023-11-14 22:13:20");
        CHECK_INT(json_integer_value(json_object_get(row[1], "seq")), 7);
        CHECK(json_integer_value(json_object_get(row[2], "start_ns")) == (json_int_t)START);
        CHECK_INT(json_integer_value(json_object_get(row[2], "pid")), 1201);
        CHECK_STR(sval(row[2], "trace_id"), "");
        CHECK_STR(sval(row[2], "parent_span_id"), "");
        for (int i = 0; i < 4; i++)
            json_decref(row[i]);
    }
    /* a call under a trace: every row names it */
    {
        static const char tp[] = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        json_t *r3;

        CHECK_INT(call_parent_read(tp, strlen(tp), &c.parent), 0);
        c.flags |= CALL_F_PARENT;
        buf_reset(&b);
        CHECK_INT(rows_call(&b, &src, &t, &c), 4);
        buf_ch(&b, '\0');
        r3 = json_loads(strrchr((char *)b.data, '{'), 0, NULL);
        CHECK_STR(sval(r3, "trace_id"), "0af7651916cd43dd8448eb211c80319c");
        CHECK_STR(sval(r3, "parent_span_id"), "b7ad6b7169203331");
        json_decref(r3);
    }
    buf_free(&b);
    call_free(&c);
    call_tab_free(&t);
}

/* The bucket of bounds (ascending; OTLP's (bounds[i-1], bounds[i]]) that v falls in. */
static size_t bucket_of(const json_t *bounds, double v)
{
    size_t i;

    for (i = 0; i < json_array_size(bounds); i++)
        if (v <= json_real_value(json_array_get(bounds, i)) + json_integer_value(json_array_get(bounds, i)))
            break;
    return i;
}

static void test_metrics(void)
{
    static const uint64_t samples[] = {0, 5, 5, 127, 128, 200, 201, 1000, 1000000, 123456789};
    const size_t ns = sizeof samples / sizeof *samples;
    struct sum_hist h;
    struct otlp_resource r = {.service = "svc"};
    struct otlp_node node = {.path = "p.A.run()V / p.B.x()V", .path_hash = 42, .cls = "p.B", .name = "x",
                             .desc = "()V", .depth = 1};
    mct_buf b;
    mct_err e;
    json_t *j, *dp, *counts, *bounds;
    uint64_t total = 0;

    sum_hist_init(&h);
    for (size_t i = 0; i < ns; i++) {
        CHECK(sum_hist_record(&h, samples[i], &e) == 0);
        total += samples[i];
    }
    buf_init(&b);
    otlp_metrics_begin(&b, &r, 1);
    CHECK(otlp_metric_point(&b, &node, &h, total, START, START + 1000, 1) == 0);
    otlp_metrics_end(&b);
    j = load(&b);
    dp = json_array_get(
        json_object_get(
            json_object_get(
                json_array_get(json_object_get(json_array_get(json_object_get(json_array_get(
                                                                                  json_object_get(j, "resourceMetrics"), 0),
                                                                              "scopeMetrics"),
                                                               0),
                                                "metrics"),
                               0),
                "histogram"),
            "dataPoints"),
        0);
    counts = json_object_get(dp, "bucketCounts");
    bounds = json_object_get(dp, "explicitBounds");
    CHECK_INT(json_array_size(counts), json_array_size(bounds) + 1);
    CHECK_STR(sval(dp, "count"), "10");
    CHECK_STR(attr(json_object_get(dp, "attributes"), "mcalltree.path"), "p.A.run()V / p.B.x()V");
    {
        /* every sample falls in a bucket that counts it: the counts per
         * bucket are those of the samples, none moved */
        size_t nb = json_array_size(counts);
        uint64_t *per = calloc(nb, sizeof *per);

        for (size_t i = 0; i < ns && per != NULL; i++)
            per[bucket_of(bounds, (double)samples[i])]++;
        for (size_t i = 0; i < nb && per != NULL; i++)
            CHECK_INT(strtoull(json_string_value(json_array_get(counts, i)), NULL, 10), per[i]);
        free(per);
    }
    json_decref(j);
    buf_free(&b);
    sum_hist_reset(&h);
}

/* A summary of two calls of build()'s tree: one point per node, named by
 * its path as the rows name it, its count the node's entry calls, its sum
 * the node's total; cumulative for a final summary, delta for an
 * interval's. */
static void test_summary_metrics(void)
{
    static const char *const paths[] = {"p.A.run()V", "p.A.run()V / p.B.x()V", "p.A.run()V / p.C.y()V",
                                        "p.A.run()V / p.C.y()V / p.D.z()V"};
    static const double sums[] = {2000, 1200, 600, 200};
    struct otlp_resource r = {.service = "svc"};
    call_tab t = {0};
    mct_call c = {0};
    mct_buf b;
    mct_err e;
    sum *s = sum_new(0, &e);
    json_t *j, *m, *points;

    CHECK(s != NULL);
    build(&t, &c, NULL);
    CHECK(sum_add_call(s, &t, &c, &e) == 0);
    c.seq = 8;
    CHECK(sum_add_call(s, &t, &c, &e) == 0);
    for (int final = 0; final <= 1; final++) {
        buf_init(&b);
        CHECK_INT(otlp_summary_metrics(&b, &r, s, final, &e), 4);
        j = load(&b);
        m = json_array_get(json_object_get(json_array_get(json_object_get(json_array_get(
                                                                              json_object_get(j, "resourceMetrics"), 0),
                                                                          "scopeMetrics"),
                                                           0),
                                           "metrics"),
                           0);
        CHECK_INT(json_integer_value(json_object_get(json_object_get(m, "histogram"), "aggregationTemporality")),
                  final ? 2 : 1);
        points = json_object_get(json_object_get(m, "histogram"), "dataPoints");
        CHECK_INT(json_array_size(points), 4);
        for (size_t i = 0; i < 4 && i < json_array_size(points); i++) {
            json_t *dp = json_array_get(points, i);

            CHECK_STR(attr(json_object_get(dp, "attributes"), "mcalltree.path"), paths[i]);
            CHECK_STR(sval(dp, "count"), "2");
            CHECK(json_real_value(json_object_get(dp, "sum")) + json_integer_value(json_object_get(dp, "sum")) ==
                  sums[i]);
        }
        json_decref(j);
        buf_free(&b);
    }
    sum_free(s);
    call_free(&c);
    call_tab_free(&t);
}

int main(void)
{
    test_traces();
    test_rows();
    test_metrics();
    test_summary_metrics();
    return check_status();
}
