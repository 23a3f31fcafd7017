/* jtok.c — see jtok.h. */
#include "jtok.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define JT_IN_SIZE 65536

/* What the grammar expects next. */
enum {
    ST_LINE,            /* a line's value, a blank line, or the end */
    ST_VALUE,           /* a value (after a key) */
    ST_OBJ_FIRST,       /* a key or '}' */
    ST_OBJ_NEXT,        /* ',' or '}' */
    ST_ARR_FIRST,       /* a value or ']' */
    ST_ARR_NEXT,        /* ',' or ']' */
    ST_DONE             /* the end of the line */
};

/* What rd returns past the input, and past the line's limit. */
#define RD_EOF (-1)
#define RD_LONG (-2)

int jt_init_file(jtok *t, FILE *f, size_t line_max)
{
    jt_init_mem(t, NULL, 0, line_max);
    t->f = f;
    t->in = malloc(JT_IN_SIZE);
    return t->in == NULL ? -1 : 0;
}

void jt_init_mem(jtok *t, const void *p, size_t n, size_t line_max)
{
    memset(t, 0, sizeof *t);
    t->mem = p;
    t->memlen = n;
    t->back = -1;
    t->line_max = line_max;
}

void jt_free(jtok *t)
{
    free(t->in);
    free(t->str);
    t->in = NULL;
    t->str = NULL;
    t->cap = 0;
}

int jt_line_ended(const jtok *t)
{
    return t->state == ST_LINE && !t->failed;
}

int jt_too_long(const jtok *t)
{
    return t->too_long;
}

/* The next byte of the line ('\n' included), RD_EOF or RD_LONG. */
static inline int rd(jtok *t)
{
    int c;

    if (t->back >= 0) {
        c = t->back;
        t->back = -1;
    } else if (t->f != NULL) {
        if (t->inpos == t->inlen) {
            t->inlen = fread(t->in, 1, JT_IN_SIZE, t->f);
            t->inpos = 0;
            if (t->inlen == 0) {
                t->eol = 1;
                return RD_EOF;
            }
        }
        c = t->in[t->inpos++];
    } else {
        if (t->mempos == t->memlen) {
            t->eol = 1;
            return RD_EOF;
        }
        c = t->mem[t->mempos++];
    }
    if (c == '\n')
        t->eol = 1;
    else if (++t->line_bytes > t->line_max) {
        t->too_long = 1;
        return RD_LONG;
    }
    if (t->rec != NULL)
        buf_ch(t->rec, (char)c);
    return c;
}

/* Gives back byte c (not RD_*), read last. */
static void unrd(jtok *t, int c)
{
    t->back = c;
    if (c == '\n')
        t->eol = 0;
    else
        t->line_bytes--;
    if (t->rec != NULL && t->rec->len > 0)
        t->rec->len--;
}

static int fail(jtok *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(jtok *t, const char *fmt, ...)
{
    va_list ap;

    if (t->too_long) {
        snprintf(t->err, sizeof t->err, "a line of more than %zu bytes", t->line_max);
    } else {
        va_start(ap, fmt);
        vsnprintf(t->err, sizeof t->err, fmt, ap);
        va_end(ap);
    }
    t->failed = 1;
    return JT_ERR;
}

/* The next byte that is not a space, tab or CR. */
static int skip_ws(jtok *t)
{
    int c;

    do
        c = rd(t);
    while (c == ' ' || c == '\t' || c == '\r');
    return c;
}

/* Makes room for one more byte in the token's string. */
static int grow_str(jtok *t)
{
    size_t cap = t->cap != 0 ? t->cap * 2 : 256;
    char *p = realloc(t->str, cap);

    if (p == NULL)
        return fail(t, "out of memory for a string");
    t->str = p;
    t->cap = cap;
    return 0;
}

/* Appends byte c to the token's string. */
static inline int put(jtok *t, int c)
{
    if (t->len + 1 >= t->cap && grow_str(t) < 0)
        return JT_ERR;
    t->str[t->len++] = (char)c;
    return 0;
}

static int hex4(jtok *t, unsigned *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++) {
        int c = rd(t);

        if (c >= '0' && c <= '9')
            *v = *v * 16 + (unsigned)(c - '0');
        else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
            *v = *v * 16 + (unsigned)((c | 0x20) - 'a' + 10);
        else
            return fail(t, "a \\u escape without four hex digits at byte %zu", t->line_bytes);
    }
    return 0;
}

