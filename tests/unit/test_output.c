/* test_output.c — the output formats json, tree, chrome and folded on call
 * messages (read by the call model's JSON reader), written through
 * out_open/out_call/out_flush/out_close to a file and read back: exact
 * text, colours, the chrome layout, and odd calls. */
#include "check.h"
#include "slurp.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "fmtutil.h"
#include "output.h"

/* A 3-level call: merged children, a node that threw, on thread main. */
static const char CALL1[] =
    "{\"type\":\"call\",\"seq\":1,\"thread\":{\"id\":1,\"name\":\"main\"},"
    "\"start_ns\":1000000000123456789,"
    "\"root\":{\"class\":\"tgt.Shape\",\"method\":\"run\",\"desc\":\"()J\",\"calls\":1,"
    "\"total_ns\":812345,\"self_ns\":12345,\"min_ns\":812345,\"max_ns\":812345,\"throws\":0,"
    "\"children\":["
    "{\"class\":\"tgt.Price\",\"method\":\"of\",\"desc\":\"(J)J\",\"calls\":20,"
    "\"total_ns\":400000,\"self_ns\":280000,\"min_ns\":15000,\"max_ns\":40000,\"throws\":0,"
    "\"children\":[{\"class\":\"tgt.Tax\",\"method\":\"rate\",\"desc\":\"()D\",\"calls\":20,"
    "\"total_ns\":120000,\"self_ns\":120000,\"min_ns\":5000,\"max_ns\":9000,\"throws\":0,"
    "\"children\":[]}]},"
    "{\"class\":\"tgt.Shape\",\"method\":\"area\",\"desc\":\"()D\",\"calls\":3,"
    "\"total_ns\":400000,\"self_ns\":400000,\"min_ns\":100000,\"max_ns\":200000,\"throws\":2,"
    "\"children\":[]}]}}";

/* An entry method that threw, a truncated child with no self time, an
 * unknown key; another thread, started 2.5 ms after CALL1. */
static const char CALL2[] =
    "{\"type\":\"call\",\"seq\":2,\"thread\":{\"id\":23,\"name\":\"pool-1 worker\"},"
    "\"start_ns\":1000000000125956789,\"future\":[1,2],"
    "\"root\":{\"class\":\"tgt.Fail\",\"method\":\"go\",\"desc\":\"(I)V\",\"calls\":1,"
    "\"total_ns\":1500000000,\"self_ns\":500000000,\"min_ns\":1500000000,"
    "\"max_ns\":1500000000,\"throws\":1,\"exception\":\"java.lang.IllegalStateException\","
    "\"children\":[{\"class\":\"tgt.Fail\",\"method\":\"deep\",\"desc\":\"()V\",\"calls\":1,"
    "\"total_ns\":1000000000,\"self_ns\":0,\"min_ns\":1000000000,\"max_ns\":1000000000,"
    "\"throws\":1,\"truncated\":true,\"children\":[]}]}}";

/* CALL1's thread again, 10 ms after CALL1, one node. */
static const char CALL3[] =
    "{\"type\":\"call\",\"seq\":3,\"thread\":{\"id\":1,\"name\":\"main\"},"
    "\"start_ns\":1000000000133456789,"
    "\"root\":{\"class\":\"tgt.Shape\",\"method\":\"run\",\"desc\":\"()J\",\"calls\":1,"
    "\"total_ns\":999,\"self_ns\":999,\"min_ns\":999,\"max_ns\":999,\"throws\":0,"
    "\"children\":[]}}";

static const char TREE1[] =
    "#1  2001-09-09 01:46:40.123  thread \"main\" (id 1)\n"
    "   total       %     self  calls  method\n"
    "  812 µs  100.0%  12.3 µs         tgt.Shape.run()\n"
    "  400 µs   49.2%   280 µs    20×  ├─ tgt.Price.of(long)"
    "  min 15.0 µs  avg 20.0 µs  max 40.0 µs\n"
    "  120 µs   14.8%   120 µs    20×  │  └─ tgt.Tax.rate()"
    "  min 5.00 µs  avg 6.00 µs  max 9.00 µs\n"
    "  400 µs   49.2%   400 µs     3×  └─ tgt.Shape.area()  threw 2×"
    "  min 100 µs  avg 133 µs  max 200 µs\n";

static const char TREE2[] =
    "#2  2001-09-09 01:46:40.125  thread \"pool-1 worker\" (id 23)\n"
    "   total       %     self  calls  method\n"
    "  1.50 s  100.0%   500 ms         tgt.Fail.go(int)  threw java.lang.IllegalStateException\n"
    "  1.00 s   66.7%     0 ns         └─ tgt.Fail.deep()  threw  [truncated]\n";

