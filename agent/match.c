/* match.c — see match.h. */
#include "match.h"

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct match_re {
    pcre2_code *code;
    pcre2_match_context *mctx; /* never changed after compile: shareable */
    char *pattern;
};

/* Backtracking steps one match may take: class names are short, so only a
 * pathological pattern ("(a+)+b") gets near it, and then gives up quickly
 * instead of stalling the JVM thread that loads a class. */
#define MATCH_LIMIT 1000000

/* Bytes of the pattern shown around an error position. */
#define SHOW_BEFORE 40
#define SHOW_AFTER 30

/* Names up to this length are converted on the stack. */
#define NAME_STACK 256

/* Java's intersection and subtraction ("[a-z&&[^q]]") has no PCRE2
 * equivalent (PCRE2 would read "&&[" literally); returns the offset of such
 * an "&&" inside a character class, or -1. */
static long java_only_syntax(const char *p)
{
    size_t i = 0;
    int depth = 0; /* character class nesting: Java allows "[a[b]]" */

    while (p[i] != '\0') {
        if (p[i] == '\\') {
            if (p[i + 1] == 'Q') {
                const char *e = strstr(p + i + 2, "\\E");

                if (e == NULL)
                    return -1;
                i = (size_t)(e - p) + 2;
                continue;
            }
            i += p[i + 1] != '\0' ? 2 : 1;
            continue;
        }
        if (p[i] == '[')
            depth++;
        else if (p[i] == ']' && depth > 0)
            depth--;
        else if (depth > 0 && p[i] == '&' && p[i + 1] == '&')
            return (long)i;
        i++;
    }
    return -1;
}

/* Appends the pattern near offset off, one line, and a caret line under the
 * character at off: "\n  <pattern>\n  <spaces>^". Control characters are
 * shown as '?' so that the caret stays aligned. */
static void show_position(char *out, size_t cap, const char *pattern, size_t off)
{
    size_t len = strlen(pattern), from, to, i, n = strlen(out), col = 0;
    int cut_left, cut_right;

    if (off > len)
        off = len;
    from = off > SHOW_BEFORE ? off - SHOW_BEFORE : 0;
    while (from > 0 && ((unsigned char)pattern[from] & 0xC0) == 0x80)
        from--;
    to = len - off > SHOW_AFTER ? off + SHOW_AFTER : len;
    while (to < len && ((unsigned char)pattern[to] & 0xC0) == 0x80)
        to++;
    cut_left = from > 0;
    cut_right = to < len;
    if (n + 2 * (to - from) + 32 > cap)
        return;
    memcpy(out + n, "\n  ", 3);
    n += 3;
    if (cut_left) {
        memcpy(out + n, "...", 3);
        n += 3;
        col += 3;
    }
    for (i = from; i < to; i++) {
        unsigned char ch = (unsigned char)pattern[i];

        out[n++] = ch < 0x20 || ch == 0x7F ? '?' : (char)ch;
        if (i < off && (ch & 0xC0) != 0x80)
            col++;
    }
    if (cut_right) {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    memcpy(out + n, "\n  ", 3);
    n += 3;
    for (i = 0; i < col; i++)
        out[n++] = ' ';
    out[n++] = '^';
    out[n] = '\0';
}

static match_re *bad_regex(mct_err *err, const char *pattern, size_t off, const char *why)
{
    char msg[MCT_ERR_MSG];

    snprintf(msg, sizeof msg, "invalid regex at offset %zu: %s", off, why);
    show_position(msg, sizeof msg, pattern, off);
    mct_err_set(err, MCT_E_BAD_REGEX, "%s", msg);
    return NULL;
}

match_re *match_compile(const char *pattern, mct_err *err)
{
    uint32_t opts = PCRE2_UTF | PCRE2_ANCHORED | PCRE2_ENDANCHORED;
    match_re *re;
    int code;
    PCRE2_SIZE off;
    long java_off;

#ifdef PCRE2_MATCH_INVALID_UTF
    /* A name that is not valid UTF-8 even after the conversion (a lone
     * surrogate) still matches where the pattern allows it. */
    opts |= PCRE2_MATCH_INVALID_UTF;
#endif
    java_off = java_only_syntax(pattern);
    if (java_off >= 0)
        return bad_regex(err, pattern, (size_t)java_off,
                         "character class intersection (&&) is not supported: "
                         "write the class out, or use a lookahead such as (?![q])[a-z]");
    re = calloc(1, sizeof *re);
    if (re == NULL || (re->pattern = strdup(pattern)) == NULL) {
        free(re);
        mct_err_set(err, MCT_E_NOMEM, "out of memory compiling the regex");
        return NULL;
    }
    re->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, opts, &code, &off, NULL);
    if (re->code == NULL) {
        PCRE2_UCHAR why[256];

        if (pcre2_get_error_message(code, why, sizeof why) < 0)
            snprintf((char *)why, sizeof why, "PCRE2 error %d", code);
        bad_regex(err, pattern, off, (const char *)why);
        match_free(re);
        return NULL;
    }
    re->mctx = pcre2_match_context_create(NULL);
    if (re->mctx == NULL) {
        match_free(re);
        mct_err_set(err, MCT_E_NOMEM, "out of memory compiling the regex");
        return NULL;
    }
    pcre2_set_match_limit(re->mctx, MATCH_LIMIT);
    return re;
}

