/* parent.h — a traced call's trace parent (--trace-context): the
 * PROBE_CONTEXT events (probe.h) its start recorded, into the call model's
 * parent (protocol/call.h). Runs on the worker. */
#ifndef MCT_PARENT_H
#define MCT_PARENT_H

#include <stddef.h>

#include "call.h"
#include "probe.h"
#include "tctx.h"

/* Sets c's parent and CALL_F_PARENT from the n events of a call (ev,
 * borrowed) when they carry one (c holds the rest of the call already,
 * tree_call); returns what the start found (TCTX_BAD: no parent). */
enum tctx_status parent_fill(mct_call *c, const probe_ev *ev, size_t n);

#endif
