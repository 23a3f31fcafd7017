/* fmt_frames.c — the output of a session run for client/multi.c (never
 * an option): its calls as compact frames (PROTOCOL.md "Compact calls": a
 * method's names once, then records, call_encode) and its summaries as
 * JSON frames, what an agent sends, so that the process running several
 * sessions reads them with the one reader of replies (reader.h), with no
 * JSON text per call on either side. */
#include "output.h"

#include <errno.h>
#include <stdlib.h>

static int frames_begin(out *o)
{
    o->state = calloc(1, sizeof(call_defs));
    if (o->state == NULL) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

static int frames_call(out *o, const call_tab *t, const mct_call *c)
{
    if (call_encode(&o->text, t, o->state, c) < 0) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

static int frames_summary(out *o, const sum *s, int final)
{
    mct_buf b;
    mct_err e;
    size_t start;
    int rc = -1;

    buf_init(&b);
    start = call_frame_begin(&b, 0);
    if (sum_write_json(s, final, &b, &e) == 0)
        rc = call_frame_end(&b, start) == 0 && fwrite(b.data, 1, b.len, o->f) == b.len ? 0 : -1;
    if (rc < 0 && errno == 0)
        errno = ENOMEM;
    buf_free(&b);
    return rc;
}

static int frames_end(out *o)
{
    call_defs_free(o->state);
    free(o->state);
    o->state = NULL;
    return 0;
}

const struct out_format fmt_frames = {
    .begin = frames_begin,
    .call = frames_call,
    .summary = frames_summary,
    .end = frames_end,
};
