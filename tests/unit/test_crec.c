/* test_crec.c — the call model's compact encoding (protocol/call.h): frames
 * as the agent writes them decode to the call they hold; every malformed
 * record is refused with a message naming what is wrong; each output format
 * writes a decoded call exactly as it writes the same call read back from
 * its JSON line (call_json_line, then call_from_json: names with every
 * escape), the warm-up flag included; the model's encoder writes what the
 * decoder reads; the trace parent (W3C traceparents, its 25 bytes, its
 * JSON string); and calls stay buffered until out_flush. */
#include "check.h"
#include "slurp.h"

#include <stdlib.h>
#include <unistd.h>

#include "call.h"
#include "fmtutil.h"
#include "output.h"
#include "proto.h"

static char tmp_path[64];

/* Names with what JSON must escape: a quote, a backslash, control
 * characters, DEL, C1 controls, and characters beyond ASCII. */
#define ODD_CLASS "a.B\"\\\x01\x1f\x7f\xc2\x85\xc2\x9f\xe2\x80\xa8\xf0\x9f\x98\x80"
#define ODD_THREAD "t\"\t\n\r\b\f\xc2\x80\xc3\xa9"

/* A string of the compact encoding: its length, then its bytes. */
static void put_str(mct_buf *b, const char *s)
{
    buf_u4(b, (uint32_t)strlen(s));
    buf_bytes(b, s, strlen(s));
}

static void def(mct_buf *b, uint32_t id, const char *cls, const char *name, const char *desc)
{
    size_t at = call_frame_begin(b, CALL_DEF);

    buf_u4(b, id);
    put_str(b, cls);
    put_str(b, name);
    put_str(b, desc);
    CHECK_INT(call_frame_end(b, at), 0);
}

struct tnode {
    uint32_t method, kids;
    unsigned flags;
    uint64_t calls, total, self, min, max, throws;
};

/* A call frame; count: the node count written (n unless testing a lie). */
static void call(mct_buf *b, unsigned flags, uint64_t seq, const char *thread, const char *exc,
                 const struct tnode *nodes, uint32_t n, uint32_t count)
{
    size_t at = call_frame_begin(b, CALL_REC);
    uint32_t i;

    buf_u1(b, flags);
    buf_u8(b, seq);
    buf_u8(b, 23);
    buf_u8(b, 1000000000125956789ull);
    put_str(b, thread);
    put_str(b, exc);
    buf_u4(b, count);
    for (i = 0; i < n; i++) {
        buf_u4(b, nodes[i].method);
        buf_u1(b, nodes[i].flags);
        buf_u4(b, nodes[i].kids);
        buf_u8(b, nodes[i].calls);
        buf_u8(b, nodes[i].total);
        buf_u8(b, nodes[i].self);
        buf_u8(b, nodes[i].min);
        buf_u8(b, nodes[i].max);
        buf_u8(b, nodes[i].throws);
    }
    CHECK_INT(call_frame_end(b, at), 0);
}

static const struct tnode TREE[] = {
    {0, 2, 0, 1, 1500000000, 500000000, 1500000000, 1500000000, 1},
    {1, 1, 0, 20, 400000, 280000, 15000, 40000, 0},
    {2, 0, 0, 20, 120000, 120000, 5000, 9000, 0},
    {3, 0, CALL_N_TRUNCATED, 3, 600000000, 600000000, 100000, 200000, 2},
};

/* Decodes every frame of b into t and c; the last result, or -1 with e at
 * the first refusal. */
static int decode_all(const mct_buf *b, call_tab *t, mct_call *c, mct_err *e)
{
    size_t pos = 0;
    int rc = -1;

    while (pos < b->len) {
        uint32_t len;

        if (proto_header_decode(b->data + pos, PROTO_REPLY, &len, e) < 0)
            return -1;
        rc = call_decode(t, c, b->data + pos + PROTO_HEADER_LEN, len, e);
        if (rc < 0)
            return -1;
        pos += PROTO_HEADER_LEN + len;
    }
    return rc;
}

static void defs(mct_buf *b)
{
    def(b, 0, ODD_CLASS, "go", "(I)V");
    def(b, 1, "tgt.Price", "of", "(J)J");
    def(b, 2, "tgt.Tax", "rate", "()D");
    def(b, 3, "tgt.Shape", "<init>", "()V");
}

