/* test_mutf8.c — modified UTF-8 names to standard UTF-8 and back: NUL,
 * supplementary characters, what is not modified UTF-8, long names, JSON. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mutf8.h"

/* The conversion of s with nul, as a static string. */
static const char *conv(const char *s, enum mutf8_nul nul, size_t *len)
{
    static char out[1024];
    size_t n = mutf8_to_utf8(s, out, nul);

    if (len != NULL)
        *len = n;
    return out;
}

static void test_to_utf8(void)
{
    size_t n;

    /* ASCII and standard two- and three-byte sequences: unchanged. */
    CHECK_STR(conv("com/shop/Cart$Line", MUTF8_NUL_SYMBOL, NULL), "com/shop/Cart$Line");
    CHECK_STR(conv("caf\xc3\xa9\xe2\x82\xac", MUTF8_NUL_SYMBOL, NULL), "caf\xc3\xa9\xe2\x82\xac");
    CHECK(mutf8_plain("caf\xc3\xa9\xe2\x82\xac"));
    /* U+1D453 (a Java identifier): a surrogate pair, six bytes, becomes
     * its four-byte sequence. */
    CHECK(!mutf8_plain("\xed\xa0\xb5\xed\xb1\x93"));
    CHECK_STR(conv("f\xed\xa0\xb5\xed\xb1\x93x", MUTF8_NUL_SYMBOL, &n), "f\xf0\x9d\x91\x93x");
    CHECK_INT(n, 6);
    /* The highest and lowest supplementary characters. */
    CHECK_STR(conv("\xed\xa0\x80\xed\xb0\x80", MUTF8_NUL_SYMBOL, NULL), "\xf0\x90\x80\x80");
    CHECK_STR(conv("\xed\xaf\xbf\xed\xbf\xbf", MUTF8_NUL_SYMBOL, NULL), "\xf4\x8f\xbf\xbf");
    /* U+0000 (C0 80): U+2400 for names that leave the agent, a real NUL
     * for the matcher. */
    CHECK(!mutf8_plain("a\xc0\x80" "b"));
    CHECK_STR(conv("a\xc0\x80" "b", MUTF8_NUL_SYMBOL, NULL), "a\xe2\x90\x80" "b");
    conv("a\xc0\x80" "b", MUTF8_NUL_CHAR, &n);
    CHECK_INT(n, 3);
    CHECK(memcmp(conv("a\xc0\x80" "b", MUTF8_NUL_CHAR, NULL), "a\0b", 4) == 0);
    /* Not modified UTF-8: lone surrogates (high, low, a high before a
     * non-surrogate), stray bytes, truncated sequences: U+FFFD each. */
    CHECK_STR(conv("a\xed\xa0\xb5" "b", MUTF8_NUL_SYMBOL, NULL), "a\xef\xbf\xbd" "b");
    CHECK_STR(conv("a\xed\xb1\x93" "b", MUTF8_NUL_SYMBOL, NULL), "a\xef\xbf\xbd" "b");
    CHECK_STR(conv("\xed\xa0\xb5\xe2\x82\xac", MUTF8_NUL_SYMBOL, NULL), "\xef\xbf\xbd\xe2\x82\xac");
    CHECK_STR(conv("\xed\xa0\xb5", MUTF8_NUL_SYMBOL, NULL), "\xef\xbf\xbd");
    CHECK_STR(conv("\xed\xa0", MUTF8_NUL_SYMBOL, NULL), "\xef\xbf\xbd\xef\xbf\xbd");
    CHECK_STR(conv("a\xff" "b", MUTF8_NUL_SYMBOL, NULL), "a\xef\xbf\xbd" "b");
    CHECK_STR(conv("\x80", MUTF8_NUL_SYMBOL, NULL), "\xef\xbf\xbd");
    CHECK_STR(conv("\xc3", MUTF8_NUL_SYMBOL, NULL), "\xef\xbf\xbd");
    CHECK_STR(conv("\xc1\x81", MUTF8_NUL_SYMBOL, NULL), "\xef\xbf\xbd\xef\xbf\xbd"); /* overlong */
    CHECK(!mutf8_plain("a\xff"));
    CHECK(!mutf8_plain("\xed\xa0\xb5"));
    /* Standard four-byte UTF-8 is kept: converting twice is converting once. */
    CHECK(mutf8_plain("\xf0\x9d\x91\x93"));
    CHECK_STR(conv("\xf0\x9d\x91\x93", MUTF8_NUL_SYMBOL, NULL), "\xf0\x9d\x91\x93");
    CHECK(mutf8_plain(""));
    CHECK_STR(conv("", MUTF8_NUL_SYMBOL, NULL), "");
}

