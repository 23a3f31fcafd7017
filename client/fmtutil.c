/* fmtutil.c — see fmtutil.h. */
#include "fmtutil.h"

#include <string.h>

#include "proto.h"

/* The printf precision that gives v (>= 1) 3 significant digits. */
static int decimals(double v)
{
    return v < 9.995 ? 2 : v < 99.95 ? 1 : 0;
}

void fu_duration(char *buf, size_t size, double ns)
{
    static const struct { double scale; const char *unit; } units[] = {
        { 1e3, "µs" }, { 1e6, "ms" }, { 1e9, "s" },
    };
    size_t i;
    double v;

    if (!(ns >= 0))
        ns = 0;
    if (ns < 999.5) {
        snprintf(buf, size, "%.0f ns", ns);
        return;
    }
    for (i = 0; i + 1 < sizeof units / sizeof units[0]; i++)
        if (ns / units[i].scale < 999.5)
            break;
    v = ns / units[i].scale;
    snprintf(buf, size, "%.*f %s", decimals(v), v, units[i].unit);
}

void fu_bytes(char *buf, size_t size, unsigned long long v)
{
    static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB"};
    double x = (double)v;
    int u = -1;

    if (v < 1024) {
        snprintf(buf, size, "%llu B", v);
        return;
    }
    while (x >= 1024 && u < 3) {
        x /= 1024;
        u++;
    }
    snprintf(buf, size, x < 10 ? "%.2f %s" : x < 100 ? "%.1f %s" : "%.0f %s", x, unit[u]);
}

size_t fu_width(const char *s)
{
    size_t w = 0;

    for (; *s != '\0'; s++)
        if (((unsigned char)*s & 0xc0) != 0x80)
            w++;
    return w;
}

void fu_put_right(FILE *f, const char *s, size_t width)
{
    for (size_t w = fu_width(s); w < width; w++)
        fputc(' ', f);
    fputs(s, f);
}

/* The length of the character at p (>= 1); *ok says whether it is
 * printable: well-formed UTF-8 (proto_utf8_valid: no overlong form,
 * surrogate or code point past U+10FFFF) and not a control character (C0,
 * DEL, C1). A malformed byte counts alone. */
static size_t text_char(const unsigned char *p, int *ok)
{
    size_t n;

    *ok = 0;
    if (*p < 0x80) {
        *ok = *p >= 0x20 && *p != 0x7f;
        return 1;
    }
    n = *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : 2;
    /* Continuation bytes first: the string's NUL ends the character early. */
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 1;
    if (!proto_utf8_valid((const char *)p, n))
        return 1;
    *ok = !(*p == 0xc2 && p[1] <= 0x9f);    /* U+0080..U+009F: C1, CSI among them */
    return n;
}

void fu_put_text(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;

    while (*p != '\0') {
        int ok;
        size_t n = text_char(p, &ok);

        if (ok)
            fwrite(p, 1, n, f);
        else
            fputc('?', f);
        p += n;
    }
}

void fu_clean(char *s)
{
    unsigned char *p = (unsigned char *)s, *w = p;

    while (*p != '\0') {
        int ok;
        size_t n = text_char(p, &ok);

        if (ok) {
            memmove(w, p, n);
            w += n;
        } else {
            *w++ = '?';
        }
        p += n;
    }
    *w = '\0';
}

/* The state of fu_json_dump across jansson's chunks. */
struct json_out {
    FILE *f;
    int lead;       /* the chunk before ended with 0xc2, not written yet */
};

/* Writes one chunk of jansson's output, escaping DEL and the C1 controls
 * (0xc2 0x80..0x9f in UTF-8, which only a string holds, so that the escape
 * means the same); 0 or -1 as jansson wants. A 0xc2 at a chunk's end waits
 * for the next chunk's first byte. */
