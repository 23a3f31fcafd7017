/* jclassfile.c — see jclassfile.h. */
#include "jclassfile.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "classfile.h"
#include "kit.h"
#include "vm.h"

/* The JVM's constant pool and the entries appended to it. */
struct pool {
    const char *cls;           /* the class's name, for messages */
    uint8_t *bytes;            /* a copy of JVMTI's pool, patched in place */
    size_t len;
    uint16_t n_orig;           /* its constant_pool_count */
    uint32_t *off;             /* slot -> offset of its tag: in bytes below
                                  n_orig, in added from there on */
    uint8_t *tag;              /* slot -> tag (0: unusable) */
    size_t cap;
    uint32_t count;            /* constant_pool_count with the additions */
    mct_buf added;
    kit_table utf8;            /* content hash -> slot */
};

/* The size of the entry of tag t whose tag byte is at p (n bytes left), or
 * 0 when t is unknown or the entry runs past the end. */
static size_t entry_size(const uint8_t *p, size_t n)
{
    size_t s;

    switch (p[0]) {
    case CF_UTF8: s = n >= 3 ? 3u + buf_get_u2(p + 1) : 0; break;
    case CF_INTEGER: case CF_FLOAT: s = 5; break;
    case CF_LONG: case CF_DOUBLE: s = 9; break;
    case CF_CLASS: case CF_STRING: case CF_METHOD_TYPE: case CF_MODULE: case CF_PACKAGE: s = 3; break;
    case CF_FIELDREF: case CF_METHODREF: case CF_INTERFACE_METHODREF: case CF_NAME_AND_TYPE:
    case CF_DYNAMIC: case CF_INVOKE_DYNAMIC: s = 5; break;
    case CF_METHOD_HANDLE: s = 4; break;
    default: return 0;
    }
    return s <= n ? s : 0;
}

static const uint8_t *entry(const struct pool *p, uint32_t i)
{
    return i < p->n_orig ? p->bytes + p->off[i] : p->added.data + p->off[i];
}

static int utf8_equal(const struct pool *p, uint32_t i, const char *s, size_t n)
{
    const uint8_t *e = entry(p, i);

    return p->tag[i] == CF_UTF8 && buf_get_u2(e + 1) == n && memcmp(e + 3, s, n) == 0;
}

/* Makes room for slot i; 0 or -1. */
static int slot(struct pool *p, uint32_t i)
{
    size_t cap = p->cap != 0 ? p->cap : 256;
    uint32_t *off;
    uint8_t *tag;

    if (i < p->cap)
        return 0;
    while (i >= cap)
        cap *= 2;
    /* cap covers both arrays only once both have grown. */
    if ((off = realloc(p->off, cap * sizeof *off)) == NULL)
        return -1;
    p->off = off;
    if ((tag = realloc(p->tag, cap)) == NULL)
        return -1;
    p->tag = tag;
    p->cap = cap;
    return 0;
}

/* Indexes the JVM's pool: slots, tags, the Utf8 entries by content. */
static int pool_index(struct pool *p, mct_err *err)
{
    size_t pos = 0, n;
    uint32_t i;

    p->count = p->n_orig;
    if (p->n_orig == 0 || slot(p, p->n_orig) < 0 || kit_table_reserve(&p->utf8, p->n_orig) < 0)
        return p->n_orig == 0 ? mct_err_set(err, MCT_E_JVMTI, "GetConstantPool of %s: an empty pool", p->cls)
                              : mct_err_set(err, MCT_E_NOMEM, "out of memory reading the pool of %s", p->cls);
    p->tag[0] = 0;
    for (i = 1; i < p->n_orig; i++) {
        if (pos >= p->len || (n = entry_size(p->bytes + pos, p->len - pos)) == 0)
            return mct_err_set(err, MCT_E_UNSUPPORTED, "the JVM's constant pool of %s has %s at #%u", p->cls,
                               pos >= p->len ? "no entry" : "an unknown or cut entry", i);
        p->off[i] = (uint32_t)pos;
        p->tag[i] = p->bytes[pos];
        if (p->tag[i] == CF_UTF8)
            kit_table_add(&p->utf8, kit_hash(p->bytes + pos + 3, n - 3, 0), i);
        if ((p->tag[i] == CF_LONG || p->tag[i] == CF_DOUBLE) && ++i < p->n_orig)
            p->tag[i] = 0;
        pos += n;
    }
    if (pos != p->len)
        return mct_err_set(err, MCT_E_UNSUPPORTED, "the JVM's constant pool of %s has %zu bytes past its end",
                           p->cls, p->len - pos);
    return 0;
}

