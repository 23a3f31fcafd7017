/* warm.h — warm-up calls. A session retransforms the methods it
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
 * began (its root's enter tick), and the call began less than WARM_BOUND_S
 * after the method was retransformed. A method that was not compiled before
 * never marks a call: it would have run interpreted anyway. So in a session
 * started with the JVM (-agentpath) only JDK methods compiled during
 * startup can mark a call (with --include-jdk), and in a JVM that does not
 * compile (-Xint) none can; there only the first calls' rule (below)
 * marks calls, of classes retransformed. A method compiled again at any tier (C1 included) counts as
 * compiled again.
 *
 * The bound: a method that is never compiled again (instrumented past
 * HugeMethodLimit, code cache full, made not compilable) would otherwise
 * mark every call, leaving them all out of summaries and gates (and
 * --aggregate -n N would never end). It is a time because the JIT's
 * compile thresholds (a few hundred to some thousands of invocations or
 * loop iterations) are reached within seconds by a method called often
 * enough to matter, even on a loaded machine, while a count of marked calls
 * would keep a rarely called entry marked for hours; the calls a rarely
 * called method leaves unmarked after it are few. warm_stale counts the
 * methods that reached it.
 *
 * A class retransformed again during the session (a later extension of
 * the plan) discards its methods' new code too: warm_rearm, before that
 * retransform, makes its methods that were compiled before the session
 * "compiled before, not again" anew. Those first compiled during the
 * session are left alone: in a cold JVM (a trace from its start) that is
 * the JIT's ordinary progress, not a slowdown of our making.
 *
 * Whatever the compile events say, the first WARM_FIRST_CALLS calls of
 * each entry method after its class was retransformed (warm_begin's
 * classes, warm_rearm's) are warm-up (warm_first): they link the probes
 * and the call sites the rewrite added, and run interpreted, many times
 * slower than the next ones (a late attach's first call: 0.5 ms against
 * 4-15 us). A class not initialized yet when retransformed (a trace from
 * the JVM's start instruments the entry class as it is prepared) or
 * instrumented as it loads has none: its first calls are the program's own
 * cold start, not of our making.
 *
 * Threads: one session at a time; its thread calls warm_begin,
 * warm_retransformed, warm_rearm and warm_end, and its worker (the same
 * thread) warm_marks. The event callback runs on the ServiceThread, which
 * HotSpot has post compile events some time after the compiler thread
 * queued them, and on the session thread (the replay): it takes no lock,
 * allocates nothing, and touches only what warm_end frees once it has
 * disabled the event and seen no callback running.
 *
 * An event queued before a retransform and posted after it: HotSpot gives
 * an obsolete (rewritten) method a new idnum at the retransform, so a
 * jmethodID made for its old code from then on is not one bound here and
 * is ignored; a jmethodID the JVM cached for that code before the
 * retransform is the bound one (it then names the new version), and such
 * an event reads as "compiled again": the method stops marking early. We
 * did not observe it; the window is the ServiceThread's queue delay. */
#ifndef MCT_WARM_H
#define MCT_WARM_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* Seconds after its retransform during which a method not compiled again
 * marks the calls it is in (the bound above). */
#define WARM_BOUND_S 30

/* The calls of each entry method, from when its class was retransformed,
 * that are warm-up whatever the compile events say (warm_first). */
#define WARM_FIRST_CALLS 2

/* Before retransforming classes[0..n) for session gen (whose methods are
 * numbered already): binds the jmethodIDs of the session's methods in them,
 * enables CompiledMethodLoad and replays it, so that the methods compiled
 * now are known. 0, or -1 with e set (the JVM cannot say: no call is then
 * marked, and warm_unknown says why); nothing is left enabled on failure.
 * Nothing is enabled when none of the classes has a method of the session. */
int warm_begin(uint32_t gen, jclass *classes, size_t n, mct_err *e);

/* The classes were retransformed: from now on a CompiledMethodLoad of a
 * method compiled before records that it was compiled again. */
void warm_retransformed(void);

/* Before classes[0..n), already instrumented, are retransformed again:
 * their methods that were compiled (before the session, or during it) are
 * "compiled before, not again" from now on, and their bound restarts. */
void warm_rearm(jclass *classes, size_t n);

/* Whether method id, in a call whose root entered at tick start, makes the
 * call warm-up (the rule above); 0 when warm_begin did not succeed. */
int warm_marks(int32_t id, uint64_t start);

/* Whether a call of entry method root, handled now, is one of its first
 * WARM_FIRST_CALLS since its class was retransformed (warm_begin's
 * classes, warm_rearm's); counts it. The worker's alone. */
int warm_first(int32_t root);

/* The next session's trace started with the JVM (on: -agentpath
 * ...=trace=, the wrap form) or not (off: a client attached). A trace from
 * the JVM's start has no first calls' rule: its first calls are the
 * program's own cold start, not code our retransformation made cold. Set
 * before the session begins. */
void warm_from_start(int on);

/* Of the last session (after warm_end): the methods that stopped marking
 * calls because they were not compiled again within WARM_BOUND_S; -1 when
 * warm_begin failed. */
long long warm_stale(void);

/* Why warm-up calls cannot be told in the current or last session
 * (warm_begin failed), or NULL; borrowed until the next warm_begin. */
const char *warm_unknown(void);

/* Disables the event, waits (bounded) for callbacks still running and
 * frees the session's state. Idempotent; a no-op without warm_begin. */
void warm_end(void);

#endif
