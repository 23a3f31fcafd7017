/* test_match.c — the class regex: Java's full-match semantics, names with
 * '$' and modified UTF-8, the constructs PCRE2 reads differently, errors. */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "match.h"

/* Whether pattern matches the internal name (-1: does not compile). */
static int m(const char *pattern, const char *iname)
{
    mct_err err;
    match_re *re = match_compile(pattern, &err);
    int r;

    if (re == NULL) {
        fprintf(stderr, "compile '%s': %s\n", pattern, err.msg);
        return -1;
    }
    CHECK_STR(match_pattern(re), pattern);
    r = match_class(re, iname);
    match_free(re);
    return r;
}

static void test_full_match(void)
{
    CHECK_INT(m("com\\.shop\\..*", "com/shop/Cart"), 1);
    CHECK_INT(m("com\\.shop\\..*", "com/shop/model/Cart"), 1);
    CHECK_INT(m("com\\.shop\\..*", "com/shopping/Cart"), 0);
    CHECK_INT(m("com\\.shop\\..*", "org/com/shop/Cart"), 0);  /* anchored at the start */
    CHECK_INT(m("com\\.shop", "com/shop/Cart"), 0);           /* ... and at the end */
    CHECK_INT(m("com.shop.Cart", "com/shop/Cart"), 1);        /* '.' is any character */
    CHECK_INT(m("Cart", "com/shop/Cart"), 0);
    CHECK_INT(m(".*Cart", "com/shop/Cart"), 1);
    CHECK_INT(m("a|ab", "ab"), 1);                            /* backtracks into the alternation */
    CHECK_INT(m("(?:a|ab)", "ab"), 1);
    CHECK_INT(m("com\\.(shop|store)\\..*", "com/store/X"), 1);
    CHECK_INT(m("com\\.(shop|store)\\..*", "com/stores/X"), 0);
    CHECK_INT(m("", "com/shop/Cart"), 0);
    CHECK_INT(m(".*", "com/shop/Cart"), 1);
    CHECK_INT(m("(?i)COM\\.SHOP\\..*", "com/shop/Cart"), 1);
    CHECK_INT(m("com\\.shop\\.[A-Z]\\w*", "com/shop/Cart"), 1);
    CHECK_INT(m("com\\.shop\\.[A-Z]\\w*", "com/shop/cart"), 0);
    CHECK_INT(m("\\Qcom.shop.\\E.*", "com/shop/Cart"), 1);
    CHECK_INT(m("\\Qcom.shop.\\E.*", "comxshop/Cart"), 0);
    CHECK_INT(m("com\\.shop\\.(?!internal\\.).*", "com/shop/internal/X"), 0);
    CHECK_INT(m("com\\.shop\\.(?!internal\\.).*", "com/shop/api/X"), 1);
    CHECK_INT(m("\\p{Lu}.*", "Cart"), 1);
}

static void test_nested_and_unicode(void)
{
    /* Nested classes keep their '$', which a pattern escapes. */
    CHECK_INT(m("com\\.shop\\.Cart\\$Line", "com/shop/Cart$Line"), 1);
    CHECK_INT(m("com\\.shop\\.Cart\\$.*", "com/shop/Cart$1"), 1);
    CHECK_INT(m("com\\.shop\\..*", "com/shop/Cart$Line"), 1);
    CHECK_INT(m("com\\.shop\\.Cart", "com/shop/Cart$Line"), 0);
    /* An unescaped '$' is the end anchor, as in Java. */
    CHECK_INT(m("com\\.shop\\.Cart$Line", "com/shop/Cart$Line"), 0);
    /* Hidden classes of lambdas. */
    CHECK_INT(m("com\\.shop\\..*", "com/shop/Cart$$Lambda$14/0x0000000800c03000"), 1);
    /* UTF-8 names match by code point. */
    CHECK_INT(m("shop\\.Caf.", "shop/Caf\xc3\xa9"), 1);
    CHECK_INT(m("shop\\.\\x{e9}t\\x{e9}", "shop/\xc3\xa9t\xc3\xa9"), 1);
    /* Modified UTF-8: a supplementary character as a surrogate pair is one
     * code point (U+1F600), NUL is two bytes. */
    CHECK_INT(m("shop\\.A.B", "shop/A\xed\xa0\xbd\xed\xb8\x80" "B"), 1);
    CHECK_INT(m("shop\\.A\\x{1F600}B", "shop/A\xed\xa0\xbd\xed\xb8\x80" "B"), 1);
    CHECK_INT(m("shop\\.A\\x{0}B", "shop/A\xc0\x80" "B"), 1);
    /* A lone surrogate is not UTF-8: it is U+FFFD to the pattern. */
    CHECK_INT(m("shop\\..*", "shop/A\xed\xa0\xbd" "B"), 1);
    CHECK_INT(m("shop\\.A\\x{FFFD}B", "shop/A\xed\xa0\xbd" "B"), 1);
    /* Standard UTF-8 (a name converted already) is kept. */
    CHECK_INT(m("shop\\.A\\x{1F600}B", "shop/A\xf0\x9f\x98\x80" "B"), 1);
    /* Long names (past the stack buffer). */
    {
        char name[1200];

        memset(name, 'a', sizeof name - 1);
        name[sizeof name - 1] = '\0';
        name[3] = '/';
        CHECK_INT(m("aaa\\.a+", name), 1);
        CHECK_INT(m("aaa\\.a+b", name), 0);
    }
}