static void test_room(void)
{
    /* The worst cases fill MUTF8_ROOM exactly: stray bytes, each U+FFFD. */
    char in[100], *out = malloc(MUTF8_ROOM(sizeof in - 1));
    size_t n;

    memset(in, 0xff, sizeof in - 1);
    in[sizeof in - 1] = '\0';
    n = mutf8_to_utf8(in, out, MUTF8_NUL_SYMBOL);
    CHECK_INT(n + 1, MUTF8_ROOM(sizeof in - 1));
    free(out);
}

static void test_from_utf8(void)
{
    char out[64], *d;

    CHECK_INT(mutf8_from_utf8("f\xf0\x9d\x91\x93x", out), 8);
    CHECK_STR(out, "f\xed\xa0\xb5\xed\xb1\x93x");
    CHECK_INT(mutf8_from_utf8("\xf0\x9d\x91\x93\xf0\x9d\x91\x93" "a", out), 13);
    CHECK(13 + 1 <= MUTF8_FROM_ROOM(9));
    d = mutf8_dup("");
    CHECK_STR(d, "");
    free(d);
    /* Everything else is copied. */
    mutf8_from_utf8("caf\xc3\xa9\xe2\x90\x80", out);
    CHECK_STR(out, "caf\xc3\xa9\xe2\x90\x80");
    /* And back. */
    mutf8_from_utf8("x\xf4\x8f\xbf\xbfy", out);
    CHECK_STR(conv(out, MUTF8_NUL_SYMBOL, NULL), "x\xf4\x8f\xbf\xbfy");
}

static void test_dup_and_json(void)
{
    char *d = mutf8_dup("a\xc0\x80\xed\xa0\xb5\xed\xb1\x93");
    json_t *j;
    char *text, long_name[700];

    CHECK_STR(d, "a\xe2\x90\x80\xf0\x9d\x91\x93");
    free(d);
    j = mutf8_json("run\xed\xa0\xb5\xed\xb1\x93");
    CHECK(j != NULL && json_is_string(j));
    CHECK_STR(json_string_value(j), "run\xf0\x9d\x91\x93");
    text = json_dumps(j, JSON_ENCODE_ANY);
    CHECK_STR(text, "\"run\xf0\x9d\x91\x93\"");
    free(text);
    json_decref(j);
    /* A long name (past the stack buffer) with a NUL at its end. */
    memset(long_name, 'q', sizeof long_name);
    memcpy(long_name + sizeof long_name - 3, "\xc0\x80", 3);
    j = mutf8_json(long_name);
    CHECK(j != NULL && json_string_length(j) == sizeof long_name - 3 + 3);
    CHECK(j != NULL && strcmp(json_string_value(j) + sizeof long_name - 3, "\xe2\x90\x80") == 0);
    json_decref(j);
}

/* What the agent sends as a plan's reason or an end's detail: a text cut
 * mid-character (inst_outcome.reason keeps 159 bytes), or one that quotes a
 * type name from a class file (modified UTF-8). json_string refuses both,
 * which dropped the reason; mutf8_json gives a valid string. */
static void test_reason_texts(void)
{
    char cut[160], quoted[] = "bad descriptor \"(Lp/\xed\xa0\xb5\xed\xb1\x93;)V\"";
    json_t *j;

    memset(cut, 'r', sizeof cut);
    memcpy(cut + sizeof cut - 4, "\xf0\x9d\x91\x93", 4);
    cut[sizeof cut - 1] = '\0'; /* the character cut after 3 of its 4 bytes */
    CHECK(json_string(cut) == NULL);
    j = mutf8_json(cut);
    /* Each of its three bytes is U+FFFD. */
    CHECK(j != NULL && json_string_length(j) == sizeof cut - 4 + 9);
    CHECK(j != NULL && strcmp(json_string_value(j) + sizeof cut - 4, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd") == 0);
    json_decref(j);
    CHECK(json_string(quoted) == NULL);
    j = mutf8_json(quoted);
    CHECK(j != NULL);
    CHECK_STR(j != NULL ? json_string_value(j) : "", "bad descriptor \"(Lp/\xf0\x9d\x91\x93;)V\"");
    json_decref(j);
}

int main(void)
{
    test_to_utf8();
    test_room();
    test_from_utf8();
    test_dup_and_json();
    test_reason_texts();
    return check_status();
}
