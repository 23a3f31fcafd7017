/* mct-export.c — a test and bench helper: synthetic calls built with call.h,
 * encoded by protocol/otlp.c or protocol/rows.c, written to stdout or sent
 * through the exporter (client/export.c), so that the encoders and the
 * queue meet the real receivers (tests/e2e/helpers/) without a JVM.
 *
 *   mct-export summary -u URL FILE
 *     the summary object of FILE (one line, e.g. a session's --aggregate
 *     -f json) as OTLP metrics through the export sink, as -f otlp
 *     --aggregate sends it (expsink_summary), to URL/v1/metrics
 *   mct-export calls -u URL FILE
 *     the calls of FILE (SPEC §3 JSON lines, e.g. a session's -f json,
 *     with their "pid" and "host" when several JVMs wrote them) as rows
 *     through the export sink to ClickHouse at URL (each JVM its source)
 *   mct-export traces|rows|metrics [options]
 *     -n CALLS      calls to make (100)
 *     -k NODES      nodes per call (7)
 *     -b BYTES      a batch is queued once it holds this many bytes (262144)
 *     -u URL        traces and rows: the server (expsink.h: an OTLP
 *                   endpoint, ClickHouse's HTTP interface); metrics: the
 *                   URL POSTed to; else stdout (expsink.h's file form)
 *     -c FILE       the calls as SPEC §3 JSON lines (what the spans must match)
 *     -e FILE       rows: "path_hash<TAB>rows<TAB>sum of calls" per path,
 *                   sorted by path_hash (what ClickHouse must count);
 *                   metrics: "path_hash<TAB>count" per node
 *     -p TRACEPARENT  every call under this W3C context
 *     -q BYTES      the queue's bound; -t TRIES; -T TIMEOUT_MS; -s STOP_MS
 *     -o SECONDS    the calls start this long ago (0), one a millisecond
 *   It prints, on stderr, the exporter's line and "elapsed_s=S items=N
 *   rate=R/s peak_bytes=P" (the queue's most), and exits 0. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "call.h"
#include "expsink.h"
#include "otlp.h"
#include "rows.h"
#include "summary.h"

static uint64_t mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Fills n nodes at nodes[*i] as a tree (the root, then two subtrees
 * splitting the rest); the subtree's total. Methods p.M<index>.m<depth>. */
static uint64_t gen(call_tab *t, struct call_node *nodes, size_t *i, size_t n, unsigned depth, uint64_t seq)
{
    size_t me = (*i)++, left = (n - 1) / 2, right = n - 1 - left;
    struct call_node *nd = &nodes[me];
    uint64_t total = 50 + (seq * 7 + me * 13) % 900;
    char cls[32], name[32];
    mct_err e;

    memset(nd, 0, sizeof *nd);
    snprintf(cls, sizeof cls, "p.M%zu", me);
    snprintf(name, sizeof name, "m%u", depth);
    if (call_tab_intern(t, cls, name, "()V", &nd->method, &e) < 0) {
        fprintf(stderr, "mct-export: %s\n", e.msg);
        exit(2);
    }
    nd->n_children = (left > 0) + (right > 0);
    nd->flags = 0;
    nd->calls = 1 + me % 3;
    nd->throws = me % 5 == 4;
    nd->self_ns = total;
    if (left > 0)
        total += gen(t, nodes, i, left, depth + 1, seq);
    if (right > 0)
        total += gen(t, nodes, i, right, depth + 1, seq);
    nd = &nodes[me];
    nd->total_ns = total;
    nd->min_ns = total / nd->calls / 2;
    nd->max_ns = total / nd->calls;
    return total;
}

/* The expected figures of one path. */
struct expect {
    uint64_t hash, rows, calls;
    struct sum_hist h;
    uint64_t sum;
    char *path, *cls, *name;
    unsigned depth;
};

static struct expect *ex;
static size_t n_ex;