static char tmp_path[64];

/* Opens the format on tmp_path with colour forced to color. */
static out *open_fmt(enum cli_format fmt, double slow_ms, int color)
{
    mct_err e;
    out *o = out_open(fmt, tmp_path, slow_ms, &e);

    CHECK(o != NULL);
    if (o != NULL)
        o->color = color;
    return o;
}

/* Writes the call message text through o (out_call, then out_flush); -1
 * when either fails. */
static int write_call(out *o, const char *text)
{
    json_error_t jerr;
    json_t *call = json_loads(text, 0, &jerr);
    call_tab t = {0};
    mct_call c = {0};
    mct_err e;
    int rc;

    if (call == NULL || call_from_json(&t, &c, call, &e) < 0) {
        fprintf(stderr, "bad test call: %s\n", call == NULL ? jerr.text : e.msg);
        check_failures++;
        json_decref(call);
        return -1;
    }
    rc = out_call(o, &t, &c, &e) < 0 ? -1 : out_flush(o, &e);
    json_decref(call);
    call_free(&c);
    call_tab_free(&t);
    return rc;
}

/* Renders the NULL-terminated call messages in fmt; caller frees. */
static char *render(enum cli_format fmt, double slow_ms, int color, const char *const *calls)
{
    out *o = open_fmt(fmt, slow_ms, color);
    mct_err e;

    if (o == NULL)
        return calloc(1, 1);
    for (; *calls != NULL; calls++)
        CHECK_INT(write_call(o, *calls), 0);
    CHECK_INT(out_close(o, &e), 0);
    return slurp(tmp_path);
}

/* Removes the SGR sequences from s in place. */
static void strip_sgr(char *s)
{
    char *w = s;

    while (*s != '\0') {
        if (s[0] == '\033' && s[1] == '[') {
            s += 2;
            while (*s != '\0' && *s != 'm')
                s++;
            if (*s == 'm')
                s++;
        } else {
            *w++ = *s++;
        }
    }
    *w = '\0';
}

/* Checks that s contains part. */
#define CHECK_HAS(s, part)                                                     \
    do {                                                                       \
        if (strstr((s), (part)) == NULL) {                                     \
            fprintf(stderr, "%s:%d: output lacks \"%s\":\n%s\n", __FILE__,    \
                    __LINE__, (part), (s));                                    \
            check_failures++;                                                  \
        }                                                                      \
    } while (0)

static void test_duration(void)
{
    static const struct { double ns; const char *text; } cases[] = {
        { 0, "0 ns" }, { 7, "7 ns" }, { 999, "999 ns" }, { 999.4, "999 ns" },
        { 999.5, "1.00 µs" }, { 1000, "1.00 µs" }, { 12345, "12.3 µs" },
        { 99949, "99.9 µs" }, { 99950, "100 µs" }, { 812345, "812 µs" },
        { 999499, "999 µs" }, { 999500, "1.00 ms" }, { 1200000, "1.20 ms" },
        { 999999999, "1.00 s" }, { 61e9, "61.0 s" }, { 1234e9, "1234 s" },
        { -5, "0 ns" },
    };
    char buf[FU_DUR_MAX];

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fu_duration(buf, sizeof buf, cases[i].ns);
        CHECK_STR(buf, cases[i].text);
    }
    CHECK_INT(fu_width("12.3 µs"), 7);
    CHECK_INT(fu_width("20×"), 3);
}

static void test_tree_plain(void)
{
    const char *const calls[] = { CALL1, CALL2, NULL };
    char want[4096];
    char *got = render(CLI_FORMAT_TREE, -1, 0, calls);

    snprintf(want, sizeof want, "%s\n%s", TREE1, TREE2);
    CHECK_STR(got, want);
    free(got);
}

