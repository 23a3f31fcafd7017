/* match.c — see match.h. */
#include "match.h"

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mutf8.h"

struct match_re {
    pcre2_code *code;
    pcre2_match_context *mctx; /* never changed after compile: shareable */
    char *pattern;
};

/* PCRE2's own limits, a backstop behind MATCH_NAME_WORK for work the
 * steps do not see (backtracking inside one repeated item): calls of its
 * internal match function, and the nesting of backtracking points (class
 * names are far shorter than it). */
#define PCRE2_MATCH_LIMIT 1000000
#define PCRE2_DEPTH_LIMIT 50000

/* What count_step returns to stop a match: any value below 0 ends
 * pcre2_match with that value; these are none of PCRE2's codes. */
#define STOP_NAME (-1001)
#define STOP_BUDGET (-1002)

/* Bytes of the pattern shown around an error position. */
#define SHOW_BEFORE 40
#define SHOW_AFTER 30

/* Names up to this many bytes are converted on the stack. */
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
    /* Auto-callouts: count_step runs at every step through the pattern. */
    uint32_t opts = PCRE2_UTF | PCRE2_ANCHORED | PCRE2_ENDANCHORED | PCRE2_AUTO_CALLOUT;
    match_re *re;
    int code;
    PCRE2_SIZE off;
    long java_off;

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
    pcre2_set_match_limit(re->mctx, PCRE2_MATCH_LIMIT);
    pcre2_set_depth_limit(re->mctx, PCRE2_DEPTH_LIMIT);
    return re;
}

/* The work of one match: counted at each step through the pattern. */
struct work {
    uint64_t steps;
    uint64_t name_limit;       /* the steps one name may take */
    uint64_t *budget;          /* what is left over the plan, or NULL */
};

static int count_step(pcre2_callout_block *block, void *arg)
{
    struct work *w = arg;

    (void)block;
    if (++w->steps > w->name_limit)
        return STOP_NAME;
    if (w->budget != NULL) {
        if (*w->budget == 0)
            return STOP_BUDGET;
        --*w->budget;
    }
    return 0;
}

int match_class_budget(const match_re *re, const char *iname, uint64_t *budget)
{
    char stack[MUTF8_ROOM(NAME_STACK)], *name = stack;
    size_t len = strlen(iname), n;
    pcre2_match_data *md;
    pcre2_match_context *mctx;
    struct work w = {.name_limit = MATCH_NAME_WORK, .budget = budget};
    int rc;

    if (len > NAME_STACK && (name = malloc(MUTF8_ROOM(len))) == NULL)
        return MATCH_ERROR;
    /* The binary name: slashes become dots (never part of a multi-byte
     * sequence), U+0000 stays a character, as in Java. */
    n = mutf8_to_utf8(iname, name, MUTF8_NUL_CHAR);
    mutf8_binary_name(name, n);
    md = pcre2_match_data_create(1, NULL);
    mctx = pcre2_match_context_copy(re->mctx);
    if (md == NULL || mctx == NULL || pcre2_set_callout(mctx, count_step, &w) != 0) {
        rc = MATCH_ERROR;
    } else {
        rc = pcre2_match(re->code, (PCRE2_SPTR)name, n, 0, 0, md, mctx);
        if (rc >= 0)
            rc = 1;
        else if (rc == PCRE2_ERROR_NOMATCH)
            rc = 0;
        else if (rc == STOP_NAME || rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
                 rc == PCRE2_ERROR_HEAPLIMIT)
            rc = MATCH_NAME_LIMIT;
        else if (rc == STOP_BUDGET)
            rc = MATCH_BUDGET_LIMIT;
        else
            rc = MATCH_ERROR;
    }
    pcre2_match_context_free(mctx);
    pcre2_match_data_free(md);
    if (name != stack)
        free(name);
    return rc;
}

int match_class(const match_re *re, const char *iname)
{
    return match_class_budget(re, iname, NULL);
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
