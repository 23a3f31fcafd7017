/* test_jtok.c — the JSON lines tokenizer: the tokens of good lines, each
 * kind of bad line refused with its message, a line past its limit said
 * as such (also when it is not JSON), and reading on after a bad line. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "jtok.h"

/* The kinds of the tokens of text's first line, as letters ("okiksO." for
 * {"a":1,"b":"x"}: o O a A k s i r t f n; E an error, . the line's end, $ the end),
 * into buf. */
static const char *kinds(const char *text, size_t max, char *buf, size_t size, jtok *t)
{
    static const char letters[] = "$.oOaAksirtfn";
    size_t n = 0;
    int k;

    jt_init_mem(t, text, strlen(text), max);
    do {
        k = jt_next(t);
        buf[n++] = k == JT_ERR ? 'E' : letters[k - JT_EOF];
    } while (k != JT_ERR && k != JT_EOL && k != JT_EOF && n + 1 < size);
    buf[n] = '\0';
    return buf;
}

static void test_tokens(void)
{
    char buf[64];
    jtok t;

    CHECK_STR(kinds("{\"a\":1,\"b\":[\"x\",2.5,true,false,null],\"c\":{}}\n", 100, buf, sizeof buf, &t),
              "okikasrtfnAkoOO.");
    jt_free(&t);
    CHECK_STR(kinds(" \t[ -0 , 1e-3 ,\"\\u00e9\\ud83d\\ude00\\n\"]\r\n", 100, buf, sizeof buf, &t), "airsA.");
    CHECK_STR(t.str, "\xc3\xa9\xf0\x9f\x98\x80\n");
    jt_free(&t);
    CHECK_STR(kinds("  \n", 100, buf, sizeof buf, &t), ".");
    jt_free(&t);
    CHECK_STR(kinds("", 100, buf, sizeof buf, &t), "$");
    jt_free(&t);
    CHECK_STR(kinds("[9223372036854775807]", 100, buf, sizeof buf, &t), "aiA.");
    CHECK(t.ival == INT64_MAX);
    jt_free(&t);
}

static const struct {
    const char *line, *msg;
} bad[] = {
    { "{\"a\":1}x", "the end of the line expected after the value at byte 8" },
    { "{\"a\":1", "the line ended inside a value" },
    { "{\"a\":1\n}", "the line ended inside a value" },
    { "[1,]", "an invalid character at byte 4" },
    { "{\"a\" 1}", "':' expected after a key at byte 6" },
    { "{1:2}", "a key or '}' expected at byte 2" },
    { "{\"a\":1 \"b\":2}", "',' and a key, or '}' expected at byte 8" },
    { "[1 2]", "',' or ']' expected at byte 4" },
    { "[01]", "an invalid number at byte 3" },
    { "[1.]", "an invalid number at byte 4" },
    { "[1e400]", "a real number out of range at byte 6" },
    { "[9223372036854775808]", "an integer out of range at byte 20" },
    { "[tru]", "an invalid token at byte 5" },
    { "[nullx]", "an invalid token at byte 6" },
    { "[\"a\\x\"]", "an invalid escape in a string at byte 5" },
    { "[\"\\u12\"]", "a \\u escape without four hex digits at byte 7" },
    { "[\"\\udc00\"]", "a lone low surrogate \\uDC00 at byte 8" },
    { "[\"\\ud800x\"]", "a high surrogate without its low one at byte 9" },
    { "[\"\\u0000\"]", "\\u0000 in a string at byte 8" },
    { "[\"\t\"]", "a control character in a string at byte 3" },
    { "[\"\xed\xa0\x80\"]", "a string not UTF-8 at byte 4" },
    { "[\"\xc0\xaf\"]", "a string not UTF-8 at byte 3" },
    { "[\"\xf4\x90\x80\x80\"]", "a string not UTF-8 at byte 4" },
    { "[\"abc", "the line ended inside a string" },
    { "\x01", "an invalid character at byte 1" },
};

static void test_errors(void)
{
    char buf[64];
    jtok t;

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_STR(kinds(bad[i].line, 100, buf, sizeof buf, &t) + strlen(buf) - 1, "E");
        if (strcmp(t.err, bad[i].msg) != 0) {
            fprintf(stderr, "bad line %zu: got \"%s\", want \"%s\"\n", i, t.err, bad[i].msg);
            check_failures++;
        }
        CHECK_INT(jt_next(&t), JT_ERR);         /* sticky */
        jt_free(&t);
    }
}

