/* fmt_json.c — the default format: each call as one compact JSON object per
 * line (SPEC §3), as the agent rendered it, with the control characters
 * jansson leaves raw escaped (fu_json_dump). A summary is written the same
 * way, one object per line. Tagged with a pid (out_set_pid), each gets a
 * "pid" key after its own. */
#include "output.h"

#include <errno.h>

#include "fmtutil.h"

static int json_call(out *o, const json_t *call)
{
    json_t *tagged = NULL;
    int rc;

    /* The wrap form: the object with its JVM's pid last (a shallow copy). */
    if (o->pid > 0) {
        tagged = json_copy((json_t *)call);
        if (tagged == NULL || json_object_set_new(tagged, "pid", json_integer(o->pid)) < 0) {
            json_decref(tagged);
            return -1;
        }
        call = tagged;
    }
    rc = fu_json_dump(o->f, call, JSON_COMPACT) < 0 || fputc('\n', o->f) == EOF ? -1 : 0;
    json_decref(tagged);
    return rc;
}

/* A compact call, rendered in one pass (crec_json_line writes what
 * fu_json_dump would) after the lines not written yet (output.c writes
 * them). */
static int json_call_rec(out *o, const crec_tab *t, const crec_call *c)
{
    if (crec_json_line(&o->text, t, c) < 0) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

const struct out_format fmt_json = {
    .call = json_call,
    .call_rec = json_call_rec,
    .summary = json_call,
};
