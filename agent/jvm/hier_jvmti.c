/* hier_jvmti.c — see hier_jvmti.h. */
#include "hier_jvmti.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "classfile.h"
#include "jclassfile.h"
#include "kit.h"
#include "vm.h"

struct hier_class {
    hj *owner;
    jclass cls;                /* global ref */
    jobject loader;            /* global ref, NULL = boot loader */
    char *name;                /* internal name */
    int flags;                 /* enum hier_flag */
    int modifiable;            /* -1 until asked */
    int have_supers;
    hier_class *super;
    hier_class **ifaces;
    size_t n_ifaces;
    hier_class **subs;
    size_t n_subs, cap_subs;
    int have_methods;
    int methods_incomplete;    /* JVMTI or memory failed listing them */
    hier_method *methods;
    size_t n_methods;
    uint8_t *bytes;            /* the class file jcf_build made, once asked */
    size_t len;
    char *unread;              /* why its lambdas are not followed; NULL: they are */
    hier_class *same_name;     /* the next class of this name (another loader) */
};

struct hj {
    JNIEnv *jni;
    jvmtiEnv *jvmti;
    hier_class *classes;
    size_t n;
    kit_table by_name;         /* name hash -> latest class of that name */
    int tagged;                /* classes carry tag index + 1 */
    int have_subs;
};

/* The first class named name (the last listed), or NULL; the others
 * follow through same_name. */
static hier_class *first_named(const hj *h, const char *name, kit_cursor *cur)
{
    uintptr_t v;

    for (v = kit_table_first(&h->by_name, kit_hash_str(name, 0), cur); v != 0; v = kit_table_next(&h->by_name, cur))
        if (strcmp(((hier_class *)v)->name, name) == 0)
            return (hier_class *)v;
    return NULL;
}

static jobject platform_loader(JNIEnv *jni)
{
    jclass cl = (*jni)->FindClass(jni, "java/lang/ClassLoader");
    jmethodID m;
    jobject loader = NULL;

    if (cl == NULL) {
        (*jni)->ExceptionClear(jni);
        return NULL;
    }
    m = (*jni)->GetStaticMethodID(jni, cl, "getPlatformClassLoader", "()Ljava/lang/ClassLoader;");
    if (m != NULL)
        loader = (*jni)->CallStaticObjectMethod(jni, cl, m);
    (*jni)->ExceptionClear(jni);
    (*jni)->DeleteLocalRef(jni, cl);
    return loader;
}

/* Fills c from the loaded class k (a local ref the caller frees). */
static int describe(hj *h, hier_class *c, jclass k, jobject platform)
{
    jvmtiEnv *jvmti = h->jvmti;
    JNIEnv *jni = h->jni;
    jobject loader = NULL;
    jint mods = 0, status = 0;
    mct_err err;

    /* Arrays and primitives have no name here: they are left out. */
    c->name = vm_class_name(k, &err);
    if (c->name == NULL)
        return -1;
    /* Without its loader, a class would pass for a boot class. */
    if (vm_class_loader(k, &loader, &err) < 0)
        return -1;
    if ((*jvmti)->GetClassModifiers(jvmti, k, &mods) == JVMTI_ERROR_NONE) {
        if (mods & CF_ACC_INTERFACE)
            c->flags |= HIER_INTERFACE;
        else if (mods & CF_ACC_ABSTRACT)
            c->flags |= HIER_ABSTRACT;
    }
    if (loader == NULL || (platform != NULL && (*jni)->IsSameObject(jni, loader, platform)))
        c->flags |= HIER_JDK;
    /* Its methods come once it is prepared (GetClassMethods says
     * CLASS_NOT_PREPARED before). */
    if ((*jvmti)->GetClassStatus(jvmti, k, &status) == JVMTI_ERROR_NONE && !(status & JVMTI_CLASS_STATUS_PREPARED))
        c->flags |= HIER_UNLINKED;
    c->cls = (*jni)->NewGlobalRef(jni, k);
    if (loader != NULL) {
        c->loader = c->cls != NULL ? (*jni)->NewGlobalRef(jni, loader) : NULL;
        (*jni)->DeleteLocalRef(jni, loader);
        if (c->cls != NULL && c->loader == NULL) {
            (*jni)->DeleteGlobalRef(jni, c->cls);
            c->cls = NULL;
        }
    }
    c->modifiable = -1;
    c->owner = h;
    return c->cls != NULL ? 0 : -1;
}