/* Appends an entry of tag t with body b (n bytes); its slot, or -1. */
static int append(struct pool *p, uint8_t t, const void *b, size_t n, mct_err *err)
{
    uint32_t i = p->count;

    if (i >= 0xffff)
        return mct_err_set(err, MCT_E_TOOBIG, "the constant pool of %s is full (65535 entries): the "
                           "planner cannot follow its calls; leave it out of the regex, or trace from a method it "
                           "calls", p->cls);
    if (slot(p, i) < 0)
        return mct_err_set(err, MCT_E_NOMEM, "out of memory reading the pool of %s", p->cls);
    p->off[i] = (uint32_t)p->added.len;
    p->tag[i] = t;
    buf_u1(&p->added, t);
    buf_bytes(&p->added, b, n);
    if (buf_failed(&p->added))
        return mct_err_set(err, MCT_E_NOMEM, "out of memory reading the pool of %s", p->cls);
    p->count++;
    return (int)i;
}

/* The slot of the Utf8 s, appended when missing; or -1. */
static int utf8_of(struct pool *p, const char *s, mct_err *err)
{
    size_t n = strlen(s);
    uint64_t h = kit_hash(s, n, 0);
    kit_cursor cur;
    uintptr_t v;
    uint8_t len[2];
    int i;

    if (n > 0xffff)
        return mct_err_set(err, MCT_E_TOOBIG, "a name in %s is over 65535 bytes: the planner cannot "
                           "follow its calls; leave it out of the regex, or trace from a method it calls", p->cls);
    for (v = kit_table_first(&p->utf8, h, &cur); v != 0; v = kit_table_next(&p->utf8, &cur))
        if (utf8_equal(p, (uint32_t)v, s, n))
            return (int)v;
    len[0] = (uint8_t)(n >> 8);
    len[1] = (uint8_t)n;
    if ((i = append(p, CF_UTF8, len, 2, err)) < 0)
        return -1;
    buf_bytes(&p->added, s, n);
    if (buf_failed(&p->added) || kit_table_add(&p->utf8, h, (uintptr_t)i) < 0)
        return mct_err_set(err, MCT_E_NOMEM, "out of memory reading the pool of %s", p->cls);
    return i;
}

/* The slot of a Class entry naming name, appended when missing; or -1. */
static int class_of(struct pool *p, const char *name, mct_err *err)
{
    size_t n = strlen(name);
    uint32_t i;
    uint8_t b[2];
    int u;

    for (i = 1; i < p->count; i++)
        if (p->tag[i] == CF_CLASS && (u = buf_get_u2(entry(p, i) + 1)) < (int)p->count &&
            utf8_equal(p, (uint32_t)u, name, n))
            return (int)i;
    if ((u = utf8_of(p, name, err)) < 0)
        return -1;
    b[0] = (uint8_t)(u >> 8);
    b[1] = (uint8_t)u;
    return append(p, CF_CLASS, b, 2, err);
}

/* One method as written. */
struct jmethod {
    uint16_t access, name, desc, max_locals;
    unsigned char *code;       /* JVMTI's; NULL: no Code attribute */
    jint code_len;
};

struct build {
    JNIEnv *jni;
    jvmtiEnv *jvmti;
    jclass k;
    struct pool p;
    jint minor, major, mods;
    int this_class, super_class;
    int *ifaces;
    jint n_ifaces;
    struct jmethod *methods;
    jint n_methods;
    int code_name, bsm_name;
    uint8_t *bsm;              /* the BootstrapMethods' info, malloc'd */
    size_t bsm_len;
    char *unread;              /* why they are not known, malloc'd; NULL: known */
};

static void deallocate(jvmtiEnv *jvmti, void *p)
{
    if (p != NULL)
        (*jvmti)->Deallocate(jvmti, p);
}

static int jvmti_failed(struct build *b, const char *call, jvmtiError e, mct_err *err)
{
    return mct_err_set(err, MCT_E_JVMTI, "%s of %s: %s", call, b->p.cls, vm_jvmti_error_name(e));
}