/* Appends code point u as UTF-8. */
static int put_utf8(jtok *t, unsigned u)
{
    if (u < 0x80)
        return put(t, (int)u);
    if (u < 0x800)
        return put(t, (int)(0xC0 | u >> 6)) | put(t, (int)(0x80 | (u & 0x3F)));
    if (u < 0x10000)
        return put(t, (int)(0xE0 | u >> 12)) | put(t, (int)(0x80 | (u >> 6 & 0x3F))) |
               put(t, (int)(0x80 | (u & 0x3F)));
    return put(t, (int)(0xF0 | u >> 18)) | put(t, (int)(0x80 | (u >> 12 & 0x3F))) |
           put(t, (int)(0x80 | (u >> 6 & 0x3F))) | put(t, (int)(0x80 | (u & 0x3F)));
}

/* An escape after '\'. */
static int escape(jtok *t)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    int c = rd(t);
    unsigned u, lo;
    const char *p;

    if (c != 'u') {
        if (c < 0 || c == '\0' || (p = strchr(from, c)) == NULL)
            return fail(t, "an invalid escape in a string at byte %zu", t->line_bytes);
        return put(t, to[p - from]);
    }
    if (hex4(t, &u) < 0)
        return JT_ERR;
    if (u >= 0xDC00 && u <= 0xDFFF)
        return fail(t, "a lone low surrogate \\u%04X at byte %zu", u, t->line_bytes);
    if (u >= 0xD800 && u <= 0xDBFF) {
        if (rd(t) != '\\' || rd(t) != 'u' || hex4(t, &lo) < 0 || lo < 0xDC00 || lo > 0xDFFF)
            return fail(t, "a high surrogate without its low one at byte %zu", t->line_bytes);
        u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
    }
    if (u == 0)
        return fail(t, "\\u0000 in a string at byte %zu", t->line_bytes);
    return put_utf8(t, u);
}

/* The continuation bytes of a UTF-8 sequence led by c, appended. */
static int utf8_rest(jtok *t, int c)
{
    int n, lo = 0x80, hi = 0xBF;

    if (c >= 0xC2 && c <= 0xDF)
        n = 1;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 2, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 3, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    else
        return fail(t, "a string not UTF-8 at byte %zu", t->line_bytes);
    for (int i = 0; i < n; i++) {
        int k = rd(t);

        if (k < lo || k > hi)
            return fail(t, "a string not UTF-8 at byte %zu", t->line_bytes);
        if (put(t, k) < 0)
            return JT_ERR;
        lo = 0x80;
        hi = 0xBF;
    }
    return 0;
}

/* Copies the plain bytes (printable ASCII but '"' and '\\') that come
 * next in the input buffer into t->str at once, within the line's limit:
 * most of a string. */
static int plain(jtok *t)
{
    const unsigned char *p, *end, *q;
    size_t n;

    if (t->back >= 0 || t->rec != NULL || (t->f == NULL && t->mem == NULL))
        return 0;
    p = t->f != NULL ? t->in + t->inpos : t->mem + t->mempos;
    end = t->f != NULL ? t->in + t->inlen : t->mem + t->memlen;
    q = p;
    if ((size_t)(end - p) > t->line_max - t->line_bytes)
        end = p + (t->line_max - t->line_bytes);
    while (q < end && *q >= 0x20 && *q < 0x80 && *q != '"' && *q != '\\')
        q++;
    if ((n = (size_t)(q - p)) == 0)
        return 0;
    while (t->len + n + 1 >= t->cap)
        if (grow_str(t) < 0)
            return JT_ERR;
    memcpy(t->str + t->len, p, n);
    t->len += n;
    t->line_bytes += n;
    if (t->f != NULL)
        t->inpos += n;
    else
        t->mempos += n;
    return 0;
}