hj *hj_new(JNIEnv *jni, mct_err *err)
{
    jvmtiEnv *jvmti = vm_jvmti();
    hj *h = calloc(1, sizeof *h);
    jclass *loaded;
    size_t n = 0, i;
    jobject platform;
    int reserved;

    if (h == NULL) {
        mct_err_set(err, MCT_E_NOMEM, "out of memory reading the loaded classes");
        return NULL;
    }
    h->jni = jni;
    h->jvmti = jvmti;
    loaded = vm_loaded_classes(&n, err);
    if (loaded == NULL) {
        free(h);
        return NULL;
    }
    platform = platform_loader(jni);
    h->classes = calloc(n + 1, sizeof *h->classes);
    reserved = kit_table_reserve(&h->by_name, n);
    h->tagged = 1;
    for (i = 0; i < n; i++) {
        hier_class *c = &h->classes[h->n];

        if (h->classes != NULL && reserved == 0 && describe(h, c, loaded[i], platform) == 0) {
            kit_cursor cur;

            /* Room is reserved: deleting and adding cannot fail. */
            if ((c->same_name = first_named(h, c->name, &cur)) != NULL)
                kit_table_del(&h->by_name, &cur);
            kit_table_add(&h->by_name, kit_hash_str(c->name, 0), (uintptr_t)c);
            if (h->tagged && (*jvmti)->SetTag(jvmti, c->cls, (jlong)h->n + 1) != JVMTI_ERROR_NONE)
                h->tagged = 0;
            h->n++;
        } else if (h->classes != NULL) {
            free(c->name);
            memset(c, 0, sizeof *c);
        }
    }
    vm_release_loaded(jni, loaded, n);
    if (platform != NULL)
        (*jni)->DeleteLocalRef(jni, platform);
    if (h->classes == NULL || reserved < 0) {
        hj_free(h);
        mct_err_set(err, MCT_E_NOMEM, "out of memory reading %zu loaded classes", n);
        return NULL;
    }
    return h;
}

void hj_free(hj *h)
{
    size_t i;

    if (h == NULL)
        return;
    for (i = 0; i < h->n; i++) {
        hier_class *c = &h->classes[i];
        size_t k;

        if (h->tagged)
            (*h->jvmti)->SetTag(h->jvmti, c->cls, 0);
        (*h->jni)->DeleteGlobalRef(h->jni, c->cls);
        if (c->loader != NULL)
            (*h->jni)->DeleteGlobalRef(h->jni, c->loader);
        for (k = 0; k < c->n_methods; k++) {
            free((char *)c->methods[k].name);
            free((char *)c->methods[k].desc);
        }
        free(c->methods);
        free(c->ifaces);
        free(c->subs);
        free(c->bytes);
        free(c->unread);
        free(c->name);
    }
    free(h->classes);
    kit_table_free(&h->by_name);
    free(h);
}

size_t hj_count(const hj *h)
{
    return h->n;
}

jclass hj_class(hier_class *c)
{
    return c->cls;
}

hier_class *hj_copy(hier_class *c, hier_class *after)
{
    hj *h = c->owner;
    kit_cursor cur;

    return after != NULL ? after->same_name : first_named(h, c->name, &cur);
}

/* The snapshot's entry for a class object, or NULL (loaded since). */
static hier_class *identify(hj *h, jclass k)
{
    jlong tag = 0;
    char *name;
    hier_class *c, *found = NULL;
    kit_cursor cur;
    mct_err err;

    if (k == NULL)
        return NULL;
    if (h->tagged) {
        if ((*h->jvmti)->GetTag(h->jvmti, k, &tag) == JVMTI_ERROR_NONE && tag > 0 && (size_t)tag <= h->n)
            return &h->classes[tag - 1];
        return NULL;
    }
    name = vm_class_name(k, &err);
    if (name == NULL)
        return NULL;
    for (c = first_named(h, name, &cur); c != NULL && found == NULL; c = c->same_name)
        if ((*h->jni)->IsSameObject(h->jni, c->cls, k))
            found = c;
    free(name);
    return found;
}

static void read_supers(hier_class *c)
{
    hj *h = c->owner;
    jclass sup = NULL;
    jclass *ifs = NULL;
    jint n = 0, i;

    if (c->have_supers)
        return;
    c->have_supers = 1;
    if (!(c->flags & HIER_INTERFACE) && (sup = (*h->jni)->GetSuperclass(h->jni, c->cls)) != NULL) {
        c->super = identify(h, sup);
        (*h->jni)->DeleteLocalRef(h->jni, sup);
    }
    if ((*h->jvmti)->GetImplementedInterfaces(h->jvmti, c->cls, &n, &ifs) != JVMTI_ERROR_NONE)
        return;
    c->ifaces = calloc((size_t)n + 1, sizeof *c->ifaces);
    for (i = 0; i < n; i++) {
        hier_class *x = c->ifaces ? identify(h, ifs[i]) : NULL;

        if (x != NULL)
            c->ifaces[c->n_ifaces++] = x;
        (*h->jni)->DeleteLocalRef(h->jni, ifs[i]);
    }
    (*h->jvmti)->Deallocate(h->jvmti, (unsigned char *)ifs);
}

static void add_sub(hier_class *parent, hier_class *child)
{
    if (buf_grow(&parent->subs, &parent->cap_subs, parent->n_subs, sizeof *parent->subs, 4) < 0)
        return;
    parent->subs[parent->n_subs++] = child;
}

/* The reverse index, built at the first question about subtypes. */
static void read_subtypes(hj *h)
{
    size_t i, k;

    if (h->have_subs)
        return;
    h->have_subs = 1;
    for (i = 0; i < h->n; i++) {
        hier_class *c = &h->classes[i];

        read_supers(c);
        if (c->super != NULL)
            add_sub(c->super, c);
        for (k = 0; k < c->n_ifaces; k++)
            add_sub(c->ifaces[k], c);
    }
}

