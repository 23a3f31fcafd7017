/* test_crec.c — compact calls (protocol/crec.h): frames as the agent writes
 * them decode to the call they hold; every malformed record is refused with
 * a message naming what is wrong; each output format writes a compact call
 * exactly as it writes the `call` object of the JSON protocol (the json
 * format through its one-pass renderer, names with every escape), the
 * warm-up flag included; and compact calls stay buffered until out_flush. */
#include "check.h"
#include "slurp.h"

#include <stdlib.h>
#include <unistd.h>

#include "crec.h"
#include "fmtutil.h"
#include "output.h"
#include "proto.h"

static char tmp_path[64];

/* Names with what JSON must escape: a quote, a backslash, control
 * characters, DEL, C1 controls, and characters beyond ASCII. */
#define ODD_CLASS "a.B\"\\\x01\x1f\x7f\xc2\x85\xc2\x9f\xe2\x80\xa8\xf0\x9f\x98\x80"
#define ODD_THREAD "t\"\t\n\r\b\f\xc2\x80\xc3\xa9"

static void def(crec_buf *b, uint32_t id, const char *cls, const char *name, const char *desc)
{
    size_t at = crec_frame_begin(b, CREC_DEF);

    crec_put_u32(b, id);
    crec_put_str(b, cls, strlen(cls));
    crec_put_str(b, name, strlen(name));
    crec_put_str(b, desc, strlen(desc));
    CHECK_INT(crec_frame_end(b, at), 0);
}

struct tnode {
    uint32_t method, kids;
    unsigned flags;
    uint64_t calls, total, self, min, max, throws;
};

/* A call frame; count: the node count written (n unless testing a lie). */
static void call(crec_buf *b, unsigned flags, uint64_t seq, const char *thread, const char *exc,
                 const struct tnode *nodes, uint32_t n, uint32_t count)
{
    size_t at = crec_frame_begin(b, CREC_CALL);
    uint32_t i;

    crec_put_u8(b, flags);
    crec_put_u64(b, seq);
    crec_put_u64(b, 23);
    crec_put_u64(b, 1000000000125956789ull);
    crec_put_str(b, thread, strlen(thread));
    crec_put_str(b, exc, strlen(exc));
    crec_put_u32(b, count);
    for (i = 0; i < n; i++) {
        crec_put_u32(b, nodes[i].method);
        crec_put_u8(b, nodes[i].flags);
        crec_put_u32(b, nodes[i].kids);
        crec_put_u64(b, nodes[i].calls);
        crec_put_u64(b, nodes[i].total);
        crec_put_u64(b, nodes[i].self);
        crec_put_u64(b, nodes[i].min);
        crec_put_u64(b, nodes[i].max);
        crec_put_u64(b, nodes[i].throws);
    }
    CHECK_INT(crec_frame_end(b, at), 0);
}

static const struct tnode TREE[] = {
    {0, 2, 0, 1, 1500000000, 500000000, 1500000000, 1500000000, 1},
    {1, 1, 0, 20, 400000, 280000, 15000, 40000, 0},
    {2, 0, 0, 20, 120000, 120000, 5000, 9000, 0},
    {3, 0, CREC_N_TRUNCATED, 3, 600000000, 600000000, 100000, 200000, 2},
};

/* Decodes every frame of b into t and c; the last result, or -1 with e at
 * the first refusal. */
static int decode_all(const crec_buf *b, crec_tab *t, crec_call *c, mct_err *e)
{
    size_t pos = 0;
    int rc = -1;

    while (pos < b->len) {
        uint32_t len;

        if (proto_header_decode(b->p + pos, PROTO_REPLY, &len, e) < 0)
            return -1;
        rc = crec_decode(t, c, b->p + pos + PROTO_HEADER_LEN, len, e);
        if (rc < 0)
            return -1;
        pos += PROTO_HEADER_LEN + len;
    }
    return rc;
}

static void defs(crec_buf *b)
{
    def(b, 0, ODD_CLASS, "go", "(I)V");
    def(b, 1, "tgt.Price", "of", "(J)J");
    def(b, 2, "tgt.Tax", "rate", "()D");
    def(b, 3, "tgt.Shape", "<init>", "()V");
}

static void test_decode(void)
{
    crec_buf b = {0};
    crec_tab t = {0};
    crec_call c = {0};
    mct_err e;

    defs(&b);
    call(&b, CREC_F_WARMUP, 7, ODD_THREAD, "java.lang.IllegalStateException", TREE, 4, 4);
    CHECK_INT(decode_all(&b, &t, &c, &e), CREC_CALL);
    CHECK_INT(c.seq, 7);
    CHECK_INT(c.flags, CREC_F_WARMUP);
    CHECK_INT(c.thread_id, 23);
    CHECK_STR(c.thread_name, ODD_THREAD);
    CHECK_STR(c.exception, "java.lang.IllegalStateException");
    CHECK_INT(c.n_nodes, 4);
    CHECK_INT(c.nodes[3].flags, CREC_N_TRUNCATED);
    CHECK_INT(c.nodes[1].n_children, 1);
    CHECK_STR(t.m[0]->cls, ODD_CLASS);
    crec_call_free(&c);
    crec_tab_free(&t);
    crec_buf_free(&b);
}

