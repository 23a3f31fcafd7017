/* buf.c — see buf.h. */
#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(mct_buf *b)
{
    memset(b, 0, sizeof *b);
}

void buf_free(mct_buf *b)
{
    free(b->data);
    buf_init(b);
}

int buf_reserve(mct_buf *b, size_t n)
{
    size_t cap;
    uint8_t *p;

    if (b->failed)
        return -1;
    if (n <= b->cap - b->len)
        return 0;
    if (n > SIZE_MAX / 2 - b->len) {
        b->failed = 1;
        return -1;
    }
    cap = b->cap ? b->cap : 256;
    while (cap - b->len < n)
        cap *= 2;
    p = realloc(b->data, cap);
    if (p == NULL) {
        b->failed = 1;
        return -1;
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

int buf_grow(void *arr, size_t *cap, size_t n, size_t size, size_t first)
{
    return n < *cap ? 0 : buf_room(arr, cap, n + 1, size, first);
}

int buf_room(void *arr, size_t *cap, size_t need, size_t size, size_t first)
{
    void **a = arr;
    size_t c = *cap ? *cap : first ? first : 1;
    void *p;

    if (need <= *cap)
        return 0;
    while (c < need) {
        if (c > SIZE_MAX / 2 / size)
            return -1;
        c *= 2;
    }
    p = realloc(*a, c * size);
    if (p == NULL)
        return -1;
    *a = p;
    *cap = c;
    return 0;
}

void buf_u1(mct_buf *b, uint8_t v)
{
    if (buf_reserve(b, 1) == 0)
        b->data[b->len++] = v;
}

void buf_u2(mct_buf *b, uint16_t v)
{
    if (buf_reserve(b, 2) == 0) {
        b->data[b->len++] = (uint8_t)(v >> 8);
        b->data[b->len++] = (uint8_t)v;
    }
}

void buf_u4(mct_buf *b, uint32_t v)
{
    if (buf_reserve(b, 4) == 0) {
        b->data[b->len++] = (uint8_t)(v >> 24);
        b->data[b->len++] = (uint8_t)(v >> 16);
        b->data[b->len++] = (uint8_t)(v >> 8);
        b->data[b->len++] = (uint8_t)v;
    }
}

void buf_u8(mct_buf *b, uint64_t v)
{
    buf_u4(b, (uint32_t)(v >> 32));
    buf_u4(b, (uint32_t)v);
}

void buf_bytes(mct_buf *b, const void *p, size_t n)
{
    if (n > 0 && buf_reserve(b, n) == 0) {
        memcpy(b->data + b->len, p, n);
        b->len += n;
    }
}

void buf_put_u4(mct_buf *b, size_t off, uint32_t v)
{
    if (!b->failed && off + 4 <= b->len) {
        b->data[off] = (uint8_t)(v >> 24);
        b->data[off + 1] = (uint8_t)(v >> 16);
        b->data[off + 2] = (uint8_t)(v >> 8);
        b->data[off + 3] = (uint8_t)v;
    }
}

uint8_t *buf_steal(mct_buf *b, size_t *len)
{
    uint8_t *p;

    if (b->failed) {
        buf_free(b);
        return NULL;
    }
    p = b->data;
    *len = b->len;
    buf_init(b);
    return p;
}

void buf_str(mct_buf *b, const char *s)
{
    buf_bytes(b, s, strlen(s));
}

void buf_ch(mct_buf *b, char c)
{
    buf_u1(b, (uint8_t)c);
}

void buf_printf(mct_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (b->failed)
        return;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    /* one more for the NUL vsnprintf writes, which len does not count */
    if (n < 0 || buf_reserve(b, (size_t)n + 1) != 0) {
        b->failed = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* "00" to "99": two digits a step, written in place from the end once the
 * length is known (no copy: every node of a call's JSON has six numbers). */
static const char PAIRS[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                            "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                            "8081828384858687888990919293949596979899";

char *buf_dec_at(char *w, uint64_t v)
{
    uint64_t p = 10;
    int n = 1;
    char *e;

    while (n < 20 && v >= p) {
        n++;
        p *= 10;
    }
    e = w + n;
    for (w = e; v >= 100; v /= 100) {
        w -= 2;
        memcpy(w, PAIRS + 2 * (v % 100), 2);
    }
    if (v >= 10) {
        memcpy(w - 2, PAIRS + 2 * v, 2);
    } else {
        w[-1] = (char)('0' + v);
    }
    return e;
}

void buf_dec(mct_buf *b, uint64_t v)
{
    char d[20];

    buf_bytes(b, d, (size_t)(buf_dec_at(d, v) - d));
}

void buf_key_dec(mct_buf *b, const char *key, uint64_t v)
{
    buf_str(b, ",\"");
    buf_str(b, key);
    buf_str(b, "\":");
    buf_dec(b, v);
}

uint8_t *buf_take(mct_buf *b, size_t n)
{
    uint8_t *p;

    if (buf_reserve(b, n) != 0)
        return NULL;
    p = b->data + b->len;
    b->len += n;
    return p;
}

void buf_reset(mct_buf *b)
{
    b->len = 0;
    b->failed = 0;
}