static void test_tree_color(void)
{
    const char *const one[] = { CALL1, NULL };
    char *got = render(CLI_FORMAT_TREE, 0.1, 1, one);
    char *plain = render(CLI_FORMAT_TREE, 0.1, 0, one);
    char *nohl = render(CLI_FORMAT_TREE, -1, 1, one);

    /* root (812 µs) and area (max 200 µs) reach 0.1 ms; of (max 40 µs) does not */
    CHECK_HAS(got, "\033[1;30;43m  812 µs \033[0m 100.0%");
    CHECK_HAS(got, "\033[1;30;43m  400 µs \033[0m  49.2%   400 µs");
    CHECK_HAS(got, "\n  400 µs   49.2%   280 µs");
    CHECK_HAS(got, "\033[1;33m[slow]\033[0m");
    /* kinds: entry cyan, ordinary bold, threw red; class dim, tree dim */
    CHECK_HAS(got, "\033[2mtgt.Shape.\033[0m\033[1;36mrun\033[0m\033[2m()\033[0m");
    CHECK_HAS(got, "\033[2m├─ \033[0m\033[2mtgt.Price.\033[0m\033[1mof\033[0m");
    CHECK_HAS(got, "\033[1;31marea\033[0m");
    CHECK_HAS(got, "\033[1;31mthrew 2×\033[0m");
    /* the same text as without colour, where [slow] marks the slow nodes */
    strip_sgr(got);
    CHECK_STR(got, plain);
    CHECK_HAS(plain, "tgt.Shape.run()  [slow]\n");
    CHECK_HAS(plain, "tgt.Price.of(long)  min");
    CHECK_HAS(plain, "tgt.Shape.area()  [slow]  threw 2×");
    /* no --slow-ms, no highlight */
    CHECK(strstr(nohl, "43m") == NULL && strstr(nohl, "[slow]") == NULL);
    CHECK_HAS(nohl, "\033[1;36mrun\033[0m");
    free(got);
    free(plain);
    free(nohl);
}

static void test_tree_truncated_color(void)
{
    const char *const two[] = { CALL2, NULL };
    char *got = render(CLI_FORMAT_TREE, -1, 1, two);

    CHECK_HAS(got, "\033[1;31mgo\033[0m");
    CHECK_HAS(got, "\033[1;31mthrew java.lang.IllegalStateException\033[0m");
    CHECK_HAS(got, "\033[2mdeep\033[0m");
    CHECK_HAS(got, "\033[33m[truncated]\033[0m");
    free(got);
}

/* The events of a chrome file, parsed; NULL when it is not a JSON array. */
static json_t *chrome_events(const char *text)
{
    json_error_t jerr;
    json_t *a = json_loads(text, 0, &jerr);

    if (!json_is_array(a)) {
        fprintf(stderr, "chrome output does not parse (%s):\n%s\n", jerr.text, text);
        check_failures++;
        json_decref(a);
        return NULL;
    }
    return a;
}

/* Checks event i of events: ph, name, tid, ts and dur (X only). */
static void check_event(const json_t *events, size_t i, const char *ph, const char *name,
                        long long tid, double ts, double dur)
{
    const json_t *ev = json_array_get(events, i);

    CHECK_STR(json_string_value(json_object_get(ev, "ph")), ph);
    CHECK_STR(json_string_value(json_object_get(ev, "name")), name);
    CHECK_INT(json_integer_value(json_object_get(ev, "pid")), 1);
    CHECK_INT(json_integer_value(json_object_get(ev, "tid")), tid);
    if (strcmp(ph, "X") != 0)
        return;
    CHECK_STR(json_string_value(json_object_get(ev, "cat")), "mcalltree");
    if (json_number_value(json_object_get(ev, "ts")) != ts
        || json_number_value(json_object_get(ev, "dur")) != dur) {
        fprintf(stderr, "event %zu (%s): ts %g dur %g, want %g %g\n", i, name,
                json_number_value(json_object_get(ev, "ts")),
                json_number_value(json_object_get(ev, "dur")), ts, dur);
        check_failures++;
    }
}