static void test_decode(void)
{
    mct_buf b = {0};
    call_tab t = {0};
    mct_call c = {0};
    mct_err e;

    defs(&b);
    call(&b, CALL_F_WARMUP, 7, ODD_THREAD, "java.lang.IllegalStateException", TREE, 4, 4);
    CHECK_INT(decode_all(&b, &t, &c, &e), CALL_REC);
    CHECK_INT(c.seq, 7);
    CHECK_INT(c.flags, CALL_F_WARMUP);
    CHECK_INT(c.thread_id, 23);
    CHECK_STR(c.thread_name, ODD_THREAD);
    CHECK_STR(c.exception, "java.lang.IllegalStateException");
    CHECK_INT(c.n_nodes, 4);
    CHECK_INT(c.nodes[3].flags, CALL_N_TRUNCATED);
    CHECK_INT(c.nodes[1].n_children, 1);
    CHECK_STR(t.m[0]->cls, ODD_CLASS);
    call_free(&c);
    call_tab_free(&t);
    buf_free(&b);
}

/* bad holds frames whose last is refused with a message containing want. */
static void refused(const mct_buf *bad, const char *want)
{
    call_tab t = {0};
    mct_call c = {0};
    mct_err e;

    mct_err_clear(&e);
    CHECK_INT(decode_all(bad, &t, &c, &e), -1);
    if (strstr(e.msg, want) == NULL) {
        fprintf(stderr, "refusal \"%s\" lacks \"%s\"\n", e.msg, want);
        check_failures++;
    }
    call_free(&c);
    call_tab_free(&t);
}

static void test_refused(void)
{
    struct tnode chain[PROTO_MAX_DEPTH + 1];
    mct_buf b = {0};
    size_t at;
    int i;

    defs(&b);
    call(&b, 0, 1, "main", "", (const struct tnode[]){{9, 0, 0, 1, 1, 1, 1, 1, 0}}, 1, 1);
    refused(&b, "node 0 names method 9, which was never defined");
    buf_reset(&b);
    defs(&b);
    def(&b, 2, "a.B", "m", "()V");
    refused(&b, "method 2 is defined twice");
    buf_reset(&b);
    defs(&b);
    call(&b, 0, 1, "main", "", TREE, 4, 1000);
    refused(&b, "1000 nodes do not fit the");
    buf_reset(&b);
    defs(&b);
    call(&b, 0, 1, "main", "", TREE, 2, 2);
    refused(&b, "the tree ends with 1 children missing");
    buf_reset(&b);
    defs(&b);
    call(&b, 0, 1, "main", "", (const struct tnode[]){{0, 0, 0, 1, 1, 1, 1, 1, 0}, {1, 0, 0, 1, 1, 1, 1, 1, 0}}, 2,
         2);
    refused(&b, "1 nodes after the root's tree");
    buf_reset(&b);
    defs(&b);
    for (i = 0; i <= PROTO_MAX_DEPTH; i++)
        chain[i] = (struct tnode){0, i < PROTO_MAX_DEPTH, 0, 1, 1, 1, 1, 1, 0};
    call(&b, 0, 1, "main", "", chain, PROTO_MAX_DEPTH + 1, PROTO_MAX_DEPTH + 1);
    refused(&b, "the tree nests deeper than 64");
    buf_reset(&b);
    defs(&b);
    call(&b, 0, 1, "main", "", (const struct tnode[]){{0, 0, 0, 1, (uint64_t)1 << 63, 1, 1, 1, 0}}, 1, 1);
    refused(&b, "total_ns: 9223372036854775808 is over 9223372036854775807");
    buf_reset(&b);
    defs(&b);
    call(&b, 0, 0, "main", "", TREE, 4, 4);
    refused(&b, "seq 0 (they begin at 1)");
    buf_reset(&b);
    defs(&b);
    call(&b, 0x80, 1, "main", "", TREE, 4, 4);
    refused(&b, "unknown call flags 0x80");
    buf_reset(&b);
    defs(&b);
    call(&b, 0, 1, "main", "", (const struct tnode[]){{0, 0, 0x20, 1, 1, 1, 1, 1, 0}}, 1, 1);
    refused(&b, "node 0 has unknown flags 0x20");
    buf_reset(&b);
    defs(&b);
    call(&b, 0, 1, "ma\xffin", "", TREE, 4, 4);
    refused(&b, "thread name: not UTF-8, or holds a NUL byte");
    buf_reset(&b);
    def(&b, 0, "", "m", "()V");
    refused(&b, "the method's class: empty");
    buf_reset(&b);
    at = call_frame_begin(&b, CALL_DEF);
    buf_u4(&b, 0);
    buf_u4(&b, 99);
    buf_u1(&b, 'a');
    CHECK_INT(call_frame_end(&b, at), 0);
    refused(&b, "the method's class: a length of 99 bytes does not fit the 1 left");
    buf_reset(&b);
    def(&b, CALL_MAX_ID, "a.B", "m", "()V");
    refused(&b, "method number 16777216 is over 16777215");
    buf_reset(&b);
    def(&b, 0, "a.B", "m", "()V");
    buf_u1(&b, 0);
    b.data[7]++; /* one more byte in the payload */
    refused(&b, "1 bytes after a definition");
    buf_reset(&b);
    at = call_frame_begin(&b, 0x7e);
    CHECK_INT(call_frame_end(&b, at), 0);
    refused(&b, "unknown type 0x7e");
    buf_reset(&b);
    at = call_frame_begin(&b, CALL_REC);
    buf_u1(&b, 0);
    CHECK_INT(call_frame_end(&b, at), 0);
    refused(&b, "call: 25 bytes needed, 1 left");
    buf_free(&b);
}

