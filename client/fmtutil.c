/* fmtutil.c — see fmtutil.h. */
#include "fmtutil.h"

long long fu_int(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);

    if (json_is_integer(v))
        return json_integer_value(v) > 0 ? (long long)json_integer_value(v) : 0;
    if (json_is_real(v) && json_real_value(v) > 0 && json_real_value(v) < 9.2e18)
        return (long long)json_real_value(v);
    return 0;
}

const char *fu_str(const json_t *obj, const char *key)
{
    const char *s = fu_opt_str(obj, key);

    return s != NULL ? s : "?";
}

const char *fu_opt_str(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

int fu_flag(const json_t *obj, const char *key)
{
    return json_is_true(json_object_get(obj, key));
}

const json_t *fu_children(const json_t *node)
{
    const json_t *c = json_object_get(node, "children");

    return json_is_array(c) ? c : NULL;
}

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

void fu_put_text(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;

    for (; *p != '\0'; p++) {
        if (*p < 0x20 || *p == 0x7f) {
            fputc('?', f);
        } else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
            fputc('?', f);      /* U+0080..U+009F: C1 controls, CSI among them */
            p++;
        } else {
            fputc(*p, f);
        }
    }
}