/* Writes the binary name of iname into out (room for strlen(iname) + 1
 * bytes: the result is never longer); returns its length. */
static size_t binary_name(const char *iname, char *out)
{
    const unsigned char *s = (const unsigned char *)iname;
    size_t n = 0;

    while (*s != '\0') {
        if (*s == '/') {
            out[n++] = '.';
            s++;
        } else if (s[0] == 0xC0 && s[1] == 0x80) {
            out[n++] = '\0';
            s += 2;
        } else if (s[0] == 0xED && (s[1] & 0xF0) == 0xA0 && (s[2] & 0xC0) == 0x80 &&
                   s[3] == 0xED && (s[4] & 0xF0) == 0xB0 && (s[5] & 0xC0) == 0x80) {
            /* A surrogate pair, each half in three bytes: one code point. */
            unsigned hi = (unsigned)(s[1] & 0x0F) << 6 | (s[2] & 0x3F);
            unsigned lo = (unsigned)(s[4] & 0x0F) << 6 | (s[5] & 0x3F);
            unsigned cp = 0x10000 + (hi << 10) + lo;

            out[n++] = (char)(0xF0 | cp >> 18);
            out[n++] = (char)(0x80 | (cp >> 12 & 0x3F));
            out[n++] = (char)(0x80 | (cp >> 6 & 0x3F));
            out[n++] = (char)(0x80 | (cp & 0x3F));
            s += 6;
        } else {
            out[n++] = (char)*s++;
        }
    }
    out[n] = '\0';
    return n;
}

int match_class(const match_re *re, const char *iname)
{
    char stack[NAME_STACK], *name = stack;
    size_t len = strlen(iname), n;
    pcre2_match_data *md;
    int rc;

    if (len >= sizeof stack && (name = malloc(len + 1)) == NULL)
        return -1;
    n = binary_name(iname, name);
    md = pcre2_match_data_create(1, NULL);
    if (md == NULL) {
        rc = -1;
    } else {
        rc = pcre2_match(re->code, (PCRE2_SPTR)name, n, 0, 0, md, re->mctx);
        rc = rc >= 0 ? 1 : rc == PCRE2_ERROR_NOMATCH ? 0 : -1;
        pcre2_match_data_free(md);
    }
    if (name != stack)
        free(name);
    return rc;
}

const char *match_pattern(const match_re *re)
{
    return re->pattern;
}

void match_free(match_re *re)
{
    if (re == NULL)
        return;
    pcre2_code_free(re->code);
    pcre2_match_context_free(re->mctx);
    free(re->pattern);
    free(re);
}