/* Compiles pattern, expecting MCT_E_BAD_REGEX with every want in the
 * message (NULL-terminated). */
static void bad(const char *pattern, int line, ...)
{
    mct_err err;
    match_re *re = match_compile(pattern, &err);
    va_list ap;
    const char *want;

    if (re != NULL) {
        fprintf(stderr, "line %d: '%s' compiled\n", line, pattern);
        check_failures++;
        match_free(re);
        return;
    }
    if (err.code != MCT_E_BAD_REGEX) {
        fprintf(stderr, "line %d: code %s\n", line, mct_code_name(err.code));
        check_failures++;
    }
    va_start(ap, line);
    while ((want = va_arg(ap, const char *)) != NULL)
        if (strstr(err.msg, want) == NULL) {
            fprintf(stderr, "line %d: message \"%s\" lacks \"%s\"\n", line, err.msg, want);
            check_failures++;
        }
    va_end(ap);
}

static void test_errors(void)
{
    /* PCRE2's message, the offset, the pattern and a caret under it. */
    bad("com\\.(shop", __LINE__, "invalid regex at offset 10: missing closing parenthesis",
        "\n  com\\.(shop\n            ^", NULL);
    bad("com\\.[shop", __LINE__, "at offset 10: missing terminating ] for character class", NULL);
    bad("*foo", __LINE__, "at offset 0: quantifier does not follow a repeatable item", "\n  *foo\n  ^",
        NULL);
    bad("com\\.sh(?<n>op", __LINE__, "at offset", NULL);
    bad("a{2,1}", __LINE__, "at offset 5:", "out of order", "\n  a{2,1}\n       ^", NULL);
    /* Java-only syntax. */
    bad("[a-z&&[^q]]", __LINE__, "at offset 4: character class intersection (&&) is not supported",
        "\n  [a-z&&[^q]]\n      ^", NULL);
    bad("com\\.\\u0041", __LINE__, "at offset", NULL);
    bad("\\p{javaLowerCase}", __LINE__, "at offset", NULL);
    /* The caret counts characters, not bytes. */
    bad("caf\xc3\xa9(", __LINE__, "at offset 6:", "\n  caf\xc3\xa9(\n       ^", NULL);
    /* A long pattern is shown around the error. */
    {
        char p[300];

        memset(p, 'a', sizeof p - 1);
        p[sizeof p - 1] = '\0';
        p[200] = ')';
        bad(p, __LINE__, "at offset 200:", "\n  ...aaaa", "aaa)aaa", "...\n     ", NULL);
    }
    /* Not errors: && outside a class, escaped or quoted &&. */
    CHECK_INT(m("a&&b", "a&&b"), 1);
    CHECK_INT(m("[a\\&&]+", "a&&"), 1);
    CHECK_INT(m("\\Q[&&]\\E", "[&&]"), 1);
}

static void test_pathological(void)
{
    char name[64];
    mct_err err;
    match_re *re;
    uint64_t budget;
    int i, rc;

    /* Catastrophic backtracking stops at MATCH_NAME_WORK steps instead of
     * stalling the thread that loads a class, and says so. */
    memset(name, 'a', sizeof name - 1);
    name[sizeof name - 2] = 'b';
    name[sizeof name - 1] = '\0';
    CHECK_INT(m("(a|a)*", name), MATCH_NAME_LIMIT);
    CHECK_INT(m("(.+)+[0-9]", "java/util/concurrent/ConcurrentHashMap"), MATCH_NAME_LIMIT);
    /* Short names stay under the limit. */
    CHECK_INT(m("(.+)+[0-9]", "java/util/Map"), 0);
    CHECK_INT(m("(.+)+[0-9]", "tgt/Wd01234"), 1);

    /* A budget over many names: each match takes its steps from it, and
     * the one that finds it empty stops. */
    re = match_compile("(.+)+[A-Z]", &err);
    CHECK(re != NULL);
    if (re == NULL)
        return;
    budget = 1000000;
    for (i = 0; i < 1000; i++)
        if ((rc = match_class_budget(re, "tgt/Wd01234", &budget)) != 0)
            break;
    CHECK_INT(rc, MATCH_BUDGET_LIMIT);
    CHECK_INT(budget, 0);
    CHECK(i > 10 && i < 1000); /* thousands of steps each */
    /* A cheap pattern takes a few steps a name. */
    match_free(re);
    re = match_compile("tgt\\..*", &err);
    budget = 1000000;
    CHECK_INT(match_class_budget(re, "tgt/Wd01234", &budget), 1);
    CHECK(budget < 1000000 && budget > 1000000 - 100);
    budget = 0;
    CHECK_INT(match_class_budget(re, "tgt/Wd01234", &budget), MATCH_BUDGET_LIMIT);
    /* Without a budget, only the name's own limit applies. */
    CHECK_INT(match_class(re, "tgt/Wd01234"), 1);
    match_free(re);
}

int main(void)
{
    test_full_match();
    test_nested_and_unicode();
    test_errors();
    test_pathological();
    CHECK(match_compile("(", NULL) == NULL);
    match_free(NULL);
    return check_status();
}
