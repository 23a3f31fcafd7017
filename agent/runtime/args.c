/* args.c — see args.h. */
#include "args.h"

#include <stdlib.h>
#include <string.h>

#include "mutf8.h"

_Static_assert((int)PROBE_ARG_BOOLEAN == (int)CALL_ARG_BOOLEAN && (int)PROBE_ARG_DOUBLE == (int)CALL_ARG_DOUBLE &&
                   (int)PROBE_ARG_NULL == (int)CALL_ARG_NULL && (int)PROBE_ARG_STRING == (int)CALL_ARG_STRING &&
                   (int)PROBE_ARG_ENUM == (int)CALL_ARG_ENUM && (int)PROBE_ARG_OBJECT == (int)CALL_ARG_OBJECT,
               "the probes record the model's argument types");

/* Appends code point u as UTF-8 at w; the end. */
static char *utf8_put(char *w, uint32_t u)
{
    unsigned char *q = (unsigned char *)w;

    if (u < 0x80) {
        *q++ = (unsigned char)u;
    } else if (u < 0x800) {
        *q++ = (unsigned char)(0xc0 | u >> 6);
        *q++ = (unsigned char)(0x80 | (u & 0x3f));
    } else if (u < 0x10000) {
        *q++ = (unsigned char)(0xe0 | u >> 12);
        *q++ = (unsigned char)(0x80 | (u >> 6 & 0x3f));
        *q++ = (unsigned char)(0x80 | (u & 0x3f));
    } else {
        *q++ = (unsigned char)(0xf0 | u >> 18);
        *q++ = (unsigned char)(0x80 | (u >> 12 & 0x3f));
        *q++ = (unsigned char)(0x80 | (u >> 6 & 0x3f));
        *q++ = (unsigned char)(0x80 | (u & 0x3f));
    }
    return (char *)q;
}

/* The chars UTF-16 units of the PROBE_ARG_CHARS events at ev as a's text. */
static int set_chars(struct call_arg *a, const probe_ev *ev, uint64_t chars)
{
    char *out = malloc(chars * 3 + 1), *w = out;
    uint64_t i;

    if (out == NULL)
        return -1;
    for (i = 0; i < chars; i++) {
        uint32_t u = (uint32_t)(ev[i / 4].t >> (16 * (i % 4))) & 0xffffu;

        if (u >= 0xd800 && u <= 0xdbff && i + 1 < chars) {
            uint32_t lo = (uint32_t)(ev[(i + 1) / 4].t >> (16 * ((i + 1) % 4))) & 0xffffu;

            if (lo >= 0xdc00 && lo <= 0xdfff) {
                w = utf8_put(w, 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00));
                i++;
                continue;
            }
        }
        w = utf8_put(w, u == 0 || (u >= 0xd800 && u <= 0xdfff) ? 0xfffd : u);
    }
    *w = '\0';
    free(a->text);
    a->text = out;
    return 0;
}

/* Object obj (0: none was held) as a's class name, in UTF-8, and hash. */
static int set_object(struct call_arg *a, JNIEnv *jni, uintptr_t obj, args_object_info info)
{
    char buf[1024];
    char *utf8;
    int32_t hash = 0;
    int rc;

    if (obj == 0)
        return call_arg_text(a, "?", 1);
    info(jni, (jobject)obj, buf, sizeof buf, &hash);
    a->bits = (uint32_t)hash;
    utf8 = mutf8_dup(buf);
    if (utf8 == NULL)
        return -1;
    rc = call_arg_text(a, utf8[0] != '\0' && proto_utf8_valid(utf8, strlen(utf8)) ? utf8 : "?",
                       utf8[0] != '\0' && proto_utf8_valid(utf8, strlen(utf8)) ? strlen(utf8) : 1);
    free(utf8);
    return rc;
}

int args_fill(mct_call *c, JNIEnv *jni, const probe_ev *ev, size_t n, args_object_info info, const call_tab *tab,
              mct_err *err)
{
    size_t i, count = 0, k = 0;

    for (i = 0; i < n; i++)
        count += PROBE_KIND(ev[i].kind) == PROBE_ARG;
    if (count > CALL_MAX_ARGS)
        count = CALL_MAX_ARGS;
    if (call_args(c, count) < 0)
        return mct_err_set(err, MCT_E_NOMEM, "out of memory rendering a call's arguments");
    c->flags |= CALL_F_ARGS;
    for (i = 0; i < n && k < count; i++) {
        const probe_ev *e = &ev[i];
        struct call_arg *a;
        uint64_t events;
        int rc = 0;

        if (PROBE_KIND(e->kind) != PROBE_ARG)
            continue;
        a = &c->args[k++];
        a->type = PROBE_ARG_TYPE(e->kind);
        events = PROBE_ARG_EVENTS(e->kind);
        if (a->type < PROBE_ARG_NULL) {
            a->bits = e->t;
        } else if (a->type == PROBE_ARG_STRING || a->type == PROBE_ARG_ENUM) {
            uint64_t chars = e->t;

            if (events > n - i - 1 || chars > events * 4)
                return mct_err_set(err, MCT_E_INTERNAL, "an argument's characters do not fit its call");
            a->length = a->type == PROBE_ARG_STRING ? (uint32_t)e->id : 0;
            rc = set_chars(a, e + 1, chars);
            i += events;
        } else if (a->type == PROBE_ARG_OBJECT) {
            rc = set_object(a, jni, (uintptr_t)e->t, info);
        }
        if (rc < 0)
            return mct_err_set(err, MCT_E_NOMEM, "out of memory rendering a call's arguments");
    }
    if (call_check(tab, c, err) < 0)
        return mct_err_wrap(err, "the call's arguments cannot be sent");
    return 0;
}
