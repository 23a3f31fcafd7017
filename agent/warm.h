/* warm.h — warm-up calls (issue 13). A session retransforms the methods it
 * instruments; in a JVM that ran them compiled (a late attach), their new
 * versions run interpreted until the JIT compiles them again, so the first
 * calls are far slower than the application's and would skew summaries and
 * gates. Before the session retransforms, this module learns which of its
 * methods are compiled now (CompiledMethodLoad, replayed by GenerateEvents);
 * afterwards every CompiledMethodLoad of such a method records when it was
 * compiled again (probe clock ticks). A method counts as compiled when it
 * has code of its own or is inlined into compiled code (the event's
 * inlining records).
 *
 * The rule (warm_marks): a call is warm-up when a method of its tree that
 * was compiled before the session had not been compiled again when the call
 * began (its root's enter tick). A method that was not compiled before
 * never marks a call: it would have run interpreted anyway. So a session
 * started with the JVM (-agentpath) has no warm-up call, and nor has one on
 * a JVM that does not compile (-Xint). A method compiled again at any tier
 * (C1 included) counts as compiled again.
 *
 * Threads: one session at a time; its thread calls warm_begin,
 * warm_retransformed and warm_end, and its worker (the same thread)
 * warm_marks. The event callback runs on compiler and service threads: it
 * takes no lock, allocates nothing, and touches only what warm_end frees
 * once it has disabled the event and seen no callback running. */
#ifndef MCT_WARM_H
#define MCT_WARM_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* Before retransforming classes[0..n) for session gen (whose methods are
 * numbered already): binds the jmethodIDs of the session's methods in them,
 * enables CompiledMethodLoad and replays it, so that the methods compiled
 * now are known. 0, or -1 with e set (the JVM cannot say: no call is then
 * marked); nothing is left enabled on failure. */
int warm_begin(uint32_t gen, jclass *classes, size_t n, mct_err *e);

/* The classes were retransformed: from now on a CompiledMethodLoad of a
 * method compiled before records that it was compiled again. */
void warm_retransformed(void);

/* Whether method id, in a call whose root entered at tick start, makes the
 * call warm-up (the rule above); 0 when warm_begin did not succeed. */
int warm_marks(int32_t id, uint64_t start);

/* Disables the event, waits (bounded) for callbacks still running and
 * frees the session's state. Idempotent; a no-op without warm_begin. */
void warm_end(void);

#endif
