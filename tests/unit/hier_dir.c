/* hier_dir.c — see hier_dir.h. */
#include "hier_dir.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buf.h"
#include "bytecode.h"
#include "classfile.h"

struct hier_class {
    char *name;
    int flags;
    int stub;
    int stub_iface;             /* a stub named as an interface */
    uint8_t *data;              /* the class file (synthesized for stubs) */
    size_t len;
    cf_class *cf;
    hier_method *methods;
    size_t nm, capm;
    hier_class *super;
    hier_class **ifaces;
    size_t nifaces;
    hier_class **subs;
    size_t nsubs, capsubs;
    int bytes_asked, fail;
};

struct hier_dir {
    hier_class **cls;           /* sorted by name */
    size_t n, cap;
    void (*on_bytes)(void *arg, const char *name);
    void *on_bytes_arg;
};

static const char *const jdk_prefixes[] = {"java/", "javax/", "jdk/", "sun/", "com/sun/"};

static int is_jdk(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof jdk_prefixes / sizeof jdk_prefixes[0]; i++)
        if (strncmp(name, jdk_prefixes[i], strlen(jdk_prefixes[i])) == 0)
            return 1;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp((*(hier_class *const *)a)->name, (*(hier_class *const *)b)->name);
}

/* The class named so among cls[0..n), sorted by name, or NULL. */
static hier_class *search(hier_class *const *cls, size_t n, const char *name)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(cls[mid]->name, name);

        if (c == 0)
            return cls[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static hier_class *lookup(const hier_dir *d, const char *name)
{
    return search(d->cls, d->n, name);
}

static int add_class(hier_dir *d, hier_class *c)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 64;
        hier_class **n = realloc(d->cls, cap * sizeof *n);

        if (n == NULL)
            return -1;
        d->cls = n;
        d->cap = cap;
    }
    d->cls[d->n++] = c;
    return 0;
}

static int hidden(const char *name, const char *const *hide)
{
    for (; hide != NULL && *hide != NULL; hide++)
        if (strcmp(*hide, name) == 0)
            return 1;
    return 0;
}

static int load_file(hier_dir *d, const char *path, const char *const *hide, mct_err *err)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    hier_class *c;
    uint8_t *data;

    if (f == NULL || fstat(fileno(f), &st) < 0) {
        if (f)
            fclose(f);
        return mct_err_set(err, MCT_E_IO, "cannot open %s", path);
    }
    data = malloc((size_t)st.st_size + 1);
    if (data == NULL || fread(data, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        free(data);
        fclose(f);
        return mct_err_set(err, MCT_E_IO, "cannot read %s", path);
    }
    fclose(f);
    c = calloc(1, sizeof *c);
    if (c == NULL) {
        free(data);
        return mct_err_set(err, MCT_E_NOMEM, "out of memory");
    }
    c->data = data;
    c->len = (size_t)st.st_size;
    if ((c->cf = cf_parse(c->data, c->len, err)) == NULL) {
        free(c->data);
        free(c);
        return mct_err_wrap(err, "%s", path);
    }
    if (hidden(c->cf->name, hide)) {
        cf_free(c->cf);
        free(c->data);
        free(c);
        return 0;
    }
    c->name = strdup(c->cf->name);
    if (c->name == NULL || add_class(d, c) < 0) {
        free(c->name);
        cf_free(c->cf);
        free(c->data);
        free(c);
        return mct_err_set(err, MCT_E_NOMEM, "out of memory");
    }
    return 0;
}

static int load_tree(hier_dir *d, const char *dir, const char *const *hide, mct_err *err)
{
    DIR *dh = opendir(dir);
    struct dirent *e;
    int rc = 0;

    if (dh == NULL)
        return mct_err_set(err, MCT_E_IO, "cannot open directory %s", dir);
    while (rc == 0 && (e = readdir(dh)) != NULL) {
        char path[4096];
        size_t len = strlen(e->d_name);
        struct stat st;

        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) < 0)
            continue;
        if (S_ISDIR(st.st_mode))
            rc = load_tree(d, path, hide, err);
        else if (len > 6 && strcmp(e->d_name + len - 6, ".class") == 0)
            rc = load_file(d, path, hide, err);
    }
    closedir(dh);
    return rc;
}

/* --- stubs -------------------------------------------------------------------- */

/* The stub for a JDK name that is not there, created on first mention;
 * NULL if name is there as a real class (the first nreal, sorted by name),
 * or is not a JDK name. */