static void test_chrome(void)
{
    const char *const calls[] = { CALL1, CALL2, CALL3, NULL };
    char *text = render(CLI_FORMAT_CHROME, -1, 0, calls);
    json_t *events = chrome_events(text);
    const json_t *args;

    CHECK_INT(json_array_size(events), 10);
    check_event(events, 0, "M", "process_name", 0, 0, 0);
    CHECK_STR(json_string_value(json_object_get(json_object_get(json_array_get(events, 0), "args"), "name")), "mcalltree");
    check_event(events, 1, "M", "thread_name", 1, 0, 0);
    CHECK_STR(json_string_value(json_object_get(json_object_get(json_array_get(events, 1), "args"), "name")), "main");
    /* children laid out one after another from the parent's start */
    check_event(events, 2, "X", "tgt.Shape.run", 1, 0, 812.345);
    check_event(events, 3, "X", "tgt.Price.of", 1, 0, 400);
    check_event(events, 4, "X", "tgt.Tax.rate", 1, 0, 120);
    check_event(events, 5, "X", "tgt.Shape.area", 1, 400, 400);
    /* another thread: named once, its call 2.5 ms after the first */
    check_event(events, 6, "M", "thread_name", 23, 0, 0);
    CHECK_STR(json_string_value(json_object_get(json_object_get(json_array_get(events, 6), "args"), "name")), "pool-1 worker");
    check_event(events, 7, "X", "tgt.Fail.go", 23, 2500, 1500000);
    check_event(events, 8, "X", "tgt.Fail.deep", 23, 2500, 1000000);
    /* thread 1 again: no second thread_name */
    check_event(events, 9, "X", "tgt.Shape.run", 1, 10000, 0.999);

    args = json_object_get(json_array_get(events, 3), "args");
    CHECK_STR(json_string_value(json_object_get(args, "desc")), "(J)J");
    CHECK_INT(json_integer_value(json_object_get(args, "calls")), 20);
    CHECK_INT(json_integer_value(json_object_get(args, "total_ns")), 400000);
    CHECK_INT(json_integer_value(json_object_get(args, "self_ns")), 280000);
    CHECK_INT(json_integer_value(json_object_get(args, "min_ns")), 15000);
    CHECK_INT(json_integer_value(json_object_get(args, "max_ns")), 40000);
    CHECK_INT(json_integer_value(json_object_get(args, "throws")), 0);
    CHECK(json_object_get(args, "seq") == NULL);
    args = json_object_get(json_array_get(events, 7), "args");
    CHECK_INT(json_integer_value(json_object_get(args, "seq")), 2);
    CHECK_STR(json_string_value(json_object_get(args, "exception")), "java.lang.IllegalStateException");
    args = json_object_get(json_array_get(events, 8), "args");
    CHECK(json_is_true(json_object_get(args, "truncated")));
    json_decref(events);
    free(text);
}

/* Tasks handed off (--follow-async): two on thread w-1, handed off 50 and
 * 600 us into the call, queued 100 and 200 us, running 300 us each, and a
 * pending one handed off past the call's end. */
static const char CALL_ASYNC[] =
    "{\"type\":\"call\",\"seq\":4,\"thread\":{\"id\":1,\"name\":\"main\"},"
    "\"start_ns\":1000000000123456789,"
    "\"root\":{\"class\":\"tgt.A\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":1,"
    "\"total_ns\":1000000,\"self_ns\":1000000,\"min_ns\":1000000,\"max_ns\":1000000,\"throws\":0,"
    "\"children\":["
    "{\"class\":\"java.lang.Runnable\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":1,"
    "\"total_ns\":300000,\"self_ns\":300000,\"min_ns\":300000,\"max_ns\":300000,\"throws\":0,"
    "\"async\":true,\"handoff_ns\":50000,\"thread\":\"w-1\",\"queued_ns\":100000,\"children\":[]},"
    "{\"class\":\"java.lang.Runnable\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":1,"
    "\"total_ns\":300000,\"self_ns\":300000,\"min_ns\":300000,\"max_ns\":300000,\"throws\":0,"
    "\"async\":true,\"handoff_ns\":600000,\"thread\":\"w-1\",\"queued_ns\":200000,\"children\":[]},"
    "{\"class\":\"java.lang.Runnable\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":0,"
    "\"total_ns\":0,\"self_ns\":0,\"min_ns\":0,\"max_ns\":0,\"throws\":0,"
    "\"async\":true,\"pending\":true,\"handoff_ns\":2000000,\"children\":[]}]}}";

/* -f chrome of tasks handed off: on a track of their thread's (named once),
 * at their hand-off plus queued_ns; a flow pair each from the hand-off;
 * the pending one an instant on the caller's track, at the end of the
 * caller's slice (its hand-off is kept within it). */