/* this_class, super_class and the interfaces, as Class entries. */
static int supertypes(struct build *b, mct_err *err)
{
    JNIEnv *jni = b->jni;
    jclass sup = NULL, *ifs = NULL;
    jint i;
    jvmtiError e;
    int rc = 0;

    if ((b->this_class = class_of(&b->p, b->p.cls, err)) < 0)
        return -1;
    /* An interface's super_class is java/lang/Object (JVMS 4.1). */
    if ((b->mods & CF_ACC_INTERFACE) == 0)
        sup = (*jni)->GetSuperclass(jni, b->k);
    if (sup != NULL || (b->mods & CF_ACC_INTERFACE) != 0) {
        char *name = sup != NULL ? vm_class_name(sup, err) : NULL;

        if (sup == NULL || name != NULL)
            b->super_class = class_of(&b->p, name != NULL ? name : "java/lang/Object", err);
        free(name);
        if (sup != NULL)
            (*jni)->DeleteLocalRef(jni, sup);
        if (b->super_class < 0)
            return -1;
    }
    if ((e = (*b->jvmti)->GetImplementedInterfaces(b->jvmti, b->k, &b->n_ifaces, &ifs)) != JVMTI_ERROR_NONE)
        return jvmti_failed(b, "GetImplementedInterfaces", e, err);
    if ((b->ifaces = calloc((size_t)b->n_ifaces + 1, sizeof *b->ifaces)) == NULL)
        rc = mct_err_set(err, MCT_E_NOMEM, "out of memory reading %s", b->p.cls);
    for (i = 0; i < b->n_ifaces; i++) {
        char *name = rc == 0 ? vm_class_name(ifs[i], err) : NULL;

        if (rc == 0 && (name == NULL || (b->ifaces[i] = class_of(&b->p, name, err)) < 0))
            rc = -1;
        free(name);
        (*jni)->DeleteLocalRef(jni, ifs[i]);
    }
    deallocate(b->jvmti, ifs);
    return rc;
}

/* Reads one method: name, descriptor, modifiers and its code if any. */
static int method(struct build *b, jmethodID id, struct jmethod *m, mct_err *err)
{
    jvmtiEnv *jvmti = b->jvmti;
    char *name = NULL, *sig = NULL;
    jint mods = 0, locals = 0;
    jvmtiError e;
    int rc = 0, n = -1, d = -1;

    if ((e = (*jvmti)->GetMethodName(jvmti, id, &name, &sig, NULL)) != JVMTI_ERROR_NONE)
        return jvmti_failed(b, "GetMethodName", e, err);
    if ((e = (*jvmti)->GetMethodModifiers(jvmti, id, &mods)) != JVMTI_ERROR_NONE)
        rc = jvmti_failed(b, "GetMethodModifiers", e, err);
    else if ((n = utf8_of(&b->p, name, err)) < 0 || (d = utf8_of(&b->p, sig, err)) < 0)
        rc = -1;
    m->name = (uint16_t)n;
    m->desc = (uint16_t)d;
    m->access = (uint16_t)mods;
    if (rc == 0 && (mods & (CF_ACC_NATIVE | CF_ACC_ABSTRACT)) == 0) {
        if ((e = (*jvmti)->GetMaxLocals(jvmti, id, &locals)) != JVMTI_ERROR_NONE)
            rc = jvmti_failed(b, "GetMaxLocals", e, err);
        else if ((e = (*jvmti)->GetBytecodes(jvmti, id, &m->code_len, &m->code)) != JVMTI_ERROR_NONE)
            rc = jvmti_failed(b, "GetBytecodes", e, err);
        else if (m->code_len <= 0 || m->code_len > 0xffff)
            rc = mct_err_set(err, MCT_E_JVMTI, "GetBytecodes of %s.%s gave %d bytes", b->p.cls, name,
                             (int)m->code_len);
        m->max_locals = (uint16_t)locals;
    }
    deallocate(jvmti, name);
    deallocate(jvmti, sig);
    return rc;
}

static int methods(struct build *b, mct_err *err)
{
    jmethodID *ids = NULL;
    jint n = 0, i;
    jvmtiError e;
    int rc = 0;

    if ((e = (*b->jvmti)->GetClassMethods(b->jvmti, b->k, &n, &ids)) != JVMTI_ERROR_NONE)
        return jvmti_failed(b, "GetClassMethods", e, err);
    if (n > 0xffff)
        rc = mct_err_set(err, MCT_E_TOOBIG, "%s has %d methods, over a class file's 65535: the "
                           "planner cannot follow its calls; leave it out of the regex, or trace from a method it "
                           "calls", b->p.cls, (int)n);
    else if ((b->methods = calloc((size_t)n + 1, sizeof *b->methods)) == NULL)
        rc = mct_err_set(err, MCT_E_NOMEM, "out of memory reading the methods of %s", b->p.cls);
    for (i = 0; i < n && rc == 0; i++, b->n_methods++)
        rc = method(b, ids[i], &b->methods[i], err);
    deallocate(b->jvmti, ids);
    if (rc == 0 && (b->code_name = utf8_of(&b->p, "Code", err)) < 0)
        rc = -1;
    return rc;
}