static hier_class *stub(hier_dir *d, const char *name, size_t nreal)
{
    size_t i;
    hier_class *c;

    if (!is_jdk(name) || search(d->cls, nreal, name) != NULL)
        return NULL;
    for (i = nreal; i < d->n; i++)
        if (strcmp(d->cls[i]->name, name) == 0)
            return d->cls[i];
    if ((c = calloc(1, sizeof *c)) == NULL || (c->name = strdup(name)) == NULL || add_class(d, c) < 0) {
        if (c)
            free(c->name);
        free(c);
        return NULL;
    }
    c->stub = 1;
    return c;
}

static int stub_method(hier_class *c, const char *name, const char *desc, int is_static)
{
    size_t i;

    for (i = 0; i < c->nm; i++)
        if (strcmp(c->methods[i].name, name) == 0 && strcmp(c->methods[i].desc, desc) == 0) {
            if (is_static)
                c->methods[i].access |= CF_ACC_STATIC;
            return 0;
        }
    if (c->nm == c->capm) {
        size_t cap = c->capm ? c->capm * 2 : 8;
        hier_method *n = realloc(c->methods, cap * sizeof *n);

        if (n == NULL)
            return -1;
        c->methods = n;
        c->capm = cap;
    }
    c->methods[c->nm].name = strdup(name);
    c->methods[c->nm].desc = strdup(desc);
    c->methods[c->nm].access = (uint16_t)(CF_ACC_PUBLIC | (is_static ? CF_ACC_STATIC : 0));
    if (c->methods[c->nm].name == NULL || c->methods[c->nm].desc == NULL)
        return -1;
    c->nm++;
    return 0;
}

/* Records a reference to a method of a JDK class that may be missing. */
static int stub_ref(hier_dir *d, size_t nreal, const cf_ref *ref, int is_static)
{
    hier_class *s;

    if (ref->owner[0] == '[' || (s = stub(d, ref->owner, nreal)) == NULL)
        return 0;
    if (ref->tag == CF_INTERFACE_METHODREF)
        s->stub_iface = 1;
    return stub_method(s, ref->name, ref->desc, is_static);
}

/* Stubs for what the real class c names. */
static int stub_refs(hier_dir *d, size_t nreal, const cf_class *c)
{
    uint16_t i, k;
    hier_class *s;

    if (c->super_name != NULL)
        stub(d, c->super_name, nreal);
    for (i = 0; i < c->n_interfaces; i++)
        if ((s = stub(d, cf_class_name(c, c->interfaces[i]), nreal)) != NULL)
            s->stub_iface = 1;
    for (i = 1; i < c->cp_count; i++) {
        cf_ref ref;
        uint8_t kind;

        if (c->cp[i].tag == CF_METHOD_HANDLE && cf_method_handle(c, i, &kind, &ref) == 0 &&
            kind >= CF_REF_INVOKE_VIRTUAL && stub_ref(d, nreal, &ref, kind == CF_REF_INVOKE_STATIC) < 0)
            return -1;
    }
    for (k = 0; k < c->n_methods; k++) {
        const cf_code *code = c->methods[k].code;
        uint32_t pc = 0;

        while (code != NULL && pc < code->code_len) {
            bc_insn in;
            cf_ref ref;

            if (bc_decode(code->code, code->code_len, pc, &in, NULL) < 0)
                break;
            if (in.op >= BC_INVOKEVIRTUAL && in.op <= BC_INVOKEINTERFACE &&
                cf_member_ref(c, in.index, &ref) == 0 &&
                stub_ref(d, nreal, &ref, in.op == BC_INVOKESTATIC) < 0)
                return -1;
            pc += in.len;
        }
    }
    return 0;
}

