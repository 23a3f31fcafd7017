/* classfile.c — see classfile.h. */
#include "classfile.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "kit.h"

/* Everything a view owns lives in one arena, freed at once. */
struct view {
    cf_class pub;          /* first: cf_free casts back */
    kit_arena arena;       /* chunks of VIEW_CHUNK: a class has many small parts */
};

#define VIEW_CHUNK 16384

/* The cursor of the parser over the caller's bytes. */
struct reader {
    const uint8_t *d;
    size_t len;
    size_t pos;
    struct view *v;
    mct_err *err;
};

static void *r_alloc(struct reader *r, size_t n)
{
    void *p = kit_arena_alloc(&r->v->arena, n);

    if (p == NULL)
        mct_err_set(r->err, MCT_E_NOMEM, "out of memory parsing a class file of %zu bytes", r->len);
    else
        memset(p, 0, n);
    return p;
}

static int r_need(struct reader *r, size_t n, const char *what)
{
    if (n > r->len - r->pos)
        return mct_err_set(r->err, MCT_E_CLASSFILE, "truncated class file: %s at offset %zu needs %zu bytes, %zu left",
                           what, r->pos, n, r->len - r->pos);
    return 0;
}

/* Reads a u1/u2/u4 the caller has made room for with r_need. */
static uint8_t u1(struct reader *r) { return r->d[r->pos++]; }
static uint16_t u2(struct reader *r) { uint16_t v = buf_get_u2(r->d + r->pos); r->pos += 2; return v; }
static uint32_t u4(struct reader *r) { uint32_t v = buf_get_u4(r->d + r->pos); r->pos += 4; return v; }