/* Writes the frames' last call in fmt: as decoded (rec), or as read back
 * from its JSON line; the file's text, caller frees. */
static char *written(enum cli_format fmt, const call_tab *t, const mct_call *c, int rec)
{
    mct_err e;
    out *o = out_open(fmt, tmp_path, -1, &e);

    CHECK(o != NULL);
    if (o == NULL)
        return calloc(1, 1);
    if (rec) {
        CHECK_INT(out_call(o, t, c, &e), 0);
    } else {
        json_t *j = call_json(t, c);
        call_tab jt = {0};
        mct_call jc = {0};

        CHECK(j != NULL);
        CHECK_INT(call_from_json(&jt, &jc, j, &e), 0);
        CHECK_INT(out_call(o, &jt, &jc, &e), 0);
        json_decref(j);
        call_free(&jc);
        call_tab_free(&jt);
    }
    CHECK_INT(out_close(o, &e), 0);
    return slurp(tmp_path);
}

/* The JSON line of call c (methods in t); caller frees. */
static char *line_of(const call_tab *t, const mct_call *c)
{
    mct_buf x = {0};

    CHECK_INT(call_json_line(&x, t, c), 0);
    buf_ch(&x, '\0');
    return (char *)x.data;
}

/* The encoder writes what the decoder reads: a decoded call encoded again
 * gives the same bytes (definitions once per connection) and decodes to
 * the same call. */
static void test_encode(void)
{
    mct_buf b = {0}, again = {0}, only_defs = {0};
    size_t first;
    call_tab t = {0}, t2 = {0};
    mct_call c = {0}, c2 = {0};
    call_defs d = {0};
    mct_err e;
    char *want, *got;

    defs(&b);
    call(&b, CALL_F_WARMUP, 7, ODD_THREAD, "java.lang.IllegalStateException", TREE, 4, 4);
    CHECK_INT(decode_all(&b, &t, &c, &e), CALL_REC);
    CHECK_INT(call_encode(&again, &t, &d, &c), 0);
    first = again.len;
    CHECK(first == b.len && memcmp(again.data, b.data, b.len) == 0);
    CHECK_INT(call_encode(&again, &t, &d, &c), 0);
    defs(&only_defs);
    CHECK_INT(again.len - first, b.len - only_defs.len);
    CHECK_INT(decode_all(&again, &t2, &c2, &e), CALL_REC);
    want = line_of(&t, &c);
    got = line_of(&t2, &c2);
    CHECK_STR(got, want);
    free(want);
    free(got);
    call_defs_free(&d);
    call_free(&c);
    call_free(&c2);
    call_tab_free(&t);
    call_tab_free(&t2);
    buf_free(&b);
    buf_free(&again);
    buf_free(&only_defs);
}

