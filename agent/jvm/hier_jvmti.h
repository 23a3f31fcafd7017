/* hier_jvmti.h — the planner's hierarchy (hier.h) over JVMTI: a snapshot of
 * the loaded classes taken when planning starts. Supertypes, subtypes and
 * declared methods are read on first use; a class's bytes are the class
 * file jclassfile.h builds (no class is retransformed). Classes are identified by JVMTI
 * tags while the snapshot lives; hj_free clears them. */
#ifndef MCT_HIER_JVMTI_H
#define MCT_HIER_JVMTI_H

#include <jni.h>

#include "err.h"
#include "hier.h"

typedef struct hj hj;

extern const hier_ops hj_ops;

/* Takes the snapshot (jni is the calling thread's); NULL with err set. */
hj *hj_new(JNIEnv *jni, mct_err *err);

/* Clears the tags and frees the snapshot. */
void hj_free(hj *h);

/* The class object of a class of the snapshot (a global ref owned by the
 * snapshot). */
jclass hj_class(hier_class *c);

/* The classes of the snapshot with the name of c, c included (the copies
 * of several loaders): the one after `after` (NULL: the first), or NULL
 * after the last. for (k = hj_copy(c, NULL); k; k = hj_copy(c, k)) visits
 * them all. */
hier_class *hj_copy(hier_class *c, hier_class *after);

/* Whether class c of the snapshot declares the method name desc (1 when
 * its methods are not known: c is not linked yet, or listing them failed). */
int hj_declares(hier_class *c, const char *name, const char *desc);

/* How many classes the snapshot holds. */
size_t hj_count(const hj *h);

#endif