static int json_chunk(const char *buf, size_t n, void *arg)
{
    struct json_out *o = arg;
    const unsigned char *p = (const unsigned char *)buf, *end = p + n, *run = p;

    for (; p < end; p++) {
        if (o->lead) {
            o->lead = 0;
            if (*p >= 0x80 && *p <= 0x9f) {
                if (fprintf(o->f, "\\u%04X", *p) < 0)
                    return -1;
                run = p + 1;
                continue;
            }
            if (fputc(0xc2, o->f) == EOF)
                return -1;
        }
        if (*p != 0x7f && *p != 0xc2)
            continue;
        if (fwrite(run, 1, (size_t)(p - run), o->f) != (size_t)(p - run))
            return -1;
        run = p + 1;
        if (*p == 0xc2)
            o->lead = 1;
        else if (fputs("\\u007F", o->f) == EOF)
            return -1;
    }
    return fwrite(run, 1, (size_t)(end - run), o->f) == (size_t)(end - run) ? 0 : -1;
}

int fu_json_dump(FILE *f, const json_t *j, size_t flags)
{
    struct json_out o = {.f = f};

    if (json_dump_callback(j, json_chunk, &o, flags) < 0)
        return -1;
    if (o.lead && fputc(0xc2, f) == EOF)
        return -1;
    return ferror(f) ? -1 : 0;
}

int fu_json_escape(mct_buf *b, size_t from)
{
    const uint8_t *p = b->data + from, *end = b->data + b->len, *run;
    mct_buf esc;

    while (p < end && *p != 0x7f && !(*p == 0xc2 && p + 1 < end && p[1] >= 0x80 && p[1] <= 0x9f))
        p++;
    if (p == end)
        return 0;
    buf_init(&esc);
    for (p = run = b->data + from; p < end; p++) {
        if (*p == 0x7f) {
            buf_bytes(&esc, run, (size_t)(p - run));
            buf_str(&esc, "\\u007F");
            run = p + 1;
        } else if (*p == 0xc2 && p + 1 < end && p[1] >= 0x80 && p[1] <= 0x9f) {
            buf_bytes(&esc, run, (size_t)(p - run));
            buf_printf(&esc, "\\u%04X", p[1]);
            run = ++p + 1;
        }
    }
    buf_bytes(&esc, run, (size_t)(end - run));
    b->len = from;
    buf_bytes(b, esc.data, esc.len);
    buf_free(&esc);
    return buf_failed(b) ? -1 : 0;
}

/* Appends the Java name of the field descriptor at *d and advances *d;
 * returns 0, or -1 when it is not a descriptor. */
static int java_type(const char **d, char *buf, size_t size, size_t *used)
{
    static const char *const prims[] = {
        ['B'] = "byte", ['C'] = "char", ['D'] = "double", ['F'] = "float",
        ['I'] = "int", ['J'] = "long", ['S'] = "short", ['Z'] = "boolean",
    };
    const char *p = *d, *name, *end;
    int dims = 0, n;

    while (*p == '[') {
        dims++;
        p++;
    }
    if (*p == 'L') {
        end = strchr(p, ';');
        if (end == NULL)
            return -1;
        for (name = end; name > p + 1 && name[-1] != '/'; name--)
            ;
        n = snprintf(buf + *used, size - *used, "%.*s", (int)(end - name), name);
        p = end + 1;
    } else if ((unsigned char)*p < sizeof prims / sizeof prims[0] && prims[(unsigned char)*p] != NULL) {
        n = snprintf(buf + *used, size - *used, "%s", prims[(unsigned char)*p]);
        p++;
    } else {
        return -1;
    }
    if (n < 0 || (size_t)n >= size - *used)
        return -1;
    *used += (size_t)n;
    while (dims-- > 0) {
        if (size - *used < 3)
            return -1;
        memcpy(buf + *used, "[]", 3);
        *used += 2;
    }
    *d = p;
    return 0;
}

void fu_java_params(char *buf, size_t size, const char *desc)
{
    const char *p = desc;
    size_t used = 1;

    if (size < 3 || *p++ != '(')
        goto raw;
    buf[0] = '(';
    while (*p != ')') {
        if (used > 1) {
            if (size - used < 3)
                goto raw;
            memcpy(buf + used, ", ", 3);
            used += 2;
        }
        if (java_type(&p, buf, size, &used) < 0)
            goto raw;
    }
    if (size - used < 2)
        goto raw;
    buf[used++] = ')';
    buf[used] = '\0';
    return;
raw:
    snprintf(buf, size, "%s", desc);
}