/* The BootstrapMethods of the class file the class was loaded from, when
 * its pool is the start of the JVM's (a class redefined since has the
 * entries of its new versions appended); else none, and b->unread says
 * why. The pool's Dynamic and InvokeDynamic entries that no bootstrap
 * method is known for are made member references, which the planner
 * follows no lambda through. */
static int bootstraps(struct build *b, mct_err *err)
{
    struct pool *p = &b->p;
    uint16_t n_bsm = 0;
    uint32_t i;
    int dynamic = 0;

    for (i = 1; i < p->n_orig && !dynamic; i++)
        dynamic = p->tag[i] == CF_DYNAMIC || p->tag[i] == CF_INVOKE_DYNAMIC;
    if (!dynamic)
        return 0;
    {
        size_t len = 0;
        mct_err why;
        uint8_t *file = vm_read_class_file(b->jni, b->k, p->cls, &len, &why);
        cf_class *cf = file != NULL ? cf_parse(file, len, &why) : NULL;
        const cf_attr *a = cf != NULL ? cf_find_attr(cf->attrs, cf->n_attrs, "BootstrapMethods") : NULL;

        if (a != NULL && cf->cp_count <= p->n_orig && cf->cp_end - 10 <= p->len &&
            memcmp(cf->data + 10, p->bytes, cf->cp_end - 10) == 0) {
            if ((b->bsm = malloc(a->len + 1)) == NULL) {
                cf_free(cf);
                free(file);
                return mct_err_set(err, MCT_E_NOMEM, "out of memory reading %s", p->cls);
            }
            memcpy(b->bsm, cf_attr_info(cf, a), a->len);
            b->bsm_len = a->len;
            n_bsm = cf->n_bootstrap;
        } else {
            const char *reason = file == NULL || cf == NULL ? why.msg
                                 : "the class file found is not the one loaded (changed since, or "
                                   "transformed as it loaded)";

            vm_debug("planning: the bootstrap methods of %s are not known (%s): its lambdas are not followed",
                     p->cls, reason);
            if ((b->unread = strdup(reason)) == NULL) {
                cf_free(cf);
                free(file);
                return mct_err_set(err, MCT_E_NOMEM, "out of memory reading %s", p->cls);
            }
        }
        cf_free(cf);
        free(file);
    }
    if (b->bsm != NULL && (b->bsm_name = utf8_of(p, "BootstrapMethods", err)) < 0)
        return -1;
    for (i = 1; i < p->n_orig; i++) {
        uint8_t *e = p->bytes + p->off[i];

        if ((p->tag[i] != CF_DYNAMIC && p->tag[i] != CF_INVOKE_DYNAMIC) || buf_get_u2(e + 1) < n_bsm)
            continue;
        p->tag[i] = e[0] = p->tag[i] == CF_DYNAMIC ? CF_FIELDREF : CF_METHODREF;
        e[1] = (uint8_t)(b->this_class >> 8);
        e[2] = (uint8_t)b->this_class;
    }
    return 0;
}