static void test_chrome_async(void)
{
    const char *const calls[] = { CALL_ASYNC, NULL };
    char *text = render(CLI_FORMAT_CHROME, -1, 0, calls);
    json_t *events = chrome_events(text);
    const long long w = 1000000000;

    CHECK_INT(json_array_size(events), 11);
    check_event(events, 1, "M", "thread_name", 1, 0, 0);
    check_event(events, 2, "X", "tgt.A.run", 1, 0, 1000);
    check_event(events, 3, "M", "thread_name", w, 0, 0);
    CHECK_STR(json_string_value(json_object_get(json_object_get(json_array_get(events, 3), "args"), "name")), "w-1");
    check_event(events, 4, "s", "handoff", 1, 0, 0);
    CHECK(json_number_value(json_object_get(json_array_get(events, 4), "ts")) == 50);
    check_event(events, 5, "f", "handoff", w, 0, 0);
    CHECK(json_number_value(json_object_get(json_array_get(events, 5), "ts")) == 150);
    check_event(events, 6, "X", "java.lang.Runnable.run", w, 150, 300);
    CHECK(json_is_true(json_object_get(json_object_get(json_array_get(events, 6), "args"), "async")));
    CHECK_INT(json_integer_value(json_object_get(json_object_get(json_array_get(events, 6), "args"), "queued_ns")),
              100000);
    check_event(events, 7, "s", "handoff", 1, 0, 0);
    CHECK(json_number_value(json_object_get(json_array_get(events, 7), "ts")) == 600);
    check_event(events, 8, "f", "handoff", w, 0, 0);
    check_event(events, 9, "X", "java.lang.Runnable.run", w, 800, 300);
    check_event(events, 10, "i", "java.lang.Runnable.run", 1, 0, 0);
    CHECK(json_number_value(json_object_get(json_array_get(events, 10), "ts")) == 1000);
    CHECK(json_is_true(json_object_get(json_object_get(json_array_get(events, 10), "args"), "pending")));
    json_decref(events);
    free(text);
}

static void test_chrome_unterminated(void)
{
    out *o = open_fmt(CLI_FORMAT_CHROME, -1, 0);
    mct_err e;
    char *text;
    json_t *events;

    if (o == NULL)
        return;
    CHECK_INT(write_call(o, CALL1), 0);
    /* a killed client leaves the file as it is now: only "]" is missing */
    text = slurp(tmp_path);
    CHECK(text != NULL && text[0] == '[' && text[strlen(text) - 1] == '}');
    if (text != NULL)
        strcat(text, "]");
    events = chrome_events(text);
    CHECK_INT(json_array_size(events), 6);
    json_decref(events);
    free(text);
    CHECK_INT(out_close(o, &e), 0);
    text = slurp(tmp_path);
    events = chrome_events(text);
    CHECK_INT(json_array_size(events), 6);
    json_decref(events);
    free(text);
}

static void test_chrome_empty_and_order(void)
{
    const char *const none[] = { NULL };
    const char *const late_first[] = { CALL2, CALL1, NULL };
    char *text = render(CLI_FORMAT_CHROME, -1, 0, none);
    json_t *events = chrome_events(text);

    CHECK_STR(text, "[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,"
                    "\"args\":{\"name\":\"mcalltree\"}}\n]\n");
    CHECK_INT(json_array_size(events), 1);
    json_decref(events);
    free(text);
    /* a call that started before the origin is placed at 0, never before */
    text = render(CLI_FORMAT_CHROME, -1, 0, late_first);
    events = chrome_events(text);
    CHECK_INT(json_array_size(events), 9);
    check_event(events, 2, "X", "tgt.Fail.go", 23, 0, 1500000);
    check_event(events, 5, "X", "tgt.Shape.run", 1, 0, 812.345);
    json_decref(events);
    free(text);
}

static void test_folded(void)
{
    static const char odd_names[] =
        "{\"type\":\"call\",\"seq\":4,\"thread\":{\"id\":1,\"name\":\"main\"},"
        "\"start_ns\":1,\"root\":{\"class\":\"a;b c\",\"method\":\"x\\ny\\u007f\\u009bz\","
        "\"desc\":\"()V\",\"calls\":1,\"total_ns\":5,\"self_ns\":5,\"min_ns\":5,"
        "\"max_ns\":5,\"throws\":0,\"children\":[]}}";
    const char *const calls[] = { CALL1, CALL2, odd_names, NULL };
    char *got = render(CLI_FORMAT_FOLDED, -1, 0, calls);

    CHECK_STR(got, "tgt.Shape.run 12345\n"
                   "tgt.Shape.run;tgt.Price.of 280000\n"
                   "tgt.Shape.run;tgt.Price.of;tgt.Tax.rate 120000\n"
                   "tgt.Shape.run;tgt.Shape.area 400000\n"
                   "tgt.Fail.go 500000000\n"
                   "a_b_c.x_y__z 5\n");
    free(got);
}

/* --folded-value cpu: a node's self CPU time is its own less all its
 * children's, leaves among them. */
