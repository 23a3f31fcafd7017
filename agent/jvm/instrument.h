/* instrument.h — what the ClassFileLoadHook does, and retransformation.
 *
 * The module keeps a table of class names to instrument, each with the
 * methods (name, descriptor, number, entry or not) to give probes. A class
 * is a name and a loader: the hook rewrites every class of a name of the
 * table, whatever its loader, whenever the JVM hands it over: when the
 * session retransforms it, and when such a class loads later (a plugin's
 * new class loader, a redeployed web application). It remembers each such
 * copy (loader, class object; weakly, so that loaders can still be
 * unloaded) to restore it. Restoring is emptying the table and retransforming
 * every copy again: retransformation starts from the class's original
 * bytes, so the JVM gets them back unchanged.
 *
 * The table is locked; the hook may run on any thread. Functions that
 * retransform must not be called from the hook. */
#ifndef MCT_INSTRUMENT_H
#define MCT_INSTRUMENT_H

#include <jni.h>
#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "handoff.h"
#include "rewrite.h"

enum inst_status {
    INST_WAITING = 0,   /* not rewritten yet (its class has not come by) */
    INST_DONE,          /* the JVM runs the rewritten method */
    INST_SKIPPED,       /* the rewriter left it alone; reason says why */
    INST_FAILED,        /* the JVM refused the rewritten class; reason says why */
    INST_TRIVIAL        /* left as it is: trivial (trivial.h), not an entry method */
};

/* The outcome of one method; `reason` is NUL-terminated. */
typedef struct inst_outcome {
    int status;         /* enum inst_status */
    char reason[160];
} inst_outcome;

/* Installs the hook (it stays installed; an empty table makes it a no-op).
 * jni is the caller's. */
int inst_init(JNIEnv *jni, mct_err *err);

/* Adds a method to instrument in the classes named `cls` (internal name) of
 * every loader. The outcome is written to *out when a class is rewritten
 * (out must stay valid until inst_restore; the copies of several loaders
 * share it). */
int inst_add(const char *cls, const char *name, const char *desc, int32_t id, int root, inst_outcome *out,
             mct_err *err);

/* From now on until inst_restore, the hook also rewrites the hand-off
 * sites of the methods it instruments (rewrite.h), ids being the numbers
 * of handoff.h's HO_KINDS task methods, executors the n internal names of
 * the application's types that implement java.util.concurrent.Executor
 * (all copied); ids NULL: it does not. Call before the classes are
 * retransformed. 0, or -1 when out of memory (nothing followed then). */
int inst_follow(const int32_t *ids, const char *const *executors, size_t n);

/* From now on until inst_restore, the hook leaves the trivial methods it
 * is given (trivial.h) as they are, entry methods excepted (leave 0: it
 * instruments them too). Call before the classes are retransformed. */
void inst_trivial(int leave);

/* Retransforms n classes so the hook rewrites them. When the JVM refuses the
 * batch (one bad class fails it all), retries one by one, marks the methods
 * of a refused class INST_FAILED with the JVMTI error, and leaves that class
 * unchanged. The JVM keeps no StackMapTable for the classes it does not
 * verify (boot classes; any with verification off), so its bytes lack the
 * frames that verifying the rewritten class needs: the hook leaves such a
 * class as it is, and it is retransformed once more, the hook then rewriting
 * the class file it was loaded from (read with Class.getResourceAsStream,
 * which runs Java code on the caller's thread) when it has the same methods.
 * Call from the thread that calls inst_restore. Returns 0, or -1 when
 * retransformation itself is unusable. */
int inst_retransform(JNIEnv *jni, jclass *classes, size_t n, mct_err *err);

/* Forgets the table; then retransforms the classes that were rewritten, so
 * that the JVM runs their original bytes. A class whose loader had the
 * hook rewrite it but was still defining it is not loaded yet: restore
 * waits a little for it (at most 200 ms), then leaves it to
 * inst_restore_leftovers; it counts in inst_rewritten_classes meanwhile.
 * Returns 0 or -1 (what could not be restored is named in err). */
int inst_restore(JNIEnv *jni, mct_err *err);

/* Restores the classes inst_restore left behind that are defined now (a
 * class whose loader was collected is dropped; one not defined a minute
 * after its session ended is given up, said on the JVM's stderr). Returns
 * how many are still waited for. Cheap when none is; call it from time to
 * time (the listener's tick), from the thread that may retransform. */
size_t inst_restore_leftovers(JNIEnv *jni);

/* How many classes (copies: a name in one loader) the JVM runs rewritten
 * now. */
size_t inst_rewritten_classes(void);

/* Forgets the copies whose class loader was collected (their classes were
 * unloaded: an undeployed web application, a dropped plugin); returns how
 * many rewritten copies were found unloaded, here or as the hook looked,
 * since the table was last emptied (inst_restore). A walk of the table
 * under its lock: cheap enough for a few times a second. */
size_t inst_unloaded(JNIEnv *jni);

/* Every class that loads (not a retransformation) is offered to the
 * callback first, with the table locked: it may add methods of that class
 * with inst_add_locked (not inst_add), which are then rewritten at once.
 * data is the class file. A NULL cb removes it; once this returns, no call
 * of the old callback runs any more. */
typedef void (*inst_load_cb)(JNIEnv *jni, const char *name, jobject loader, const uint8_t *data,
                             size_t len, void *arg);
void inst_set_load_callback(inst_load_cb cb, void *arg);

/* For the load callback only: as inst_add, without taking the lock. */
int inst_add_locked(const char *cls, const char *name, const char *desc, int32_t id, int root,
                    inst_outcome *out, mct_err *err);

/* The diagnostic mode: rewrite every method of every class whose internal
 * name matches (the callback) as it loads, with the plain probes; the
 * numbers are handed out from the method table. */
typedef int (*inst_match_cb)(const char *internal_name, void *arg);
void inst_set_rewrite_all(inst_match_cb match, void *arg);

/* Counts of the diagnostic mode: classes and methods rewritten, methods the
 * rewriter skipped, classes it could not parse. */
void inst_diag_counts(uint64_t *classes, uint64_t *methods, uint64_t *skipped, uint64_t *bad);

#endif