static void write_class(struct build *b, mct_buf *out)
{
    const struct pool *p = &b->p;
    jint i;

    buf_u4(out, 0xCAFEBABEu);
    buf_u2(out, (uint16_t)b->minor);
    buf_u2(out, (uint16_t)b->major);
    buf_u2(out, (uint16_t)p->count);
    buf_bytes(out, p->bytes, p->len);
    buf_bytes(out, p->added.data, p->added.len);
    /* GetClassModifiers gives an inner class's flags from InnerClasses. */
    buf_u2(out, (uint16_t)(b->mods & (CF_ACC_PUBLIC | CF_ACC_FINAL | CF_ACC_INTERFACE | CF_ACC_ABSTRACT |
                                      CF_ACC_SYNTHETIC | CF_ACC_ANNOTATION | CF_ACC_ENUM)));
    buf_u2(out, (uint16_t)b->this_class);
    buf_u2(out, (uint16_t)(b->super_class > 0 ? b->super_class : 0));
    buf_u2(out, (uint16_t)b->n_ifaces);
    for (i = 0; i < b->n_ifaces; i++)
        buf_u2(out, (uint16_t)b->ifaces[i]);
    buf_u2(out, 0); /* fields */
    buf_u2(out, (uint16_t)b->n_methods);
    for (i = 0; i < b->n_methods; i++) {
        const struct jmethod *m = &b->methods[i];

        buf_u2(out, m->access);
        buf_u2(out, m->name);
        buf_u2(out, m->desc);
        buf_u2(out, m->code != NULL);
        if (m->code == NULL)
            continue;
        buf_u2(out, (uint16_t)b->code_name);
        buf_u4(out, 12u + (uint32_t)m->code_len);
        buf_u2(out, 0); /* max_stack: JVMTI does not say */
        buf_u2(out, m->max_locals);
        buf_u4(out, (uint32_t)m->code_len);
        buf_bytes(out, m->code, (size_t)m->code_len);
        buf_u2(out, 0); /* exception table */
        buf_u2(out, 0); /* attributes */
    }
    buf_u2(out, b->bsm != NULL);
    if (b->bsm != NULL) {
        buf_u2(out, (uint16_t)b->bsm_name);
        buf_u4(out, (uint32_t)b->bsm_len);
        buf_bytes(out, b->bsm, b->bsm_len);
    }
}

int jcf_build(JNIEnv *jni, jclass k, const char *name, uint8_t **data, size_t *len, char **unread, mct_err *err)
{
    struct build b = {.jni = jni, .jvmti = vm_jvmti(), .k = k, .p = {.cls = name}, .super_class = -1};
    unsigned char *cp = NULL;
    jint cp_count = 0, cp_len = 0, i;
    jvmtiError e;
    mct_buf out;
    int rc = -1;

    buf_init(&b.p.added);
    buf_init(&out);
    *data = NULL;
    *len = 0;
    *unread = NULL;
    if ((e = (*b.jvmti)->GetClassVersionNumbers(b.jvmti, k, &b.minor, &b.major)) != JVMTI_ERROR_NONE)
        jvmti_failed(&b, "GetClassVersionNumbers", e, err);
    else if ((e = (*b.jvmti)->GetClassModifiers(b.jvmti, k, &b.mods)) != JVMTI_ERROR_NONE)
        jvmti_failed(&b, "GetClassModifiers", e, err);
    else if ((e = (*b.jvmti)->GetConstantPool(b.jvmti, k, &cp_count, &cp_len, &cp)) != JVMTI_ERROR_NONE)
        jvmti_failed(&b, "GetConstantPool", e, err);
    else if (cp_count < 1 || cp_count > 0xffff || cp_len < 0)
        mct_err_set(err, MCT_E_JVMTI, "GetConstantPool of %s gave %d entries (a class file "
                    "holds 1 to 65535): the JVM answered something this agent cannot read; leave the class out of "
                    "the regex, and report it", name, (int)cp_count);
    else if ((b.p.bytes = malloc((size_t)cp_len + 1)) == NULL)
        mct_err_set(err, MCT_E_NOMEM, "out of memory reading the pool of %s", name);
    else {
        memcpy(b.p.bytes, cp, (size_t)cp_len);
        b.p.len = (size_t)cp_len;
        b.p.n_orig = (uint16_t)cp_count;
        if (pool_index(&b.p, err) == 0 && supertypes(&b, err) == 0 && methods(&b, err) == 0 &&
            bootstraps(&b, err) == 0) {
            write_class(&b, &out);
            if ((*data = buf_steal(&out, len)) != NULL) {
                rc = 0;
                *unread = b.unread;
                b.unread = NULL;
            } else
                mct_err_set(err, MCT_E_NOMEM, "out of memory writing the class file of %s", name);
        }
    }
    deallocate(b.jvmti, cp);
    for (i = 0; i < b.n_methods; i++)
        deallocate(b.jvmti, b.methods[i].code);
    free(b.methods);
    free(b.ifaces);
    free(b.bsm);
    free(b.unread);
    free(b.p.bytes);
    free(b.p.off);
    free(b.p.tag);
    buf_free(&b.p.added);
    buf_free(&out);
    kit_table_free(&b.p.utf8);
    return rc;
}