static void test_formats(void)
{
    static const enum cli_format fmts[] = {CLI_FORMAT_JSON, CLI_FORMAT_TREE, CLI_FORMAT_FOLDED, CLI_FORMAT_CHROME};
    mct_buf b = {0};
    call_tab t = {0};
    mct_call c = {0};
    mct_err e;
    size_t i;
    int flags;

    for (flags = 0; flags <= 1; flags++) {
        buf_reset(&b);
        call_tab_free(&t);
        defs(&b);
        call(&b, flags ? CALL_F_WARMUP : 0, 2, ODD_THREAD, flags ? "" : "java.lang.Illegal\x7fState", TREE, 4, 4);
        CHECK_INT(decode_all(&b, &t, &c, &e), CALL_REC);
        for (i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
            char *a = written(fmts[i], &t, &c, 1), *want = written(fmts[i], &t, &c, 0);

            CHECK(a != NULL && want != NULL && strlen(a) > 10);
            CHECK_STR(a, want);
            /* The warm-up mark: a key in json, a tag on the tree's title. */
            if (fmts[i] == CLI_FORMAT_JSON)
                CHECK((strstr(a, "]},\"warmup\":true}\n") != NULL) == flags);
            if (fmts[i] == CLI_FORMAT_TREE)
                CHECK((strstr(a, "(id 23)  [warm-up]\n") != NULL) == flags);
            free(a);
            free(want);
        }
    }
    call_free(&c);
    call_tab_free(&t);
    buf_free(&b);
}

/* The escapes of JSON text: the same as fu_json_dump's, byte for byte. */
static void test_escapes(void)
{
    static const char *const strs[] = {"", "plain", ODD_CLASS, ODD_THREAD, "\xc2", "a\xc2\xa0" "b\xc2\x7f",
                                       "/\\u0000", "\xc3\xa9\xe2\x82\xac\xc2\x80\xc2\x9f\xc2\xa0"};
    size_t i;

    for (i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        mct_buf x = {0};
        json_t *j = json_string(strs[i]);
        FILE *f = fopen(tmp_path, "w");
        char *want;

        if (j == NULL) /* not UTF-8: no name can be that */
            continue;
        CHECK(f != NULL && fu_json_dump(f, j, JSON_COMPACT | JSON_ENCODE_ANY) == 0);
        fclose(f);
        want = slurp(tmp_path);
        call_json_str(&x, strs[i]);
        call_json_str(&x, "");
        buf_ch(&x, '\0');
        CHECK(!buf_failed(&x) && x.len >= 3);
        x.data[x.len - 3] = '\0';
        CHECK_STR((const char *)x.data, want);
        free(want);
        json_decref(j);
        buf_free(&x);
    }
}

/* Compact calls are written when flushed (the client flushes when no
 * message waits), not one by one. */
static void test_buffered(void)
{
    mct_buf b = {0};
    call_tab t = {0};
    mct_call c = {0};
    mct_err e;
    out *o = out_open(CLI_FORMAT_JSON, tmp_path, -1, &e);
    char *text;

    CHECK(o != NULL);
    if (o == NULL)
        return;
    defs(&b);
    call(&b, 0, 1, "main", "", TREE, 4, 4);
    CHECK_INT(decode_all(&b, &t, &c, &e), CALL_REC);
    CHECK_INT(out_call(o, &t, &c, &e), 0);
    text = slurp(tmp_path);
    CHECK_STR(text, "");
    free(text);
    CHECK_INT(out_flush(o, &e), 0);
    text = slurp(tmp_path);
    CHECK(text != NULL && strncmp(text, "{\"type\":\"call\",\"seq\":1,", 23) == 0);
    free(text);
    CHECK_INT(out_close(o, &e), 0);
    call_free(&c);
    call_tab_free(&t);
    buf_free(&b);
}

/* Async nodes (--follow-async): read from JSON, encoded compact and
 * decoded, they write the same line; the tree format tags them; what
 * breaks their rules is refused in either form. */