/* Notes the nodes of c (rows: per path; metrics: a histogram per path). */
static void note(const call_tab *t, const mct_call *c)
{
    uint64_t stack[CALL_MAX_DEPTH + 1];
    uint32_t left[CALL_MAX_DEPTH + 1];
    char path[4096];
    size_t plen[CALL_MAX_DEPTH + 1];
    int d = -1;
    mct_err e;

    for (size_t i = 0; i < c->n_nodes; i++) {
        const struct call_node *n = &c->nodes[i];
        const struct call_method *m = call_tab_get(t, n->method);
        uint64_t h;
        size_t k, at;

        while (d >= 0 && left[d] == 0)
            d--;
        if (d >= 0)
            left[d]--;
        h = rows_path_hash(d >= 0 ? stack[d] : 0, m->cls, m->name, m->desc);
        at = d >= 0 ? plen[d] : 0;
        at += (size_t)snprintf(path + at, sizeof path - at, "%s%s.%s%s", d >= 0 ? " / " : "", m->cls, m->name,
                               m->desc);
        d++;
        stack[d] = h;
        left[d] = n->n_children;
        plen[d] = at;
        for (k = 0; k < n_ex && ex[k].hash != h; k++)
            ;
        if (k == n_ex) {
            ex = realloc(ex, (n_ex + 1) * sizeof *ex);
            if (ex == NULL)
                exit(2);
            memset(&ex[k], 0, sizeof *ex);
            ex[k].hash = h;
            ex[k].path = strdup(path);
            ex[k].cls = strdup(m->cls);
            ex[k].name = strdup(m->name);
            ex[k].depth = (unsigned)d;
            sum_hist_init(&ex[k].h);
            n_ex++;
        }
        ex[k].rows++;
        ex[k].calls += n->calls;
        ex[k].sum += n->total_ns;
        if (sum_hist_record(&ex[k].h, n->total_ns, &e) < 0)
            exit(2);
    }
}

static int cmp_ex(const void *a, const void *b)
{
    const struct expect *x = a, *y = b;

    return x->hash < y->hash ? -1 : x->hash > y->hash;
}

/* mct-export summary -u URL FILE; the exit status. */
static int send_summary(int argc, char **argv)
{
    struct expsink_opts so = {.kind = EXPSINK_METRICS, .f = stdout,
                              .res = {.service = "mct-export", .host = "127.0.0.1", .pid = (int64_t)getpid()}};
    json_error_t je;
    json_t *j;
    char *text = NULL;
    struct sum_info info;
    sum *s = NULL;
    expsink *sink;
    char line[512];
    mct_err e;

    if (argc != 5 || strcmp(argv[2], "-u") != 0) {
        fprintf(stderr, "usage: mct-export summary -u URL FILE\n");
        return 2;
    }
    so.url = argv[3];
    /* the file's one summary, read as the client reads one (sum_read) */
    j = json_load_file(argv[4], 0, &je);
    if (j == NULL || (text = json_dumps(j, JSON_COMPACT)) == NULL ||
        (s = sum_read_text(text, strlen(text), &info, &e)) == NULL) {
        fprintf(stderr, "mct-export: %s: %s\n", argv[4], j == NULL ? je.text : text == NULL ? "out of memory" : e.msg);
        return 2;
    }
    if ((sink = expsink_open(&so, &e)) == NULL || expsink_summary(sink, s, info.final, &e) < 0 ||
        expsink_close(sink, NULL, line, sizeof line, &e) < 0) {
        fprintf(stderr, "mct-export: %s\n", e.msg);
        return 2;
    }
    fprintf(stderr, "%s\n", line);
    sum_free(s);
    free(text);
    json_decref(j);
    return 0;
}

/* The most JVMs in one file of calls. */
#define CALLS_JVMS 16