static void test_folded_cpu(void)
{
    static const char cpu_call[] =
        "{\"type\":\"call\",\"seq\":1,\"thread\":{\"id\":1,\"name\":\"main\"},\"start_ns\":1,"
        "\"root\":{\"class\":\"c.R\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":100,"
        "\"self_ns\":30,\"min_ns\":100,\"max_ns\":100,\"throws\":0,\"cpu_ns\":90,\"children\":["
        "{\"class\":\"c.A\",\"method\":\"a\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":40,\"self_ns\":40,"
        "\"min_ns\":40,\"max_ns\":40,\"throws\":0,\"cpu_ns\":30,\"children\":[]},"
        "{\"class\":\"c.B\",\"method\":\"b\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":30,\"self_ns\":30,"
        "\"min_ns\":30,\"max_ns\":30,\"throws\":0,\"cpu_ns\":20,\"children\":[]}]}}";
    out *o = open_fmt(CLI_FORMAT_FOLDED, -1, 0);
    mct_err e;
    char *got;

    o->value = OUT_VALUE_CPU;
    CHECK_INT(write_call(o, cpu_call), 0);
    CHECK_INT(out_close(o, &e), 0);
    got = slurp(tmp_path);
    CHECK_STR(got, "c.R.run 40\nc.R.run;c.A.a 30\nc.R.run;c.B.b 20\n");
    free(got);
}

/* A chain of n nodes, each with 1 ns of self time; caller decrefs. */
static json_t *chain(int n)
{
    json_t *node = NULL;

    for (int i = n; i > 0; i--) {
        json_t *kids = json_array();

        if (node != NULL)
            json_array_append_new(kids, node);
        node = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:o}", "class", "deep.C",
                         "method", "m", "desc", "()V", "calls", 1, "total_ns", i, "self_ns", 1,
                         "min_ns", i, "max_ns", i, "throws", 0, "children", kids);
    }
    return json_pack("{s:s, s:i, s:{s:i, s:s}, s:I, s:o}", "type", "call", "seq", 1, "thread", "id",
                     1, "name", "main", "start_ns", (json_int_t)1, "root", node);
}

/* Counts the lines of s that contain part. */
static int count_lines(const char *s, const char *part)
{
    int n = 0;

    while (s != NULL && *s != '\0') {
        const char *nl = strchr(s, '\n');
        size_t len = nl != NULL ? (size_t)(nl - s) : strlen(s);
        const char *hit = strstr(s, part);

        if (hit != NULL && hit < s + len)
            n++;
        s += len + (nl != NULL);
    }
    return n;
}

/* A call holds at most FU_MAX_DEPTH levels (the model's bound, which the
 * reader enforces); one that deep is written whole by every format. */
static void test_depth_limit(void)
{
    json_t *call = chain(FU_MAX_DEPTH), *deeper = chain(FU_MAX_DEPTH + 1);
    static const enum cli_format fmts[] = { CLI_FORMAT_TREE, CLI_FORMAT_CHROME, CLI_FORMAT_FOLDED };
    call_tab t = {0};
    mct_call c = {0};
    mct_err e;

    CHECK_INT(call_from_json(&t, &c, deeper, &e), -1);
    CHECK_HAS(e.msg, "nested deeper than 64 levels");
    CHECK_INT(call_from_json(&t, &c, call, &e), 0);
    for (size_t i = 0; i < 3; i++) {
        out *o = open_fmt(fmts[i], -1, 0);
        char *text;

        if (o == NULL)
            continue;
        CHECK_INT(out_call(o, &t, &c, &e), 0);
        CHECK_INT(out_close(o, &e), 0);
        text = slurp(tmp_path);
        CHECK_INT(count_lines(text, "deep.C"), FU_MAX_DEPTH);
        if (fmts[i] == CLI_FORMAT_TREE)
            CHECK_INT(count_lines(text, "[deeper calls not shown]"), 0);
        free(text);
    }
    call_free(&c);
    call_tab_free(&t);
    json_decref(call);
    json_decref(deeper);
}

/* Malformed calls never reach a format: the reader refuses each, naming
 * what is wrong. What a call may hold (a name that drives a terminal, the
 * largest numbers) every format writes safely. */