/* A string after its '"', into t->str. */
static int string(jtok *t)
{
    t->len = 0;
    for (;;) {
        int c;

        if (plain(t) < 0)
            return JT_ERR;
        c = rd(t);

        if (c == '"')
            break;
        if (c == RD_EOF || c == RD_LONG || c == '\n')
            return fail(t, "the line ended inside a string");
        if (c < 0x20)
            return fail(t, "a control character in a string at byte %zu", t->line_bytes);
        if (c == '\\' ? escape(t) < 0 : put(t, c) < 0 || (c >= 0x80 && utf8_rest(t, c) < 0))
            return JT_ERR;
    }
    return put(t, '\0') < 0 ? JT_ERR : (t->len--, 0);
}

/* Whether c may follow a number or a literal. */
static int delimiter(int c)
{
    return c < 0 || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ']' || c == '}';
}

/* Appends digits from c on, their value (saturated) into *v; the first
 * byte that is not one. */
static int digits(jtok *t, int c, size_t *n, uint64_t *v)
{
    *n = 0;
    *v = 0;
    while (c >= '0' && c <= '9') {
        if (put(t, c) < 0)
            return RD_LONG;
        *v = *v > (UINT64_MAX - 9) / 10 ? UINT64_MAX : *v * 10 + (uint64_t)(c - '0');
        (*n)++;
        c = rd(t);
    }
    return c;
}

/* A number from its first byte c: JT_INT (t->ival) or JT_REAL. */
static int number(jtok *t, int c)
{
    size_t n;
    uint64_t v = 0, ignore;
    int real = 0, neg = c == '-';

    t->len = 0;
    if (neg) {
        if (put(t, c) < 0)
            return JT_ERR;
        c = rd(t);
    }
    if (c == '0') {
        if (put(t, c) < 0)
            return JT_ERR;
        c = rd(t);
    } else if ((c = digits(t, c, &n, &v)), n == 0) {
        return fail(t, "an invalid number at byte %zu", t->line_bytes);
    }
    if (c == '.') {
        real = 1;
        if (put(t, c) < 0 || ((c = digits(t, rd(t), &n, &ignore)), n == 0))
            return fail(t, "an invalid number at byte %zu", t->line_bytes);
    }
    if (c == 'e' || c == 'E') {
        real = 1;
        if (put(t, c) < 0)
            return JT_ERR;
        c = rd(t);
        if (c == '+' || c == '-') {
            if (put(t, c) < 0)
                return JT_ERR;
            c = rd(t);
        }
        if ((c = digits(t, c, &n, &ignore)), n == 0)
            return fail(t, "an invalid number at byte %zu", t->line_bytes);
    }
    if (!delimiter(c))
        return fail(t, "an invalid number at byte %zu", t->line_bytes);
    if (c >= 0)
        unrd(t, c);
    if (put(t, '\0') < 0)
        return JT_ERR;
    t->len--;
    if (real) {
        double d;

        errno = 0;
        d = strtod(t->str, NULL);
        if (errno == ERANGE && isinf(d))
            return fail(t, "a real number out of range at byte %zu", t->line_bytes);
        return JT_REAL;
    }
    if (v > (uint64_t)INT64_MAX + neg)
        return fail(t, "an integer out of range at byte %zu", t->line_bytes);
    t->ival = neg ? (int64_t)(0 - v) : (int64_t)v;
    return JT_INT;
}

/* true, false or null from its first byte c. */
static int literal(jtok *t, int c)
{
    const char *word = c == 't' ? "true" : c == 'f' ? "false" : "null";

    for (const char *p = word + 1; *p != '\0'; p++)
        if (rd(t) != *p)
            return fail(t, "an invalid token at byte %zu", t->line_bytes);
    c = rd(t);
    if (!delimiter(c))
        return fail(t, "an invalid token at byte %zu", t->line_bytes);
    if (c >= 0)
        unrd(t, c);
    return word[0] == 't' ? JT_TRUE : word[0] == 'f' ? JT_FALSE : JT_NULL;
}

/* The state after a value at the current depth. */
static void after_value(jtok *t)
{
    if (t->depth == 0)
        t->state = ST_DONE;
    else
        t->state = t->stack[(t->depth - 1) / 8] >> ((t->depth - 1) % 8) & 1 ? ST_OBJ_NEXT : ST_ARR_NEXT;
}

static int push(jtok *t, int obj)
{
    unsigned char bit = (unsigned char)(1u << (t->depth % 8));

    if (t->depth == JT_DEPTH_MAX)
        return fail(t, "nested deeper than %d levels", JT_DEPTH_MAX);
    if (obj)
        t->stack[t->depth / 8] |= bit;
    else
        t->stack[t->depth / 8] &= (unsigned char)~bit;
    t->depth++;
    t->state = obj ? ST_OBJ_FIRST : ST_ARR_FIRST;
    return obj ? JT_OBJ : JT_ARR;
}