static void test_async(void)
{
    static const char line[] =
        "{\"type\":\"call\",\"seq\":3,\"thread\":{\"id\":1,\"name\":\"main\"},\"start_ns\":5,"
        "\"root\":{\"class\":\"a.B\",\"method\":\"go\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":100,"
        "\"self_ns\":90,\"min_ns\":100,\"max_ns\":100,\"throws\":0,\"children\":["
        "{\"class\":\"a.B\",\"method\":\"f\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":10,\"self_ns\":10,"
        "\"min_ns\":10,\"max_ns\":10,\"throws\":0,\"children\":[]},"
        "{\"class\":\"java.lang.Runnable\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":400,"
        "\"self_ns\":390,\"min_ns\":400,\"max_ns\":400,\"throws\":0,\"async\":true,\"handoff_ns\":7,\"queued_ns\":1234,"
        "\"thread\":\"pool-1\\t\xc3\xa9\",\"children\":[{\"class\":\"a.B\",\"method\":\"f\",\"desc\":\"()V\","
        "\"calls\":1,\"total_ns\":10,\"self_ns\":10,\"min_ns\":10,\"max_ns\":10,\"throws\":0,\"children\":[]}]},"
        "{\"class\":\"java.lang.Runnable\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":0,\"total_ns\":0,"
        "\"self_ns\":0,\"min_ns\":0,\"max_ns\":0,\"throws\":0,\"async\":true,\"pending\":true,\"handoff_ns\":8,\"children\":[]},"
        "{\"class\":\"java.lang.Runnable\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":0,\"total_ns\":0,"
        "\"self_ns\":0,\"min_ns\":0,\"max_ns\":0,\"throws\":0,\"async\":true,\"rejected\":true,\"handoff_ns\":9,\"children\":[]},"
        "{\"class\":\"java.lang.Runnable\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":0,\"total_ns\":0,"
        "\"self_ns\":0,\"min_ns\":0,\"max_ns\":0,\"throws\":0,\"async\":true,\"cancelled\":true,\"handoff_ns\":11,"
        "\"children\":[]}"
        "]}}\n";
    static const struct {
        const char *from, *to, *why;
    } bad[] = {
        {"\"async\":true,\"pending\":true", "\"pending\":true", "pending: true on a node that is not async"},
        {"\"async\":true,\"pending\":true", "\"async\":true,\"pending\":true,\"rejected\":true", "pending, rejected or cancelled"},
        {"\"async\":true,\"cancelled\":true,\"handoff_ns\":11", "\"cancelled\":true",
         "cancelled: true on a node that is not async"},
        {"\"async\":true,\"handoff_ns\":7,\"queued_ns\":1234,", "\"handoff_ns\":7,",
         "handoff_ns: present on a node that is not async"},
        {"\"async\":true,\"handoff_ns\":7,\"queued_ns\":1234,", "\"async\":true,\"handoff_ns\":7,",
         "queued_ns: missing"},
        {"\"rejected\":true,\"handoff_ns\":9,", "\"rejected\":true,", "handoff_ns: missing"},
        {"\"thread\":\"pool-1\\t\xc3\xa9\",", "", "thread: missing"},
        {"\"calls\":0,\"total_ns\":0,\"self_ns\":0,\"min_ns\":0,\"max_ns\":0,\"throws\":0,\"async\":true,\"pending\"",
         "\"calls\":1,\"total_ns\":0,\"self_ns\":0,\"min_ns\":0,\"max_ns\":0,\"throws\":0,\"async\":true,\"pending\"",
         "pending, rejected or cancelled but not an async node without calls"},
    };
    call_tab t = {0}, t2 = {0};
    mct_call c = {0}, c2 = {0};
    call_defs d = {0};
    mct_buf b = {0};
    mct_err e;
    json_t *j = json_loads(line, 0, NULL);
    char *got, *tree;

    CHECK(j != NULL);
    CHECK_INT(call_from_json(&t, &c, j, &e), 0);
    json_decref(j);
    CHECK_INT(c.flags, CALL_F_ASYNC);
    CHECK_INT(c.n_nodes, 7);
    CHECK_INT(c.nodes[2].flags, CALL_N_ASYNC);
    CHECK_INT(c.nodes[2].queued_ns, 1234);
    CHECK_INT(c.nodes[2].handoff_ns, 7);
    CHECK_INT(c.nodes[4].handoff_ns, 8);
    CHECK_INT(c.nodes[5].handoff_ns, 9);
    CHECK_INT(c.nodes[6].flags, CALL_N_ASYNC | CALL_N_CANCELLED);
    CHECK_STR(c.threads[c.nodes[2].thread], "pool-1\t\xc3\xa9");
    CHECK_INT(c.nodes[4].flags, CALL_N_ASYNC | CALL_N_PENDING);
    CHECK_INT(c.nodes[5].flags, CALL_N_ASYNC | CALL_N_REJECTED);
    got = line_of(&t, &c);
    CHECK_STR(got, line);
    free(got);
    CHECK_INT(call_encode(&b, &t, &d, &c), 0);
    CHECK_INT(decode_all(&b, &t2, &c2, &e), CALL_REC);
    got = line_of(&t2, &c2);
    CHECK_STR(got, line);
    free(got);
    tree = written(CLI_FORMAT_TREE, &t2, &c2, 1);
    CHECK(strstr(tree, "java.lang.Runnable.run()  [async on \"pool-1") != NULL);
    CHECK(strstr(tree, "queued 1.23 µs]") != NULL);
    CHECK(strstr(tree, "[async, pending: not ended]") != NULL);
    CHECK(strstr(tree, "[async, rejected]") != NULL);
    CHECK(strstr(tree, "[async, cancelled]") != NULL);
    free(tree);
    /* The compact form: an async node in a call not flagged so. */
    c.flags = 0;
    buf_reset(&b);
    call_defs_free(&d);
    CHECK_INT(call_encode(&b, &t, &d, &c), 0);
    refused(&b, "node 2 is async in a call not flagged so");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mct_buf m = {0};
        const char *at = strstr(line, bad[i].from);
        call_tab bt = {0};
        mct_call bc = {0};

        CHECK(at != NULL);
        if (at == NULL)
            continue;
        buf_bytes(&m, line, (size_t)(at - line));
        buf_str(&m, bad[i].to);
        buf_str(&m, at + strlen(bad[i].from));
        buf_ch(&m, '\0');
        j = json_loads((const char *)m.data, 0, NULL);
        CHECK(j != NULL);
        CHECK_INT(call_from_json(&bt, &bc, j, &e), -1);
        if (strstr(e.msg, bad[i].why) == NULL) {
            fprintf(stderr, "refusal \"%s\" lacks \"%s\"\n", e.msg, bad[i].why);
            check_failures++;
        }
        json_decref(j);
        call_free(&bc);
        call_tab_free(&bt);
        buf_free(&m);
    }
    call_defs_free(&d);
    call_free(&c);
    call_free(&c2);
    call_tab_free(&t);
    call_tab_free(&t2);
    buf_free(&b);
}

