/* hier.h — the loaded classes as the planner sees them: names, flags,
 * supertypes, subtypes, declared methods and class files. The agent
 * implements it over JVMTI; the unit tests over a directory of class files.
 * Everything returned is borrowed from the implementation and stays valid
 * until the implementation is freed (i.e. for the whole planning run). */
#ifndef MCT_HIER_H
#define MCT_HIER_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef struct hier_class hier_class; /* opaque to the planner */

enum hier_flag {
    HIER_INTERFACE = 1 << 0,    /* an interface */
    HIER_ABSTRACT = 1 << 1,     /* an abstract class */
    HIER_JDK = 1 << 2,          /* defined by the boot or platform loader */
    HIER_UNMODIFIABLE = 1 << 3, /* cannot be retransformed (hidden, array, ...) */
    HIER_UNLINKED = 1 << 4      /* loaded, not linked yet: its methods are not known */
};

typedef struct hier_method {
    const char *name;
    const char *desc;
    uint16_t access;            /* CF_ACC_* */
} hier_method;

typedef struct hier_ops {
    /* The loaded class of internal name `name` as resolved from class `from`
     * (whose code names it; NULL for a lookup by name alone), or NULL when no
     * such class is loaded. */
    hier_class *(*find)(void *ctx, const char *name, hier_class *from);
    /* Its internal name ("com/shop/Cart"). */
    const char *(*name)(void *ctx, hier_class *c);
    /* enum hier_flag bits. */
    int (*flags)(void *ctx, hier_class *c);
    /* The superclass, or NULL for java/lang/Object and interfaces. */
    hier_class *(*super)(void *ctx, hier_class *c);
    /* The direct superinterfaces; *out is set to a borrowed array. */
    size_t (*interfaces)(void *ctx, hier_class *c, hier_class *const **out);
    /* The loaded direct subtypes: subclasses of a class; implementing classes
     * and extending interfaces of an interface. */
    size_t (*subtypes)(void *ctx, hier_class *c, hier_class *const **out);
    /* The methods the class declares. */
    size_t (*methods)(void *ctx, hier_class *c, const hier_method **out);
    /* A class file of c as it runs now: its methods with their code, and
     * the constant pool entries that code names (the JVMTI implementation
     * reconstitutes it, see jclassfile.h). Reading it must not change the
     * class. Returns 0, or -1 with err set. */
    int (*bytes)(void *ctx, hier_class *c, const uint8_t **data, size_t *len, mct_err *err);
    /* After bytes() gave c's class file: NULL when its lambdas and method
     * references can be followed (or it has none), else why their bootstrap
     * methods could not be read (a sentence such as "its code source ... is
     * a jar inside a jar ..."). May be NULL itself: every class file is
     * whole. */
    const char *(*unread)(void *ctx, hier_class *c);
    /* The loaded classes one by one, in no order: the i-th (from 0), NULL
     * past the last (for the refusal's suggestions of a class not loaded). */
    hier_class *(*nth)(void *ctx, size_t i);
} hier_ops;

#endif