/* A class file for a stub: its methods, each with a body of one return. */
static int stub_bytes(hier_class *c)
{
    mct_buf cp, out;
    uint16_t count = 1, this_c, super_c = 0, code_name, i;
    uint16_t *names = calloc(c->nm + 1, sizeof *names), *descs = calloc(c->nm + 1, sizeof *descs);

    if (names == NULL || descs == NULL) {
        free(names);
        free(descs);
        return -1;
    }
    buf_init(&cp);
    buf_init(&out);
#define UTF8(s) (buf_u1(&cp, CF_UTF8), buf_u2(&cp, (uint16_t)strlen(s)), buf_bytes(&cp, (s), strlen(s)), count++)
    this_c = (uint16_t)(UTF8(c->name) + 1);
    buf_u1(&cp, CF_CLASS);
    buf_u2(&cp, (uint16_t)(this_c - 1));
    count++;
    if (strcmp(c->name, "java/lang/Object") != 0) {
        super_c = (uint16_t)(UTF8("java/lang/Object") + 1);
        buf_u1(&cp, CF_CLASS);
        buf_u2(&cp, (uint16_t)(super_c - 1));
        count++;
    }
    code_name = UTF8("Code");
    for (i = 0; i < c->nm; i++) {
        names[i] = UTF8(c->methods[i].name);
        descs[i] = UTF8(c->methods[i].desc);
    }
#undef UTF8
    buf_u4(&out, 0xCAFEBABE);
    buf_u2(&out, 0);
    buf_u2(&out, 52);
    buf_u2(&out, count);
    buf_bytes(&out, cp.data, cp.len);
    buf_u2(&out, (uint16_t)(CF_ACC_PUBLIC | (c->stub_iface ? CF_ACC_INTERFACE | CF_ACC_ABSTRACT : CF_ACC_SUPER)));
    buf_u2(&out, this_c);
    buf_u2(&out, super_c);
    buf_u2(&out, 0);
    buf_u2(&out, 0);
    buf_u2(&out, (uint16_t)c->nm);
    for (i = 0; i < c->nm; i++) {
        const hier_method *m = &c->methods[i];

        buf_u2(&out, m->access);
        buf_u2(&out, names[i]);
        buf_u2(&out, descs[i]);
        if (m->access & CF_ACC_ABSTRACT) {
            buf_u2(&out, 0);
            continue;
        }
        buf_u2(&out, 1);
        buf_u2(&out, code_name);
        buf_u4(&out, 13);
        buf_u2(&out, 0);
        buf_u2(&out, (uint16_t)(cf_desc_arg_slots(m->desc) + 1));
        buf_u4(&out, 1);
        buf_u1(&out, BC_RETURN);
        buf_u2(&out, 0);
        buf_u2(&out, 0);
    }
    buf_u2(&out, 0);
    buf_free(&cp);
    free(names);
    free(descs);
    c->data = buf_steal(&out, &c->len);
    return c->data ? 0 : -1;
}

/* --- the hierarchy --------------------------------------------------------------- */

static int add_sub(hier_class *of, hier_class *sub)
{
    if (of->nsubs == of->capsubs) {
        size_t cap = of->capsubs ? of->capsubs * 2 : 4;
        hier_class **n = realloc(of->subs, cap * sizeof *n);

        if (n == NULL)
            return -1;
        of->subs = n;
        of->capsubs = cap;
    }
    of->subs[of->nsubs++] = sub;
    return 0;
}

/* Derives flags, methods, supertypes and subtypes once every class is in. */
static int link_all(hier_dir *d)
{
    size_t i, k;

    for (i = 0; i < d->n; i++) {
        hier_class *c = d->cls[i];

        if (is_jdk(c->name))
            c->flags |= HIER_JDK;
        if (c->stub) {
            if (c->stub_iface) {
                c->flags |= HIER_INTERFACE;
                for (k = 0; k < c->nm; k++)
                    if (!(c->methods[k].access & CF_ACC_STATIC))
                        c->methods[k].access |= CF_ACC_ABSTRACT;
            } else if (strcmp(c->name, "java/lang/Object") != 0) {
                c->super = lookup(d, "java/lang/Object");
            }
            if (stub_bytes(c) < 0)
                return -1;
            continue;
        }
        if (c->cf->access & CF_ACC_INTERFACE)
            c->flags |= HIER_INTERFACE;
        else if (c->cf->access & CF_ACC_ABSTRACT)
            c->flags |= HIER_ABSTRACT;
        if (!(c->flags & HIER_INTERFACE) && c->cf->super_name != NULL)
            c->super = lookup(d, c->cf->super_name);
        if (c->cf->n_interfaces != 0 &&
            (c->ifaces = calloc(c->cf->n_interfaces, sizeof *c->ifaces)) == NULL)
            return -1;
        for (k = 0; k < c->cf->n_interfaces; k++) {
            hier_class *ic = lookup(d, cf_class_name(c->cf, c->cf->interfaces[k]));

            if (ic != NULL)
                c->ifaces[c->nifaces++] = ic;
        }
        if (c->cf->n_methods != 0 && (c->methods = calloc(c->cf->n_methods, sizeof *c->methods)) == NULL)
            return -1;
        for (k = 0; k < c->cf->n_methods; k++) {
            c->methods[k].name = c->cf->methods[k].name;
            c->methods[k].desc = c->cf->methods[k].desc;
            c->methods[k].access = c->cf->methods[k].access;
        }
        c->nm = c->cf->n_methods;
    }
    for (i = 0; i < d->n; i++) {
        hier_class *c = d->cls[i];

        if (c->super != NULL && add_sub(c->super, c) < 0)
            return -1;
        for (k = 0; k < c->nifaces; k++)
            if (add_sub(c->ifaces[k], c) < 0)
                return -1;
    }
    return 0;
}

