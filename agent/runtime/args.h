/* args.h — the entry method's arguments (--args): a traced call's
 * PROBE_ARG events (probe.h), as its outermost entry method's start
 * recorded them, into the call model's arguments (protocol/call.h). Runs
 * on the worker: Strings from UTF-16 to UTF-8, objects' classes named. */
#ifndef MCT_ARGS_H
#define MCT_ARGS_H

#include <stddef.h>

#include "call.h"
#include "err.h"
#include "probe.h"

/* Writes the name of object obj's class (modified UTF-8, cut to size)
 * into name and its identity hash into *hash; obj stays the caller's. */
typedef void (*args_object_info)(JNIEnv *jni, jobject obj, char *name, size_t size, int32_t *hash);

/* Fills c's arguments (and CALL_F_ARGS) from the n events of a call (ev,
 * borrowed), objects through info; c holds the rest of the call already
 * (tree_call). A String's lone surrogates and U+0000 become U+FFFD. 0, or
 * -1 with err set (out of memory, or a model call_check refuses). */
int args_fill(mct_call *c, JNIEnv *jni, const probe_ev *ev, size_t n, args_object_info info, const call_tab *tab,
              mct_err *err);

#endif
