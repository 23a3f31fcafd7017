/* fmt_json.c — the default format: each call as one compact JSON object per
 * line (SPEC §3), as the agent rendered it, with the control characters
 * jansson leaves raw escaped (fu_json_dump). A summary is written the same
 * way, one object per line. */
#include "output.h"

#include "fmtutil.h"

static int json_call(out *o, const json_t *call)
{
    if (fu_json_dump(o->f, call, JSON_COMPACT) < 0 || fputc('\n', o->f) == EOF)
        return -1;
    return 0;
}

const struct out_format fmt_json = {
    .call = json_call,
    .summary = json_call,
};
