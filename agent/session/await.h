/* await.h — a session that waits for its entry class to load (--wait):
 * ClassPrepare watched, the preparing thread held until the session has
 * instrumented the class (await.c). One watch at a time, for the agent. */
#ifndef MCT_AWAIT_H
#define MCT_AWAIT_H

#include "err.h"

struct session;

/* Starts watching for the class cls (binary name with dots), unless a
 * watch is on already; 0, or -1 with err set. The next await_release ends
 * it. */
int await_watch(const char *cls, mct_err *err);

/* Lets the held threads go and stops waiting; unhook: also removes the
 * ClassPrepare callback (else it is someone else's now, or gone). */
void await_release(int unhook);

/* Waits until a copy of the entry class is prepared (0), or the session
 * ends first: stop, the client gone, the JVM dying (-1). With verbose, says
 * what it waits for every few seconds. Session thread only. */
int await_entry(struct session *s);

/* Marks the calling thread as the session's: it runs Java of its own while
 * it waits and is never held. */
void await_session_thread(void);

/* Lets the held threads go without ending the watch (the JVM is dying). */
void await_unhold(void);

#endif