static void test_odd_messages(void)
{
    static const char *const bad[] = {
        "{}",
        "{\"type\":\"call\",\"root\":[1,2],\"thread\":\"x\",\"seq\":\"a\",\"start_ns\":-7}",
        "{\"type\":\"call\",\"seq\":1,\"start_ns\":1,\"thread\":{\"id\":1,\"name\":\"m\"},"
        "\"root\":{\"class\":5,\"method\":null,\"total_ns\":-5,\"calls\":1.5e300,"
        "\"max_ns\":2.5,\"children\":{\"a\":1},\"truncated\":1}}",
        "{\"type\":\"call\",\"seq\":1,\"start_ns\":1,\"thread\":{\"id\":1,\"name\":\"m\"},"
        "\"root\":{\"class\":\"c\",\"method\":\"m\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":10,"
        "\"self_ns\":1,\"min_ns\":1,\"max_ns\":1,\"throws\":0,\"children\":[1,\"x\",null]}}",
    };
    static const char *const odd[] = {
        "{\"type\":\"call\",\"seq\":1,\"start_ns\":1,\"thread\":{\"id\":3,"
        "\"name\":\"evil\\u001b[31m\\u009b\"},\"root\":{\"class\":\"c\",\"method\":\"m\","
        "\"desc\":\"()V\",\"calls\":2,\"total_ns\":3,\"self_ns\":3,\"min_ns\":1,\"max_ns\":2,"
        "\"throws\":0,\"children\":[]}}",
        "{\"type\":\"call\",\"seq\":9223372036854775807,\"start_ns\":9223372036854775807,"
        "\"thread\":{\"id\":9223372036854775807,\"name\":\"\"},"
        "\"root\":{\"class\":\"c\",\"method\":\"m\",\"desc\":\"()V\",\"calls\":9223372036854775807,"
        "\"total_ns\":9223372036854775807,\"self_ns\":0,\"min_ns\":0,\"max_ns\":9223372036854775807,"
        "\"throws\":9223372036854775807,\"children\":[{\"class\":\"c\",\"method\":\"k\",\"desc\":\"()V\","
        "\"calls\":1,\"total_ns\":9223372036854775807,\"self_ns\":0,\"min_ns\":0,\"max_ns\":0,"
        "\"throws\":0,\"children\":[]}]}}",
        NULL,
    };
    static const enum cli_format fmts[] = { CLI_FORMAT_TREE, CLI_FORMAT_CHROME, CLI_FORMAT_FOLDED };

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *j = json_loads(bad[i], 0, NULL);
        call_tab t = {0};
        mct_call c = {0};
        mct_err e;

        mct_err_clear(&e);
        CHECK(j != NULL && call_from_json(&t, &c, j, &e) < 0 && strncmp(e.msg, "call: ", 6) == 0);
        json_decref(j);
        call_free(&c);
        call_tab_free(&t);
    }
    for (size_t i = 0; i < 3; i++) {
        char *text = render(fmts[i], 0, 1, odd);

        CHECK(text != NULL);
        if (fmts[i] == CLI_FORMAT_TREE) {
            CHECK(strchr(text, '\x9b') == NULL);
            strip_sgr(text);
            CHECK_HAS(text, "thread \"evil?[31m?\" (id 3)");
        }
        if (fmts[i] == CLI_FORMAT_CHROME)
            json_decref(chrome_events(text));
        free(text);
    }
}

/* Whether s holds a byte that drives a terminal: C0 but the newline, DEL,
 * or a C1 control in UTF-8 (0xc2 0x80..0x9f). */
static int has_raw_control(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++)
        if ((*p < 0x20 && *p != '\n') || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
            return 1;
    return 0;
}

/* JSON out of the client (the json and chrome formats, fu_json_dump) holds
 * DEL and C1 controls as \u escapes, and still means the same; other text
 * beyond ASCII (é, U+00A0, 𝑓) is left as it is. */
