/* options.c — see options.h. */
#include "options.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

enum opt_kind {
    OPT_FLAG,   /* NAME alone sets the int field to 1 */
    OPT_STRING  /* NAME=VALUE copies VALUE into the char[size] field */
};

struct opt_def {
    const char *name;
    enum opt_kind kind;
    size_t offset;      /* of the field in struct agent_opts */
    size_t size;        /* OPT_STRING: of the field */
    const char *values; /* OPT_STRING: the values allowed ("a|b"), NULL for any */
};

#define STRING_FIELD(f) offsetof(struct agent_opts, f), sizeof(((struct agent_opts *)0)->f)

static const struct opt_def opt_table[] = {
    { "verbose", OPT_FLAG, offsetof(struct agent_opts, verbose), 0, NULL },
    { "rewrite-all", OPT_STRING, STRING_FIELD(rewrite_all), NULL },
    { "clock", OPT_STRING, STRING_FIELD(clock), "auto|monotonic" },
};

/* Whether the n bytes at v are one of the '|'-separated values. */
static int allowed(const char *values, const char *v, size_t n)
{
    const char *p = values;

    while (p != NULL) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);

        if (len == n && memcmp(p, v, n) == 0)
            return 1;
        p = bar ? bar + 1 : NULL;
    }
    return 0;
}

#define OPT_COUNT (sizeof opt_table / sizeof opt_table[0])

/* "a, b, c": the known option names, for error messages. */
static void known_names(char *buf, size_t size)
{
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < OPT_COUNT && used < size; i++) {
        int n = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", opt_table[i].name);

        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* Applies one item of n bytes at item; -1 with e set if it is not valid. */
static int apply_item(const char *item, size_t n, struct agent_opts *o, mct_err *e)
{
    const char *eq = memchr(item, '=', n);
    size_t name_len = eq != NULL ? (size_t)(eq - item) : n;
    char known[256];

    for (size_t i = 0; i < OPT_COUNT; i++) {
        const struct opt_def *d = &opt_table[i];

        if (strlen(d->name) != name_len || memcmp(d->name, item, name_len) != 0)
            continue;
        switch (d->kind) {
        case OPT_FLAG:
            if (eq != NULL)
                return mct_err_set(e, MCT_E_ARG, "option '%.*s' takes no value", (int)name_len,
                                   item);
            *(int *)(void *)((char *)o + d->offset) = 1;
            return 0;
        case OPT_STRING: {
            size_t len = eq != NULL ? n - name_len - 1 : 0;

            if (eq == NULL || len == 0)
                return mct_err_set(e, MCT_E_ARG, "option '%.*s' needs a value (%.*s=VALUE)", (int)name_len,
                                   item, (int)name_len, item);
            if (len >= d->size)
                return mct_err_set(e, MCT_E_ARG, "the value of option '%.*s' is longer than %zu bytes",
                                   (int)name_len, item, d->size - 1);
            if (d->values != NULL && !allowed(d->values, eq + 1, len))
                return mct_err_set(e, MCT_E_ARG, "option '%.*s' takes one of %s, not '%.*s'", (int)name_len,
                                   item, d->values, (int)len, eq + 1);
            memcpy((char *)o + d->offset, eq + 1, len);
            ((char *)o + d->offset)[len] = '\0';
            return 0;
        }
        }
    }
    known_names(known, sizeof known);
    return mct_err_set(e, MCT_E_ARG, "unknown option '%.*s' (known: %s)", (int)name_len, item,
                       known);
}

int opts_parse(const char *s, struct agent_opts *o, mct_err *e)
{
    memset(o, 0, sizeof *o);
    if (s == NULL)
        return 0;
    while (*s != '\0') {
        size_t n = strcspn(s, ",");

        if (n == 0)
            return mct_err_set(e, MCT_E_ARG, "empty item in the options string");
        if (apply_item(s, n, o, e) < 0)
            return -1;
        s += n;
        if (*s == ',' && *++s == '\0')
            return mct_err_set(e, MCT_E_ARG, "empty item in the options string");
    }
    return 0;
}