/* A call of one node (method 0) with CALL_F_ARGS whose arguments are the
 * n bytes at args, as a frame of b. */
static void args_call(mct_buf *b, const uint8_t *args, size_t n)
{
    static const struct tnode one[] = {{0, 0, 0, 1, 5, 5, 5, 5, 0}};
    size_t at = b->len;

    call(b, CALL_F_ARGS, 1, "main", "", one, 1, 1);
    /* the arguments follow its nodes: the frame grows */
    buf_bytes(b, args, n);
    proto_header_encode(b->data + at, (uint32_t)(b->len - at - PROTO_HEADER_LEN));
}

/* The arguments: decoded from their bytes, written as JSON, read back and
 * encoded again to the same bytes; what is refused, and why. */
static void test_args(void)
{
    static const uint8_t good[] = {
        6,
        CALL_ARG_INT, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xf9,   /* -7 */
        CALL_ARG_FLOAT, 0, 0, 0, 0, 0x7f, 0xc0, 0, 0,       /* NaN */
        CALL_ARG_NULL,
        CALL_ARG_STRING, 0, 0, 0, 100, 0, 0, 0, 2, 'h', 'i',
        CALL_ARG_ENUM, 0, 0, 0, 3, 'R', 'E', 'D',
        CALL_ARG_OBJECT, 0x08, 0xbc, 0xc5, 0x5f, 0, 0, 0, 5, 'a', '.', 'B', '$', 'C',
    };
    static const struct { uint8_t bytes[16]; size_t n; const char *want; } bad[] = {
        {{1, CALL_ARG_BYTE, 0, 0, 0, 0, 0, 0, 1, 0}, 10, "bits 0x100 do not fit a byte"},
        {{1, CALL_ARG_FLOAT, 0, 0, 0, 0, 0x7f, 0xc0, 0, 1}, 10, "a NaN other than the canonical one"},
        {{1, 12}, 2, "argument 0: unknown type 12"},
        {{1, CALL_ARG_OBJECT, 0, 0, 0, 1, 0, 0, 0, 0}, 10, "argument's text: empty"},
        {{1, CALL_ARG_STRING, 0x80, 0, 0, 0, 0, 0, 0, 0}, 10, "is over a String's 2147483647"},
        {{2, CALL_ARG_NULL}, 2, "argument type: 1 bytes needed, 0 left"},
    };
    mct_buf b = {0}, again = {0}, line = {0};
    call_tab t = {0}, t2 = {0};
    mct_call c = {0}, c2 = {0};
    call_defs d = {0};
    json_t *j;
    mct_err e;
    size_t i;

    def(&b, 0, "a.B", "m", "(IFLjava/lang/Object;Ljava/lang/String;La/E;Ljava/lang/Object;)V");
    args_call(&b, good, sizeof good);
    CHECK_INT(decode_all(&b, &t, &c, &e), CALL_REC);
    CHECK_INT(c.n_args, 6);
    CHECK_INT(c.flags, CALL_F_ARGS);
    CHECK(c.n_args == 6 && c.args[3].length == 100 && call_arg_cut(&c.args[3]) && !call_arg_cut(&c.args[4]));
    CHECK_INT(call_json_line(&line, &t, &c), 0);
    buf_ch(&line, '\0');
    CHECK(strstr((char *)line.data, ",\"args\":[{\"type\":\"int\",\"value\":-7},{\"type\":\"float\",\"value\":\"NaN\"},"
                 "{\"type\":\"null\"},{\"type\":\"String\",\"value\":\"hi\",\"length\":100},"
                 "{\"type\":\"enum\",\"value\":\"RED\"},{\"type\":\"object\",\"class\":\"a.B$C\",\"hash\":"
                 "146589023}]}") != NULL);
    j = json_loads((char *)line.data, 0, NULL);
    CHECK(j != NULL && call_from_json(&t2, &c2, j, &e) == 0);
    json_decref(j);
    CHECK_INT(call_encode(&again, &t2, &d, &c2), 0);
    CHECK(again.len == b.len && memcmp(again.data, b.data, b.len) == 0);
    /* a call without arguments after one with them holds none */
    buf_free(&b);
    call(&b, 0, 2, "main", "", (const struct tnode[]){{0, 0, 0, 1, 5, 5, 5, 5, 0}}, 1, 1);
    CHECK_INT(decode_all(&b, &t, &c, &e), CALL_REC);
    CHECK_INT(c.n_args, 0);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        buf_free(&b);
        def(&b, 0, "a.B", "m", "()V");
        args_call(&b, bad[i].bytes, bad[i].n);
        refused(&b, bad[i].want);
    }
    call_defs_free(&d);
    call_free(&c);
    call_free(&c2);
    call_tab_free(&t);
    call_tab_free(&t2);
    buf_free(&b);
    buf_free(&again);
    buf_free(&line);
}