/* bad holds frames whose last is refused with a message containing want. */
static void refused(const crec_buf *bad, const char *want)
{
    crec_tab t = {0};
    crec_call c = {0};
    mct_err e;

    mct_err_clear(&e);
    CHECK_INT(decode_all(bad, &t, &c, &e), -1);
    if (strstr(e.msg, want) == NULL) {
        fprintf(stderr, "refusal \"%s\" lacks \"%s\"\n", e.msg, want);
        check_failures++;
    }
    crec_call_free(&c);
    crec_tab_free(&t);
}

static void test_refused(void)
{
    struct tnode chain[PROTO_MAX_DEPTH + 1];
    crec_buf b = {0};
    size_t at;
    int i;

    defs(&b);
    call(&b, 0, 1, "main", "", (const struct tnode[]){{9, 0, 0, 1, 1, 1, 1, 1, 0}}, 1, 1);
    refused(&b, "node 0 names method 9, which was never defined");
    crec_buf_reset(&b);
    defs(&b);
    def(&b, 2, "a.B", "m", "()V");
    refused(&b, "method 2 is defined twice");
    crec_buf_reset(&b);
    defs(&b);
    call(&b, 0, 1, "main", "", TREE, 4, 1000);
    refused(&b, "1000 nodes do not fit the");
    crec_buf_reset(&b);
    defs(&b);
    call(&b, 0, 1, "main", "", TREE, 2, 2);
    refused(&b, "the tree ends with 1 children missing");
    crec_buf_reset(&b);
    defs(&b);
    call(&b, 0, 1, "main", "", (const struct tnode[]){{0, 0, 0, 1, 1, 1, 1, 1, 0}, {1, 0, 0, 1, 1, 1, 1, 1, 0}}, 2,
         2);
    refused(&b, "1 nodes after the root's tree");
    crec_buf_reset(&b);
    defs(&b);
    for (i = 0; i <= PROTO_MAX_DEPTH; i++)
        chain[i] = (struct tnode){0, i < PROTO_MAX_DEPTH, 0, 1, 1, 1, 1, 1, 0};
    call(&b, 0, 1, "main", "", chain, PROTO_MAX_DEPTH + 1, PROTO_MAX_DEPTH + 1);
    refused(&b, "the tree nests deeper than 64");
    crec_buf_reset(&b);
    defs(&b);
    call(&b, 0, 1, "main", "", (const struct tnode[]){{0, 0, 0, 1, (uint64_t)1 << 63, 1, 1, 1, 0}}, 1, 1);
    refused(&b, "total_ns: 9223372036854775808 is over 9223372036854775807");
    crec_buf_reset(&b);
    defs(&b);
    call(&b, 0, 0, "main", "", TREE, 4, 4);
    refused(&b, "seq 0 (they begin at 1)");
    crec_buf_reset(&b);
    defs(&b);
    call(&b, 0x80, 1, "main", "", TREE, 4, 4);
    refused(&b, "unknown call flags 0x80");
    crec_buf_reset(&b);
    defs(&b);
    call(&b, 0, 1, "main", "", (const struct tnode[]){{0, 0, 4, 1, 1, 1, 1, 1, 0}}, 1, 1);
    refused(&b, "node 0 has unknown flags 0x4");
    crec_buf_reset(&b);
    defs(&b);
    call(&b, 0, 1, "ma\xffin", "", TREE, 4, 4);
    refused(&b, "thread name: not UTF-8, or holds a NUL byte");
    crec_buf_reset(&b);
    def(&b, 0, "", "m", "()V");
    refused(&b, "the method's class: empty");
    crec_buf_reset(&b);
    at = crec_frame_begin(&b, CREC_DEF);
    crec_put_u32(&b, 0);
    crec_put_u32(&b, 99);
    crec_put_u8(&b, 'a');
    CHECK_INT(crec_frame_end(&b, at), 0);
    refused(&b, "the method's class: a length of 99 bytes does not fit the 1 left");
    crec_buf_reset(&b);
    def(&b, CREC_MAX_ID, "a.B", "m", "()V");
    refused(&b, "method number 16777216 is over 16777215");
    crec_buf_reset(&b);
    def(&b, 0, "a.B", "m", "()V");
    crec_put_u8(&b, 0);
    b.p[7]++; /* one more byte in the payload */
    refused(&b, "1 bytes after a definition");
    crec_buf_reset(&b);
    at = crec_frame_begin(&b, 0x7e);
    CHECK_INT(crec_frame_end(&b, at), 0);
    refused(&b, "unknown type 0x7e");
    crec_buf_reset(&b);
    at = crec_frame_begin(&b, CREC_CALL);
    crec_put_u8(&b, 0);
    CHECK_INT(crec_frame_end(&b, at), 0);
    refused(&b, "call: 25 bytes needed, 1 left");
    crec_buf_free(&b);
}

