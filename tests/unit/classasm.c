/* classasm.c — see classasm.h. */
#include "classasm.h"

#include <stdlib.h>
#include <string.h>

void ca_init(ca_class *a, const char *name, const char *super_name, uint16_t major)
{
    memset(a, 0, sizeof *a);
    buf_init(&a->cp);
    buf_init(&a->methods);
    a->count = 1;
    a->major = major;
    a->access = CF_ACC_PUBLIC | CF_ACC_SUPER;
    a->this_class = ca_class_ref(a, name);
    a->super_class = ca_class_ref(a, super_name);
}

uint16_t ca_utf8(ca_class *a, const char *s)
{
    buf_u1(&a->cp, CF_UTF8);
    buf_u2(&a->cp, (uint16_t)strlen(s));
    buf_bytes(&a->cp, s, strlen(s));
    return a->count++;
}

static uint16_t k_one(ca_class *a, uint8_t tag, uint16_t x)
{
    buf_u1(&a->cp, tag);
    buf_u2(&a->cp, x);
    return a->count++;
}

static uint16_t k_pair(ca_class *a, uint8_t tag, uint16_t x, uint16_t y)
{
    buf_u1(&a->cp, tag);
    buf_u2(&a->cp, x);
    buf_u2(&a->cp, y);
    return a->count++;
}

uint16_t ca_class_ref(ca_class *a, const char *name)
{
    return k_one(a, CF_CLASS, ca_utf8(a, name));
}

uint16_t ca_string(ca_class *a, const char *s)
{
    return k_one(a, CF_STRING, ca_utf8(a, s));
}

uint16_t ca_integer(ca_class *a, int32_t v)
{
    buf_u1(&a->cp, CF_INTEGER);
    buf_u4(&a->cp, (uint32_t)v);
    return a->count++;
}

uint16_t ca_nat(ca_class *a, const char *name, const char *desc)
{
    uint16_t n = ca_utf8(a, name);

    return k_pair(a, CF_NAME_AND_TYPE, n, ca_utf8(a, desc));
}

uint16_t ca_methodref(ca_class *a, const char *owner, const char *name, const char *desc)
{
    uint16_t c = ca_class_ref(a, owner);

    return k_pair(a, CF_METHODREF, c, ca_nat(a, name, desc));
}

uint16_t ca_fieldref(ca_class *a, const char *owner, const char *name, const char *desc)
{
    uint16_t c = ca_class_ref(a, owner);

    return k_pair(a, CF_FIELDREF, c, ca_nat(a, name, desc));
}

void ca_method(ca_class *a, uint16_t access, const char *name, const char *desc, const ca_code *code)
{
    mct_buf *m = &a->methods;
    uint16_t n = ca_utf8(a, name), d = ca_utf8(a, desc), i;

    buf_u2(m, access);
    buf_u2(m, n);
    buf_u2(m, d);
    if (code == NULL) {
        buf_u2(m, 0);
        a->n_methods++;
        return;
    }
    buf_u2(m, 1);
    buf_u2(m, ca_utf8(a, "Code"));
    buf_u4(m, (uint32_t)(12 + code->len + 8u * code->n_handlers + code->attrs_len));
    buf_u2(m, code->max_stack);
    buf_u2(m, code->max_locals);
    buf_u4(m, code->len);
    buf_bytes(m, code->code, code->len);
    buf_u2(m, code->n_handlers);
    for (i = 0; i < code->n_handlers; i++) {
        buf_u2(m, code->handlers[i].start);
        buf_u2(m, code->handlers[i].end);
        buf_u2(m, code->handlers[i].handler);
        buf_u2(m, code->handlers[i].catch_type);
    }
    buf_u2(m, code->n_attrs);
    buf_bytes(m, code->attrs, code->attrs_len);
    a->n_methods++;
}

void ca_attr(ca_class *a, mct_buf *out, const char *name, const uint8_t *info, size_t len)
{
    buf_u2(out, ca_utf8(a, name));
    buf_u4(out, (uint32_t)len);
    buf_bytes(out, info, len);
}

uint8_t *ca_finish(ca_class *a, size_t *len)
{
    mct_buf out;
    uint8_t *p;

    buf_init(&out);
    buf_u4(&out, 0xCAFEBABE);
    buf_u2(&out, a->minor);
    buf_u2(&out, a->major);
    buf_u2(&out, a->count);
    buf_bytes(&out, a->cp.data, a->cp.len);
    buf_u2(&out, a->access);
    buf_u2(&out, a->this_class);
    buf_u2(&out, a->super_class);
    buf_u2(&out, 0); /* interfaces */
    buf_u2(&out, 0); /* fields */
    buf_u2(&out, a->n_methods);
    buf_bytes(&out, a->methods.data, a->methods.len);
    buf_u2(&out, 0); /* class attributes */
    if (buf_failed(&a->cp) || buf_failed(&a->methods))
        buf_free(&out);
    buf_free(&a->cp);
    buf_free(&a->methods);
    p = buf_steal(&out, len);
    return p;
}
