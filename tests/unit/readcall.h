/* readcall.h — a `call` object handed to a consumer of the call model, as
 * the client does with what it reads: for the tests that write their calls
 * as JSON (test_summary, test_gate, fuzz_summary). */
#ifndef MCT_TEST_READCALL_H
#define MCT_TEST_READCALL_H

#include "call.h"

/* A consumer of one call: sum_add_call, replies_call, ... over ctx. */
typedef int readcall_fn(void *ctx, const call_tab *t, const mct_call *c, mct_err *e);

/* Reads j (call_from_json) into a fresh model and hands it to add(ctx);
 * 0, or -1 with e set by either. */
static inline int readcall(const json_t *j, readcall_fn *add, void *ctx, mct_err *e)
{
    call_tab t = {0};
    mct_call c = {0};
    int rc = call_from_json(&t, &c, j, e) < 0 ? -1 : add(ctx, &t, &c, e);

    call_free(&c);
    call_tab_free(&t);
    return rc;
}

#endif