/* Writes the frames' last call in fmt: with out_call_rec (rec) or as its
 * object through out_call; the file's text, caller frees. */
static char *written(enum cli_format fmt, const crec_tab *t, const crec_call *c, int rec)
{
    mct_err e;
    out *o = out_open(fmt, tmp_path, -1, &e);

    CHECK(o != NULL);
    if (o == NULL)
        return calloc(1, 1);
    if (rec) {
        CHECK_INT(out_call_rec(o, t, c, &e), 0);
    } else {
        json_t *j = crec_call_json(t, c);

        CHECK(j != NULL);
        CHECK_INT(out_call(o, j, &e), 0);
        json_decref(j);
    }
    CHECK_INT(out_close(o, &e), 0);
    return slurp(tmp_path);
}

static void test_formats(void)
{
    static const enum cli_format fmts[] = {CLI_FORMAT_JSON, CLI_FORMAT_TREE, CLI_FORMAT_FOLDED, CLI_FORMAT_CHROME};
    crec_buf b = {0};
    crec_tab t = {0};
    crec_call c = {0};
    mct_err e;
    size_t i;
    int flags;

    for (flags = 0; flags <= 1; flags++) {
        crec_buf_reset(&b);
        crec_tab_free(&t);
        defs(&b);
        call(&b, flags ? CREC_F_WARMUP : 0, 2, ODD_THREAD, flags ? "" : "java.lang.Illegal\x7fState", TREE, 4, 4);
        CHECK_INT(decode_all(&b, &t, &c, &e), CREC_CALL);
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
    crec_call_free(&c);
    crec_tab_free(&t);
    crec_buf_free(&b);
}

/* The escapes of JSON text: the same as fu_json_dump's, byte for byte. */
static void test_escapes(void)
{
    static const char *const strs[] = {"", "plain", ODD_CLASS, ODD_THREAD, "\xc2", "a\xc2\xa0" "b\xc2\x7f",
                                       "/\\u0000", "\xc3\xa9\xe2\x82\xac\xc2\x80\xc2\x9f\xc2\xa0"};
    size_t i;

    for (i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        crec_text x = {0};
        json_t *j = json_string(strs[i]);
        FILE *f = fopen(tmp_path, "w");
        char *want;

        if (j == NULL) /* not UTF-8: no name can be that */
            continue;
        CHECK(f != NULL && fu_json_dump(f, j, JSON_COMPACT | JSON_ENCODE_ANY) == 0);
        fclose(f);
        want = slurp(tmp_path);
        CHECK_INT(crec_text_jstr(&x, strs[i]), 0);
        CHECK(crec_text_jstr(&x, "") == 0 && x.len >= 2);
        x.p[x.len - 2] = '\0';
        CHECK_STR(x.p, want);
        free(want);
        json_decref(j);
        crec_text_free(&x);
    }
}

/* Compact calls are written when flushed (the client flushes when no
 * message waits), not one by one. */
static void test_buffered(void)
{
    crec_buf b = {0};
    crec_tab t = {0};
    crec_call c = {0};
    mct_err e;
    out *o = out_open(CLI_FORMAT_JSON, tmp_path, -1, &e);
    char *text;

    CHECK(o != NULL);
    if (o == NULL)
        return;
    defs(&b);
    call(&b, 0, 1, "main", "", TREE, 4, 4);
    CHECK_INT(decode_all(&b, &t, &c, &e), CREC_CALL);
    CHECK_INT(out_call_rec(o, &t, &c, &e), 0);
    text = slurp(tmp_path);
    CHECK_STR(text, "");
    free(text);
    CHECK_INT(out_flush(o, &e), 0);
    text = slurp(tmp_path);
    CHECK(text != NULL && strncmp(text, "{\"type\":\"call\",\"seq\":1,", 23) == 0);
    free(text);
    CHECK_INT(out_close(o, &e), 0);
    crec_call_free(&c);
    crec_tab_free(&t);
    crec_buf_free(&b);
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
    test_formats();
    test_escapes();
    test_buffered();
    unlink(tmp_path);
    return check_status();
}
