/* mutf8.c — see mutf8.h. */
#include "mutf8.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Names up to this many bytes are converted on the stack by mutf8_json. */
#define STACK_NAME 256

static int cont(unsigned char b)
{
    return (b & 0xC0) == 0x80;
}

/* The length of the standard UTF-8 sequence at s, or 0 when there is none
 * (invalid, overlong, a surrogate, past U+10FFFF). */
static size_t utf8_seq(const unsigned char *s)
{
    uint32_t cp;

    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF)
        return cont(s[1]) ? 2 : 0;
    if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        if (!cont(s[1]) || !cont(s[2]))
            return 0;
        cp = (uint32_t)(s[0] & 0x0F) << 12 | (uint32_t)(s[1] & 0x3F) << 6 | (s[2] & 0x3F);
        return cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF) ? 0 : 3;
    }
    if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        if (!cont(s[1]) || !cont(s[2]) || !cont(s[3]))
            return 0;
        cp = (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3F) << 12 | (uint32_t)(s[2] & 0x3F) << 6 |
             (s[3] & 0x3F);
        return cp < 0x10000 || cp > 0x10FFFF ? 0 : 4;
    }
    return 0;
}

/* The surrogate (0xD800..0xDFFF) encoded in three bytes at s, or 0. */
static uint32_t surrogate(const unsigned char *s)
{
    if (s[0] != 0xED || (s[1] & 0xE0) != 0xA0 || !cont(s[2]))
        return 0;
    return 0xD000 | (uint32_t)(s[1] & 0x3F) << 6 | (s[2] & 0x3F);
}

int mutf8_plain(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;

    while (*s != '\0') {
        size_t n;

        if (*s < 0x80) {
            s++;
            continue;
        }
        if ((n = utf8_seq(s)) == 0)
            return 0;
        s += n;
    }
    return 1;
}

static size_t put(char *out, size_t n, uint32_t cp)
{
    unsigned char *o = (unsigned char *)out + n;

    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return n + 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | cp >> 6);
        o[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return n + 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | cp >> 12);
        o[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return n + 3;
    }
    o[0] = (unsigned char)(0xF0 | cp >> 18);
    o[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
    o[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
    o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return n + 4;
}

size_t mutf8_to_utf8(const char *str, char *out, enum mutf8_nul nul)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t n = 0, k;
    uint32_t hi, lo;

    while (*s != '\0') {
        if (*s < 0x80) {
            out[n++] = (char)*s++;
        } else if (s[0] == 0xC0 && s[1] == 0x80) {
            n = nul == MUTF8_NUL_CHAR ? put(out, n, 0) : put(out, n, 0x2400);
            s += 2;
        } else if ((hi = surrogate(s)) >= 0xD800 && hi <= 0xDBFF && (lo = surrogate(s + 3)) >= 0xDC00) {
            n = put(out, n, 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00));
            s += 6;
        } else if (hi != 0) {
            n = put(out, n, 0xFFFD); /* a lone surrogate */
            s += 3;
        } else if ((k = utf8_seq(s)) != 0) {
            memcpy(out + n, s, k);
            n += k;
            s += k;
        } else {
            n = put(out, n, 0xFFFD);
            s++;
        }
    }
    out[n] = '\0';
    return n;
}

char *mutf8_dup(const char *s)
{
    char *out = malloc(MUTF8_ROOM(strlen(s)));

    if (out != NULL)
        mutf8_to_utf8(s, out, MUTF8_NUL_SYMBOL);
    return out;
}

json_t *mutf8_json(const char *s)
{
    char stack[MUTF8_ROOM(STACK_NAME)], *buf = stack;
    size_t len = strlen(s), n;
    json_t *j;

    if (mutf8_plain(s))
        return json_stringn_nocheck(s, len);
    if (len > STACK_NAME && (buf = malloc(MUTF8_ROOM(len))) == NULL)
        return NULL;
    n = mutf8_to_utf8(s, buf, MUTF8_NUL_SYMBOL);
    j = json_stringn_nocheck(buf, n);
    if (buf != stack)
        free(buf);
    return j;
}

size_t mutf8_from_utf8(const char *str, char *out)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t n = 0;

    while (*s != '\0') {
        if (s[0] >= 0xF0 && utf8_seq(s) == 4) {
            uint32_t cp = (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3F) << 12 |
                          (uint32_t)(s[2] & 0x3F) << 6 | (s[3] & 0x3F);

            cp -= 0x10000;
            /* Each surrogate in three bytes, as put() writes any BMP value. */
            n = put(out, n, 0xD800 + (cp >> 10));
            n = put(out, n, 0xDC00 + (cp & 0x3FF));
            s += 4;
        } else {
            out[n++] = (char)*s++;
        }
    }
    out[n] = '\0';
    return n;
}

char *mutf8_binary_name(char *name, size_t len)
{
    size_t i;

    for (i = 0; i < len; i++)
        if (name[i] == '/')
            name[i] = '.';
    return name;
}

const char *mutf8_binary_copy(const char *internal, char *buf, size_t size)
{
    snprintf(buf, size, "%s", internal);
    return mutf8_binary_name(buf, strlen(buf));
}
