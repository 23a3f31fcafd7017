/* hier_dir.h — a class hierarchy (hier.h) over directories of class files,
 * for the planner's unit tests: every .class under the directories is a
 * loaded class. Classes under java/, javax/, jdk/, sun/, com/sun/ are JDK
 * classes; the JDK classes the files name (as superclass, interface, or
 * owner of a called method or method handle) but that are not there are
 * synthesized as bare stubs, so that superclass chains end at
 * java/lang/Object: a stub extends java/lang/Object, is an interface when
 * named as one, and declares exactly the methods referenced on it (public;
 * static when called so; abstract when an interface's instance method; with
 * a body of one `return` otherwise). Subtypes come in class name order.
 * The test can hide classes (not loaded), add flags, make bytes() fail, run
 * code inside bytes() (as the class file hook runs inside a retransformation
 * that reads bytes), and ask which classes the planner read. A class loading
 * later is a second hierarchy over the same directories hiding fewer
 * classes. */
#ifndef MCT_HIER_DIR_H
#define MCT_HIER_DIR_H

#include "err.h"
#include "hier.h"

typedef struct hier_dir hier_dir;

/* Loads every .class under the NULL-terminated dirs, except the internal
 * names in the NULL-terminated hide (may be NULL); returns the hierarchy
 * (free with hier_dir_free) or NULL with err set. */
hier_dir *hier_dir_load(const char *const *dirs, const char *const *hide, mct_err *err);

void hier_dir_free(hier_dir *d);

/* The operations; their ctx is the hier_dir. */
extern const hier_ops hier_dir_ops;

/* Adds enum hier_flag bits to a class; -1 if there is no such class. */
int hier_dir_add_flags(hier_dir *d, const char *name, int flags);

/* Makes bytes() fail for a class with MCT_E_JVMTI; -1 if no such class. */
int hier_dir_fail_bytes(hier_dir *d, const char *name);

/* Calls fn(arg, name of the class) at the start of every bytes() call;
 * fn NULL: no more. */
void hier_dir_on_bytes(hier_dir *d, void (*fn)(void *arg, const char *name), void *arg);

/* How often bytes() was asked of a class (-1 if no such class). */
int hier_dir_bytes_asked(const hier_dir *d, const char *name);

/* The number of classes bytes() was asked of. */
int hier_dir_classes_read(const hier_dir *d);

#endif
