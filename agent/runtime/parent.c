/* parent.c — see parent.h. */
#include "parent.h"

/* The 8 bytes of v into p, big-endian. */
static void store_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

enum tctx_status parent_fill(mct_call *c, const probe_ev *ev, size_t n)
{
    /* The context follows the outermost ROOT_ENTER and its THREAD event. */
    for (size_t i = 1; i < n && i < 3; i++) {
        uint32_t st;

        if (PROBE_XKIND(ev[i].kind) != PROBE_CONTEXT)
            continue;
        st = PROBE_CONTEXT_STATUS(ev[i].kind);
        if (st != TCTX_OK)
            return st == TCTX_BAD ? TCTX_BAD : TCTX_NONE;
        if (n - i < 3 || PROBE_XKIND(ev[i + 1].kind) != PROBE_CONTEXT || PROBE_XKIND(ev[i + 2].kind) != PROBE_CONTEXT)
            return TCTX_BAD;
        store_be64(c->parent.trace_id, ev[i].t);
        store_be64(c->parent.trace_id + 8, ev[i + 1].t);
        store_be64(c->parent.span_id, ev[i + 2].t);
        c->parent.flags = (uint8_t)PROBE_CONTEXT_FLAGS(ev[i].kind);
        c->flags |= CALL_F_PARENT;
        return TCTX_OK;
    }
    return TCTX_NONE;
}