/* A call of one node (method 0) with CALL_F_PARENT whose parent is the n
 * bytes at parent, as a frame of b. */
static void parent_call(mct_buf *b, const uint8_t *parent, size_t n)
{
    static const struct tnode one[] = {{0, 0, 0, 1, 5, 5, 5, 5, 0}};
    size_t at = b->len;

    call(b, CALL_F_PARENT, 1, "main", "", one, 1, 1);
    buf_bytes(b, parent, n);
    proto_header_encode(b->data + at, (uint32_t)(b->len - at - PROTO_HEADER_LEN));
}

/* The trace parent: W3C traceparents read and written; the compact
 * record's 25 bytes decoded, written as JSON, read back and encoded again
 * to the same bytes; what is refused. */
static void test_parent(void)
{
    static const char tp[] = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    static const struct { const char *s; int ok; } reads[] = {
        {tp, 1},
        {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", 1},
        {"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-later", 1},  /* a later version's field */
        {"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x", 0},
        {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x", 0},      /* version 00 is 55 bytes */
        {"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", 0},
        {"00-00000000000000000000000000000000-00f067aa0ba902b7-01", 0},
        {"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", 0},
        {"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", 0},
        {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", 0},
        {"00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", 0},
        {"00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01", 0},
    };
    static const uint8_t good[25] = {0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e,
                                     0x0e, 0x47, 0x36, 0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7, 0x01};
    static const uint8_t zero_span[25] = {1};
    mct_buf b = {0}, again = {0}, line = {0};
    call_tab t = {0}, t2 = {0};
    mct_call c = {0}, c2 = {0};
    call_defs d = {0};
    struct call_parent p;
    char w[CALL_TRACEPARENT_LEN + 1];
    json_t *j;
    mct_err e;
    size_t i;

    for (i = 0; i < sizeof reads / sizeof reads[0]; i++)
        if ((call_parent_read(reads[i].s, strlen(reads[i].s), &p) == 0) != reads[i].ok) {
            fprintf(stderr, "call_parent_read(\"%s\") %s\n", reads[i].s, reads[i].ok ? "refused" : "accepted");
            check_failures++;
        }
    CHECK_INT(call_parent_read(tp, strlen(tp), &p), 0);
    CHECK(memcmp(p.trace_id, good, 16) == 0 && memcmp(p.span_id, good + 16, 8) == 0 && p.flags == 1);
    call_parent_write(&p, w);
    CHECK_STR(w, tp);

    def(&b, 0, "a.B", "m", "()V");
    parent_call(&b, good, sizeof good);
    CHECK_INT(decode_all(&b, &t, &c, &e), CALL_REC);
    CHECK_INT(c.flags, CALL_F_PARENT);
    CHECK(memcmp(&c.parent, &p, sizeof p) == 0);
    CHECK_INT(call_json_line(&line, &t, &c), 0);
    buf_ch(&line, '\0');
    CHECK(strstr((char *)line.data, ",\"trace_parent\":\"" "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
                 "\"}\n") != NULL);
    j = json_loads((char *)line.data, 0, NULL);
    CHECK(j != NULL && call_from_json(&t2, &c2, j, &e) == 0);
    CHECK(c2.flags == CALL_F_PARENT && memcmp(&c2.parent, &p, sizeof p) == 0);
    CHECK_INT(call_encode(&again, &t2, &d, &c2), 0);
    CHECK(again.len == b.len && memcmp(again.data, b.data, b.len) == 0);
    /* a JSON trace_parent that is not one */
    json_object_set_new(j, "trace_parent", json_string("00-00000000000000000000000000000000-00f067aa0ba902b7-01"));
    CHECK_INT(call_from_json(&t2, &c2, j, &e), -1);
    CHECK(strstr(e.msg, "call: trace_parent: not a W3C traceparent") != NULL);
    json_object_set_new(j, "trace_parent", json_integer(1));
    CHECK_INT(call_from_json(&t2, &c2, j, &e), -1);
    json_object_del(j, "trace_parent");
    CHECK(call_from_json(&t2, &c2, j, &e) == 0 && c2.flags == 0);
    json_decref(j);
    /* cut short, or an all-zero id */
    buf_free(&b);
    def(&b, 0, "a.B", "m", "()V");
    parent_call(&b, good, 24);
    refused(&b, "trace parent: 25 bytes needed, 24 left");
    buf_free(&b);
    def(&b, 0, "a.B", "m", "()V");
    parent_call(&b, zero_span, sizeof zero_span);
    refused(&b, "trace parent: an all-zero id");
    call_defs_free(&d);
    call_free(&c);
    call_free(&c2);
    call_tab_free(&t);
    call_tab_free(&t2);
    buf_free(&b);
    buf_free(&again);
    buf_free(&line);
}

int main(void)
{
    int fd;

    snprintf(tmp_path, sizeof tmp_path, "/tmp/mct-test-crec-XXXXXX");
    fd = mkstemp(tmp_path);
    if (fd < 0)
        return 1;
    close(fd);
    test_decode();
    test_refused();
    test_args();
    test_parent();
    test_encode();
    test_formats();
    test_escapes();
    test_buffered();
    test_async();
    unlink(tmp_path);
    return check_status();
}