/* mct-export calls -u URL FILE; the exit status. */
static int send_calls(int argc, char **argv)
{
    struct {
        long long pid;
        char host[256];
        expsink *sink;
    } jvm[CALLS_JVMS];
    size_t n_jvm = 0, n = 0;
    char *text = NULL, line[512];
    size_t cap = 0;
    call_tab t = {0};
    mct_call c = {0};
    FILE *f;
    mct_err e;

    if (argc != 5 || strcmp(argv[2], "-u") != 0 || (f = fopen(argv[4], "r")) == NULL) {
        fprintf(stderr, "usage: mct-export calls -u URL FILE (a readable file)\n");
        return 2;
    }
    while (getline(&text, &cap, f) > 0) {
        json_t *j = json_loads(text, 0, NULL);
        long long pid = json_integer_value(json_object_get(j, "pid"));
        const char *host = json_string_value(json_object_get(j, "host"));
        size_t i;

        if (j == NULL || call_from_json(&t, &c, j, &e) < 0) {
            fprintf(stderr, "mct-export: %s: line %zu is not a call\n", argv[4], n + 1);
            return 2;
        }
        for (i = 0; i < n_jvm && jvm[i].pid != pid; i++)
            ;
        if (i == n_jvm) {
            struct expsink_opts so = {.kind = EXPSINK_ROWS, .url = argv[3]};

            if (n_jvm == CALLS_JVMS) {
                fprintf(stderr, "mct-export: more than %d JVMs in %s\n", CALLS_JVMS, argv[4]);
                return 2;
            }
            jvm[i].pid = pid;
            snprintf(jvm[i].host, sizeof jvm[i].host, "%s", host != NULL ? host : "127.0.0.1");
            so.src = (struct rows_src){.host = jvm[i].host, .pid = pid, .session = jvm[i].host};
            if ((jvm[i].sink = expsink_open(&so, &e)) == NULL) {
                fprintf(stderr, "mct-export: %s\n", e.msg);
                return 2;
            }
            n_jvm++;
        }
        if (expsink_call(jvm[i].sink, &t, &c, NULL, &e) < 0) {
            fprintf(stderr, "mct-export: %s\n", e.msg);
            return 2;
        }
        json_decref(j);
        n++;
    }
    fclose(f);
    free(text);
    for (size_t i = 0; i < n_jvm; i++) {
        if (expsink_close(jvm[i].sink, NULL, line, sizeof line, &e) < 0) {
            fprintf(stderr, "mct-export: %s\n", e.msg);
            return 2;
        }
        fprintf(stderr, "pid %lld: %s\n", jvm[i].pid, line);
    }
    call_free(&c);
    call_tab_free(&t);
    return 0;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "", *url = NULL, *calls_file = NULL, *expect_file = NULL,
               *traceparent = NULL;
    size_t n_calls = 100, k = 7, batch = 262144;
    struct export_opts o = {0};
    struct otlp_resource res = {.service = "mct-export", .host = "127.0.0.1", .pid = (int64_t)getpid(),
                                .runtime_name = "OpenJDK Runtime Environment", .runtime_version = "17"};
    struct rows_src src = {.host = "127.0.0.1", .pid = (int64_t)getpid(), .session = "mct-export"};
    struct otlp_parent parent;
    int traces = strcmp(what, "traces") == 0, rows = strcmp(what, "rows") == 0, metrics = strcmp(what, "metrics") == 0;
    call_tab t = {0};
    mct_call c = {0};
    mct_buf b, cj;
    FILE *cf = NULL;
    exporter *x = NULL;
    struct export_stats st = {0};
    uint64_t items = 0, t0, ago = 0, start_ns;
    struct expsink_opts so;
    expsink *sink = NULL;
    char line[512];
    struct timespec now;
    mct_err e;
    int opt;

    if (strcmp(what, "summary") == 0)
        return send_summary(argc, argv);
    if (strcmp(what, "calls") == 0)
        return send_calls(argc, argv);
    if (!traces && !rows && !metrics) {
        fprintf(stderr, "usage: mct-export traces|rows|metrics [-n CALLS] [-k NODES] [-b BYTES] [-u URL] "
                        "[-c FILE] [-e FILE] [-p TRACEPARENT] [-q BYTES] [-t TRIES] [-T MS] [-s MS] [-o SECONDS]\n");
        return 2;
    }
    optind = 2;
    while ((opt = getopt(argc, argv, "n:k:b:u:c:e:p:q:t:T:s:o:")) != -1) {
        switch (opt) {
        case 'n': n_calls = strtoull(optarg, NULL, 10); break;
        case 'k': k = strtoull(optarg, NULL, 10); break;
        case 'b': batch = strtoull(optarg, NULL, 10); break;
        case 'u': url = optarg; break;
        case 'c': calls_file = optarg; break;
        case 'e': expect_file = optarg; break;
        case 'p': traceparent = optarg; break;
        case 'q': o.max_bytes = strtoull(optarg, NULL, 10); break;
        case 't': o.max_tries = (unsigned)atoi(optarg); break;
        case 'T': o.timeout_ms = (unsigned)atoi(optarg); break;
        case 's': o.stop_ms = (unsigned)atoi(optarg); break;
        case 'o': ago = strtoull(optarg, NULL, 10); break;
        default: return 2;
        }
    }
    if (k < 1 || k > 4096) {
        fprintf(stderr, "mct-export: -k takes 1 to 4096 nodes\n");
        return 2;
    }
    if (traceparent != NULL && otlp_traceparent(traceparent, &parent, &e) < 0) {
        fprintf(stderr, "mct-export: %s\n", e.msg);
        return 2;
    }
    if (calls_file != NULL && (cf = fopen(calls_file, "w")) == NULL) {
        perror(calls_file);
        return 2;
    }
    o.url = url;
    o.partial_items = "rejectedDataPoints";
    so = (struct expsink_opts){.kind = traces ? EXPSINK_TRACES : EXPSINK_ROWS, .url = url, .f = stdout,
                               .res = res, .src = src, .batch_bytes = batch, .queue = o};
    clock_gettime(CLOCK_REALTIME, &now);
    start_ns = ((uint64_t)now.tv_sec - ago) * 1000000000u;
    buf_init(&b);
    buf_init(&cj);
    t0 = mono_ns();
    if (!metrics && (sink = expsink_open(&so, &e)) == NULL) {
        fprintf(stderr, "mct-export: %s\n", e.msg);
        return 2;
    }
    for (size_t s = 1; s <= n_calls; s++) {
        size_t i = 0;
        struct call_node *nodes = call_nodes(&c, k);

        if (nodes == NULL)
            return 2;
        gen(&t, nodes, &i, k, 0, s);
        c.seq = s;
        c.start_ns = start_ns + s * 1000000;
        c.thread_id = (int64_t)(s % 4);
        if (call_set_names(&c, "worker-1", s % 5 == 0 ? "java.lang.IllegalStateException" : NULL) < 0)
            return 2;
        if (call_check(&t, &c, &e) < 0 ||
            (sink != NULL && expsink_call(sink, &t, &c, traceparent ? &parent : NULL, &e) < 0)) {
            fprintf(stderr, "mct-export: %s\n", e.msg);
            return 2;
        }
        if (cf != NULL) {
            buf_reset(&cj);
            call_json_line(&cj, &t, &c);
            fwrite(cj.data, 1, cj.len, cf);
        }
        if (rows || metrics)
            note(&t, &c);
        items += c.n_nodes;
    }
    if (sink != NULL) {
        if (expsink_close(sink, &st, line, sizeof line, &e) < 0) {
            fprintf(stderr, "mct-export: %s\n", e.msg);
            return 2;
        }
        if (line[0] != '\0')
            fprintf(stderr, "%s\n", line);
    }
    if (metrics) {
        items = n_ex;
        otlp_metrics_begin(&b, &res, 1);
        for (size_t i = 0; i < n_ex; i++) {
            struct otlp_node nd = {.path = ex[i].path, .path_hash = ex[i].hash, .cls = ex[i].cls,
                                   .name = ex[i].name, .desc = "()V", .depth = ex[i].depth};

            otlp_metric_point(&b, &nd, &ex[i].h, ex[i].sum, start_ns, start_ns + (n_calls + 1) * 1000000, i == 0);
        }
        otlp_metrics_end(&b);
        if (url == NULL) {
            fwrite(b.data, 1, b.len, stdout);
            putchar('\n');
        } else if ((x = export_start(&o, &e)) == NULL) {
            fprintf(stderr, "mct-export: %s\n", e.msg);
            return 2;
        } else {
            export_push(x, b.data, b.len, n_ex);
            export_stop(x, &st);
            export_describe(&st, "metrics", "points", line, sizeof line);
            fprintf(stderr, "%s\n", line);
        }
    }
    if (buf_failed(&b)) {
        fprintf(stderr, "mct-export: out of memory\n");
        return 2;
    }
    {
        double secs = (double)(mono_ns() - t0) / 1e9;

        fprintf(stderr, "elapsed_s=%.3f items=%" PRIu64 " rate=%.0f/s peak_bytes=%zu\n", secs, items,
                secs > 0 ? (double)(url != NULL ? st.sent : items) / secs : 0.0, st.peak_bytes);
    }
    if (expect_file != NULL) {
        FILE *f = fopen(expect_file, "w");

        if (f == NULL) {
            perror(expect_file);
            return 2;
        }
        qsort(ex, n_ex, sizeof *ex, cmp_ex);
        for (size_t i = 0; i < n_ex; i++) {
            if (metrics)
                fprintf(f, "%" PRIu64 "\t%" PRIu64 "\n", ex[i].hash, ex[i].h.count);
            else
                fprintf(f, "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", ex[i].hash, ex[i].rows, ex[i].calls);
        }
        fclose(f);
    }
    if (cf != NULL)
        fclose(cf);
    buf_free(&b);
    buf_free(&cj);
    call_free(&c);
    call_tab_free(&t);
    return 0;
}