static int bad(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Fails with MCT_E_CLASSFILE and "malformed class file: <what>". */
static int bad(struct reader *r, const char *fmt, ...)
{
    char what[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return mct_err_set(r->err, MCT_E_CLASSFILE, "malformed class file: %s", what);
}

static const cf_cp *slot(const cf_class *c, uint16_t idx, uint8_t tag)
{
    if (idx == 0 || idx >= c->cp_count || c->cp[idx].tag != tag)
        return NULL;
    return &c->cp[idx];
}

const char *cf_utf8(const cf_class *c, uint16_t idx)
{
    const cf_cp *e = slot(c, idx, CF_UTF8);

    return e ? e->utf8 : NULL;
}

const char *cf_class_name(const cf_class *c, uint16_t idx)
{
    const cf_cp *e = slot(c, idx, CF_CLASS);

    return e ? cf_utf8(c, e->a) : NULL;
}

/* --- descriptors ------------------------------------------------------------ */

int cf_field_desc_skip(const char **p)
{
    const char *s = *p;
    int dims = 0;

    while (*s == '[') {
        if (++dims > 255)
            return -1;
        s++;
    }
    switch (*s) {
    case 'B': case 'C': case 'D': case 'F': case 'I': case 'J': case 'S': case 'Z':
        *p = s + 1;
        return 0;
    case 'L': {
        const char *start = ++s;

        while (*s != ';') {
            if (*s == '\0' || *s == '.' || *s == '[' || (*s == '/' && (s == start || s[-1] == '/')))
                return -1;
            s++;
        }
        if (s == start || s[-1] == '/')
            return -1;
        *p = s + 1;
        return 0;
    }
    default:
        return -1;
    }
}

int cf_desc_check(const char *desc)
{
    const char *p = desc;
    int slots = 0;

    if (*p++ != '(')
        return -1;
    while (*p != ')') {
        char t = *p;

        if (cf_field_desc_skip(&p) < 0)
            return -1;
        slots += (t == 'J' || t == 'D') ? 2 : 1;
    }
    if (slots > 255)
        return -1;
    p++;
    if (*p == 'V')
        return p[1] == '\0' ? 0 : -1;
    if (cf_field_desc_skip(&p) < 0 || *p != '\0')
        return -1;
    return 0;
}

int cf_desc_arg_slots(const char *desc)
{
    const char *p = desc + 1;
    int slots = 0;

    while (*p != ')') {
        char t = *p;

        if (cf_field_desc_skip(&p) < 0)
            return -1;
        slots += (t == 'J' || t == 'D') ? 2 : 1;
    }
    return slots;
}

const char *cf_desc_return(const char *desc)
{
    const char *p = strchr(desc, ')');

    return p ? p + 1 : desc + strlen(desc);
}

static int field_desc_check(const char *desc)
{
    const char *p = desc;

    return cf_field_desc_skip(&p) == 0 && *p == '\0' ? 0 : -1;
}

/* --- constant pool ----------------------------------------------------------- */

/* Modified UTF-8 (JVMS §4.4.7) never contains 0x00 or 0xf0..0xff. */
static int utf8_ok(const uint8_t *s, uint32_t n)
{
    uint32_t i;

    for (i = 0; i < n; i++)
        if (s[i] == 0 || s[i] >= 0xf0)
            return 0;
    return 1;
}

static int parse_cp_entry(struct reader *r, cf_cp *e, uint16_t idx)
{
    if (r_need(r, 1, "constant pool tag") < 0)
        return -1;
    e->off = (uint32_t)r->pos;
    e->tag = u1(r);
    switch (e->tag) {
    case CF_UTF8: {
        char *s;

        if (r_need(r, 2, "Utf8 length") < 0)
            return -1;
        e->len = u2(r);
        if (r_need(r, e->len, "Utf8 bytes") < 0)
            return -1;
        if (!utf8_ok(r->d + r->pos, e->len))
            return bad(r, "constant #%u is not modified UTF-8", idx);
        s = r_alloc(r, (size_t)e->len + 1);
        if (s == NULL)
            return -1;
        memcpy(s, r->d + r->pos, e->len);
        s[e->len] = '\0';
        e->utf8 = s;
        r->pos += e->len;
        return 0;
    }
    case CF_INTEGER:
    case CF_FLOAT:
        if (r_need(r, 4, "constant") < 0)
            return -1;
        e->value = u4(r);
        return 0;
    case CF_LONG:
    case CF_DOUBLE:
        if (r_need(r, 8, "constant") < 0)
            return -1;
        e->value = (uint64_t)u4(r) << 32;
        e->value |= u4(r);
        return 0;
    case CF_CLASS:
    case CF_STRING:
    case CF_METHOD_TYPE:
    case CF_MODULE:
    case CF_PACKAGE:
        if (r_need(r, 2, "constant") < 0)
            return -1;
        e->a = u2(r);
        return 0;
    case CF_FIELDREF:
    case CF_METHODREF:
    case CF_INTERFACE_METHODREF:
    case CF_NAME_AND_TYPE:
    case CF_DYNAMIC:
    case CF_INVOKE_DYNAMIC:
        if (r_need(r, 4, "constant") < 0)
            return -1;
        e->a = u2(r);
        e->b = u2(r);
        return 0;
    case CF_METHOD_HANDLE:
        if (r_need(r, 3, "constant") < 0)
            return -1;
        e->kind = u1(r);
        e->a = u2(r);
        return 0;
    default:
        return bad(r, "constant #%u has an unknown tag", idx);
    }
}

/* The NameAndType at idx with a method (or field) descriptor. */
static int nat_ok(const cf_class *c, uint16_t idx, int method)
{
    const cf_cp *nat = slot(c, idx, CF_NAME_AND_TYPE);
    const char *name, *desc;

    if (nat == NULL || (name = cf_utf8(c, nat->a)) == NULL || (desc = cf_utf8(c, nat->b)) == NULL)
        return 0;
    if (name[0] == '\0')
        return 0;
    return method ? cf_desc_check(desc) == 0 : field_desc_check(desc) == 0;
}

/* Checks that every reference between constant pool entries has the right
 * tag, so that the resolvers below can trust them. */
static int check_cp_refs(struct reader *r, cf_class *c)
{
    uint16_t i;

    for (i = 1; i < c->cp_count; i++) {
        const cf_cp *e = &c->cp[i];
        const char *s;
        int ok = 1;

        switch (e->tag) {
        case CF_CLASS:
            s = cf_utf8(c, e->a);
            ok = s != NULL && s[0] != '\0' && (s[0] != '[' || field_desc_check(s) == 0);
            break;
        case CF_STRING:
        case CF_MODULE:
        case CF_PACKAGE:
            ok = cf_utf8(c, e->a) != NULL;
            break;
        case CF_METHOD_TYPE:
            ok = (s = cf_utf8(c, e->a)) != NULL && cf_desc_check(s) == 0;
            break;
        case CF_FIELDREF:
            ok = slot(c, e->a, CF_CLASS) != NULL && nat_ok(c, e->b, 0);
            break;
        case CF_METHODREF:
        case CF_INTERFACE_METHODREF:
            ok = slot(c, e->a, CF_CLASS) != NULL && nat_ok(c, e->b, 1);
            break;
        case CF_NAME_AND_TYPE:
            ok = cf_utf8(c, e->a) != NULL && cf_utf8(c, e->b) != NULL;
            break;
        case CF_DYNAMIC:
            ok = nat_ok(c, e->b, 0);
            break;
        case CF_INVOKE_DYNAMIC:
            ok = nat_ok(c, e->b, 1);
            break;
        case CF_METHOD_HANDLE:
            if (e->kind < CF_REF_GET_FIELD || e->kind > CF_REF_INVOKE_INTERFACE)
                ok = 0;
            else if (e->kind <= CF_REF_PUT_STATIC)
                ok = slot(c, e->a, CF_FIELDREF) != NULL;
            else
                ok = slot(c, e->a, CF_METHODREF) != NULL ||
                     (e->kind != CF_REF_INVOKE_VIRTUAL && e->kind != CF_REF_NEW_INVOKE_SPECIAL &&
                      slot(c, e->a, CF_INTERFACE_METHODREF) != NULL);
            break;
        default:
            break;
        }
        if (!ok)
            return bad(r, "constant #%u refers to an entry of the wrong kind", i);
    }
    return 0;
}

static int parse_cp(struct reader *r, cf_class *c)
{
    cf_cp *cp;
    uint16_t i;

    if (r_need(r, 2, "constant_pool_count") < 0)
        return -1;
    c->cp_count = u2(r);
    if (c->cp_count == 0)
        return bad(r, "constant_pool_count is 0");
    cp = r_alloc(r, sizeof *cp * c->cp_count);
    if (cp == NULL)
        return -1;
    c->cp = cp;
    for (i = 1; i < c->cp_count; i++) {
        if (parse_cp_entry(r, &cp[i], i) < 0)
            return -1;
        if (cp[i].tag == CF_LONG || cp[i].tag == CF_DOUBLE) {
            if (i + 1 >= c->cp_count)
                return bad(r, "Long or Double constant #%u takes the last slot", i);
            i++;
        }
    }
    c->cp_end = (uint32_t)r->pos;
    return check_cp_refs(r, c);
}

/* --- attributes, members ----------------------------------------------------- */

static int parse_attrs(struct reader *r, const cf_class *c, uint16_t *n_out, const cf_attr **out)
{
    cf_attr *a;
    uint16_t n, i;

    if (r_need(r, 2, "attributes_count") < 0)
        return -1;
    n = u2(r);
    *n_out = n;
    *out = NULL;
    if (n == 0)
        return 0;
    a = r_alloc(r, sizeof *a * n);
    if (a == NULL)
        return -1;
    for (i = 0; i < n; i++) {
        if (r_need(r, 6, "attribute header") < 0)
            return -1;
        a[i].off = (uint32_t)r->pos;
        a[i].name_index = u2(r);
        a[i].len = u4(r);
        a[i].name = cf_utf8(c, a[i].name_index);
        if (a[i].name == NULL)
            return bad(r, "attribute at offset %u has no Utf8 name", a[i].off);
        if (r_need(r, a[i].len, a[i].name) < 0)
            return -1;
        r->pos += a[i].len;
    }
    *out = a;
    return 0;
}

/* Parses a Code attribute; the nested reader covers exactly its info. */
static int parse_code(struct reader *outer, const cf_class *c, const cf_attr *attr, const cf_code **out)
{
    struct reader r = *outer;
    cf_code *code;
    cf_handler *h;
    uint16_t i;

    r.pos = attr->off + 6;
    r.len = r.pos + attr->len;
    code = r_alloc(&r, sizeof *code);
    if (code == NULL)
        return -1;
    code->attr = attr;
    if (r_need(&r, 8, "Code header") < 0)
        return -1;
    code->max_stack = u2(&r);
    code->max_locals = u2(&r);
    code->code_len = u4(&r);
    if (code->code_len == 0 || code->code_len > 65535)
        return bad(&r, "Code attribute at offset %u has a code length outside 1..65535", attr->off);
    if (r_need(&r, code->code_len, "code") < 0)
        return -1;
    code->code_off = (uint32_t)r.pos;
    code->code = r.d + r.pos;
    r.pos += code->code_len;
    if (r_need(&r, 2, "exception_table_length") < 0)
        return -1;
    code->n_handlers = u2(&r);
    if (r_need(&r, (size_t)code->n_handlers * 8, "exception table") < 0)
        return -1;
    h = code->n_handlers ? r_alloc(&r, sizeof *h * code->n_handlers) : NULL;
    if (code->n_handlers && h == NULL)
        return -1;
    for (i = 0; i < code->n_handlers; i++) {
        h[i].start = u2(&r);
        h[i].end = u2(&r);
        h[i].handler = u2(&r);
        h[i].catch_type = u2(&r);
        if (h[i].start >= h[i].end || h[i].end > code->code_len || h[i].handler >= code->code_len ||
            (h[i].catch_type != 0 && slot(c, h[i].catch_type, CF_CLASS) == NULL))
            return bad(&r, "exception table entry %u is out of range", i);
    }
    code->handlers = h;
    if (parse_attrs(&r, c, &code->n_attrs, &code->attrs) < 0)
        return -1;
    if (r.pos != r.len)
        return bad(&r, "Code attribute at offset %u has trailing bytes", attr->off);
    *out = code;
    return 0;
}

static int parse_members(struct reader *r, cf_class *c, int methods, uint16_t *n_out, const cf_member **out)
{
    cf_member *m;
    uint16_t n, i, j;

    if (r_need(r, 2, methods ? "methods_count" : "fields_count") < 0)
        return -1;
    n = u2(r);
    *n_out = n;
    *out = NULL;
    if (n == 0)
        return 0;
    m = r_alloc(r, sizeof *m * n);
    if (m == NULL)
        return -1;
    for (i = 0; i < n; i++) {
        if (r_need(r, 6, methods ? "method_info" : "field_info") < 0)
            return -1;
        m[i].off = (uint32_t)r->pos;
        m[i].access = u2(r);
        m[i].name_index = u2(r);
        m[i].desc_index = u2(r);
        m[i].name = cf_utf8(c, m[i].name_index);
        m[i].desc = cf_utf8(c, m[i].desc_index);
        if (m[i].name == NULL || m[i].name[0] == '\0' || m[i].desc == NULL ||
            (methods ? cf_desc_check(m[i].desc) : field_desc_check(m[i].desc)) < 0)
            return bad(r, "%s #%u has a bad name or descriptor", methods ? "method" : "field", i);
        if (parse_attrs(r, c, &m[i].n_attrs, &m[i].attrs) < 0)
            return -1;
        m[i].end = (uint32_t)r->pos;
        if (!methods)
            continue;
        for (j = 0; j < m[i].n_attrs; j++) {
            if (strcmp(m[i].attrs[j].name, "Code") != 0)
                continue;
            if (m[i].code != NULL)
                return bad(r, "method #%u has two Code attributes", i);
            if (parse_code(r, c, &m[i].attrs[j], &m[i].code) < 0)
                return -1;
        }
    }
    *out = m;
    return 0;
}

static int loadable(const cf_class *c, uint16_t idx)
{
    if (idx == 0 || idx >= c->cp_count)
        return 0;
    switch (c->cp[idx].tag) {
    case CF_INTEGER: case CF_FLOAT: case CF_LONG: case CF_DOUBLE: case CF_CLASS:
    case CF_STRING: case CF_METHOD_HANDLE: case CF_METHOD_TYPE: case CF_DYNAMIC:
        return 1;
    default:
        return 0;
    }
}

static int parse_bootstrap(struct reader *outer, cf_class *c, const cf_attr *attr)
{
    struct reader r = *outer;
    cf_bootstrap *b;
    uint16_t n, i, j;

    r.pos = attr->off + 6;
    r.len = r.pos + attr->len;
    if (r_need(&r, 2, "num_bootstrap_methods") < 0)
        return -1;
    n = u2(&r);
    b = n ? r_alloc(&r, sizeof *b * n) : NULL;
    if (n && b == NULL)
        return -1;
    for (i = 0; i < n; i++) {
        uint16_t *args;

        if (r_need(&r, 4, "bootstrap method") < 0)
            return -1;
        b[i].method = u2(&r);
        b[i].n_args = u2(&r);
        if (slot(c, b[i].method, CF_METHOD_HANDLE) == NULL)
            return bad(&r, "bootstrap method #%u is not a MethodHandle", i);
        if (r_need(&r, (size_t)b[i].n_args * 2, "bootstrap arguments") < 0)
            return -1;
        args = b[i].n_args ? r_alloc(&r, sizeof *args * b[i].n_args) : NULL;
        if (b[i].n_args && args == NULL)
            return -1;
        for (j = 0; j < b[i].n_args; j++) {
            args[j] = u2(&r);
            if (!loadable(c, args[j]))
                return bad(&r, "bootstrap method #%u has an argument that is not loadable", i);
        }
        b[i].args = args;
    }
    if (r.pos != r.len)
        return bad(&r, "BootstrapMethods attribute at offset %u has trailing bytes", attr->off);
    c->n_bootstrap = n;
    c->bootstrap = b;
    return 0;
}

/* Dynamic and InvokeDynamic constants index BootstrapMethods. */
static int check_bootstrap_refs(struct reader *r, const cf_class *c)
{
    uint16_t i;

    for (i = 1; i < c->cp_count; i++)
        if ((c->cp[i].tag == CF_DYNAMIC || c->cp[i].tag == CF_INVOKE_DYNAMIC) &&
            c->cp[i].a >= c->n_bootstrap)
            return bad(r, "constant #%u refers to a missing bootstrap method", i);
    return 0;
}

static int parse_header(struct reader *r, cf_class *c)
{
    uint16_t i;
    uint16_t *ifs;

    if (r_need(r, 8, "header") < 0)
        return -1;
    if (u4(r) != 0xCAFEBABEu)
        return mct_err_set(r->err, MCT_E_CLASSFILE, "not a class file (bad magic)");
    c->minor = u2(r);
    c->major = u2(r);
    if (c->major < CF_MIN_MAJOR || c->major > CF_MAX_MAJOR)
        return mct_err_set(r->err, MCT_E_UNSUPPORTED,
                           "class file version %u.%u is outside the supported %d..%d (Java 1.1 to 25)",
                           c->major, c->minor, CF_MIN_MAJOR, CF_MAX_MAJOR);
    if (parse_cp(r, c) < 0)
        return -1;
    if (r_need(r, 8, "class header") < 0)
        return -1;
    c->access = u2(r);
    c->this_class = u2(r);
    c->super_class = u2(r);
    c->n_interfaces = u2(r);
    c->name = cf_class_name(c, c->this_class);
    if (c->name == NULL)
        return bad(r, "this_class #%u is not a Class", c->this_class);
    if (c->super_class != 0) {
        c->super_name = cf_class_name(c, c->super_class);
        if (c->super_name == NULL)
            return bad(r, "super_class #%u is not a Class", c->super_class);
    }
    if (r_need(r, (size_t)c->n_interfaces * 2, "interfaces") < 0)
        return -1;
    ifs = c->n_interfaces ? r_alloc(r, sizeof *ifs * c->n_interfaces) : NULL;
    if (c->n_interfaces && ifs == NULL)
        return -1;
    for (i = 0; i < c->n_interfaces; i++) {
        ifs[i] = u2(r);
        if (cf_class_name(c, ifs[i]) == NULL)
            return bad(r, "interface #%u is not a Class", i);
    }
    c->interfaces = ifs;
    return 0;
}

cf_class *cf_parse(const uint8_t *data, size_t len, mct_err *err)
{
    struct view *v = calloc(1, sizeof *v);
    struct reader r = {.d = data, .len = len, .v = v, .err = err};
    cf_class *c;
    const cf_attr *bsm;

    if (v == NULL) {
        mct_err_set(err, MCT_E_NOMEM, "out of memory parsing a class file");
        return NULL;
    }
    kit_arena_init(&v->arena, VIEW_CHUNK);
    c = &v->pub;
    c->data = data;
    c->len = len;
    if (parse_header(&r, c) < 0 ||
        parse_members(&r, c, 0, &c->n_fields, &c->fields) < 0)
        goto fail;
    c->methods_off = (uint32_t)r.pos;
    if (parse_members(&r, c, 1, &c->n_methods, &c->methods) < 0)
        goto fail;
    c->attrs_off = (uint32_t)r.pos;
    if (parse_attrs(&r, c, &c->n_attrs, &c->attrs) < 0)
        goto fail;
    if (r.pos != len) {
        bad(&r, "%u trailing bytes after the class", (unsigned)(len - r.pos));
        goto fail;
    }
    bsm = cf_find_attr(c->attrs, c->n_attrs, "BootstrapMethods");
    if (bsm != NULL && parse_bootstrap(&r, c, bsm) < 0)
        goto fail;
    if (check_bootstrap_refs(&r, c) < 0)
        goto fail;
    return c;
fail:
    cf_free(c);
    return NULL;
}

void cf_free(cf_class *c)
{
    struct view *v = (struct view *)c;

    if (v == NULL)
        return;
    kit_arena_free(&v->arena);
    free(v);
}

/* --- resolvers ---------------------------------------------------------------- */

int cf_member_ref(const cf_class *c, uint16_t idx, cf_ref *out)
{
    const cf_cp *e, *nat;

    if (idx == 0 || idx >= c->cp_count)
        return -1;
    e = &c->cp[idx];
    if (e->tag != CF_FIELDREF && e->tag != CF_METHODREF && e->tag != CF_INTERFACE_METHODREF)
        return -1;
    nat = &c->cp[e->b];
    out->tag = e->tag;
    out->owner = cf_class_name(c, e->a);
    out->name = cf_utf8(c, nat->a);
    out->desc = cf_utf8(c, nat->b);
    return 0;
}

int cf_method_handle(const cf_class *c, uint16_t idx, uint8_t *kind, cf_ref *out)
{
    const cf_cp *e = slot(c, idx, CF_METHOD_HANDLE);

    if (e == NULL)
        return -1;
    *kind = e->kind;
    return cf_member_ref(c, e->a, out);
}

int cf_invoke_dynamic(const cf_class *c, uint16_t idx, const cf_bootstrap **bsm,
                      const char **name, const char **desc)
{
    const cf_cp *e = slot(c, idx, CF_INVOKE_DYNAMIC);
    const cf_cp *nat;

    if (e == NULL)
        return -1;
    nat = &c->cp[e->b];
    *bsm = &c->bootstrap[e->a];
    *name = cf_utf8(c, nat->a);
    *desc = cf_utf8(c, nat->b);
    return 0;
}

const cf_attr *cf_find_attr(const cf_attr *attrs, uint16_t n, const char *name)
{
    uint16_t i;

    for (i = 0; i < n; i++)
        if (strcmp(attrs[i].name, name) == 0)
            return &attrs[i];
    return NULL;
}

const cf_member *cf_find_method(const cf_class *c, const char *name, const char *desc)
{
    uint16_t i;

    for (i = 0; i < c->n_methods; i++)
        if (strcmp(c->methods[i].name, name) == 0 && strcmp(c->methods[i].desc, desc) == 0)
            return &c->methods[i];
    return NULL;
}