/* --- hier_ops ---------------------------------------------------------------------------- */

static hier_class *op_find(void *ctx, const char *name, hier_class *from)
{
    hj *h = ctx;
    hier_class *c, *jdk = NULL, *any = NULL;

    kit_cursor cur;

    for (c = first_named(h, name, &cur); c != NULL; c = c->same_name) {
        if (from != NULL && (from->loader == NULL ? c->loader == NULL
                                                  : c->loader != NULL &&
                                                        (*h->jni)->IsSameObject(h->jni, c->loader, from->loader)))
            return c;
        if ((c->flags & HIER_JDK) && jdk == NULL)
            jdk = c;
        if (any == NULL)
            any = c;
    }
    return jdk != NULL ? jdk : any;
}

static const char *op_name(void *ctx, hier_class *c)
{
    return c->name;
}

static int op_flags(void *ctx, hier_class *c)
{
    hj *h = ctx;

    if (c->modifiable < 0) {
        jboolean m = JNI_FALSE;

        c->modifiable = (*h->jvmti)->IsModifiableClass(h->jvmti, c->cls, &m) == JVMTI_ERROR_NONE && m;
        if (!c->modifiable)
            c->flags |= HIER_UNMODIFIABLE;
    }
    return c->flags;
}

static hier_class *op_super(void *ctx, hier_class *c)
{
    read_supers(c);
    return c->super;
}

static size_t op_interfaces(void *ctx, hier_class *c, hier_class *const **out)
{
    read_supers(c);
    *out = c->ifaces;
    return c->n_ifaces;
}

static size_t op_subtypes(void *ctx, hier_class *c, hier_class *const **out)
{
    read_subtypes(ctx);
    *out = c->subs;
    return c->n_subs;
}

static size_t op_methods(void *ctx, hier_class *c, const hier_method **out)
{
    hj *h = ctx;
    jmethodID *ms = NULL;
    jint n = 0, i;

    if (!c->have_methods) {
        c->have_methods = 1;
        if ((*h->jvmti)->GetClassMethods(h->jvmti, c->cls, &n, &ms) == JVMTI_ERROR_NONE) {
            c->methods = calloc((size_t)n + 1, sizeof *c->methods);
            for (i = 0; i < n && c->methods != NULL; i++) {
                char *name = NULL, *sig = NULL;
                jint mods = 0;

                if ((*h->jvmti)->GetMethodName(h->jvmti, ms[i], &name, &sig, NULL) == JVMTI_ERROR_NONE &&
                    (*h->jvmti)->GetMethodModifiers(h->jvmti, ms[i], &mods) == JVMTI_ERROR_NONE) {
                    hier_method *m = &c->methods[c->n_methods];

                    m->name = strdup(name);
                    m->desc = strdup(sig);
                    m->access = (uint16_t)mods;
                    if (m->name != NULL && m->desc != NULL) {
                        c->n_methods++;
                    } else {
                        free((char *)m->name);
                        free((char *)m->desc);
                    }
                }
                (*h->jvmti)->Deallocate(h->jvmti, (unsigned char *)name);
                (*h->jvmti)->Deallocate(h->jvmti, (unsigned char *)sig);
            }
            (*h->jvmti)->Deallocate(h->jvmti, (unsigned char *)ms);
        }
        c->methods_incomplete = c->methods == NULL || c->n_methods < (size_t)n;
    }
    *out = c->methods;
    return c->n_methods;
}

static int op_bytes(void *ctx, hier_class *c, const uint8_t **data, size_t *len, mct_err *err)
{
    hj *h = ctx;

    if (c->bytes == NULL && jcf_build(h->jni, c->cls, c->name, &c->bytes, &c->len, &c->unread, err) < 0)
        return -1;
    *data = c->bytes;
    *len = c->len;
    return 0;
}

static const char *op_unread(void *ctx, hier_class *c)
{
    return c->unread;
}

static hier_class *op_nth(void *ctx, size_t i)
{
    hj *h = ctx;

    return i < h->n ? &h->classes[i] : NULL;
}

int hj_declares(hier_class *c, const char *name, const char *desc)
{
    const hier_method *ms;
    size_t n, i;

    /* Not linked yet: its methods are not known, it may. */
    if (c->flags & HIER_UNLINKED)
        return 1;
    n = op_methods(c->owner, c, &ms);
    /* Some of its methods could not be read: it may declare it. */
    if (c->methods_incomplete)
        return 1;
    for (i = 0; i < n; i++)
        if (strcmp(ms[i].name, name) == 0 && strcmp(ms[i].desc, desc) == 0)
            return 1;
    return 0;
}

const hier_ops hj_ops = {
    .find = op_find,
    .name = op_name,
    .flags = op_flags,
    .super = op_super,
    .interfaces = op_interfaces,
    .subtypes = op_subtypes,
    .methods = op_methods,
    .bytes = op_bytes,
    .unread = op_unread,
    .nth = op_nth,
};