static void test_json_controls(void)
{
    static const char call[] =
        "{\"type\":\"call\",\"seq\":4,\"thread\":{\"id\":7,\"name\":\"\\u009bt\\u007f\\u0085\"},"
        "\"start_ns\":1000000000123456789,"
        "\"root\":{\"class\":\"tgt.C\\u00e9\\u00a0\",\"method\":\"ev\\u001bil\\u0007x\\u009b\","
        "\"desc\":\"()V\",\"calls\":1,\"total_ns\":5,\"self_ns\":5,\"min_ns\":5,\"max_ns\":5,"
        "\"throws\":0,\"children\":[{\"class\":\"tgt.\\ud835\\udc53\\u00c2\\u0080\","
        "\"method\":\"\\u007f\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":1,\"self_ns\":1,"
        "\"min_ns\":1,\"max_ns\":1,\"throws\":0,\"children\":[]}]}}";
    const char *const calls[] = { call, NULL };
    json_t *orig = json_loads(call, 0, NULL), *back, *events;
    char *text;
    FILE *f;

    text = render(CLI_FORMAT_JSON, -1, 0, calls);
    CHECK(!has_raw_control(text));
    CHECK_HAS(text, "\"name\":\"\\u009Bt\\u007F\\u0085\"");
    CHECK_HAS(text, "\"method\":\"ev\\u001Bil\\u0007x\\u009B\"");
    CHECK_HAS(text, "\"class\":\"tgt.C\xc3\xa9\xc2\xa0\"");
    CHECK_HAS(text, "\"class\":\"tgt.\xf0\x9d\x91\x93\xc3\x82\\u0080\"");
    back = json_loads(text, 0, NULL);
    CHECK(back != NULL && json_equal(back, orig));
    json_decref(back);
    free(text);

    text = render(CLI_FORMAT_CHROME, -1, 0, calls);
    CHECK(!has_raw_control(text));
    events = chrome_events(text);
    CHECK_INT(json_array_size(events), 4);
    CHECK_STR(json_string_value(json_object_get(json_object_get(json_array_get(events, 1), "args"), "name")),
              "\xc2\x9bt\x7f\xc2\x85");
    CHECK_STR(json_string_value(json_object_get(json_array_get(events, 2), "name")),
              "tgt.C\xc3\xa9\xc2\xa0.ev\x1bil\x07x\xc2\x9b");
    json_decref(events);
    free(text);

    /* A lone string, a bare value, and a failing file. */
    f = fopen(tmp_path, "w");
    CHECK(f != NULL);
    if (f != NULL) {
        json_t *str = json_string("\x7f\xc2\x9f\xc2\xa0\xc2\x80");

        CHECK_INT(fu_json_dump(f, str, JSON_ENCODE_ANY), 0);
        json_decref(str);
        fclose(f);
        text = slurp(tmp_path);
        CHECK_STR(text, "\"\\u007F\\u009F\xc2\xa0\\u0080\"");
        free(text);
    }
    f = fopen("/dev/full", "w");
    if (f != NULL) {
        setvbuf(f, NULL, _IONBF, 0);
        CHECK_INT(fu_json_dump(f, orig, JSON_COMPACT), -1);
        fclose(f);
    }
    json_decref(orig);
}

static void test_write_error(void)
{
    static const enum cli_format fmts[] = { CLI_FORMAT_TREE, CLI_FORMAT_CHROME, CLI_FORMAT_FOLDED };

    if (access("/dev/full", W_OK) != 0)
        return;
    for (size_t i = 0; i < 3; i++) {
        mct_err e;
        out *o = out_open(fmts[i], "/dev/full", -1, &e);

        CHECK(o != NULL);
        if (o == NULL)
            continue;
        CHECK_INT(write_call(o, CALL1), -1);
        CHECK_INT(out_close(o, &e), -1);
    }
}

static void test_java_params(void)
{
    char buf[128], tiny[8];

    fu_java_params(buf, sizeof buf, "()V");
    CHECK_STR(buf, "()");
    fu_java_params(buf, sizeof buf, "(Ljava/lang/String;[IJ)V");
    CHECK_STR(buf, "(String, int[], long)");
    fu_java_params(buf, sizeof buf, "([[Lcom/shop/Cart$Line;ZBCSFD)Ljava/util/List;");
    CHECK_STR(buf, "(Cart$Line[][], boolean, byte, char, short, float, double)");
    fu_java_params(buf, sizeof buf, "(LNoPackage;)V");
    CHECK_STR(buf, "(NoPackage)");
    fu_java_params(buf, sizeof buf, "(Q)V");
    CHECK_STR(buf, "(Q)V");
    fu_java_params(buf, sizeof buf, "(Ljava/lang/String)V");
    CHECK_STR(buf, "(Ljava/lang/String)V");
    fu_java_params(buf, sizeof buf, "?");
    CHECK_STR(buf, "?");
    fu_java_params(tiny, sizeof tiny, "(Ljava/lang/String;)V");
    CHECK_STR(tiny, "(Ljava/");
}

int main(void)
{
    int fd;

    setenv("TZ", "UTC", 1);
    tzset();
    snprintf(tmp_path, sizeof tmp_path, "%s", "/tmp/test_output.XXXXXX");
    fd = mkstemp(tmp_path);
    if (fd < 0) {
        perror("mkstemp");
        return 1;
    }
    close(fd);
    test_duration();
    test_java_params();
    test_tree_plain();
    test_tree_color();
    test_tree_truncated_color();
    test_chrome();
    test_chrome_async();
    test_chrome_unterminated();
    test_chrome_empty_and_order();
    test_folded();
    test_folded_cpu();
    test_depth_limit();
    test_odd_messages();
    test_json_controls();
    test_write_error();
    unlink(tmp_path);
    return check_status();
}
