/* rewrite.h — the bytecode rewriter: puts probe calls into chosen methods of
 * a class file and writes the new class file.
 *
 * Each chosen method gets
 *   - at entry:        push id; invokestatic probes->owner.enter (I)V
 *                      (with enter_receiver: aload_0; push id; invokestatic
 *                      probes->owner.enter (Ljava/lang/Object;I)V)
 *                      then, with probes->arg, for each argument:
 *                      xload slot; invokestatic probes->owner.<arg>T
 *                      (with probes->keep: enter returns an int, stored
 *                      by istore into a new local, max_locals, that every
 *                      StackMapTable frame then holds as an Integer)
 *   - before a return: push id; invokestatic probes->owner.exit (I)V
 *                      (with keep: iload the local; push id; invokestatic
 *                      probes->owner.exit (II)V)
 *   - a catch-all handler, appended after the code and last in the exception
 *     table, covering the method after the entry probe (in a constructor: after
 *     the super()/this() call):
 *                      dup; push id; invokestatic probes->owner.fail
 *                      (Ljava/lang/Throwable;I)V; athrow
 * with branch offsets (widened to goto_w where needed), switch padding, the
 * exception table, LineNumberTable, LocalVariable(Type)Table, StackMapTable
 * (new frames included), type annotation offsets, max_stack and the constant
 * pool kept correct. Everything else in the class file is copied untouched.
 * A method that cannot be rewritten safely is left as it is and its outcome
 * says why; the rest of the class is still rewritten. Skipped: methods
 * without code (abstract, native), jsr/ret subroutines, code that would
 * pass 65535 bytes (with keep: max_locals already 65535), static methods
 * and constructors given probes that take the receiver (they have none,
 * or not yet), constructors whose `this` could still be uninitialized
 * after the super()/this() call (or, without a StackMapTable, that branch
 * before it), java.lang.Object.<init>, and anything malformed or unexpected
 * (tables off instruction boundaries, a frame missing where the verifier
 * needs one). Exceptions thrown before or by a constructor's super()/this()
 * call cannot be caught there, so they leave that entry without an exit.
 *
 * No global state: classes may be rewritten on several threads at once. */
#ifndef MCT_REWRITE_H
#define MCT_REWRITE_H

#include <stddef.h>
#include <stdint.h>

#include "classfile.h"
#include "err.h"

/* The static methods a probe call invokes. Strings are borrowed. */
typedef struct rw_probes {
    const char *owner;  /* internal name of the probe class */
    const char *enter;  /* static void enter(int id) */
    const char *exit;   /* static void exit(int id) */
    const char *fail;   /* static void fail(Throwable t, int id) */
    int enter_receiver; /* enter is static void enter(Object receiver, int id)
                           and gets `this` (instance methods only) */
    const char *arg;    /* NULL, or a prefix: after the entry probe, each of
                           the method's arguments in order is passed to the
                           static void method <arg>T(T v), T its type's
                           letter (Z B C S I J F D, L for any reference:
                           (Ljava/lang/Object;)V) */
    int keep;           /* enter returns int: static int enter(int id) (or
                           (Ljava/lang/Object;I)I), and exit gets it back:
                           static void exit(int kept, int id); so exit
                           needs not work out again what enter did */
} rw_probes;

/* One method to instrument. */
typedef struct rw_target {
    uint16_t method;          /* index into cf_class.methods */
    int32_t id;               /* passed to the probes */
    const rw_probes *probes;  /* borrowed */
    /* With hand-offs followed: the number of each handoff.h kind's task
     * method (HO_KINDS of them, borrowed); each hand-off site of the method
     * then passes its task through the kind's wrapper of probes->owner
     * first (push id; invokestatic wrap; swapped around the argument that
     * follows the task, if any), and calls HO_HANDED after it (push id;
     * invokestatic handed (I)V), or after a site that returns the task's
     * future HO_HANDED_FUTURE (dup; push id; invokestatic; max_stack two
     * more rather than one). NULL: sites left alone. */
    const int32_t *handoff;
    /* With handoff: the application's types that implement
     * java.util.concurrent.Executor (internal names sorted by strcmp,
     * n_executors of them, borrowed), whose execute and submit sites are
     * hand-offs too. */
    const char *const *executors;
    size_t n_executors;
} rw_target;

enum rw_status {
    RW_REWRITTEN = 0,
    RW_SKIPPED  /* left unchanged; reason says why */
};

typedef struct rw_outcome {
    int status;         /* enum rw_status */
    char reason[160];   /* for RW_SKIPPED: "uses jsr/ret subroutines", ... */
    /* for RW_REWRITTEN: */
    uint32_t old_len, new_len;  /* code_length before and after */
    uint32_t widened;           /* 16-bit branches written as goto_w */
    uint32_t new_frames;        /* StackMapTable frames added (handler included) */
} rw_outcome;

/* Rewrites the n targets of c (each method at most once). On success returns
 * 0, fills outcomes[0..n-1], and sets *out to a new class file of *out_len
 * bytes that the caller frees with free() -- or to NULL when no target was
 * rewritten. Returns -1 with err set only when the class as a whole cannot be
 * written (out of memory, constant pool full, a target index out of range or
 * listed twice, a target without probes). */
int rw_rewrite(const cf_class *c, const rw_target *targets, size_t n,
               rw_outcome *outcomes, uint8_t **out, size_t *out_len, mct_err *err);

#endif