hier_dir *hier_dir_load(const char *const *dirs, const char *const *hide, mct_err *err)
{
    hier_dir *d = calloc(1, sizeof *d);
    size_t i, nreal;

    if (d == NULL) {
        mct_err_set(err, MCT_E_NOMEM, "out of memory");
        return NULL;
    }
    for (; *dirs != NULL; dirs++)
        if (load_tree(d, *dirs, hide, err) < 0) {
            hier_dir_free(d);
            return NULL;
        }
    nreal = d->n;
    qsort(d->cls, nreal, sizeof *d->cls, by_name);
    for (i = 0; i < nreal; i++)
        if (stub_refs(d, nreal, d->cls[i]->cf) < 0) {
            hier_dir_free(d);
            mct_err_set(err, MCT_E_NOMEM, "out of memory");
            return NULL;
        }
    stub(d, "java/lang/Object", nreal);
    qsort(d->cls, d->n, sizeof *d->cls, by_name);
    if (link_all(d) < 0) {
        hier_dir_free(d);
        mct_err_set(err, MCT_E_NOMEM, "out of memory");
        return NULL;
    }
    return d;
}

void hier_dir_free(hier_dir *d)
{
    size_t i, k;

    if (d == NULL)
        return;
    for (i = 0; i < d->n; i++) {
        hier_class *c = d->cls[i];

        if (c->stub)
            for (k = 0; k < c->nm; k++) {
                free((char *)c->methods[k].name);
                free((char *)c->methods[k].desc);
            }
        cf_free(c->cf);
        free(c->data);
        free(c->methods);
        free(c->ifaces);
        free(c->subs);
        free(c->name);
        free(c);
    }
    free(d->cls);
    free(d);
}

int hier_dir_add_flags(hier_dir *d, const char *name, int flags)
{
    hier_class *c = lookup(d, name);

    if (c == NULL)
        return -1;
    c->flags |= flags;
    return 0;
}

int hier_dir_fail_bytes(hier_dir *d, const char *name)
{
    hier_class *c = lookup(d, name);

    if (c == NULL)
        return -1;
    c->fail = 1;
    return 0;
}

void hier_dir_on_bytes(hier_dir *d, void (*fn)(void *arg, const char *name), void *arg)
{
    d->on_bytes = fn;
    d->on_bytes_arg = arg;
}

int hier_dir_bytes_asked(const hier_dir *d, const char *name)
{
    hier_class *c = lookup(d, name);

    return c ? c->bytes_asked : -1;
}

int hier_dir_classes_read(const hier_dir *d)
{
    size_t i;
    int n = 0;

    for (i = 0; i < d->n; i++)
        n += d->cls[i]->bytes_asked != 0;
    return n;
}

/* --- hier_ops -------------------------------------------------------------------- */

static hier_class *op_find(void *ctx, const char *name, hier_class *from)
{
    (void)from;
    return lookup(ctx, name);
}

static const char *op_name(void *ctx, hier_class *c)
{
    return c->name;
}

static int op_flags(void *ctx, hier_class *c)
{
    return c->flags;
}

static hier_class *op_super(void *ctx, hier_class *c)
{
    return c->super;
}

static size_t op_interfaces(void *ctx, hier_class *c, hier_class *const **out)
{
    *out = c->ifaces;
    return c->nifaces;
}

static size_t op_subtypes(void *ctx, hier_class *c, hier_class *const **out)
{
    *out = c->subs;
    return c->nsubs;
}

static size_t op_methods(void *ctx, hier_class *c, const hier_method **out)
{
    *out = c->methods;
    return c->nm;
}

static int op_bytes(void *ctx, hier_class *c, const uint8_t **data, size_t *len, mct_err *err)
{
    hier_dir *d = ctx;

    if (d->on_bytes != NULL)
        d->on_bytes(d->on_bytes_arg, c->name);
    c->bytes_asked++;
    if (c->fail)
        return mct_err_set(err, MCT_E_JVMTI, "GetClassFileBytes failed for %s (test)", c->name);
    *data = c->data;
    *len = c->len;
    return 0;
}

static hier_class *op_nth(void *ctx, size_t i)
{
    hier_dir *d = ctx;

    return i < d->n ? d->cls[i] : NULL;
}

const hier_ops hier_dir_ops = {
    .find = op_find,
    .name = op_name,
    .flags = op_flags,
    .super = op_super,
    .interfaces = op_interfaces,
    .subtypes = op_subtypes,
    .methods = op_methods,
    .bytes = op_bytes,
    .nth = op_nth,
};
