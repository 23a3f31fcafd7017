/* async.h — --follow-async on the worker's side: an entry call that handed
 * tasks to other threads waits, as its model (protocol/call.h), for the
 * calls that ran those tasks there (each built from its own thread's ring,
 * before or after the entry call's), then each task's call goes under the
 * node that handed it off, its root marked async with its thread and the
 * time it waited in the queue; hand-offs made by a task nest under it. An
 * entry call is released once every task it waits for, nested ones
 * included, has come or ran inside a traced call (a thread already
 * tracing: its calls are that call's, no node of their own), or once its
 * wait is over: the missing tasks are then nodes marked pending (not
 * ended, or never run: discarded, not traced), or cancelled when the
 * future their hand-off site returned is done without them (cancelled,
 * completed by another: they will never run). A task whose hand-off threw
 * (the executor refused it) is a node marked rejected, waited for by
 * none. A stream's function (tree_handoff.many) has any number of runs:
 * those of one thread are one node, and the call waits for them one
 * release more, never past (none: no node). The worker's thread only; no
 * JNI (the futures are the caller's: async_futures). */
#ifndef MCT_ASYNC_H
#define MCT_ASYNC_H

#include <stdint.h>

#include "call.h"
#include "clock.h"
#include "err.h"
#include "tree.h"

typedef struct async async;

/* What the holder asks of the tasks' futures (tree_handoff.future), which
 * it cannot look at itself: keep makes a reference of the holder's own
 * from a call's borrowed one (NULL: none could be had), drop frees one,
 * done says whether the future is done (a task that never came then will
 * never run). */
typedef struct async_futures {
    void *(*keep)(void *ref);
    void (*drop)(void *kept);
    int (*done)(void *kept);
} async_futures;

/* A holder whose entry calls wait at most wait_ns for their tasks, asking
 * f (borrowed for its life; NULL: tasks are never cancelled) of the
 * futures; NULL when out of memory. */
async *async_new(uint64_t wait_ns, const async_futures *f);

/* Frees a and every call it holds. */
void async_free(async *a);

/* Whether the call of tree tr is for the holder: a task's run, or an entry
 * call that handed tasks off. */
int async_wants(const tree *tr);

/* Takes the call of tree tr, whose model c (tree_call's) it moves out of
 * *c (left empty, reusable), at now_ns: an entry call (warmup: its mark)
 * waits for its tasks, a task's run for the call that handed it off. Also
 * notes the tasks that ran inside it. 0, or -1 when out of memory (*c
 * then as it was). */
int async_take(async *a, mct_call *c, const tree *tr, int warmup, uint64_t now_ns);

/* Notes the tasks that ran inside the call of tree tr, which the holder
 * does not take; 0, or -1 when out of memory. */
int async_inlined(async *a, const tree *tr, uint64_t now_ns);

/* Where async_release hands an entry call: its model, complete (call_check
 * passed), which out may swap with another model it owns (the holder
 * frees what is left in *c), and its warm-up mark; or c NULL and why the
 * call is dropped (out of memory, a tree over the model's bounds). */
typedef void (*async_out)(void *arg, mct_call *c, int warmup, const mct_err *dropped);

/* Releases, in the order they were taken, the entry calls whose tasks have
 * all come (a stream's runs: by the release after the call's), those whose
 * wait is over, or all of them (force); called once after each drain pass;
 * methods of pending nodes are defined in tab, queued times converted with
 * cal. A call whose wait is over and some of whose missing tasks' futures
 * are done is released on the next call but one (unless forced): a task
 * that completed its future itself was published before, and comes then. Tasks
 * that no held call waits for are dropped once they waited long enough
 * for theirs (a minute past the wait). How many were released. */
size_t async_release(async *a, call_tab *tab, const clock_cal *cal, uint64_t now_ns, int force, async_out out,
                     void *arg);

/* Entry calls held now. */
size_t async_held(const async *a);

#endif
