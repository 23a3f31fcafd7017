/* trivial.h — which methods are trivial: accessors and other short,
 * straight-line leaves whose time is a few instructions. Instrumenting one
 * costs two probes, many times what it runs, and a node whose time is
 * mostly the probes' noise; left as it is, its time is its caller's self
 * time. Tomcat's request path makes about half its calls to such methods
 * (getters and setters of its buffers and requests). */
#ifndef MCT_TRIVIAL_H
#define MCT_TRIVIAL_H

#include "classfile.h"

/* The longest code a trivial method may have, in bytes. */
#define TRIVIAL_CODE_MAX 64

/* The reason a plan gives for a method left as it is because trivial. */
#define TRIVIAL_REASON "a short leaf that calls, loops, allocates and locks nothing (--skip-trivial)"

/* 1 when method m of class c is trivial: it has code of at most
 * TRIVIAL_CODE_MAX bytes, no exception handler, is not synchronized, and
 * its code holds no invoke, no backward branch and no switch, allocates
 * nothing (new, newarray, anewarray, multianewarray), neither locks
 * (monitorenter, monitorexit) nor throws (athrow), has no subroutine
 * (jsr, ret), reaches no other class (field instructions only on c's own
 * fields, no checkcast or instanceof: resolving another class may load or
 * initialise it, which runs code), and loads only numbers and strings
 * (ldc of a class, method type, method handle or dynamic constant may run
 * code). Else 0, undecodable code included. */
int cf_trivial(const cf_class *c, const cf_member *m);

#endif