/* Nesting past JT_DEPTH_MAX is refused, up to it read. */
static void test_depth(void)
{
    char *deep = malloc(2 * JT_DEPTH_MAX + 3);
    jtok t;
    int k, last = 0;

    memset(deep, '[', JT_DEPTH_MAX);
    memset(deep + JT_DEPTH_MAX, ']', JT_DEPTH_MAX);
    deep[2 * JT_DEPTH_MAX] = '\0';
    jt_init_mem(&t, deep, strlen(deep), SIZE_MAX);
    while ((k = jt_next(&t)) != JT_ERR && k != JT_EOL)
        last = k;
    CHECK_INT(k, JT_EOL);
    CHECK_INT(last, JT_ARR_END);
    memmove(deep + 1, deep, 2 * JT_DEPTH_MAX + 1);
    deep[0] = '[';
    jt_init_mem(&t, deep, strlen(deep), SIZE_MAX);
    while ((k = jt_next(&t)) != JT_ERR && k != JT_EOL)
        ;
    CHECK_INT(k, JT_ERR);
    CHECK_STR(t.err, "nested deeper than 2048 levels");
    jt_free(&t);
    free(deep);
}

/* A line past its limit is said as such, JSON or not, and read no further;
 * after a bad line (jt_finish), the next line reads. */
static void test_lines(void)
{
    static const char text[] = "[1,2,3,4,5,6,7,8,9]\n{\"a\":x}  more\n\n[\"ok\"]\n";
    char buf[64];
    jtok t;

    CHECK_STR(kinds("[1,2,3,4,5,6,7,8,9]", 10, buf, sizeof buf, &t) + strlen(buf) - 1, "E");
    CHECK(jt_too_long(&t));
    CHECK_STR(t.err, "a line of more than 10 bytes");
    jt_free(&t);
    CHECK_STR(kinds("hello, this is not JSON", 10, buf, sizeof buf, &t), "E");
    CHECK_INT(jt_finish(&t), JT_ERR);
    CHECK(jt_too_long(&t));
    CHECK_STR(t.err, "a line of more than 10 bytes");
    jt_free(&t);

    jt_init_mem(&t, text, strlen(text), 100);
    CHECK_INT(jt_next(&t), JT_ARR);
    CHECK_INT(jt_finish(&t), JT_EOL);           /* the rest of the line, checked */
    CHECK(jt_line_ended(&t));
    CHECK_INT(jt_next(&t), JT_OBJ);
    CHECK_INT(jt_next(&t), JT_KEY);
    CHECK_INT(jt_next(&t), JT_ERR);
    CHECK_INT(jt_finish(&t), JT_ERR);
    CHECK(!jt_too_long(&t));
    jt_next_line(&t);
    CHECK_INT(jt_next(&t), JT_EOL);             /* the blank line */
    CHECK_INT(jt_next(&t), JT_ARR);
    CHECK_INT(jt_next(&t), JT_STR);
    CHECK_STR(t.str, "ok");
    CHECK_INT(jt_skip(&t, JT_STR), 0);
    CHECK_INT(jt_next(&t), JT_ARR_END);
    CHECK_INT(jt_next(&t), JT_EOL);
    CHECK_INT(jt_next(&t), JT_EOF);
    jt_free(&t);
}

/* jt_skip passes a whole value; a stream reads as memory does; the bytes
 * read are recorded while rec is set. */
static void test_skip_stream_record(void)
{
    static const char text[] = "{\"skip\":{\"a\":[1,{\"b\":[]}],\"c\":\"}\"},\"keep\":7}\n";
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    mct_buf rec;
    jtok t;
    int k;

    buf_init(&rec);
    CHECK(f != NULL && jt_init_file(&t, f, 1000) == 0);
    CHECK_INT(jt_next(&t), JT_OBJ);
    CHECK_INT(jt_next(&t), JT_KEY);
    t.rec = &rec;
    k = jt_next(&t);
    CHECK_INT(jt_skip(&t, k), 0);
    t.rec = NULL;
    buf_ch(&rec, '\0');
    CHECK_STR((const char *)rec.data, "{\"a\":[1,{\"b\":[]}],\"c\":\"}\"}");
    CHECK_INT(jt_next(&t), JT_KEY);
    CHECK_STR(t.str, "keep");
    CHECK_INT(jt_next(&t), JT_INT);
    CHECK_INT(t.ival, 7);
    CHECK_INT(jt_next(&t), JT_OBJ_END);
    CHECK_INT(jt_next(&t), JT_EOL);
    CHECK_INT(jt_next(&t), JT_EOF);
    jt_free(&t);
    fclose(f);
    buf_free(&rec);
}

int main(void)
{
    test_tokens();
    test_errors();
    test_depth();
    test_lines();
    test_skip_stream_record();
    return check_status();
}