static int close(jtok *t, int kind)
{
    t->depth--;
    after_value(t);
    return kind;
}

/* A value from its first byte c. */
static int value(jtok *t, int c)
{
    int k;

    switch (c) {
    case '{':
        return push(t, 1);
    case '[':
        return push(t, 0);
    case '"':
        if (string(t) < 0)
            return JT_ERR;
        after_value(t);
        return JT_STR;
    case 't':
    case 'f':
    case 'n':
        k = literal(t, c);
        break;
    default:
        if (c != '-' && (c < '0' || c > '9'))
            return fail(t, "an invalid character at byte %zu", t->line_bytes);  /* or too long: fail says */
        k = number(t, c);
        break;
    }
    if (k != JT_ERR)
        after_value(t);
    return k;
}

/* A key after its '"', and its ':'. */
static int key(jtok *t)
{
    if (string(t) < 0)
        return JT_ERR;
    if (skip_ws(t) != ':')
        return fail(t, "':' expected after a key at byte %zu", t->line_bytes);
    t->state = ST_VALUE;
    return JT_KEY;
}

int jt_next(jtok *t)
{
    int c;

    if (t->failed)
        return JT_ERR;
    c = skip_ws(t);
    if (c == RD_LONG)
        return fail(t, "%s", "");
    if (c == '\n' || c == RD_EOF) {
        if (t->state != ST_LINE && t->state != ST_DONE)
            return fail(t, "the line ended inside a value");
        if (t->state == ST_LINE && c == RD_EOF)
            return JT_EOF;
        t->state = ST_LINE;
        t->line_bytes = 0;
        t->eol = 0;
        return JT_EOL;
    }
    switch (t->state) {
    case ST_LINE:
    case ST_VALUE:
        return value(t, c);
    case ST_OBJ_FIRST:
        if (c == '}')
            return close(t, JT_OBJ_END);
        if (c == '"')
            return key(t);
        return fail(t, "a key or '}' expected at byte %zu", t->line_bytes);
    case ST_OBJ_NEXT:
        if (c == '}')
            return close(t, JT_OBJ_END);
        if (c == ',' && skip_ws(t) == '"')
            return key(t);
        return fail(t, "',' and a key, or '}' expected at byte %zu", t->line_bytes);
    case ST_ARR_FIRST:
        if (c == ']')
            return close(t, JT_ARR_END);
        return value(t, c);
    case ST_ARR_NEXT:
        if (c == ']')
            return close(t, JT_ARR_END);
        if (c == ',')
            return value(t, skip_ws(t));
        return fail(t, "',' or ']' expected at byte %zu", t->line_bytes);
    default:
        return fail(t, "the end of the line expected after the value at byte %zu", t->line_bytes);
    }
}

int jt_skip(jtok *t, int kind)
{
    int depth = t->depth - 1, k;

    if (kind == JT_ERR)
        return -1;
    if (kind != JT_OBJ && kind != JT_ARR)
        return 0;
    do
        if ((k = jt_next(t)) == JT_ERR)
            return -1;
    while (t->depth > depth);
    return 0;
}

/* Skips the bytes of the line, up to its limit. */
static void drain(jtok *t)
{
    int c;

    t->rec = NULL;
    if (t->too_long || t->eol)
        return;
    while ((c = rd(t)) != '\n' && c != RD_EOF && c != RD_LONG)
        ;
}

int jt_finish(jtok *t)
{
    int k;

    while ((k = jt_next(t)) != JT_EOL && k != JT_EOF && k != JT_ERR)
        ;
    if (k != JT_ERR)
        return JT_EOL;
    drain(t);
    t->eol = 1;
    if (t->too_long)
        snprintf(t->err, sizeof t->err, "a line of more than %zu bytes", t->line_max);
    return JT_ERR;
}

void jt_next_line(jtok *t)
{
    if (t->failed)
        drain(t);
    t->failed = t->too_long = t->eol = 0;
    t->state = ST_LINE;
    t->depth = 0;
    t->line_bytes = 0;
}
